"""The convex programs of the physically consistent estimate (:mod:`.consistency`).

Each link's pseudo-inertia is ``P_j = L_j X_j L_j^T`` with ``L_j`` a Cholesky factor of its
reference (the variables are then of order 1 near the reference: a well-scaled problem, and
the log-det divergence to the reference is ``tr X_j - log det X_j``); IA, FC, FV and the
offsets are variables of their own; the base parameters a linear map of them (one matrix).
Two programs, for a least-squares estimate ``beta`` with the triangular factor ``F`` of its
weighted system and its residual ``rss`` (:mod:`.solver`):

1. the closest rigid bodies: minimize ``|F (theta - beta)|^2 / rss`` (how far least squares
   is from consistency, ``d1``);
2. the bodies closest to the references within the budget: minimize the divergence subject
   to ``|F (theta - beta)|^2 / rss <= max((1 + tolerance)^2 - 1, 1.05 d1)``.

A model whose structure leaves columns out (:mod:`.selection`) gets their parameters held at
zero.  :class:`Programs` builds both once and solves them for any least-squares estimate
(the whole log's, each fold's), projecting the solution onto the constraints.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from ..errors import RobmodError
from .parameters import JOINT_FIELDS, split_name

INERTIA = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")
#: standard parameter -> its expression in the pseudo-inertia: [(row, col, coefficient)]
_FROM_P = {"XX": ((1, 1, 1.0), (2, 2, 1.0)), "YY": ((0, 0, 1.0), (2, 2, 1.0)),
           "ZZ": ((0, 0, 1.0), (1, 1, 1.0)), "XY": ((0, 1, -1.0),), "XZ": ((0, 2, -1.0),),
           "YZ": ((1, 2, -1.0),), "MX": ((0, 3, 1.0),), "MY": ((1, 3, 1.0),),
           "MZ": ((2, 3, 1.0),), "M": ((3, 3, 1.0),)}


def cvxpy_module():
    try:
        import cvxpy as cp
    except ImportError:
        raise RobmodError("physically consistent identification needs CVXPY: pip install "
                          "'robmod[identification]'") from None
    return cp


def pseudo_inertia(values: dict, j: int) -> np.ndarray:
    """P_j from the standard parameters of link j (a dict name -> value)."""
    g = (lambda k: float(values.get(f"{k}{j}", 0.0)))
    J = np.array([[g("XX"), g("XY"), g("XZ")], [g("XY"), g("YY"), g("YZ")],
                  [g("XZ"), g("YZ"), g("ZZ")]])
    P = np.zeros((4, 4))
    P[:3, :3] = np.trace(J) / 2 * np.eye(3) - J
    P[:3, 3] = P[3, :3] = [g("MX"), g("MY"), g("MZ")]
    P[3, 3] = g("M")
    return P


def _body(P, j) -> dict:
    """Khalil's XX..M of link j from its pseudo-inertia."""
    S = P[:3, :3]
    J = np.trace(S) * np.eye(3) - S
    vals = dict(XX=J[0, 0], XY=J[0, 1], XZ=J[0, 2], YY=J[1, 1], YZ=J[1, 2], ZZ=J[2, 2],
                MX=P[0, 3], MY=P[1, 3], MZ=P[2, 3], M=P[3, 3])
    return {f"{k}{j}": float(v) for k, v in vals.items()}


def _reference(P):
    """A reference pseudo-inertia made definite: eigenvalues at least 1e-3 of the largest (a
    point mass of the URDF gets a small ball)."""
    ev, V = np.linalg.eigh(P)
    return (V * np.maximum(ev, 1e-3 * ev.max())) @ V.T


def _interval(v, what):
    lo, hi = (v, v) if np.ndim(v) == 0 else tuple(v)
    lo, hi = float(lo), float(hi)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo < 0 or lo > hi:
        raise RobmodError(f"{what} must be a mass >= 0 or an interval (low, high), got {v!r}")
    return lo, hi


class _Program:
    """The variables and constraints shared by both problems (see the module's notes)."""

    def __init__(self, cp, model, columns, L, margins, total_mass, mass):
        self.links = sorted({split_name(n)[1] for n in model.standard
                             if split_name(n)[0] in INERTIA})
        self.L = {j: L.get(j, np.eye(4)) for j in self.links}
        self.X = {j: cp.Variable((4, 4), symmetric=True, name=f"X{j}") for j in self.links}
        self.joint = [n for n in model.free if split_name(n)[0] in JOINT_FIELDS]
        nx, nu = 16 * len(self.links), len(self.joint)
        self.z = cp.hstack([cp.vec(self.X[j], order="F") for j in self.links])
        self.u = cp.Variable(nu, name="joint") if nu else None
        n_off = len(model.names) - len(model.columns)
        self.off = cp.Variable(n_off, name="offsets") if n_off else None
        A, B = np.zeros((len(model.free), nx)), np.zeros((len(model.free), nu))
        for r, name in enumerate(model.free):
            f, j = split_name(name)
            if f in JOINT_FIELDS:
                B[r, self.joint.index(name)] = 1.0
            else:
                A[r] = self.row(f, j)
        theta = (model.K @ A) @ self.z
        if nu:
            theta = theta + (model.K @ B) @ self.u
        full = cp.hstack([theta, self.off]) if self.off is not None else theta
        columns = list(columns)
        dropped = [c for c in range(len(model.names)) if c not in columns]
        self.theta = full[columns] if dropped else full
        self.cons = [full[dropped] == 0] if dropped else []
        for j in self.links:
            Li = np.linalg.inv(self.L[j])
            self.cons.append(self.X[j] - margins.get(j, 0.0) * (Li @ Li.T) >> 0)
        if nu:
            self.cons.append(self.u >= 0)
        known = [(self.row(*split_name(n)), v) for n, v in model.known.items()
                 if split_name(n)[0] in INERTIA]
        if known:
            self.cons.append(np.array([r for r, _ in known]) @ self.z
                             == np.array([v for _, v in known]))
        bounds = []
        for j, v in (mass or {}).items():
            if j not in self.X:
                raise RobmodError(f"mass: link {j} is not a body of the model (links "
                                  f"{', '.join(map(str, self.links))})")
            bounds.append((self.row("M", j), _interval(v, f"mass of link {j}")))
        if total_mass is not None:
            bounds.append((sum(self.row("M", j) for j in self.links),
                           _interval(total_mass, "total_mass")))
        if bounds:
            rows = np.array([r for r, _ in bounds])
            self.cons += [rows @ self.z >= np.array([lo for _, (lo, _) in bounds]),
                          rows @ self.z <= np.array([hi for _, (_, hi) in bounds])]

    def row(self, field, j) -> np.ndarray:
        """The coefficients of the standard parameter ``field`` of link j in z = [vec X_k]."""
        L = self.L[j]
        C = sum(c * np.outer(L[r], L[k]) for r, k, c in _FROM_P[field])
        out = np.zeros(16 * len(self.links))
        k = self.links.index(j)
        out[16 * k:16 * k + 16] = ((C + C.T) / 2).ravel(order="F")
        return out

    def P(self, j) -> np.ndarray:
        X = np.asarray(self.X[j].value, float)
        return self.L[j] @ ((X + X.T) / 2) @ self.L[j].T


@functools.lru_cache(maxsize=1)
def _solvers(cp) -> tuple:
    return tuple(s for s in ("CLARABEL", "SCS") if s in cp.installed_solvers())


def _installed(cp) -> list:
    """Clarabel, then SCS, those installed (asked once: CVXPY imports every solver to say)."""
    return list(_solvers(cp))


def _solve(prob, cp, solver, inaccurate: bool = False):
    """Solve to status 'optimal' (Clarabel, then SCS when Clarabel stops short of it;
    ``inaccurate``: accept 'optimal_inaccurate').  An infeasible program is reported at once:
    a second solver would only take longer to say so."""
    names = [solver] if solver else _installed(cp)
    options = {"CLARABEL": dict(tol_gap_abs=1e-8, tol_gap_rel=1e-8, tol_feas=1e-8,
                                max_iter=300),
               "SCS": dict(eps_abs=1e-7, eps_rel=1e-7, max_iters=50000)}
    status, last = None, None
    for name in names:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")       # the status says it
                prob.solve(solver=name, **options.get(name, {}))
            status = prob.status
            if status == "optimal" or inaccurate and status == "optimal_inaccurate":
                return status
            if status in ("infeasible", "unbounded"):
                break
        except cp.error.SolverError as e:
            last = e
    if status in ("optimal_inaccurate",):
        return status
    raise RobmodError(f"the consistent estimation failed: solver status {status or last} "
                      "(bounds that no rigid body meets?)")


def references(model, prior) -> dict:
    """{link: reference pseudo-inertia} of the links whose prior has a mass."""
    out = {}
    for j in sorted({split_name(n)[1] for n in model.standard}):
        if prior.get(f"M{j}", 0.0) > 0:
            out[j] = _reference(pseudo_inertia(prior, j))
    return out


class Programs:
    """Both programs of one model, structure (``columns``), references and bounds, built once
    for a least-squares estimate (its weighted factor, which sets the metric of the residual
    rise) with ``c = Fs beta`` and the budget as CVXPY parameters: solved again for other
    estimates of the same data -- each fold of a cross-validation, whose least squares differ
    from the whole log's by a block -- without being compiled again."""

    def __init__(self, cp, model, columns, refs, factor, rss, *, total_mass=None, mass=None,
                 margin=1e-6, solver=None):
        self.cp, self.model, self.columns = cp, model, list(columns)
        self.refs, self.total_mass, self.mass = refs, total_mass, mass
        self.margin, self.solver = margin, solver
        self.Fs = factor / np.sqrt(max(rss, 1e-300))  # |Fs (theta - beta)|^2: relative rise
        self.c = cp.Parameter(len(self.columns))
        self.budget = cp.Parameter(nonneg=True)
        self.first = _Program(cp, model, self.columns,
                              {j: np.linalg.cholesky(P) for j, P in refs.items()}, {},
                              total_mass, mass)
        self.dist = cp.sum_squares(self.Fs @ self.first.theta - self.c)
        self.closest = cp.Problem(cp.Minimize(self.dist), self.first.cons)
        self.second = self.toward = None

    def _second(self, round_bodies):
        cp = self.cp
        P0 = {j: self.refs.get(j, round_bodies.get(j)) for j in self.first.links}
        self.margins = {j: self.margin * np.linalg.eigvalsh(P)[-1] for j, P in P0.items()}
        self.second = _Program(cp, self.model, self.columns,
                               {j: np.linalg.cholesky(P) for j, P in P0.items()}, self.margins,
                               self.total_mass, self.mass)
        div = sum(cp.trace(self.second.X[j]) - cp.log_det(self.second.X[j])
                  for j in self.second.links)
        fit = cp.sum_squares(self.Fs @ self.second.theta - self.c)
        self.toward = cp.Problem(cp.Minimize(div), self.second.cons + [fit <= self.budget])

    def solve(self, beta, tolerance):
        """(standard values, full parameter vector, status, d1) for the least squares
        ``beta``; the links without prior get the round bodies of the first estimate's
        closest fit (the whole log's)."""
        self.c.value = self.Fs @ np.asarray(beta, float)
        target = (1 + tolerance) ** 2 - 1
        _solve(self.closest, self.cp, self.solver, inaccurate=True)
        d1 = max(float(self.dist.value), 0.0)
        if self.toward is None:    # a link without prior: a round body of its size
            self._second({j: _reference(np.eye(4) * max(np.trace(self.first.P(j)) / 4, 1e-9))
                          for j in self.first.links if j not in self.refs})
        budget = max(target, 1.05 * d1 + 1e-6 * target + 1e-12)
        for _ in range(4):    # the closest fit is known within the solver's tolerance
            self.budget.value = budget
            try:
                status = _solve(self.toward, self.cp, self.solver)
                values, full = self._solution()
            except RobmodError:
                budget *= 1.5
                continue
            # a solver that stops short of optimality ('optimal_inaccurate') may return bodies
            # whose projection onto the constraints no longer fits the data: not handed over
            rise = float(np.sum((self.Fs @ full[self.columns] - self.c.value) ** 2))
            if status == "optimal" or rise <= 1.1 * budget + 1e-9:
                return values, full, status, d1
            budget *= 1.5
        raise RobmodError("the consistent estimation failed: no rigid bodies within the "
                          "bounds fit the data (mass bounds too tight?), or the solver stopped "
                          "short of a solution that fits them")

    def _solution(self):
        """(standard values, full parameter vector) of the second program's solution,
        projected onto the constraints (:func:`_project`)."""
        model = self.model
        values = _project(model, self.second, self.margins)
        chi = np.array([values[n] for n in model.free])
        full = model.K @ chi
        if self.second.off is not None:
            full = np.concatenate([full, np.asarray(self.second.off.value, float)])
        dropped = [c for c in range(len(model.names)) if c not in self.columns]
        full[dropped] = 0.0
        return values, full


def _project(model, prog, margins) -> dict:
    """The standard values of the solution, each P_j >= margin_j / 2 and IA, FC, FV >= 0
    (the solver's tolerances leave tiny violations), the known values included."""
    values = dict(model.known)
    for j in prog.links:
        ev, V = np.linalg.eigh(prog.P(j))
        values.update(_body((V * np.maximum(ev, margins[j] / 2)) @ V.T, j))
    for k, name in enumerate(prog.joint):
        values[name] = max(float(prog.u.value[k]), 0.0)
    values.update(model.known)
    return values


__all__ = []
