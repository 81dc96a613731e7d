"""Contacts as data: where a robot touches (points and soles on its frames) and what it
touches (a ground plane, fixed boxes).

A contact is attached to a frame of the robot, chosen as every ``j=`` selector (a frame
number, or a URDF link name):

* :class:`ContactPoint` -- a point of frame j (a foot's tip, a fingertip): three rows of
  constraint, the point's linear velocity; unilateral with Coulomb friction ``friction`` (the
  force in the cone |f_t| <= mu f_n), or bilateral (held, as a closed loop);
* :class:`ContactSurface` -- a flat sole of frame j, a convex polygon given by its vertices
  (:meth:`ContactSurface.rectangle` for a foot): bilateral, six rows (the frame welded at the
  sole's centre: Pinocchio's ``CONTACT_6D``); unilateral, one point contact per vertex, whose
  forces span the sole's whole contact wrench cone (Caron, Pham & Nakamura 2015: the centre of
  pressure inside the polygon, the friction cone, the yaw moment bounded), as MuJoCo and
  Pinocchio's simulators take a flat contact.

The environment is a tuple of fixed obstacles, :class:`Plane` (the ground by default) and
:class:`Box`, each with its signed distance to a point and the normal there.  They are
expressed in the world frame (frame 0 of a fixed-base robot).  Contacts and obstacles are
immutable, like the robot: the dynamics of :mod:`robmod.dynamics.constrained` and the
simulation take them as arguments, :func:`~robmod.description.to_mjcf` writes them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..arguments import finite_vector, keyword_options
from ..errors import ArgumentError

__all__ = ["ContactPoint", "ContactSurface", "Plane", "Box", "ground"]


def _point(name: str, value) -> tuple:
    return tuple(float(x) for x in finite_vector(name, value, 3, "coordinates (x, y, z)"))


def _friction(owner: str, mu) -> float:
    try:
        mu = float(mu)
    except (TypeError, ValueError):
        raise ArgumentError(f"{owner}: friction must be a number (Coulomb's coefficient mu "
                            f">= 0), got {mu!r}") from None
    if not np.isfinite(mu) or mu < 0:
        raise ArgumentError(f"{owner}: friction must be a finite number >= 0 (Coulomb's "
                            f"coefficient), got {mu!r}")
    return mu


def _selector(owner: str, frame):
    if isinstance(frame, (bool, np.bool_)) or not isinstance(frame, (int, np.integer, str)):
        raise ArgumentError(f"{owner}: frame must be a frame number or a frame name (a URDF "
                            f"link), got {frame!r}")
    return int(frame) if isinstance(frame, (int, np.integer)) else frame


def _name_and_hash(contact, owner: str, geometry) -> None:
    """A contact's name checked (its frame's by default) and its hash computed once (contacts
    key the compiled models)."""
    if not isinstance(contact.name, str):
        raise ArgumentError(f"{owner}: name must be a string, got {contact.name!r}")
    if not contact.name:
        object.__setattr__(contact, "name", str(contact.frame))
    object.__setattr__(contact, "_hash", hash((contact.frame, geometry, contact.friction,
                                               contact.name)))


@dataclass(frozen=True)
class ContactPoint:
    """A point ``point`` (x, y, z in frame ``frame``) that touches: three constraint rows, the
    point's velocity in the world frame; ``friction``: Coulomb's mu (unilateral use);
    ``name``: for the results (default ``"<frame>"`` or ``"<frame>:<k>"``)."""

    frame: int | str
    point: tuple = (0.0, 0.0, 0.0)
    friction: float = 1.0
    name: str = ""
    size = 3

    def __post_init__(self):
        object.__setattr__(self, "frame", _selector("ContactPoint", self.frame))
        object.__setattr__(self, "point", _point("ContactPoint point", self.point))
        object.__setattr__(self, "friction", _friction("ContactPoint", self.friction))
        _name_and_hash(self, "ContactPoint", self.point)

    def __hash__(self):        # computed once: contacts key the compiled models
        return self._hash

    def points(self) -> tuple["ContactPoint", ...]:
        """The point contacts of its unilateral model: itself."""
        return (self,)


@dataclass(frozen=True)
class ContactSurface:
    """A flat sole of frame ``frame``: a convex polygon of ``vertices`` (k >= 3 points in the
    frame, in one plane); bilateral: the frame welded at the sole's :attr:`center` (six rows,
    linear velocity of the centre and angular velocity, in the world frame); unilateral: a
    point contact at each vertex (:meth:`points`)."""

    frame: int | str
    vertices: tuple = field(default=())
    friction: float = 1.0
    name: str = ""
    size = 6

    def __post_init__(self):
        object.__setattr__(self, "frame", _selector("ContactSurface", self.frame))
        try:
            pts = [_point("ContactSurface vertex", v) for v in self.vertices]
        except TypeError:
            pts = []
        if len(pts) < 3:
            raise ArgumentError("ContactSurface: vertices must be at least 3 points (x, y, z) of "
                                f"the sole's polygon in its frame, got {self.vertices!r}")
        P = np.array(pts)
        c = P.mean(axis=0)
        s = np.linalg.svd(P - c, compute_uv=False)
        if s[1] <= 1e-9 * max(s[0], 1e-300) or s[2] > 1e-6 * s[0]:
            raise ArgumentError("ContactSurface: the vertices must span a flat polygon (in one "
                                "plane, not on a line)")
        object.__setattr__(self, "vertices", tuple(pts))
        object.__setattr__(self, "friction", _friction("ContactSurface", self.friction))
        _name_and_hash(self, "ContactSurface", self.vertices)

    def __hash__(self):
        return self._hash

    @classmethod
    def rectangle(cls, frame, length: float, width: float, *, center=(0.0, 0.0, 0.0),
                  friction: float = 1.0, name: str = "") -> "ContactSurface":
        """A rectangular sole of ``length`` along x and ``width`` along y of frame ``frame``,
        centred on ``center`` (a foot: its frame's z axis is the sole's normal)."""
        for what, v in (("length", length), ("width", width)):
            if not isinstance(v, (int, float, np.floating)) or not v > 0 or not np.isfinite(v):
                raise ArgumentError(f"ContactSurface.rectangle: {what} must be a positive "
                                    f"number, got {v!r}")
        c = np.array(_point("ContactSurface.rectangle center", center))
        a, b = length / 2, width / 2
        return cls(frame, tuple(tuple(c + d) for d in ((a, b, 0), (-a, b, 0), (-a, -b, 0),
                                                        (a, -b, 0))), friction, name)

    @property
    def center(self) -> tuple:
        """The sole's reference point: the mean of its vertices."""
        return tuple(float(x) for x in np.mean(self.vertices, axis=0))

    def points(self) -> tuple[ContactPoint, ...]:
        """Its unilateral model: one point contact per vertex, named ``name:k``."""
        return tuple(ContactPoint(self.frame, v, self.friction, f"{self.name}:{k}")
                     for k, v in enumerate(self.vertices))


def _unit(name: str, v) -> np.ndarray:
    v = np.array(_point(name, v))
    n = np.linalg.norm(v)
    if n < 1e-12:
        raise ArgumentError(f"{name} must be a non-zero vector, got {tuple(v)}")
    return v / n


def tangent_basis(n) -> np.ndarray:
    """A rotation whose third column is the unit normal n (the first two: tangents): a
    contact's frame."""
    return _basis(tuple(float(x) for x in n)).copy()


@lru_cache(maxsize=1024)
def _basis(n):
    n = np.array(n)
    t = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = t - (t @ n) * n
    t1 /= np.linalg.norm(t1)
    return np.column_stack([t1, np.cross(n, t1), n])


@dataclass(frozen=True)
class Plane:
    """A fixed plane through ``point`` with the unit ``normal`` (pointing out of the solid):
    the half-space below is solid.  ``Plane()`` is the ground z = 0."""

    normal: tuple = (0.0, 0.0, 1.0)
    point: tuple = (0.0, 0.0, 0.0)

    def __post_init__(self):
        object.__setattr__(self, "normal", tuple(_unit("Plane normal", self.normal)))
        object.__setattr__(self, "point", _point("Plane point", self.point))

    def distance(self, p):
        """(signed distances (...,), unit normals (..., 3)) of points p (..., 3)."""
        p = np.asarray(p, dtype=float)
        n = np.array(self.normal)
        d = (p - np.array(self.point)) @ n
        return d, np.broadcast_to(n, p.shape)


@keyword_options()
def ground(*, height: float = 0.0) -> Plane:
    """The horizontal ground z = ``height`` (normal +z)."""
    return Plane((0.0, 0.0, 1.0), (0.0, 0.0, float(height)))


@dataclass(frozen=True)
class Box:
    """A fixed box: its ``center``, its edge lengths ``size`` (x, y, z of its own frame) and
    its orientation ``rotation`` (3x3, the box's axes in the world frame)."""

    center: tuple = (0.0, 0.0, 0.0)
    size: tuple = (1.0, 1.0, 1.0)
    rotation: tuple = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))

    def __post_init__(self):
        object.__setattr__(self, "center", _point("Box center", self.center))
        size = _point("Box size", self.size)
        if min(size) <= 0:
            raise ArgumentError(f"Box: size must be three positive edge lengths, got {size}")
        object.__setattr__(self, "size", size)
        try:
            R = np.array(self.rotation, dtype=float)
        except (TypeError, ValueError):
            R = np.zeros(0)
        if R.shape != (3, 3) or not np.allclose(R.T @ R, np.eye(3), atol=1e-9) \
                or np.linalg.det(R) < 0:
            raise ArgumentError("Box: rotation must be a 3x3 rotation matrix (the box's axes in "
                                "the world frame)")
        object.__setattr__(self, "rotation", tuple(tuple(r) for r in R))

    def distance(self, p):
        """(signed distances (...,), unit normals (..., 3)) of points p (..., 3): outside, the
        distance to the box and the direction from its nearest point; inside, minus the depth
        under the nearest face and that face's normal."""
        p = np.asarray(p, dtype=float)
        R = np.array(self.rotation)
        h = np.array(self.size) / 2
        x = (p - np.array(self.center)) @ R              # in the box's frame
        e = np.abs(x) - h
        outside = np.maximum(e, 0.0)
        d_out = np.linalg.norm(outside, axis=-1)
        inside = d_out <= 0
        k = np.argmax(e, axis=-1)
        face = np.zeros(p.shape)
        np.put_along_axis(face, k[..., None], np.sign(np.take_along_axis(x, k[..., None], -1))
                          + (np.take_along_axis(x, k[..., None], -1) == 0), axis=-1)
        n_out = outside * np.sign(x) / np.where(d_out > 0, d_out, 1.0)[..., None]
        n = np.where(inside[..., None], face, n_out)
        d = np.where(inside, np.max(e, axis=-1), d_out)
        return d, n @ R.T


def contact_list(contacts, owner: str = "contacts") -> tuple:
    """The contacts given (one, or a sequence of :class:`ContactPoint` and
    :class:`ContactSurface`) as a tuple, else an ArgumentError."""
    if isinstance(contacts, (ContactPoint, ContactSurface)):
        return (contacts,)
    try:
        out = tuple(contacts)
    except TypeError:
        out = None
    if out is None or not all(isinstance(c, (ContactPoint, ContactSurface)) for c in out):
        raise ArgumentError(f"{owner} must be a ContactPoint, a ContactSurface or a sequence of "
                            f"them, got {type(contacts).__name__}")
    return out
