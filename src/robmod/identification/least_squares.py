"""Identification from joint samples already differentiated: q, qd, qdd and tau as arrays
(Siciliano et al. §7.4, (7.85), (7.86); Gautier & Khalil 1990).

A thin call of the one pipeline: the model (:class:`~.model.IdentificationModel`: the
default parameter set and its base parameters, or ``params``) and the weighted least squares
(:mod:`.solver`).  For measured logs (filtering, differentiation, decimation, the choice of
the cut-off) use :class:`~.estimator.DynamicIdentification`.
"""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, RobmodError
from ..description.arguments import keyword_options
from .model import identification_model, stack
from .solver import Identification, joint_factors, one_blas_thread, solve, solve_factors


@keyword_options()
def identify(robot, q, qd, qdd, tau, *, params=None, weights="joint", known=None, fixed=None,
             tau_known=None, offsets: bool = False, rotor: bool = True,
             friction: bool = True) -> Identification:
    """The parameters of ``robot`` (numeric geometry) from samples q, qd, qdd, tau (N, n).

    ``params``: None (every standard parameter of every moving link, reduced to the base
    parameters), names of standard parameters (their columns as they are) or a symbolic
    :class:`~.base_symbolic.BaseParameters`; ``known`` {name: value} / ``fixed`` [names]:
    parameters moved to the known side; ``offsets``: one torque offset per joint.
    ``weights``: 'joint' (1/sigma_j per joint, Gautier), 'none', or one weight per joint.
    ``tau_known``: torques (N, n) of known origin, subtracted from tau before the fit: e.g.
    a measured external wrench f on the tool, ``J(q)^T f`` (static model), or the Stribeck
    term of a friction law identified separately (it is not linear in its parameters).
    """
    with one_blas_thread():
        return _identify(robot, q, qd, qdd, tau, params, weights, known, fixed, tau_known,
                         offsets, rotor, friction)


def _identify(robot, q, qd, qdd, tau, params, weights, known, fixed, tau_known, offsets, rotor,
              friction):
    model = identification_model(robot, params=params, offsets=offsets, known=known,
                                 fixed=fixed, rotor=rotor, friction=friction)
    n = model.n_joints
    arrays = {}
    for name, x in (("q", q), ("qd", qd), ("qdd", qdd), ("tau", tau), ("tau_known", tau_known)):
        if x is None:
            if name != "tau_known":
                raise ArgumentError(f"identify: {name} is missing (None): expected (N, {n})")
            continue
        try:
            x = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise ArgumentError(f"{name} must be an array of numbers (N, {n})") from None
        if x.ndim != 2 or x.shape[1] != n:
            raise ArgumentError(f"{name} must have shape (N, {n}), got {x.shape}")
        bad = ~np.all(np.isfinite(x), axis=1)
        if bad.any():
            raise RobmodError(f"{name} holds NaN or infinite values (sample "
                              f"{int(np.flatnonzero(bad)[0]) + 1}): clean the data first")
        arrays[name] = x
    if len({x.shape[0] for x in arrays.values()}) > 1:
        raise RobmodError(f"q, qd, qdd, tau (and tau_known) must have the same number of "
                          f"samples, got {[x.shape[0] for x in arrays.values()]}")
    W, known_tau = model.regressor(arrays["q"], arrays["qd"], arrays["qdd"], known=True)
    W = stack(W)
    y = arrays["tau"] - known_tau
    if tau_known is not None:
        y = y - arrays["tau_known"]
    if isinstance(weights, str) and weights not in ("joint", "none"):
        raise RobmodError(f"weights must be 'joint', 'none' or {n} positive numbers, got "
                          f"{weights!r}")
    if isinstance(weights, str):
        return solve(W, y.T.reshape(-1), n, method="wls" if weights == "joint" else "ols",
                     names=model.names)
    return solve_factors(joint_factors(W, y.T.reshape(-1), n), y.shape[0], weights=weights,
                         names=model.names)


__all__ = ["identify"]
