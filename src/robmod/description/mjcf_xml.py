"""Reading the XML of an MJCF (MuJoCo) file: ``<include>`` files spliced in, ``<compiler>``
settings, ``<default>`` classes applied to the elements (``class``, ``childclass``,
cascading), numbers and frame orientations as MuJoCo reads them.

Each element keeps its file and line, so that every error names them (the included file's, for
an element that came from an ``<include>``).  DOCTYPE and ENTITY declarations are refused, as in
URDF files (:func:`robmod.description.urdf_xml.parse_xml` parses every file).

Orientations (MuJoCo's documentation, "frame orientations"): ``quat`` (w x y z, normalised),
``axisangle`` (x y z angle), ``euler`` (three angles about the axes of ``<compiler
eulerseq>``, default ``xyz``: lower case about the moving axes, upper case about the fixed
ones), ``xyaxes`` (x axis, then y made orthogonal to it; z = x × y), ``zaxis`` (the smallest
rotation taking z there).  Angles are in degrees unless ``<compiler angle="radian">``; a
quaternion is not an angle.  At most one of them per element; an element's own attribute wins
over one its default class gives.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..spatial import homogeneous, quaternion_to_matrix, rot_axis
from .io_common import FileContext, read_text
from .urdf_xml import parse_numbers, parse_xml

#: the orientation attributes of an MJCF frame
ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")
#: nested <include> files deeper than this are refused (an include cycle, or a bomb)
_MAX_INCLUDE_DEPTH = 32


class _SourceLine(int):
    """A line number that knows its file (an element may come from an ``<include>``d file):
    :class:`MJCFContext` puts that file in the locations it makes."""

    def __new__(cls, line: int, file: str):
        obj = super().__new__(cls, line)
        obj.file = file
        return obj


class MJCFContext(FileContext):
    """The file being read, whose locations take the file of a :class:`_SourceLine`."""

    def loc(self, line=None, frame=None, field=None):
        loc = super().loc(line, frame, field)
        file = getattr(line, "file", None)
        return loc if file is None else replace(loc, file=file, line=int(line))


@dataclass
class MElement:
    """An MJCF element with its attributes (its default class's first, its own over them),
    the file and line it came from, its children; ``own``: the attributes written on it."""

    tag: str
    attrs: dict
    line: int
    file: str
    children: list = field(default_factory=list)
    own: frozenset = frozenset()

    def error(self, message: str, attr: str | None = None):
        """A FileFormatError naming this element's file, line and field (tag.attr)."""
        fld = self.tag if attr is None else f"{self.tag}.{attr}"
        return FileContext(self.file).error(message, self.line, field=fld)

    def label(self) -> str:
        """``<tag name='x'>`` (or ``<tag>``) for messages."""
        name = self.attrs.get("name")
        return f"<{self.tag} name={name!r}>" if name else f"<{self.tag}>"

    def numbers(self, attr: str, n: int | None = None, default=None, unbounded=False):
        """The numbers of attribute ``attr`` (``n`` of them; any count if None), or
        ``default`` when it is absent."""
        raw = self.attrs.get(attr)
        if raw is None:
            return None if default is None else list(default)
        return parse_numbers(raw, n, FileContext(self.file), self.line, f"{self.tag}.{attr}",
                             f"{self.label()}: {attr}", unbounded=unbounded)

    def number(self, attr: str, default: float | None = None) -> float | None:
        values = self.numbers(attr, 1, None if default is None else (default,))
        return None if values is None else values[0]

    def flag(self, attr: str, default: bool) -> bool:
        raw = self.attrs.get(attr)
        if raw is None:
            return default
        if raw.strip() not in ("true", "false"):
            raise self.error(f"{self.label()}: {attr}={raw!r} must be 'true' or 'false'", attr)
        return raw.strip() == "true"

    def choice(self, attr: str, choices, default: str) -> str:
        raw = self.attrs.get(attr, default).strip()
        if raw not in choices:
            raise self.error(f"{self.label()}: {attr}={raw!r} is not one of "
                             f"{', '.join(choices)}", attr)
        return raw


@dataclass
class Compiler:
    """The ``<compiler>`` settings that change the model robmod reads."""

    degrees: bool = True
    eulerseq: str = "xyz"
    inertiafromgeom: str = "auto"
    inertiagrouprange: tuple = (0, 5)
    boundmass: float = 0.0
    boundinertia: float = 0.0
    settotalmass: float = -1.0
    balanceinertia: bool = False
    autolimits: bool = True

    def angle(self, x: float) -> float:
        return math.radians(x) if self.degrees else x


# ------------------------------------------------------------------ files and includes
def _convert(el, file: str) -> MElement:
    return MElement(el.tag, dict(el.attrs), _SourceLine(el.line, file), file,
                    [_convert(c, file) for c in el.children], frozenset(el.attrs))


def _load(text: str, filename: str, roots=("mujoco",)) -> MElement:
    root = _convert(parse_xml(text, FileContext(filename), "MJCF"), filename)
    if root.tag not in roots:
        raise root.error(f"the root element of an MJCF file must be <{'> or <'.join(roots)}>, "
                         f"not <{root.tag}>")
    return root


def _expand(el: MElement, dirs: list[Path], stack: tuple) -> None:
    """Replace every <include file=...> below ``el`` by the children of the file's <mujoco>
    (found next to the including file, else next to the main file, as MuJoCo does)."""
    out = []
    for child in el.children:
        if child.tag != "include":
            _expand(child, dirs, stack)
            out.append(child)
            continue
        name = child.attrs.get("file")
        if not name:
            raise child.error("<include> needs the attribute 'file'", "file")
        here = Path(child.file).parent
        found = next((d / name for d in (here, *dirs) if (d / name).is_file()), None)
        if found is None:
            raise child.error(f"<include file={name!r}>: no such file (looked in {here}"
                              + "".join(f", {d}" for d in dirs if d != here) + ")", "file")
        key = str(found.resolve())
        if key in stack or len(stack) >= _MAX_INCLUDE_DEPTH:
            raise child.error(f"<include file={name!r}>: the includes form a cycle (or are "
                              f"nested deeper than {_MAX_INCLUDE_DEPTH})", "file")
        sub = _load(read_text(found), str(found), ("mujoco", "mujocoinclude"))
        _expand(sub, dirs, stack + (key,))
        out.extend(sub.children)
    el.children = out


def load_mjcf(text: str, filename: str, base_dir: Path | None) -> MElement:
    """The <mujoco> element of ``text``, includes expanded (relative to the including file,
    else to ``base_dir``, the main file's folder)."""
    root = _load(text, filename)
    _expand(root, [base_dir] if base_dir is not None else [], (str(Path(filename).resolve()),))
    return root


# ------------------------------------------------------------------ compiler
def read_compiler(root: MElement) -> Compiler:
    """The settings of the <compiler> elements (a later one overrides an earlier one)."""
    c = Compiler()
    for el in root.children:
        if el.tag != "compiler":
            continue
        c.degrees = el.choice("angle", ("degree", "radian"),
                              "degree" if c.degrees else "radian") == "degree"
        seq = el.attrs.get("eulerseq", c.eulerseq)
        if len(seq) != 3 or any(ch not in "xyzXYZ" for ch in seq):
            raise el.error(f"<compiler> eulerseq={seq!r} must be three of x, y, z, X, Y, Z",
                           "eulerseq")
        c.eulerseq = seq
        c.inertiafromgeom = el.choice("inertiafromgeom", ("auto", "true", "false"),
                                      c.inertiafromgeom)
        lo, hi = el.numbers("inertiagrouprange", 2, c.inertiagrouprange)
        c.inertiagrouprange = (int(lo), int(hi))
        c.boundmass = el.number("boundmass", c.boundmass)
        c.boundinertia = el.number("boundinertia", c.boundinertia)
        c.settotalmass = el.number("settotalmass", c.settotalmass)
        c.balanceinertia = el.flag("balanceinertia", c.balanceinertia)
        c.autolimits = el.flag("autolimits", c.autolimits)
        if el.attrs.get("coordinate", "local") != "local":
            raise el.error("<compiler coordinate='global'> is not supported (MuJoCo itself "
                           "dropped it in version 2.3.3): write the frames as local",
                           "coordinate")
    return c


# ------------------------------------------------------------------ defaults
class Defaults:
    """The <default> classes: class name -> {element tag: attributes}, each class holding its
    parent's attributes under its own."""

    def __init__(self, root: MElement):
        self.classes: dict[str, dict] = {"main": {}}
        for el in root.children:
            if el.tag == "default":
                name = el.attrs.get("class", "main")
                if name != "main":
                    raise el.error("a top-level <default> is the class 'main': put class "
                                   f"{name!r} inside it", "class")
                self._read(el, "main", self.classes["main"], top=True)

    def _read(self, el: MElement, name: str, inherited: dict, top=False) -> None:
        own = self.classes[name] if top else {tag: dict(a) for tag, a in inherited.items()}
        if not top:
            if name in self.classes:
                raise el.error(f"default class {name!r} is defined twice", "class")
            self.classes[name] = own
        for child in el.children:
            if child.tag != "default":
                own.setdefault(child.tag, {}).update(child.attrs)
        for child in el.children:
            if child.tag == "default":
                sub = child.attrs.get("class")
                if not sub:
                    raise child.error("a nested <default> needs the attribute 'class'", "class")
                self._read(child, sub, own)

    def apply(self, el: MElement, cls: str, tag: str | None = None) -> None:
        """Give ``el`` (and no child) the attributes of its class -- its own ``class``, else
        ``cls`` (the childclass in force) -- for the element ``tag`` (default: its own tag;
        an equality constraint takes the class's <equality>, a tendon its <tendon>)."""
        name = el.attrs.get("class", cls)
        if name not in self.classes:
            raise el.error(f"{el.label()}: no default class {name!r}", "class")
        given = self.classes[name].get(tag or el.tag)
        if given:
            el.attrs = {**given, **el.attrs}


# ------------------------------------------------------------------ frames
def rotation_z_to(v) -> np.ndarray:
    """The smallest rotation taking z onto the unit vector ``v`` (Rot(x, pi) for -z)."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(z, v)
    s, c = float(np.linalg.norm(axis)), float(v[2])
    if s < 1e-14:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    return rot_axis(axis / s, math.atan2(s, c))


def _unit(el: MElement, attr: str, v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    n = float(np.linalg.norm(v))
    if n < 1e-14:
        raise el.error(f"{el.label()}: {attr} is the zero vector", attr)
    return v / n


def _rotation(el: MElement, compiler: Compiler) -> np.ndarray:
    """The rotation of ``el``'s frame from its orientation attribute (identity if none)."""
    given = [a for a in ORIENTATIONS if a in el.own] or \
        [a for a in ORIENTATIONS if a in el.attrs]
    if len(given) > 1:
        raise el.error(f"{el.label()}: more than one orientation ({', '.join(given)}); MuJoCo "
                       "takes one", given[1])
    if not given:
        return np.eye(3)
    kind = given[0]
    if kind == "quat":
        return quaternion_to_matrix(_unit(el, kind, el.numbers(kind, 4)))
    if kind == "axisangle":
        x, y, z, a = el.numbers(kind, 4)
        return rot_axis(_unit(el, kind, (x, y, z)), compiler.angle(a))
    if kind == "zaxis":
        return rotation_z_to(_unit(el, kind, el.numbers(kind, 3)))
    if kind == "xyaxes":
        v = el.numbers(kind, 6)
        x = _unit(el, kind, v[:3])
        y = np.asarray(v[3:], dtype=float)
        y = _unit(el, kind, y - (y @ x) * x)
        return np.column_stack([x, y, np.cross(x, y)])
    R = np.eye(3)
    for axis, a in zip(compiler.eulerseq, el.numbers(kind, 3)):
        step = rot_axis(np.eye(3)["xyz".index(axis.lower())], compiler.angle(a))
        R = R @ step if axis.islower() else step @ R     # moving axes / fixed axes
    return R


def pose(el: MElement, compiler: Compiler) -> np.ndarray:
    """The 4x4 pose of ``el``'s frame in its parent's: ``pos`` and the orientation."""
    return homogeneous(_rotation(el, compiler), el.numbers("pos", 3, (0.0, 0.0, 0.0)))


__all__ = []
