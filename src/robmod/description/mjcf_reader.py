"""MJCF (MuJoCo) import: an MJCF file's articulated tree as a Khalil-Kleinfinger robot.

The bodies and joints of the file (:mod:`~robmod.description.mjcf_bodies`) are written as the
links and joints of a URDF tree and built by the URDF reader's code
(:func:`robmod.description.urdf_build.build_robot`: frame numbering, modified-DH frames,
inertial parameters, tools, mimic joints), so both formats follow the same rules:

* **Joints.** Each hinge (revolute) and slide (prismatic) joint is a joint frame; a body with
  several joints is a chain of frames, one per joint (the links between them massless, named
  ``body/joint``); a body without joint is a fixed frame (a leaf without mass: a tool).  The
  joint variable is MuJoCo's ``qpos`` (a joint's ``ref`` is its value in the file's pose).
  ``armature`` is the rotor inertia IA, ``damping`` FV, ``frictionloss`` FC, ``range`` the
  limits.  Ball joints are refused by name.
* **The base.** A top-level body with a ``freejoint`` (or ``<joint type="free">``) makes a
  floating base: that body is link 0, frame 0 its frame, the configuration its pose in the world
  (MuJoCo's ``qpos`` of the free joint).  Otherwise the world is the fixed base, and a top-level
  body without joint is welded to it at its pose: the base matrix Z.  ``base=`` overrides the
  file, as for URDF (``"floating"``: the top-level body, free; ``"fixed"``: a free body bolted
  at its pose in the file).
* **Which tree.** The robot is the top-level body whose subtree has joints; bodies without any
  joint in their subtree (a table, a floor, mocap bodies) are scenery and left out.  A file with
  several articulated top-level bodies (two robots, a robot and a free object) is refused
  naming them: ``root="body name"`` takes one.
* **Gravity** is ``<option gravity>`` (MuJoCo's default (0, 0, -9.81)), zero with ``<flag
  gravity="disable">``: the world's gravity.
* **Equality constraints.** A ``<joint joint1= joint2= polycoef=>`` coupling of degree one is a
  mimic joint, q1 = m q2 + c with m = a1 and c = ref1 + a0 - a1 ref2; a higher degree, and
  ``connect``, ``weld``, ``tendon`` and ``flex`` constraints, are refused by name (inactive
  ones, ``active="false"``, are left out).  Tendons (``fixed``, ``spatial``) and flexible
  bodies are refused by name.
* Actuators, sensors, contacts, sites, cameras, lights and visual geoms are not read.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..arguments import keyword_options, path_argument, text_argument
from ..spatial import homogeneous, inverse_transform, rot_axis
from .io_common import read_text
from .mjcf_bodies import MBody, read_bodies
from .mjcf_inertia import finish_inertials
from .mjcf_xml import Defaults, MElement, MJCFContext, load_mjcf, read_compiler
from .robot import Robot
from .urdf_build import build_robot
from .urdf_xml import Inertial, UJoint, ULink

_GRAVITY = (0.0, 0.0, -9.81)


@keyword_options()
def read_mjcf(path, *, base: str | None = None, root: str | None = None,
              inertia_check: str = "warn", mdh: bool | None = None) -> Robot:
    """Read a robot from an MJCF file (see the module documentation for the conversion).

    ``base``: None (the file's: floating when its top-level body has a free joint), or
    ``"fixed"``, ``"mobile"``, ``"floating"``; ``root``: the name of the top-level body to
    read when the file holds several articulated ones; ``inertia_check``: ``"warn"`` (keep a
    physically impossible inertia, with a :class:`~robmod.errors.RobmodWarning`) or
    ``"error"``; ``mdh``: re-frame canonically (modified DH) as the URDF reader does (None:
    keep the frames of a file robmod wrote, whose bodies are its Khalil-Kleinfinger frames).
    """
    path = Path(path_argument(path))
    return loads_mjcf(read_text(path), str(path), base=base, root=root,
                      inertia_check=inertia_check, mdh=mdh, base_dir=path.parent)


@keyword_options()
def loads_mjcf(text: str, filename: str = "<string>", *, base: str | None = None,
               root: str | None = None, inertia_check: str = "warn",
               mdh: bool | None = None, base_dir=None) -> Robot:
    """Read a robot from MJCF text (options: :func:`read_mjcf`; ``base_dir``: the folder of
    the files it includes, default the current one)."""
    from .base import check_kind

    from .io_mjcf import ROBMOD_MARK

    text_argument(text)
    if mdh is None:
        mdh = ROBMOD_MARK not in text
    if base is not None:
        check_kind(base, "base")
    top = load_mjcf(text, filename, Path(base_dir) if base_dir is not None else Path("."))
    compiler = read_compiler(top)
    defaults = Defaults(top)
    _refuse_sections(top, defaults, compiler.autolimits)
    bodies = read_bodies(top, compiler, defaults)
    lines = {name: b.el.line for name, b in bodies.items()}
    for name, inertial in finish_inertials({k: b.inertial for k, b in bodies.items()},
                                           compiler, lines).items():
        bodies[name].inertial = inertial
    tree = _tree(bodies, root, top)
    free = bool(bodies[tree[0]].joints) and bodies[tree[0]].joints[0].kind == "free"
    kind = base or ("floating" if free else "fixed")
    links, joints = _records(bodies, tree, kind, _mimic(top, defaults, bodies, tree))
    name = top.attrs.get("model") or Path(filename).stem or "robot"
    return build_robot(name, links, joints, MJCFContext(filename), mdh, top.line, kind,
                       inertia_check=inertia_check, fmt="MJCF", gravity=_gravity(top))


def _refuse_sections(top: MElement, defaults: Defaults, autolimits: bool) -> None:
    """Refuse the tendons that act on the joints and the flexible bodies; a tendon that only
    carries an actuator or a sensor (a transmission: robmod's models take joint torques) is
    left out."""
    for section in top.children:
        if section.tag == "tendon":
            for t in section.children:
                if t.tag not in ("fixed", "spatial"):
                    continue
                defaults.apply(t, "main", "tendon")
                acting = [a for a in ("stiffness", "damping", "frictionloss", "armature")
                          if (t.number(a, 0.0) or 0.0) != 0]
                limited = t.attrs.get("limited", "auto").strip()
                if limited == "true" or (limited == "auto" and autolimits and "range" in t.attrs):
                    acting.append("range")
                if acting:
                    raise t.error(f"{t.label()}: a {t.tag} tendon with {', '.join(acting)} is "
                                  "not supported (it adds forces or a limit on a combination "
                                  "of joints that robmod's models do not have)", acting[0])
        if section.tag == "deformable":
            for t in section.children:
                if t.tag == "flex":
                    raise t.error(f"{t.label()}: flexible bodies are not supported")


def _gravity(top: MElement) -> tuple:
    g = _GRAVITY
    for opt in (el for el in top.children if el.tag == "option"):
        g = tuple(opt.numbers("gravity", 3, g))
        for flag in (el for el in opt.children if el.tag == "flag"):
            if flag.choice("gravity", ("enable", "disable"), "enable") == "disable":
                g = (0.0, 0.0, 0.0)
    return g


def _subtree(bodies: dict, name: str) -> list[str]:
    out = [name]
    for child in bodies[name].children:
        out += _subtree(bodies, child)
    return out


def _tree(bodies: dict, root: str | None, top: MElement) -> list[str]:
    """The bodies of the robot's tree, depth first from its top-level body."""
    world = next((el for el in top.children if el.tag == "worldbody"), top)
    tops = [b.name for b in bodies.values() if b.parent is None]
    moving = [t for t in tops if any(bodies[b].joints for b in _subtree(bodies, t))]
    if root is not None:
        if root not in tops:
            raise world.error(f"root={root!r} is not a top-level body of the file (they are: "
                            f"{', '.join(tops) or 'none'})")
        return _subtree(bodies, root)
    if not moving:
        raise world.error("the robot has no joint (no body of <worldbody> has a joint)")
    if len(moving) > 1:
        where = ", ".join(f"{t!r} (line {bodies[t].el.line})" for t in moving)
        raise world.error(f"the file holds {len(moving)} articulated top-level bodies: {where}; "
                          "read one with read_robot(path, root='name') (the command line's "
                          "--root name)")
    return _subtree(bodies, moving[0])


def _mimic(top: MElement, defaults: Defaults, bodies: dict, tree: list) -> dict:
    """{joint1 name: (joint2 name, m, c, line)} of the joint couplings on the tree."""
    joints = {j.name: j for b in tree for j in bodies[b].joints}
    others = {j.name for b in bodies.values() for j in b.joints} - set(joints)
    out = {}
    for section in (el for el in top.children if el.tag == "equality"):
        for eq in section.children:
            defaults.apply(eq, "main", "equality")
            if not eq.flag("active", True):
                continue
            if eq.tag != "joint":
                raise eq.error(f"{eq.label()}: {eq.tag!r} equality constraints are not "
                               "supported (robmod reads joint couplings of degree one as "
                               "mimic joints)")
            j1, j2 = eq.attrs.get("joint1"), eq.attrs.get("joint2")
            if j1 in others and (j2 is None or j2 in others):
                continue
            for attr, name in (("joint1", j1), ("joint2", j2)):
                if name is not None and name not in joints:
                    raise eq.error(f"{eq.label()}: {attr}={name!r} names no hinge or slide "
                                   "joint of the robot", attr)
            if j1 is None:
                raise eq.error(f"{eq.label()} needs the attribute 'joint1'", "joint1")
            a0, a1, *rest = eq.numbers("polycoef", 5, (0.0, 1.0, 0.0, 0.0, 0.0))
            if j2 is None or a1 == 0 or any(rest):
                raise eq.error(f"{eq.label()}: only couplings q1 = a0 + a1 q2 with a1 != 0 are "
                               "supported (a joint held fixed, or a polynomial of higher "
                               "degree, is not)", "polycoef")
            if j1 in out:
                raise eq.error(f"{eq.label()}: joint {j1!r} is coupled twice", "joint1")
            ref1, ref2 = joints[j1].ref, joints[j2].ref
            out[j1] = (j2, a1, ref1 + a0 - a1 * ref2, eq.line)
    return out


def _motion(joint, origin: np.ndarray) -> np.ndarray:
    """``origin`` moved so that the URDF joint position is MuJoCo's qpos (the file's pose is
    at q = ref)."""
    if joint.kind == "hinge":
        return origin @ homogeneous(rot_axis(joint.axis, -joint.ref), np.zeros(3))
    return origin @ homogeneous(np.eye(3), -joint.ref * joint.axis)


def _ujoint(name, kind, parent, child, line, origin, joint=None, mimic=None) -> UJoint:
    if joint is None:
        return UJoint(name, "fixed", parent, child, line, origin, np.array([1.0, 0.0, 0.0]),
                      {}, None, (0.0, 0.0), None)
    limit = {} if joint.limits is None else dict(zip(("qmin", "qmax"), joint.limits))
    return UJoint(name, kind, parent, child, line, origin, joint.axis, limit, line,
                  (joint.damping, joint.frictionloss), line, mimic, joint.armature)


def _records(bodies: dict[str, MBody], tree: list, kind: str, mimic: dict):
    """The URDF links and joints of the tree (``kind``: the base kind).  A body's joints
    j_1..j_k (axes through p_1..p_k) are the chain Trans(p_1) Rot(j_1) Trans(-p_1) ...: the
    URDF link after joint i has its frame at p_i."""
    first = bodies[tree[0]]
    free = bool(first.joints) and first.joints[0].kind == "free"
    links: dict[str, ULink] = {}
    joints: list[UJoint] = []
    offset = {}            # pose of each body's URDF link frame in the body's frame
    if kind == "fixed" or (first.joints and not free):
        links["world"] = ULink("world", first.el.line, None)
        offset[None] = np.eye(4)
    for name in tree:
        body = bodies[name]
        for j in body.joints:
            if j.kind == "free" and (body.parent is not None or len(body.joints) > 1):
                raise j.el.error(f"{j.el.label()}: a free joint must be the only joint of a "
                                 "top-level body", j.el.tag)
        moving = [j for j in body.joints if j.kind != "free"]
        offset[name] = homogeneous(np.eye(3), moving[-1].pos) if moving else np.eye(4)
        if body.parent is not None or "world" in links:
            prev = "world" if body.parent is None else body.parent
            T = inverse_transform(offset[body.parent]) @ body.pose
            for k, j in enumerate(moving):
                child = name if k == len(moving) - 1 else f"{name}/{j.name}"
                while child != name and (child in bodies or child in links):
                    child += "'"
                if child != name:
                    links[child] = ULink(child, j.el.line, None)
                utype = "prismatic" if j.kind == "slide" else (
                    "revolute" if j.limits else "continuous")
                origin = _motion(j, T @ homogeneous(np.eye(3), j.pos))
                joints.append(_ujoint(j.name, utype, prev, child, j.el.line, origin, j,
                                      mimic.get(j.name)))
                prev, T = child, homogeneous(np.eye(3), -j.pos)
            if not moving:
                joints.append(_ujoint(f"{name}_weld", "fixed", prev, name, body.el.line, T))
        links[name] = ULink(name, body.el.line, _in_link(body.inertial, offset[name]))
    return links, joints


def _in_link(inertial: Inertial | None, offset: np.ndarray) -> Inertial | None:
    if inertial is None:
        return None
    return Inertial(inertial.mass, inverse_transform(offset) @ inertial.pose, inertial.inertia,
                    inertial.line)


__all__ = ["read_mjcf", "loads_mjcf"]
