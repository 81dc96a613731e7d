"""The compiled dynamics of a robot on a mobile base for control and simulation: its joints
commanded, its base moving as it is given.

An arm on a vehicle, a ship or a moving platform: the motion of link 0 is an input of its
models (Khalil & Dombre §7.5: the base's velocity and acceleration start the Newton-Euler
recursions; docs/floating.md).  The state is the robot's, a floating robot's layout:
q = [base position, unit quaternion, joints] (7 + n) and qd = [base twist in frame 0, joint
rates] (6 + n); the torques are the n joints'.  The base's pose and twist in the state are its
given motion's; the joints' accelerations are the joint rows of the free-flyer's equations
M [a_b; qdd] + h = [f_b; tau] at the given base acceleration a_b (the direct model with
``base_acceleration``, :func:`~robmod.dynamics.ddm`): qdd = M_jj^-1 (tau - M_jb a_b - h_j).

The base's motion is a :class:`BaseMotion`, a function of time.  The models of a controller
take the base's acceleration at the time of the sample: :meth:`MobileDynamics.moving` gives
the view of the models at a given base acceleration (the simulation makes one per sample for
the controller's own copy), so that computed torque's Gamma = IDM(q, qd, [a_b; w]) compensates
the base's motion as (9.22) compensates the robot's own.  Without a base motion the models take
a_b = 0 (the base at a constant twist), as :func:`~robmod.dynamics.ddm` does.
"""
from __future__ import annotations

import numpy as np

from ..description.base import BASE_Q, BASE_V
from ..description.arguments import robot_argument
from ..description.robot import MOBILE_BASE
from ..dynamics.derivatives import DDMDerivatives, ddm_derivatives
from ..dynamics.newton_euler import idm_model
from ..errors import ArgumentError
from ..geometry.floating import configuration_step
from .base import Controller
from .floating_plant import FloatingDynamics
from .plant import MODELS, PLANT_KINDS, CheckedDDM, Dynamics
from .reference import time_function

#: the customized models of a mobile plant, as :data:`~robmod.control.plant.MODELS`: the
#: direct model with the base's acceleration given, the inverse models of the free-flyer (the
#: base's wrench, then the joint torques), the gravity torques at the base's orientation
MOBILE_MODELS = {**MODELS,
                 "grav": lambda robot: idm_model(robot, name="gravity_torques", velocity=False,
                                                 acceleration=False, friction=False)}

_FORM = ("a function t -> (pose (7: x, y, z, Q0..Q3 in the world), twist (6: V0, W0 in frame "
         "0), acceleration (6: d/dt of the twist)), or an object whose sample(t) gives them")


class BaseMotion:
    """The given motion of a mobile base: ``motion(t) -> (pose, twist, acceleration)``, each
    checked (7, 6 and 6 values, finite, a unit quaternion), in the robot's conventions
    (docs/floating.md): the pose [x, y, z, Q0..Q3] of frame 0 in the world, its twist [V0, W0]
    in frame 0 and the twist's time derivative [VD0, WP0] (Khalil's VP0 is VD0 + W0 x V0).

    ``source``: a function of t, or an object with ``sample(t)`` (as a reference); a
    :class:`BaseMotion` as it is.  :meth:`constant` is the base at a constant twist.
    """

    def __init__(self, source):
        if isinstance(source, BaseMotion):
            source = source.source
        self.source, self._fn = source, time_function(source)
        if self._fn is None:
            raise ArgumentError(f"base_motion: expected {_FORM}; got {type(source).__name__}"
                                " (a constant twist from a pose is BaseMotion.constant(pose, "
                                "twist))")
        self._last = {}

    @classmethod
    def constant(cls, pose, twist=np.zeros(BASE_V)) -> "BaseMotion":
        """The base at the constant twist ``twist`` (6: V0, W0 in frame 0) from ``pose`` (7)
        at t = 0: its pose at t is pose ⊕ t twist (the exponential of SE(3)), its
        acceleration zero."""
        pose, twist = (_checked(name, x, size) for name, x, size in
                       (("pose", pose, BASE_Q), ("twist", twist, BASE_V)))
        zero = np.zeros(np.shape(twist))

        def at(t):
            return configuration_step(pose, twist * t), twist, zero
        return cls(at)

    def __call__(self, t):
        """(pose (..., 7), twist (..., 6), acceleration (..., 6)) at the time t."""
        t = float(t)
        hit = self._last.get(t)
        if hit is not None:
            return hit
        try:
            out = self._fn(t)
            parts = (out.q, out.qd, out.qdd) if hasattr(out, "qdd") else tuple(out)
        except TypeError as e:
            raise ArgumentError(f"base_motion({t:g}): expected {_FORM}; calling it gave: {e}") \
                from None
        if len(parts) != 3:
            raise ArgumentError(f"base_motion({t:g}) gave {len(parts)} values: expected {_FORM}")
        pose, twist, acc = (_checked(f"base_motion({t:g})'s {name}", x, size) for name, x, size
                            in zip(("pose", "twist", "acceleration"), parts,
                                   (BASE_Q, BASE_V, BASE_V)))
        norm = np.linalg.norm(pose[..., 3:7], axis=-1)
        if np.any(np.abs(norm - 1.0) > 1e-6):
            raise ArgumentError(f"base_motion({t:g}): the pose's quaternion Q0..Q3 must be unit "
                                f"(norm {np.ravel(norm)[0]:.6g})")
        if len(self._last) > 8:
            self._last.clear()
        self._last[t] = out = (pose, twist, acc)
        return out

    def state(self, t, q, qd):
        """The state (q, qd) (..., 7 + n), (..., 6 + n) with the base's entries its motion's
        at t."""
        pose, twist, _ = self(t)
        return _with_base(q, pose), _with_base(qd, twist)

    def __repr__(self):
        return f"BaseMotion({getattr(self.source, '__name__', type(self.source).__name__)})"


def _checked(name, value, size):
    try:
        x = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"{name}: expected {size} numbers, got {value!r}") from None
    if x.shape[-1:] != (size,):
        raise ArgumentError(f"{name}: expected {size} values in the last dimension, got shape "
                            f"{x.shape}")
    if not np.all(np.isfinite(x)):
        raise ArgumentError(f"{name} has NaN or infinite values")
    return x


def _with_base(x, base):
    """x (..., b + n) with its first b entries replaced by ``base`` (..., b)."""
    b = base.shape[-1]
    shape = np.broadcast_shapes(x.shape[:-1], base.shape[:-1])
    return np.concatenate([np.broadcast_to(base, shape + (b,)),
                           np.broadcast_to(x[..., b:], shape + (x.shape[-1] - b,))], axis=-1)


class _Rows:
    """A compiled inverse model of the mobile robot at the base's acceleration: the joint
    torques of ``f(q, qd, [a_b; qdd])`` (its outputs after the base's wrench)."""

    def __init__(self, f, dyn):
        self.f, self.dyn = f, dyn

    def __call__(self, q, qd, qdd):
        return self.f(q, qd, self.dyn.accelerations(qdd))[..., BASE_V:]


class _MobileDDM:
    """The compiled direct model at the base's acceleration: ``(q, qd, tau) -> [a_b; qdd]``,
    or with the acceleration given, ``(q, qd, tau, a_b)``."""

    def __init__(self, checked, dyn):
        self.checked, self.dyn = checked, dyn

    def __call__(self, q, qd, tau, a0=None):
        a0 = self.dyn.base_acceleration if a0 is None else a0
        batch = np.shape(q)[:-1]
        a0 = np.zeros(batch + (BASE_V,)) if a0 is None else np.broadcast_to(
            np.asarray(a0, dtype=float), batch + (BASE_V,))
        return self.checked(q, qd, tau, a0)


class MobileDynamics(FloatingDynamics):
    """Compiled models of a numeric robot on a mobile base, the interface of
    :class:`~robmod.control.Dynamics`: ``n`` joints commanded, states of ``nq`` = 7 + n and
    ``nv`` = 6 + n values whose base entries are its given motion's.  ``idm(q, qd, qdd)`` (the
    joints' accelerations qdd (..., n)) and ``gravity(q)`` give joint torques at the base's
    acceleration :attr:`base_acceleration` (zero unless a view of :meth:`moving`);
    ``ddm(q, qd, tau[, a_b])`` the 6 + n accelerations, the base's given."""

    mobile = True
    recipes = MOBILE_MODELS
    #: the base's acceleration (6) the models take: None (zero) but in a view (:meth:`moving`)
    base_acceleration = None

    def __init__(self, robot, what: str = "robot"):
        robot = robot_argument(robot, what)
        if robot.base_kind != MOBILE_BASE:
            raise ArgumentError(f"MobileDynamics: {what} {robot.name!r} has a "
                                f"{robot.base_kind} base, not a mobile one (Dynamics.of(robot) "
                                "gives the plant of each kind)")
        Dynamics.__init__(self, robot, what)
        self.nq, self.nv = BASE_Q + self.n, BASE_V + self.n

    def moving(self, base_acceleration) -> "MobileDynamics":
        """A view of the same compiled models at the base's acceleration (6: VD0, WP0)."""
        view = _shallow(self)
        view.base_acceleration = np.asarray(base_acceleration, dtype=float)
        view._ddm = None
        return view

    def accelerations(self, qdd):
        """[a_b; qdd] (..., 6 + n): the base's acceleration before the joints' qdd (..., n)."""
        qdd = np.asarray(qdd, dtype=float)
        a0 = np.zeros(BASE_V) if self.base_acceleration is None else self.base_acceleration
        return _with_base(np.concatenate([np.zeros(qdd.shape[:-1] + (BASE_V,)), qdd], -1), a0)

    def _rest(self, v):
        return np.zeros(np.shape(v)[:-1] + (BASE_V + self.n,))

    def state_of_joints(self, q, qd):
        """The state at which the joints move as (q, qd) (..., n): the base at the origin, at
        rest (the joints' dynamics the linearization of a law takes)."""
        return self.initial_state(q, qd)

    def derivatives(self, q, qd, tau):
        """(dqdd_dq, dqdd_dqd, dqdd_dtau) (..., n, n) of the joints' accelerations with respect
        to their state, the base at the origin at rest with the acceleration
        :attr:`base_acceleration` (its motion given: no coupling through the base), from
        :func:`~robmod.dynamics.ddm_derivatives`."""
        q, qd = self.state_of_joints(q, qd)
        a0 = np.zeros(q.shape[:-1] + (BASE_V,)) if self.base_acceleration is None else \
            np.broadcast_to(self.base_acceleration, q.shape[:-1] + (BASE_V,))
        F = ddm_derivatives(self.robot, q, qd, np.asarray(tau, dtype=float),
                            base_acceleration=a0)
        j = slice(BASE_V, None)
        return DDMDerivatives(F.dqdd_dq[..., j, j], F.dqdd_dqd[..., j, j],
                              F.dqdd_dtau[..., j, j])

    @property
    def idm(self):
        return _Rows(self.compiled("idm"), self)

    @property
    def ddm(self):
        if self._ddm is None:
            self._ddm = _MobileDDM(CheckedDDM(self.compiled("ddm"), self.singular_error), self)
        return self._ddm

    @property
    def gravity(self):
        grav = self.compiled("grav")
        return lambda q: grav(q)[..., BASE_V:]

    def _nc(self):
        return _Rows(self.compiled("idm_nc"), self)


class MobileLaw(Controller):
    """A torque law on a robot on a mobile base: the law itself, its model of the robot (a
    :class:`MobileDynamics`) taking the base's acceleration of the given motion at each
    sample.  What :func:`~robmod.control.simulate` runs; the law's attributes are its."""

    def __init__(self, law, motion: BaseMotion):
        self.law, self.motion = law, motion
        self.n, self.dt = law.n, law.dt
        self.follows_reference = law.follows_reference
        model = getattr(law, "dyn", None)
        self._own = _shallow(law) if isinstance(model, MobileDynamics) else None

    def __getattr__(self, name):        # kp, kd, dyn, ...: the law's
        if name == "law":
            raise AttributeError(name)
        return getattr(self.law, name)

    def _at(self, t):
        if self._own is None:
            return self.law
        self._own.dyn = self.law.dyn.moving(self.motion(t)[2])
        return self._own

    def state_size(self):
        return self.law.state_size()

    def initial_state(self, batch=()):
        return self.law.initial_state(batch)

    def output(self, t, q, qd, ref, z):
        return self._at(t).output(t, q, qd, ref, z)

    def update(self, t, q, qd, ref, z):
        return self._at(t).update(t, q, qd, ref, z)


def _shallow(obj):
    """A shallow copy of obj sharing its attributes' objects (its compiled models: not
    ``copy.copy``, which pickles a plant as its robot)."""
    twin = object.__new__(type(obj))
    twin.__dict__.update(obj.__dict__)
    return twin


def refuse_base_motion(robot, base_motion, parameters, contacts):
    """simulate's ``base_motion=``: for a mobile base, in a run without parameter sets nor
    contacts; else refused by name."""
    if base_motion is None:
        return
    if getattr(robot, "base_kind", None) != MOBILE_BASE:
        raise ArgumentError("simulate: base_motion is the given motion of a mobile base; "
                            f"{getattr(robot, 'name', 'a scene')!r} has a "
                            f"{getattr(robot, 'base_kind', 'scene of robots, no')} base "
                            "(robot.with_base('mobile') makes its base's motion an input)")
    if parameters is not None or contacts is not None:
        raise ArgumentError("simulate: base_motion does not take parameters= nor contacts= yet "
                            "(a mobile base's run is one plant without contacts)")


def start_on_given_motion(base_motion, q, qd, full: bool):
    """(the :class:`BaseMotion`, q, qd) of a run on a mobile base from its initial state
    (``full``: x0 gave the base's entries): the given motion, the state's base entries its
    motion's at t = 0 (x0's must be those); without one, the base at the constant twist of
    the initial state."""
    if base_motion is None:
        motion = BaseMotion.constant(q[..., :BASE_Q], qd[..., :BASE_V])
    else:
        motion = BaseMotion(base_motion)
        pose, twist, _ = motion(0.0)
        gap = max(np.abs(q[..., :BASE_Q] - pose).max(initial=0.0),
                  np.abs(qd[..., :BASE_V] - twist).max(initial=0.0))
        if full and gap > 1e-9:
            raise ArgumentError(
                f"x0: its base's pose and twist are not base_motion's at t = 0 (they differ "
                f"by {gap:.3g}): give x0 as the joints' [q, qd] (2 n values), the base's state "
                "being its motion's")
    return (motion, *motion.state(0.0, q, qd))


PLANT_KINDS["mobile"] = MobileDynamics

__all__ = ["MobileDynamics", "BaseMotion"]
