"""Analytic inverse geometric model by Paul's method (Khalil & Dombre ch. 4; Khalil & Dombre Appendix 1).

>>> import robmod
>>> from robmod.geometry.inverse import igm_model
>>> sol = igm_model(robmod.load_robot("rx90"))       # doctest: +SKIP
>>> print(sol)                                       # the steps, types 2, 3, ...  # doctest: +SKIP
>>> q, valid = sol.solve(T)              # (..., 8, 6), (..., 8)    # doctest: +SKIP

* :func:`igm_model` runs the automatic search of :mod:`.paul` on the equations
  ``kT0 U0 nTm = kTm`` and returns an :class:`IGMSolution`: the steps (joint,
  equation type, equations used, formulas per branch), its text in the books'
  style, and a batched numeric evaluation built as a customized model.
* :func:`igm` is the numeric convenience: an :class:`~robmod.geometry.IGMResult` for
  targets T, which unpacks as ``q, valid``.

Robots with a spherical wrist are decoupled automatically (position first).
Redundant robots need ``fixed`` joints; when no closed form is found,
:func:`igm_model` raises a :class:`~robmod.errors.RobmodError` saying what was
tried, and :func:`igm` of a 6R robot falls back (:mod:`.fallback`) to Pieper's
quartic for a spherical wrist (:mod:`robmod.geometry.igm_pieper`) and to the
exact general-6R solver otherwise (:mod:`robmod.geometry.igm_general6r`); these
two are numeric only.  Other robots: the numeric IGM, :mod:`robmod.kinematics.ik_numeric`.
"""
from __future__ import annotations

import numpy as np

from ...description.arguments import keyword_options, pose_array
from ...description.base import world_target
from ...errors import RobmodError
from ...symbolic.cache import cached
from .paul import paul_search
from .solution import IGMSolution, IGMStep

_ALL_FAMILIES = ("elem", "inv", "norm")


def _fixed_joints(fixed):
    if fixed is None:
        return (), None
    if isinstance(fixed, dict):
        return tuple(sorted(int(k) for k in fixed)), fixed
    if isinstance(fixed, (int, np.integer)):
        return (int(fixed),), None
    return tuple(sorted(int(k) for k in fixed)), None


def _chain(robot, frame, joints):
    """Tree / closed loop: the serial chain to ``frame``, and ``fixed`` in its numbering."""
    from ..chain import serial_chain

    if frame is None:
        raise RobmodError(f"{robot.name!r} is a {robot.structure} structure: give j (robmod igm: --frame J), the "
                          "frame whose pose is the target (the IGM solves the chain 0..j)")
    chain, ch = serial_chain(robot, j=frame)
    missing = [j for j in joints if j not in ch]
    if missing:
        raise RobmodError(f"fixed joints {missing} are not on the chain of frame {frame} "
                          f"({', '.join(map(str, ch))})")
    return chain, ch, tuple(ch.index(j) + 1 for j in joints)


@keyword_options()
def igm_model(robot, *, fixed=None, j=None, families=None) -> IGMSolution:
    """The analytic IGM of ``robot`` (frame n relative to frame 0) by Paul's method.

    ``fixed``: joints whose values the user gives (a list of joint indices, or a
    dict ``{joint: value}`` whose values are ignored here) - needed for a
    redundant robot (e.g. the Panda with ``fixed=[7]``).
    ``families`` chooses the equations searched: ``"elem"`` the elements of
    ``kT0 U0 nTm = kTm`` (Paul's classical equations), ``"inv"`` the position column of
    their inverses and ``"norm"`` the squared norm of the position column (these two
    solve robots whose first three axes intersect, through the inverse robot, and the
    Pieper-type robots).  Default: the elements first, then all three if that fails.
    Raises :class:`RobmodError` ("no closed form found ...") when the search fails.

    Tree and closed-loop robots: ``j`` names the end frame (as in iTj); the IGM is that of the
    serial chain from the base to j (:func:`robmod.geometry.chain.serial_chain`), its
    joint q_i being the robot's joint ``solution.robot_joints[i-1]`` (``fixed`` uses the
    robot's numbering).  For a closed loop, the passive joints off the chain then come
    from the loop-closure equations (:func:`robmod.geometry.loops.solve_loops`).
    """
    joints, _ = _fixed_joints(fixed)
    if robot.structure != "serial" or (j is not None and j != robot.n_frames):
        chain, ch, cj = _chain(robot, j, joints)
        sol = igm_model(chain, fixed=cj or None, families=families)
        sol.robot_joints = ch
        return sol
    key = ("igm", robot.content_key, joints, None if families is None else tuple(families))
    passes = (("elem",), _ALL_FAMILIES) if families is None else (tuple(families),)

    def search():
        try:
            return IGMSolution(*paul_search(robot, joints, passes=passes))
        except RobmodError as e:       # kept: the search fails fast for this content again
            return e

    hit = cached(key, search)
    if isinstance(hit, RobmodError):
        raise hit
    return hit


@keyword_options()
def igm(robot, T, *, fixed=None, j=None, i=0, tool=None, params=None, tol=1e-9,
        method="auto"):
    """Numeric analytic IGM: an :class:`~robmod.geometry.IGMResult`, which unpacks as
    ``q, valid`` with q (..., n_branches, n_joints) and valid (..., n_branches).

    ``T`` (..., 4, 4) is iTn (``i`` 0, the default, or ``"world"``: the pose in the world,
    the fixed base's Z = fT0 removed numerically first), or iTE with ``tool=name`` (the tool
    matrix E removed too).  ``fixed`` is a dict
    ``{joint: value}`` (values scalars or arrays broadcast over the batch) for
    redundant robots.  Tree and closed-loop robots: ``j`` (see :func:`igm_model`);
    the columns of q are then the joints of the chain, ``robot.chain(j)``.

    A 6R robot without a closed form is solved numerically (see :mod:`.fallback`):
    Pieper's quartic (8 branches) for a spherical wrist, the general-6R eigenvalue
    method (16 branches, the first ones valid) otherwise; q is NaN on invalid branches.
    ``result.method`` says which (``"paul"``, ``"pieper"``, ``"general6r"``); the closed
    form and Pieper's method also give ``singular`` and ``residual`` per branch.
    ``method``: ``"auto"`` (that order), ``"paul"`` (closed form only), ``"pieper"`` or
    ``"general6r"`` (skip the closed-form search).
    """
    joints, values = _fixed_joints(fixed)
    if joints and values is None:
        raise RobmodError("igm needs the values of the fixed joints: fixed={joint: value}")
    if robot.structure != "serial" or (j is not None and j != robot.n_frames):
        chain, ch, cj = _chain(robot, j, joints)
        if tool is not None and not hasattr(tool, "T"):
            from ..direct import find_tool

            tool = find_tool(robot, tool).name
        return igm(chain, T, fixed={c: values[j] for c, j in zip(cj, joints)} if joints else None,
                   tool=tool, i=i, params=params, tol=tol, method=method)
    sol, method = _choose(robot, joints, method)
    T = pose_array("T", T, finite=False)    # a NaN target: its branches are invalid
    world = world_target("igm", robot, i)
    if world or tool is not None:
        T = _strip(robot, T, tool, world)
    qf = None
    if joints:
        qf = np.stack([np.asarray(values[j], dtype=float) *
                       np.ones(T.shape[:-2]) for j in joints], axis=-1)
    if sol is None:
        from .fallback import solve_fallback

        if params:
            raise RobmodError("igm: params= needs a closed form; this robot has none "
                              "(give a numeric robot: robot.numeric(params))")
        return solve_fallback(robot, T, method, tol)
    return sol.solve(T, qf, params=params, tol=tol)


def _choose(robot, joints, method):
    """(IGMSolution or None, fallback method name) for :func:`igm`."""
    from .fallback import fallback_method, no_special_axes

    if method not in ("auto", "paul", "pieper", "general6r"):
        raise RobmodError(f"igm: method must be 'auto', 'paul', 'pieper' or 'general6r', "
                          f"got {method!r}")
    if method in ("pieper", "general6r"):
        if joints:
            raise RobmodError(f"igm: method={method!r} takes no fixed joints (6R robots)")
        if method == "pieper" and fallback_method(robot) != "pieper":
            raise RobmodError(f"igm: method='pieper' needs a 6R robot with a spherical wrist; "
                              f"{robot.name!r} has none")
        return None, method
    if method == "auto" and not joints and no_special_axes(robot):
        return None, "general6r"  # no two consecutive axes meet or are parallel
    try:
        return igm_model(robot, fixed=joints), None
    except RobmodError:
        fb = None if joints or method == "paul" else fallback_method(robot)
        if fb is None:
            raise
        return None, fb


def _strip(robot, T, tool, base):
    from ..direct import find_tool

    def num(M):
        return np.array(M.tolist(), dtype=float) if hasattr(M, "tolist") else np.asarray(M)

    if base:
        T = np.linalg.inv(num(robot.Z.evalf())) @ T
    if tool is not None:
        t = tool if hasattr(tool, "T") else find_tool(robot, tool)
        if t.frame != robot.n_frames:
            raise RobmodError(f"tool {t.name!r} is on frame {t.frame}, not on the last frame")
        T = T @ np.linalg.inv(num(t.T.evalf()))
    return T


__all__ = ["igm_model", "igm", "IGMSolution", "IGMStep"]
