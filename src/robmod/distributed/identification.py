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

From the per-joint factors R_j every quantity of the in-memory fit follows exactly: the
solver of :mod:`robmod.identification.solver` works on these factors (the residual of joint
j for any beta is ``|R_j [beta; -1]|``, the weighted system is the stack of
``R_j / sigma_j``), so both give the same beta, standard deviations, sigma_j, condition
number and residual rms, the out-of-core one in one pass over the data.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import keyword_options
from ..errors import ArgumentError, RobmodError
from ..identification.model import identification_model
from ..identification.regressors import regressor_model
from ..identification.solver import Identification, r_factor, solve_factors
from .cluster import compute
from .reduce import tree_reduce
from .remote import RemoteModel


def _chunk_factors(reg, offsets, q, qd, qdd, tau, known):
    """(NJ, b+1, b+1): R of [Phi_j | tau_j] for each joint j of the chunk."""
    n, nj = tau.shape
    phi = reg(q, qd, qdd).reshape(n, nj, -1)
    if offsets:
        phi = np.concatenate([phi, np.broadcast_to(np.eye(nj), (n, nj, nj))], axis=2)
    y = tau - known if known is not None else tau
    return np.stack([r_factor(np.column_stack([phi[:, j, :], y[:, j]])) for j in range(nj)])


def _combine_factors(a, b):
    """Per-joint R factors of two groups of rows combined (R of their stack)."""
    return np.stack([r_factor(np.vstack([x, y])) for x, y in zip(a, b)])


def _as_dask(x, what, n_joints, chunk):
    import dask.array as da

    if not isinstance(x, da.Array):
        try:
            x = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise ArgumentError(f"{what} must be an array of numbers (N, {n_joints})") from None
        x = da.from_array(x, chunks=(chunk,) + x.shape[1:])
    if x.ndim != 2 or x.shape[1] != n_joints:
        raise ArgumentError(f"{what} must have shape (N, {n_joints}), got {x.shape}")
    return x.astype(float).rechunk({1: -1})


@keyword_options()
def identify_dask(robot, q, qd, qdd, tau, *, params=None, weights="joint", tau_known=None,
                  offsets: bool = False, chunk: int = 50_000, client=None, scheduler=None,
                  progress: bool = False) -> Identification:
    """:func:`robmod.identification.identify` out of core: q, qd, qdd, tau (and
    ``tau_known`` torques) as Dask arrays (N, NJ) chunked along the samples, or NumPy arrays
    chunked here by ``chunk`` rows.  The same model (``params``, ``offsets``), the same
    :class:`~robmod.identification.Identification` from the same solver
    (:func:`robmod.identification.solver.solve_factors`); ``weights``: 'joint', 'none' or one
    weight per joint.  Only R factors travel (see the module docstring)."""
    if not (isinstance(weights, str) and weights in ("joint", "none")):
        w = np.asarray(weights, dtype=float).ravel()
        if w.size != len(robot.joints) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise RobmodError(f"weights must be 'joint', 'none' or {len(robot.joints)} positive "
                              f"numbers (one per joint), got {weights!r}")
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise RobmodError(f"chunk must be a positive integer, got {chunk!r}")
    model = identification_model(robot, params=params, offsets=offsets)
    reg = RemoteModel(regressor_model(model.robot, params=model.columns))
    nj = reg.input_sizes[0]
    arrays = [_as_dask(x, w, nj, int(chunk)) for x, w in
              ((q, "q"), (qd, "qd"), (qdd, "qdd"), (tau, "tau"))]
    if tau_known is not None:
        arrays.append(_as_dask(tau_known, "tau_known", nj, int(chunk)))
    n = arrays[0].shape[0]
    if any(a.shape[0] != n for a in arrays):
        raise RobmodError(f"q, qd, qdd, tau (and tau_known) must have the same number of "
                          f"samples, got {[a.shape[0] for a in arrays]}")
    if n <= len(model.names):
        raise RobmodError(f"{n} samples cannot identify {len(model.names)} parameters")
    arrays = [arrays[0]] + [a.rechunk({0: arrays[0].chunks[0]}) for a in arrays[1:]]
    from dask import delayed

    factors = delayed(_chunk_factors, pure=True)
    blocks = [a.to_delayed().ravel() for a in arrays]
    parts = [factors(reg, model.offsets, *bs[:4], bs[4] if len(bs) > 4 else None)
             for bs in zip(*blocks)]
    R = compute([tree_reduce(parts, _combine_factors)], client=client, scheduler=scheduler,
                progress=progress)[0]
    if not np.all(np.isfinite(R)):
        raise RobmodError("the samples hold NaN or infinite values (q, qd, qdd, tau or "
                          "tau_known): clean the log first (robmod.identification.clean)")
    return solve_factors(R, n, weights=weights, names=model.names)


__all__ = ["identify_dask"]
