"""The same robot in Pinocchio and in the Robotics Toolbox (oracles and benchmark peers)."""
from __future__ import annotations

import numpy as np

from ..description.robot import FIXED, PRISMATIC
from ..errors import RobmodError
from ..geometry.transforms import frame_transform, transform_to_numpy


def _khalil_to_com(link):
    """(mass, centre of mass, inertia about the centre of mass) from Khalil's parameters."""
    J = np.array(link.inertia_matrix().evalf(), dtype=float)
    ms = np.array([float(link.MX), float(link.MY), float(link.MZ)])
    m = float(link.M)
    if m == 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    c = ms / m
    JG = J - m * (c @ c * np.eye(3) - np.outer(c, c))
    return m, c, JG


def _depth_first(robot):
    """The frames of the tree in depth-first order (children in frame order)."""
    frames = robot.frames[: robot.n_links]
    out, todo = [], [f for f in reversed(frames) if f.ant == 0]
    while todo:
        f = todo.pop()
        out.append(f)
        todo += [g for g in reversed(frames) if g.ant == f.j]
    return out


class PinocchioRobot:
    """A Pinocchio model of a numeric robmod robot (serial or tree, no loops).

    ``joint_frames``: robmod frames that are Pinocchio joints, in Pinocchio's q order;
    ``pin_q(q)`` maps robmod's q (one entry per joint variable, fixed frames excluded) to
    Pinocchio's.
    ``frame_id[j]``: Pinocchio frame of robmod frame j (for any j, fixed ones included).
    """

    def __init__(self, robot, rotor: bool = True, floating: bool = False):
        import pinocchio as pin

        if robot.n_loops:
            raise RobmodError("Pinocchio peer: closed loops are not supported")
        self.pin = pin
        self.robot = robot
        self.floating = floating
        model = pin.Model()
        model.name = robot.name
        # Pinocchio's universe is frame 0: the world's gravity in frame 0, 0R_f g (Z = fT0)
        g = transform_to_numpy(robot.Z)[:3, :3].T @ np.array([float(x) for x in robot.gravity])
        model.gravity = pin.Motion(g, np.zeros(3))
        # where each robmod frame lives: (pinocchio joint id, placement in that joint frame)
        where = {0: (0, np.eye(4))}
        if floating:      # a free-flyer carries link 0 (robot.base_link)
            root = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
            where = {0: (root, np.eye(4))}
            m, c, JG = _khalil_to_com(robot.base_link)
            model.appendBodyToJoint(root, pin.Inertia(m, c, JG), pin.SE3.Identity())
        self.joint_frames = []
        self.frame_id = {}
        armature = []
        for f in _depth_first(robot):     # Pinocchio's subtrees take contiguous dofs
            parent_joint, parent_pl = where[f.ant]
            placement = parent_pl @ frame_transform(robot, f.j, 0.0)
            se3 = pin.SE3(placement[:3, :3].copy(), placement[:3, 3].copy())
            if f.sigma == FIXED:
                where[f.j] = (parent_joint, placement)
                body_joint, body_pl = parent_joint, se3
                fid = model.addFrame(pin.Frame(f"frame{f.j}", parent_joint, se3,
                                               pin.FrameType.OP_FRAME))
            else:
                jm = pin.JointModelPZ() if f.sigma == PRISMATIC else pin.JointModelRZ()
                jid = model.addJoint(parent_joint, jm, se3, f"joint{f.j}")
                where[f.j] = (jid, np.eye(4))
                self.joint_frames.append(f.j)
                body_joint, body_pl = jid, pin.SE3.Identity()
                fid = model.addFrame(pin.Frame(f"frame{f.j}", jid, pin.SE3.Identity(),
                                               pin.FrameType.OP_FRAME))
                link = robot.link(f.j)
                armature.append(float(link.IA) if rotor else 0.0)
            self.frame_id[f.j] = fid
            m, c, JG = _khalil_to_com(robot.link(f.j))
            inertia = pin.Inertia(m, c, JG)
            model.appendBodyToJoint(body_joint, inertia, body_pl)
        for t in robot.tools:
            joint, pl = where[t.frame]
            T = pl @ transform_to_numpy(t.T)
            fid = model.addFrame(pin.Frame(f"tool_{t.name}", joint,
                                           pin.SE3(T[:3, :3].copy(), T[:3, 3].copy()),
                                           pin.FrameType.OP_FRAME))
            self.frame_id[f"tool:{t.name}"] = fid
        if armature:
            model.armature = np.array(([0.0] * 6 if floating else []) + armature)
        self.model = model
        self.data = model.createData()
        self.index = np.array([robot.joint_index[j] for j in self.joint_frames], dtype=int)

    def pin_q(self, q):
        """Pinocchio's configuration of robmod's (a floating robot's: see
        :func:`to_pinocchio_configuration`)."""
        q = np.asarray(q, dtype=float)
        if self.floating:
            return np.concatenate([to_pinocchio_configuration(q[..., :7]),
                                   q[..., 7:][..., self.index]], axis=-1)
        return q[..., self.index]

    def pin_v(self, v):
        """Pinocchio's velocity (or acceleration, torque) of robmod's."""
        v = np.asarray(v, dtype=float)
        if self.floating:
            return np.concatenate([v[..., :6], v[..., 6:][..., self.index]], axis=-1)
        return v[..., self.index]

    def robmod_v(self, v):
        """robmod's velocity (or acceleration, torque, matrix column) of Pinocchio's."""
        v = np.asarray(v, dtype=float)
        out = np.empty_like(v)
        k0 = 6 if self.floating else 0
        out[..., :k0] = v[..., :k0]
        out[..., k0 + self.index] = v[..., k0:]
        return out

    def fk(self, q, j):
        """0T_j at robmod q (one configuration)."""
        pin = self.pin
        pin.forwardKinematics(self.model, self.data, self.pin_q(q))
        pin.updateFramePlacement(self.model, self.data, self.frame_id[j])
        return self.data.oMf[self.frame_id[j]].homogeneous


def to_pinocchio_configuration(q):
    """Pinocchio's free-flyer configuration [x, y, z, qx, qy, qz, qw, ...] of robmod's
    [x, y, z, Q0, Q1, Q2, Q3, ...] (the quaternion's scalar last; the velocities, base twist in
    the base frame then joints, are the same in both)."""
    q = np.asarray(q, dtype=float)
    return np.concatenate([q[..., :3], q[..., 4:7], q[..., 3:4], q[..., 7:]], axis=-1)


def from_pinocchio_configuration(q):
    """robmod's floating configuration (scalar-first quaternion) of Pinocchio's free-flyer
    one (the inverse of :func:`to_pinocchio_configuration`)."""
    q = np.asarray(q, dtype=float)
    return np.concatenate([q[..., :3], q[..., 6:7], q[..., 3:6], q[..., 7:]], axis=-1)


def example_robot_data(path: str = "") -> str:
    """The path of a file of the example-robot-data package (Pinocchio's robot files, a
    test dependency installed with ``pin``), e.g. ``"solo_description/robots/solo12.urdf"``;
    a RobmodError when the package is not installed."""
    import os

    try:
        import cmeel
    except ImportError:
        cmeel = None
    root = None if cmeel is None else os.path.join(
        os.path.dirname(os.path.dirname(cmeel.__file__)), "cmeel.prefix", "share",
        "example-robot-data", "robots")
    if root is None or not os.path.isdir(root):
        raise RobmodError("example-robot-data is not installed: pip install example-robot-data "
                          "(or the 'test' extra)")
    full = os.path.join(root, path)
    if not os.path.exists(full):
        raise RobmodError(f"example-robot-data has no file {path!r}")
    return full


def rtb_robot(robot):
    """A Robotics Toolbox DHRobot (modified DH) of a numeric serial robot without gamma/b."""
    import roboticstoolbox as rtb

    if robot.structure != "serial":
        raise RobmodError("Robotics Toolbox peer: serial robots only")
    links = []
    for f in robot.frames:
        if f.gamma != 0 or f.b != 0 or f.sigma == FIXED:
            raise RobmodError("Robotics Toolbox peer: gamma, b and fixed frames are not supported")
        kw = dict(a=float(f.d), alpha=float(f.alpha))
        if f.sigma == PRISMATIC:
            links.append(rtb.PrismaticMDH(theta=float(f.theta), offset=float(f.r), **kw))
        else:
            links.append(rtb.RevoluteMDH(d=float(f.r), offset=float(f.theta), **kw))
    return rtb.DHRobot(links, name=robot.name)


def toppra_parameterization(robot, W, lim, N, discretization="collocation"):
    """toppra (a test oracle) on the spline of the waypoints ``W`` (not-a-knot at s = k/m), the
    grid of N intervals, the limits ``lim`` (qd_max, qdd_max, tau_max) and the scheme robmod's
    ``topp`` uses; its torque constraint calls robmod's compiled IDM (friction off).
    Returns (duration, sd at the grid points)."""
    import logging

    import toppra
    import toppra.algorithm as ta
    import toppra.constraint as tc

    from ..dynamics.newton_euler import idm

    logging.getLogger("toppra").setLevel(logging.ERROR)
    scheme = {"collocation": tc.DiscretizationType.Collocation,
              "interpolation": tc.DiscretizationType.Interpolation}[discretization]
    num = robot.numeric()
    tau = lim["tau_max"]
    cons = [tc.JointVelocityConstraint(lim["qd_max"]),
            tc.JointAccelerationConstraint(lim["qdd_max"], discretization_scheme=scheme),
            tc.JointTorqueConstraint(lambda q, qd, qdd: idm(num, q, qd, qdd, friction=False),
                                     np.column_stack([-tau, tau]), np.zeros(len(tau)),
                                     discretization_scheme=scheme)]
    path = toppra.SplineInterpolator(np.linspace(0, 1, len(W)), W)
    alg = ta.TOPPRA(cons, path, gridpoints=np.linspace(0, 1, N + 1),
                    parametrizer="ParametrizeConstAccel")
    return alg.compute_trajectory(0, 0).duration, alg.problem_data.sd_vec


__all__ = ["PinocchioRobot", "rtb_robot", "toppra_parameterization",
           "to_pinocchio_configuration", "from_pinocchio_configuration", "example_robot_data"]
