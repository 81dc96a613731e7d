"""The one time integration of robmod's simulations, on the robot's configuration space.

A state is (q, qd) -- and the internal state z of a continuous control law, integrated with
the plant --; its rates are qd and qdd = DDM(q, qd, tau).  The configuration of a tree on a
fixed base (or the actuated joints of a closed loop) is a vector: one step of
classical Runge-Kutta 4 is the textbook one.  A floating (or mobile) robot's configuration (the base's
position and unit quaternion, then the joints: :mod:`robmod.description.base`) lives on
SE(3) x R^n and its velocity qd (the base's twist in frame 0, then the joint rates) in the
tangent space: the step is Munthe-Kaas's Runge-Kutta 4 (Munthe-Kaas 1998; Hairer, Lubich &
Wanner, *Geometric Numerical Integration*, §IV.8.2) -- each stage configuration is reached
from q by the exponential of SE(3) (:func:`robmod.geometry.integrate`), the stage velocities
are brought back to q's tangent space by the inverse of the exponential's differential
(dexp^-1, truncated after the terms of fourth order), and the quaternion stays unit (to
rounding) without any projection.  Without external wrench the momentum is conserved to the
method's accuracy (fourth order).

SciPy's ``solve_ivp`` methods integrate the same state in coordinates instead: the base's
position and quaternion with d/dt P = R(Q) V0 and d/dt Q = Q * (0, W0) / 2, the quaternion
brought back to unit norm at the end of each interval.
"""
from __future__ import annotations

import numpy as np

from ..description.base import BASE_Q, BASE_V, moving_base
from ..errors import ArgumentError, RobmodError
from ..geometry.floating import configuration_step
from ..spatial import quaternion_to_matrix
from ..spatial.orientation import quaternion_product
from ..spatial.rotations import cross

#: the tolerances of the adaptive ``solve_ivp`` methods
RTOL, ATOL = 1e-10, 1e-12


class _JointSpace:
    """The configuration space of a tree on a fixed base (or of the actuated joints of a
    closed loop): vectors, q + c v."""

    floating = False

    def __init__(self, n: int):
        self.nq = self.nv = n

    def advance(self, q, v, c):
        """The configuration reached from q at the velocity v after the time c."""
        return q + c * v

    def correct(self, v, c, k):
        """The stage velocity v in the tangent space at the step's start (the identity)."""
        return v

    def rates(self, q, v):
        """d/dt of the coordinates q at the velocity v."""
        return v

    def project(self, q):
        return q


class _FloatingSpace:
    """SE(3) x R^n of a floating robot: q (..., 7 + n), qd (..., 6 + n)."""

    floating = True

    def __init__(self, robot):
        self.robot = robot
        self.n = robot.n_q
        self.nq, self.nv = BASE_Q + self.n, BASE_V + self.n

    def advance(self, q, v, c):
        return configuration_step(q, c * v)

    def correct(self, v, c, k):
        """dexp^-1 of the stage at u = c k (the displacement that reached it):
        v + [u, v] / 2 + [u, [u, v]] / 12 on the base's twist (the joints: v)."""
        u = c * k[..., :BASE_V]
        w = v[..., :BASE_V]
        once = _bracket(u, w)
        base = w + 0.5 * once + _bracket(u, once) / 12.0
        return _joined(base, v)

    def rates(self, q, v):
        Q = q[..., 3:7] / np.linalg.norm(q[..., 3:7], axis=-1, keepdims=True)
        pdot = np.einsum("...ij,...j->...i", quaternion_to_matrix(Q), v[..., :3])
        W = np.concatenate([np.zeros(v.shape[:-1] + (1,)), v[..., 3:6]], axis=-1)
        qdot = 0.5 * quaternion_product(Q, W)
        return np.concatenate([pdot, qdot, v[..., BASE_V:]], axis=-1)

    def project(self, q):
        q = np.array(q, dtype=float)
        q[..., 3:7] /= np.linalg.norm(q[..., 3:7], axis=-1, keepdims=True)
        return q


def _joined(base, v):
    """The base's 6 entries ``base`` then v's joint entries, broadcast to one batch shape."""
    shape = np.broadcast_shapes(base.shape[:-1], v.shape[:-1])
    return np.concatenate([np.broadcast_to(base, shape + (BASE_V,)),
                           np.broadcast_to(v[..., BASE_V:], shape + (v.shape[-1] - BASE_V,))],
                          axis=-1)


def _bracket(a, b):
    """The Lie bracket of se(3) of twists (v, w) (..., 6): (w_a x v_b - w_b x v_a, w_a x
    w_b)."""
    va, wa, vb, wb = a[..., :3], a[..., 3:], b[..., :3], b[..., 3:]
    return np.concatenate([cross(wa, vb) - cross(wb, va), cross(wa, wb)], axis=-1)


def configuration_space(robot, n: int):
    """The space of the state of ``robot`` whose plant has ``n`` state joints."""
    return _FloatingSpace(robot) if moving_base(robot) else _JointSpace(n)


def rk4(space, f, t, h, q, qd, z):
    """One step of Runge-Kutta 4 (Munthe-Kaas's on a floating robot's SE(3)) of the state
    (q, qd, z) from t, where ``f(t, q, qd, z) -> (qdd, dz)``; returns (q, qd, z).  On a vector
    space the operations are the textbook's, in this order (the compiled closed loop repeats
    them)."""
    stateful = z.shape[-1] > 0
    if not space.floating:             # q + c v written out: the same operations, fewer calls
        a1, d1 = f(t, q, qd, z)
        v2 = qd + h / 2 * a1
        a2, d2 = f(t + h / 2, q + h / 2 * qd, v2, z + h / 2 * d1 if stateful else z)
        v3 = qd + h / 2 * a2
        a3, d3 = f(t + h / 2, q + h / 2 * v2, v3, z + h / 2 * d2 if stateful else z)
        v4 = qd + h * a3
        a4, d4 = f(t + h, q + h * v3, v4, z + h * d3 if stateful else z)
        return (q + h / 6 * (qd + 2 * v2 + 2 * v3 + v4),
                qd + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4),
                z + h / 6 * (d1 + 2 * d2 + 2 * d3 + d4) if stateful else z)
    a1, d1 = f(t, q, qd, z)
    k1 = qd
    q2, v2 = space.advance(q, k1, h / 2), qd + h / 2 * a1
    z2 = z + h / 2 * d1 if stateful else z
    a2, d2 = f(t + h / 2, q2, v2, z2)
    k2 = space.correct(v2, h / 2, k1)
    q3, v3 = space.advance(q, k2, h / 2), qd + h / 2 * a2
    z3 = z + h / 2 * d2 if stateful else z
    a3, d3 = f(t + h / 2, q3, v3, z3)
    k3 = space.correct(v3, h / 2, k2)
    q4, v4 = space.advance(q, k3, h), qd + h * a3
    z4 = z + h * d3 if stateful else z
    a4, d4 = f(t + h, q4, v4, z4)
    k4 = space.correct(v4, h, k3)
    return (space.advance(q, k1 + 2 * k2 + 2 * k3 + k4, h / 6),
            qd + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4),
            z + h / 6 * (d1 + 2 * d2 + 2 * d3 + d4) if stateful else z)


def solve_interval(space, f, t0, t1, q, qd, z, method: str):
    """(q, qd, z) at t1 by ``scipy.integrate.solve_ivp(method=...)`` from the state at t0
    (one state: 1-D arrays), on the coordinates of q."""
    from scipy.integrate import solve_ivp

    nq, nv = q.shape[-1], qd.shape[-1]
    if q.ndim != 1:
        raise ArgumentError(f"simulate: method {method!r} integrates one run (x0 of shape "
                            f"({nq + nv},)), got a batch of shape {q.shape[:-1]}; use "
                            "method='rk4' for a batch")

    def rate(tt, x):
        qq, vv, zz = x[:nq], x[nq:nq + nv], x[nq + nv:]
        a, d = f(tt, qq, vv, zz)
        return np.concatenate([space.rates(qq, vv), a, d if zz.size else zz])

    try:
        sol = solve_ivp(rate, (t0, t1), np.concatenate([q, qd, z]), method=method,
                        rtol=RTOL, atol=ATOL)
    except ValueError as e:       # an unknown method (checked before), a bad state
        raise ArgumentError(f"simulate: solve_ivp refused method {method!r}: {e}") from None
    if not sol.success:
        raise RobmodError(f"simulate: the integrator {method} failed at t = "
                          f"{sol.t[-1] if sol.t.size else t0:.6g}: {sol.message}")
    x = sol.y[:, -1]
    return space.project(x[:nq]), x[nq:nq + nv], x[nq + nv:]


#: the integrators of :func:`robmod.control.simulate`: RK4 and SciPy's ``solve_ivp`` methods
METHODS = ("rk4", "RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")


__all__ = []
