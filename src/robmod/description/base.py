"""The base of a robot (link 0): fixed, mobile or floating (docs/floating.md).

* ``"fixed"`` -- bolted to the ground, as in most of Khalil & Dombre: frame 0 is placed in the
  world by the constant Z = fT0 and the base motion fields V0, W0, VP0, WP0 of the robot are
  zero (or constants).
* ``"mobile"`` -- an arm on a vehicle, a ship, a moving platform: the motion of frame 0 is
  *given*.  In Khalil's notation (Khalil & Dombre §7.5, Eulerian variables of the base) it is
  the twist (V0, W0) and the accelerations (VP0, WP0) of frame 0, all in frame 0; every dynamic
  model takes them as inputs: the robot's fields (parameters of the customized models when
  they are symbols), or the arrays of the ``floating_*`` functions (a motion that changes with
  time).  Link 0 may carry inertial parameters: the models then also give
  the wrench the vehicle exerts on it (Pinocchio's ``rnea`` with a free-flyer).
* ``"floating"`` -- free in space (humanoids, legged robots, space robots, swimmers): the six
  coordinates of frame 0 are unactuated configuration variables (Featherstone 2008, ch. 9;
  Khalil, Gallot & Boyer 2007).

Convention of the configuration of a floating robot (``robmod.geometry.floating``)::

    q  = [x, y, z, Q0, Q1, Q2, Q3, q_1 .. q_n]          (7 + n_q)
    qd = [V0 (3), W0 (3), qd_1 .. qd_n]                   (6 + n_q)
    qdd = d/dt qd = [VD0 (3), WP0 (3), qdd_1 .. qdd_n]   (6 + n_q)

(x, y, z) is the origin O_0 of frame 0 in the world frame, Q = (Q0, Q1, Q2, Q3) the unit
quaternion of its orientation, scalar first (Khalil & Dombre §3.6.3; ``quaternion_to_matrix``);
V0 and W0 are the linear velocity of O_0 and the angular velocity of frame 0, both expressed in
frame 0 (the base twist in the base frame, Khalil's [7.20] order: linear first).  The
generalized acceleration is the time derivative of qd: its linear part VD0 = d(V0)/dt differs
from Khalil's VP0 (the acceleration of O_0 expressed in frame 0) by VP0 = VD0 + W0 x V0.
Pinocchio's free-flyer uses the same velocities and accelerations and the quaternion scalar
last; :func:`robmod.testing.peers.to_pinocchio_configuration` converts.
"""
from __future__ import annotations

from dataclasses import replace

import sympy as sp

from ..errors import DescriptionError
from .robot import INERTIAL, Link

FIXED_BASE, MOBILE_BASE, FLOATING_BASE = "fixed", "mobile", "floating"
BASE_KINDS = (FIXED_BASE, MOBILE_BASE, FLOATING_BASE)
#: entries of the base in a configuration and a velocity vector of a floating robot
BASE_Q, BASE_V = 7, 6


def check_kind(kind, what: str = "base") -> str:
    if kind not in BASE_KINDS:
        raise DescriptionError(f"{what} must be one of {', '.join(BASE_KINDS)}, got {kind!r}")
    return kind


def symbolic_base_link() -> Link:
    """Link 0 with SYMORO's symbolic inertial parameters XX0 .. M0 (no wrench)."""
    return Link(j=0, **{k: sp.Symbol(f"{k}0") for k in INERTIAL})


def with_base(robot, kind: str = FLOATING_BASE, link: Link | None = None, **inertial):
    """``robot`` with the base ``kind`` and link 0 (``link`` or its parameters given by
    keyword, e.g. ``M=500, XX=40, YY=40, ZZ=40``; by default the robot's own link 0).  A
    floating base needs Z = fT0 to be the identity: the pose of frame 0 is then its
    configuration."""
    from .validation import validate

    check_kind(kind)
    base_link = robot.base_link if link is None else replace(link, j=0)
    if inertial:
        unknown = sorted(set(inertial) - set(INERTIAL) - {"FX", "FY", "FZ", "CX", "CY", "CZ"})
        if unknown:
            raise DescriptionError(f"with_base: link 0 has no parameter {unknown[0]!r}; its "
                                   f"parameters: {', '.join(INERTIAL)}, FX..CZ")
        base_link = replace(base_link, **{k: sp.sympify(v) for k, v in inertial.items()})
    return validate(replace(robot, base_kind=kind, base_link=base_link))


def is_floating(robot) -> bool:
    return robot.base_kind == FLOATING_BASE


def configuration_size(robot) -> int:
    """Entries of the robot's configuration vector: 7 + n_q for a floating base, else n_q."""
    return robot.n_q + (BASE_Q if is_floating(robot) else 0)


def velocity_size(robot) -> int:
    """Entries of the robot's velocity vector: 6 + n_q for a floating base, else n_q."""
    return robot.n_q + (BASE_V if is_floating(robot) else 0)


__all__ = ["with_base", "configuration_size", "velocity_size", "BASE_KINDS"]
