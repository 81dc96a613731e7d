"""Analytic inverse geometric model by Paul's method (Khalil & Dombre ch. 4; seed 001 Appendix 1).

>>> import robmod
>>> from robmod.geometry.igm import igm_model
>>> sol = igm_model(robmod.load_robot("rx90"))       # doctest: +SKIP
>>> print(sol)                                       # the steps, types 2, 3, ...  # doctest: +SKIP
>>> q, valid = sol.solve(T)              # (..., 8, 6), (..., 8)    # doctest: +SKIP

* :func:`igm_model` runs the automatic search of :mod:`.paul` on the equations
  ``kT0 U0 nTm = kTm`` and returns an :class:`IGMSolution`: the steps (joint,
  equation type, equations used, formulas per branch), its text in the seeds'
  style, and a batched numeric evaluation built as a customized model.
* :func:`igm` is the numeric convenience: ``(q, valid)`` for targets T.

Robots with a spherical wrist are decoupled automatically (position first).
Redundant robots need ``fixed`` joints; when no closed form is found a
:class:`~robmod.errors.RobmodError` says what was tried (the general 6R
polynomial solver and the numeric IGM live elsewhere:
:mod:`robmod.geometry.igm_general6r`, :mod:`robmod.kinematics.ik_numeric`).
"""
from __future__ import annotations

import numpy as np

from ...errors import RobmodError
from .paul import paul_search
from .solution import IGMEvaluation, IGMSolution, IGMStep

_CACHE: dict = {}
ALL_FAMILIES = ("elem", "inv", "norm")


def _fixed_joints(fixed):
    if fixed is None:
        return (), None
    if isinstance(fixed, dict):
        return tuple(sorted(int(k) for k in fixed)), fixed
    if isinstance(fixed, (int, np.integer)):
        return (int(fixed),), None
    return tuple(sorted(int(k) for k in fixed)), None


def igm_model(robot, fixed=None, *, families=None) -> IGMSolution:
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
    """
    joints, _ = _fixed_joints(fixed)
    key = (id(robot), robot.name, joints, None if families is None else tuple(families))
    hit = _CACHE.get(key)
    if hit is not None and hit.robot is robot:
        return hit
    if families is None:
        try:
            system, steps = paul_search(robot, joints, ("elem",))
        except RobmodError:
            system, steps = paul_search(robot, joints, ALL_FAMILIES)
    else:
        system, steps = paul_search(robot, joints, tuple(families))
    sol = IGMSolution(system, steps)
    _CACHE[key] = sol
    return sol


def igm(robot, T, fixed=None, *, tool=None, base=False, params=None, tol=1e-9):
    """Numeric analytic IGM: ``(q, valid)`` with q (..., n_branches, n_joints).

    ``T`` (..., 4, 4) is 0Tn, or fTE with ``base=True`` / ``tool=name`` (the world
    frame Z and the tool matrix E are removed numerically first).  ``fixed`` is a dict
    ``{joint: value}`` (values scalars or arrays broadcast over the batch) for
    redundant robots.
    """
    joints, values = _fixed_joints(fixed)
    if joints and values is None:
        raise RobmodError("igm needs the values of the fixed joints: fixed={joint: value}")
    sol = igm_model(robot, joints)
    T = np.asarray(T, dtype=float)
    if T.shape[-2:] == (3, 4):
        T = np.concatenate([T, np.broadcast_to([0.0, 0.0, 0.0, 1.0], T.shape[:-2] + (1, 4))],
                           axis=-2)
    if base or tool is not None:
        T = _strip(robot, T, tool, base)
    qf = None
    if joints:
        qf = np.stack([np.asarray(values[j], dtype=float) *
                       np.ones(T.shape[:-2]) for j in joints], axis=-1)
    return sol.solve(T, qf, params=params, tol=tol)


def _strip(robot, T, tool, base):
    from ..dgm import _find_tool

    def num(M):
        return np.array(M.tolist(), dtype=float) if hasattr(M, "tolist") else np.asarray(M)

    if base:
        T = np.linalg.inv(num(robot.base.evalf())) @ T
    if tool is not None:
        t = tool if hasattr(tool, "T") else _find_tool(robot, tool)
        if t.frame != robot.n_frames:
            raise RobmodError(f"tool {t.name!r} is on frame {t.frame}, not on the last frame")
        T = T @ np.linalg.inv(num(t.T.evalf()))
    return T


__all__ = ["igm_model", "igm", "IGMSolution", "IGMStep", "IGMEvaluation"]
