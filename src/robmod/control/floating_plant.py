"""The compiled dynamics of a floating robot for control and simulation: its joints commanded,
its base free (no contact).

The state is the robot's: q = [base position, unit quaternion, joints] (7 + n) and qd = [base
twist in frame 0, joint rates] (6 + n) (:mod:`robmod.description.base`); the torques are the
n joints'.  The plant is the direct dynamic model of the free-floating robot (the
articulated-body recursion continued to link 0, :func:`~robmod.dynamics.ddm_model`).
A joint-space controller sees the joints: its model is the free-floating inverse dynamic model
(SYMORO's, Khalil, Gallot & Boyer 2007: the joint accelerations given, the base's
acceleration follows from its own equations, no wrench on it): Gamma = IDM_ff(q, qd, qdd)
makes the joints accelerate by qdd whatever the base does, which is computed torque's
(9.22) for a robot in flight or in space.  The gravity torques of a free-floating robot are
those that hold its joints at rest: in a uniform field the whole robot falls together, and
they are zero but for rounding.  Its joint torques are not linear in the inertial parameters
(the base's equations eliminate its acceleration through the inverse of its composite
inertia), so the adaptive law, which needs a linear parameterization, refuses it.
"""
from __future__ import annotations

import numpy as np

from ..description.base import BASE_Q, BASE_V
from ..description.arguments import robot_argument
from ..description.base import moving_base
from ..description.robot import MOBILE_BASE
from ..dynamics.derivatives import DDMDerivatives, ddm_derivatives, idm_derivatives
from ..dynamics.direct import ddm_model
from ..dynamics.inertia import inertia_matrix
from ..dynamics.newton_euler import idm_model
from ..errors import ArgumentError
from ..geometry.floating import neutral
from .plant import PLANT_KINDS, CheckedDDM, Dynamics

#: the customized models of a floating plant, as :data:`~robmod.control.plant.MODELS`: the
#: free-floating direct model and inverse models (joint accelerations in, base acceleration
#: and joint torques out)
FLOATING_MODELS = {
    "ddm": lambda robot: ddm_model(robot, method="fewest"),
    "idm": lambda robot: idm_model(robot, method="free_floating"),
    "idm_nc": lambda robot: idm_model(robot, method="free_floating", friction=False,
                                      name="free_floating_idm_no_coulomb"),
    "vel": lambda robot: idm_model(robot, method="free_floating", gravity=False,
                                   friction=False, rotor=False, wrench=False,
                                   name="free_floating_velocity_torques"),
    "grav": lambda robot: idm_model(robot, method="free_floating", velocity=False,
                                    acceleration=False, friction=False,
                                    name="free_floating_gravity_torques"),
}


def joint_inertia(robot, q):
    """The inertia matrix of the joints (..., n, n) at their positions q (..., n): A(q) of a
    fixed base, M_jj of a mobile one (its motion given); a floating robot's with its base
    free, the Schur complement M_jj - M_jb M_bb^-1 M_bj of its (6 + n)^2 matrix (the torques
    that accelerate the joints alone, the base following: Umetani & Yoshida 1989's
    generalized inertia)."""
    if not moving_base(robot):
        return inertia_matrix(robot, q)
    q = np.asarray(q, dtype=float)
    base = np.broadcast_to(neutral(robot)[:BASE_Q], q.shape[:-1] + (BASE_Q,))
    M = inertia_matrix(robot, np.concatenate([base, q], axis=-1))
    if robot.base_kind == MOBILE_BASE:
        return M[..., BASE_V:, BASE_V:]
    Mbb, Mbj = M[..., :BASE_V, :BASE_V], M[..., :BASE_V, BASE_V:]
    return M[..., BASE_V:, BASE_V:] - np.swapaxes(Mbj, -1, -2) @ np.linalg.solve(Mbb, Mbj)


class _JointRows:
    """A compiled free-floating inverse model returning the joint torques only (its outputs
    after the base's acceleration)."""

    def __init__(self, f):
        self.f = f

    def __call__(self, *args):
        return self.f(*args)[..., BASE_V:]


class FloatingDynamics(Dynamics):
    """Compiled free-floating models of a numeric floating robot, the interface of
    :class:`~robmod.control.Dynamics`: ``n`` joints commanded, states of ``nq`` = 7 + n
    and ``nv`` = 6 + n values.  ``idm(q, qd, qdd)`` (q (..., 7 + n), qd (..., 6 + n), the joint
    accelerations qdd (..., n)) and ``gravity(q)`` give joint torques; ``ddm(q, qd, tau)``
    the 6 + n accelerations of the base and the joints."""

    floating = True
    recipes = FLOATING_MODELS

    def __init__(self, robot, what: str = "robot"):
        if robot_argument(robot, what).base_kind == MOBILE_BASE:
            raise ArgumentError(
                f"FloatingDynamics: the base of the mobile robot {robot.name!r} moves as it is "
                "given, not free: its plant is MobileDynamics (Dynamics.of(robot) gives the "
                "plant of each kind)")
        super().__init__(robot, what)
        self.nq, self.nv = BASE_Q + self.n, BASE_V + self.n

    def state_of_joints(self, q, qd):
        """The state at which the joints move as (q, qd) (..., n) with no momentum: the base
        at the world's origin, its twist -M_bb^-1 M_bj qd (the base's rows of M v = 0)."""
        q0, _ = self.initial_state(q, qd)
        M = inertia_matrix(self.robot, q0)
        v = -np.linalg.solve(M[..., :BASE_V, :BASE_V],
                             (M[..., :BASE_V, BASE_V:] @ np.asarray(qd, float)[..., None]))
        return q0, np.concatenate([v[..., 0], np.broadcast_to(qd, v.shape[:-2] + (self.n,))],
                                  axis=-1)

    def derivatives(self, q, qd, tau):
        """(dqdd_dq, dqdd_dqd, dqdd_dtau) (..., n, n) of the joints' accelerations with respect
        to the joints' state, the base free with no momentum (its twist v_b = -M_bb^-1 M_bj qd
        follows the joints': :meth:`state_of_joints`): the joints' dynamics that a joint-space
        law can act on (the base's pose and momentum are not controllable by joint torques in
        flight; the joints' accelerations do not depend on the base's pose in a uniform
        field).  From the analytical derivatives on the tangent space
        (:func:`~robmod.dynamics.ddm_derivatives`) by the chain rule through v_b, whose
        derivative with respect to the joints is -M_bb^-1 d(M v)_b/dq (the momentum's
        derivative: :func:`~robmod.dynamics.idm_derivatives` of M(q) v)."""
        q, qd = self.state_of_joints(q, qd)
        tau = np.asarray(tau, dtype=float)
        F = ddm_derivatives(self.robot, q, qd, tau)
        M = inertia_matrix(self.robot, q)
        b, j = slice(0, BASE_V), slice(BASE_V, None)
        Mbb = M[..., b, b]
        P = -np.linalg.solve(Mbb, M[..., b, j])                   # dv_b / dqd_j
        H = idm_derivatives(self.robot, q, np.zeros_like(qd), qd, gravity=False,
                            friction=False, wrench=False).dtau_dq      # d(M v)/dq
        dvb_dq = -np.linalg.solve(Mbb, H[..., b, j])
        coupling = F.dqdd_dqd[..., j, b]
        return DDMDerivatives(F.dqdd_dq[..., j, j] + coupling @ dvb_dq,
                              F.dqdd_dqd[..., j, j] + coupling @ P, F.dqdd_dtau[..., j, j])

    def initial_state(self, q, qd):
        """The state whose joints are at (q, qd) (..., n): the base at the world's origin, at
        rest."""
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        batch = np.broadcast_shapes(q.shape[:-1], qd.shape[:-1])
        base = np.broadcast_to(neutral(self.robot)[:BASE_Q], batch + (BASE_Q,))
        return (np.concatenate([base, np.broadcast_to(q, batch + q.shape[-1:])], axis=-1),
                np.concatenate([np.zeros(batch + (BASE_V,)),
                                np.broadcast_to(qd, batch + qd.shape[-1:])], axis=-1))

    @property
    def idm(self):
        return _JointRows(self.compiled("idm"))

    @property
    def ddm(self):
        if self._ddm is None:
            self._ddm = CheckedDDM(self.compiled("ddm"), self.singular_error)
        return self._ddm

    @property
    def gravity(self):
        return _JointRows(self.compiled("grav"))

    def idm_compensated(self, q, qd, qdd, qd_des, *, coulomb="desired", width=1e-2):
        """As :meth:`Dynamics.idm_compensated`, with the free-floating IDM (qd_des: the
        joints' desired rates)."""
        if coulomb == "measured" or not self.has_coulomb:
            return self.idm(q, qd, qdd)
        joint_qd = qd[..., BASE_V:]
        v, w = (np.broadcast_to(qd_des, np.shape(joint_qd)), 0.0) if coulomb == "desired" \
            else (joint_qd, width)
        return self._nc()(q, qd, qdd) + self.fv * joint_qd + self.coulomb(v, w)

    def _nc(self):
        """The joint torques of the inverse model without Coulomb friction."""
        return _JointRows(self.compiled("idm_nc"))

    def _rest(self, v):
        """The accelerations of the velocity model at rest (the joints' only)."""
        return np.zeros(np.shape(v))

    def coriolis_times(self, q, qd, v):
        """C(q, qd) v of the joints by polarization of the free-floating velocity torques
        h(qd) = IDM_ff(q, qd, 0) without gravity nor friction (quadratic in the whole
        velocity, the base's twist included): v moves the joints only."""
        z = self._rest(v)
        h = self._velocity_model()
        s = np.concatenate([np.zeros(np.shape(v)[:-1] + (BASE_V,)), v], axis=-1)
        return 0.5 * (h(q, qd + s, z) - h(q, qd, z) - h(q, s, z))[..., BASE_V:]

    def singular_error(self, q):
        """The RobmodError naming the joint if the joints' inertia matrix is singular at q
        (..., 7 + n), else None."""
        q = np.asarray(q, dtype=float)
        return super().singular_error(q[..., BASE_Q:])


PLANT_KINDS["floating"] = FloatingDynamics

__all__ = ["FloatingDynamics"]
