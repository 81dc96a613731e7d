"""The visual geometry of a URDF file, as data attached to robmod's frames.

A URDF link carries ``<visual>`` elements (a mesh file -- STL, DAE, OBJ -- or a box, cylinder
or sphere, placed by an ``<origin>`` in the link frame, with a ``<material>`` colour).  The
kinematic model robmod reads (:mod:`robmod.description.io_urdf`) re-places the link frames
canonically (modified DH), so a visual is attached to the robmod frame j of its link with the
constant transform from frame j to the URDF link frame: both turn with the joint about the same
axis (the URDF joint variable is the KK one, and at q = 0 both models have the same pose),
so the transform found at q = 0 holds for every q.  Tool links (leaves reached by a fixed
joint) are attached to their tool frame, the root link to frame 0.

``attach_visuals(path, robot, frame_pose)`` returns a tuple of :class:`Visual` records (the
frames' poses at q = 0 come from the caller: the DGM is a layer above); the viewer
(:mod:`robmod.viewer`) draws them.  Mesh file names ``package://PKG/rest`` are found in an
ancestor folder of the URDF named PKG (or holding PKG), or under ``$ROS_PACKAGE_PATH``;
a mesh not found is left out (its link is drawn as a capsule).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import FileFormatError
from ..spatial import inverse_transform
from .io_common import FileContext
from .urdf_xml import parse_xml, read_joint, read_origin

_MESHES = (".stl", ".dae", ".obj")


@dataclass(frozen=True)
class Visual:
    """One visual element of a link: ``kind`` 'mesh', 'box', 'cylinder' or 'sphere';
    ``frame`` the robmod frame number (or a tool's name) it moves with; ``T`` (4x4) its pose in
    that frame; ``size`` the box's sizes, the cylinder's (radius, length), the sphere's
    (radius,), or the mesh's scale (3); ``path`` the mesh file (resolved); ``rgba`` its colour
    or None; ``link`` the URDF link's name."""

    kind: str
    frame: object
    T: np.ndarray
    size: tuple
    path: str | None = None
    rgba: tuple | None = None
    link: str = ""


def _floats(text, n, default):
    if text is None:
        return default
    try:
        vals = tuple(float(x) for x in text.split())
    except ValueError:
        vals = ()
    if len(vals) == 1 and n == 3:
        vals = vals * 3
    if len(vals) != n or not all(np.isfinite(vals)):
        raise FileFormatError(f"expected {n} finite numbers in a <visual>, got {text!r}")
    return vals


def package_roots(near: Path) -> list[Path]:
    """Where a ROS package named in a file at ``near`` is looked for: the file's ancestor
    folders, then those of ``$ROS_PACKAGE_PATH`` (the package is one of them, or in one)."""
    roots = list(Path(near).resolve().parents)
    return roots + [Path(p) for p in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep)
                    if p]


def _resolve_mesh(filename: str, urdf: Path) -> Path | None:
    """The file of a mesh ``filename`` (``package://``, ``file://``, absolute or relative to
    the URDF's folder), or None."""
    if filename.startswith("file://"):
        p = Path(filename[7:])
        return p if p.is_file() else None
    if filename.startswith("package://"):
        pkg, _, rest = filename[10:].partition("/")
        for root in package_roots(urdf):
            for cand in ((root / rest) if root.name == pkg else None, root / pkg / rest):
                if cand is not None and cand.is_file():
                    return cand
        return None
    p = Path(filename)
    p = p if p.is_absolute() else urdf.parent / p
    return p if p.is_file() else None


def _colours(root) -> dict:
    """Materials defined at the top level of the file: name -> rgba."""
    out = {}
    for m in root.children:
        if m.tag == "material" and "name" in m.attrs:
            for c in m.children:
                if c.tag == "color" and "rgba" in c.attrs:
                    try:
                        out[m.attrs["name"]] = _floats(c.attrs["rgba"], 4, None)
                    except FileFormatError:
                        pass    # a colour robmod cannot read: the default colour
    return out


def _geometry(visual, urdf: Path):
    """(kind, size, path) of a <visual>'s geometry, or None (no geometry, mesh not found)."""
    geom = next((c for c in visual.children if c.tag == "geometry"), None)
    shape = next(iter(geom.children), None) if geom is not None else None
    if shape is None:
        return None
    a = shape.attrs
    if shape.tag == "mesh":
        path = _resolve_mesh(a.get("filename", ""), urdf)
        if path is None or path.suffix.lower() not in _MESHES:
            return None
        return "mesh", _floats(a.get("scale"), 3, (1.0, 1.0, 1.0)), str(path)
    if shape.tag == "box":
        return "box", _floats(a.get("size"), 3, None), None
    if shape.tag == "cylinder":
        return "cylinder", (float(a["radius"]), float(a["length"])), None
    if shape.tag == "sphere":
        return "sphere", (float(a["radius"]),), None
    return None


def _link_poses(joints, first: str) -> dict:
    """URDF link -> its pose at q = 0 in the frame of link ``first`` (joint origins composed)."""
    poses, todo = {first: np.eye(4)}, True
    while todo:
        todo = False
        for jt in joints:
            if jt.parent in poses and jt.child not in poses:
                poses[jt.child] = poses[jt.parent] @ jt.origin
                todo = True
    return poses


def attach_visuals(path, robot, frame_pose) -> tuple:
    """The :class:`Visual` elements of the URDF file ``path`` attached to the frames of
    ``robot`` (read from that file); ``frame_pose(frame)`` gives 0T_frame at q = 0 for a frame
    number or a tool name (the DGM: this module sits below the geometry layer)."""
    urdf = Path(path)
    try:
        text = urdf.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise FileFormatError(f"{path}: cannot read the URDF file ({e})") from None
    ctx = FileContext(str(path))
    root = parse_xml(text, ctx)
    names = dict(robot.frame_names)
    tools = {t.name for t in robot.tools}
    links = [el.attrs.get("name", "") for el in root.children if el.tag == "link"]
    joints = [read_joint(el, ctx) for el in root.children if el.tag == "joint"]
    children = {jt.child for jt in joints}
    first = next((n for n in links if n not in children), None)      # the root link
    below = [jt for jt in joints if jt.parent == first]
    if len(below) == 1 and (below[0].type == "floating" or (
            below[0].type == "fixed" and f"link:{below[0].child}" not in names)):
        first = below[0].child       # a 'world' root absorbed into the base matrix, or the world
                                     # of a floating base
    if first is None:
        return ()
    names.setdefault(f"link:{first}", 0)
    poses = _link_poses(joints, first)
    colours = _colours(root)
    out = []
    for el in root.children:
        if el.tag != "link":
            continue
        name = el.attrs.get("name", "")
        frame = name if name in tools else names.get(f"link:{name}")
        if frame is None or name not in poses:
            continue
        offset = inverse_transform(np.asarray(frame_pose(frame), float)) @ poses[name]
        for vis in (c for c in el.children if c.tag == "visual"):
            try:
                geom = _geometry(vis, urdf)
                origin = read_origin(vis, ctx, f"<visual> of link {name!r}")
            except (FileFormatError, KeyError):
                geom = None     # a visual is decoration: one robmod cannot read is left out
            if geom is None:
                continue
            rgba = None
            for m in (c for c in vis.children if c.tag == "material"):
                col = next((c for c in m.children if c.tag == "color"), None)
                try:
                    rgba = _floats(col.attrs.get("rgba"), 4, None) if col is not None \
                        else colours.get(m.attrs.get("name"))
                except FileFormatError:
                    rgba = None
            kind, size, mesh = geom
            out.append(Visual(kind, frame, offset @ origin, tuple(size), mesh, rgba, name))
    return tuple(out)


__all__ = ["Visual"]
