"""The numeric finish of the symbolic base parameters.

The closed-form rules of Gautier & Khalil (1990) give the minimal set for revolute robots
and for most others; with prismatic joints near the base they can stop short of the minimum
(Theorem 7's bound is then not reached).  The remaining dependencies are found numerically: the
regressor columns of the symbolic base parameters are stacked at random states (with the
robot's geometric values, or random ones for symbols without values), and each column that is
a linear combination of the previous ones, W_c = sum_k a_k W_k, is regrouped into them,
beta_k <- beta_k + a_k beta_c.  Coefficients that are simple rationals within 1e-9 are written
exactly; others stay floating-point numbers valid for the geometry used, and a note says so.
"""
from __future__ import annotations

from dataclasses import replace

from fractions import Fraction

import numpy as np
import sympy as sp


def _coefficient(a: float):
    """(a as a SymPy number, exact): the closest rational of denominator <= 1000 when it is
    within 1e-9 (relative) of ``a``, else the float."""
    r = Fraction(a).limit_denominator(1000)
    if abs(float(r) - a) < 1e-9 * max(1, abs(a)):
        return sp.Rational(r.numerator, r.denominator), True
    return sp.Float(a), False


def _back_substitution(R, h):
    """x with R x = h, R upper triangular."""
    x = np.zeros(len(h))
    for i in reversed(range(len(h))):
        x[i] = (h[i] - R[i, i + 1:] @ x[i + 1:]) / R[i, i]
    return x


def finish_numerically(robot, base, *, seed: int = 0, tol: float = 1e-8):
    """(base parameters, notes): ``base`` (BaseParameter tuple) made minimal."""
    from .base_numeric import numeric_robot, stacked_regressor

    if not base:
        return tuple(base), []
    rng = np.random.default_rng(seed)
    num, geometry = numeric_robot(robot, rng)
    W = stacked_regressor(num, [b.standard for b in base], None, rng)
    norms = np.linalg.norm(W, axis=0)
    # Gram-Schmidt (twice) on the normalised columns in their order, keeping the triangular
    # factor: W[:, kept] / norms = Q R.  A column within tol of the span of those kept before
    # it is dependent, W_c = sum a_k W_k, with R[:t, :t] a = Q[:, :t]^T W_c (back substitution:
    # no LAPACK call, whose threads cost seconds on a busy machine for these small matrices)
    kept, dependent = [], {}
    Q = np.empty(W.shape)
    R = np.zeros((W.shape[1], W.shape[1]))
    for c in range(W.shape[1]):
        if norms[c] == 0:
            dependent[c] = ([], [])
            continue
        t = len(kept)
        v = W[:, c] / norms[c]
        h = Q[:, :t].T @ v
        v = v - Q[:, :t] @ h
        h2 = Q[:, :t].T @ v
        v = v - Q[:, :t] @ h2
        h += h2
        nv = np.linalg.norm(v)
        if nv > tol:
            Q[:, t] = v / nv
            R[:t, t], R[t, t] = h, nv
            kept.append(c)
        else:
            a = _back_substitution(R[:t, :t], h)
            dependent[c] = (list(kept), a * norms[c] / norms[kept])
    if not dependent:
        return tuple(base), []
    terms = {k: [base[k].expr] for k in kept}
    exact = True
    for c, (ks, coeffs) in dependent.items():
        for k, a in zip(ks, coeffs):
            if abs(a) > 1e-12:
                coef, is_exact = _coefficient(float(a))
                exact &= is_exact
                terms[k].append(coef * base[c].expr)
    exprs = {k: sp.Add(*t) for k, t in terms.items()}
    unknown = sorted(str(k) for k in geometry if str(k) not in robot.values)
    if not exact and unknown:
        # The coefficients depend on geometry the robot leaves symbolic: numbers found at
        # random values would give a silently wrong model for every other value.
        return tuple(base), [
            f"numeric finish not applied: {len(dependent)} further regrouping(s) exist but "
            f"their coefficients depend on {', '.join(unknown)}; give these values in the "
            f"robot description for a minimal set"]
    out = []
    for k in kept:
        b = base[k]
        if len(terms[k]) > 1:
            name = b.name if "R" in b.name[len(b.field):] else f"{b.field}R{b.link}"
            b = replace(b, name=name, expr=sp.expand(exprs[k]))
        out.append(b)
    gone = ", ".join(base[c].name for c in dependent)
    note = (f"numeric finish: {len(dependent)} more regrouping(s) found by the rank of the "
            f"regressor ({gone}), beyond the closed-form rules")
    if not exact:
        vals = ", ".join(f"{k} = {float(v):.6g}" for k, v in geometry.items())
        note += (f"; some coefficients are numbers valid for this geometry"
                 f"{' (' + vals + ')' if vals else ''}")
    return tuple(out), [note]


__all__ = []
