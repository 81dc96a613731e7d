"""Export of customized models to CasADi: ``SX`` graphs, ``casadi.Function``.

CasADi is optional: ``pip install 'robmod[casadi]'``.  :func:`to_casadi` builds the model's
statements as one SX graph: each intermediate variable is one SX node, used by reference
wherever the model uses it, so the graph has the model's intermediate variables and its
operation count (a sum of k terms is k - 1 additions and subtractions, a product of k factors
k - 1 multiplications, ``x**2`` one multiplication, a change of sign a subtraction where the
model writes one).  The ``casadi.Function`` takes one vector per input group (``q``, ``qd``,
``qdd``, ``tau``, ``params`` when the model has free parameters) and returns one matrix per
output (a vector as a column; an array of more than two dimensions as (rows of its leading
dimensions, last dimension)).  It is what ``nlpsol`` (IPOPT), ``integrator`` or acados take,
and CasADi's own automatic differentiation applies to it.
"""
from __future__ import annotations

import math

import sympy as sp

from ..arguments import keyword_options, model_argument
from ..errors import ArgumentError, RobmodError

CASADI = "pip install 'robmod[casadi]'"


def _casadi():
    try:
        import casadi
    except ImportError:
        raise RobmodError(f"the CasADi export needs CasADi: {CASADI}") from None
    return casadi


def _groups(model):
    return [g for g in model.inputs if model.inputs[g]]


def _out_shape(shape):
    if len(shape) == 1:
        return (shape[0], 1)
    if len(shape) == 2:
        return tuple(shape)
    return (math.prod(shape[:-1]), shape[-1])


class _SXBuilder:
    """SymPy expressions of a model -> SX nodes (statement symbols by reference).

    A lean walk over the expressions' own structure (no SymPy comparison, no new SymPy
    expression): a sum of k terms is k - 1 additions and subtractions (a term with a negative
    coefficient is subtracted), a product of k factors k - 1 multiplications and divisions
    (a negative integer power divides), ``x**2`` one multiplication."""

    def __init__(self, ca, env):
        self.ca, self.env = ca, env
        # SX.binary / SX.unary with CasADi's operation codes: the same nodes as x * y, about
        # eight times faster through the Python bindings (no operand-kind checks)
        binary, unary = ca.SX.binary, ca.SX.unary
        self.mul = lambda x, y: binary(ca.OP_MUL, x, y)
        self.add = lambda x, y: binary(ca.OP_ADD, x, y)
        self.sub = lambda x, y: binary(ca.OP_SUB, x, y)
        self.div = lambda x, y: binary(ca.OP_DIV, x, y)
        self.neg = lambda x: unary(ca.OP_NEG, x)
        self.funcs = {f: (lambda op: lambda x: unary(op, x))(op) for f, op in (
            (sp.sin, ca.OP_SIN), (sp.cos, ca.OP_COS), (sp.tan, ca.OP_TAN), (sp.exp, ca.OP_EXP),
            (sp.sign, ca.OP_SIGN), (sp.Abs, ca.OP_FABS), (sp.asin, ca.OP_ASIN),
            (sp.acos, ca.OP_ACOS), (sp.atan, ca.OP_ATAN), (sp.tanh, ca.OP_TANH))}
        self.numbers: dict = {}
        self.signed: dict = {}
        self.constants = {sp.pi: float(sp.pi), sp.E: float(sp.E)}

    def number(self, v: float):
        """The SX constant v (one node per value)."""
        x = self.numbers.get(v)
        if x is None:
            x = self.numbers[v] = self.ca.SX(v)
        return x

    def coefficient(self, c):
        """(negative, |c| as an SX constant or None for 1) of a SymPy number, converted once
        (SymPy's float() of a Float costs more than the node)."""
        out = self.signed.get(c)
        if out is None:
            v = float(c)
            out = self.signed[c] = (v < 0, None if abs(v) == 1.0 else self.number(abs(v)))
        return out

    def __call__(self, e):
        if e.is_Symbol:
            try:
                return self.env[e]
            except KeyError:
                raise RobmodError(f"to_casadi: symbol {e} is neither an input nor a statement "
                                  "of the model") from None
        if e.is_Number:
            neg, x = self.coefficient(e)
            x = self.number(1.0) if x is None else x
            return self.neg(x) if neg else x
        if e.is_Add:
            out = None
            for t in e.args:
                neg, x = self._term(t)
                if out is None:
                    out = self.neg(x) if neg else x
                else:
                    out = self.sub(out, x) if neg else self.add(out, x)
            return out
        if e.is_Mul:
            neg, x = self._term(e)
            return self.neg(x) if neg else x
        if e.is_Pow:
            return self._pow(e.base, e.exp)
        if e is sp.pi or e is sp.E:
            return self.number(self.constants[e])
        if isinstance(e, sp.atan2):
            return self.ca.SX.binary(self.ca.OP_ATAN2, self(e.args[0]), self(e.args[1]))
        f = self.funcs.get(type(e))
        if f is None:
            raise RobmodError(f"to_casadi: function {type(e).__name__} cannot be exported")
        return f(self(e.args[0]))

    def _term(self, t):
        """(negative, node of |t|) of a term: a number, or a product whose numeric coefficient
        (SymPy keeps it first) may be negative."""
        if t.is_Number:
            neg, x = self.coefficient(t)
            return neg, self.number(1.0) if x is None else x
        if not t.is_Mul:
            return False, self(t)
        factors, neg, out = t.args, False, None
        if factors[0].is_Number:
            neg, out = self.coefficient(factors[0])
            factors = factors[1:]
        den = []
        for f in factors:
            if f.is_Pow and f.exp.is_Integer and f.exp < 0:
                den.append(f)
                continue
            x = self(f)
            out = x if out is None else self.mul(out, x)
        if out is None:
            out = self.number(1.0)
        for f in den:
            out = self.div(out, self._pow(f.base, -f.exp))
        return neg, out

    def _pow(self, base, exp):
        if exp.is_Integer and exp > 0:
            b = self(base)
            out = b
            for _ in range(int(exp) - 1):
                out = self.mul(out, b)
            return out
        if exp.is_Integer and exp < 0:
            return self.div(self.number(1.0), self._pow(base, -exp))
        if exp == sp.Rational(1, 2):
            return self.ca.sqrt(self(base))
        return self(base) ** self(exp)


@keyword_options()
def to_casadi(model, *, name: str | None = None):
    """The model as a ``casadi.Function`` (see the module's docstring) named ``name`` (default:
    the model's name)."""
    model_argument(model, "to_casadi")
    if name is not None and not (isinstance(name, str) and name.isidentifier()):
        raise ArgumentError(f"to_casadi: name must be an identifier (str), got {name!r}")
    ca = _casadi()
    env, args, arg_names = {}, [], []
    for g in _groups(model):
        syms = model.inputs[g]
        x = ca.SX.sym(g, len(syms))
        for k, s in enumerate(syms):
            env[s] = x[k]
        args.append(x)
        arg_names.append(g)
    build = _SXBuilder(ca, env)
    for lhs, rhs in model.statements:
        env[lhs] = build(rhs)
    outs, out_names = [], []
    for o in model.outputs:
        rows, cols = _out_shape(o.shape)
        m = ca.SX.zeros(rows, cols)
        for k, e in enumerate(o.exprs):
            m[k // cols, k % cols] = build(e)
        outs.append(m)
        out_names.append(o.name)
    return ca.Function(name or _ident(model.name), args, outs, arg_names, out_names)


def casadi_operations(function) -> dict:
    """The arithmetic of a ``casadi.Function``'s graph by kind, counted as robmod counts a
    model's: ``mults`` (multiplications and divisions, ``2 x`` and ``x^2`` included), ``adds``
    (additions, subtractions), ``funcs`` (sin, cos, sqrt, sign, ...), ``signs`` (changes of
    sign, free in robmod's counts), with ``instructions`` its ``n_instructions`` (inputs,
    outputs and constants included) and ``nodes`` its ``n_nodes``."""
    ca = _casadi()
    if not isinstance(function, ca.Function):
        raise ArgumentError(f"casadi_operations: function must be a casadi.Function (e.g. "
                            f"model.to_casadi()), got {type(function).__name__}")
    kinds = {ca.OP_MUL: "mults", ca.OP_DIV: "mults", ca.OP_SQ: "mults", ca.OP_TWICE: "mults",
             ca.OP_INV: "mults", ca.OP_ADD: "adds", ca.OP_SUB: "adds", ca.OP_NEG: "signs"}
    skip = {ca.OP_CONST, ca.OP_INPUT, ca.OP_OUTPUT, ca.OP_PARAMETER}
    out = {"mults": 0, "adds": 0, "funcs": 0, "signs": 0}
    for k in range(function.n_instructions()):
        op = function.instruction_id(k)
        if op in skip:
            continue
        out[kinds.get(op, "funcs")] += 1
    out["instructions"] = function.n_instructions()
    out["nodes"] = function.n_nodes()
    return out


def _ident(name):
    import re

    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return s if re.match(r"^[A-Za-z_]", s) else "m_" + s


__all__ = ["to_casadi", "casadi_operations"]
