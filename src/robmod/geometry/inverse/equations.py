"""The equation types of Paul's method (Khalil & Dombre, Appendix 1) and how to recognise them.

Every analysis works on the *form* of an equation: a polynomial whose
unknown generators are the sine and cosine of an angle variable (or a
prismatic variable) and whose known coefficients are named ``K1, K2, ...``
(:meth:`~robmod.geometry.inverse.polys.Gens.name_known`).  The types:

* type 1: ``X r = Y``;
* type 2: ``X S + Y C = Z``, four cases (Z = 0: two solutions q, q + pi;
  X = 0 or Y = 0: ``C = Z/Y`` or ``S = Z/X``; general: [A1.9]);
* type 3: two equations of type 2 in the same angle (``atan2`` of Cramer's
  rule, [A1.12]-[A1.14]); also three equations whose Gram matrix is constant
  (least squares, exact for consistent data);
* types 4 to 8: two equations in two unknowns, linear in the sine and
  cosine of one of them: squaring and adding eliminates it and leaves one
  equation in the other (type 4 and 5: second degree in r; types 6, 7, 8: a
  type-2 equation, [A1.23], [A1.25], [A1.27]).  The eliminant is computed
  for any such pair, ``(D1 B2 - D2 B1)^2 + (A1 D2 - A2 D1)^2 = (A1 B2 - A2 B1)^2``,
  and accepted when it is of type 2 (or of degree <= 2 in r);
* a common factor: two equations ``phi(u) A_i(v) + B_i(v) = 0`` give
  ``A_2 B_1 - A_1 B_2 = 0`` in v alone (the spherical wrist: ``-C4 S5 = X``,
  ``S4 S5 = Y``; singular when phi = 0).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import polys as P

# rank classes: lower is preferred (fewer branches, better conditioned, simpler)
RANK = {
    ("type1", "const"): 0.0, ("type3", "const"): 1.0, ("type3", "gram"): 1.5,
    ("type1", "lsq"): 1.0, ("type1", "var"): 2.5, ("type3", "var"): 2.0,
    ("type2", "iii"): 3.0, ("quad", "b0"): 3.5, ("quad", "full"): 6.0,
    ("type2", "iv"): 5.0, ("type2", "i"): 8.0, ("type2", "ii"): 8.0,
}
DERIVED_EXTRA = {"SQ": 1.0, "ELIM": 1.0}


@dataclass
class _Solver:
    """How to compute one variable: the kind of formula and its coefficients (polynomials)."""

    kind: str                  # type1, type2, type3, quad
    case: str                  # const/var/lsq, iii/iv/i/ii, const/var/gram, b0/full
    data: dict                 # coefficient polynomials
    branches: int

    @property
    def rank(self) -> float:
        return RANK[(self.kind, self.case)]


@dataclass
class Candidate:
    var: int
    solver: _Solver
    eqs: tuple                 # pool equation ids
    forms: tuple               # forms of those equations (unknown generators and K's)
    label: str                 # 'type 2', 'type 6', ...
    rule: str = ""             # '', 'SQ' or 'ELIM'
    eliminated: int | None = None
    derived: dict | None = None
    check: tuple = ()          # forms whose residual is checked numerically
    rank: float = 0.0
    size: int = 0
    extra: dict = field(default_factory=dict)


def param_only(g: P.Gens, p: dict) -> bool:
    return all(g.roles[x] == "p" for x in P.gens_of(p))


def split_linear(form: dict, gens: tuple):
    """``(X, Y, Z)`` with form = X S + Y C - Z, or None if form is not linear in (S, C)."""
    s, c = gens
    parts = P.split(form, {s, c})
    if any(m not in ((), ((s, 1),), ((c, 1),)) for m in parts):
        return None
    return parts.get(((s, 1),), {}), parts.get(((c, 1),), {}), P.neg(parts.get((), {}))


def analyze_single(g: P.Gens, form: dict, var) -> _Solver | None:
    """Type 1 or 2 (or a second-degree equation in r) in one variable."""
    if var.kind == "angle":
        lin = split_linear(form, var.gens)
        if lin is None:
            return None
        X, Y, Z = lin
        if not X and not Y:
            return None
        case = "iii" if not Z else "i" if not X else "ii" if not Y else "iv"
        return _Solver("type2", case, {"X": X, "Y": Y, "Z": Z}, 2)
    q = var.gens[0]
    parts = P.split(form, {q})
    deg = max((dict(m).get(q, 0) for m in parts), default=0)
    if deg == 1 and set(parts) <= {(), ((q, 1),)}:
        a, c = parts[((q, 1),)], parts.get((), {})
        return _Solver("type1", "const" if param_only(g, a) else "var",
                      {"X": a, "Y": P.neg(c)}, 1)
    if deg == 2 and set(parts) <= {(), ((q, 1),), ((q, 2),)}:
        a, b, c = parts[((q, 2),)], parts.get(((q, 1),), {}), parts.get((), {})
        return _Solver("quad", "b0" if not b else "full", {"a": a, "b": b, "c": c}, 2)
    return None


def analyze_type3(g: P.Gens, lin1, lin2, reduce) -> _Solver | None:
    (X1, Y1, Z1), (X2, Y2, Z2) = lin1, lin2
    det = reduce(P.sub(P.mul(X1, Y2), P.mul(X2, Y1)))
    if not det:
        return None
    data = {"X1": X1, "Y1": Y1, "Z1": Z1, "X2": X2, "Y2": Y2, "Z2": Z2, "det": det}
    return _Solver("type3", "const" if param_only(g, det) else "var", data, 1)


def analyze_gram(g: P.Gens, lins, reduce) -> _Solver | None:
    """Several type-2 equations whose matrix M has M^T M = w I with w constant."""
    G11 = reduce(P.total(*[P.mul(X, X) for X, _, _ in lins]))
    G22 = reduce(P.total(*[P.mul(Y, Y) for _, Y, _ in lins]))
    G12 = reduce(P.total(*[P.mul(X, Y) for X, Y, _ in lins]))
    if G12 or not G11 or G11 != G22 or not param_only(g, G11):
        return None
    return _Solver("type3", "gram", {"rows": tuple(lins), "w": G11}, 1)


def analyze_lsq1(g: P.Gens, lins, reduce) -> _Solver | None:
    """Type-1 equations ``X_i r = Y_i`` with sum X_i^2 constant."""
    w = reduce(P.total(*[P.mul(X, X) for X, _ in lins]))
    if not w or not param_only(g, w):
        return None
    return _Solver("type1", "lsq", {"rows": tuple(lins), "w": w}, 1)


def sum_of_squares(form1, form2, v, reduce):
    """Eliminate angle v from two equations linear in (Sv, Cv): the eliminant, or None."""
    l1, l2 = split_linear(form1, v.gens), split_linear(form2, v.gens)
    if l1 is None or l2 is None:
        return None
    (A1, B1, D1), (A2, B2, D2) = l1, l2
    det = reduce(P.sub(P.mul(A1, B2), P.mul(A2, B1)))
    if not det:
        return None
    NS = P.sub(P.mul(D1, B2), P.mul(D2, B1))
    NC = P.sub(P.mul(A1, D2), P.mul(A2, D1))
    el = reduce(P.total(P.mul(NS, NS), P.mul(NC, NC), P.neg(P.mul(det, det))))
    if not el:
        return None
    return el, (A1, B1, D1, A2, B2, D2)


def strip_power(p: dict, gen: int) -> dict:
    k = P.min_degree(p, gen)
    if not k:
        return p
    out = {}
    for m, c in p.items():
        d = dict(m)
        d[gen] -= k
        out[tuple(sorted((x, e) for x, e in d.items() if e))] = c
    return out


def drop_content(g: P.Gens, p: dict) -> dict:
    """Divide by a common parameter-only monomial factor (e.g. RL4^2 of a type-6 eliminant)."""
    if not p:
        return p
    common = None
    for m in p:
        d = {x: e for x, e in m if g.roles[x] == "p"}
        common = d if common is None else {x: min(e, common[x]) for x, e in d.items()
                                           if x in common}
    if not common:
        return p
    out = {}
    for m, c in p.items():
        d = dict(m)
        for x, e in common.items():
            d[x] -= e
        out[tuple(sorted((x, e) for x, e in d.items() if e))] = c
    return out


def sq_label(var_u, coeffs, solver) -> str:
    A1, B1, _, A2, B2, _ = coeffs
    if var_u.kind == "prism":
        return "type 4" if solver.case == "b0" else "type 5"
    ugens = set(var_u.gens)
    if any(P.gens_of(x) & ugens for x in (A1, B1, A2, B2)):
        return "type 8"
    if (not A1 or not B1) and (not A2 or not B2):
        return "type 6"
    return "type 7"


def common_factor(form1, form2, u):
    """Forms ``phi A_i + B_i`` with the same monomial phi of u: ``A2 B1 - A1 B2`` (u gone)."""
    gens = set(u.gens)
    p1, p2 = P.split(form1, gens), P.split(form2, gens)
    k1 = [m for m in p1 if m]
    k2 = [m for m in p2 if m]
    if len(k1) != 1 or k1 != k2:
        return None
    phi = k1[0]
    A1, B1 = p1[phi], p1.get((), {})
    A2, B2 = p2[phi], p2.get((), {})
    return P.sub(P.mul(A2, B1), P.mul(A1, B2)), phi


def sing_poly(g: P.Gens, solver, reduce):
    """A polynomial that vanishes where the step is singular (undetermined), or None."""
    d, kind, case = solver.data, solver.kind, solver.case
    if kind == "type2":
        X, Y = d["X"], d["Y"]
        p = {"iii": P.add(P.mul(X, X), P.mul(Y, Y)), "iv": P.add(P.mul(X, X), P.mul(Y, Y)),
             "i": P.mul(Y, Y), "ii": P.mul(X, X)}[case]
    elif kind == "type3" and case == "var":
        p = P.mul(d["det"], d["det"])
    elif kind == "type1" and case == "var":
        p = P.mul(d["X"], d["X"])
    elif kind == "quad":
        p = P.mul(d["a"], d["a"])
    else:
        return None
    p = reduce(p)
    return None if param_only(g, p) else p


def sing_text(solver) -> str:
    kind, case = solver.kind, solver.case
    if kind == "type2":
        return {"iii": "X = Y = 0", "iv": "X = Y = 0", "i": "Y = 0", "ii": "X = 0"}[case]
    if kind == "type3":
        return "X1 Y2 - X2 Y1 = 0"
    if kind == "type1":
        return "X = 0"
    return "a = 0"


def conditioning(solver) -> float:
    """Tie-break among candidates of one rank: simpler determinants first."""
    if solver.kind == "type3" and solver.case == "var":
        det = solver.data["det"]
        return len(det) + 0.1 * max(sum(e for _, e in m) for m in det)
    return 0.0


__all__ = []
