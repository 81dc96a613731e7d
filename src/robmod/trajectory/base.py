"""What a trajectory is: an object sampled at any times (Khalil & Dombre ch. 8).

Every trajectory gives, at an array of times t (any shape), the joint positions, velocities,
accelerations and jerks, each of shape t.shape + (n,): ``traj.sample(t)`` returns a
:class:`~robmod.kinematics.Sample` ``(q, qd, qdd, qddd)`` (a trajectory is a
:class:`~robmod.kinematics.Motion`, the protocol of every producer of motions, in the
kinematics layer so that identification's exciting trajectories follow it too).  Before 0 it holds its start, from ``duration`` on its end, at rest (zero
velocity, acceleration and jerk: a controller sampling the end must not be given the last
deceleration to hold).
``phases`` names the switching times (acceleration, cruise, deceleration...).
"""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, RobmodError
from ..kinematics.motion import Sample


class Trajectory:
    """Base class: subclasses define ``n``, ``duration``, ``phases`` and ``_sample(t)`` for a
    1-D array of times inside [0, duration]."""

    n: int
    duration: float
    phases: tuple = ()

    def sample(self, t) -> Sample:
        t = np.asarray(t, dtype=float)
        if not np.all(np.isfinite(t)):
            raise ArgumentError("sample: the times must be finite numbers")
        raw = t.ravel()
        flat = np.clip(raw, 0.0, self.duration)
        q, qd, qdd, jerk = self._sample(flat)
        # at rest before the start and from the end on: the derivatives of the held positions
        # (the one-sided values at t = duration, e.g. the deceleration, must not be held)
        rest = (raw < 0) | (raw >= self.duration)
        if rest.any():
            for x in (qd, qdd, jerk):
                x[rest] = 0.0
        return Sample(*(p.reshape(t.shape + (self.n,)) for p in (q, qd, qdd, jerk)))

    __call__ = sample

    def derivatives(self, t) -> Sample:
        """q, qd, qdd, qddd at the times ``t`` (1-D, clipped to [0, duration]), each
        (len(t), n): the motion's own values, one-sided at both ends (where :meth:`sample`
        holds the rest from the end on) — a trajectory used as a geometric path."""
        t = np.clip(np.asarray(t, dtype=float).ravel(), 0.0, self.duration)
        return Sample(*(np.asarray(x, dtype=float).reshape(t.size, self.n)
                        for x in self._sample(t)))

    def times(self, rate: float) -> np.ndarray:
        """Sample times at ``rate`` Hz from 0 to the duration (both included)."""
        if not (np.isfinite(rate) and rate > 0):
            raise ArgumentError(f"rate must be a positive number of samples per second, got {rate}")
        k = int(np.ceil(self.duration * rate - 1e-9))
        return np.minimum(np.arange(k + 1) / rate, self.duration)

    def to_numpy(self, rate: float = 1000.0) -> np.ndarray:
        """Columns t, q1..qn, qd1..qdn, qdd1..qddn at ``rate`` Hz."""
        t = self.times(rate)
        s = self.sample(t)
        return np.column_stack([t, s.q, s.qd, s.qdd])

    def to_csv(self, path, rate: float = 1000.0) -> None:
        n = self.n
        head = ["t"] + [f"{k}{j}" for k in ("q", "qd", "qdd") for j in range(1, n + 1)]
        np.savetxt(path, self.to_numpy(rate), delimiter=",", header=",".join(head), comments="")

    def plot(self, path=None, *, limits=None, rate: float = 500.0, ax=None):
        """:func:`robmod.plot.trajectory_plot` of this trajectory: q, qd, qdd and jerk against
        time (with the velocity and acceleration limits used, when known)."""
        from ..plot.trajectory import trajectory_plot   # delegation declared in pyproject.toml

        return trajectory_plot(self, path, limits=limits, rate=rate, ax=ax)


class StraightLine(Trajectory):
    """A motion of all joints along the straight line q(t) = q0 + r(t) (q1 - q0) (Khalil &
    Dombre (8.1)); subclasses hold ``q0`` and ``q1``."""

    q0: np.ndarray
    q1: np.ndarray

    @property
    def n(self) -> int:
        return self.q0.size

    @property
    def D(self) -> np.ndarray:
        return self.q1 - self.q0


def joint_vector(value, n: int | None, name: str) -> np.ndarray:
    """A finite vector of joint values (``n`` entries when given)."""
    try:
        v = np.atleast_1d(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        raise ArgumentError(f"{name}: expected joint values (numbers), got {value!r}") from None
    if v.ndim != 1 or (n is not None and v.size != n):
        raise ArgumentError(f"{name}: expected {n if n is not None else 'a vector of'} joint values, "
                          f"got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ArgumentError(f"{name} has NaN or infinite values")
    return v


def limit_vector(value, n: int, name: str, unbounded: bool = False) -> np.ndarray:
    """Positive finite limits, a scalar or one per joint (``unbounded``: +inf allowed, a
    joint without that limit)."""
    if value is None:
        raise RobmodError(f"{name} is needed (give it, or a robot whose limits define it)")
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"{name}: expected a positive number or one per joint, got "
                          f"{value!r}") from None
    v = np.full(n, float(v)) if v.ndim == 0 else v
    if v.shape != (n,):
        raise ArgumentError(f"{name}: expected a scalar or {n} values, got shape {v.shape}")
    bad = np.isnan(v) | (v <= 0) | (np.isinf(v) if not unbounded else False)
    if np.any(bad):
        what = "positive (or inf: no limit)" if unbounded else "positive and finite"
        raise ArgumentError(f"{name} must be {what}, got {v.tolist()}")
    return v


def via_point_rows(points, qd_max, qdd_max, robot):
    """(P, qd_max, qdd_max): ``points`` as a checked (m + 1, n) array of at least 2 rows, the
    limits completed from the robot's where not given (None where still unknown)."""
    try:
        P = np.asarray(points, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError("points: expected rows of joint values") from None
    if P.ndim != 2 or P.shape[0] < 2:
        raise ArgumentError(f"points: expected at least 2 rows of joint values, got shape {P.shape}")
    if not np.all(np.isfinite(P)):
        raise ArgumentError("points have NaN or infinite values")
    if robot is not None and (qd_max is None or qdd_max is None):
        rv, ra = robot_limits(robot, P.shape[1])
        qd_max = rv if qd_max is None else qd_max
        qdd_max = ra if qdd_max is None else qdd_max
    return P, qd_max, qdd_max


def robot_limits(robot, n: int):
    """(qd_max, qdd_max) of the robot's joints, None where a joint has none."""
    from ..dynamics.layout import dofs

    out = []
    for field in ("qdmax", "qddmax"):
        vals = [getattr(robot.link(j).limits, field) for j in dofs(robot)]
        out.append(None if any(v is None for v in vals) else np.array([float(v) for v in vals]))
    if len(dofs(robot)) != n:
        raise ArgumentError(f"the robot has {len(dofs(robot))} joints, the motion {n}")
    return out


__all__ = ["Trajectory"]
