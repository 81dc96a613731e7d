"""Restricted parser for the expressions found in robot files.

File text is never given to ``eval`` or to ``sympy.sympify``.  It is parsed by
Python's :mod:`ast` (which only builds a syntax tree, it runs nothing) and the
tree is walked with a whitelist: numbers, names, ``+ - * / **`` (``^`` is read
as a power, as in SYMORO files), unary signs, parentheses and a few
mathematical functions.  Anything else (attribute access, subscripts, calls to
unknown functions, strings, lambdas, comprehensions ...) is refused with an
:class:`~robmod.errors.ExpressionError`.
"""
from __future__ import annotations

import ast
import math
import re

import sympy as sp
from sympy.printing.str import StrPrinter

from ..errors import ArgumentError, ExpressionError, Location

_MAX_LENGTH = 2000
_MAX_DEPTH = 60
#: largest magnitude of a number in a robot file (metres, radians, kilograms, ...)
MAX_MAGNITUDE = 1e12
#: largest exponent of a power of an expression with symbols (larger ones make expansions
#: of the models explode); numbers may have exponents up to 64
_MAX_SYMBOLIC_EXPONENT = 16

#: functions allowed in file expressions (lower-case keys; matched case-insensitively)
_FUNCTIONS = {
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "asin": sp.asin,
    "acos": sp.acos,
    "atan": sp.atan,
    "atan2": sp.atan2,
    "sqrt": sp.sqrt,
    "exp": sp.exp,
    "abs": sp.Abs,
}
_ARITY = {"atan2": 2}

#: named constants (matched case-insensitively)
_CONSTANTS = {"pi": sp.pi}

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MATHEMATICA_CALL = re.compile(r"\b([A-Za-z][A-Za-z0-9]*)\[")

_symbols: dict[str, sp.Symbol] = {}


def symbol(name: str) -> sp.Symbol:
    """The robmod symbol called ``name`` (plain SymPy symbol, cached)."""
    try:
        s = _symbols.get(name)
    except TypeError:       # unhashable: not a name
        s = None
    if s is None:
        if not isinstance(name, str):
            raise ArgumentError(f"a symbol name is text, got {type(name).__name__}")
        if not _NAME.match(name):
            raise ExpressionError(f"{name!r} is not a valid symbol name")
        s = _symbols[name] = sp.Symbol(name)
    return s


def parse_expression(text, location: Location | None = None) -> sp.Expr:
    """Parse a number or an expression from a robot file into a SymPy expression.

    ``text`` may be an int, a float, a bool-free number or a string.  Raises
    :class:`ExpressionError` (with ``location``) for anything not allowed.
    """
    if isinstance(text, bool):
        raise ExpressionError(f"expected a number or an expression, got {text!r}", location)
    if isinstance(text, (int, float)):
        return _number(text, text, location)
    if isinstance(text, sp.Expr):
        return text
    if not isinstance(text, str):
        raise ExpressionError(
            f"expected a number or an expression, got {type(text).__name__}", location)
    src = text.strip()
    if not src:
        raise ExpressionError("empty expression", location)
    if len(src) > _MAX_LENGTH:
        raise ExpressionError(f"expression longer than {_MAX_LENGTH} characters", location)
    # SYMORO+ (Mathematica) style: Sin[x] -> Sin(x); ^ -> **
    src = _MATHEMATICA_CALL.sub(r"\1(", src)
    if "[" in src or "]" in src:
        src = src.replace("]", ")")
    if "[" in src:
        raise ExpressionError(f"brackets are not allowed in expression {text!r}", location)
    src = src.replace("^", "**")
    try:
        tree = ast.parse(src, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ExpressionError(f"cannot parse expression {text!r}", location) from None
    try:
        expr = _build(tree.body, 0, text, location)
    except RecursionError:
        raise ExpressionError(f"expression {text!r} is nested too deeply", location) from None
    if not expr.free_symbols:   # a constant: its value must be a finite, sensible number
        try:
            value = complex(expr.evalf(15))
        except (TypeError, ValueError, OverflowError, ZeroDivisionError):
            raise ExpressionError(f"expression {text!r} has no finite value", location) \
                from None
        if value.imag != 0 or not math.isfinite(value.real) or \
                abs(value.real) > MAX_MAGNITUDE:
            raise ExpressionError(f"expression {text!r} is not a real number within "
                                  f"+-{MAX_MAGNITUDE:g}", location)
    return expr


def _number(value, text, location) -> sp.Expr:
    """A number of a file, refused when not finite or beyond :data:`MAX_MAGNITUDE`."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpressionError(f"value {text!r} is not finite", location)
    if abs(value) > MAX_MAGNITUDE:
        if isinstance(text, int) and text.bit_length() > 128:   # str() of it may be refused
            shown = f"an integer of {text.bit_length()} bits"
        else:
            shown = repr(str(text)[:40])
        raise ExpressionError(f"value {shown} is out of range (|x| > {MAX_MAGNITUDE:g})",
                              location)
    if isinstance(value, int):
        return sp.Integer(value)
    if value == int(value):
        return sp.Integer(int(value))
    return sp.Float(value)


def _build(node, depth, text, location):
    if depth > _MAX_DEPTH:
        raise ExpressionError(f"expression {text!r} is nested too deeply", location)
    d = depth + 1
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ExpressionError(f"only numbers are allowed as constants in {text!r}", location)
        return _number(v, text, location)
    if isinstance(node, ast.Name):
        low = node.id.lower()
        if low in _CONSTANTS:
            return _CONSTANTS[low]
        if low in _FUNCTIONS:
            raise ExpressionError(f"function {node.id!r} used without arguments in {text!r}",
                                  location)
        if node.id.startswith("__"):
            raise ExpressionError(f"name {node.id!r} is not allowed in {text!r}", location)
        return symbol(node.id)
    if isinstance(node, ast.UnaryOp):
        operand = _build(node.operand, d, text, location)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return operand
        raise ExpressionError(f"operator not allowed in {text!r}", location)
    if isinstance(node, ast.BinOp):
        left = _build(node.left, d, text, location)
        right = _build(node.right, d, text, location)
        op = node.op
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            if right == 0:
                raise ExpressionError(f"division by zero in {text!r}", location)
            return left / right
        if isinstance(op, ast.Pow):
            return _power(left, right, text, location)
        raise ExpressionError(f"operator not allowed in {text!r}", location)
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.keywords:
            raise ExpressionError(f"call not allowed in {text!r}", location)
        name = node.func.id.lower()
        fn = _FUNCTIONS.get(name)
        if fn is None:
            raise ExpressionError(f"function {node.func.id!r} is not allowed in {text!r} "
                                  f"(allowed: {', '.join(sorted(_FUNCTIONS))})", location)
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise ExpressionError(f"call not allowed in {text!r}", location)
        arity = _ARITY.get(name, 1)
        if len(node.args) != arity:
            raise ExpressionError(
                f"function {node.func.id!r} takes {arity} argument(s) in {text!r}", location)
        out = fn(*[_build(a, d, text, location) for a in node.args])
        if not out.free_symbols:
            _bounded_constant(out, text, location)
        return out
    raise ExpressionError(
        f"{type(node).__name__} is not allowed in expression {text!r}", location)


#: largest magnitude of a function's constant value inside an expression: exp(1e12) is a number
#: of 4e11 digits, whose sine SymPy would evaluate for hours
_MAX_INNER_MAGNITUDE = 1e100


def _bounded_constant(value, text, location):
    """Refuse a constant function value that is not finite or beyond 1e100 (checked at 15
    digits, before anything is built on it)."""
    try:
        v = complex(value.evalf(15))
        ok = math.isfinite(v.real) and math.isfinite(v.imag) and abs(v) <= _MAX_INNER_MAGNITUDE
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        ok = False
    if not ok:
        raise ExpressionError(f"expression {text!r} has no finite value within "
                              f"+-{_MAX_INNER_MAGNITUDE:g} (at {value})", location)


#: largest exact number a power may build, in bits (an integer of ~1200 digits): SymPy computes
#: exact powers in full, and ((9**64)**64)**64 has 16 million digits (seconds of CPU)
_MAX_EXACT_BITS = 4096


def _power(left, right, text, location):
    """left ** right, refused before SymPy evaluates it when the exponent is not a number of at
    most 64 (16 for an expression with symbols: larger ones make the models' expansions
    explode), when the power of an expression with symbols would exceed that (a tower such as
    (q**16)**16), or when an exact number of more than :data:`_MAX_EXACT_BITS` bits would be
    built (a bound from the bit lengths of the rationals in ``left``, times the exponent)."""
    if right.free_symbols:
        raise ExpressionError(f"the exponent must be a number in {text!r}", location)
    limit = _MAX_SYMBOLIC_EXPONENT if left.free_symbols else 64
    if not right.is_Number or abs(right) > limit:
        raise ExpressionError(f"exponent too large in {text!r} (at most {limit})", location)
    bits = max((max(int(r.p).bit_length(), int(r.q).bit_length())
                for r in left.atoms(sp.Rational)), default=0)
    if bits * abs(float(right)) > _MAX_EXACT_BITS:
        raise ExpressionError(f"power too large in {text!r}: its exact value would have more "
                              f"than {_MAX_EXACT_BITS} bits (a tower of powers?)", location)
    out = left ** right
    if left.free_symbols:
        worst = max((abs(p.exp) for p in out.atoms(sp.Pow) if p.exp.is_Number
                     and p.base.free_symbols), default=0)
        if worst > _MAX_SYMBOLIC_EXPONENT:
            raise ExpressionError(f"exponent too large in {text!r}: a power {worst} of an "
                                  f"expression with symbols (at most "
                                  f"{_MAX_SYMBOLIC_EXPONENT})", location)
    return out


def to_text(expr) -> str:
    """Write an expression the way robot files hold it (re-readable by the parser)."""
    expr = sp.sympify(expr)  # safe: expr is already a SymPy object or a Python number
    if expr.is_Integer:
        return str(int(expr))
    if expr.is_Float:
        return repr(float(expr))
    if expr.is_Rational:
        return f"{expr.p}/{expr.q}"
    return _plain(expr)


class _FilePrinter(StrPrinter):
    """SymPy's str printer, with floats written as Python's shortest exact repr."""

    def _print_Float(self, expr):
        return repr(float(expr))


_PRINTER = _FilePrinter()


def _plain(expr) -> str:
    # '**' is kept (the parser reads both '**' and '^').
    return _PRINTER.doprint(expr)


def _is_numeric(expr) -> bool:
    """True if the expression has no free symbol."""
    return not getattr(expr, "free_symbols", ())


def as_expr(value, location: Location | None = None) -> sp.Expr:
    """A SymPy expression from a number, a SymPy object or text (text goes through the parser)."""
    if isinstance(value, (str, bool, int, float)):
        return parse_expression(value, location)
    if isinstance(value, sp.Basic):
        return value
    try:
        import numpy as np

        if isinstance(value, np.generic):
            return parse_expression(value.item(), location)
    except ImportError:  # pragma: no cover
        pass
    raise ArgumentError(f"expected a number or an expression, got {type(value).__name__}",
                          location)


__all__ = ["parse_expression", "symbol"]
