"""URDF (ROS Unified Robot Description Format) import and export.

Reading (URDF -> Khalil-Kleinfinger)
------------------------------------
* Every URDF joint becomes one KK frame j (revolute / continuous: sigma = 0,
  prismatic: sigma = 1, fixed: sigma = 2) and its child link becomes KK link j.
  ``planar`` joints are refused, and ``floating`` ones but the one below.  A ``<mimic joint= multiplier= offset=>``
  joint is a dependent joint, q_j = m q_i + c (:mod:`robmod.description.mimic`): it has no
  entry in joint vectors.
* Frame 0 is the frame of the root link.  A root link named ``world`` whose
  only child joint is fixed is absorbed into the base matrix Z (frame 0 is then
  that child link, gravity stays the world's).  The inertia of the root link (fixed to the
  ground) is not used.  With ``base="floating"`` (or ``"mobile"``) the root link, whatever
  its name, is link 0, the base, with its inertia (Pinocchio's free-flyer on the root link).
  A root link whose only joint is ``<joint type="floating">`` is the world and the joint's
  child is a floating base (the file says so: ``base=None`` takes it, ``"mobile"`` too,
  ``"fixed"`` is refused); the configuration of the base is the child's pose in the world
  (the joint's origin only shifts other engines' zero of it).  A floating (or mobile) robot
  may have no joint at all: a drone, a satellite, n_q = 0.
* Names: ``robot.frame_names`` holds ``link:NAME`` and ``joint:NAME`` for every link and
  joint (frame j is joint j and its child link j), and the plain NAME when it names one
  frame.  A name that is a link's and another frame's joint's (ANYmal C's ``LF_HAA``) is
  refused as a bare ``j=`` (an ArgumentError naming both frames): say ``j="link:LF_HAA"``
  or ``j="joint:LF_HAA"``.
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
  the URDF joint origin.  Axes closer than a tolerance (``urdf_frames``, radians) to
  parallel are treated as parallel.  ``mdh=False`` keeps every URDF joint
  frame (only turned so that z is the axis).  ``mdh=None`` (the default)
  keeps the frames of a file written by robmod (it carries the comment
  :data:`_ROBMOD_MARK`, so robmod's own URDF round-trips to identical
  transforms a(j)T_j, trees with gamma and b included) and re-frames any
  other file canonically.
* Inertial data are converted to Khalil's parameters of frame j (inertia
  about O_j in frame j, first moments M * centre of mass, mass);
  ``<limit lower upper velocity effort>`` give qmin, qmax (not for continuous
  joints; none when lower == upper, or lower > upper: pybullet's "no limit"), qdmax, taumax
  (0: unknown);
  ``<dynamics damping friction>`` give FV and FC.  Other link parameters are 0.
* URDF has no gravity: the robot gets the world's gravity (0, 0, -9.81), as every engine that
  reads URDF; the models take it in frame 0 (0R_f g: a ``world`` root's fixed joint turns it).

Writing (KK -> URDF)
--------------------
:func:`dumps_urdf` writes link ``link{j}`` for KK link j (``link0``: the base)
and joint ``joint{j}`` for frame j, with origin a(j)T_j at q = 0 and axis
``0 0 1``.  A base matrix Z other than the identity gives a ``world`` link and
a fixed joint; each tool gives a fixed joint and a massless link.  Values
that URDF cannot hold (rotor inertia IA, Stribeck friction, stiffness,
external wrench, passive joints, gravity) are dropped and listed in a comment.
The robot must be numeric and have no closed loop.

Modules: :mod:`~robmod.description.urdf_xml` reads the XML (with line numbers)
into link and joint records, :mod:`~robmod.description.urdf_frames` places the
MDH frames, :mod:`~robmod.description.urdf_build` builds the KK robot, and
:mod:`robmod.description.kk_fit` holds the KK-parameter geometry, :mod:`robmod.spatial` the
rpy angles.
"""
from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from ..arguments import keyword_options, path_argument, text_argument
from ..errors import FileFormatError
from ..spatial import matrix_to_rpy
from .expr import as_expr
from .io_common import NAME_RE, FileContext, read_text, sanitize_name, write_text_atomic
from .robot import FIXED, PRISMATIC, Link, Robot, transform_matrix
from .urdf_build import GRAVITY, build_robot
from .urdf_xml import UJoint, ULink, parse_xml, read_joint, read_link, required_attr

#: bound written for a missing position limit of a prismatic or revolute joint
_UNLIMITED = 1e9


# ============================================================================ reading
_ROBMOD_MARK = "<!-- robmod-frames: khalil-kleinfinger -->"


@keyword_options()
def read_urdf(path, *, mdh: bool | None = None, base: str | None = None,
              inertia_check: str = "warn") -> Robot:
    """Read a robot from a URDF file (see the module documentation for the conversion).

    ``base``: ``"fixed"`` (the root link bolted to the ground), ``"floating"`` or
    ``"mobile"`` (the root link is link 0, with its inertia; as Pinocchio's
    ``buildModelFromUrdf(path, JointModelFreeFlyer())``); None (default): the file's, fixed
    unless a ``<joint type="floating">`` attaches the robot to its root link (a world).
    ``inertia_check``: "warn" (default) keeps a physically impossible inertia as the file
    gives it, with a :class:`~robmod.errors.RobmodWarning` naming the file, line and link
    (CAD exports often carry them; Pinocchio accepts them, MuJoCo and Drake refuse them);
    "error" refuses it.
    """
    path = Path(path_argument(path))
    return loads_urdf(read_text(path), str(path), mdh=mdh, base=base,
                      inertia_check=inertia_check)


@keyword_options()
def loads_urdf(text: str, filename: str = "<string>", *, mdh: bool | None = None,
               base: str | None = None, inertia_check: str = "warn") -> Robot:
    """Read a robot from URDF text (``base``, ``inertia_check``: see :func:`read_urdf`)."""
    from .base import check_kind

    text_argument(text)
    if base is not None:
        check_kind(base, "base")
    if mdh is None:
        mdh = _ROBMOD_MARK not in text
    ctx = FileContext(filename)
    root = parse_xml(text, ctx)
    if root.tag != "robot":
        raise ctx.error(f"the root element must be <robot>, not <{root.tag}>", root.line,
                        field=root.tag)
    name = required_attr(root, "name", ctx, "robot")
    links: dict[str, ULink] = {}
    joints: list[UJoint] = []
    joint_names: dict[str, int] = {}
    for el in root.children:
        if el.tag == "link":
            link = read_link(el, ctx)
            if link.name in links:
                raise ctx.error(f"link {link.name!r} is defined twice (first on line "
                                f"{links[link.name].line})", el.line, field="link.name")
            links[link.name] = link
        elif el.tag == "joint":
            joint = read_joint(el, ctx)
            if joint.name in joint_names:
                raise ctx.error(f"joint {joint.name!r} is defined twice (first on line "
                                f"{joint_names[joint.name]})", el.line, field="joint.name")
            joint_names[joint.name] = el.line
            joints.append(joint)
    return build_robot(name, links, joints, ctx, mdh, root.line, base,
                       inertia_check=inertia_check)


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
    yaw, pitch, roll = (float(a) for a in matrix_to_rpy(T[:3, :3], tol=0.0).first)
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
    syms |= robot.Z.free_symbols
    for t in robot.tools:
        syms |= t.T.free_symbols
    return syms


def _float_or_none(v):
    return None if v is None else float(v)


@keyword_options()
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

    out = ['<?xml version="1.0"?>', _ROBMOD_MARK,
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
    Z = np.array(robot.Z.evalf(), dtype=float)
    if not np.array_equal(Z, np.eye(4)):
        out.append('  <link name="world"/>')
        out.append('  <joint name="world_joint" type="fixed">')
        out.append('    <parent link="world"/>')
        out.append('    <child link="link0"/>')
        out.append(_origin_xml(Z, "    "))
        out.append("  </joint>")
    if robot.base_kind != "fixed":     # the base's inertia (read back with base=...)
        out.append("  " + _comment(f"link0 is a {robot.base_kind} base: read with "
                                   f"read_robot(path, base={robot.base_kind!r})"))
        out.extend(_link_xml(0, robot.base_link))
    else:
        out.append('  <link name="link0"/>')
    for f in robot.frames:
        j = f.j
        link = robot.link(j)
        T = np.array(transform_matrix(f.gamma, f.b, f.alpha, f.d, f.theta, f.r), dtype=float)
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
                lower = -_UNLIMITED if qmin is None else qmin
                upper = _UNLIMITED if qmax is None else qmax
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
        lname = tool.name if NAME_RE.match(tool.name) else "tool_" + sanitize_name(tool.name)
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
    write_text_atomic(path, dumps_urdf(robot))


__all__ = ["read_urdf", "loads_urdf", "dumps_urdf", "write_urdf"]
