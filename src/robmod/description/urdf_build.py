"""Turning the links and joints of a URDF file into a Khalil-Kleinfinger :class:`Robot`.

The conversion rules (frame numbering, tools, base, MDH frames, inertial data,
limits) are described in :mod:`robmod.description.io_urdf`.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import sympy as sp

from ..spatial import inverse_transform
from .kk_fit import kk_parameters_from_transform
from .expr import as_expr
from .io_common import FileContext, sanitize_name
from .build import make_robot
from .robot import FIXED, FIXED_BASE, FLOATING_BASE, JointLimits, Link, Robot, Tool
from .link import INERTIAL
from .urdf_frames import mdh_frame
from .urdf_xml import FLOATING, MOVABLE, Inertial, ULink, UJoint
from .validation import validate

#: gravity given to imported robots (URDF has none), m/s^2 in frame 0
GRAVITY = (0, 0, -9.81)
#: values closer than this to 0 (lengths) or to a multiple of pi/2 (angles) are made exact
_SNAP_TOL = 1e-13


def _structure(links: dict[str, ULink], joints: list[UJoint], ctx: FileContext,
               robot_line: int):
    """Check the tree; return (root link name, {link: [child joints in file order]})."""
    if not links:
        raise ctx.error("the robot has no <link>", robot_line, field="link")
    parent_joint: dict[str, UJoint] = {}
    children: dict[str, list[UJoint]] = {name: [] for name in links}
    for jt in joints:
        for role, link in (("parent", jt.parent), ("child", jt.child)):
            if link not in links:
                raise ctx.error(f"joint {jt.name!r}: {role} link {link!r} is not defined",
                                jt.line, field=f"{role}.link")
        if jt.parent == jt.child:
            raise ctx.error(f"joint {jt.name!r} joins link {jt.child!r} to itself (a cycle)",
                            jt.line, field="child.link")
        if jt.child in parent_joint:
            raise ctx.error(f"link {jt.child!r} is the child of two joints "
                            f"({parent_joint[jt.child].name!r} and {jt.name!r}): URDF "
                            "describes trees, closed loops are not supported", jt.line,
                            field="child.link")
        parent_joint[jt.child] = jt
        children[jt.parent].append(jt)
    roots = [name for name in links if name not in parent_joint]
    if not roots:
        raise ctx.error("no root link: every link is the child of a joint, so the joints form "
                        "a cycle", joints[0].line, field="child.link")
    if len(roots) > 1:
        raise ctx.error(f"links {roots[0]!r} and {roots[1]!r} both have no parent joint: a URDF "
                        "robot must be a single tree with one root link",
                        links[roots[1]].line, field="link")
    reached, todo = {roots[0]}, [roots[0]]
    while todo:
        for jt in children[todo.pop()]:
            reached.add(jt.child)
            todo.append(jt.child)
    for jt in joints:
        if jt.child not in reached:
            raise ctx.error(f"joint {jt.name!r} is on a cycle of joints not connected to the "
                            f"root link {roots[0]!r}", jt.line, field="child.link")
    return roots[0], children


def _snap_angle(x: float) -> sp.Expr:
    x = math.atan2(math.sin(x), math.cos(x)) if abs(x) > math.pi else x
    k = round(x / (math.pi / 2))
    if abs(x - k * math.pi / 2) <= _SNAP_TOL:
        k = 2 if k == -2 else k
        return sp.pi * k / 2
    return as_expr(float(x))


def _snap_length(x: float, scale: float = 1.0) -> sp.Expr:
    return sp.Integer(0) if abs(x) <= _SNAP_TOL * scale else as_expr(float(x))


def _clean_matrix(T) -> sp.ImmutableMatrix:
    rows = []
    for i in range(4):
        row = []
        for k in range(4):
            x = float(T[i, k])
            if i < 3 and k < 3 and abs(abs(x) - 1.0) <= _SNAP_TOL:
                x = math.copysign(1.0, x)
            row.append(_snap_length(x))
        rows.append(row)
    return sp.ImmutableMatrix(rows)


def _free_root(root, children, joints, ctx, kind):
    """(root link, base kind, the floating joint or None): a ``<joint type="floating">`` from
    the root link (a world) to the robot is the free base the file declares, its child link 0;
    anywhere else it is refused.  ``kind`` None: the file's (floating if it says so, else
    fixed); "fixed" given for such a file is refused (the file says the base is free)."""
    free = [jt for jt in joints if jt.type == FLOATING]
    if not free:
        return root, kind or FIXED_BASE, None
    jt = free[0]
    if jt.parent != root or len(children[root]) != 1 or len(free) > 1:
        raise ctx.error(f"joint {jt.name!r}: a floating joint is read only as the robot's free "
                        f"base, the one joint from the root link (here {root!r}) to the robot",
                        jt.line, field="joint.type")
    if kind == FIXED_BASE:
        raise ctx.error(f"joint {jt.name!r}: the file attaches its robot to {root!r} by a "
                        "floating joint (a free base): read it with base='floating' (the "
                        "file's) or 'mobile', not 'fixed'", jt.line, field="joint.type")
    return jt.child, kind or FLOATING_BASE, jt


def build_robot(name: str, links: dict[str, ULink], joints: list[UJoint],
                ctx: FileContext, mdh: bool, robot_line: int, kind: str | None = None, *,
                inertia_check: str = "warn", fmt: str = "URDF", gravity=GRAVITY) -> Robot:
    """The KK robot of a URDF tree (``links`` by name, ``joints`` in file order); ``kind``:
    the base kind (a mobile or floating base is the root link, whose inertia is link 0's;
    None: the file's, floating when a floating joint attaches the robot to its root link).
    ``fmt``, ``gravity``: the format named in the description and the world's gravity (the
    MJCF reader builds its robots from the same records)."""
    root, children = _structure(links, joints, ctx, robot_line)
    root, kind, free = _free_root(root, children, joints, ctx, kind)
    tool_joints = {id(jt) for jt in joints
                   if jt.type == "fixed" and not children[jt.child]
                   and links[jt.child].inertial is None}
    base = np.eye(4)
    skipped = set(tool_joints) | ({id(free)} if free is not None else set())
    if kind == FIXED_BASE and root == "world" and len(children[root]) == 1 \
            and children[root][0].type == "fixed" and id(children[root][0]) not in tool_joints:
        absorbed = children[root][0]
        base = absorbed.origin
        root = absorbed.child
        skipped.add(id(absorbed))
    # numbering: a(j) < j, file order kept as far as possible
    remaining = [jt for jt in joints if id(jt) not in skipped]
    frame_of = {root: 0}
    order: list[UJoint] = []
    while remaining:
        for i, jt in enumerate(remaining):
            if jt.parent in frame_of:
                order.append(jt)
                frame_of[jt.child] = len(order)
                del remaining[i]
                break
        else:  # pragma: no cover - _structure guarantees a tree
            raise ctx.error("joints not connected to the root", remaining[0].line)
    if not order and kind == FIXED_BASE:
        raise ctx.error("the robot has no joint (a fixed base needs at least one; a free "
                        "body, a drone or a satellite, is read with base='floating')",
                        robot_line, field="joint")
    # placement of the KK frame of each link in the URDF link frame
    place = {root: np.eye(4)}
    for jt in order:
        if jt.type == "fixed":
            place[jt.child] = np.eye(4)
            continue
        movable = [(k.origin[:3, 3], k.origin[:3, :3] @ k.axis)
                   for k in children[jt.child] if k.type != "fixed"]
        place[jt.child] = mdh_frame(jt.axis, movable if mdh else [])
    frames, robot_links, locations, names, frame_names = [], [], {}, [], {}
    for j, jt in enumerate(order, start=1):
        C = inverse_transform(place[jt.parent]) @ jt.origin @ place[jt.child]
        g, b, al, d, th, r = kk_parameters_from_transform(C)
        scale = max(1.0, float(np.linalg.norm(C[:3, 3])))
        sigma = MOVABLE.get(jt.type, FIXED)
        frames.append(dict(j=j, ant=frame_of[jt.parent], sigma=sigma,
                           mu=0 if sigma == FIXED else 1,
                           gamma=_snap_angle(g), b=_snap_length(b, scale),
                           alpha=_snap_angle(al), d=_snap_length(d, scale),
                           theta=_snap_angle(th), r=_snap_length(r, scale)))
        locations[(j, None)] = ctx.loc(jt.line)
        names.append(f"{j}: joint {jt.name!r} -> link {jt.child!r}")
        frame_names[f"link:{jt.child}"] = j
        frame_names[f"joint:{jt.name}"] = j
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
        if jt.armature:
            locations[(j, "IA")] = ctx.loc(jt.line)
        robot_links.append(Link(j=j, **values, FV=as_expr(damping), FC=as_expr(friction),
                                IA=as_expr(jt.armature), limits=JointLimits(**limits)))
    tools = []
    for jt in joints:
        if id(jt) in tool_joints:
            T = inverse_transform(place[jt.parent]) @ jt.origin
            tools.append(Tool(name=jt.child, frame=frame_of[jt.parent], T=_clean_matrix(T)))
    base_link = Link(j=0, **_inertial_parameters(links[root].inertial, np.eye(4)))
    if links[root].inertial is not None:
        for k in INERTIAL:
            locations[(0, k)] = ctx.loc(links[root].inertial.line)
    if kind != FIXED_BASE:
        frame_names[f"link:{root}"] = 0
    robot_name = sanitize_name(name) or "robot"
    description = (f"imported from {fmt} file {Path(ctx.file).name} "
                   f"({'MDH frames' if mdh else fmt + ' joint frames'}); gravity set to "
                   f"({', '.join(f'{g:g}' for g in gravity)}) m/s^2; frames: " + "; ".join(names))
    robot = make_robot(robot_name, frames, robot_links, Z=_clean_matrix(base), tools=tools,
                       gravity=[as_expr(g) for g in gravity], source=f"{fmt} robot {name!r}",
                       description=description, validate=False,
                       frame_names=_with_plain_names(frame_names),
                       mimic=_mimic(order, ctx), base=kind,
                       base_link=base_link if kind != "fixed" else None,
                       inertia_check=inertia_check)
    validate(robot, locations)
    return robot


def _with_plain_names(qualified: dict) -> dict:
    """The frame names of a URDF robot: each link's and joint's plain name when it names one
    frame, then every ``link:NAME`` and ``joint:NAME``.  A name that is a link's and another
    frame's joint's (ANYmal C's ``LF_HAA``) has only its qualified forms:
    :meth:`~robmod.description.robot.Robot.frame_number` refuses the plain one, naming both."""
    plain, clash = {}, set()
    for key, j in qualified.items():
        name = key.split(":", 1)[1]
        if plain.setdefault(name, j) != j:
            clash.add(name)
    return {**{n: j for n, j in plain.items() if n not in clash}, **qualified}


def _mimic(order, ctx) -> dict:
    """{frame j: (frame i, m, c)} of the <mimic> joints (q_j = m q_i + c, URDF's convention;
    the KK joint variable is the URDF joint position), chains of mimics resolved."""
    frame = {jt.name: j for j, jt in enumerate(order, start=1) if jt.type != "fixed"}
    raw = {}
    for j, jt in enumerate(order, start=1):
        if jt.mimic is None or jt.type == "fixed":
            continue
        other, m, c, line = jt.mimic
        if other not in frame:
            raise ctx.error(f"joint {jt.name!r}: <mimic joint={other!r}> names no movable joint "
                            "of the robot", line, field="mimic.joint")
        raw[j] = (frame[other], m, c, line, jt.name)
    out = {}
    for j, (i, m, c, line, name) in raw.items():
        seen = {j}
        while i in raw:          # a mimic of a mimic: compose the affine maps
            if i in seen:
                raise ctx.error(f"joint {name!r}: the <mimic> tags form a cycle", line,
                                field="mimic.joint")
            seen.add(i)
            i2, m2, c2 = raw[i][:3]
            i, m, c = i2, m * m2, m * c2 + c
        out[j] = (i, m, c)
    return out


def _inertial_parameters(inertial: Inertial | None, place: np.ndarray) -> dict:
    """Khalil's XX..M of a link from its URDF <inertial>, in the KK frame at ``place``."""
    keys = INERTIAL
    if inertial is None:
        return {k: sp.Integer(0) for k in keys}
    T = inverse_transform(place) @ inertial.pose
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


__all__ = []
