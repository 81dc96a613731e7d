"""The configuration of a mobile or floating base: the base's state in the models, SE(3).

The configuration of a robot with a mobile or floating base (:mod:`robmod.description.base`) is
``q = [x, y, z, Q0, Q1, Q2, Q3, q_1..q_n]``: the origin of frame 0 in the world frame and the
unit quaternion of its orientation (scalar first, Khalil & Dombre §3.6.3), then the joints; its
velocity ``qd = [V0, W0, qd_1..qd_n]``: the twist of frame 0 expressed in frame 0 (linear
velocity of O_0, angular velocity), then the joint velocities.  The world pose of frame 0 is

    wT0 = [R(Q)  P]       R(Q) = I + 2/|Q|^2 (Q0 hat(u) + hat(u)^2),  u = (Q1, Q2, Q3)
          [0     1]

(the quaternion is normalised inside the models: Q and -Q, and Q of any norm, give the same
rotation).  The base moves on SE(3): at a constant twist (V0, W0) for a time dt, frame 0 goes
to ``wT0 exp(dt [hat(W0) V0; 0 0])``; :func:`integrate` does exactly this (the exponential of
SE(3), as Pinocchio's ``integrate`` on a free-flyer), :func:`difference` its inverse (the
logarithm), so that ``integrate(robot, q, difference(robot, q, q1), 1) == q1``.

:class:`BaseState` carries the base's values into an algorithm, read from the context
(``ctx.base(group)``): SymPy symbols in a customized model (``PB1..PB3``, ``QB0..QB3``,
``V01..V03``, ``W01..W03``, ``VD01..VD03``, ``WP01..WP03``), the columns of the robot's arrays
in a numeric evaluation, dual numbers for the derivatives.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from ..description.arguments import (finite_array, joint_array, keyword_options, robot_argument,
                                     robot_arrays)
from ..description.base import (BASE_INPUTS, BASE_Q, BASE_V, configuration_size, moving_base)
from ..errors import ArgumentError
from ..symbolic.algebra import add, mul
from ..spatial import quaternion_conjugate, quaternion_multiply
from ..spatial.orientation import quaternion_product
from ..spatial.rotations import cross


class BaseState:
    """The base of a mobile or floating robot as context scalars: ``position`` (3),
    ``quaternion`` (4, scalar first), ``twist`` (V0 then W0, in frame 0) and ``acceleration``
    (its time derivative), each a list (None when the model does not take it).  ``of(ctx)``
    reads them from a context, the twist and acceleration when first used."""

    def __init__(self, position, quaternion, twist=None, acceleration=None):
        self.position = _entries(position, 3, "position")
        self.quaternion = _entries(quaternion, 4, "quaternion")
        self._twist = None if twist is None else _entries(twist, 6, "twist")
        self._acceleration = None if acceleration is None else _entries(acceleration, 6,
                                                                        "acceleration")
        self._R = None
        self._ctx = None

    @classmethod
    def of(cls, ctx) -> "BaseState":
        """The base of ``ctx``'s robot (``ctx.base``: its pose now, its twist and
        acceleration on demand)."""
        q = ctx.base("q")
        state = cls(q[:3], q[3:7])
        state._ctx = ctx
        return state

    @property
    def twist(self):
        if self._twist is None and self._ctx is not None:
            self._twist = self._ctx.base("qd")
        return self._twist

    @property
    def acceleration(self):
        if self._acceleration is None and self._ctx is not None:
            self._acceleration = self._ctx.base("qdd")
        return self._acceleration

    @acceleration.setter
    def acceleration(self, value):
        self._acceleration = None if value is None else _entries(value, 6, "acceleration")

    @property
    def V(self):
        return self.twist[:3]

    @property
    def W(self):
        return self.twist[3:]

    def rotation(self, ctx):
        """wR0 of the quaternion (normalised), 3x3 rows (elements named ``RB{r}{c}``)."""
        if self._R is None:
            self._R = _quaternion_rotation(ctx, self.quaternion, "RB")
        return self._R

    def transform(self, ctx):
        """wT0: the world pose of frame 0 (3x4 rows)."""
        R = self.rotation(ctx)
        return [R[r] + [self.position[r]] for r in range(3)]


def _entries(value, size: int, name: str) -> list:
    """``value`` as a list of ``size`` context scalars, else an ArgumentError."""
    try:
        out = None if isinstance(value, str) else list(value)
    except TypeError:
        out = None
    if out is None or len(out) != size:
        raise ArgumentError(f"BaseState: {name} must hold {size} context scalars (numbers, "
                            f"symbols or arrays of a batch), got {type(value).__name__}")
    return out


def _quaternion_rotation(ctx, Q, name):
    """R(Q) = I + 2/|Q|^2 (Q0 hat(u) + hat(u)^2), u = (Q1, Q2, Q3), over context scalars."""
    q0, q1, q2, q3 = Q
    s = ctx.var(add(mul(q0, q0), mul(q1, q1), mul(q2, q2), mul(q3, q3)), f"{name}N")
    k = ctx.var(2 / s, f"{name}K")
    kq = [ctx.var(mul(k, x), f"{name}K{i}") for i, x in enumerate(Q)]

    def v(a, b, tag):
        return ctx.var(mul(kq[a], Q[b]), f"{name}{tag}")

    xx, yy, zz = v(1, 1, "XX"), v(2, 2, "YY"), v(3, 3, "ZZ")
    xy, xz, yz = v(1, 2, "XY"), v(1, 3, "XZ"), v(2, 3, "YZ")
    wx, wy, wz = v(0, 1, "WX"), v(0, 2, "WY"), v(0, 3, "WZ")
    R = [[1 - add(yy, zz), add(xy, -wz), add(xz, wy)],
         [add(xy, wz), 1 - add(xx, zz), add(yz, -wx)],
         [add(xz, -wy), add(yz, wx), 1 - add(xx, yy)]]
    return [[ctx.var(R[r][c], f"{name}{r + 1}{c + 1}") for c in range(3)] for r in range(3)]


def base_seeds(ctx) -> dict:
    """The seeds of a :class:`~robmod.symbolic.DualContext` for a mobile or floating base's
    pose in the tangent space (Pinocchio's derivatives: q (+) delta = q exp(delta), the base
    frame moved in itself): along TB1..TB3, dP = R e_k; along TB4..TB6, dQ = Q (0, e_k) / 2
    (R(Q) turns into R exp(hat(e_k)), |Q| unchanged); ``ctx``: a context with the base's
    values (its statements shared with the derivative's: a DualContext without seeds and the
    same memo)."""
    q = ctx.base("q")
    Q = q[3:7]
    R = _quaternion_rotation(ctx, Q, "RB")
    q0, q1, q2, q3 = Q
    dQ = [[-q1, q0, q3, -q2], [-q2, -q3, q0, q1], [-q3, q2, -q1, q0]]       # Q (0, e_k)
    pos = [{f"TB{k + 1}": R[r][k] for k in range(3)} for r in range(3)]
    quat = [{f"TB{k + 4}": mul(0.5, dQ[k][m]) for k in range(3)} for m in range(4)]
    return {("base", "q"): pos + quat}


def robot_inputs(robot, groups=("q",), base_groups=("q", "qd", "qdd")) -> dict:
    """The input groups of a customized model in the plain API's order: the base's symbols
    (a mobile or floating base; for the groups of ``base_groups``) then the joint variables
    (``robot.joints``); ``tau``: the joint torques ``GAM``."""
    from ..description.robot import joint_acceleration, joint_variable, joint_velocity

    fns = {"q": joint_variable, "qd": joint_velocity, "qdd": joint_acceleration,
           "tau": lambda j: sp.Symbol(f"GAM{j}")}
    moving = moving_base(robot)
    return {g: tuple(sp.Symbol(x) for x in (BASE_INPUTS.get(g, ()) if moving and g in
                                            base_groups else ()))
            + tuple(fns[g](j) for j in robot.joints) for g in groups}


# -- the configuration space ---------------------------------------------------------------

def neutral(robot) -> np.ndarray:
    """The neutral configuration: zero joints (and, for a floating robot, frame 0 at the
    world origin with the identity quaternion (1, 0, 0, 0))."""
    q = np.zeros(configuration_size(robot))
    if moving_base(robot):
        q[3] = 1.0
    return q


def _exp_se3(xi):
    """(dP, dQ): the translation and unit quaternion of exp of the twists xi (..., 6) = (v,
    w) (SE(3)'s exponential: dP = V(w) v, V = I + (1 - cos t)/t^2 hat(w) + (t - sin t)/t^3
    hat(w)^2, t = |w|; series near t = 0)."""
    v, w = xi[..., :3], xi[..., 3:]
    t2 = np.einsum("...i,...i->...", w, w)
    t = np.sqrt(t2)
    small = t < 1e-4
    ts = np.where(small, 1.0, t)
    a = np.where(small, 0.5 - t2 / 24 + t2 * t2 / 720, (1 - np.cos(ts)) / ts ** 2)
    b = np.where(small, 1 / 6 - t2 / 120 + t2 * t2 / 5040, (ts - np.sin(ts)) / ts ** 3)
    wxv = cross(w, v)
    dP = v + a[..., None] * wxv + b[..., None] * cross(w, wxv)
    half = np.where(small, 0.5 - t2 / 48 + t2 * t2 / 3840, np.sin(ts / 2) / ts)
    dQ = np.concatenate([np.cos(t / 2)[..., None], half[..., None] * w], axis=-1)
    return dP, dQ


def _rotate(Q, v):
    """R(Q) v for unit quaternions Q (..., 4) (scalar first) and vectors v (..., 3)."""
    u, w = Q[..., 1:], Q[..., :1]
    t = 2 * cross(u, v)
    return v + w * t + cross(u, t)


def _unit(Q):
    return Q / np.linalg.norm(Q, axis=-1, keepdims=True)


@keyword_options()
def integrate(robot, q, qd, *, dt=1.0) -> np.ndarray:
    """The configuration reached from q at the constant velocity qd after the time ``dt``
    (default 1: q "plus" qd).  Joints: q + qd dt; a floating base: the exponential of SE(3)
    of its twist (frame 0 turns and moves along a screw), the quaternion kept unit."""
    dt = finite_array("dt", dt, shape_text="a time step (a number or an array of the batch)")
    if not moving_base(robot_argument(robot)):
        q, qd = (joint_array(robot, k, v) for k, v in (("q", q), ("qd", qd)))
        return q + qd * dt[..., None]
    q, qd = robot_arrays(robot, q=q, qd=qd)
    return configuration_step(q, qd * dt[..., None])


def configuration_step(q, step) -> np.ndarray:
    """:func:`integrate` of a mobile or floating robot's checked arrays q (..., 7 + n) and the
    displacement ``step`` = qd dt (..., 6 + n) that broadcast (the simulations' stages)."""
    if q.ndim == 1 and step.ndim == 1:
        return _step_one(q, step)
    dP, dQ = _exp_se3(step[..., :BASE_V])
    Q = _unit(q[..., 3:7])
    P = q[..., :3] + _rotate(Q, dP)
    Qn = _unit(quaternion_product(Q, dQ))
    return np.concatenate([P, Qn, q[..., BASE_Q:] + step[..., BASE_V:]], axis=-1)


def _xw(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _step_one(q, step):
    """:func:`configuration_step` of one state (1-D arrays), in scalars: the same formulas as
    :func:`_exp_se3`, :func:`_rotate` and the quaternion's product (a state of a simulation
    with contacts, stepped a thousand times a second)."""
    v, w = step[:3].tolist(), step[3:6].tolist()
    t2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2]
    t = math.sqrt(t2)
    if t < 1e-4:
        a, b = 0.5 - t2 / 24 + t2 * t2 / 720, 1 / 6 - t2 / 120 + t2 * t2 / 5040
        half = 0.5 - t2 / 48 + t2 * t2 / 3840
    else:
        a, b, half = (1 - math.cos(t)) / t ** 2, (t - math.sin(t)) / t ** 3, math.sin(t / 2) / t
    wxv = _xw(w, v)
    wwv = _xw(w, wxv)
    dP = [v[i] + a * wxv[i] + b * wwv[i] for i in range(3)]
    c0, d = math.cos(t / 2), [half * x for x in w]
    Q = q[3:7].tolist()
    s = math.sqrt(Q[0] * Q[0] + Q[1] * Q[1] + Q[2] * Q[2] + Q[3] * Q[3])
    Q = [x / s for x in Q]
    u, w0 = Q[1:], Q[0]
    tt = [2 * x for x in _xw(u, dP)]
    ut = _xw(u, tt)
    P = [q[i] + (dP[i] + w0 * tt[i] + ut[i]) for i in range(3)]
    ud = _xw(u, d)
    Qn = [w0 * c0 - (u[0] * d[0] + u[1] * d[1] + u[2] * d[2])] + [
        w0 * d[i] + c0 * u[i] + ud[i] for i in range(3)]
    s = math.sqrt(sum(x * x for x in Qn))
    out = np.empty(q.shape[0])
    out[:3] = P
    out[3:7] = [x / s for x in Qn]
    out[BASE_Q:] = q[BASE_Q:] + step[BASE_V:]
    return out


def difference(robot, q_start, q_end) -> np.ndarray:
    """The velocity that goes from ``q_start`` to ``q_end`` in unit time: ``integrate(robot,
    q_start, difference(robot, q_start, q_end)) == q_end`` (the logarithm of SE(3) for a
    floating base, the shortest rotation: |angle| <= pi)."""
    if not moving_base(robot_argument(robot)):
        a, b = (joint_array(robot, k, v) for k, v in (("q_start", q_start), ("q_end", q_end)))
        return b - a
    a, b = robot_arrays(robot, q_start=q_start, q_end=q_end)
    Qa, Qb = _unit(a[..., 3:7]), _unit(b[..., 3:7])
    dQ = quaternion_multiply(quaternion_conjugate(Qa), Qb)
    dQ = np.where(dQ[..., :1] < 0, -dQ, dQ)
    s = np.linalg.norm(dQ[..., 1:], axis=-1)
    t = 2 * np.arctan2(s, dQ[..., 0])
    small = s < 1e-8
    w = np.where(small[..., None], 2 * dQ[..., 1:] / np.where(small, 1.0, dQ[..., 0])[..., None],
                 (t / np.where(small, 1.0, s))[..., None] * dQ[..., 1:])
    dP = _rotate(quaternion_conjugate(Qa), b[..., :3] - a[..., :3])
    # v = V(w)^-1 dP, V^-1 = I - hat(w)/2 + c hat(w)^2, c = (1 - t sin t / (2 (1 - cos t))) / t^2
    t2 = np.einsum("...i,...i->...", w, w)
    tt = np.sqrt(t2)
    tiny = tt < 1e-4
    ts = np.where(tiny, 1.0, tt)
    c = np.where(tiny, 1 / 12 + t2 / 720 + t2 * t2 / 30240,
                 (1 - ts * np.sin(ts) / (2 * (1 - np.cos(ts)))) / ts ** 2)
    wxp = np.cross(w, dP)
    v = dP - wxp / 2 + c[..., None] * np.cross(w, wxp)
    return np.concatenate([v, w, b[..., BASE_Q:] - a[..., BASE_Q:]], axis=-1)


def velocity_from_derivatives(q, q_dot, q_ddot):
    """(qd, qdd) of a floating robot from the time derivatives of its configuration q
    (..., 7 + n) (finite differences of a log, say): V0 = R^T dP/dt, W0 = 2 vec(Q* dQ/dt),
    VD0 = R^T d2P/dt2 - W0 x V0, WP0 = 2 vec(Q* d2Q/dt2) (Q unit; Q* its conjugate)."""
    q = finite_array("q", q, shape_text="a floating configuration (..., 7 + n)")
    if q.ndim == 0 or q.shape[-1] < BASE_Q:
        raise ArgumentError(f"argument q must be a floating configuration (..., 7 + n): the "
                            f"base position and quaternion first, got shape {q.shape}")
    q_dot, q_ddot = (finite_array(k, v, shape_text=f"the derivatives of q, shape {q.shape}")
                     for k, v in (("q_dot", q_dot), ("q_ddot", q_ddot)))
    if q_dot.shape[-1:] != q.shape[-1:] or q_ddot.shape[-1:] != q.shape[-1:]:
        raise ArgumentError(f"q_dot and q_ddot must have {q.shape[-1]} values each, as q; got "
                            f"shapes {q_dot.shape}, {q_ddot.shape}")
    if np.any(np.einsum("...i,...i->...", q[..., 3:7], q[..., 3:7]) < 1e-24):
        raise ArgumentError("argument q: the base quaternion (entries 4 to 7) is zero: a unit "
                            "quaternion is expected")
    Q = _unit(q[..., 3:7])
    Qc = quaternion_conjugate(Q)
    V = _rotate(Qc, q_dot[..., :3])
    W = 2 * quaternion_multiply(Qc, q_dot[..., 3:7])[..., 1:]
    VD = _rotate(Qc, q_ddot[..., :3]) - np.cross(W, V)
    WP = 2 * quaternion_multiply(Qc, q_ddot[..., 3:7])[..., 1:]
    return (np.concatenate([V, W, q_dot[..., BASE_Q:]], axis=-1),
            np.concatenate([VD, WP, q_ddot[..., BASE_Q:]], axis=-1))


__all__ = ["neutral", "integrate", "difference", "velocity_from_derivatives"]
