"""Control in task space (Khalil & Dombre §9.3.3 and §9.4.3).

The task is the location of the terminal frame n (or of a frame j) in the base frame: position
and orientation.  The desired location comes from the joint reference through the DGM,
X^d = DGM(q^d), and its velocity and acceleration through the kinematic models,
Xd^d = J(q^d) qd^d, Xdd^d = J(q^d) qdd^d + Jdot qd(q^d, qd^d).  The error e_x = (P^d - P,
theta u) with R^d R^T = rot(u, theta) (the location error of the numerical IGM).

* PID in task space (9.17): Gamma = J^T [Kp e_x + Kd (Xd^d - J qd) + KI integral(e_x)]
  (+ Q(q) with ``gravity=True``);
* computed torque in task space, resolved acceleration (9.33)-(9.35):
  w = Xdd^d + Kd e_x' + Kp e_x, Gamma = IDM(q, qd, J^-1 (w - Jdot qd)): the task error obeys
  e_x'' + Kd e_x' + Kp e_x = 0 (9.36).  For a redundant robot (or near a singularity) J^-1 is a
  damped least-squares inverse and the null-space motion is damped: qdd += (I - J+ J)(-Kn qd).
"""
from __future__ import annotations


import numpy as np

from ..description.arguments import keyword_options
from ..description.base import moving_base
from ..errors import ArgumentError, RobmodError
from ..geometry.direct import dgm_model
from ..spatial.screws import frame_error
from ..kinematics.jacobians import jacobian_model
from ..kinematics.second_order import jdot_qdot_model
from .base import DEFAULT_DT, Controller, gain, sample_time
from .computed_torque import computed_torque_gains
from .plant import Dynamics, CompiledFunction, coulomb_option


class _Kinematics:
    """Compiled DGM (3 x 4), Jacobian 0J_j (6 x n) and Jdot qd of frame j (or of a tool)."""

    def __init__(self, robot, j=None, tool=None, cls="task-space control"):
        if moving_base(robot):
            raise ArgumentError(
                f"{cls} needs a fixed base: its task is the frame's location in the base "
                f"frame, whose own motion the {robot.base_kind} robot {robot.name!r} does not "
                "command (a mobile base's task in the world is not supported yet); control "
                "its joints (ComputedTorque, PID, ...)")
        if robot.n_loops:
            raise RobmodError(f"task-space control of a closed-loop robot ({robot.name!r}) is "
                              "not supported yet: use joint-space control of its actuated "
                              "joints")
        self.dgm = CompiledFunction(dgm_model(robot, j=j, tool=tool))
        self.jac = CompiledFunction(jacobian_model(robot, j=j, tool=tool))
        self.jdqd = CompiledFunction(jdot_qdot_model(robot, j=j, tool=tool))

    def error(self, q, qd, ref):
        """(e_x, e_x', J(q), Xdd^d) at the measured and desired joint states."""
        T, Td = self.dgm(q), self.dgm(np.broadcast_to(ref.q, np.shape(q)))
        J, Jd = self.jac(q), self.jac(np.broadcast_to(ref.q, np.shape(q)))
        ex = frame_error(_homogeneous(T), _homogeneous(Td))
        exd = np.einsum("...ij,...j->...i", Jd, ref.qd) - np.einsum("...ij,...j->...i", J, qd)
        xdd = np.einsum("...ij,...j->...i", Jd, ref.qdd) + self.jdqd(
            *np.broadcast_arrays(ref.q, ref.qd))
        return ex, exd, J, xdd


def _homogeneous(T):
    last = np.broadcast_to([0.0, 0.0, 0.0, 1.0], T.shape[:-2] + (1, 4))
    return np.concatenate([T, last], axis=-2)


def _task_gain(value, name, allow_zero=True):
    return gain(value, 6, name, allow_zero=allow_zero)


class TaskPID(Controller):
    """PID in task space (9.17) on the origin and orientation of frame ``j`` or of ``tool``
    (default: the terminal frame)."""

    @keyword_options()
    def __init__(self, robot, kp, kd, ki=0.0, *, j=None, tool=None, gravity=False,
                 dt=DEFAULT_DT):
        self.dyn = Dynamics.of(robot, "controller model")
        self.n = self.dyn.n
        self.kin = _Kinematics(self.dyn.robot, j, tool, cls="TaskPID")
        self.kp, self.kd = _task_gain(kp, "kp"), _task_gain(kd, "kd")
        self.ki = _task_gain(ki, "ki")
        self.gravity, self.dt = gravity, sample_time(dt)

    def state_size(self):
        return 6

    def output(self, t, q, qd, ref, z):
        ex, exd, J, _ = self.kin.error(q, qd, ref)
        f = self.kp * ex + self.kd * exd + self.ki * z
        tau = np.einsum("...ji,...j->...i", J, f)
        return tau + self.dyn.gravity(q) if self.gravity else tau

    def update(self, t, q, qd, ref, z):
        return self.kin.error(q, qd, ref)[0]


class TaskComputedTorque(Controller):
    """Resolved-acceleration computed torque (9.33)-(9.36) on frame ``j`` or ``tool``
    (default: the terminal frame).

    Gains (6 values or scalars) as ``kp``, ``kd`` or ``omega``, ``xi`` (9.26); ``damping``:
    the damping factor of the least-squares inverse (0: exact inverse of a square J);
    ``null_damping``: Kn of the null-space motion of a redundant robot.  ``coulomb``,
    ``coulomb_width``: the Coulomb friction compensation, as :class:`~robmod.control.
    ComputedTorque` (default: at the desired velocity when dt > 0).
    """

    @keyword_options()
    def __init__(self, robot, kp=None, kd=None, *, omega=None, xi=1.0, j=None, tool=None,
                 damping=0.0, null_damping=1.0, dt=DEFAULT_DT, coulomb=None,
                 coulomb_width=1e-2):
        self.dyn = Dynamics.of(robot, "controller model")
        self.n = self.dyn.n
        self.kin = _Kinematics(self.dyn.robot, j, tool, cls="TaskComputedTorque")
        if omega is not None:
            kp, kd = computed_torque_gains(omega, xi=xi, n=6)
        self.kp, self.kd = _task_gain(kp, "kp"), _task_gain(kd, "kd")
        self.damping = float(damping)
        self.kn = float(null_damping)
        self.dt = sample_time(dt)
        self.coulomb, self.coulomb_width = coulomb_option(coulomb, coulomb_width, self.dt)

    def output(self, t, q, qd, ref, z):
        ex, exd, J, xdd = self.kin.error(q, qd, ref)
        w = xdd + self.kd * exd + self.kp * ex
        b = w - self.kin.jdqd(q, qd)
        n = self.n
        if n == 6 and self.damping == 0.0:
            qdd = np.linalg.solve(J, b[..., None])[..., 0]
        else:
            Jt = np.swapaxes(J, -1, -2)
            JJt = J @ Jt + self.damping ** 2 * np.eye(6)
            Jp = Jt @ np.linalg.pinv(JJt)
            qdd = np.einsum("...ij,...j->...i", Jp, b)
            if n > 6:
                N = np.eye(n) - Jp @ J
                qdd = qdd - self.kn * np.einsum("...ij,...j->...i", N, qd)
        return self.dyn.idm_compensated(q, qd, qdd, ref.qd, coulomb=self.coulomb,
                                        width=self.coulomb_width)


__all__ = ["TaskPID", "TaskComputedTorque"]
