"""The base of a robot (link 0): fixed, mobile or floating (docs/floating.md).

* ``"fixed"`` -- bolted to the ground, as in most of Khalil & Dombre: frame 0 is placed in the
  world by the constant Z = fT0 and the base motion fields V0, W0, VP0, WP0 of the robot are
  zero (or constants: parameters of the models, which ``base_motion=False`` sets to zero).
* ``"mobile"`` -- an arm on a vehicle, a ship, a moving platform: the motion of frame 0 is
  *given*.  Its configuration, velocity and acceleration are those of a floating robot (below):
  the base's entries are the inputs, the vehicle's motion (Khalil & Dombre §7.5, Eulerian
  variables of the base: the twist and the accelerations of frame 0, in frame 0).  Link 0 may
  carry inertial parameters: the inverse model then also gives the wrench the vehicle exerts
  on it; the direct model takes the base's acceleration as its ``base_acceleration``.
* ``"floating"`` -- free in space (humanoids, legged robots, space robots, swimmers): the six
  coordinates of frame 0 are unactuated configuration variables (Featherstone 2008, ch. 9;
  Khalil, Gallot & Boyer 2007).

Convention of the configuration of a mobile or floating robot (``robmod.geometry.floating``)::

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
from typing import Mapping

import sympy as sp

from ..arguments import did_you_mean, keyword_options, robot_argument
from ..errors import ArgumentError
from .expr import as_expr
from .robot import BASE_KINDS, FIXED_BASE, INERTIAL, WRENCH, Link, provide

#: entries of the base in a configuration and a velocity vector of a mobile or floating robot
BASE_Q, BASE_V = 7, 6

#: the names of the base's entries in the customized models' inputs, by group: its position
#: and quaternion, its twist (V0, W0) in frame 0, the twist's time derivative
BASE_INPUTS = {"q": ("PB1", "PB2", "PB3", "QB0", "QB1", "QB2", "QB3"),
               "qd": ("V01", "V02", "V03", "W01", "W02", "W03"),
               "qdd": ("VD01", "VD02", "VD03", "WP01", "WP02", "WP03")}


def check_kind(kind, what: str = "base") -> str:
    """``kind`` if it is a base kind, else an ArgumentError naming the closest one."""
    if not isinstance(kind, str) or kind not in BASE_KINDS:
        hint = did_you_mean(kind, BASE_KINDS) if isinstance(kind, str) else ""
        raise ArgumentError(f"{what} must be one of {', '.join(BASE_KINDS)}, got "
                            f"{kind!r}{hint}")
    return kind


def symbolic_base_link() -> Link:
    """Link 0 with SYMORO's symbolic inertial parameters XX0 .. M0 (no wrench)."""
    return Link(j=0, **{k: sp.Symbol(f"{k}0") for k in INERTIAL})


@keyword_options()
def with_base(robot, kind: str, *, link: Link | None = None, inertial=None):
    """``robot`` with the base ``kind`` and link 0: ``link``, or the robot's own with the
    parameters ``inertial`` (a mapping, e.g. ``{"M": 500, "XX": 40, "YY": 40, "ZZ": 40}``;
    :meth:`Robot.with_base` takes them by keyword).  A floating base needs Z = fT0 to be the
    identity: the pose of frame 0 is then its configuration."""
    from .validation import validate

    robot_argument(robot)
    check_kind(kind)
    if link is not None and not isinstance(link, Link):
        raise ArgumentError(f"with_base: link must be a Link (link 0's parameters), got "
                            f"{type(link).__name__}")
    base_link = robot.base_link if link is None else replace(link, j=0)
    if inertial:
        if not isinstance(inertial, Mapping):
            raise ArgumentError(f"with_base: inertial must be a mapping of link 0's parameters, "
                                f"got {type(inertial).__name__}")
        allowed = INERTIAL + WRENCH
        unknown = sorted(k for k in inertial if k not in allowed)
        if unknown:
            raise ArgumentError(f"with_base: link 0 has no parameter {unknown[0]!r}"
                                f"{did_you_mean(unknown[0], allowed)}; its parameters: "
                                f"{', '.join(INERTIAL)}, {', '.join(WRENCH)}")
        base_link = replace(base_link, **{k: as_expr(v) for k, v in inertial.items()})
    return validate(replace(robot, base_kind=kind, base_link=base_link))



#: the name of the world frame, where ``i=`` takes a frame (a number or a name)
WORLD = "world"


def is_world(robot, frame) -> bool:
    """Whether ``frame`` (an ``i=`` option) is the world frame, ``"world"`` (a robot's frame
    named so, a URDF's root link "world", is reached by its number)."""
    return isinstance(frame, str) and frame == WORLD


def world_target(what: str, robot, i) -> bool:
    """Whether the target pose of an inverse model is given in the world frame (``i="world"``,
    the fixed base's Z = fT0 to remove), else in frame 0 (``i=0``); an ArgumentError for any
    other frame."""
    if is_world(robot, i):
        return True
    if isinstance(i, int) and not isinstance(i, bool) and i == 0:
        return False
    raise ArgumentError(f'{what}: i must be 0 (the target iT_j in frame 0, the default) or '
                        f'"world" (in the world frame), got {i!r}')


def moving_base(robot) -> bool:
    """Whether the robot's configuration holds its base's pose (a mobile or a floating base:
    q = [P, Q, joints], qd = [V0, W0, joint rates]); a fixed base's is its joints only."""
    return robot_argument(robot).base_kind != FIXED_BASE


def configuration_size(robot) -> int:
    """Entries of the robot's configuration vector: 7 + n_q with a mobile or floating base,
    else n_q."""
    return robot_argument(robot).n_q + (BASE_Q if moving_base(robot) else 0)


def velocity_size(robot) -> int:
    """Entries of the robot's velocity vector: 6 + n_q with a mobile or floating base, else
    n_q."""
    return robot_argument(robot).n_q + (BASE_V if moving_base(robot) else 0)


provide("with_base", with_base)

__all__ = ["with_base", "configuration_size", "velocity_size", "BASE_KINDS", "WORLD"]
