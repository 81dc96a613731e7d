"""Evaluation contexts: the same algorithm runs symbolically or numerically.

Algorithms in robmod are written once over *scalars* (3-vectors and 3x3 or
4x4 matrices are nested lists of scalars) and take a context ``ctx`` that says
what a scalar is:

* :class:`SymbolicContext` — scalars are SymPy expressions.  ``ctx.var(expr,
  name)`` turns every element that needs an operation into a named
  intermediate variable (the books' customized model, Khalil & Dombre §3.4, Khalil & Dombre §7.5.2);
  trivial products and sums are folded as they are built.
  :func:`~robmod.symbolic.model.customize` runs an algorithm in this context
  and returns the :class:`~robmod.symbolic.model.CustomModel`.
* :class:`NumericContext` — scalars are NumPy arrays with any leading batch
  shape; ``ctx.var`` returns its argument.

Both give the algorithm the joint variables, the sines and cosines of angles,
and the robot's parameters in their own scalar type.
"""
from __future__ import annotations

import re

import numpy as np
import sympy as sp
from sympy.core.parameters import distribute

from ..arguments import keyword_options
from ..errors import RobmodError


def is_trivial(expr) -> bool:
    """A symbol, a number, or minus one of them: no operation to name."""
    if expr.is_Atom:
        return True
    if expr.is_Mul and len(expr.args) == 2 and expr.args[0] == -1 and expr.args[1].is_Atom:
        return True
    return False


def _elementary(f, *args):
    """``f(*args)`` for a SymPy elementary function, evaluated with products distributed.

    The customized models are built with SymPy's ``distribute(False)`` (so that ``-(a + b)``
    stays a product and the book's factored forms survive).  In that mode an odd or even
    function of a sum whose terms are all negative -- ``sin(-1.0*q31 - 0.61)``, the angle of a
    mimic joint with a negative multiplier -- never finishes: its ``eval`` takes the sign out
    (``sin(x) = -sin(-x)``), ``-x`` stays ``-1*(...)``, which again carries a sign, and SymPy
    recurses until ``RecursionError``.  Distributing the minus sign of the argument ends it at
    once.
    """
    with distribute(True):
        return f(*args)


def _fold_pythagoras(expr, cosine_of):
    """Replace ``a*S**2 + a*C**2`` by ``a`` for each sine S and its cosine C (``cosine_of[S]
    = (rank, C)``, rank the order in which the angles were met).

    Only the pairs whose two symbols occur in ``expr`` are tried (found from its free symbols,
    not by searching it once per joint): the cost of a statement does not grow with the
    number of joints of the robot.
    """
    if not expr.is_Add:
        return expr
    free = expr.free_symbols
    pairs = sorted(cosine_of[S] + (S,) for S in free if S in cosine_of and cosine_of[S][1] in free)
    if not pairs:
        return expr
    terms = list(expr.args)
    changed = False
    for _, C, S in pairs:       # in the order the angles were met
        i = 0
        while i < len(terms):
            t = terms[i]
            if t.as_powers_dict().get(S) == 2:
                rest = t / S**2
                partner = rest * C**2
                for k in range(len(terms)):
                    if k != i and terms[k] == partner:
                        terms[i] = rest
                        del terms[k]
                        changed = True
                        break
            i += 1
    return sp.Add(*terms) if changed else expr


class SymbolicContext:
    """Records the statements of a customized model while an algorithm runs."""

    symbolic = True

    @keyword_options()
    def __init__(self, robot=None, *, trig_names: bool = True):
        self.robot = robot
        self.statements: list[tuple[sp.Symbol, sp.Expr]] = []
        self.names: set[str] = set()
        self._trig: dict = {}
        self._trig_fn: dict = {}
        self.trig_names = trig_names
        self._cosine_of: dict = {}      # sine symbol -> (rank, cosine symbol of the angle)

    # -- naming ---------------------------------------------------------------------------
    def _new_symbol(self, name: str) -> sp.Symbol:
        base = name
        k = 1
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return sp.Symbol(name)

    def reserve(self, *names):
        """Mark names (inputs, parameters) as taken."""
        self.names.update(str(n) for n in names)

    def var(self, expr, name: str):
        """Name ``expr`` if it holds an operation; return the symbol (or ``expr`` itself)."""
        expr = sp.sympify(expr)  # safe: built by robmod algorithms, never from file text
        if self._cosine_of and expr.is_Add:
            expr = _fold_pythagoras(expr, self._cosine_of)
        if is_trivial(expr):
            return expr
        sym = self._new_symbol(name)
        self.statements.append((sym, expr))
        return sym

    def vec(self, exprs, name: str, suffixes=("1", "2", "3")):
        return [self.var(e, f"{name}{s}") for e, s in zip(exprs, suffixes)]

    # -- inputs -----------------------------------------------------------------------------
    def joint(self, j: int, group: str = "q"):
        from ..description.robot import joint_acceleration, joint_variable, joint_velocity

        fn = {"q": joint_variable, "qd": joint_velocity, "qdd": joint_acceleration}[group]
        mimic = self.robot.mimic if self.robot is not None else {}
        if j in mimic:      # a dependent joint: q_j = m q_i + c
            i, m, c = mimic[j]
            return m * fn(i) + (c if group == "q" else 0)
        return fn(j)

    def base(self, group: str = "q") -> list:
        """The base's entries of ``group`` of a mobile or floating robot (its position and
        quaternion, twist, or the twist's derivative): the symbols ``PB1``.. ``QB3``,
        ``V01``.. ``W03``, ``VD01``.. ``WP03``."""
        from ..description.base import BASE_INPUTS

        return [sp.Symbol(name) for name in BASE_INPUTS[group]]

    def param(self, expr):
        """A robot parameter, as this context's scalar."""
        return expr

    def const(self, value):
        return sp.sympify(value)  # safe: numbers/expressions from robmod code

    def fn(self, name: str, *args):
        """An elementary function (sign, abs, exp, sqrt, atan2) of context scalars."""
        f = {"sign": sp.sign, "abs": sp.Abs, "exp": sp.exp, "sqrt": sp.sqrt,
             "atan2": sp.atan2}[name]
        return _elementary(f, *args)

    def sincos(self, angle, tag: str):
        """(sin, cos) of ``angle``; angles holding joint variables become ``S{tag}``, ``C{tag}``."""
        angle = sp.sympify(angle)  # safe: angle built from the description's expressions
        key = angle
        if key in self._trig:
            return self._trig[key]
        s, c = _elementary(sp.sin, angle), _elementary(sp.cos, angle)
        if not angle.free_symbols or not self.trig_names:
            out = (s, c)
        else:
            is_joint = any(re.fullmatch(r"q\d+", str(x)) for x in angle.free_symbols)
            prefix = "" if is_joint else "_"
            named = []
            for expr, name in ((s, f"S{prefix}{tag}"), (c, f"C{prefix}{tag}")):
                # sin(q + pi) = -sin(q): the statement is the sine itself (the vectorized
                # kernels take sin and cos of the joints), the sign a free change
                coeff, rest = expr.as_coeff_Mul()
                sign = -1 if coeff == -1 and isinstance(rest, (sp.sin, sp.cos)) else 1
                expr = rest if sign == -1 else expr
                if expr not in self._trig_fn:
                    self._trig_fn[expr] = self.var(expr, name)
                named.append((sign, self._trig_fn[expr]))
            S, C = named[0][1], named[1][1]
            if S.is_Symbol and C.is_Symbol and S not in self._cosine_of:
                self._cosine_of[S] = (len(self._cosine_of), C)
            out = tuple(sign * sym for sign, sym in named)
        self._trig[key] = out
        return out


_NO_OFFSETS = {"q": 0, "qd": 0, "qdd": 0}


class NumericContext:
    """Runs an algorithm on NumPy arrays (batched over leading dimensions): the robot's arrays
    ``q``, ``qd``, ``qdd`` (a mobile or floating base's entries first, 7 in q, 6 in the
    others: :meth:`base`)."""

    symbolic = False

    @keyword_options()
    def __init__(self, robot=None, *, q=None, qd=None, qdd=None):
        self.robot = robot
        self.arrays = {"q": q, "qd": qd, "qdd": qdd}
        moving = robot is not None and robot.base_kind != "fixed"
        self.offsets = {"q": 7, "qd": 6, "qdd": 6} if moving else _NO_OFFSETS

    def var(self, expr, name: str):
        return expr

    def vec(self, exprs, name: str, suffixes=("1", "2", "3")):
        return list(exprs)

    def reserve(self, *names):
        pass

    def joint(self, j: int, group: str = "q"):
        arr = self.arrays[group]
        if arr is None:
            raise RobmodError(f"numeric evaluation needs {group}")
        index = self.robot.joint_index if self.robot is not None else None
        if index is None:
            return arr[..., j - 1]
        k = index.get(j)
        o = self.offsets[group]
        if k is None:
            if j in self.robot.mimic:      # a dependent joint: q_j = m q_i + c
                i, m, c = self.robot.mimic[j]
                return m * arr[..., o + index[i]] + (c if group == "q" else 0.0)
            raise RobmodError(f"frame {j} is fixed (sigma = 2): it has no joint variable")
        return arr[..., o + k]

    def base(self, group: str = "q") -> list:
        """The base's entries of ``group`` (the first 7 of q, 6 of qd and qdd) of a mobile or
        floating robot."""
        arr = self.arrays[group]
        if arr is None or not self.offsets[group]:
            raise RobmodError(f"numeric evaluation needs the base's {group}")
        return [arr[..., k] for k in range(self.offsets[group])]

    def param(self, expr):
        if isinstance(expr, sp.Basic):
            try:
                return float(expr)
            except TypeError:
                names = sorted(map(str, expr.free_symbols))
                if self.robot is not None:
                    from ..description.arguments import symbols_used

                    others = set(map(str, symbols_used(self.robot, "dynamics"))) - set(names)
                    names += sorted(others)
                shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
                raise RobmodError(
                    f"parameter {expr} is symbolic: numeric evaluation needs a numeric robot: "
                    f"call robot.numeric({{...}}) with values for {shown}") from None
        return expr

    def const(self, value):
        return self.param(value)

    def fn(self, name: str, *args):
        f = {"sign": np.sign, "abs": np.abs, "exp": np.exp, "sqrt": np.sqrt,
             "atan2": np.arctan2}[name]
        return f(*args)

    def sincos(self, angle, tag: str):
        if isinstance(angle, sp.Basic):
            if angle.free_symbols:
                raise RobmodError(f"angle {angle} is symbolic in a numeric evaluation")
            return float(sp.sin(angle)), float(sp.cos(angle))
        return np.sin(angle), np.cos(angle)


__all__ = ["SymbolicContext", "NumericContext"]
