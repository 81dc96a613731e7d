"""Physically consistent identification: standard parameters that are rigid bodies.

Least squares on the base parameters can return values no rigid body has, and the base
parameters do not say how the regrouped masses split between the links.  A set of inertial
parameters of link j is a body (density realisable) iff its pseudo-inertia matrix

    P_j = [[ Sigma_j,  MS_j ],      Sigma_j = tr(J_j)/2 I - J_j  (the second moment of mass)
           [ MS_j^T,   M_j  ]]      (J_j the inertia tensor about O_j, Khalil's XX..ZZ)

is positive semidefinite (Wensing, Kim & Slotine 2017; Sousa & Cortesao 2014).  The
consistent estimate (CVXPY, solved by Clarabel, SCS as a fallback; ``pip install
'robmod[identification]'``) is

    minimize    sum_j  d(P_j, P0_j)          d = tr(P0^-1 P) - log det P (+ const): the log-det
    subject to  rho(K chi, offsets) <= (1 + tolerance)^2 rho_LS        (Bregman) divergence
                P_j >= eps_j I,  IA, FC, FV >= 0,  mass bounds            (Lee, Wensing & Park)
                (by default each mass within a factor 2 of the prior's)

with ``rho`` the weighted residual of the least-squares fit (its triangular factor carries it
without the rows, :mod:`.solver`): among the rigid bodies whose torques fit the data within
``tolerance`` of least squares, those closest to the prior.  The divergence is
coordinate-free (it does not depend on units or frames), which a Euclidean distance on XX..M
is not.  The prior ``P0_j`` is the description's inertial values (URDF, CAD) when it has
them; a link without one is drawn toward a round body of the size the data give it (the
closest consistent fit, solved first, which also measures how far least squares is from a
rigid body: when farther than ``tolerance``, the budget becomes that distance).  The weight of
the prior is thus chosen by the fit: the constraint's multiplier.  The solution is projected
onto P_j >= eps_j I, IA, FC, FV >= 0 (solvers stop within their tolerances), so that
:meth:`~.estimator.DynamicIdentification.to_robot` of it is always a valid robot.
"""
from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..description.arguments import keyword_options
from ..errors import RobmodError
from .parameters import JOINT_FIELDS, split_name
from .solver import one_blas_thread

_INERTIA = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")
#: standard parameter -> its expression in the pseudo-inertia: [(row, col, coefficient)]
_FROM_P = {"XX": ((1, 1, 1.0), (2, 2, 1.0)), "YY": ((0, 0, 1.0), (2, 2, 1.0)),
           "ZZ": ((0, 0, 1.0), (1, 1, 1.0)), "XY": ((0, 1, -1.0),), "XZ": ((0, 2, -1.0),),
           "YZ": ((1, 2, -1.0),), "MX": ((0, 3, 1.0),), "MY": ((1, 3, 1.0),),
           "MZ": ((2, 3, 1.0),), "M": ((3, 3, 1.0),)}


def _cvxpy():
    try:
        import cvxpy as cp
    except ImportError:
        raise RobmodError("physically consistent identification needs CVXPY: pip install "
                          "'robmod[identification]'") from None
    return cp


def _pseudo_inertia(values: dict, j: int) -> np.ndarray:
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


@dataclass(frozen=True)
class ConsistentEstimate:
    """Standard parameters ``standard`` (name -> value, the known ones included) that are
    rigid bodies, their base parameters ``base``, the ``offsets``, what least squares got
    wrong (``violations``), the solver's ``status``; ``fit_increase``: relative increase of
    the weighted residual RMS over least squares on the fit data; ``prior_masses`` {link:
    mass} of the prior; ``validation``: (least-squares, consistent) RMS on held-out data
    when given."""

    standard: dict
    base: np.ndarray
    offsets: np.ndarray
    violations: tuple
    status: str
    fit_increase: float = 0.0
    prior_masses: dict = field(default_factory=dict)
    validation: tuple | None = None
    notes: tuple = ()

    @property
    def params(self) -> np.ndarray:
        """The base parameters and offsets (the order of the estimator's ``names_``)."""
        return np.concatenate([self.base, self.offsets])

    def masses(self) -> dict:
        """{link: mass}."""
        return {split_name(n)[1]: v for n, v in self.standard.items() if split_name(n)[0] == "M"}

    def min_eigenvalues(self) -> dict:
        """Smallest eigenvalue of each link's pseudo-inertia matrix (> 0: a rigid body)."""
        links = sorted({split_name(n)[1] for n in self.standard if split_name(n)[0] in _INERTIA})
        return {j: float(np.linalg.eigvalsh(_pseudo_inertia(self.standard, j))[0])
                for j in links}

    def summary(self) -> str:
        lines = [f"physically consistent estimate ({self.status}): weighted residual "
                 f"{100 * self.fit_increase:+.3g} % of least squares'"]
        if self.validation is not None:
            ls, c = self.validation
            lines.append(f"held-out RMS: least squares {ls:.4g}, consistent {c:.4g} "
                         f"({100 * (c / ls - 1):+.3g} %)")
        lines.append("link  mass      prior")
        for j, m in self.masses().items():
            p = self.prior_masses.get(j)
            lines.append(f"{j:4d}  {m:<9.4g} {'' if p is None else f'{p:.4g}'}")
        lines += [f"least squares: {v}" for v in self.violations] + list(self.notes)
        return "\n".join(lines)

    __str__ = summary


def _prior(est, prior) -> dict:
    if isinstance(prior, str):
        if prior != "description":
            raise RobmodError(f"prior must be 'description', None, a robot or a dict, got "
                              f"{prior!r}")
        return dict(est.model_.prior)
    if prior is None:
        return {}
    if hasattr(prior, "links"):
        from .parameters import description_values

        return description_values(prior.numeric(), est.model_.standard)
    return {str(k): float(v) for k, v in dict(prior).items()}


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
    """The variables and constraints shared by both problems.  Each link's pseudo-inertia is
    ``P_j = L_j X_j L_j^T`` with ``L_j`` a Cholesky factor of its reference ``P0_j`` (the
    variables are then of order 1 near the reference: a well-scaled problem, and the
    divergence to the reference is ``tr X_j - log det X_j``); IA, FC, FV and the offsets are
    variables of their own; the base parameters a linear map of them (one matrix)."""

    def __init__(self, cp, est, L, margins, total_mass, mass):
        model = est.model_
        self.links = sorted({split_name(n)[1] for n in model.standard
                             if split_name(n)[0] in _INERTIA})
        self.L = {j: L.get(j, np.eye(4)) for j in self.links}
        self.X = {j: cp.Variable((4, 4), symmetric=True, name=f"X{j}") for j in self.links}
        self.joint = [n for n in model.free if split_name(n)[0] in JOINT_FIELDS]
        nx, nu = 16 * len(self.links), len(self.joint)
        self.z = cp.hstack([cp.vec(self.X[j], order="F") for j in self.links])
        self.u = cp.Variable(nu, name="joint") if nu else None
        n_off = len(est.params_) - len(model.columns)
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
        self.theta = cp.hstack([theta, self.off]) if self.off is not None else theta
        self.cons = []
        for j in self.links:
            Li = np.linalg.inv(self.L[j])
            self.cons.append(self.X[j] - margins.get(j, 0.0) * (Li @ Li.T) >> 0)
        if nu:
            self.cons.append(self.u >= 0)
        known = [(self.row(*split_name(n)), v) for n, v in model.known.items()
                 if split_name(n)[0] in _INERTIA]
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


def _solve(prob, cp, solver, inaccurate: bool = False):
    """Solve to status 'optimal' (Clarabel, then SCS; ``inaccurate``: accept Clarabel's
    'optimal_inaccurate')."""
    names = [solver] if solver else [s for s in ("CLARABEL", "SCS") if s in
                                     cp.installed_solvers()]
    options = {"CLARABEL": dict(tol_gap_abs=1e-8, tol_gap_rel=1e-8, tol_feas=1e-8,
                                max_iter=300),
               "SCS": dict(eps_abs=1e-7, eps_rel=1e-7, max_iters=200000)}
    status, last = None, None
    for name in names:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")       # the status says it
                prob.solve(solver=name, **options.get(name, {}))
            status = prob.status
            if status == "optimal" or inaccurate and status == "optimal_inaccurate":
                return status
        except cp.error.SolverError as e:
            last = e
    if status in ("optimal_inaccurate",):
        return status
    raise RobmodError(f"the consistent estimation failed: solver status {status or last} "
                      "(bounds that no rigid body meets?)")


@keyword_options()
def consistent_fit(est, *, prior="description", tolerance: float = 0.05, total_mass=None,
                   mass="prior", margin: float = 1e-6, validation=None,
                   solver: str | None = None) -> ConsistentEstimate:
    """The physically consistent estimate of the fitted ``est``
    (:class:`~robmod.identification.DynamicIdentification`), see the module's notes.

    ``prior``: 'description' (the robot's numeric inertial values), None, a robot or
    {name: value}; ``tolerance``: the weighted residual RMS may exceed least squares' by this
    fraction; ``total_mass`` and ``mass`` ({link: m}): a mass or an interval (low, high);
    ``mass='prior'`` (default): each link whose prior has a mass m0 stays within [m0 / 2,
    2 m0] -- the torques show the masses in regrouped sums only, and without a bound the
    data let them drift along what they do not see -- unless no rigid bodies within those
    bounds fit the data (then the bounds are dropped, and a note says so); ``mass=None``: no
    bound; ``margin``: each P_j >= margin * its scale; ``validation``: data on which least
    squares and the consistent estimate are compared (held-out RMS)."""
    cp = _cvxpy()
    est._fitted()
    if not np.array_equal(est.columns_, np.arange(len(est.model_.names))):
        raise RobmodError("consistent_fit needs the full model, not essential parameters")
    if est.model_.base is None:
        raise RobmodError("consistent_fit needs the default parameter set (params=None)")
    if not 0 <= float(tolerance) < 10:
        raise RobmodError(f"tolerance must be a fraction >= 0, got {tolerance!r}")
    prior = _prior(est, prior)
    with one_blas_thread():
        if not (isinstance(mass, str) and mass == "prior"):
            if isinstance(mass, str):
                raise RobmodError(f"mass must be 'prior', None or {{link: bound}}, got {mass!r}")
            return _consistent(cp, est, prior, float(tolerance), total_mass, mass,
                               float(margin), validation, solver)
        bounds = {split_name(n)[1]: (v / 2, 2 * v) for n, v in prior.items()
                  if split_name(n)[0] == "M" and v > 0}
        try:
            return _consistent(cp, est, prior, float(tolerance), total_mass, bounds,
                               float(margin), validation, solver)
        except RobmodError:
            c = _consistent(cp, est, prior, float(tolerance), total_mass, None, float(margin),
                            validation, solver)
            return dataclasses.replace(c, notes=c.notes + (
                "no rigid bodies with masses within a factor 2 of the prior's fit the data: "
                "the mass bounds were dropped (check the robot file's masses)",))


def _consistent(cp, est, prior, tolerance, total_mass, mass, margin, validation, solver):
    res = est.result_
    rss = max(res.rss, 1e-300)
    Fs = res.factor / np.sqrt(rss)             # |Fs (theta - beta)|^2: relative residual rise
    beta = est.params_
    target = (1 + tolerance) ** 2 - 1
    # 1. the closest rigid bodies (how far least squares is from consistency)
    scale = {}
    for j in sorted({split_name(n)[1] for n in est.model_.standard}):
        if prior.get(f"M{j}", 0.0) > 0:
            scale[j] = _reference(_pseudo_inertia(prior, j))
    first = _Program(cp, est, {j: np.linalg.cholesky(P) for j, P in scale.items()}, {},
                     total_mass, mass)
    dist = cp.sum_squares(Fs @ (first.theta - beta))
    _solve(cp.Problem(cp.Minimize(dist), first.cons), cp, solver, inaccurate=True)
    d1 = max(float(dist.value), 0.0)
    notes = []
    budget = max(target, 1.05 * d1 + 1e-6 * target + 1e-12)
    if d1 > target:
        notes.append(f"no rigid bodies fit within {100 * tolerance:g} % of least squares: the "
                     f"closest raise the weighted residual RMS by "
                     f"{100 * (np.sqrt(1 + d1) - 1):.3g} % (drive gains, friction model?)")
    # 2. the bodies closest to the prior within the budget (a link without one: a round body
    # of the size the closest fit gives it)
    P0 = {j: scale.get(j, _reference(np.eye(4) * max(np.trace(first.P(j)) / 4, 1e-9)))
          for j in first.links}
    margins = {j: margin * np.linalg.eigvalsh(P)[-1] for j, P in P0.items()}
    second = _Program(cp, est, {j: np.linalg.cholesky(P) for j, P in P0.items()}, margins,
                      total_mass, mass)
    div = sum(cp.trace(second.X[j]) - cp.log_det(second.X[j]) for j in second.links)
    fit = cp.sum_squares(Fs @ (second.theta - beta))
    for _ in range(4):        # the closest fit is known within the solver's tolerance
        try:
            status = _solve(cp.Problem(cp.Minimize(div), second.cons + [fit <= budget]), cp,
                            solver)
            break
        except RobmodError:
            budget *= 1.5
    else:
        raise RobmodError("the consistent estimation failed: no rigid bodies within the "
                          "bounds fit the data (mass bounds too tight?)")
    values = _project(est, second, margins)
    model = est.model_
    chi = np.array([values[n] for n in model.free])
    base = model.K @ chi
    offsets = np.asarray(second.off.value, float) if second.off is not None else np.zeros(0)
    theta = np.concatenate([base, offsets])
    increase = float(np.sqrt(1 + np.sum((Fs @ (theta - beta)) ** 2)) - 1)
    checked = None
    if validation is not None:
        checked = (float(np.sqrt(np.mean(est.validate(validation).rms ** 2))),
                   float(np.sqrt(np.mean(est.validate(validation, params=theta).rms ** 2))))
    prior_masses = {j: prior[f"M{j}"] for j in second.links if f"M{j}" in prior}
    return ConsistentEstimate(values, base, offsets,
                              _violations(est) + (("not a rigid body: no consistent set "
                                                   "reproduces it",) if d1 > 1e-6 else ()),
                              status, increase, prior_masses, checked, tuple(notes))


def _project(est, prog, margins) -> dict:
    """The standard values of the solution, each P_j >= margin_j / 2 and IA, FC, FV >= 0
    (the solver's tolerances leave tiny violations), the known values included."""
    values = dict(est.model_.known)
    for j in prog.links:
        ev, V = np.linalg.eigh(prog.P(j))
        values.update(_body((V * np.maximum(ev, margins[j] / 2)) @ V.T, j))
    for k, name in enumerate(prog.joint):
        values[name] = max(float(prog.u.value[k]), 0.0)
    values.update(est.model_.known)
    return values


def _violations(est) -> tuple:
    """Joint parameters (IA, FC, FV) that least squares made negative on their own."""
    out = []
    rel = est.model_.relations()
    for name, v in zip(est.names_, est.params_):
        try:
            f, _ = split_name(name)
        except KeyError:                       # OFFSETj, XXR2: not a parameter on its own
            continue
        if f in JOINT_FIELDS and v < 0 and rel.get(name, name).strip() == name:
            out.append(f"{name} = {v:.4g} < 0")
    return tuple(out)


__all__ = ["consistent_fit", "ConsistentEstimate"]
