"""Reading the XML of a URDF file: elements with their line numbers, typed attributes, and
the ``<link>`` and ``<joint>`` elements as plain records (no KK conversion yet).

DOCTYPE and ENTITY declarations are refused (entity expansion can exhaust memory).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from xml.parsers import expat

import numpy as np

from ..spatial import homogeneous, rpy_to_matrix
from .expr import MAX_MAGNITUDE
from .io_common import FileContext
from .robot import PRISMATIC, REVOLUTE

#: URDF joint types read as movable joints, and their KK sigma
MOVABLE = {"revolute": REVOLUTE, "continuous": REVOLUTE, "prismatic": PRISMATIC}
_UNSUPPORTED = ("planar",)
#: a floating joint: read, and taken as the free base when it attaches the root (urdf_build)
FLOATING = "floating"
# unambiguous (no backtracking: linear in the length of the text)
_FLOAT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
#: longest number text and largest magnitude accepted in a URDF attribute
_MAX_NUMBER_TEXT = 64


@dataclass
class _Element:
    tag: str
    attrs: dict
    line: int
    children: list = field(default_factory=list)


class _Refused(Exception):
    def __init__(self, what, line):
        self.what, self.line = what, line


def parse_xml(text: str, ctx: FileContext, kind: str = "URDF") -> _Element:
    """The root element of ``text`` (``kind``: the format named in the errors)."""
    for pattern in ("<!DOCTYPE", "<!ENTITY"):
        i = text.find(pattern)
        if i >= 0:
            raise ctx.error(f"{pattern[2:]} declarations are not allowed in a {kind} file "
                            "(refused: entity expansion can exhaust memory)",
                            text.count("\n", 0, i) + 1, field=pattern[2:])
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
        raise ctx.error(f"{e.what} declarations are not allowed in a {kind} file", e.line,
                        field=e.what) from None
    return roots[0]


def required_attr(el: _Element, name: str, ctx: FileContext, what: str) -> str:
    value = el.attrs.get(name)
    if value is None:
        raise ctx.error(f"{what}: <{el.tag}> needs the attribute {name!r}", el.line,
                        field=f"{el.tag}.{name}")
    return value


#: URDF angles within this of a multiple of pi/2 are taken as that multiple (files write pi as
#: 3.14159265359, 2e-13 away: nearly parallel axes would give huge b and r that cancel)
_ANGLE_SNAP = 1e-9
#: URDF lengths (and axis components) within this of 0, +-1 are taken as exactly that
_LENGTH_SNAP = 1e-12


def _snap_angle(a: float) -> float:
    k = round(a / (math.pi / 2))
    return k * (math.pi / 2) if abs(a - k * (math.pi / 2)) <= _ANGLE_SNAP else a


def _snap_length(x: float) -> float:
    for exact in (0.0, 1.0, -1.0):
        if abs(x - exact) <= _LENGTH_SNAP:
            return exact
    return x


def _floats(el: _Element, name: str, n: int, ctx: FileContext, what: str, default=None,
            required=False, unbounded=False) -> list[float]:
    raw = el.attrs.get(name)
    if raw is None:
        if required or default is None:
            required_attr(el, name, ctx, what)
        return list(default)
    return parse_numbers(raw, n, ctx, el.line, f"{el.tag}.{name}", f"{what}: {name}",
                         unbounded=unbounded)


def parse_numbers(raw: str, n: int | None, ctx: FileContext, line: int, fld: str, what: str,
                  unbounded=False) -> list[float]:
    """The ``n`` numbers (any count if None) of the attribute text ``raw``: each finite, at
    most 64 characters, |x| <= 1e12 (or infinite where ``unbounded``: URDF's "no limit");
    else an error naming ``what``, the file, ``line`` and ``fld``."""
    parts = raw.split()
    if n is not None and len(parts) != n:
        raise ctx.error(f"{what}={raw!r} must hold {n} number(s)", line, field=fld)
    out = []
    for part in parts:
        if len(part) > _MAX_NUMBER_TEXT or not _FLOAT.match(part):
            raise ctx.error(f"{what}={raw!r}: {part!r} is not a finite number", line, field=fld)
        x = float(part)
        if not math.isfinite(x):
            raise ctx.error(f"{what}={raw!r}: {part!r} is not a finite number", line, field=fld)
        if abs(x) > MAX_MAGNITUDE and unbounded:   # limits: 1e16 is URDF's "no limit"
            x = math.copysign(math.inf, x)
        elif abs(x) > MAX_MAGNITUDE:
            raise ctx.error(f"{what}={raw!r}: {part!r} is out of range (|x| > "
                            f"{MAX_MAGNITUDE:g})", line, field=fld)
        out.append(x)
    return out


def _one(el: _Element, tag: str, ctx: FileContext, what: str, required=False) -> _Element | None:
    found = [c for c in el.children if c.tag == tag]
    if len(found) > 1:
        raise ctx.error(f"{what}: more than one <{tag}>", found[1].line, field=tag)
    if not found:
        if required:
            raise ctx.error(f"{what}: <{el.tag}> needs a <{tag}> element", el.line, field=tag)
        return None
    return found[0]


def read_origin(el: _Element, ctx: FileContext, what: str) -> np.ndarray:
    o = _one(el, "origin", ctx, what)
    if o is None:
        return np.eye(4)
    xyz = [_snap_length(x) for x in _floats(o, "xyz", 3, ctx, what, default=(0.0, 0.0, 0.0))]
    rpy = [_snap_angle(a) for a in _floats(o, "rpy", 3, ctx, what, default=(0.0, 0.0, 0.0))]
    R = rpy_to_matrix(rpy[2], rpy[1], rpy[0])   # URDF: Rot(z, yaw) Rot(y, pitch) Rot(x, roll)
    R[np.abs(R) < 1e-15] = 0.0    # exact angles: sin(pi) is 1.2e-16, make it 0
    return homogeneous(R, xyz)


@dataclass
class Inertial:
    mass: float
    pose: np.ndarray      # centre-of-mass frame in the link frame
    inertia: np.ndarray   # about the centre of mass, in the centre-of-mass frame
    line: int


@dataclass
class ULink:
    name: str
    line: int
    inertial: Inertial | None


@dataclass
class UJoint:
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
    mimic: tuple | None = None     # (joint name, multiplier, offset, line)
    armature: float = 0.0          # rotor inertia IA (MJCF's armature; URDF has none)


def read_link(el: _Element, ctx: FileContext) -> ULink:
    name = required_attr(el, "name", ctx, "link")
    what = f"link {name!r}"
    inertial = None
    ie = _one(el, "inertial", ctx, what)
    if ie is not None:
        pose = read_origin(ie, ctx, what)
        mass_el = _one(ie, "mass", ctx, what, required=True)
        (mass,) = _floats(mass_el, "value", 1, ctx, what, required=True)
        if mass < 0:
            raise ctx.error(f"{what}: mass {mass:g} is negative", mass_el.line, field="mass.value")
        ine = _one(ie, "inertia", ctx, what, required=True)
        v = {k: _floats(ine, k, 1, ctx, what, required=True)[0]
             for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        J = np.array([[v["ixx"], v["ixy"], v["ixz"]],
                      [v["ixy"], v["iyy"], v["iyz"]],
                      [v["ixz"], v["iyz"], v["izz"]]])
        inertial = Inertial(mass, pose, J, ie.line)
    return ULink(name, el.line, inertial)


def read_joint(el: _Element, ctx: FileContext) -> UJoint:
    name = required_attr(el, "name", ctx, "joint")
    what = f"joint {name!r}"
    jtype = required_attr(el, "type", ctx, what)
    if jtype in _UNSUPPORTED:
        raise ctx.error(f"{what}: joint type {jtype!r} is not supported (robmod reads revolute, "
                        "continuous, prismatic and fixed joints, and a floating joint that "
                        "attaches the robot to its root link)", el.line, field="joint.type")
    if jtype not in MOVABLE and jtype not in ("fixed", FLOATING):
        raise ctx.error(f"{what}: unknown joint type {jtype!r} (URDF types: revolute, "
                        "continuous, prismatic, fixed, floating, planar)", el.line,
                        field="joint.type")
    mimic = None
    me = _one(el, "mimic", ctx, what)
    if me is not None and jtype in MOVABLE:
        other = required_attr(me, "joint", ctx, what)
        m = _floats(me, "multiplier", 1, ctx, what, default=(1.0,))[0]
        c = _floats(me, "offset", 1, ctx, what, default=(0.0,))[0]
        if m == 0:
            raise ctx.error(f"{what}: mimic multiplier 0 (the joint would not move)", me.line,
                            field="mimic.multiplier")
        mimic = (other, m, c, me.line)
    parent = required_attr(_one(el, "parent", ctx, what, required=True), "link", ctx, what)
    child = required_attr(_one(el, "child", ctx, what, required=True), "link", ctx, what)
    origin = read_origin(el, ctx, what)
    axis = np.array([1.0, 0.0, 0.0])
    ax = _one(el, "axis", ctx, what)
    if ax is not None and jtype in MOVABLE:
        axis = np.array([_snap_length(x) for x in
                         _floats(ax, "xyz", 3, ctx, what, default=(1.0, 0.0, 0.0))])
        norm = float(np.linalg.norm(axis))
        if norm < 1e-12:
            raise ctx.error(f"{what}: the axis is the zero vector", ax.line, field="axis.xyz")
        axis = axis / norm
    limit, limit_line = {}, None
    le = _one(el, "limit", ctx, what)
    if le is not None and jtype in MOVABLE:
        limit_line = le.line
        vals = {k: (_floats(le, k, 1, ctx, what, unbounded=True)[0] if k in le.attrs else None)
                for k in ("lower", "upper", "effort", "velocity")}
        vals = {k: (None if v is not None and math.isinf(v) else v) for k, v in vals.items()}
        for k in ("effort", "velocity"):
            if vals[k] is not None and vals[k] < 0:
                raise ctx.error(f"{what}: limit {k} = {vals[k]:g} is negative", le.line,
                                field=f"limit.{k}")
            if vals[k]:
                limit["taumax" if k == "effort" else "qdmax"] = vals[k]
        if jtype != "continuous" and (vals["lower"] is not None or vals["upper"] is not None):
            lower = vals["lower"] or 0.0  # URDF default: 0
            upper = vals["upper"] or 0.0
            # lower > upper: no limit (pybullet's documented convention); lower == upper: none
            if lower < upper:
                limit["qmin"], limit["qmax"] = lower, upper
    dynamics, dyn_line = (0.0, 0.0), None
    de = _one(el, "dynamics", ctx, what)
    if de is not None and jtype in MOVABLE:
        dyn_line = de.line
        damping = _floats(de, "damping", 1, ctx, what, default=(0.0,))[0]
        friction = _floats(de, "friction", 1, ctx, what, default=(0.0,))[0]
        dynamics = (damping, friction)
    return UJoint(name, jtype, parent, child, el.line, origin, axis, limit, limit_line,
                   dynamics, dyn_line, mimic)


__all__ = []
