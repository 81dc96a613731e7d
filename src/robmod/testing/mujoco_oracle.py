"""MuJoCo as an oracle of an MJCF file robmod reads: the same configuration in both engines,
MuJoCo's inverse dynamics (``mj_inverse``) and inertia matrix (``mj_fullM``) in robmod's
coordinates.

MuJoCo runs with its passive forces and constraints off (``opt.disableflags``: no damping,
springs or friction loss, no joint limits, no equality constraints), its armature (robmod's
rotor inertia IA) and gravity on: robmod's IDM with ``friction=False``.

Coordinates.  A hinge or slide joint's ``qpos`` is robmod's joint variable.  A mimic joint
(an equality ``joint`` coupling) is an independent joint in MuJoCo with its constraint off: it
is given m q_i + c, its velocity and acceleration m q̇_i, m q̈_i, and MuJoCo's forces are
projected on the independent joints (τ = Sᵀ f, A = Sᵀ M S, S = ∂qvel_MuJoCo/∂qd_robmod).
MuJoCo's free joint: ``qpos`` = [position, quaternion w x y z] of the body in the world (robmod's
[x, y, z, Q0..Q3]); ``qvel`` = [linear velocity of the body origin in **world** axes, angular
velocity in **body** axes], where robmod's qd = [V0, W0] has both in frame 0: v = R V0, ω = W0;
``qacc`` = d/dt qvel = [R (VD0 + W0 × V0), WP0]; the generalized force [force in world axes,
moment in body axes] is robmod's base wrench [R F0, M0].
"""
from __future__ import annotations

import numpy as np

from ..description.robot import FIXED


def _mujoco():
    import mujoco

    return mujoco


class MujocoOracle:
    """The MuJoCo model of an MJCF file and the robmod robot read from it (one tree of the
    file: MuJoCo's other joints are held at their reference positions)."""

    def __init__(self, path, robot):
        mj = _mujoco()
        self.mj, self.robot = mj, robot
        self.model = mj.MjModel.from_xml_path(str(path))
        for flag in ("PASSIVE", "SPRING", "DAMPER", "CONSTRAINT"):   # MuJoCo 3 and 4
            self.model.opt.disableflags |= int(getattr(mj.mjtDisableBit, "mjDSBL_" + flag, 0))
        self.data = mj.MjData(self.model)
        self.floating = robot.base_kind == "floating"
        m = self.model
        joints = [f.j for f in robot.frames[:robot.n_links] if f.sigma != FIXED]
        kinds = (int(mj.mjtJoint.mjJNT_HINGE), int(mj.mjtJoint.mjJNT_SLIDE))
        free = [k for k in range(m.njnt) if m.jnt_type[k] == int(mj.mjtJoint.mjJNT_FREE)]
        names = robot.frame_names
        mine = [k for k in range(m.njnt) if m.jnt_type[k] in kinds
                and names.get("joint:" + self.joint_name(k)) in joints]
        if len(mine) != len(joints):
            raise ValueError("the robot's joints are not MuJoCo's")
        self.frame_joint = {names["joint:" + self.joint_name(k)]: k for k in mine}
        self.free = None
        if self.floating:
            root = [k for k in free
                    if names.get("link:" + self.body_name(int(m.jnt_bodyid[k]))) == 0]
            if len(root) != 1:
                raise ValueError("no free joint of MuJoCo carries the robot's base")
            self.free = root[0]

    def body_name(self, b: int) -> str:
        """The name robmod gives MuJoCo's body b (an unnamed one: ``body<b>``)."""
        return self.model.body(b).name or f"body{b}"

    def joint_name(self, k: int) -> str:
        """The name robmod gives MuJoCo's joint k (an unnamed one: ``body/joint<i>``)."""
        m = self.model
        name = m.joint(k).name
        if name:
            return name
        b = int(m.jnt_bodyid[k])
        body = self.body_name(b)
        first = int(m.body_jntadr[b])
        return f"{body}/joint{k - first}"

    def _selection(self, R=None) -> np.ndarray:
        """S: MuJoCo's qvel from robmod's qd (and the constant parts of the mimic joints)."""
        r, m = self.robot, self.model
        base = 6 if self.floating else 0
        S = np.zeros((m.nv, base + r.n_q))
        if self.floating:
            d = int(m.jnt_dofadr[self.free])
            S[d:d + 3, :3] = R
            S[d + 3:d + 6, 3:6] = np.eye(3)
        for j, k in self.frame_joint.items():
            d = int(m.jnt_dofadr[k])
            if j in r.joint_index:
                S[d, base + r.joint_index[j]] = 1.0
            else:
                i, mult, _ = r.mimic[j]
                S[d, base + r.joint_index[i]] = mult
        return S

    def set_state(self, q, qd=None, qdd=None):
        """MuJoCo's qpos, qvel, qacc for robmod's q, qd, qdd; returns S."""
        m, d, r = self.model, self.data, self.robot
        q = np.asarray(q, dtype=float)
        base = 7 if self.floating else 0
        d.qpos[:] = m.qpos0
        R = None
        if self.floating:
            a = int(m.jnt_qposadr[self.free])
            d.qpos[a:a + 7] = q[:7]
            Q = q[3:7] / np.linalg.norm(q[3:7])
            from ..spatial import quaternion_to_matrix

            R = quaternion_to_matrix(Q)
        for j, k in self.frame_joint.items():
            a = int(m.jnt_qposadr[k])
            if j in r.joint_index:
                d.qpos[a] = q[base + r.joint_index[j]]
            else:
                i, mult, c = r.mimic[j]
                d.qpos[a] = mult * q[base + r.joint_index[i]] + c
        S = self._selection(R)
        qd = np.zeros(S.shape[1]) if qd is None else np.asarray(qd, dtype=float)
        qdd = np.zeros(S.shape[1]) if qdd is None else np.asarray(qdd, dtype=float)
        d.qvel[:] = S @ qd
        d.qacc[:] = S @ qdd
        if self.floating:
            a = int(m.jnt_dofadr[self.free])
            d.qacc[a:a + 3] += R @ np.cross(qd[3:6], qd[:3])
        return S

    def idm(self, q, qd, qdd) -> np.ndarray:
        """MuJoCo's inverse dynamics in robmod's coordinates (a floating base: the base wrench
        at O_0 in frame 0, then the joint torques)."""
        S = self.set_state(q, qd, qdd)
        self.mj.mj_inverse(self.model, self.data)
        return S.T @ self.data.qfrc_inverse

    def inertia_matrix(self, q) -> np.ndarray:
        """MuJoCo's inertia matrix (armature included) in robmod's coordinates."""
        S = self.set_state(q)
        self.mj.mj_forward(self.model, self.data)
        M = np.zeros((self.model.nv, self.model.nv))
        try:                                    # MuJoCo 4: (model, data, M)
            self.mj.mj_fullM(self.model, self.data, M)
        except TypeError:                       # MuJoCo 3: (model, M, data.qM)
            self.mj.mj_fullM(self.model, M, self.data.qM)
        return S.T @ M @ S


    def random_state(self, rng):
        """A random (q, qd, qdd) of the robot: joints within their limits (else in [-pi, pi]),
        a floating base anywhere with any orientation."""
        r = self.robot
        q = []
        for j in r.joints:
            lim = r.link(j).limits
            lo = -np.pi if lim.qmin is None else float(lim.qmin)
            hi = np.pi if lim.qmax is None else float(lim.qmax)
            q.append(rng.uniform(lo, hi))
        nv = len(q) + (6 if self.floating else 0)
        if self.floating:
            Q = rng.normal(size=4)
            q = list(rng.normal(size=3)) + list(Q / np.linalg.norm(Q)) + q
        return np.array(q), rng.normal(size=nv), rng.normal(size=nv)

    def agreement(self, rng, samples: int = 3) -> float:
        """The largest relative difference between robmod's IDM (``friction=False``) and
        inertia matrix and MuJoCo's, on ``samples`` random states (each relative to the
        largest entry of MuJoCo's result)."""
        from ..dynamics import idm, inertia_matrix

        worst = 0.0
        for _ in range(samples):
            q, qd, qdd = self.random_state(rng)
            tau = idm(self.robot, q, qd, qdd, friction=False)
            A = inertia_matrix(self.robot, q)
            for ours, theirs in ((tau, self.idm(q, qd, qdd)), (A, self.inertia_matrix(q))):
                scale = max(float(np.abs(theirs).max()), 1e-300)
                worst = max(worst, float(np.abs(ours - theirs).max()) / scale)
        return worst


__all__ = ["MujocoOracle"]
