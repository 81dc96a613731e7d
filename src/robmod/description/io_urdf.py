"""URDF (ROS Unified Robot Description Format) import and export.

Reading (URDF -> Khalil-Kleinfinger)
------------------------------------
* Every URDF joint becomes one KK frame j (revolute / continuous: sigma = 0,
  prismatic: sigma = 1, fixed: sigma = 2) and its child link becomes KK link j.
  ``floating`` and ``planar`` joints and ``<mimic>`` tags are refused.
* Frame 0 is the frame of the root link.  A root link named ``world`` whose
  only child joint is fixed is absorbed into the base matrix Z (frame 0 is then
  that child link).  The inertia of the root link (fixed to the ground) is not
  used.
* Frames are numbered so that a(j) < j, keeping the file order of the joints
  as far as possible (a joint gets the next number as soon as its parent link
  is numbered; among the candidates the first in the file wins).  A file
  written by :func:`dumps_urdf` thus keeps its frame numbers.
* A leaf link without ``<inertial>`` reached by a fixed joint is a tool frame
  (:class:`~robmod.description.robot.Tool`, named after the link), not a frame.
* The URDF joint variable is the KK joint variable (same value, same sign):
  z_j points along the URDF ``axis`` (normalised); at q = 0 both models have
  the same pose.
* ``mdh=True`` (default) re-places the frames canonically (modified DH): z_j
  on the joint axis; x_j along the common normal from z_j to the axis of the
  first movable child joint k (from z_j to z_k; for intersecting axes x_j =
  +-z_j x z_k, the sign closest to the URDF link's x axis; for parallel axes the
  normal through the URDF joint origin; for coincident axes the URDF link's x
  axis is kept); O_j at the foot of that normal on z_j.  Then gamma_k = b_k = 0.
  A URDF link frame that already satisfies these conditions (for any movable
  child) is kept as it is: this makes ``loads_urdf(dumps_urdf(robot))`` give
  the same transforms for MDH robots.  Leaf frames keep the URDF joint frame,
  turned by the smallest rotation that brings z onto the axis.  Fixed frames
  keep the URDF link frame.  The axis of a prismatic joint is taken through
  the URDF joint origin.  Axes closer than :data:`PARALLEL_TOL` (radians) to
  parallel are treated as parallel.  ``mdh=False`` keeps every URDF joint
  frame (only turned so that z is the axis).
* Inertial data are converted to Khalil's parameters of frame j (inertia
  about O_j in frame j, first moments M * centre of mass, mass);
  ``<limit lower upper velocity effort>`` give qmin, qmax (not for continuous
  joints; ignored when lower == upper), qdmax, taumax (0: unknown);
  ``<dynamics damping friction>`` give FV and FC.  Other link parameters are 0.
* URDF has no gravity: the robot gets gravity = (0, 0, -9.81) in frame 0.

Writing (KK -> URDF)
--------------------
:func:`dumps_urdf` writes link ``link{j}`` for KK link j (``link0``: the base)
and joint ``joint{j}`` for frame j, with origin a(j)T_j at q = 0 and axis
``0 0 1``.  A base matrix Z other than the identity gives a ``world`` link and
a fixed joint; each tool gives a fixed joint and a massless link.  Values
that URDF cannot hold (rotor inertia IA, Stribeck friction, stiffness,
external wrench, passive joints, gravity) are dropped and listed in a comment.
The robot must be numeric and have no closed loop.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat
from xml.sax.saxutils import quoteattr

import numpy as np
import sympy as sp

from ..errors import FileFormatError, Location
from .expr import as_expr
from .robot import (FIXED, PRISMATIC, REVOLUTE, JointLimits, Link, Robot, Tool, make_robot)
from .validate import validate

#: gravity given to imported robots (URDF has none), m/s^2 in frame 0
GRAVITY = (0, 0, -9.81)
#: joint axes whose angle (radians) is below this are treated as parallel
PARALLEL_TOL = 1e-6
#: tolerance of the "URDF frame is already a MDH frame" test (radians, and metres per metre)
KEEP_TOL = 1e-9
#: values closer than this to 0 (lengths) or to a multiple of pi/2 (angles) are made exact
SNAP_TOL = 1e-13
#: bound written for a missing position limit of a prismatic or revolute joint
UNLIMITED = 1e9

_MOVABLE = {"revolute": REVOLUTE, "continuous": REVOLUTE, "prismatic": PRISMATIC}
_UNSUPPORTED = ("floating", "planar")
_FLOAT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


# ============================================================================ geometry
def rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def matrix_from_rpy(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """URDF's rotation: R = Rot(z, yaw) Rot(y, pitch) Rot(x, roll)."""
    return rot_z(yaw) @ rot_y(pitch) @ rot_x(roll)


def rpy_from_matrix(R) -> tuple[float, float, float]:
    """(roll, pitch, yaw) with ``matrix_from_rpy(roll, pitch, yaw) == R``, pitch in [-pi/2, pi/2].

    Robust at and near the gimbal lock (pitch = +-pi/2): yaw is taken first from
    the first column, then pitch and roll from ``Rot(z, -yaw) R`` so that the
    errors of one angle are absorbed by the others.  At the exact lock (first
    column along +-z) roll = 0.
    """
    R = np.asarray(R, dtype=float)
    if math.hypot(R[0, 0], R[1, 0]) > 1e-300:
        yaw = math.atan2(R[1, 0], R[0, 0])
        M = rot_z(-yaw) @ R
        pitch = math.atan2(-M[2, 0], M[0, 0])
        roll = math.atan2(-M[1, 2], M[1, 1])
    else:
        pitch = math.copysign(math.pi / 2, -R[2, 0])
        roll = 0.0
        # R = Rz(yaw) Ry(+-pi/2): second column = (-sin yaw, cos yaw, 0)
        yaw = math.atan2(-R[0, 1], R[1, 1])
    return roll, pitch, yaw


def homogeneous(R, p) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def inverse(T) -> np.ndarray:
    R, p = T[:3, :3], T[:3, 3]
    return homogeneous(R.T, -R.T @ p)


def _kk(gamma, b, alpha, d, theta, r) -> np.ndarray:
    T = homogeneous(rot_z(gamma), [0.0, 0.0, b])
    T = T @ homogeneous(rot_x(alpha), [d, 0.0, 0.0])
    return T @ homogeneous(rot_z(theta), [0.0, 0.0, r])


def _half_turn(angle: float, length: float) -> tuple[float, float]:
    """Bring an angle into (-pi/2, pi/2] by negating the length that goes with it."""
    if angle > math.pi / 2:
        return angle - math.pi, -length
    if angle <= -math.pi / 2:
        return angle + math.pi, -length
    return angle, length


def kk_parameters_from_transform(T, tol: float = SNAP_TOL) -> tuple:
    """The Khalil-Kleinfinger parameters (gamma, b, alpha, d, theta, r) of a rigid transform.

    ``T = Rot(z,gamma) Trans(z,b) Rot(x,alpha) Trans(x,d) Rot(z,theta) Trans(z,r)``
    (4x4, floats).  gamma is chosen in (-pi/2, pi/2] (alpha may then be
    negative).  When z and the transformed z are parallel (|sin alpha| <= tol,
    alpha = 0 or pi), gamma is taken from the position so that the offset lies
    along x: d is the distance between the two z axes, b = 0 and r is the
    offset along z; coincident axes give gamma = d = 0.
    """
    T = np.asarray(T, dtype=float)
    R, P = T[:3, :3], T[:3, 3]
    sin_alpha = math.hypot(R[0, 2], R[1, 2])
    if sin_alpha > tol:
        alpha = math.atan2(sin_alpha, R[2, 2])
        gamma = math.atan2(R[0, 2], -R[1, 2])
        gamma, alpha = _half_turn(gamma, alpha)
        Ra = rot_z(gamma) @ rot_x(alpha)
        v = rot_z(-gamma) @ P  # = (d, -sin(alpha) r, b + cos(alpha) r)
        d = v[0]
        r = -v[1] / math.sin(alpha)
        b = v[2] - math.cos(alpha) * r
    else:
        alpha = 0.0 if R[2, 2] > 0 else math.pi
        if math.hypot(P[0], P[1]) > tol:
            gamma, d = _half_turn(math.atan2(P[1], P[0]), math.hypot(P[0], P[1]))
        else:
            gamma, d = 0.0, P[0]
        Ra = rot_z(gamma) @ rot_x(alpha)
        b = 0.0
        r = P[2] * (1.0 if alpha == 0.0 else -1.0)
    M = Ra.T @ R  # = Rot(z, theta)
    theta = math.atan2(M[1, 0], M[0, 0])
    return gamma, b, alpha, d, theta, r


def _min_rotation_to(axis) -> np.ndarray:
    """Smallest rotation bringing z onto ``axis`` (unit); Rot(x, pi) for -z."""
    a = np.asarray(axis, dtype=float)
    v = np.array([-a[1], a[0], 0.0])  # z x a
    s2 = float(v @ v)
    if s2 == 0.0:
        return np.eye(3) if a[2] > 0 else np.diag([1.0, -1.0, -1.0])
    K = np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    return np.eye(3) + K + K @ K * ((1.0 - a[2]) / s2)


def _frame_from_x(axis, x, origin) -> np.ndarray:
    x = x - (x @ axis) * axis
    x = x / np.linalg.norm(x)
    return homogeneous(np.column_stack([x, np.cross(axis, x), axis]), origin)


def _common_normal(a, p, u):
    """(c = a x u, |c|, s): s = position on line (0, a) of the foot of the common normal."""
    c = np.cross(a, u)
    nc = float(np.linalg.norm(c))
    if nc < PARALLEL_TOL:
        return c, nc, None
    w = -p
    bb = float(a @ u)
    s = (bb * float(u @ w) - float(a @ w)) / (1.0 - bb * bb)
    return c, nc, s


def _is_mdh(x0, a, p, u) -> bool:
    """Does the frame (origin 0, x = x0, z = a) satisfy MDH w.r.t. the axis (p, u)?

    x0 is perpendicular to a; MDH also wants x0 perpendicular to u and the x
    line meeting the line (p, u): then x0 is the common normal and 0 its foot
    (or, for parallel axes, x0 points towards the other axis; coincident axes
    accept any x0).
    """
    scale = max(1.0, float(np.linalg.norm(p)))
    return abs(float(x0 @ u)) <= KEEP_TOL \
        and abs(float(p @ np.cross(x0, u))) <= KEEP_TOL * scale


def mdh_frame(axis, children) -> np.ndarray:
    """Pose, in the URDF joint/link frame, of the MDH frame of a joint of axis ``axis``.

    ``axis``: unit axis through the origin; ``children``: (point, unit direction)
    of the axes of the movable child joints, in file order.
    """
    a = np.asarray(axis, dtype=float)
    R0 = _min_rotation_to(a)
    x0 = R0[:, 0]
    kept = homogeneous(R0, np.zeros(3))
    if not children:
        return kept
    for p, u in children:
        if _is_mdh(x0, a, p, u):
            return kept
    p, u = children[0]
    scale = max(1.0, float(np.linalg.norm(p)))
    c, nc, s = _common_normal(a, p, u)
    if s is None:
        perp = p - (p @ a) * a
        if np.linalg.norm(perp) <= KEEP_TOL * scale:  # coincident axes
            return kept
        return _frame_from_x(a, perp, np.zeros(3))
    foot = s * a
    t = float(u @ (foot - p))
    gap = p + t * u - foot
    x = c / nc
    if np.linalg.norm(gap) > KEEP_TOL * scale:
        if x @ gap < 0:
            x = -x
    elif x @ x0 < 0:
        x = -x
    return _frame_from_x(a, x, foot)


# ============================================================================ XML
@dataclass
class _Element:
    tag: str
    attrs: dict
    line: int
    children: list = field(default_factory=list)


class _Ctx:
    def __init__(self, filename: str):
        self.file = filename

    def loc(self, line=None, field=None, frame=None):
        return Location(file=self.file, line=line, frame=frame, field=field)

    def error(self, msg, line=None, field=None):
        return FileFormatError(msg, self.loc(line, field))


class _Refused(Exception):
    def __init__(self, what, line):
        self.what, self.line = what, line


def _parse_xml(text: str, ctx: _Ctx) -> _Element:
    for pattern in ("<!DOCTYPE", "<!ENTITY"):
        i = text.find(pattern)
        if i >= 0:
            raise ctx.error(f"{pattern[2:]} declarations are not allowed in a URDF file "
                            "(refused: entity expansion can exhaust memory)",
                            text.count("\n", 0, i) + 1, pattern[2:])
    parser = expat.ParserCreate()
    stack: list[_Element] = []
    roots: list[_Element] = []

    def start(tag, attrs):
        el = _Element(tag, attrs, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(el)
        stack.append(el)

    def end(tag):
        stack.pop()

    def refuse(what):
        def handler(*args):
            raise _Refused(what, parser.CurrentLineNumber)
        return handler

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = refuse("DOCTYPE")
    parser.EntityDeclHandler = refuse("ENTITY")
    try:
        parser.Parse(text, True)
    except expat.ExpatError as e:
        raise ctx.error(f"XML syntax error: {expat.ErrorString(e.code)} (column {e.offset + 1})",
                        e.lineno) from None
    except _Refused as e:
        raise ctx.error(f"{e.what} declarations are not allowed in a URDF file", e.line,
                        e.what) from None
    return roots[0]


def _attr(el: _Element, name: str, ctx: _Ctx, what: str) -> str:
    value = el.attrs.get(name)
    if value is None:
        raise ctx.error(f"{what}: <{el.tag}> needs the attribute {name!r}", el.line,
                        f"{el.tag}.{name}")
    return value


def _floats(el: _Element, name: str, n: int, ctx: _Ctx, what: str, default=None,
            required=False) -> list[float]:
    raw = el.attrs.get(name)
    if raw is None:
        if required or default is None:
            _attr(el, name, ctx, what)
        return list(default)
    parts = raw.split()
    fld = f"{el.tag}.{name}"
    if len(parts) != n:
        raise ctx.error(f"{what}: {name}={raw!r} must hold {n} number(s)", el.line, fld)
    out = []
    for part in parts:
        if not _FLOAT.match(part):
            raise ctx.error(f"{what}: {name}={raw!r}: {part!r} is not a finite number", el.line,
                            fld)
        x = float(part)
        if not math.isfinite(x):
            raise ctx.error(f"{what}: {name}={raw!r}: {part!r} is not a finite number", el.line,
                            fld)
        out.append(x)
    return out


def _one(el: _Element, tag: str, ctx: _Ctx, what: str, required=False) -> _Element | None:
    found = [c for c in el.children if c.tag == tag]
    if len(found) > 1:
        raise ctx.error(f"{what}: more than one <{tag}>", found[1].line, tag)
    if not found:
        if required:
            raise ctx.error(f"{what}: <{el.tag}> needs a <{tag}> element", el.line, tag)
        return None
    return found[0]


def _origin(el: _Element, ctx: _Ctx, what: str) -> np.ndarray:
    o = _one(el, "origin", ctx, what)
    if o is None:
        return np.eye(4)
    xyz = _floats(o, "xyz", 3, ctx, what, default=(0.0, 0.0, 0.0))
    rpy = _floats(o, "rpy", 3, ctx, what, default=(0.0, 0.0, 0.0))
    return homogeneous(matrix_from_rpy(*rpy), xyz)


@dataclass
class _Inertial:
    mass: float
    pose: np.ndarray      # centre-of-mass frame in the link frame
    inertia: np.ndarray   # about the centre of mass, in the centre-of-mass frame
    line: int


@dataclass
class _ULink:
    name: str
    line: int
    inertial: _Inertial | None


@dataclass
class _UJoint:
    name: str
    type: str
    parent: str
    child: str
    line: int
    origin: np.ndarray
    axis: np.ndarray
    limit: dict
    limit_line: int | None
    dynamics: tuple
    dynamics_line: int | None


def _read_link(el: _Element, ctx: _Ctx) -> _ULink:
    name = _attr(el, "name", ctx, "link")
    what = f"link {name!r}"
    inertial = None
    ie = _one(el, "inertial", ctx, what)
    if ie is not None:
        pose = _origin(ie, ctx, what)
        mass_el = _one(ie, "mass", ctx, what, required=True)
        (mass,) = _floats(mass_el, "value", 1, ctx, what, required=True)
        if mass < 0:
            raise ctx.error(f"{what}: mass {mass:g} is negative", mass_el.line, "mass.value")
        ine = _one(ie, "inertia", ctx, what, required=True)
        v = {k: _floats(ine, k, 1, ctx, what, required=True)[0]
             for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        J = np.array([[v["ixx"], v["ixy"], v["ixz"]],
                      [v["ixy"], v["iyy"], v["iyz"]],
                      [v["ixz"], v["iyz"], v["izz"]]])
        inertial = _Inertial(mass, pose, J, ie.line)
    return _ULink(name, el.line, inertial)


def _read_joint(el: _Element, ctx: _Ctx) -> _UJoint:
    name = _attr(el, "name", ctx, "joint")
    what = f"joint {name!r}"
    jtype = _attr(el, "type", ctx, what)
    if jtype in _UNSUPPORTED:
        raise ctx.error(f"{what}: joint type {jtype!r} is not supported (robmod reads revolute, "
                        "continuous, prismatic and fixed joints)", el.line, "joint.type")
    if jtype not in _MOVABLE and jtype != "fixed":
        raise ctx.error(f"{what}: unknown joint type {jtype!r} (URDF types: revolute, "
                        "continuous, prismatic, fixed, floating, planar)", el.line, "joint.type")
    mimic = _one(el, "mimic", ctx, what)
    if mimic is not None:
        raise ctx.error(f"{what}: <mimic> joints are not supported (a mimic joint is not an "
                        "independent joint; remove the tag or model the coupling separately)",
                        mimic.line, "mimic")
    parent = _attr(_one(el, "parent", ctx, what, required=True), "link", ctx, what)
    child = _attr(_one(el, "child", ctx, what, required=True), "link", ctx, what)
    origin = _origin(el, ctx, what)
    axis = np.array([1.0, 0.0, 0.0])
    ax = _one(el, "axis", ctx, what)
    if ax is not None and jtype != "fixed":
        axis = np.array(_floats(ax, "xyz", 3, ctx, what, default=(1.0, 0.0, 0.0)))
        norm = float(np.linalg.norm(axis))
        if norm < 1e-12:
            raise ctx.error(f"{what}: the axis is the zero vector", ax.line, "axis.xyz")
        axis = axis / norm
    limit, limit_line = {}, None
    le = _one(el, "limit", ctx, what)
    if le is not None and jtype != "fixed":
        limit_line = le.line
        vals = {k: (_floats(le, k, 1, ctx, what)[0] if k in le.attrs else None)
                for k in ("lower", "upper", "effort", "velocity")}
        for k in ("effort", "velocity"):
            if vals[k] is not None and vals[k] < 0:
                raise ctx.error(f"{what}: limit {k} = {vals[k]:g} is negative", le.line,
                                f"limit.{k}")
            if vals[k]:
                limit["taumax" if k == "effort" else "qdmax"] = vals[k]
        if jtype != "continuous" and (vals["lower"] is not None or vals["upper"] is not None):
            lower = vals["lower"] or 0.0  # URDF default: 0
            upper = vals["upper"] or 0.0
            if lower > upper:
                raise ctx.error(f"{what}: limit lower = {lower:g} is above upper = {upper:g}",
                                le.line, "limit.lower")
            if lower < upper:
                limit["qmin"], limit["qmax"] = lower, upper
    dynamics, dyn_line = (0.0, 0.0), None
    de = _one(el, "dynamics", ctx, what)
    if de is not None and jtype != "fixed":
        dyn_line = de.line
        damping = _floats(de, "damping", 1, ctx, what, default=(0.0,))[0]
        friction = _floats(de, "friction", 1, ctx, what, default=(0.0,))[0]
        dynamics = (damping, friction)
    return _UJoint(name, jtype, parent, child, el.line, origin, axis, limit, limit_line,
                   dynamics, dyn_line)


# ============================================================================ reading
def read_urdf(path, *, mdh: bool = True) -> Robot:
    """Read a robot from a URDF file (see the module documentation for the conversion)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise FileFormatError(f"cannot read file: {e}", Location(file=str(path))) from None
    return loads_urdf(text, str(path), mdh=mdh)


def loads_urdf(text: str, filename: str = "<string>", *, mdh: bool = True) -> Robot:
    """Read a robot from URDF text."""
    ctx = _Ctx(filename)
    root = _parse_xml(text, ctx)
    if root.tag != "robot":
        raise ctx.error(f"the root element must be <robot>, not <{root.tag}>", root.line,
                        root.tag)
    name = _attr(root, "name", ctx, "robot")
    links: dict[str, _ULink] = {}
    joints: list[_UJoint] = []
    joint_names: dict[str, int] = {}
    for el in root.children:
        if el.tag == "link":
            link = _read_link(el, ctx)
            if link.name in links:
                raise ctx.error(f"link {link.name!r} is defined twice (first on line "
                                f"{links[link.name].line})", el.line, "link.name")
            links[link.name] = link
        elif el.tag == "joint":
            joint = _read_joint(el, ctx)
            if joint.name in joint_names:
                raise ctx.error(f"joint {joint.name!r} is defined twice (first on line "
                                f"{joint_names[joint.name]})", el.line, "joint.name")
            joint_names[joint.name] = el.line
            joints.append(joint)
    return _build_robot(name, links, joints, ctx, mdh, root.line)


def _structure(links, joints, ctx, robot_line):
    """Check the tree; return (root link name, {link: [child joints in file order]})."""
    if not links:
        raise ctx.error("the robot has no <link>", robot_line, "link")
    parent_joint: dict[str, _UJoint] = {}
    children: dict[str, list[_UJoint]] = {name: [] for name in links}
    for jt in joints:
        for role, link in (("parent", jt.parent), ("child", jt.child)):
            if link not in links:
                raise ctx.error(f"joint {jt.name!r}: {role} link {link!r} is not defined",
                                jt.line, f"{role}.link")
        if jt.parent == jt.child:
            raise ctx.error(f"joint {jt.name!r} joins link {jt.child!r} to itself (a cycle)",
                            jt.line, "child.link")
        if jt.child in parent_joint:
            raise ctx.error(f"link {jt.child!r} is the child of two joints "
                            f"({parent_joint[jt.child].name!r} and {jt.name!r}): URDF "
                            "describes trees, closed loops are not supported", jt.line,
                            "child.link")
        parent_joint[jt.child] = jt
        children[jt.parent].append(jt)
    roots = [name for name in links if name not in parent_joint]
    if not roots:
        raise ctx.error("no root link: every link is the child of a joint, so the joints form "
                        "a cycle", joints[0].line, "child.link")
    if len(roots) > 1:
        raise ctx.error(f"links {roots[0]!r} and {roots[1]!r} both have no parent joint: a URDF "
                        "robot must be a single tree with one root link",
                        links[roots[1]].line, "link")
    reached, todo = {roots[0]}, [roots[0]]
    while todo:
        for jt in children[todo.pop()]:
            reached.add(jt.child)
            todo.append(jt.child)
    for jt in joints:
        if jt.child not in reached:
            raise ctx.error(f"joint {jt.name!r} is on a cycle of joints not connected to the "
                            f"root link {roots[0]!r}", jt.line, "child.link")
    return roots[0], children


def _snap_angle(x: float) -> sp.Expr:
    x = math.atan2(math.sin(x), math.cos(x)) if abs(x) > math.pi else x
    k = round(x / (math.pi / 2))
    if abs(x - k * math.pi / 2) <= SNAP_TOL:
        k = 2 if k == -2 else k
        return sp.pi * k / 2
    return as_expr(float(x))


def _snap_length(x: float, scale: float = 1.0) -> sp.Expr:
    return sp.Integer(0) if abs(x) <= SNAP_TOL * scale else as_expr(float(x))


def _clean_matrix(T) -> sp.ImmutableMatrix:
    rows = []
    for i in range(4):
        row = []
        for k in range(4):
            x = float(T[i, k])
            if i < 3 and k < 3 and abs(abs(x) - 1.0) <= SNAP_TOL:
                x = math.copysign(1.0, x)
            row.append(_snap_length(x))
        rows.append(row)
    return sp.ImmutableMatrix(rows)


def _build_robot(name, links, joints, ctx, mdh, robot_line) -> Robot:
    root, children = _structure(links, joints, ctx, robot_line)
    tool_joints = {id(jt) for jt in joints
                   if jt.type == "fixed" and not children[jt.child]
                   and links[jt.child].inertial is None}
    base = np.eye(4)
    skipped = set(tool_joints)
    if root == "world" and len(children[root]) == 1 and children[root][0].type == "fixed" \
            and id(children[root][0]) not in tool_joints:
        absorbed = children[root][0]
        base = absorbed.origin
        root = absorbed.child
        skipped.add(id(absorbed))
    # numbering: a(j) < j, file order kept as far as possible
    remaining = [jt for jt in joints if id(jt) not in skipped]
    frame_of = {root: 0}
    order: list[_UJoint] = []
    while remaining:
        for i, jt in enumerate(remaining):
            if jt.parent in frame_of:
                order.append(jt)
                frame_of[jt.child] = len(order)
                del remaining[i]
                break
        else:  # pragma: no cover - _structure guarantees a tree
            raise ctx.error("joints not connected to the root", remaining[0].line)
    if not order:
        raise ctx.error("the robot has no joint (at least one joint is needed)", robot_line,
                        "joint")
    # placement of the KK frame of each link in the URDF link frame
    place = {root: np.eye(4)}
    for jt in order:
        if jt.type == "fixed":
            place[jt.child] = np.eye(4)
            continue
        movable = [(k.origin[:3, 3], k.origin[:3, :3] @ k.axis)
                   for k in children[jt.child] if k.type != "fixed"]
        place[jt.child] = mdh_frame(jt.axis, movable if mdh else [])
    frames, robot_links, locations, names = [], [], {}, []
    for j, jt in enumerate(order, start=1):
        C = inverse(place[jt.parent]) @ jt.origin @ place[jt.child]
        g, b, al, d, th, r = kk_parameters_from_transform(C)
        scale = max(1.0, float(np.linalg.norm(C[:3, 3])))
        sigma = _MOVABLE.get(jt.type, FIXED)
        frames.append(dict(j=j, ant=frame_of[jt.parent], sigma=sigma,
                           mu=0 if sigma == FIXED else 1,
                           gamma=_snap_angle(g), b=_snap_length(b, scale),
                           alpha=_snap_angle(al), d=_snap_length(d, scale),
                           theta=_snap_angle(th), r=_snap_length(r, scale)))
        locations[(j, None)] = ctx.loc(jt.line)
        names.append(f"{j}: joint {jt.name!r} -> link {jt.child!r}")
        ulink = links[jt.child]
        values = _inertial_parameters(ulink.inertial, place[jt.child])
        if ulink.inertial is not None:
            for k in values:
                locations[(j, k)] = ctx.loc(ulink.inertial.line)
        limits = {k: as_expr(v) for k, v in jt.limit.items()}
        for k in limits:
            locations[(j, k)] = ctx.loc(jt.limit_line)
        damping, friction = jt.dynamics
        for k in ("FV", "FC"):
            locations[(j, k)] = ctx.loc(jt.dynamics_line or jt.line)
        robot_links.append(Link(j=j, **values, FV=as_expr(damping), FC=as_expr(friction),
                                limits=JointLimits(**limits)))
    tools = []
    for jt in joints:
        if id(jt) in tool_joints:
            T = inverse(place[jt.parent]) @ jt.origin
            tools.append(Tool(name=jt.child, frame=frame_of[jt.parent], T=_clean_matrix(T)))
    robot_name = re.sub(r"[^A-Za-z0-9_.\-]", "_", name) or "robot"
    description = (f"imported from URDF file {Path(ctx.file).name} "
                   f"({'MDH frames' if mdh else 'URDF joint frames'}); gravity set to "
                   f"(0, 0, -9.81) m/s^2; frames: " + "; ".join(names))
    robot = make_robot(robot_name, frames, robot_links, base=_clean_matrix(base), tools=tools,
                       gravity=[as_expr(g) for g in GRAVITY], source=f"URDF robot {name!r}",
                       description=description, validate=False)
    validate(robot, locations)
    return robot


def _inertial_parameters(inertial: _Inertial | None, place: np.ndarray) -> dict:
    """Khalil's XX..M of a link from its URDF <inertial>, in the KK frame at ``place``."""
    keys = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")
    if inertial is None:
        return {k: sp.Integer(0) for k in keys}
    T = inverse(place) @ inertial.pose
    R, c, m = T[:3, :3], T[:3, 3], inertial.mass
    J = R @ inertial.inertia @ R.T + m * (float(c @ c) * np.eye(3) - np.outer(c, c))
    J = (J + J.T) / 2
    ms = m * c
    jscale = max(float(np.abs(J).max()), 1e-300)
    sscale = max(float(np.abs(ms).max()), 1e-300)
    vals = [J[0, 0], J[0, 1], J[0, 2], J[1, 1], J[1, 2], J[2, 2]]
    out = {k: _snap_length(float(v), jscale) for k, v in zip(keys[:6], vals)}
    out.update({k: _snap_length(float(v), sscale) for k, v in zip(keys[6:9], ms)})
    out["M"] = as_expr(float(m))
    return out


# ============================================================================ writing
def _num(x) -> str:
    x = float(x)
    if x == 0.0:
        return "0"
    text = repr(x)
    return text[:-2] if text.endswith(".0") else text


def _nums(values) -> str:
    return " ".join(_num(v) for v in values)


def _origin_xml(T, indent: str) -> str:
    roll, pitch, yaw = rpy_from_matrix(T[:3, :3])
    return f'{indent}<origin xyz="{_nums(T[:3, 3])}" rpy="{_nums((roll, pitch, yaw))}"/>'


def _comment(text: str) -> str:
    return "<!-- " + text.replace("--", "- -") + " -->"


def _written_symbols(robot: Robot) -> set:
    syms = set()
    for f in robot.frames:
        for v in f.params():
            syms |= v.free_symbols
    for link in robot.links:
        for v in link.inertial() + (link.FC, link.FV):
            syms |= v.free_symbols
        for k in ("qmin", "qmax", "qdmax", "taumax"):
            v = getattr(link.limits, k)
            if v is not None:
                syms |= v.free_symbols
    syms |= robot.base.free_symbols
    for t in robot.tools:
        syms |= t.T.free_symbols
    return syms


def _float_or_none(v):
    return None if v is None else float(v)


def dumps_urdf(robot: Robot) -> str:
    """The URDF text of a numeric tree-structured robot (see the module documentation)."""
    if robot.n_loops:
        raise FileFormatError(f"robot {robot.name!r} has {robot.n_loops} closed loop(s): URDF "
                              "describes tree structures only")
    robot = robot.numeric()
    missing = _written_symbols(robot)
    if missing:
        raise FileFormatError(f"robot {robot.name!r} is not numeric: give values for "
                              f"{', '.join(sorted(map(str, missing)))} before writing URDF")
    from ..geometry.transforms import frame_transform

    out = ['<?xml version="1.0"?>',
           _comment(f"written by robmod from robot {robot.name}: link<j> carries Khalil-"
                    "Kleinfinger frame j, joint<j> has origin a(j)T_j at q = 0 and axis z_j"),
           f"<robot name={quoteattr(robot.name)}>"]
    dropped = []
    if tuple(robot.gravity) != tuple(as_expr(g) for g in GRAVITY):
        dropped.append("gravity (" + ", ".join(
            _num(g) if not g.free_symbols else str(g) for g in robot.gravity)
            + "); robmod reads URDF with gravity (0, 0, -9.81)")
    for key in ("W0", "WP0", "V0", "VP0"):
        if any(v != 0 for v in getattr(robot, key)):
            dropped.append(key)
    Z = np.array(robot.base.evalf(), dtype=float)
    if not np.array_equal(Z, np.eye(4)):
        out.append('  <link name="world"/>')
        out.append('  <joint name="world_joint" type="fixed">')
        out.append('    <parent link="world"/>')
        out.append('    <child link="link0"/>')
        out.append(_origin_xml(Z, "    "))
        out.append("  </joint>")
    out.append('  <link name="link0"/>')
    for f in robot.frames:
        j = f.j
        link = robot.link(j)
        T = frame_transform(robot, j, 0.0)
        lim = link.limits
        qmin, qmax = _float_or_none(lim.qmin), _float_or_none(lim.qmax)
        if f.sigma == FIXED:
            jtype = "fixed"
        elif f.sigma == PRISMATIC:
            jtype = "prismatic"
        else:
            jtype = "continuous" if qmin is None and qmax is None else "revolute"
        out.append(f'  <joint name="joint{j}" type="{jtype}">')
        out.append(f'    <parent link="link{f.ant}"/>')
        out.append(f'    <child link="link{j}"/>')
        out.append(_origin_xml(T, "    "))
        if f.sigma != FIXED:
            out.append('    <axis xyz="0 0 1"/>')
            effort = _float_or_none(lim.taumax) or 0.0
            velocity = _float_or_none(lim.qdmax) or 0.0
            if jtype == "continuous":
                if effort or velocity:
                    out.append(f'    <limit effort="{_num(effort)}" velocity="{_num(velocity)}"/>')
            else:
                if qmin is None or qmax is None:
                    out.append("    " + _comment("no position limit known: a wide range is "
                                                 "written"))
                lower = -UNLIMITED if qmin is None else qmin
                upper = UNLIMITED if qmax is None else qmax
                out.append(f'    <limit lower="{_num(lower)}" upper="{_num(upper)}" '
                           f'effort="{_num(effort)}" velocity="{_num(velocity)}"/>')
            if link.FV != 0 or link.FC != 0:
                out.append(f'    <dynamics damping="{_num(link.FV)}" '
                           f'friction="{_num(link.FC)}"/>')
            if f.mu == 0:
                dropped.append(f"joint {j} is passive (mu = 0)")
        out.append("  </joint>")
        lost = [k for k in ("IA", "FST", "BST", "FX", "FY", "FZ", "CX", "CY", "CZ")
                if getattr(link, k) != 0]
        if link.K is not None:
            lost.append("K")
        if lost:
            dropped.append(f"link {j}: " + ", ".join(f"{k} = {getattr(link, k)}" for k in lost))
        out.extend(_link_xml(j, link))
    used = {"world", "world_joint"} | {f"link{j}" for j in range(robot.n_links + 1)} \
        | {f"joint{j}" for j in range(1, robot.n_frames + 1)}
    for tool in robot.tools:
        lname = tool.name if re.match(r"^[A-Za-z0-9_.\-]+$", tool.name) else \
            "tool_" + re.sub(r"[^A-Za-z0-9_.\-]", "_", tool.name)
        while lname in used:
            lname = "tool_" + lname
        jname = lname + "_joint"
        while jname in used:
            jname = "tool_" + jname
        used |= {lname, jname}
        E = np.array(tool.T.evalf(), dtype=float)
        out.append(f"  <joint name={quoteattr(jname)} type=\"fixed\">")
        out.append(f'    <parent link="link{tool.frame}"/>')
        out.append(f"    <child link={quoteattr(lname)}/>")
        out.append(_origin_xml(E, "    "))
        out.append("  </joint>")
        out.append(f"  <link name={quoteattr(lname)}/>")
    if dropped:
        out.append("  " + _comment("not representable in URDF, dropped: " + "; ".join(dropped)))
    out.append("</robot>")
    return "\n".join(out) + "\n"


def _link_xml(j: int, link: Link) -> list[str]:
    m = float(link.M)
    J = np.array(link.inertia_matrix().evalf(), dtype=float)
    s = np.array(link.first_moments().evalf(), dtype=float).ravel()
    if m > 0:
        c = s / m
        JC = J - (float(s @ s) * np.eye(3) - np.outer(s, s)) / m
    else:
        c, JC = np.zeros(3), np.zeros((3, 3))
    return [f'  <link name="link{j}">',
            "    <inertial>",
            f'      <origin xyz="{_nums(c)}" rpy="0 0 0"/>',
            f'      <mass value="{_num(m)}"/>',
            f'      <inertia ixx="{_num(JC[0, 0])}" ixy="{_num(JC[0, 1])}" '
            f'ixz="{_num(JC[0, 2])}" iyy="{_num(JC[1, 1])}" iyz="{_num(JC[1, 2])}" '
            f'izz="{_num(JC[2, 2])}"/>',
            "    </inertial>",
            "  </link>"]


def write_urdf(robot: Robot, path) -> None:
    """Write ``robot`` as URDF to ``path`` (all-or-nothing)."""
    from .files import write_text_atomic

    write_text_atomic(path, dumps_urdf(robot))


__all__ = ["read_urdf", "loads_urdf", "dumps_urdf", "write_urdf", "kk_parameters_from_transform",
           "rpy_from_matrix", "matrix_from_rpy", "mdh_frame", "GRAVITY"]
