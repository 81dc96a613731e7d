"""Weighted least squares of the identification model, written once (Gautier's practice).

``y = W beta + rho`` with the rows of joint 1 for all samples, then joint 2, ... (Khalil &
Dombre, identification of the dynamic parameters; Siciliano et al. (7.85)-(7.86)).  Every
quantity is computed from the per-joint triangular factors ``R_j`` of ``[W_j | y_j]``
(``[W_j|y_j]^T [W_j|y_j] = R_j^T R_j``), which is what the out-of-core path
(``identify_dask`` of the distributed layer) reduces its chunks to, so that both give the same numbers:

* the residual of joint j for any beta is ``|R_j [beta; -1]|``;
* ordinary least squares first; ``sigma_j^2 = |rho_j|^2 / (N - b)``; with ``weights='joint'``
  the rows of joint j are divided by sigma_j (weighted least squares, Gautier 1997);
* the covariance ``sigma^2 (A^T A)^-1`` of the weighted system ``A`` (the stack of
  ``R_j / sigma_j``, same Gram matrix as the weighted W), ``sigma^2 = |rho_w|^2 / (r - b)``,
  the relative standard deviations ``%sigma_i = 100 sigma_i / |beta_i|`` and the condition
  number of the column-scaled weighted system;
* ``method='huber'``: iteratively reweighted least squares with Huber's weights on the
  standardized residuals (robust to outliers), then the same statistics on the reweighted rows.

The triangular factor of the weighted system travels with the result (``factor``): the weighted
residual of any beta is ``rss + |factor (beta - beta_hat)|^2``, which the physically consistent
fit (:mod:`.consistency`) uses without the rows.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..description.arguments import finite_array, keyword_options, records
from ..errors import ArgumentError, RobmodError


@dataclass
class Identification:
    """The least-squares estimate: values ``beta`` of the parameters ``names``, standard
    deviations, relative ones (% of |beta|), the residual standard deviation of each joint's
    equations, the condition number, the residual RMS and the number of equations."""

    names: tuple
    beta: np.ndarray
    std: np.ndarray
    relative_std: np.ndarray    # % of |beta|
    sigma_joint: np.ndarray     # residual standard deviation of each joint equation
    condition: float
    residual_rms: float
    n_rows: int
    covariance: np.ndarray | None = None
    factor: np.ndarray | None = None     # triangular factor of the weighted system
    rss: float = 0.0                     # weighted residual sum of squares

    def as_dict(self) -> dict:
        return dict(zip(self.names, self.beta))

    def _repr_html_(self):
        return parameters_html(self.names, self.beta, self.std, self.relative_std,
                               f"identified from {self.n_rows} equations; condition number "
                               f"{self.condition:.3g}; residual rms {self.residual_rms:.3g}")

    def __str__(self):
        lines = [f"identified {len(self.names)} parameters from {self.n_rows} equations; "
                 f"condition number {self.condition:.3g}; residual rms {self.residual_rms:.3g}",
                 f"  {'parameter':<10} {'value':>14} {'std':>12} {'std %':>8}"]
        for n, b, s, r in zip(self.names, self.beta, self.std, self.relative_std):
            lines.append(f"  {n:<10} {b:>14.6g} {s:>12.3g} {r:>8.2f}")
        return "\n".join(lines)


def parameters_html(names, values, std, relative_std, caption, regrouping=None) -> str:
    """An HTML table (Jupyter) of identified parameters: value, standard deviation, %std and,
    when given, what each base parameter regroups."""
    from ..description.table import html_table

    header = ["parameter", "value", "std", "%std"] + (["regrouping"] if regrouping else [])
    rows = [[n, f"{v:.6g}", f"{s:.3g}", f"{r:.2f}"] + ([regrouping.get(n, "")] if regrouping
                                                      else [])
            for n, v, s, r in zip(names, values, std, relative_std)]
    return html_table(header, rows, caption=caption)


def one_blas_thread():
    """A context in which BLAS and LAPACK run on one thread: identification's matrices have
    tens of columns, for which threads cost more than they give (and, on a loaded machine,
    far more: a 70 x 70 least squares then takes 0.2 s instead of 2 ms)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:                    # pragma: no cover - a dependency of robmod
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


@keyword_options()
def check_rank(W, names, *, tol: float = 1e-9):
    """Refuse a rank-deficient observation matrix (or its stacked triangular factors), naming
    the parameters it cannot see; returns the condition number of the scaled columns."""
    W = finite_array("W", W, shape_text="an observation matrix (rows, parameters)")
    if W.ndim != 2:
        raise ArgumentError(f"check_rank: W must be a matrix (rows, parameters), got shape "
                            f"{W.shape}")
    names = records(names, "names")
    norms = np.linalg.norm(W, axis=0)
    dead = [n for n, v in zip(names, norms) if v == 0]
    if dead:
        raise RobmodError(f"the data do not excite {', '.join(dead)} (zero columns): a joint "
                          "that does not move or a motion too poor; use an exciting trajectory")
    Wn = W / norms
    _, s, Vt = np.linalg.svd(Wn, full_matrices=False)
    rank = int((s > tol * s[0]).sum())
    if rank < W.shape[1]:
        null = Vt[rank:]
        weight = (null ** 2).sum(0)
        unseen = [n for n, v in sorted(zip(names, weight), key=lambda x: -x[1]) if v > 0.1]
        raise RobmodError(
            f"the data excite only {rank} of the {W.shape[1]} parameters (condition number "
            f"{s[0] / s[-1]:.3g}): cannot separate {', '.join(unseen[:8])}; record a richer "
            "motion (robmod.identification.exciting_trajectory) or fix some of them "
            "(known=, fixed=)")
    return float(s[0] / s[-1])


def r_factor(A: np.ndarray) -> np.ndarray:
    """A square factor R (k x k) of A (m x k) with R^T R = A^T A: the R of A's QR
    decomposition, by Cholesky QR twice on the scaled columns (matrix products only: fast and
    as accurate as Householder's QR for the condition numbers of identification), by
    Householder's QR when A is (nearly) rank deficient; zero rows added when m < k."""
    from scipy.linalg import LinAlgError, cholesky, solve_triangular

    A = np.asarray(A, dtype=float)
    m, k = A.shape
    s = np.linalg.norm(A, axis=0)
    live = s > 0                      # a joint's rows have zero columns (other joints' terms)
    if m >= live.sum() and np.all(np.isfinite(s)):
        An = A[:, live] / s[live]
        try:
            R1 = cholesky(An.T @ An)
            Q = solve_triangular(R1, An.T, trans="T").T
            Rl = cholesky(Q.T @ Q) @ R1 * s[live]
            if np.all(np.isfinite(Rl)):
                R = np.zeros((k, k))
                R[np.ix_(live, live)] = Rl
                return R
        except LinAlgError:
            pass
    R = np.linalg.qr(A, mode="r")
    if R.shape[0] < k:
        R = np.vstack([R, np.zeros((k - R.shape[0], k))])
    return R


def gram_factor(G: np.ndarray) -> np.ndarray:
    """A square factor R with R^T R = G (a Gram matrix A^T A, summed over groups of rows):
    Cholesky's on the scaled non-zero part, the symmetric square root when G is singular."""
    from scipy.linalg import LinAlgError, cholesky

    k = G.shape[0]
    d = np.sqrt(np.maximum(np.diag(G), 0.0))
    live = d > 0
    Gl = G[np.ix_(live, live)] / np.outer(d[live], d[live])
    try:
        Rl = cholesky(Gl)
    except LinAlgError:      # singular: the symmetric square root
        ev, V = np.linalg.eigh(Gl)
        Rl = np.sqrt(np.maximum(ev, 0.0))[:, None] * V.T
    R = np.zeros((k, k))
    R[np.ix_(live, live)] = Rl * d[live]
    return R


def joint_factors(W, y, n_joints: int) -> np.ndarray:
    """(n_joints, p+1, p+1): R of [W_j | y_j] for each joint (rows stacked joint by joint, or
    W of shape (n_joints, N, p) and y (n_joints, N))."""
    p = W.shape[-1]
    A = np.concatenate([W.reshape(n_joints, -1, p), y.reshape(n_joints, -1, 1)], axis=2)
    return np.stack([r_factor(a) for a in A])


def _joint_weights(weights, sig_ols, n_joints):
    if isinstance(weights, str) and weights == "joint":
        return np.where(sig_ols > 0, sig_ols, max(sig_ols.max(), 1e-300))
    if isinstance(weights, str) and weights == "none":
        return np.ones(n_joints)
    w = np.asarray(weights, dtype=float).ravel()
    if w.size != n_joints or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise RobmodError(f"weights must be 'joint', 'none' or {n_joints} positive numbers "
                          f"(one per joint), got {weights!r}")
    return 1.0 / w


def solve_factors(R, n_samples: int, *, weights="joint", names=None,
                  statistics: bool = True) -> Identification:
    """The weighted least squares from the per-joint factors ``R`` (n_joints, b+1, b+1) of
    ``[W_j | y_j]`` over ``n_samples`` samples (see the module's description);
    ``statistics=False``: beta and sigma_j only (no rank check, covariance, condition)."""
    nj, k, _ = R.shape
    b, N = k - 1, int(n_samples)
    r = nj * N
    names = tuple(names) if names is not None else tuple(f"column {c + 1}" for c in range(b))
    if r <= b:
        raise RobmodError(f"{r} equations for {b} parameters: record a longer motion")
    if not np.all(np.isfinite(R)):
        raise RobmodError("the samples hold NaN or infinite values (q, qd, qdd or tau): clean "
                          "the log first (robmod.identification.clean)")
    if statistics:
        check_rank(R.reshape(-1, k)[:, :b], names)

    def lstsq(S):          # QR with column pivoting (LAPACK gelsy): rank-revealing, fast
        return scipy.linalg.lstsq(S[:, :b], S[:, b], lapack_driver="gelsy",
                                  check_finite=False)[0]

    def joint_ss(beta):  # |y_j - W_j beta|^2 for each joint
        v = np.append(beta, -1.0)
        return np.array([float(np.sum((Rj @ v) ** 2)) for Rj in R])

    sig_ols = np.sqrt(joint_ss(lstsq(R.reshape(-1, k))) / max(N - b, 1))
    sig = _joint_weights(weights, sig_ols, nj)
    S = (R / sig[:, None, None]).reshape(-1, k)
    beta = lstsq(S)
    rss = float(np.sum((S @ np.append(beta, -1.0)) ** 2))
    if not statistics:
        nan = np.full(b, np.nan)
        return Identification(names, beta, nan, nan, sig_ols, np.nan, np.nan, r, rss=rss)
    s2 = rss / max(r - b, 1)
    F = r_factor(S[:, :b])
    Finv = np.linalg.solve(F, np.eye(b)) if np.all(np.abs(np.diag(F)) > 0) else np.linalg.pinv(F)
    cov = s2 * (Finv @ Finv.T)
    std = np.sqrt(np.abs(np.diag(cov)))
    A = S[:, :b]
    norms = np.linalg.norm(A, axis=0)
    cond = float(np.linalg.cond(A / np.where(norms > 0, norms, 1)))
    rms = float(np.sqrt(joint_ss(beta).sum() / r))
    rel = 100 * std / np.maximum(np.abs(beta), 1e-300)
    return Identification(names, beta, std, rel, sig_ols if isinstance(weights, str) else sig,
                          cond, rms, r, cov, F, rss)


def solve(W, y, n_joints: int, *, method: str = "wls", names=None) -> Identification:
    """Least squares of ``y = W beta`` (rows stacked joint by joint): ``method`` 'wls'
    (Gautier's per-joint weights), 'ols' or 'huber'."""
    W, y = np.asarray(W, dtype=float), np.asarray(y, dtype=float)
    if method not in ("wls", "ols", "huber"):
        raise RobmodError(f"method must be 'wls', 'ols' or 'huber', got {method!r}")
    bad = ~np.isfinite(y) | ~np.all(np.isfinite(W), axis=1)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise RobmodError(f"the torques or the model hold NaN or infinite values (joint "
                          f"{k // (len(y) // n_joints) + 1}, sample {k % (len(y) // n_joints) + 1}"
                          "): clean the data first (robmod.identification.clean)")
    r, b = W.shape
    if r <= b:
        raise RobmodError(f"{r} equations for {b} parameters: record a longer motion")
    N = r // n_joints
    R = joint_factors(W, y, n_joints)
    if method == "huber":
        first = solve_factors(R, N, weights="joint", names=names)
        w = np.repeat(1.0 / np.where(first.sigma_joint > 0, first.sigma_joint, 1.0), N)
        h = _huber_weights(W, y, w) / w
        R = joint_factors(W * h[:, None], y * h, n_joints)
    return solve_factors(R, N, weights="none" if method == "ols" else "joint", names=names)


def _huber_weights(W, y, w, k: float = 1.345, iterations: int = 20):
    """IRLS with Huber's weights on the residuals standardized by their MAD; ``w``: the
    per-row weights to start from (1 / sigma_j).  Returns the final row weights."""
    wh = w.copy()
    for _ in range(iterations):
        beta = np.linalg.lstsq(W * wh[:, None], y * wh, rcond=None)[0]
        r = (y - W @ beta) * w
        scale = 1.4826 * np.median(np.abs(r - np.median(r))) or 1.0
        u = np.abs(r) / scale
        new = w * np.where(u <= k, 1.0, k / np.maximum(u, 1e-300))
        if np.allclose(new, wh, rtol=1e-6):
            break
        wh = new
    return wh


__all__ = ["Identification", "check_rank"]
