"""Simulation of a floating robot: free fall, a robot in space (no contact).

The state is ``x = [q, qd]``: the configuration (7 + n: base position, unit quaternion, joints)
and the velocity (6 + n: base twist in frame 0, joint velocities) of
:mod:`robmod.description.base`.  Its derivative::

    d/dt P = R(Q) V0,   d/dt Q = 1/2 Q * (0, W0),   d/dt q_j = qd_j,   d/dt qd = ddm

is integrated as an ordinary differential equation (classical Runge-Kutta 4, or SciPy's
``solve_ivp``), the quaternion brought back to unit norm after each step (the exact flow keeps
it unit: the projection does not change the order of the method).  Without external wrench
the linear and angular momenta are conserved (with gravity: the angular momentum about the
centre of mass, and the linear one grows by M g t): :func:`~robmod.dynamics.
centroidal_momentum` measures it.  :func:`floating_simulate` returns a
:class:`~robmod.dynamics.SimulationResult`, as every simulator of robmod: its ``q`` holds the
7 + n configuration values, its ``qd`` the 6 + n velocities, ``x`` (or ``np.asarray``) the
states (len(t), ..., 13 + 2 n).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (finite_array, keyword_options, positive_scalar,
                                     switched_off)
from ..errors import ArgumentError, RobmodError
from .direct import METHODS, ddm
from .integration import integrate_states
from .simulation import SimulationResult


def _cross(a, b):
    """a x b over the last axis (3 components; np.cross is slow on small arrays)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _rates(robot, x, qdd):
    """d/dt x of the state x (..., 13 + 2n) and the accelerations qdd (..., 6 + n)."""
    n = robot.n_q
    q, v = x[..., :7 + n], x[..., 7 + n:]
    Q = q[..., 3:7]
    Q = Q / np.sqrt(np.sum(Q * Q, axis=-1, keepdims=True))
    u, w = Q[..., 1:], Q[..., :1]
    V, W = v[..., :3], v[..., 3:6]
    t = 2 * _cross(u, V)
    pdot = V + w * t + _cross(u, t)                       # R(Q) V0
    qdot = 0.5 * np.concatenate([-np.sum(u * W, axis=-1, keepdims=True),
                                 w * W + _cross(u, W)], axis=-1)     # Q * (0, W0) / 2
    return np.concatenate([pdot, qdot, v[..., 6:], qdd], axis=-1)


@keyword_options()
def floating_state_derivative(robot, x, tau, *, method: str = "recursive", gravity=True,
                              rotor=True, friction=True, wrench=True,
                              velocity=True) -> np.ndarray:
    """d/dt [q, qd] (..., 13 + 2 n_q) of a free-floating robot at the state x = [q, qd]
    under the joint torques tau (..., n_q) (``method`` and switches: those of
    :func:`~robmod.dynamics.ddm`)."""
    n = robot.n_q
    x = finite_array("x", x, shape_text=f"a state [q, qd] of shape (..., {13 + 2 * n})")
    if x.ndim == 0 or x.shape[-1] != 13 + 2 * n:
        raise ArgumentError(f"argument x must be a state [q, qd] of shape (..., {13 + 2 * n}) "
                            f"(7 + {n} configuration values, 6 + {n} velocities), got shape "
                            f"{x.shape}")
    options = switched_off(floating_state_derivative, gravity=gravity, rotor=rotor,
                           friction=friction, wrench=wrench, velocity=velocity)
    if method != "recursive":
        options["method"] = method
    qdd = ddm(robot, x[..., :7 + n], x[..., 7 + n:], tau, **options)
    return _rates(robot, np.broadcast_to(x, qdd.shape[:-1] + x.shape[-1:]), qdd)


@keyword_options()
def floating_simulate(robot, tau_fn, x0, t, *, method: str = "rk4", substeps: int = 1,
                      ddm_method: str = "recursive", bound: float = 1e6, gravity=True,
                      rotor=True, friction=True, wrench=True,
                      velocity=True) -> SimulationResult:
    """The motion of a free-floating robot (no contact: the links' external wrenches FX..CZ
    only) under the joint torques ``tau_fn(t, x)`` (..., n_q) from x0 = [q0, qd0] (..., 13 +
    2 n_q): a :class:`~robmod.dynamics.SimulationResult` (q (len(t), ..., 7 + n_q), qd
    (len(t), ..., 6 + n_q), the torques at the grid's times).  ``method='rk4'``: classical Runge-Kutta 4 on the grid t
    (``substeps`` per interval), batched; otherwise a ``scipy.integrate.solve_ivp`` method on
    one state.  A state beyond ``bound`` or not finite stops with a RobmodError; ``ddm_method``
    and the switches: those of :func:`~robmod.dynamics.ddm`."""
    n = robot.n_q
    sw = switched_off(floating_simulate, gravity=gravity, rotor=rotor, friction=friction,
                      wrench=wrench, velocity=velocity)
    if ddm_method not in METHODS:
        raise ArgumentError(f"floating_simulate: ddm_method must be one of "
                            f"{', '.join(METHODS)}, got {ddm_method!r}")
    t = finite_array("t", t, shape_text="an increasing 1-D array of times")
    if t.ndim != 1 or t.size == 0 or np.any(np.diff(t) <= 0):
        raise ArgumentError(f"argument t must be a non-empty increasing 1-D array of times, "
                            f"got shape {t.shape}")
    x = finite_array("x0", x0, shape_text=f"a state [q, qd] of shape (..., {13 + 2 * n})")
    if x.ndim == 0 or x.shape[-1] != 13 + 2 * n:
        raise ArgumentError(f"argument x0 must be a state [q, qd] of shape (..., "
                            f"{13 + 2 * n}), got shape {x.shape}")
    if not isinstance(substeps, (int, np.integer)) or substeps < 1:
        raise ArgumentError(f"argument substeps must be an integer >= 1, got {substeps!r}")
    bound = positive_scalar("bound", bound)
    x = _unit(x.copy(), n)

    def torque(tt, xx):
        if not np.all(np.abs(xx) <= bound):         # NaN and infinities included
            raise RobmodError(f"floating_simulate: the simulation blew up at t = {tt:.6g} (a "
                              f"state beyond {bound:.3g}); reduce the step or raise substeps")
        try:
            tau = finite_array("tau", tau_fn(tt, xx), shape_text=f"{n} joint torques")
            if tau.shape[-1:] != (n,):
                raise RobmodError(f"tau must have {n} joint torques, got shape {tau.shape}")
        except RobmodError as e:
            raise RobmodError(f"floating_simulate: at t = {tt:.6g} the torque law gave a bad "
                              f"value: {e.message}") from None
        return tau

    def f(tt, xx, tau):
        return floating_state_derivative(robot, xx, tau, method=ddm_method, **sw)

    states, taus = integrate_states(f, torque, x, t, method=method, substeps=substeps,
                                    name="floating_simulate",
                                    project=lambda tt, y: _unit(y, n))
    return SimulationResult(t, states[..., :7 + n], states[..., 7 + n:], taus, robot,
                            controller=tau_fn)


def _unit(x, n):
    """The state with its quaternion brought back to unit norm."""
    x[..., 3:7] /= np.linalg.norm(x[..., 3:7], axis=-1, keepdims=True)
    return x


__all__ = ["floating_simulate", "floating_state_derivative"]
