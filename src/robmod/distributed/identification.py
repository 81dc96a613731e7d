"""Least-squares identification out of core: TSQR of the per-chunk regressor blocks.

Each chunk of the log (samples q, qd, qdd, tau) gives, for each joint j, the block
``[W_j | y_j]`` of the observation matrix (Khalil & Dombre, eq. (12.30)-(12.32);
Gautier & Khalil (1990)) and only its R factor, ``(b+1) x (b+1)``, leaves the worker.
R factors of two groups of rows combine by the QR of their stack (tall-skinny QR):
``[W|y]^T [W|y] = R^T R`` for the R of all the rows, so the reduction carries
``NJ (b+1)^2`` numbers per task whatever the number of samples.  We chose TSQR over
accumulating the normal equations ``W^T W``, ``W^T y`` (same traffic) because it is
numerically better: the solution from R has the conditioning of W, the normal
equations square it (cond(W^T W) = cond(W)^2).

From the per-joint factors R_j every quantity of :func:`robmod.identification.least_squares`
follows exactly: the residual of joint j for any beta is ``|R_j [beta; -1]|``, the
weighted system is the stack of ``R_j / sigma_j`` (same Gram matrix, same singular
values, same column norms as the weighted W), hence the same beta, standard
deviations, sigma_j, condition number and residual rms, in one pass over the data.
"""
from __future__ import annotations

import numpy as np

from ..errors import RobmodError
from ..identification.least_squares import Identification
from .cluster import compute
from .reduce import tree_reduce
from .remote import RemoteModel


def _r_factor(A: np.ndarray) -> np.ndarray:
    """The square R factor (k x k) of A (m x k), zero rows added when m < k."""
    k = A.shape[-1]
    R = np.linalg.qr(A, mode="r")
    if R.shape[0] < k:
        R = np.vstack([R, np.zeros((k - R.shape[0], k))])
    return R


def _chunk_factors(reg, q, qd, qdd, tau, known):
    """(NJ, b+1, b+1): R of [Phi_j | tau_j] for each joint j of the chunk."""
    n, nj = tau.shape
    phi = reg(q, qd, qdd).reshape(n, nj, -1)
    y = tau - known if known is not None else tau
    return np.stack([_r_factor(np.column_stack([phi[:, j, :], y[:, j]])) for j in range(nj)])


def _combine_factors(a, b):
    """Per-joint R factors of two groups of rows combined (QR of their stack)."""
    return np.stack([_r_factor(np.vstack([x, y])) for x, y in zip(a, b)])


def solve_from_factors(R, n_samples: int, weights="joint"):
    """(beta, std, sigma_joint, condition, residual_rms) from the per-joint R factors
    (NJ, b+1, b+1) of [W_j | y_j] over ``n_samples`` samples: the results of
    the weighted least squares of :func:`robmod.identification.identify` without W."""
    nj, k, _ = R.shape
    b, N = k - 1, int(n_samples)
    r = nj * N

    def lstsq(S):
        return np.linalg.lstsq(S[:, :b], S[:, b], rcond=None)[0]

    def joint_ss(beta):  # |y_j - W_j beta|^2 for each joint
        v = np.append(beta, -1.0)
        return np.array([float(np.sum((Rj @ v) ** 2)) for Rj in R])

    if isinstance(weights, str) and weights == "joint":
        beta0 = lstsq(R.reshape(-1, k))
        sig = np.sqrt(joint_ss(beta0) / max(N - b, 1))
        sig = np.where(sig > 0, sig, max(sig.max(), 1e-300))
    elif isinstance(weights, str) and weights == "none":
        sig = np.ones(nj)
    else:
        w = np.asarray(weights, dtype=float).ravel()
        if w.size != nj or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise RobmodError(f"weights must be 'joint', 'none' or {nj} positive numbers "
                              f"(one per joint; per-row weights need the in-memory identify), "
                              f"got {weights!r}")
        sig = 1.0 / w
    S = (R / sig[:, None, None]).reshape(-1, k)
    A = S[:, :b]
    beta = lstsq(S)
    s2 = float(np.sum((S @ np.append(beta, -1.0)) ** 2)) / max(r - b, 1)
    cov = s2 * np.linalg.pinv(A.T @ A)
    std = np.sqrt(np.abs(np.diag(cov)))
    norms = np.linalg.norm(A, axis=0)
    cond = float(np.linalg.cond(A / np.where(norms > 0, norms, 1)))
    rms = float(np.sqrt(joint_ss(beta).sum() / r))
    return beta, std, sig, cond, rms


def _as_dask(x, what, n_joints, chunk):
    import dask.array as da

    if not isinstance(x, da.Array):
        try:
            x = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise RobmodError(f"{what} must be an array of numbers (N, {n_joints})") from None
        x = da.from_array(x, chunks=(chunk,) + x.shape[1:])
    if x.ndim != 2 or x.shape[1] != n_joints:
        raise RobmodError(f"{what} must have shape (N, {n_joints}), got {x.shape}")
    return x.astype(float).rechunk({1: -1})


def identify_dask(robot, q, qd, qdd, tau, params=None, weights="joint", known=None, *,
                  chunk: int = 50_000, client=None, scheduler=None,
                  progress: bool = False) -> Identification:
    """:func:`robmod.identification.least_squares` out of core: q, qd, qdd, tau (and ``known``
    torques) as Dask arrays (N, NJ) chunked along the samples, or NumPy arrays chunked
    here by ``chunk`` rows.  Same arguments, same :class:`Identification`; ``weights``:
    'joint', 'none' or one weight per joint.  Only R factors travel (see the module
    docstring)."""
    if not (isinstance(weights, str) and weights in ("joint", "none")):
        w = np.asarray(weights, dtype=float).ravel()
        if w.size != len(robot.joints) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise RobmodError(f"weights must be 'joint', 'none' or {len(robot.joints)} positive "
                              f"numbers (one per joint), got {weights!r}")
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise RobmodError(f"chunk must be a positive integer, got {chunk!r}")
    names, columns = _base_names(robot, params)
    from ..identification.base_numeric import numeric_robot
    from ..identification.regressors import regressor_model

    num, _ = numeric_robot(robot)
    reg = RemoteModel(regressor_model(num, columns))
    nj = reg.input_sizes[0]
    arrays = [_as_dask(x, w, nj, int(chunk)) for x, w in
              ((q, "q"), (qd, "qd"), (qdd, "qdd"), (tau, "tau"))]
    if known is not None:
        arrays.append(_as_dask(known, "known", nj, int(chunk)))
    n = arrays[0].shape[0]
    if any(a.shape[0] != n for a in arrays):
        raise RobmodError(f"q, qd, qdd, tau (and known) must have the same number of samples, "
                          f"got {[a.shape[0] for a in arrays]}")
    if n <= len(columns):
        raise RobmodError(f"{n} samples cannot identify {len(columns)} parameters")
    arrays = [arrays[0]] + [a.rechunk({0: arrays[0].chunks[0]}) for a in arrays[1:]]
    from dask import delayed

    factors = delayed(_chunk_factors, pure=True)
    blocks = [a.to_delayed().ravel() for a in arrays]
    parts = [factors(reg, *bs[:4], bs[4] if len(bs) > 4 else None) for bs in zip(*blocks)]
    R = compute([tree_reduce(parts, _combine_factors)], client, scheduler, progress)[0]
    if not np.all(np.isfinite(R)):
        raise RobmodError("the samples hold NaN or infinite values (q, qd, qdd, tau or known): "
                          "clean the log first (robmod.identification.data.clean)")
    beta, std, sig, cond, rms = solve_from_factors(R, n, weights)
    rel = 100 * std / np.maximum(np.abs(beta), 1e-300)
    return Identification(tuple(names), beta, std, rel, sig, cond, rms, nj * n)


def _base_names(robot, params=None):
    """(names, standard columns) of the identified parameters: the base parameters of
    ``robot`` by default (as :func:`robmod.identification.least_squares`)."""
    if params is None:
        from ..identification.base_symbolic import base_parameters

        params = base_parameters(robot)
    if hasattr(params, "standard_names"):
        return tuple(params.names), tuple(params.standard_names)
    return tuple(params), tuple(params)


__all__ = ["identify_dask", "solve_from_factors"]
