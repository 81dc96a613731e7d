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


def finish_numerically(robot, base, *, seed: int = 0, tol: float = 1e-8):
    """(base parameters, notes): ``base`` (BaseParameter tuple) made minimal."""
    from .base_numeric import numeric_robot, stacked_regressor

    if not base:
        return tuple(base), []
    rng = np.random.default_rng(seed)
    num, geometry = numeric_robot(robot, rng)
    W = stacked_regressor(num, [b.standard for b in base], None, rng)
    norms = np.linalg.norm(W, axis=0)
    kept, dependent = [], {}
    Qall = np.empty(W.shape)         # orthonormal basis of the kept columns, filled in turn
    for c in range(W.shape[1]):
        if norms[c] == 0:
            dependent[c] = ([], [])
            continue
        Q = Qall[:, :len(kept)]
        v = W[:, c] / norms[c]
        v = v - Q @ (Q.T @ v)
        v = v - Q @ (Q.T @ v)
        if np.linalg.norm(v) > tol:
            Qall[:, len(kept)] = v / np.linalg.norm(v)
            kept.append(c)
        else:
            dependent[c] = (list(kept), None)
    if not dependent:
        return tuple(base), []
    # W_c = sum a_k W_k over the columns kept before c: least squares on a prefix of the kept
    # columns; with W[:, kept] = Q R (columns normalised) one factorization serves every
    # dependent column: R is upper triangular, so the inverse of its leading block is the
    # leading block of its inverse
    if kept:
        Qk, Rk = np.linalg.qr(W[:, kept] / norms[kept])
        Rinv = np.linalg.inv(Rk)
    for c, (ks, _) in dependent.items():
        t = len(ks)
        if t:
            a = Rinv[:t, :t] @ (Qk[:, :t].T @ W[:, c])
            dependent[c] = (ks, a / norms[kept[:t]])
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
