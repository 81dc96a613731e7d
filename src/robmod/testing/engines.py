"""Other engines' reading of a URDF file, in robmod's coordinates (test oracles).

Drake (``pip install drake``) and pybullet (``pip install pybullet``) load the file themselves:
nothing of robmod's description enters them, so they check the reading as much as the models.
Each peer returns the inverse dynamics and the inertia matrix in robmod's order and
conventions for a robot robmod read from the same file:

* the joints: robmod's ``robot.joints`` (frame j is the URDF joint ``joint:NAME`` of
  ``robot.frame_names``); a mimic joint, which neither engine couples, is q_j = m q_i + c on
  the engine's side, and the engine's torques and matrix are reduced by E (E^T tau, E^T M E);
* a floating base (Drake only): robmod's q = [P, Q (scalar first), joints] and qd = [V0, W0,
  joints], the base's twist in frame 0, are Drake's free joint's [Q, P] and [w, v], both in
  the joint's parent frame F (the world, or the frame of a ``<joint type="floating">``): v_F =
  P v with P = [[0, R], [R, 0]] on the base's six (R = FR_0), so that tau = P^T tau_F,
  M = P^T M_F P, and Drake's acceleration is P [VD0 + W0 x V0; WP0];
* gravity: the world's, (0, 0, -9.81), both engines' default and robmod's for URDF;
* Drake's ``CalcInverseDynamics`` leaves gravity out: ``CalcGravityGeneralizedForces`` is
  subtracted; joint damping and friction are not in it (compare robmod with
  ``friction=False``);
* pybullet is loaded with ``URDF_USE_INERTIA_FROM_FILE`` (else it computes inertias from the
  collision shapes) and its links without ``<inertial>`` get 1 kg.

Where an engine changed an inertia (pybullet zeroes one it finds impossible and gives a link
without ``<inertial>`` 1 kg; Drake refuses what it cannot hold), :attr:`altered` names the
moving links whose mass or principal moments differ from the file's: a test skips such a
file with that reason.  The geometry (``<visual>``, ``<collision>``) is stripped from the copy
the engines load: their meshes are not needed, and ``package://`` paths would not resolve.
"""
from __future__ import annotations

import os
import re
import tempfile

import numpy as np

from ..description.base import BASE_Q
from ..errors import RobmodError
from ..spatial import matrix_to_quaternion, quaternion_to_matrix

GRAVITY = (0.0, 0.0, -9.81)
_GEOMETRY = re.compile(r"<(visual|collision)\b.*?</\1\s*>|<(visual|collision)\b[^>]*/>", re.S)


def stripped_copy(path: str, directory: str) -> str:
    """A copy of the URDF file ``path`` without its visual and collision elements."""
    with open(path, encoding="utf-8") as f:
        text = _GEOMETRY.sub("", f.read())
    out = os.path.join(directory, os.path.basename(path))
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return out


def urdf_joint_names(robot) -> dict:
    """{frame j: URDF joint name} of a robot read from URDF."""
    return {j: key[6:] for key, j in robot.frame_names.items() if key.startswith("joint:")}


def _urdf_tree(path):
    """(links {name: ULink}, joints [UJoint], the joints whose limit has lower > upper) of
    the file, read by robmod's XML reader."""
    from ..description.io_common import FileContext, read_text
    from ..description.urdf_xml import parse_xml, read_joint, read_link

    ctx = FileContext(path)
    root = parse_xml(read_text(path), ctx)
    links = {l.name: l for l in (read_link(e, ctx) for e in root.children if e.tag == "link")}
    joints = [read_joint(e, ctx) for e in root.children if e.tag == "joint"]
    reversed_limits = []
    for e in root.children:
        for lim in (c for c in e.children if e.tag == "joint" and c.tag == "limit"):
            try:
                if float(lim.attrs.get("lower", 0)) > float(lim.attrs.get("upper", 0)):
                    reversed_limits.append(e.attrs.get("name"))
            except ValueError:
                pass
    return links, joints, reversed_limits


def _moving_links(links, joints, floating):
    """The links that move with a joint (every link of a floating robot)."""
    parent = {jt.child: jt for jt in joints}
    out = set()
    for name in links:
        k, moves = name, floating
        while k in parent and not moves:
            moves = parent[k].type not in ("fixed",)
            k = parent[k].parent
        if moves:
            out.add(name)
    return out


def _file_inertia(link):
    """(mass, sorted principal moments about the centre of mass) of a URDF link."""
    if link.inertial is None:
        return 0.0, np.zeros(3)
    return link.inertial.mass, np.sort(np.linalg.eigvalsh(link.inertial.inertia))


def _differs(a, b, tol=1e-9):
    a, b = np.atleast_1d(np.asarray(a, float)), np.atleast_1d(np.asarray(b, float))
    return bool(np.abs(a - b).max() > tol * max(1.0, float(np.abs(b).max())))


class _Peer:
    """What both engines share: the joints' map E (mimic joints) and the base's map P."""

    def __init__(self, robot, names):
        if tuple(float(g) for g in robot.gravity) != GRAVITY:
            raise RobmodError(f"engine peer: robot {robot.name!r} must have URDF's gravity "
                              f"{GRAVITY}")
        self.robot, self.floating = robot, robot.base_kind == "floating"
        by_frame = urdf_joint_names(robot)
        self.names = list(names)           # the engine's movable joints, in its order
        self.E = np.zeros((len(names), robot.n_q))
        self.c = np.zeros(len(names))
        frame_of = {name: j for j, name in by_frame.items()}
        for k, name in enumerate(names):
            j = frame_of.get(name)
            if j is None:
                raise RobmodError(f"engine peer: robmod has no joint {name!r}")
            if j in robot.mimic:
                i, m, c = robot.mimic[j]
                self.E[k, robot.joint_index[i]], self.c[k] = m, c
            else:
                self.E[k, robot.joint_index[j]] = 1.0

    def _joints(self, q, qd, qdd):
        k = BASE_Q if self.floating else 0
        kv = 6 if self.floating else 0
        return (self.E @ q[k:] + self.c, self.E @ qd[kv:], self.E @ qdd[kv:])

    def _reduce(self, tau, M, P=None):
        """robmod's torques and matrix of the engine's (``P``: the base's 6x6 map)."""
        T = self.E if P is None else np.block([[P, np.zeros((6, self.E.shape[1]))],
                                               [np.zeros((self.E.shape[0], 6)), self.E]])
        return T.T @ tau, T.T @ M @ T


class DrakeRobot(_Peer):
    """Drake's MultibodyPlant of the URDF file ``path`` (continuous, gravity (0, 0, -9.81)),
    for ``robot``, robmod's reading of the same file (its base kind: fixed, or floating)."""

    def __init__(self, path, robot):
        import logging

        from pydrake.multibody.parsing import Parser
        from pydrake.multibody.plant import MultibodyPlant

        logging.getLogger("drake").setLevel(logging.ERROR)
        links, joints, reversed_limits = _urdf_tree(path)
        if reversed_limits:     # Drake aborts the process on them (a failed C++ assertion)
            raise RobmodError(f"Drake peer: joint {reversed_limits[0]!r} has lower > upper "
                              "limits (pybullet's 'no limit'), which Drake cannot load")
        children = {jt.child for jt in joints}
        root = next(n for n in links if n not in children)
        plant = MultibodyPlant(0.0)
        with tempfile.TemporaryDirectory() as d:
            Parser(plant).AddModels(stripped_copy(path, d))
        free = any(jt.type == "floating" for jt in joints)
        if robot.base_kind == "floating" and root == "world" and not free:
            raise RobmodError("Drake peer: Drake takes the root link 'world' as the world, "
                              "which no free base moves")
        if robot.base_kind == "fixed" and root != "world":
            plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(root))
        plant.Finalize()
        self.plant, self.context = plant, plant.CreateDefaultContext()
        self.base_joint = None
        if robot.base_kind == "floating":
            base = root if not free else next(jt.child for jt in joints if jt.type == "floating")
            body = plant.GetBodyByName(base)
            self.base_joint = next(plant.get_joint(i) for i in plant.GetJointIndices()
                                   if plant.get_joint(i).child_body().index() == body.index())
        movable = [plant.get_joint(i) for i in plant.GetJointIndices()
                   if plant.get_joint(i).num_velocities() == 1]
        movable.sort(key=lambda jt: jt.velocity_start())
        super().__init__(robot, [jt.name() for jt in movable])
        self.joints = movable
        self.altered = tuple(
            name for name in sorted(_moving_links(links, joints, self.floating))
            if plant.HasBodyNamed(name) and (
                _differs(plant.GetBodyByName(name).default_mass(), _file_inertia(links[name])[0])
                or _differs(_principal(plant.GetBodyByName(name)), _file_inertia(links[name])[1])))

    def _set(self, q, qd):
        plant, ctx = self.plant, self.context
        qj, vj, _ = self._joints(q, qd, np.zeros_like(qd))
        x = plant.GetPositions(ctx).copy()
        v = np.zeros(plant.num_velocities())
        for k, jt in enumerate(self.joints):
            x[jt.position_start()], v[jt.velocity_start()] = qj[k], vj[k]
        P = None
        if self.base_joint is not None:
            jt = self.base_joint
            X_WF = jt.frame_on_parent().CalcPoseInWorld(ctx).GetAsMatrix4()
            R_WB = quaternion_to_matrix(q[3:7])
            R = X_WF[:3, :3].T @ R_WB                                  # FR_0
            p = X_WF[:3, :3].T @ (q[:3] - X_WF[:3, 3])
            x[jt.position_start():jt.position_start() + 7] = np.r_[matrix_to_quaternion(R), p]
            P = np.block([[np.zeros((3, 3)), R], [R, np.zeros((3, 3))]])
            v[jt.velocity_start():jt.velocity_start() + 6] = P @ qd[:6]
        plant.SetPositions(ctx, x)
        plant.SetVelocities(ctx, v)
        return P

    def _accelerations(self, qd, qdd, P):
        _, _, aj = self._joints(np.zeros(BASE_Q + self.robot.n_q if self.floating else
                                         self.robot.n_q), qd, qdd)
        a = np.zeros(self.plant.num_velocities())
        for k, jt in enumerate(self.joints):
            a[jt.velocity_start()] = aj[k]
        if P is not None:
            s = self.base_joint.velocity_start()
            a[s:s + 6] = P @ np.r_[qdd[:3] + np.cross(qd[3:6], qd[:3]), qdd[3:6]]
        return a

    def _order(self):
        idx = [jt.velocity_start() for jt in self.joints]
        if self.base_joint is not None:
            s = self.base_joint.velocity_start()
            idx = list(range(s, s + 6)) + idx
        return np.array(idx, dtype=int)

    def idm_and_inertia(self, q, qd, qdd):
        """(robmod's IDM at q, qd, qdd; its inertia matrix at q), one configuration."""
        from pydrake.multibody.tree import MultibodyForces

        q, qd, qdd = (np.asarray(x, float) for x in (q, qd, qdd))
        P = self._set(q, qd)
        plant, ctx = self.plant, self.context
        a = self._accelerations(qd, qdd, P)
        tau = plant.CalcInverseDynamics(ctx, a, MultibodyForces(plant)) \
            - plant.CalcGravityGeneralizedForces(ctx)
        M = plant.CalcMassMatrix(ctx)
        o = self._order()
        if len(o) != plant.num_velocities():
            raise RobmodError("Drake peer: the plant has velocities robmod's robot does not")
        return self._reduce(tau[o], M[np.ix_(o, o)], P)


def _principal(body):
    """Sorted principal moments about the centre of mass of a Drake body."""
    M = body.default_spatial_inertia()
    m = M.get_mass()
    if m == 0:
        return np.zeros(3)
    I_o = M.CalcRotationalInertia().CopyToFullMatrix3()
    c = M.get_com()
    I_c = I_o - m * (float(c @ c) * np.eye(3) - np.outer(c, c))
    return np.sort(np.linalg.eigvalsh(I_c))


class BulletRobot(_Peer):
    """pybullet's multibody of the URDF file ``path`` (fixed base, inertias from the file,
    gravity (0, 0, -9.81)) for ``robot``, robmod's reading of the same file."""

    cid = None

    def __init__(self, path, robot):
        import pybullet

        if robot.base_kind != "fixed":
            raise RobmodError("pybullet peer: fixed bases only")
        self.pb = pb = pybullet
        self.cid = pb.connect(pb.DIRECT)
        if self.cid < 0:
            raise RobmodError("pybullet peer: no physics server (close the peers no longer used)")
        pb.setGravity(*GRAVITY, physicsClientId=self.cid)
        with tempfile.TemporaryDirectory() as d:
            self.body = pb.loadURDF(stripped_copy(path, d), useFixedBase=True,
                                    flags=pb.URDF_USE_INERTIA_FROM_FILE,
                                    physicsClientId=self.cid)
        info = [pb.getJointInfo(self.body, i, physicsClientId=self.cid)
                for i in range(pb.getNumJoints(self.body, physicsClientId=self.cid))]
        movable = [x for x in info if x[2] in (pb.JOINT_REVOLUTE, pb.JOINT_PRISMATIC)]
        super().__init__(robot, [x[1].decode() for x in movable])
        links, joints, _ = _urdf_tree(path)
        moving = _moving_links(links, joints, False)
        self.altered = []
        for x in info:
            name = x[12].decode()
            if name not in moving:
                continue
            dyn = pb.getDynamicsInfo(self.body, x[0], physicsClientId=self.cid)
            mass, moments = _file_inertia(links[name])
            if _differs(dyn[0], mass) or _differs(np.sort(dyn[2]), moments):
                self.altered.append(name)
        self.altered = tuple(self.altered)

    def close(self):
        """Let pybullet's physics server go (also when the peer is collected)."""
        if self.cid is not None and self.cid >= 0:
            self.pb.disconnect(physicsClientId=self.cid)
        self.cid = None

    __del__ = close

    def idm_and_inertia(self, q, qd, qdd):
        """(robmod's IDM at q, qd, qdd; its inertia matrix at q), one configuration."""
        qj, vj, aj = self._joints(*(np.asarray(x, float) for x in (q, qd, qdd)))
        if not self.names:
            return np.zeros(0), np.zeros((0, 0))
        pb, cid = self.pb, self.cid
        tau = np.array(pb.calculateInverseDynamics(self.body, list(qj), list(vj), list(aj),
                                                   physicsClientId=cid))
        M = np.array(pb.calculateMassMatrix(self.body, list(qj), physicsClientId=cid))
        return self._reduce(tau, M)


__all__ = ["DrakeRobot", "BulletRobot", "urdf_joint_names", "stripped_copy"]
