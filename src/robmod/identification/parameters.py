"""The standard dynamic parameters of a robot and the set identified by default.

Per link j the ten inertial parameters ``XXj XYj XZj YYj YZj ZZj MXj MYj MZj Mj`` (Khalil &
Dombre §7.5.3; Gautier & Khalil 1990, (3)) and, for a joint, the rotor inertia ``IAj``, Coulomb
and viscous friction ``FCj FVj`` (Khalil & Dombre (7.26)).

:func:`parameter_set` is the set identification starts from: the description gives the
*geometry*, so every parameter of every moving link is unknown whatever value (or zero) the
file holds -- a URDF has no friction, no rotor inertia and often diagonal inertias, which does
not make them zero on the robot.  A link on a fixed frame (a flange, a tool mount) moves
rigidly with its antecedent: its ten inertial parameters enter when the description gives it
a body (they are then regrouped with the antecedent's).  The base parameters are computed
from this set (:mod:`.base_numeric`); the user fixes parameters explicitly (``known`` values,
``fixed`` names).
"""
from __future__ import annotations

import math

from ..description.arguments import keyword_options
from ..description.robot import FIXED, INERTIAL
from ..errors import RobmodError, UnknownNameError

JOINT_FIELDS = ("IA", "FC", "FV")
FIELDS = INERTIAL + JOINT_FIELDS


def split_name(name):
    """('XX', 3) for 'XX3'; an UnknownNameError (a KeyError too) for a name that is not a
    standard parameter's."""
    if isinstance(name, str):
        for f in sorted(FIELDS, key=len, reverse=True):
            if name.startswith(f) and name[len(f):].isdigit():
                return f, int(name[len(f):])
    raise UnknownNameError(f"{name!r} is not the name of a standard parameter (a field "
                           f"{', '.join(FIELDS)} followed by a link number, e.g. 'XX3')")


def _numeric(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


@keyword_options()
def parameter_set(robot, *, rotor: bool = True, friction: bool = True) -> tuple:
    """Every standard parameter of every moving link (XX..M, IA, FC, FV; ``rotor`` /
    ``friction`` switch IA / FC, FV off), and the inertial parameters of the links on fixed
    frames that the description gives a body, in the standard order (link 1 to n, XX..M,
    IA, FC, FV)."""
    out = []
    for link in robot.links:
        j = link.j
        moving = robot.frame(j).sigma != FIXED
        body = moving or any(getattr(link, k) not in (None, 0) for k in INERTIAL)
        for k in FIELDS:
            if k in JOINT_FIELDS:
                if moving and (rotor if k == "IA" else friction):
                    out.append(f"{k}{j}")
            elif body:
                out.append(f"{k}{j}")
    return tuple(out)


def description_values(robot, names) -> dict:
    """{name: value} of the parameters ``names`` whose value in the description is a number
    (symbols and missing fields left out)."""
    out = {}
    for n in names:
        field, j = split_name(n)
        v = _numeric(getattr(robot.link(j), field))
        if v is not None and math.isfinite(v):
            out[n] = v
    return out


def known_values(robot, standard, known=None, fixed=None) -> dict:
    """The parameters the user fixes: ``known`` {name: value} and ``fixed`` names (at their
    description's values), checked against the parameter set ``standard``."""
    out = {}
    for argument, names in (("known", list((known or {}).keys())), ("fixed", list(fixed or ()))):
        bad = [n for n in names if n not in standard]
        if bad:
            raise RobmodError(f"{argument}: {', '.join(map(str, bad))} "
                              f"{'is not a parameter' if len(bad) == 1 else 'are not parameters'}"
                              f" of {robot.name} (its parameters: {standard[0]} .. "
                              f"{standard[-1]}, e.g. M6, FC2, IA3)")
    for name, v in (known or {}).items():
        x = _numeric(v)
        if x is None or not math.isfinite(x):
            raise RobmodError(f"known: {name} = {v!r} must be a finite number")
        out[name] = x
    values = description_values(robot, fixed or ())
    for name in fixed or ():
        if name not in values:
            raise RobmodError(f"fixed: {name} has no numeric value in the description of "
                              f"{robot.name}: give it in known={{'{name}': value}}")
        if name in out:
            raise RobmodError(f"{name} is both in known and in fixed")
        out[name] = values[name]
    return out


__all__ = ["parameter_set"]
