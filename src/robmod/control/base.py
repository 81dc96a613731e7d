"""What every controller is: a small object with explicit state, sampled at a period ``dt``.

A controller of a robot with n joints has an internal state z (an integral of the error, the
parameter estimates of an adaptive law, or nothing), and two functions of the measured joint
state (q, qd), the desired motion ``ref`` (a :class:`~robmod.kinematics.Sample`: ``ref.q``,
``ref.qd``, ``ref.qdd``) and z:

* ``output(t, q, qd, ref, z) -> Gamma``: the joint torques (..., n);
* ``update(t, q, qd, ref, z) -> dz/dt``: how the internal state evolves.

A digital controller (``dt > 0``, 1 kHz by default) evaluates both at its samples and holds the
torque in between (z advances by ``dt * dz/dt``, the rectangular rule of a digital PID); with
``dt = 0`` the simulation treats the law as continuous and integrates z with the plant.  All
arrays may carry leading batch dimensions (many runs at once).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import keyword_options
from ..errors import ArgumentError, RobmodError

#: the default sample period of digital controllers (1 kHz)
DEFAULT_DT = 1e-3


def gain(value, n: int, name: str, *, allow_zero: bool = True) -> np.ndarray:
    """A per-joint gain: a scalar, n values or (..., n) values (one set per run), finite and
    non-negative (positive when ``allow_zero`` is False)."""
    try:
        g = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"gain {name}: expected a number or {n} numbers, got {value!r}") \
            from None
    if g.ndim == 0:
        g = np.full(n, float(g))
    if g.shape[-1:] != (n,):
        raise ArgumentError(f"gain {name}: expected a scalar or {n} values (one per joint), "
                          f"got shape {g.shape}")
    if not np.all(np.isfinite(g)):
        raise ArgumentError(f"gain {name} has NaN or infinite values")
    if np.any(g < 0) or (not allow_zero and np.any(g == 0)):
        need = "non-negative" if allow_zero else "positive"
        raise ArgumentError(f"gain {name} must be {need}, got {g.tolist()}")
    return g


def sample_time(dt) -> float:
    try:
        dt = float(dt)
    except (TypeError, ValueError):
        raise ArgumentError(f"dt: expected a sample period in seconds, got {dt!r}") from None
    if not np.isfinite(dt) or dt < 0:
        raise ArgumentError(f"dt must be a finite period >= 0 s (0: continuous), got {dt}")
    return dt


class Controller:
    """Base class: a stateless law (override ``output``); stateful laws override
    ``state_size``, ``initial_state`` and ``update``."""

    dt: float = DEFAULT_DT
    n: int = 0

    def state_size(self) -> int:
        return 0

    def initial_state(self, batch=()) -> np.ndarray:
        return np.zeros(tuple(batch) + (self.state_size(),))

    def output(self, t, q, qd, ref, z):
        raise RobmodError(f"{type(self).__name__} defines no control law: a controller "
                          "defines output(t, q, qd, ref, z) -> torques")

    def update(self, t, q, qd, ref, z):
        return np.zeros_like(z)

    def __call__(self, t, q, qd, ref, z=None):
        """The torques of a stateless law, or with the given state z."""
        if z is None:
            z = self.initial_state(np.shape(q)[:-1])
        return self.output(t, q, qd, ref, z)

    def __repr__(self):
        return f"{type(self).__name__}(n={self.n}, dt={self.dt:g})"


class OpenLoop(Controller):
    """Torques given as a function of time, ``tau(t) -> (..., n)`` (no feedback)."""

    @keyword_options()
    def __init__(self, tau, n: int, *, dt: float = 0.0):
        if not callable(tau):
            raise ArgumentError(f"OpenLoop: tau must be a function t -> torques, got "
                              f"{type(tau).__name__}")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ArgumentError(f"OpenLoop: n must be a number of joints >= 1, got {n!r}")
        self.tau, self.n, self.dt = tau, int(n), sample_time(dt)

    def output(self, t, q, qd, ref, z):
        return np.broadcast_to(np.asarray(self.tau(t), dtype=float), np.shape(q))


__all__ = ["Controller", "OpenLoop", "DEFAULT_DT"]
