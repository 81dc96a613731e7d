"""The mass and inertia of an MJCF body: its ``<inertial>``, or the one MuJoCo infers from its
geoms (``<compiler inertiafromgeom>``), with MuJoCo's bounds (``boundmass``,
``boundinertia``), ``balanceinertia`` and ``settotalmass``.

* ``inertiafromgeom="auto"`` (MuJoCo's default): a body without ``<inertial>`` takes the
  inertia of its geoms; ``"true"``: every body does (its ``<inertial>`` ignored); ``"false"``:
  never (a body without ``<inertial>`` is massless).
* A geom counts when its ``group`` is in ``inertiagrouprange`` (default 0 to 5).  Its mass is
  ``mass`` if given, else ``density`` (default 1000 kg/m^3) times its volume, the shape a solid
  of uniform density: a sphere (radius), a capsule and a cylinder (radius, half-length; or
  ``fromto``, whose segment gives the axis z and the length, z turned by the smallest rotation
  onto from - to; a box's or an ellipsoid's first size is then its two others), a box
  (half-sizes), an
  ellipsoid (semi-axes).  The capsule is a cylinder and two half-balls.  A mesh, height field
  or SDF geom that would give mass is refused by name (robmod does not compute mesh volumes:
  give the body an ``<inertial>``); so is ``shellinertia``.
* The body's inertia is the sum of its geoms' (mass, centre of mass, inertia moved to it).
  Then, as MuJoCo: mass at least ``boundmass``, each principal moment at least
  ``boundinertia``, moments that break the triangle inequality set to their mean with
  ``balanceinertia``, and every body's mass and inertia scaled so that the robot weighs
  ``settotalmass`` when it is positive.
"""
from __future__ import annotations

import math

import numpy as np

from ..spatial import homogeneous
from .mjcf_xml import Compiler, MElement, pose, rotation_z_to
from .urdf_xml import Inertial

#: geom types whose inertia robmod computes, and their number of size values
_SHAPES = {"sphere": 1, "capsule": 2, "cylinder": 2, "box": 3, "ellipsoid": 3}
_FROMTO = ("capsule", "cylinder", "box", "ellipsoid")


def _geom_frame(geom: MElement, compiler: Compiler, kind: str, size: list) -> tuple:
    """(pose of the geom in its body, sizes) with ``fromto`` applied."""
    ft = geom.numbers("fromto", 6)
    if ft is None or kind not in _FROMTO:
        return pose(geom, compiler), size
    a, b = np.array(ft[:3]), np.array(ft[3:])
    axis = a - b         # MuJoCo turns z onto from - to (a box's sides follow that rotation)
    half = float(np.linalg.norm(axis)) / 2
    if half < 1e-14:
        raise geom.error(f"{geom.label()}: fromto has two equal points", "fromto")
    size = size[:1] + [half] if kind in ("capsule", "cylinder") else size[:1] * 2 + [half]
    return homogeneous(rotation_z_to(axis / (2 * half)), (a + b) / 2), size


def _solid(kind: str, s: list) -> tuple[float, np.ndarray]:
    """(volume, principal moments per unit mass) of a uniform solid."""
    if kind == "sphere":
        r = s[0]
        return 4 / 3 * math.pi * r ** 3, np.full(3, 0.4 * r * r)
    if kind in ("capsule", "cylinder"):
        r, h = s[0], 2 * s[1]
        cyl = math.pi * r * r * h
        if kind == "cylinder":
            return cyl, np.array([(3 * r * r + h * h) / 12] * 2 + [r * r / 2])
        ball = 4 / 3 * math.pi * r ** 3
        fc, fb = cyl / (cyl + ball), ball / (cyl + ball)       # mass fractions
        axial = fc * r * r / 2 + fb * 0.4 * r * r
        side = fc * (3 * r * r + h * h) / 12 + fb * (0.4 * r * r + h * (3 * r + 2 * h) / 8)
        return cyl + ball, np.array([side, side, axial])
    if kind == "box":
        x, y, z = s
        return 8 * x * y * z, np.array([y * y + z * z, x * x + z * z, x * x + y * y]) / 3
    a, b, c = s                                                   # ellipsoid
    return 4 / 3 * math.pi * a * b * c, np.array([b * b + c * c, a * a + c * c,
                                                  a * a + b * b]) / 5


def _geom_inertia(geom: MElement, compiler: Compiler):
    """(mass, centre of mass, inertia about it in body axes) of a geom, None if it gives no
    mass (a group outside ``inertiagrouprange``, zero density or mass)."""
    lo, hi = compiler.inertiagrouprange
    if not lo <= int(geom.number("group", 0.0)) <= hi:
        return None
    mass = geom.number("mass")
    density = geom.number("density", 1000.0)
    if (mass is not None and mass == 0) or (mass is None and density == 0):
        return None
    if mass is not None and mass < 0 or density < 0:
        raise geom.error(f"{geom.label()}: a negative mass or density", "mass")
    kind = geom.attrs.get("type", "sphere")
    if kind not in _SHAPES:
        raise geom.error(f"{geom.label()}: the inertia of a {kind!r} geom is not computed by "
                         "robmod (MuJoCo infers it from the shape); give its body an "
                         "<inertial>", "type")
    if "mesh" in geom.attrs:
        raise geom.error(f"{geom.label()}: a {kind} fitted to the mesh {geom.attrs['mesh']!r} "
                         "(MuJoCo sizes it from the mesh, which robmod does not read); give its "
                         "body an <inertial>", "mesh")
    if geom.flag("shellinertia", False):
        raise geom.error(f"{geom.label()}: shellinertia (mass on the surface) is not "
                         "supported; give its body an <inertial>", "shellinertia")
    size = geom.numbers("size", None, (0.0,))
    need = 1 if kind in _FROMTO and "fromto" in geom.attrs else _SHAPES[kind]
    if len(size) < need:
        raise geom.error(f"{geom.label()}: a {kind} needs {need} size value(s)", "size")
    T, size = _geom_frame(geom, compiler, kind, size[:_SHAPES[kind]])
    if any(v <= 0 for v in size):
        raise geom.error(f"{geom.label()}: sizes must be positive, got {size}", "size")
    volume, moments = _solid(kind, size)
    m = mass if mass is not None else density * volume
    R = T[:3, :3]
    return m, T[:3, 3], R @ np.diag(m * moments) @ R.T


def _combine(parts) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, centre of mass, inertia about it) of rigidly joined parts."""
    m = sum(p[0] for p in parts)
    if m <= 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    c = sum(p[0] * p[1] for p in parts) / m
    J = np.zeros((3, 3))
    for mi, ci, Ji in parts:
        d = ci - c
        J += Ji + mi * (float(d @ d) * np.eye(3) - np.outer(d, d))
    return m, c, J


def _explicit_inertial(el: MElement, compiler: Compiler) -> Inertial:
    """An <inertial> element: mass, the centre of mass frame and the inertia in it."""
    mass = el.number("mass")
    if mass is None:
        raise el.error("<inertial> needs the attribute 'mass'", "mass")
    if mass < 0:
        raise el.error(f"<inertial>: mass {mass:g} is negative", "mass")
    if el.numbers("pos", 3) is None:
        raise el.error("<inertial> needs the attribute 'pos'", "pos")
    full = el.numbers("fullinertia", 6)
    if full is not None:
        if "diaginertia" in el.attrs:
            raise el.error("<inertial>: give diaginertia or fullinertia, not both", "fullinertia")
        xx, yy, zz, xy, xz, yz = full
        J = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    else:
        diag = el.numbers("diaginertia", 3)
        if diag is None:
            raise el.error("<inertial> needs diaginertia or fullinertia", "diaginertia")
        J = np.diag(diag)
    return Inertial(mass, pose(el, compiler), J, el.line)


def body_inertial(body: MElement, geoms: list, compiler: Compiler) -> Inertial | None:
    """The inertia of ``body`` (in its frame) as MuJoCo takes it; None when massless.
    ``geoms``: its geoms as pairs (F, geom), F the pose of the ``<frame>`` they sit in."""
    explicit = [c for c in body.children if c.tag == "inertial"]
    if len(explicit) > 1:
        raise explicit[1].error(f"{body.label()}: more than one <inertial>")
    use_geoms = compiler.inertiafromgeom == "true" or (
        compiler.inertiafromgeom == "auto" and not explicit)
    if not use_geoms:
        return _explicit_inertial(explicit[0], compiler) if explicit else None
    parts = []
    for F, g in geoms:
        part = _geom_inertia(g, compiler)
        if part is not None:
            R = F[:3, :3]
            parts.append((part[0], R @ part[1] + F[:3, 3], R @ part[2] @ R.T))
    m, c, J = _combine(parts)
    if m <= 0:
        return None
    return Inertial(m, homogeneous(np.eye(3), c), J, geoms[0][1].line)


def _bounded(inertial: Inertial | None, compiler: Compiler, line: int) -> Inertial | None:
    """``boundmass``, ``boundinertia`` and ``balanceinertia`` applied to one body."""
    bm, bi = compiler.boundmass, compiler.boundinertia
    if inertial is None and bm <= 0 and bi <= 0:
        return None
    if inertial is None:
        inertial = Inertial(0.0, np.eye(4), np.zeros((3, 3)), line)
    R = inertial.pose[:3, :3]
    e, V = np.linalg.eigh(R @ inertial.inertia @ R.T)
    changed = False
    if bi > 0 and np.any(e < bi):
        e, changed = np.maximum(e, bi), True
    if compiler.balanceinertia and e[0] + e[1] < e[2]:
        e, changed = np.full(3, float(e.mean())), True
    mass = max(inertial.mass, bm) if bm > 0 else inertial.mass
    if not changed and mass == inertial.mass:
        return inertial
    J = V @ np.diag(e) @ V.T
    return Inertial(mass, homogeneous(np.eye(3), inertial.pose[:3, 3]), J, inertial.line)


def finish_inertials(inertials: dict, compiler: Compiler, lines: dict) -> dict:
    """Every body's inertia (``{name: Inertial or None}``) with the bounds and the total mass
    of ``<compiler>`` applied."""
    out = {k: _bounded(v, compiler, lines[k]) for k, v in inertials.items()}
    total = sum(v.mass for v in out.values() if v is not None)
    if compiler.settotalmass > 0 and total > 0:
        s = compiler.settotalmass / total
        out = {k: None if v is None else Inertial(v.mass * s, v.pose, v.inertia * s, v.line)
               for k, v in out.items()}
    return out


__all__ = []
