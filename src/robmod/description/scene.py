"""A scene: several robots that touch one another and a fixed environment (a gripper and the box
it holds, two arms and a shared object).

Each robot of a :class:`Scene` is one of robmod's robots -- a fixed base (a gripper, an arm), a
floating one (a legged robot; a free object, a floating robot without joints) -- with:

* its ``contacts``: the points (and soles, by their vertices) of its frames that may touch
  something, as for one robot (:mod:`robmod.description.contacts`);
* its ``solids``: the shapes carried by its frames (:class:`Solid`, a :class:`~robmod.
  description.Box` in a frame's coordinates) that the *other* robots' contact points touch;

and the scene has a fixed ``environment`` (planes and boxes, the ground by default).  A contact
between two robots is a point of one against a solid of the other: its velocity is the
difference of the two bodies' velocities at the point, and its Delassus operator adds both
sides' terms (G = J_A M_A^-1 J_A^T + J_B M_B^-1 J_B^T).  The scene's state is its robots' in
order, ``q = [q_1, ..., q_R]``, ``qd = [qd_1, ..., qd_R]``, and its joint torques ``tau =
[tau_1, ..., tau_R]`` (a free object takes none): :func:`~robmod.control.simulate` takes a
scene as it takes a robot, with one torque law for all its joints.

A fixed-base robot stands where its placement ``Z`` (fT0) puts it; a floating one where its
configuration does.  A mobile base (its motion given) is refused, as mimic joints and closed
loops are by the contact models.  Robots do not touch themselves (a point of a robot against
its own solids is not tested).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ArgumentError
from .base import moving_base
from .contacts import Box, Plane, contact_list
from .robot import Robot

__all__ = ["Scene", "Solid"]


@dataclass(frozen=True)
class Solid:
    """A shape carried by frame ``frame`` of its robot (a number or a URDF link name): a
    :class:`~robmod.description.Box` whose centre and rotation are in that frame's
    coordinates."""

    frame: int | str
    shape: Box

    def __post_init__(self):
        if isinstance(self.frame, (bool, np.bool_)) or not isinstance(
                self.frame, (int, np.integer, str)):
            raise ArgumentError(f"Solid: frame must be a frame number or a frame name, got "
                                f"{self.frame!r}")
        if not isinstance(self.shape, Box):
            raise ArgumentError(f"Solid: shape must be a Box (in the frame's coordinates), got "
                                f"{type(self.shape).__name__}")


def _per_robot(what: str, value, count: int, check) -> tuple:
    if value is None:
        return ((),) * count
    try:
        items = tuple(value)
    except TypeError:
        items = None
    if items is None or len(items) != count:
        raise ArgumentError(f"Scene: {what} must give one entry per robot ({count}: a sequence "
                            f"of sequences, () for none), got {value!r}")
    return tuple(check(item) for item in items)


def _solids(item) -> tuple:
    if isinstance(item, Solid):
        return (item,)
    out = tuple(item)
    if not all(isinstance(s, Solid) for s in out):
        raise ArgumentError("Scene: each robot's solids must be Solid objects (a Box carried "
                            "by one of its frames)")
    return out


@dataclass(frozen=True, eq=False)
class Scene:
    """Several ``robots`` (module doc) with their ``contacts`` and ``solids`` (one sequence per
    robot, ``()`` for none) and the fixed ``environment`` (obstacles; the ground z = 0 by
    default)."""

    robots: tuple
    contacts: tuple = None
    solids: tuple = None
    environment: tuple = (Plane(),)

    def __post_init__(self):
        try:
            robots = tuple(self.robots)
        except TypeError:
            robots = ()
        if not robots or not all(isinstance(r, Robot) for r in robots):
            raise ArgumentError("Scene: robots must be a non-empty sequence of robots (numeric "
                                f"descriptions), got {self.robots!r}")
        for r in robots:
            if r.base_kind == "mobile":
                raise ArgumentError(f"Scene: robot {r.name!r} has a mobile base, whose motion is "
                                    "given: a scene's robots have fixed or floating bases")
        k = len(robots)
        object.__setattr__(self, "robots", robots)
        object.__setattr__(self, "contacts", _per_robot(
            "contacts", self.contacts, k, lambda c: contact_list(c) if c != () else ()))
        object.__setattr__(self, "solids", _per_robot("solids", self.solids, k, _solids))
        env = self.environment
        env = (env,) if hasattr(env, "distance") else tuple(env)
        if not all(isinstance(o, (Plane, Box)) for o in env):
            raise ArgumentError(f"Scene: environment must be obstacles (Plane, Box), got "
                                f"{self.environment!r}")
        object.__setattr__(self, "environment", env)
        sizes = [(r.n_q + (7 if moving_base(r) else 0), r.n_q + (6 if moving_base(r) else 0),
                  r.n_q) for r in robots]
        object.__setattr__(self, "_sizes", tuple(sizes))

    @property
    def name(self) -> str:
        return " + ".join(r.name for r in self.robots)

    @property
    def nq(self) -> int:
        """Entries of the scene's configuration (its robots' in order)."""
        return sum(s[0] for s in self._sizes)

    @property
    def nv(self) -> int:
        """Entries of the scene's velocity."""
        return sum(s[1] for s in self._sizes)

    @property
    def n(self) -> int:
        """The scene's joints (its torques' entries)."""
        return sum(s[2] for s in self._sizes)

    def split(self, x) -> list:
        """The robots' parts of ``x`` (..., nq), (..., nv) or (..., n) -- a scene's
        configuration, velocity or torques --, along its last axis."""
        x = np.asarray(x)
        for k, what in enumerate(("configuration", "velocity", "torques")):
            if x.shape[-1:] == (sum(s[k] for s in self._sizes),):
                cuts = np.cumsum([s[k] for s in self._sizes])[:-1]
                return np.split(x, cuts, axis=-1)
        raise ArgumentError(f"Scene.split: x must be the scene's configuration ({self.nq}), "
                            f"velocity ({self.nv}) or torques ({self.n}) along its last axis, "
                            f"got shape {x.shape}")
