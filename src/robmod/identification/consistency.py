"""Physically consistent identification: standard parameters under LMI constraints.

Least squares on the base parameters can return values that no rigid body has (a negative
mass or rotor inertia, an inertia tensor violating the triangle inequality).  A set of standard
parameters of link j is physically consistent iff its pseudo-inertia matrix (Wensing, Kim &
Slotine 2017; Sousa & Cortesão 2014)

    P_j = [[ tr(J_j)/2 I - J_j,  MS_j ],
           [ MS_j^T,             M_j  ]]         (J_j the inertia tensor about O_j)

is positive semidefinite (P_j = integral of [p; 1][p; 1]^T dm).  The consistent estimate
solves the convex program (CVXPY; Clarabel or SCS)

    minimize   (K chi - beta_ls)^T Cov^-1 (K chi - beta_ls) + eps |chi - chi_prior|^2
    subject to P_j(chi) >= 0 (each link),  IA, FV, FC >= 0,

i.e. the standard parameters chi whose base parameters K chi are the closest to the
least-squares ones in the metric of their covariance (Mahalanobis distance); the small
regularization picks one chi among those with the same base parameters.  CVXPY is an optional
dependency: ``pip install 'robmod[identification]'``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RobmodError
from .base_symbolic import split_name

_INERTIA = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")
_NONNEGATIVE = ("IA", "FV", "FC")


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
    ms = np.array([g("MX"), g("MY"), g("MZ")])
    P = np.zeros((4, 4))
    P[:3, :3] = np.trace(J) / 2 * np.eye(3) - J
    P[:3, 3] = P[3, :3] = ms
    P[3, 3] = g("M")
    return P


@dataclass(frozen=True)
class ConsistentEstimate:
    """Standard parameters ``standard`` (name -> value), their base parameters ``base``, the
    offsets, the violations found in the least-squares solution, the solver's status."""

    standard: dict
    base: np.ndarray
    offsets: np.ndarray
    violations: tuple
    status: str

    def min_eigenvalues(self) -> dict:
        """Smallest eigenvalue of each link's pseudo-inertia matrix (>= 0: consistent)."""
        links = sorted({split_name(n)[1] for n in self.standard if split_name(n)[0] in _INERTIA})
        return {j: float(np.linalg.eigvalsh(_pseudo_inertia(self.standard, j))[0])
                for j in links}


def _problem(est, cp, exact: bool):
    std = est.base_.standard
    K = est.base_.K
    b = K.shape[0]
    x = cp.Variable(len(std))
    idx = {n: k for k, n in enumerate(std)}
    cons, slacks = [], []
    links = sorted({split_name(n)[1] for n in std if split_name(n)[0] in _INERTIA})
    for j in links:
        e = (lambda k: x[idx[f"{k}{j}"]] if f"{k}{j}" in idx else 0.0)
        tr = (e("XX") + e("YY") + e("ZZ")) / 2
        P = cp.bmat([[tr - e("XX"), -e("XY"), -e("XZ"), e("MX")],
                     [-e("XY"), tr - e("YY"), -e("YZ"), e("MY")],
                     [-e("XZ"), -e("YZ"), tr - e("ZZ"), e("MZ")],
                     [e("MX"), e("MY"), e("MZ"), e("M")]])
        P = (P + P.T) / 2
        if exact:
            s = cp.Variable(nonneg=True)
            slacks.append((j, s))
            cons.append(P + s * np.eye(4) >> 0)
        else:
            cons.append(P >> 0)
    for n, k in idx.items():
        if split_name(n)[0] in _NONNEGATIVE and not exact:
            cons.append(x[k] >= 0)
    return x, K, b, cons, slacks, links


def consistent_fit(est, *, regularization: float = 1e-6, prior=None,
                   solver: str | None = None) -> ConsistentEstimate:
    """The physically consistent estimate closest to the fitted ``est``
    (:class:`~robmod.identification.DynamicIdentification`)."""
    cp = _cvxpy()
    est._fitted()
    if not np.array_equal(est.columns_, np.arange(len(est.names_))):
        raise RobmodError("consistent_fit needs the full base model, not essential parameters")
    b = len(est.base_.base)
    beta_hat = est.params_
    cov = est.covariance_
    Linv = np.linalg.cholesky(np.linalg.inv(cov))
    violations = _violations(est, cp, solver)
    x, K, b, cons, _, _ = _problem(est, cp, exact=False)
    off = cp.Variable(len(beta_hat) - b)
    full = cp.hstack([K @ x, off]) if len(beta_hat) > b else K @ x
    chi0 = np.zeros(len(est.base_.standard)) if prior is None else np.asarray(prior, float)
    scale = max(1.0, float(np.abs(beta_hat[:b]).max()))
    obj = cp.sum_squares(Linv.T @ (full - beta_hat)) \
        + regularization * cp.sum_squares(x - chi0) / scale ** 2
    prob = cp.Problem(cp.Minimize(obj), cons)
    _solve(prob, cp, solver)
    if x.value is None:
        raise RobmodError(f"the consistent estimation failed: solver status {prob.status}")
    chi = np.asarray(x.value, float)
    return ConsistentEstimate(dict(zip(est.base_.standard, chi)), K @ chi,
                              np.asarray(off.value, float) if len(beta_hat) > b
                              else np.zeros(0), violations, prob.status)


def _solve(prob, cp, solver):
    names = [solver] if solver else [s for s in ("CLARABEL", "SCS") if s in
                                     cp.installed_solvers()]
    last = None
    for name in names:
        try:
            prob.solve(solver=name)
            if prob.status in ("optimal", "optimal_inaccurate"):
                return
        except cp.error.SolverError as e:
            last = e
    if last is not None and prob.status not in ("optimal", "optimal_inaccurate"):
        raise RobmodError(f"no SDP solver succeeded ({last})")


def _violations(est, cp, solver) -> tuple:
    """Which links (and rotor/friction parameters) no consistent set can reproduce the
    least-squares base parameters with: slack of each link's LMI with K chi = beta_ls."""
    out = []
    b = len(est.base_.base)
    for name, v in zip(est.names_[:b], est.params_[:b]):
        field, j = split_name(name)
        rel = est.base_.relations().get(name, name)
        if field in _NONNEGATIVE and v < 0 and rel.strip() == name:
            out.append(f"{name} = {v:.4g} < 0")
    x, K, b, cons, slacks, links = _problem(est, cp, exact=True)
    cons.append(K @ x == est.params_[:b])
    prob = cp.Problem(cp.Minimize(sum(s for _, s in slacks)), cons)
    try:
        _solve(prob, cp, solver)
    except RobmodError:
        return tuple(out)
    for j, s in slacks:
        if s.value is not None and s.value > 1e-6:
            out.append(f"link {j}: pseudo-inertia not positive (needs {float(s.value):.3g})")
    return tuple(out)


__all__ = ["consistent_fit", "ConsistentEstimate"]
