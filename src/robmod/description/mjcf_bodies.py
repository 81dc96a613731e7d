"""The bodies of an MJCF ``<worldbody>``: their poses, joints and inertias, ``<frame>``
elements and ``<default>`` classes applied, in MuJoCo's order (depth first, as its body and
joint numbers).

A body's ``pos`` and orientation place it in its parent at the joints' reference positions
(``ref``); each of its joints moves it about (``hinge``) or along (``slide``) ``axis`` through
``pos``, both in the body's frame, one after the other (MuJoCo's order).  Joint ``range`` and
``ref`` of a hinge are angles (degrees unless ``<compiler angle="radian">``); ``armature`` is
the rotor inertia IA, ``damping`` the viscous friction FV, ``frictionloss`` the Coulomb
friction FC.  What has no place in robmod's models is refused by name (a ``ball`` joint, a free
joint below the top level, ``<composite>``, ``<flexcomp>``, ``<replicate>``, ``<attach>``,
body plugins) or reported by a :class:`~robmod.errors.RobmodWarning` and left out (a joint's
spring ``stiffness``, a body's ``gravcomp``: passive forces robmod's models do not have).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import RobmodWarning
from .io_common import FileContext
from .mjcf_inertia import body_inertial
from .mjcf_xml import Compiler, Defaults, MElement, pose
from .urdf_xml import Inertial

#: elements of a body that build bodies or joints robmod cannot take
_REFUSED = {"composite": "a <composite> (a generated grid of bodies)",
            "flexcomp": "a <flexcomp> (a deformable body)",
            "replicate": "a <replicate> (repeated copies of a subtree)",
            "attach": "an <attach> (a model attached from an asset)",
            "plugin": "a body <plugin>"}


#: the other elements a body (or <worldbody>, or a <frame>) may hold: not read
_SKIPPED = {"inertial", "site", "camera", "light"}


@dataclass
class _MJoint:
    """A hinge or slide joint of a body (``pos``, ``axis`` in the body's frame; angles in
    radians), or a free joint (``kind="free"``)."""

    name: str
    kind: str
    pos: np.ndarray
    axis: np.ndarray
    ref: float
    limits: tuple | None
    armature: float
    damping: float
    frictionloss: float
    el: MElement


@dataclass
class MBody:
    """A body: its ``pose`` in its parent's frame (``parent`` None: the world), its joints in
    order, its inertia (None: massless) and its children's names."""

    name: str
    parent: str | None
    pose: np.ndarray
    joints: list
    inertial: Inertial | None
    el: MElement
    children: list = field(default_factory=list)


def _warn(el: MElement, message: str) -> None:
    loc = FileContext(el.file).loc(el.line, field=el.tag)
    warnings.warn(f"{loc}: {message}", RobmodWarning, stacklevel=4)


def _limits(el: MElement, kind: str, compiler: Compiler) -> tuple | None:
    limited = el.attrs.get("limited", "auto").strip()
    if limited not in ("auto", "true", "false"):
        raise el.error(f"{el.label()}: limited={limited!r} must be true, false or auto",
                       "limited")
    rng = el.numbers("range", 2, unbounded=True)
    if limited == "false" or rng is None or (limited == "auto" and not compiler.autolimits):
        return None
    lo, hi = (compiler.angle(x) if kind == "hinge" else x for x in rng)
    if lo > hi:
        raise el.error(f"{el.label()}: range lower {rng[0]:g} is above upper {rng[1]:g}",
                       "range")
    return (lo, hi) if lo < hi and math.isfinite(lo) and math.isfinite(hi) else None


def _joint(el: MElement, F: np.ndarray, compiler: Compiler, name: str) -> _MJoint:
    if el.tag == "freejoint":
        return _MJoint(name, "free", np.zeros(3), np.zeros(3), 0.0, None, 0.0, 0.0, 0.0, el)
    kind = el.attrs.get("type", "hinge").strip()
    if kind == "ball":
        raise el.error(f"{el.label()}: ball joints are not supported (a spherical joint has "
                       "no Khalil-Kleinfinger frame: its configuration is a quaternion); "
                       "write it as three hinges with intersecting axes", "type")
    if kind not in ("hinge", "slide", "free"):
        raise el.error(f"{el.label()}: unknown joint type {kind!r} (MJCF types: hinge, slide, "
                       "ball, free)", "type")
    if kind == "free":
        return _MJoint(name, "free", np.zeros(3), np.zeros(3), 0.0, None, 0.0, 0.0, 0.0, el)
    axis = np.asarray(el.numbers("axis", 3, (0.0, 0.0, 1.0)), dtype=float)
    norm = float(np.linalg.norm(axis))
    if norm < 1e-12:
        raise el.error(f"{el.label()}: the axis is the zero vector", "axis")
    ref = el.number("ref", 0.0)
    values = {}
    for attr in ("armature", "damping", "frictionloss", "stiffness"):
        values[attr] = el.number(attr, 0.0)
        if values[attr] < 0:
            raise el.error(f"{el.label()}: {attr} {values[attr]:g} is negative", attr)
    if values["stiffness"] > 0:
        _warn(el, f"joint {name!r}: its spring (stiffness {values['stiffness']:g}) is a "
                  "passive force robmod's models do not have: left out")
    R, p = F[:3, :3], F[:3, 3]
    return _MJoint(name, kind, R @ np.asarray(el.numbers("pos", 3, (0.0, 0.0, 0.0))) + p,
                  R @ (axis / norm), compiler.angle(ref) if kind == "hinge" else ref,
                  _limits(el, kind, compiler), values["armature"], values["damping"],
                  values["frictionloss"], el)


class _Walker:
    """Depth-first walk of <worldbody>: bodies in MuJoCo's order."""

    def __init__(self, compiler: Compiler, defaults: Defaults):
        self.compiler, self.defaults = compiler, defaults
        self.bodies: dict[str, MBody] = {}
        self.names: set = set()
        self.count = 0          # MuJoCo's body number (the world is 0)

    def _unique(self, name: str) -> str:
        while name in self.names:
            name += "'"
        self.names.add(name)
        return name

    def walk(self, world: MElement) -> None:
        self.names |= {el.attrs["name"] for el in _all(world, "body") if "name" in el.attrs}
        self.names |= {el.attrs["name"] for el in _all(world, "joint", "freejoint")
                       if "name" in el.attrs}
        roots: list = []
        self._content(world, None, np.eye(4), "main", roots, [], [])

    def _content(self, el, body, F, cls, kids, joints, geoms) -> None:
        """The elements of a body (or of the world, ``body`` None) or of a <frame> in it."""
        for child in el.children:
            if child.tag in _REFUSED:
                raise child.error(f"{_REFUSED[child.tag]} is not supported by robmod's MJCF "
                                  "reader")
            if child.tag == "frame":
                sub = child.attrs.get("childclass", cls)
                self._content(child, body, F @ pose(child, self.compiler), sub, kids, joints,
                              geoms)
            elif child.tag == "body":
                kids.append(self._body(child, body, F, cls))
            elif child.tag in ("joint", "freejoint"):
                if body is None:
                    raise child.error("the world body cannot have joints")
                if child.tag == "joint":
                    self.defaults.apply(child, cls)
                given = child.attrs.get("name")
                name = given or self._unique(f"{body}/joint{len(joints)}")
                joints.append(_joint(child, F, self.compiler, name))
            elif child.tag == "geom":
                if body is not None:
                    self.defaults.apply(child, cls)
                    geoms.append((F, child))
            elif child.tag not in _SKIPPED:
                raise child.error(f"unknown element <{child.tag}> in "
                                  f"{'a body' if body else '<worldbody>'}")

    def _body(self, el: MElement, parent, F, cls) -> str:
        self.count += 1
        name = el.attrs.get("name") or self._unique(f"body{self.count}")
        if name == "world":
            raise el.error("a body named 'world': that is the name of MuJoCo's world body",
                           "name")
        if name in self.bodies:
            raise el.error(f"body {name!r} is defined twice (first on line "
                           f"{self.bodies[name].el.line})", "name")
        sub = el.attrs.get("childclass", cls)
        if sub not in self.defaults.classes:
            raise el.error(f"{el.label()}: no default class {sub!r}", "childclass")
        body = MBody(name, parent, F @ pose(el, self.compiler), [], None, el)
        self.bodies[name] = body
        geoms: list = []
        self._content(el, name, np.eye(4), sub, body.children, body.joints, geoms)
        body.inertial = body_inertial(el, geoms, self.compiler)
        if float(el.number("gravcomp", 0.0)) != 0:
            _warn(el, f"body {name!r}: its gravity compensation (gravcomp) is a passive force "
                      "robmod's models do not have: left out")
        return name


def _all(el: MElement, *tags):
    for child in el.children:
        if child.tag in tags:
            yield child
        yield from _all(child, *tags)


def read_bodies(root: MElement, compiler: Compiler, defaults: Defaults) -> dict[str, MBody]:
    """Every body of the <worldbody> elements, by name, in MuJoCo's order."""
    walker = _Walker(compiler, defaults)
    for world in (el for el in root.children if el.tag == "worldbody"):
        walker.walk(world)
    return walker.bodies


__all__ = []
