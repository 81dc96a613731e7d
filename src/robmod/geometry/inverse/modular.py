"""A quick exact test of an eliminant's form, modulo a prime, before the exact computation.

Squaring and adding two equations linear in (Sv, Cv) (types 4 to 8, Khalil & Dombre
Appendix 1) gives ``(D1 B2 - D2 B1)^2 + (A1 D2 - A2 D1)^2 = (A1 B2 - A2 B1)^2``; it is
useful only when the result is of type 2 in the other unknown u: linear in (Su, Cu)
once reduced modulo ``Su^2 + Cu^2 = 1``.  Most pairs of equations fail this, and
the exact eliminant (rational coefficients) is costly.

The test evaluates every generator but u's sine and cosine at one point, with the
arithmetic of the integers modulo the prime p = 2^61 - 1: the sine and cosine of
every other angle at a rational point of the unit circle, ``S = 2t / (1 + t^2)``,
``C = (1 - t^2) / (1 + t^2)``, the other generators (named coefficients, target,
parameters, prismatic variables) at pseudo-random values.  Since S^2 + C^2 = 1 holds
at the point, evaluating commutes with the reduction: a coefficient of the reduced
eliminant that is non-zero modulo p at the point is a non-zero polynomial.  So when
a term in ``Su Cu``, ``Cu^2`` (...) survives modulo p, the exact eliminant is not of
type 2 and the pair is rejected without computing it; otherwise it is computed
exactly.  The test never rejects a pair the exact computation would accept.
"""
from __future__ import annotations

import random

from . import polys as P

PRIME = (1 << 61) - 1


class ModularPoint:
    """Values of the generators of a :class:`~.polys.Gens` table modulo ``PRIME``."""

    def __init__(self, g: P.Gens, seed: int = 4):
        self.g = g
        self.seed = seed
        self.values: dict = {}
        self.sine_of = {c: s for s, c in g.trig.items()}

    def value(self, x: int) -> int:
        v = self.values.get(x)
        if v is None:
            g = self.g
            rng = random.Random(self.seed * 1_000_003 + x)
            if x in g.trig or x in self.sine_of:        # on the unit circle
                s = x if x in g.trig else self.sine_of[x]
                rng = random.Random(self.seed * 1_000_003 + s)
                t = rng.randrange(2, PRIME - 1)
                inv = pow(1 + t * t, -1, PRIME)
                self.values[s] = 2 * t * inv % PRIME
                self.values[g.trig[s]] = (1 - t * t) * inv % PRIME
            else:
                self.values[x] = rng.randrange(1, PRIME)
            v = self.values[x]
        return v

    def partial(self, p: dict, keep) -> dict:
        """p with every generator but those of ``keep`` evaluated: ``{monomial in keep: int}``."""
        out: dict = {}
        for m, c in p.items():
            v = c.numerator * pow(c.denominator, -1, PRIME) % PRIME
            inside = []
            for x, e in m:
                if x in keep:
                    inside.append((x, e))
                else:
                    v = v * pow(self.value(x), e, PRIME) % PRIME
            k = tuple(inside)
            out[k] = (out.get(k, 0) + v) % PRIME
        return {k: v for k, v in out.items() if v}

    def square_fails(self, lin1, lin2, u) -> bool:
        """True when squaring and adding ``A_i S + B_i C = D_i`` (i = 1, 2) surely gives no
        equation linear in the sine and cosine of the angle u (see the module's text)."""
        s, c = u.gens
        keep = {s, c}
        try:
            A1, B1, D1 = (self.partial(x, keep) for x in lin1)
            A2, B2, D2 = (self.partial(x, keep) for x in lin2)
        except ValueError:     # a denominator divisible by the prime: no conclusion
            return False
        ns = _sub(_mul(D1, B2), _mul(D2, B1))
        nc = _sub(_mul(A1, D2), _mul(A2, D1))
        det = _sub(_mul(A1, B2), _mul(A2, B1))
        el = _sub(_add(_mul(ns, ns), _mul(nc, nc)), _mul(det, det))
        el = P.reduce_trig(el, {s: c})
        linear = ((), ((s, 1),), ((c, 1),))
        return any(m not in linear and v % PRIME for m, v in el.items())


def _mul(a: dict, b: dict) -> dict:
    out: dict = {}
    for m1, c1 in a.items():
        for m2, c2 in b.items():
            m = P.mono_mul(m1, m2)
            out[m] = (out.get(m, 0) + c1 * c2) % PRIME
    return out


def _add(a: dict, b: dict) -> dict:
    out = dict(a)
    for m, c in b.items():
        out[m] = (out.get(m, 0) + c) % PRIME
    return out


def _sub(a: dict, b: dict) -> dict:
    out = dict(a)
    for m, c in b.items():
        out[m] = (out.get(m, 0) - c) % PRIME
    return out


__all__ = []
