"""Time scaling of a trajectory: slower along the same path (Khalil & Dombre §8.3,
Hollerbach 1984; Siciliano et al. §7.7, (7.117)-(7.126)).

``slow_down(traj, c)`` runs any trajectory c >= 1 times slower: q_s(t) = q(t/c), so that
q̇_s = q̇/c, q̈_s = q̈/c², jerk/c³.  ``scale_to_torques(robot, traj)`` finds the smallest c for
which the torques of robmod's inverse dynamic model stay within the robot's limits everywhere
on a dense sampling: without friction Γ_s = (Γ - Q)/c² + Q, so c follows in closed form per
sample (:func:`robmod.dynamics.scale_to_limits`); a trajectory that gravity alone makes
infeasible is refused, saying where.
"""
from __future__ import annotations


import numpy as np

from ..description.arguments import keyword_options
from ..dynamics.time_scaling import scale_to_limits
from ..errors import ArgumentError, RobmodError
from .base import Trajectory


class TimeScaled(Trajectory):
    """``inner`` run ``c`` times slower (same path, duration c T)."""

    def __init__(self, inner: Trajectory, c: float, joint=None, time=None):
        if not (callable(getattr(inner, "sample", None)) and hasattr(inner, "duration")
                and hasattr(inner, "n")):
            raise ArgumentError(f"the trajectory to slow down must be a motion (n, duration, "
                                f"sample(t)), got {type(inner).__name__}")
        try:
            c = float(c)
        except (TypeError, ValueError):
            c = float("nan")
        if not (np.isfinite(c) and c > 0):
            raise RobmodError(f"the time scaling factor must be positive and finite, got {c}")
        self.inner, self.c = inner, float(c)
        self.n = inner.n
        self.duration = inner.duration * self.c
        self.phases = tuple((name, tt * self.c) for name, tt in inner.phases)
        self.limits = None
        #: the joint (1-based) and the time (in the slowed motion) whose torque limit binds
        self.binding_joint, self.binding_time = joint, time

    def _sample(self, t):
        s = self.inner.sample(t / self.c)
        c = self.c
        return s.q, s.qd / c, s.qdd / c**2, s.qddd / c**3

    def __repr__(self):
        return f"TimeScaled({type(self.inner).__name__}, c={self.c:.6g}, duration={self.duration:.6g})"


def slow_down(traj: Trajectory, c: float) -> TimeScaled:
    """``traj`` run ``c`` times slower along the same path."""
    return TimeScaled(traj, c)


@keyword_options()
def scale_to_torques(robot, traj: Trajectory, *, tau_max=None, rate: float = 1000.0,
                     margin: float = 0.0) -> Trajectory:
    """The smallest uniform slow-down of ``traj`` whose IDM torques of ``robot`` stay within
    ``tau_max`` (default: the robot's ``taumax``) on a sampling at ``rate`` Hz; ``traj`` itself
    when it already does.  Friction is left out of the scaling law (its velocity terms do not
    scale as 1/c²): check the result with the full IDM when friction matters."""
    from ..dynamics.layout import dofs

    if not (hasattr(robot, "links") and hasattr(robot, "n_q")):
        raise ArgumentError(f"scale_to_torques: robot must be a robmod Robot, got "
                            f"{type(robot).__name__}")
    if not (callable(getattr(traj, "sample", None)) and callable(getattr(traj, "times", None))):
        raise ArgumentError(f"scale_to_torques: traj must be a trajectory, got "
                            f"{type(traj).__name__}")

    if tau_max is None:
        vals = [robot.link(j).limits.taumax for j in dofs(robot)]
        if any(v is None for v in vals):
            raise RobmodError(f"tau_max: robot {robot.name!r} has no torque limit for every "
                              "joint; give tau_max")
        tau_max = np.array([float(v) for v in vals])
    if traj.n != robot.n_q:
        raise RobmodError(f"the trajectory has {traj.n} joints, robot {robot.name!r} has "
                          f"{robot.n_q}")
    t = traj.times(rate)
    s = traj.sample(t)
    res = scale_to_limits(robot, t, s.q, s.qd, s.qdd, tau_max, margin=margin)
    if res.c <= 1.0:
        return traj
    return TimeScaled(traj, res.c, res.joint, float(res.t[res.sample]))


__all__ = ["TimeScaled", "slow_down", "scale_to_torques"]
