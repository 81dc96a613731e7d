"""Steps a and c of the direct method on the first links, and the rotor rule.

Helpers of :mod:`.base_symbolic`: the energy functions (DE, DU - constant) of the
remaining parameters of the first links as canonical polynomials in S_k, C_k
(reduced by C_k^2 = 1 - S_k^2), prismatic q_k and the velocities, with the
symbolic geometry in the coefficients; dependencies found at a random numeric
point of the coefficient symbols and solved exactly on the support.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import numpy as np
import sympy as sp

from ..description.expr import symbol
from ..description.robot import FIXED, INERTIAL, PRISMATIC, REVOLUTE
from .energy import EnergyRecursion, PlainContext, energy_functions
from .parameters import FIELDS as _FIELDS


# -- canonical polynomials of the energy functions ------------------------------------------------
def _canon(expr, gens, pairs):
    """{monomial: coefficient} of ``expr`` reduced modulo C_k^2 + S_k^2 - 1."""
    expr = sp.expand(expr)
    if expr == 0:
        return {}
    # the monomials in the generators read off the expanded sum directly (a Poly over the
    # whole tree's generators built a dense recursive representation for each function)
    index = {g: k for k, g in enumerate(gens)}
    terms = defaultdict(lambda: sp.Integer(0))
    for term in sp.Add.make_args(expr):
        m, coef = [0] * len(gens), []
        for factor in sp.Mul.make_args(term):
            b, e = factor.as_base_exp()
            k = index.get(b)
            if k is not None and e.is_Integer and e > 0:
                m[k] += int(e)
            else:
                coef.append(factor)
        terms[tuple(m)] += sp.Mul(*coef)
    while True:
        new = defaultdict(lambda: sp.Integer(0))
        changed = False
        for m, c in terms.items():
            for si, ci in pairs:
                if m[ci] >= 2:
                    m1 = list(m)
                    m1[ci] -= 2
                    new[tuple(m1)] += c
                    m1[si] += 2
                    new[tuple(m1)] -= c
                    changed = True
                    break
            else:
                new[m] += c
        terms = {m: sp.expand(c) for m, c in new.items()}
        terms = {m: c for m, c in terms.items() if c != 0}
        if not changed:
            return terms


class _Analysis:
    """Energy functions of the first links, as canonical polynomials."""

    def __init__(self, robot, links, rng):
        self.robot = robot
        self.energy = EnergyRecursion(PlainContext(robot), robot)   # links met on demand
        gens, pairs = [], []
        for j in sorted(links):
            f = robot.frame(j)
            if f.sigma == REVOLUTE:
                pairs.append((len(gens), len(gens) + 1))
                gens += [sp.Symbol(f"S{j}"), sp.Symbol(f"C{j}")]
            elif f.sigma == PRISMATIC:
                gens.append(symbol(f"q{j}"))
        self.nq = len(gens)
        for j in sorted(links):
            if robot.frame(j).sigma != FIXED:
                gens.append(symbol(f"QP{j}"))
        self.gens, self.pairs = gens, pairs
        self.rng = rng
        self._point = {}
        self.cache = {}

    def function(self, j, fieldname):
        key = (j, fieldname)
        if key not in self.cache:
            if fieldname == "IA":
                de, du = sp.Rational(1, 2) * symbol(f"QP{j}") ** 2, 0
            else:
                k = INERTIAL.index(fieldname)
                de, du = (x[k] for x in self.energy.link(j))
            poly = _canon(de, self.gens, self.pairs)
            pu = _canon(du, self.gens, self.pairs)
            pu.pop((0,) * len(self.gens), None)   # a constant potential has no effect
            for m, c in pu.items():
                poly[m] = sp.expand(poly.get(m, 0) + c)
            self.cache[key] = {m: c for m, c in poly.items() if c != 0}
        return self.cache[key]

    def point(self, symbols):
        for s in symbols:
            if s not in self._point:
                self._point[s] = float(self.rng.uniform(0.5, 1.5) * self.rng.choice([-1, 1]))
        return self._point

    def numeric(self, polys):
        """Matrix monomials x functions at the random point of the coefficient symbols."""
        monos = sorted({m for p in polys for m in p})
        idx = {m: i for i, m in enumerate(monos)}
        A = np.zeros((len(monos), len(polys)))
        for c, p in enumerate(polys):
            for m, e in p.items():
                pt = self.point(e.free_symbols)
                A[idx[m], c] = float(e.xreplace({s: pt[s] for s in e.free_symbols}))
        return A, monos

    def satisfies_theorem1(self, j):
        return all(self.function(j, k) for k in INERTIAL)


class _Basis:
    """An orthonormal basis of the columns kept so far (Gram-Schmidt, applied twice): a column
    is independent of them if what is left of it exceeds ``tol`` times the largest norm seen
    (the numerical rank of [kept, column] grows), one projection per column instead of one
    SVD of the whole matrix."""

    def __init__(self, rows, tol=1e-9):
        self.Q = np.zeros((rows, 0))
        self.scale, self.tol = 1.0, tol

    def _residual(self, col):
        r = col - self.Q @ (self.Q.T @ col)
        return r - self.Q @ (self.Q.T @ r)

    def extends(self, col):
        scale = max(self.scale, float(np.linalg.norm(col)))
        return float(np.linalg.norm(self._residual(col))) > self.tol * scale

    def add(self, col):
        self.scale = max(self.scale, float(np.linalg.norm(col)))
        r = self._residual(col)
        nr = float(np.linalg.norm(r))
        if nr > 0:
            self.Q = np.column_stack([self.Q, r / nr])


def first_links_analysis(robot, X, mod, IA, eliminated_notes, rng, regroup=True):
    """Steps a and c on the links up to the first one satisfying Theorem 1 on each branch."""
    n = robot.n_links
    analysis = _Analysis(robot, range(1, n + 1), rng)
    final, sat = set(), {}
    for f in robot.frames[:n]:
        j, a = f.j, f.ant
        if a == 0 or (a in final and not sat[a]):
            final.add(j)
            sat[j] = analysis.satisfies_theorem1(j)
    cands = []
    for j in sorted(final):
        for k in INERTIAL:
            if X[j][k] != 0:
                cands.append((j, k))
        if robot.frame(j).sigma != FIXED and IA[j] != 0:
            cands.append((j, "IA"))
    polys = [analysis.function(j, k) for j, k in cands]
    A, monos = analysis.numeric(polys)
    kept, basis = [], _Basis(A.shape[0])
    for c, (j, k) in enumerate(cands):
        col = A[:, c]
        if not polys[c]:
            _set(X, IA, j, k, sp.Integer(0))
            continue
        if basis.extends(col) or not regroup:
            kept.append(c)
            basis.add(col)
            continue
        # dependent: col = sum alpha_i A[:, kept_i] with constant alpha
        alpha = np.linalg.lstsq(A[:, kept], col, rcond=None)[0]
        support = [kept[i] for i in range(len(kept)) if abs(alpha[i]) > 1e-9 * max(1, np.abs(alpha).max())]
        sub = A[:, support]
        # rows making the support independent
        _, _, piv = _qr_pivot(sub.T)
        rows = list(piv[:len(support)])
        M = sp.Matrix([[polys[s].get(monos[r], 0) for s in support] for r in rows])
        rhs = sp.Matrix([polys[c].get(monos[r], 0) for r in rows])
        sol = M.LUsolve(rhs)
        value = _get(X, IA, j, k)
        for s, al in zip(support, sol):
            al = sp.cancel(sp.simplify(al))
            js, ks = cands[s]
            _set(X, IA, js, ks, sp.expand(_get(X, IA, js, ks) + al * value))
            if ks in mod[js]:
                mod[js][ks] = True
        _set(X, IA, j, k, sp.Integer(0))
    return tuple(sorted(final)), analysis


def _qr_pivot(A):
    from scipy.linalg import qr

    return qr(A, pivoting=True, mode="economic")


def _get(X, IA, j, k):
    return IA[j] if k == "IA" else X[j][k]


def _set(X, IA, j, k, v):
    if k == "IA":
        IA[j] = v
    else:
        X[j][k] = v


def rotor_rule(robot, X, mod, IA, skip, rng):
    """ZZR_j = ZZ_j + IA_j when the z_j component of w_a(j) is identically 0 (numeric check
    at random configurations and random values of the symbolic geometry)."""
    todo = [f.j for f in robot.frames[:robot.n_links]
            if f.sigma == REVOLUTE and f.j not in skip and IA[f.j] != 0]
    if not todo:
        return
    from ..symbolic.context import NumericContext

    num = _random_geometry(robot, rng)
    nj = robot.n_q
    q, qd = rng.uniform(-2, 2, (2, 8, nj))
    ctx = NumericContext(num, q=q, qd=qd)
    _, kin = energy_functions(ctx, num, gravity=False)
    for j in todo:
        w = kin[j][0][2] - ctx.joint(j, "qd")       # a mimic joint: m qd_i
        if np.abs(w).max() < 1e-10:
            X[j]["ZZ"] = sp.expand(X[j]["ZZ"] + IA[j])
            mod[j]["ZZ"] = True
            IA[j] = sp.Integer(0)


def _random_geometry(robot, rng):
    """The robot with random values for every symbol (geometry, gravity, dynamics)."""
    vals = {}
    for s in sorted(robot.symbols, key=str):
        vals[s] = sp.Float(float(rng.uniform(0.5, 1.5) * rng.choice([-1, 1])))
    from ..description.robot import GEOMETRIC

    def sub(x):
        return x if x is None else x.xreplace(vals)

    frames = tuple(replace(f, **{k: sub(getattr(f, k)) for k in GEOMETRIC}) for f in robot.frames)
    return replace(robot, frames=frames, gravity=tuple(sub(g) for g in robot.gravity),
                   Z=robot.Z.xreplace(vals), links=tuple(replace(l, **{k: sp.Integer(0) for k in _FIELDS})
                               for l in robot.links))


__all__ = []
