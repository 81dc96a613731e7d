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

from ..description.arguments import finite_array, keyword_options, whole_number
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
    ``state_size``, ``initial_state`` and ``update``.

    ``output`` and ``update`` receive the robot's state (q, qd) -- a floating robot's with its
    base first, 7 + n and 6 + n values --; a joint-space law reads the n joints' values,
    the last n of each (:meth:`joints`), and gives their n torques."""

    dt: float = DEFAULT_DT
    n: int = 0
    #: whether the law reads a desired motion (``ref``): a simulation without one refuses it
    follows_reference: bool = True

    def joints(self, q, qd):
        """The joints' (q, qd): the last n values of the state's (those of a floating robot
        after its base's)."""
        n = self.n
        if (q.shape if type(q) is np.ndarray else np.shape(q))[-1] == n:
            return q, qd
        return q[..., -n:], qd[..., -n:]

    def at(self, q, joints):
        """The state q with its joints' values replaced by ``joints`` (a floating robot's base
        kept): where a law evaluates its model on the desired joint positions."""
        if np.shape(q)[-1] == self.n:
            return joints
        base = np.asarray(q)[..., :-self.n]
        shape = np.broadcast_shapes(base.shape[:-1], np.shape(joints)[:-1])
        return np.concatenate([np.broadcast_to(base, shape + base.shape[-1:]),
                               np.broadcast_to(joints, shape + (self.n,))], axis=-1)

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

    follows_reference = False

    @keyword_options()
    def __init__(self, tau, n: int, *, dt: float = 0.0):
        if not callable(tau):
            raise ArgumentError(f"OpenLoop: tau must be a function t -> torques, got "
                              f"{type(tau).__name__}")
        self.tau, self.dt = tau, sample_time(dt)
        self.n = whole_number("n", n, what="a number of joints")

    def output(self, t, q, qd, ref, z):
        return np.broadcast_to(np.asarray(self.tau(t), dtype=float),
                               np.shape(q)[:-1] + (self.n,))


class TorqueLaw(Controller):
    """A function ``law(t, q, qd) -> tau`` (..., n) of the robot's state as a continuous,
    stateless controller: what :func:`~robmod.control.simulate` makes of a function given as
    its torque law (evaluated at every integration stage)."""

    follows_reference = False
    dt = 0.0

    def __init__(self, law, n: int):
        self.law, self.n = law, n

    def output(self, t, q, qd, ref, z):
        try:
            tau = finite_array("tau", self.law(t, q, qd),
                               shape_text=f"{self.n} joint torques")
        except RobmodError as e:
            raise ArgumentError(f"simulate: at t = {t:.6g} the torque law gave a bad value: "
                              f"{e.message}") from None
        batch = np.shape(q)[:-1]
        try:
            fits = tau.shape[-1:] == (self.n,) and \
                np.broadcast_shapes(tau.shape[:-1], batch) == batch
        except ValueError:        # batch shapes that do not broadcast
            fits = False
        if not fits:
            raise ArgumentError(f"simulate: at t = {t:.6g} the torque law gave shape "
                                f"{tau.shape}: expected {self.n} joint torques (..., {self.n})"
                                f" for the states {np.shape(q)}")
        return np.broadcast_to(tau, batch + (self.n,))

    def __repr__(self):
        return f"TorqueLaw({getattr(self.law, '__name__', type(self.law).__name__)}, n={self.n})"


__all__ = ["Controller", "OpenLoop", "DEFAULT_DT"]
