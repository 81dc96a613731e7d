"""Export of a numeric robot to MuJoCo's MJCF (for simulation and cross-checks).

Each link j becomes a body nested in the body of its antecedent a(j), placed by
a(j)T_j at q_j = 0 (Khalil-Kleinfinger: Rot(z, gamma) Trans(z, b) Rot(x, alpha) Trans(x, d)
Rot(z, theta) Trans(z, r)); since Rot(z) and Trans(z) commute, the joint then turns about
(revolute) or slides along (prismatic) the body's own z axis, as an MJCF ``hinge``/``slide``
joint with ``axis="0 0 1"``; fixed frames are bodies without a joint.  Inertial parameters:
mass M, centre of mass MS / M, inertia about the centre of mass
J_G = J_O - M (|c|^2 I - c c^T); the rotor inertia IA is the joint's ``armature`` and the
viscous friction FV its ``damping`` (Coulomb friction has no exact MJCF counterpart: refused
unless ``coulomb='ignore'``).  Gravity is the robot's, expressed in the base frame 0, which is
MuJoCo's world frame; contacts are disabled (no geometry is exported).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import RobmodError
from .robot import FIXED, PRISMATIC


def _f(x, what):
    try:
        v = float(x)
    except TypeError:
        raise RobmodError(f"MJCF export needs a numeric robot: {what} = {x} is symbolic "
                          "(use robot.numeric())") from None
    if not math.isfinite(v):
        raise RobmodError(f"MJCF export: {what} is not finite")
    return v


def _transform(frame):
    g, b, al, d, th, r = (_f(getattr(frame, k), f"{k}{frame.j}")
                          for k in ("gamma", "b", "alpha", "d", "theta", "r"))

    def rz(a):
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])

    def rx(a):
        c, s = math.cos(a), math.sin(a)
        return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])

    def tr(x, z):
        T = np.eye(4)
        T[0, 3], T[2, 3] = x, z
        return T

    return rz(g) @ tr(0, b) @ rx(al) @ tr(d, 0) @ rz(th) @ tr(0, r)


def _quat(R):
    """Unit quaternion (w, x, y, z) of a rotation matrix."""
    w = math.sqrt(max(0.0, 1 + R[0, 0] + R[1, 1] + R[2, 2])) / 2
    x = math.copysign(math.sqrt(max(0.0, 1 + R[0, 0] - R[1, 1] - R[2, 2])) / 2, R[2, 1] - R[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1 - R[0, 0] + R[1, 1] - R[2, 2])) / 2, R[0, 2] - R[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1 - R[0, 0] - R[1, 1] + R[2, 2])) / 2, R[1, 0] - R[0, 1])
    q = np.array([w, x, y, z])
    return q / np.linalg.norm(q)


def _nums(v):
    return " ".join(repr(float(x)) for x in v)


def to_mjcf(robot, *, timestep: float = 1e-4, integrator: str = "RK4",
            coulomb: str = "refuse") -> str:
    """The MJCF text of ``robot`` (serial or tree, numeric)."""
    if robot.n_loops:
        raise RobmodError("MJCF export of closed loops is not supported (MuJoCo would need "
                          "equality constraints for the cut joints)")
    bodies = {0: []}
    lines = {}
    for f in robot.frames[:robot.n_links]:
        j = f.j
        link = robot.link(j)
        T = _transform(f)
        m = _f(link.M, f"M{j}")
        ms = np.array([_f(link.MX, f"MX{j}"), _f(link.MY, f"MY{j}"), _f(link.MZ, f"MZ{j}")])
        J = np.array([[_f(x, f"inertia of link {j}") for x in row]
                      for row in link.inertia_matrix().tolist()])
        c = ms / m if m > 0 else np.zeros(3)
        JG = J - m * (c @ c * np.eye(3) - np.outer(c, c))
        if m <= 0:
            m, JG = 1e-9, np.eye(3) * 1e-12
        fc = _f(link.FC, f"FC{j}")
        if fc and coulomb == "refuse":
            raise RobmodError(f"link {j}: Coulomb friction FC{j} = {fc} has no exact MJCF "
                              "counterpart; pass coulomb='ignore' to drop it")
        body = [f'<body name="link{j}" pos="{_nums(T[:3, 3])}" quat="{_nums(_quat(T[:3, :3]))}">']
        if f.sigma != FIXED:
            kind = "slide" if f.sigma == PRISMATIC else "hinge"
            body.append(f'  <joint name="q{j}" type="{kind}" axis="0 0 1" '
                        f'armature="{_f(link.IA, f"IA{j}")!r}" damping="{_f(link.FV, f"FV{j}")!r}"/>')
        body.append(f'  <inertial pos="{_nums(c)}" mass="{m!r}" fullinertia="'
                    f'{_nums([JG[0, 0], JG[1, 1], JG[2, 2], JG[0, 1], JG[0, 2], JG[1, 2]])}"/>')
        lines[j] = body
        bodies.setdefault(f.ant, []).append(j)

    def emit(j, indent):
        out = ["  " * indent + s for s in lines[j]]
        for k in bodies.get(j, []):
            out += emit(k, indent + 1)
        out.append("  " * indent + "</body>")
        return out

    g = [_f(x, "gravity") for x in robot.gravity]
    text = [f'<mujoco model="{robot.name}">',
            '  <compiler angle="radian" autolimits="true"/>',
            f'  <option gravity="{_nums(g)}" timestep="{timestep!r}" integrator="{integrator}">',
            '    <flag contact="disable"/>',
            '  </option>',
            '  <worldbody>']
    for j in bodies[0]:
        text += emit(j, 2)
    text += ['  </worldbody>', '</mujoco>']
    return "\n".join(text) + "\n"


__all__ = ["to_mjcf"]
