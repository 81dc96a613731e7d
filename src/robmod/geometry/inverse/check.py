"""Numeric checks of the candidates of Paul's method at random configurations.

A candidate formula is kept only if, at a few random configurations (target
computed by the DGM), one of its branches gives the variable's true value.
This rejects the pairs of equations that are independent as polynomials but
dependent on the valid targets (the orthonormality of the target rotation is
not known to the algebra): their Cramer determinant vanishes and the formula
would return garbage.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from ...description.expr import as_expr
from ...errors import RobmodError
from . import polys as P

_N_SAMPLES = 3


def robot_values(robot, params) -> dict:
    """Numeric values of the symbolic parameters: the description's values, else random."""
    rng = np.random.default_rng(12345)
    known = {}
    if robot.values:
        syms = {sp.Symbol(k): as_expr(v) for k, v in robot.values.items()}
        for _ in range(len(syms) + 1):
            syms = {k: v.xreplace(syms) for k, v in syms.items()}
        for k, v in syms.items():
            if not v.free_symbols:
                known[k] = float(v)
    return {p: known.get(p, float(rng.uniform(0.2, 1.0))) for p in params}


def _eval_mono(m, vals):
    out = 1.0
    for g, e in m:
        out *= vals[g] ** e
    return out


class Samples:
    """Values of every generator at a few random configurations."""

    def __init__(self, system, seed=2024):
        self.sys = system
        g = system.g
        params = [g.symbols[i] for i in range(len(g.symbols)) if g.roles[i] == "p"]
        self.param_values = robot_values(system.robot, params)
        rng = np.random.default_rng(seed)
        self.values = []
        for _ in range(_N_SAMPLES):
            q = {j: rng.uniform(-math.pi, math.pi) if system.robot.frame(j).sigma == 0
                 else rng.uniform(0.2, 0.8) for j in system.joints}
            self.values.append(self._sample(q))
        self._n_vars = None

    def _sample(self, q):
        sys, g = self.sys, self.sys.g
        vals, truth = {}, {}
        for i, s in enumerate(g.symbols):
            if g.roles[i] == "p":
                vals[i] = self.param_values[s]
        subs = {sp.Symbol(str(k)): v for k, v in self.param_values.items()}
        self._fill_vars(vals, truth, q, subs)
        U = sys.chain(0, sys.n)
        for c in range(4):
            for r in range(3):
                vals[sys.target[c * 3 + r]] = self.value_at(U[r][c], vals)
        return {"vals": vals, "truth": truth, "q": q, "subs": subs}

    def _fill_vars(self, vals, truth, q, subs):
        for v in self.sys.vars:
            if len(v.gens) == 2 and v.gens[0] in vals:
                continue
            if v.kind == "angle":
                off = float(sp.sympify(v.offset).xreplace(subs))  # safe: description expression
                x = sum(q[j] for j in v.joints) + off
            else:
                x = q[v.joints[0]]
            truth[v.id] = x
            if v.kind == "angle":
                vals[v.gens[0]], vals[v.gens[1]] = math.sin(x), math.cos(x)
            else:
                vals[v.gens[0]] = x

    def refresh(self):
        """Variables created after the samples were drawn (none in practice) get values."""
        if self._n_vars == len(self.sys.vars):
            return
        for s in self.values:
            self._fill_vars(s["vals"], s["truth"], s["q"], s["subs"])
        self._n_vars = len(self.sys.vars)

    def value_at(self, p: dict, vals) -> float:
        g = self.sys.g
        for x in P.gens_of(p):
            if x not in vals and g.roles[x] == "K":
                vals[x] = self.value_at(g.definition[x], vals)
        # fsum: the value does not depend on the order of the terms
        return math.fsum(float(c) * _eval_mono(m, vals) for m, c in p.items())

    def typical(self, p: dict) -> float:
        """Median magnitude of p over the samples (the scale of a singularity measure)."""
        v = sorted(abs(self.value_at(p, s["vals"])) for s in self.values)
        m = v[len(v) // 2]
        return m if m > 0 and math.isfinite(m) else 1.0

    def accepts(self, cand, var) -> bool:
        """True when a branch gives the true value at every sample."""
        self.refresh()
        for s in self.values:
            vals = s["vals"]
            try:
                branches = _branch_values(cand.solver, lambda p: self.value_at(p, vals))
            except (ZeroDivisionError, OverflowError, ValueError):
                return False
            true = s["truth"][var.id]
            scale = 1.0 + abs(true)
            ok = False
            for b in branches:
                if b is None or not math.isfinite(b):
                    continue
                d = abs(math.remainder(b - true, 2 * math.pi)) if var.kind == "angle" \
                    else abs(b - true)
                if d < 1e-7 * scale:
                    ok = True
            if not ok:
                return False
        return True


def _sqrt_pos(x):
    return math.sqrt(x) if x > 0 else 0.0


def _branch_values(solver, ev) -> list:
    """Numeric values of every branch of a solver (``ev`` evaluates a polynomial)."""
    d, kind, case = solver.data, solver.kind, solver.case
    if kind == "type1":
        if case == "lsq":
            return [sum(ev(X) * ev(Y) for X, Y in d["rows"]) / ev(d["w"])]
        return [ev(d["Y"]) / ev(d["X"])]
    if kind == "quad":
        a, b, c = ev(d["a"]), ev(d["b"]), ev(d["c"])
        disc = _sqrt_pos(b * b - 4 * a * c)
        return [(-b + e * disc) / (2 * a) for e in (1, -1)]
    if kind == "type2":
        X, Y, Z = ev(d["X"]), ev(d["Y"]), ev(d["Z"])
        out = []
        for e in (1, -1):
            if case == "iii":
                out.append(math.atan2(-e * Y, e * X))
            elif case == "i":
                C = Z / Y
                out.append(math.atan2(e * _sqrt_pos(1 - C * C), C))
            elif case == "ii":
                S = Z / X
                out.append(math.atan2(S, e * _sqrt_pos(1 - S * S)))
            else:
                r = _sqrt_pos(X * X + Y * Y - Z * Z)
                out.append(math.atan2(X * Z + e * Y * r, Y * Z - e * X * r))
        return out
    if kind == "type3":
        if case == "gram":
            rows = [(ev(X), ev(Y), ev(Z)) for X, Y, Z in d["rows"]]
            return [math.atan2(sum(x * z for x, _, z in rows), sum(y * z for _, y, z in rows))]
        X1, Y1, Z1, X2, Y2, Z2 = (ev(d[k]) for k in ("X1", "Y1", "Z1", "X2", "Y2", "Z2"))
        det = X1 * Y2 - X2 * Y1
        ns, nc = Z1 * Y2 - Z2 * Y1, X1 * Z2 - X2 * Z1
        if abs(det) < 1e-12 or (abs(ns) + abs(nc)) < 1e-12:
            return []
        return [math.atan2(det * ns, det * nc)]
    raise RobmodError(f"internal error: unknown equation type {kind!r}")


__all__ = []
