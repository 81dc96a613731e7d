"""Symbolic solutions of the equation types (SymPy), one formula per branch.

``eps`` is +1 or -1 (the two branches of a type-2 or second-degree equation)
or the symbol ``eps`` for the printed generic formula.  Square roots take
``max(x, 0) = (x + |x|)/2`` so that a target slightly outside the workspace
through rounding still gives a (checked) solution; a really negative
discriminant gives a branch whose residual check fails (no solution).
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from ...errors import RobmodError

EPS = sp.Symbol("eps")


def _max0(x):
    return (x + sp.Abs(x)) / 2


def _plain(x):
    return x


def _sign(p) -> int:
    """Sign of a purely numeric polynomial, 0 if not numeric."""
    if len(p) == 1 and () in p:
        v = Fraction(p[()])
        return (v > 0) - (v < 0)
    return 0


def solver_formula(solver, ev, eps, name=lambda e, n: e, clip=True):
    """``{'value', 'sing', 'nosol', 'coeffs'}`` for one branch.

    ``ev(poly)`` converts a coefficient polynomial to SymPy; ``name(expr, label)``
    may turn an intermediate into a named variable (the customized model, or a
    plain symbol for the text); ``coeffs`` records the unnamed definitions.
    ``clip=False`` prints plain square roots (text).
    """
    d, kind, case = solver.data, solver.kind, solver.case
    out = {"sing": None, "nosol": None, "coeffs": {}}
    mx = _max0 if clip else _plain
    named = name

    def name(e, label):  # noqa: F811 - records the definition, then names
        out["coeffs"][label] = e
        return named(e, label)

    def c(key, label=None):
        return name(ev(d[key]), label or key)

    if kind == "type1":
        if case == "lsq":
            rows = [(name(ev(X), f"X{i + 1}"), name(ev(Y), f"Y{i + 1}"))
                    for i, (X, Y) in enumerate(d["rows"])]
            out["value"] = sp.Add(*[x * y for x, y in rows]) / ev(d["w"])
            return out
        X, Y = c("X"), c("Y")
        out["value"] = Y / X
        if case == "var":
            out["sing"] = X ** 2
        return out
    if kind == "quad":
        a, b, cc = c("a"), c("b"), c("c")
        out["sing"] = a ** 2
        if case == "b0":
            arg = -cc / a
            out["value"] = eps * sp.sqrt(mx(arg))
            out["nosol"] = (arg, "< 0")
        else:
            disc = name(b ** 2 - 4 * a * cc, "D")
            out["value"] = (-b + eps * sp.sqrt(mx(disc))) / (2 * a)
            out["nosol"] = (disc, "< 0")
        return out
    if kind == "type2":
        X, Y, Z = c("X"), c("Y"), c("Z")
        if case == "iii":
            out["value"] = sp.atan2(-eps * Y, eps * X)
            out["sing"] = X ** 2 + Y ** 2
        elif case == "i":
            C = name(Z / Y, "C")
            out["value"] = sp.atan2(eps * sp.sqrt(mx(1 - C ** 2)), C)
            out["sing"] = Y ** 2
            out["nosol"] = (1 - C ** 2, "< 0")
        elif case == "ii":
            S = name(Z / X, "S")
            out["value"] = sp.atan2(S, eps * sp.sqrt(mx(1 - S ** 2)))
            out["sing"] = X ** 2
            out["nosol"] = (1 - S ** 2, "< 0")
        else:
            D = name(X ** 2 + Y ** 2 - Z ** 2, "D")
            r = name(sp.sqrt(mx(D)), "R")
            out["value"] = sp.atan2(X * Z + eps * Y * r, Y * Z - eps * X * r)
            out["sing"] = X ** 2 + Y ** 2
            out["nosol"] = (D, "< 0")
        return out
    if kind == "type3":
        if case == "gram":
            rows = [(name(ev(X), f"X{i + 1}"), name(ev(Y), f"Y{i + 1}"),
                     name(ev(Z), f"Z{i + 1}")) for i, (X, Y, Z) in enumerate(d["rows"])]
            out["value"] = sp.atan2(sp.Add(*[x * z for x, _, z in rows]),
                                    sp.Add(*[y * z for _, y, z in rows]))
            return out
        X1, Y1, Z1, X2, Y2, Z2 = (c(k) for k in ("X1", "Y1", "Z1", "X2", "Y2", "Z2"))
        NS = name(Z1 * Y2 - Z2 * Y1, "NS")
        NC = name(X1 * Z2 - X2 * Z1, "NC")
        s = _sign(d["det"])
        if s:
            out["value"] = sp.atan2(s * NS, s * NC)
        else:
            det = name(ev(d["det"]), "det")
            out["value"] = sp.atan2(det * NS, det * NC)
            out["sing"] = det ** 2
        return out
    raise RobmodError(f"internal error: unknown equation type {kind!r}")


def describe(solver) -> str:
    """The equation form and the case, as Appendix 1 names them."""
    kind, case = solver.kind, solver.case
    if kind == "type1":
        return ("X r = Y" if case != "lsq" else
                "X1 r = Y1, X2 r = Y2 with X1^2 + X2^2 constant (least squares)")
    if kind == "quad":
        return "a r^2 + b r + c = 0" + (" (b = 0)" if case == "b0" else "")
    if kind == "type2":
        return {"iii": "X S + Y C = Z with Z = 0: two solutions q and q + pi",
                "i": "X S + Y C = Z with X = 0: C = Z/Y",
                "ii": "X S + Y C = Z with Y = 0: S = Z/X",
                "iv": "X S + Y C = Z, general case [A1.9]"}[case]
    if case == "gram":
        return "Xi S + Yi C = Zi (i = 1..3) with M^T M constant: S, C by least squares"
    return "X1 S + Y1 C = Z1, X2 S + Y2 C = Z2 (Cramer's rule [A1.12]-[A1.14])"


__all__ = []
