"""Dynamic scaling of trajectories (Siciliano et al. §7.7, (7.117)-(7.126)).

A joint trajectory q(t), t in [0, tf], run along the same path with the timing
law r = c t (duration c tf) needs the torques::

    tau(t_new) = tau_s(t) / c^2 + g(q(t)),   t_new = c t
    tau_s = B(q) qdd + Gamma(q)[qd qd]       (velocity and acceleration terms)

(gravity does not depend on the timing; friction is left out, as the book
does).  :func:`scale_to_limits` finds the smallest uniform slow-down c >= 1
for which every torque stays within its limit, without recomputing the
inverse dynamics of the new trajectory; when gravity alone exceeds a limit
no timing can help and a :class:`RobmodError` says where.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..description.arguments import (finite_array, joint_arrays, keyword_options,
                                     positive_scalar)
from ..errors import ArgumentError, RobmodError
from .lagrange import gravity_torques
from .newton_euler import idm


def _torque_split(robot, q, qd, qdd):
    """(tau_s, g): velocity/acceleration torques (7.123) and gravity torques, friction off."""
    g = gravity_torques(robot, q)
    tau = idm(robot, q, qd, qdd, friction=False, wrench=False)
    return tau - g, g


@dataclass
class ScaledTrajectory:
    """The trajectory run c times slower: same positions, at times c t."""

    c: float
    t: np.ndarray        # (N,) new time samples c t
    q: np.ndarray        # (N, n)
    qd: np.ndarray       # qd / c
    qdd: np.ndarray      # qdd / c^2
    tau: np.ndarray      # tau_s / c^2 + g
    joint: int | None    # the joint whose limit binds (1-based), None if c = 1
    sample: int | None


def scaled_torques(tau_s, g, c):
    """tau of the trajectory slowed down by c (r = c t): tau_s / c^2 + g."""
    tau_s, g = finite_array("tau_s", tau_s), finite_array("g", g)
    return tau_s / positive_scalar("c", c) ** 2 + g


@keyword_options()
def scale_to_limits(robot, t, q, qd, qdd, tau_max, *, margin: float = 0.0) -> ScaledTrajectory:
    """Smallest uniform time scaling c >= 1 such that |tau_i| <= tau_max_i everywhere.

    ``t`` (N,), ``q``, ``qd``, ``qdd`` (N, n) samples of the trajectory; ``tau_max``: one
    limit per joint (or a scalar); ``margin``: keep |tau| <= (1 - margin) tau_max.
    """
    t = finite_array("t", t, shape_text="the times (N,)")
    q, qd, qdd = joint_arrays(robot, q=q, qd=qd, qdd=qdd)
    if q.ndim != 2 or t.shape != q.shape[:1]:
        raise ArgumentError(f"scale_to_limits: t (N,) and q, qd, qdd (N, n) of the same samples, "
                            f"got {t.shape} and {q.shape}")
    n = q.shape[-1]
    tau_max = finite_array("tau_max", tau_max, shape_text=f"a limit or {n} limits")
    try:
        lim = np.broadcast_to(tau_max, (n,)) * (1.0 - margin)
    except ValueError:
        raise ArgumentError(f"tau_max: a limit or {n} limits, got shape {tau_max.shape}") from None
    if np.any(lim <= 0):
        raise RobmodError("torque limits must be positive")
    tau_s, g = _torque_split(robot, q, qd, qdd)
    over = np.abs(g) > lim
    if np.any(over):
        k, i = np.argwhere(over)[0]
        raise RobmodError(f"gravity alone exceeds the torque limit of joint {i + 1} at sample "
                          f"{k} (|g| = {abs(g[k, i]):.4g} > {lim[i]:.4g}): no time scaling "
                          "can make this trajectory feasible")
    # |tau_s k + g| <= lim with k = 1/c^2 in (0, 1]: k <= (lim - sign(tau_s) g) / |tau_s|
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.where(np.abs(tau_s) > 0, (lim - np.sign(tau_s) * g) / np.abs(tau_s), np.inf)
    kmin = float(np.min(bound)) if bound.size else np.inf
    if kmin <= 0.0:
        k, i = np.unravel_index(np.argmin(bound), bound.shape)
        raise RobmodError(f"gravity alone reaches the torque limit of joint {i + 1} at sample "
                          f"{k} and the motion pushes beyond it: no time scaling can make "
                          "this trajectory feasible")
    if kmin >= 1.0:
        c, joint, sample = 1.0, None, None
    else:
        c = 1.0 / np.sqrt(kmin)
        sample, joint = (int(x) for x in np.unravel_index(np.argmin(bound), bound.shape))
        joint += 1
    return ScaledTrajectory(c, c * t, q, qd / c, qdd / c**2, scaled_torques(tau_s, g, c),
                            joint, sample)


__all__ = ["ScaledTrajectory", "scaled_torques", "scale_to_limits"]
