"""Sparse polynomials over the rationals, for Paul's method.

A polynomial is a ``dict`` mapping a monomial to a non-zero coefficient
(``int`` or :class:`fractions.Fraction`); a monomial is a sorted tuple of
``(generator, exponent)`` pairs, the empty tuple being the constant monomial.
Generators are small integers registered in a :class:`Gens` table, which
knows their SymPy symbol and their role (sine or cosine of a joint angle,
prismatic variable, element of the target, parameter of the robot, named
known coefficient).

This small representation is independent of the number of generators, which
grows while the method names known coefficients, and its products are cheap.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from ...errors import RobmodError

def const(c) -> dict:
    return {(): c} if c else {}


def gen(g: int) -> dict:
    return {((g, 1),): 1}


_MONO_PRODUCTS: dict = {}    # (a, b) -> a b: the same monomials multiply again and again
_MONO_PRODUCTS_MAX = 100_000     # about 10 000 for the Panda


def mono_mul(a, b):
    if not a:
        return b
    if not b:
        return a
    m = _MONO_PRODUCTS.get((a, b))
    if m is None:
        d = dict(a)
        for g, e in b:
            d[g] = d.get(g, 0) + e
        m = tuple(sorted(d.items()))
        if len(_MONO_PRODUCTS) >= _MONO_PRODUCTS_MAX:
            _MONO_PRODUCTS.clear()
        _MONO_PRODUCTS[a, b] = m
    return m


SMALL = 8     # terms below which the arithmetic is done on the coefficients as they are


def _integral(p: dict):
    """``(q, den)`` with p = q / den and q's coefficients ``int`` (den the least common
    denominator): the arithmetic of Python's integers is much faster than Fraction's."""
    dens = [c.denominator for c in p.values() if type(c) is not int]
    if not dens:
        return p, 1
    den = math.lcm(*dens)
    return {m: c * den if type(c) is int else c.numerator * (den // c.denominator)
            for m, c in p.items()}, den


def _divided(q: dict, den: int) -> dict:
    """``q / den`` without its zero terms, _integral coefficients as ``int``."""
    if den == 1:
        return {m: c for m, c in q.items() if c}
    return {m: c // den if c % den == 0 else Fraction(c, den) for m, c in q.items() if c}


def add(a: dict, b: dict) -> dict:
    return total(a, b)


def sub(a: dict, b: dict) -> dict:
    return total(a, neg(b))


def neg(a: dict) -> dict:
    return {m: -c for m, c in a.items()}


def scale(a: dict, k) -> dict:
    if not k:
        return {}
    return {m: c * k for m, c in a.items()}


def mul(a: dict, b: dict) -> dict:
    if not a or not b:
        return {}
    den = 1
    if len(a) * len(b) > SMALL:
        a, da = _integral(a)
        b, db = _integral(b)
        den = da * db
    out: dict = {}
    get = out.get
    for m1, c1 in a.items():
        for m2, c2 in b.items():
            m = mono_mul(m1, m2)
            out[m] = get(m, 0) + c1 * c2
    return _divided(out, den)


def total(*polys) -> dict:
    if sum(map(len, polys)) <= SMALL:
        out: dict = {}
        for p in polys:
            for m, c in p.items():
                out[m] = out.get(m, 0) + c
        return {m: c for m, c in out.items() if c}
    polys = [_integral(p) for p in polys if p]
    den = math.lcm(*[d for _, d in polys]) if polys else 1
    out: dict = {}
    get = out.get
    for p, d in polys:
        f = den // d
        for m, c in p.items():
            out[m] = get(m, 0) + (c if f == 1 else c * f)
    return _divided(out, den)


def gens_of(p: dict) -> set:
    return {g for m in p for g, _ in m}


def _is_const(p: dict) -> bool:
    return all(not m for m in p)


def _const_value(p: dict):
    return p.get((), 0)


def reduce_trig(p: dict, pairs: dict, memo: dict | None = None) -> dict:
    """Normal form modulo S^2 + C^2 = 1 for every pair ``{S: C}``: S appears with _degree <= 1.

    ``S^e = S^(e mod 2) (1 - C^2)^(e div 2)``, expanded by the binomial formula; the
    normal form is unique (the _leading terms S^2 are coprime: a Groebner basis), so it
    does not depend on the order of the reductions.  ``memo`` keeps the expansion of each
    monomial (valid for one ``pairs``).
    """
    if not any(g in pairs and e >= 2 for m in p for g, e in m):
        return p
    if memo is None:
        memo = {}
    p, den = _integral(p)
    out: dict = {}
    get = out.get
    for mono, c in p.items():
        red = memo.get(mono)
        if red is None:
            red = memo[mono] = _reduce_monomial(mono, pairs)
        for m, k in red:
            out[m] = get(m, 0) + (c if k == 1 else c * k)
    return _divided(out, den)


def _reduce_monomial(mono, pairs) -> tuple:
    """``((monomial, integer), ...)``: the normal form of one monomial."""
    exps = dict(mono)
    terms = {(): 1}
    for g, e in mono:
        if e < 2 or g not in pairs:
            continue
        h, cg = e // 2, pairs[g]
        if e % 2:
            exps[g] = 1
        else:
            del exps[g]
        c0 = exps.pop(cg, 0)
        # (1 - C^2)^h = sum_i (-1)^i binom(h, i) C^(2i), times the C^c0 already there
        factor = [(c0 + 2 * i, (-1) ** i * math.comb(h, i)) for i in range(h + 1)]
        terms = {t + ((cg, ce),) if ce else t: k * b for t, k in terms.items() for ce, b in factor}
    base = list(exps.items())
    return tuple([(tuple(sorted(base + list(t))), k) for t, k in terms.items()])


def split(p: dict, gens: set) -> dict:
    """``{monomial in gens: coefficient polynomial in the other generators}``."""
    out: dict = {}
    for m, c in p.items():
        inside = tuple([t for t in m if t[0] in gens])
        if inside:
            rest = tuple([t for t in m if t[0] not in gens])
        else:
            rest = m
        d = out.get(inside)
        if d is None:
            d = out[inside] = {}
        d[rest] = c           # the monomials of p are distinct, so are the (inside, rest)
    return out


def join(parts: dict) -> dict:
    """Inverse of :func:`split`."""
    out: dict = {}
    for inside, coef in parts.items():
        for m, c in coef.items():
            mm = mono_mul(inside, m)
            out[mm] = out.get(mm, 0) + c
    return {m: c for m, c in out.items() if c}


def _degree(p: dict, g: int) -> int:
    return max((e for m in p for h, e in m if h == g), default=0)


def min_degree(p: dict, g: int) -> int:
    return min((dict(m).get(g, 0) for m in p), default=0)


def _leading(p: dict):
    """A deterministic _leading coefficient (of the largest monomial)."""
    return p[max(p)]


def key(p: dict, lead=None):
    """A hashable key of p up to a constant factor, and the coefficient of its _leading monomial.

    The key is p scaled to integer coefficients without a common factor, the _leading
    one positive.  ``lead(monomial)`` orders the monomials to choose the _leading one
    (default: the largest monomial).
    """
    if not p:
        return frozenset(), 1
    c = p[max(p, key=lead)] if lead else _leading(p)
    q, _ = _integral(p)
    g = math.gcd(*q.values())
    if c < 0:
        g = -g
    if g == 1:
        return frozenset(q.items()), c
    return frozenset(zip(q, [v // g for v in q.values()])), c


def _to_fraction(x) -> int | Fraction:
    """A rational from a SymPy number (floats by their decimal text, so 0.4318 is exact).

    Integers stay ``int``: their arithmetic is much faster than that of ``Fraction``.
    """
    x = sp.sympify(x)  # safe: numbers from robmod's own expressions
    if x.is_Integer:
        return int(x)
    if x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    if x.is_Float:
        return Fraction(str(x))
    try:
        return Fraction(float(x))
    except TypeError:
        raise RobmodError(f"cannot use {x} as a number in Paul's method") from None


@dataclass
class Gens:
    """The table of generators: symbol, role and, for a named coefficient, its definition."""

    symbols: list = field(default_factory=list)
    roles: list = field(default_factory=list)      # 'S', 'C', 'q', 'T', 'p', 'K'
    owner: list = field(default_factory=list)      # variable id for S, C, q; None otherwise
    index: dict = field(default_factory=dict)      # symbol -> id
    trig: dict = field(default_factory=dict)       # S id -> C id
    definition: dict = field(default_factory=dict)  # K id -> polynomial in known generators
    _k_memo: dict = field(default_factory=dict)

    def copy(self) -> "Gens":
        return Gens(list(self.symbols), list(self.roles), list(self.owner), dict(self.index),
                    dict(self.trig), dict(self.definition), dict(self._k_memo))

    def add(self, symbol, role, owner=None) -> int:
        if symbol in self.index:
            raise RobmodError(f"name {symbol} is used twice in the IGM (robot parameter named "
                              f"like a joint or target symbol?)")
        g = len(self.symbols)
        self.symbols.append(symbol)
        self.roles.append(role)
        self.owner.append(owner)
        self.index[symbol] = g
        return g

    def from_sympy(self, expr) -> dict:
        """A polynomial from a SymPy expression in registered symbols (numbers made rational)."""
        expr = sp.sympify(expr)  # safe: robot parameters are already SymPy expressions
        if expr.is_Number or not expr.free_symbols:
            return const(_to_fraction(expr))
        if expr.is_Symbol:
            if expr not in self.index:
                raise RobmodError(f"unexpected symbol {expr} in Paul's method")
            return gen(self.index[expr])
        if expr.is_Add:
            return total(*[self.from_sympy(a) for a in expr.args])
        if expr.is_Mul:
            out = const(1)
            for a in expr.args:
                out = mul(out, self.from_sympy(a))
            return out
        if expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
            out = const(1)
            base = self.from_sympy(expr.base)
            for _ in range(int(expr.exp)):
                out = mul(out, base)
            return out
        raise RobmodError(f"Paul's method needs geometric parameters polynomial in their "
                          f"symbols; got {expr}")

    def to_sympy(self, p: dict, symbol=None):
        """The SymPy expression of p (``symbol(g)`` maps a generator to a symbol)."""
        sym = symbol or (lambda g: self.symbols[g])
        terms = []
        for m, c in sorted(p.items(), key=lambda t: t[0]):
            num = sp.Rational(c.numerator, c.denominator) if isinstance(c, Fraction) \
                else sp.Integer(c)
            factors = [sym(g) ** e for g, e in m]
            terms.append(sp.Mul(num, *factors))
        return sp.Add(*terms)

    def name_known(self, p: dict) -> dict:
        """``c K`` with K a named known coefficient, or p itself when it is simple.

        Simple: a constant, an expression of the robot's parameters only, or one monomial.
        Equal coefficients up to a constant factor get the same name.
        """
        if len(p) <= 1 or all(self.roles[g] == "p" for g in gens_of(p)):
            return p
        roles = self.roles
        k, c = key(p, lambda m: (sum(roles[x] == "T" for x, _ in m), m))
        g = self._k_memo.get(k)
        if g is None:
            g = self.add(sp.Symbol(f"K{len(self._k_memo) + 1}"), "K")
            self.definition[g] = {m: Fraction(v) / c for m, v in p.items()}
            self._k_memo[k] = g
        return {((g, 1),): c}

    def depends(self, p: dict) -> set:
        """Variables (ids) p depends on, through named coefficients too."""
        out = set()
        for g in gens_of(p):
            if self.roles[g] == "K":
                out |= self.depends(self.definition[g])
            elif self.owner[g] is not None:
                out.add(self.owner[g])
        return out


__all__ = []
