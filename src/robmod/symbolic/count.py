"""Operation counts of expressions, as the books count them.

* multiplications and divisions together (``x**2`` is one multiplication,
  ``x**n`` is n - 1, a product by -1 is a free sign change, a numeric
  coefficient other than +-1 is one multiplication);
* additions and subtractions together;
* function calls (sin, cos, sqrt, atan2, ...) separately; the operations in the
  argument of a function call (e.g. ``th2 + th3`` in ``S23 = sin(th2 + th3)``)
  are not counted, as the books leave them out of their totals.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..errors import ArgumentError


@dataclass(frozen=True)
class OpCount:
    mults: int = 0
    adds: int = 0
    funcs: int = 0

    def __add__(self, other: "OpCount") -> "OpCount":
        return OpCount(self.mults + other.mults, self.adds + other.adds,
                       self.funcs + other.funcs)

    @property
    def total(self) -> int:
        return self.mults + self.adds

    def _repr_html_(self) -> str:       # Jupyter
        from ..description.table import html_table

        return html_table(["multiplications", "additions", "function calls"],
                          [[self.mults, self.adds, self.funcs]])

    def __str__(self) -> str:
        s = f"{self.mults} multiplications, {self.adds} additions"
        if self.funcs:
            s += f", {self.funcs} function calls"
        return s


def _strip_sign(e):
    """(expression without a leading -1 factor)."""
    if e.is_Mul and e.args[0] == -1:
        return sp.Mul(*e.args[1:], evaluate=False)
    return e


def count_ops(expr) -> OpCount:
    """The multiplications, additions and function calls of a SymPy expression."""
    if not isinstance(expr, (sp.Basic, int, float)):
        raise ArgumentError(f"count_ops counts the operations of a SymPy expression, got "
                          f"{type(expr).__name__}")
    m, a, f = _count(sp.sympify(expr))  # safe: a SymPy expression or a number
    return OpCount(m, a, f)


def _count(e):
    if e.is_Atom:
        return 0, 0, 0
    if e.is_Add:
        m, a, f = 0, len(e.args) - 1, 0
        for arg in e.args:
            mm, aa, ff = _count(_strip_sign(arg))
            m, a, f = m + mm, a + aa, f + ff
        return m, a, f
    if e.is_Mul:
        coef, factors = e.as_coeff_mul()
        m = 0 if coef in (1, -1) else 1
        a = f = 0
        num = den = 0
        for fac in factors:
            if fac.is_Pow and fac.exp.is_Integer and fac.exp < 0:
                den += 1
                mm, aa, ff = _count(sp.Pow(fac.base, -fac.exp, evaluate=False)
                                    if fac.exp != -1 else fac.base)
            else:
                num += 1
                mm, aa, ff = _count(fac)
            m, a, f = m + mm, a + aa, f + ff
        if num == 0:
            m += den
        else:
            m += num - 1 + den
        return m, a, f
    if e.is_Pow:
        base, exp = e.base, e.exp
        mb, ab, fb = _count(base)
        if exp.is_Integer:
            n = int(exp)
            if n > 0:
                return mb + n - 1, ab, fb
            return mb + (-n - 1) + 1, ab, fb
        if exp == sp.Rational(1, 2):
            return mb, ab, fb + 1
        me, ae, fe = _count(exp)
        return mb + me, ab + ae, fb + fe + 1
    if isinstance(e, sp.Function) or e.is_Function:
        # one call; operations inside the argument (angle sums) are not counted, as in the books
        return 0, 0, 1
    # anything else (relationals, piecewise ...): count its arguments
    m = a = f = 0
    for arg in e.args:
        mm, aa, ff = _count(arg)
        m, a, f = m + mm, a + aa, f + ff
    return m, a, f


__all__ = ["OpCount", "count_ops"]
