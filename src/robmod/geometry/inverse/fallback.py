"""What :func:`robmod.geometry.inverse.igm` does when Paul's method finds no closed form (6R).

* three concurrent axes at the end (spherical wrist), general first three joints:
  Pieper's method (Khalil & Dombre, ch. 4, robots with a spherical wrist, general
  case): a quartic in tan(q3/2), up to 4 x 2 = 8 branches
  (:func:`robmod.geometry.igm_pieper.igm_pieper`);
* any other 6R robot: the exact general-6R method (Raghavan & Roth, dialytic
  elimination, up to 16 solutions, :func:`robmod.geometry.igm_general6r.igm_general6r`).

Both are numeric (NumPy), solved target by target over the batch; the result has the
shape of the closed-form IGM: an :class:`~robmod.geometry.IGMResult`, q (..., B, 6) with NaN on
invalid branches.
"""
from __future__ import annotations

import numpy as np

from ...errors import RobmodError
from ..igm_general6r import chain_constants, igm_general6r
from ..igm_pieper import N_BRANCHES, has_spherical_wrist, igm_pieper
from ..igm_result import IGMResult

_GENERAL6R_BRANCHES = 16


def fallback_method(robot) -> str | None:
    """``"pieper"``, ``"general6r"`` or None (not a serial 6R robot)."""
    if robot.structure != "serial" or robot.n_loops:
        return None
    try:
        chain_constants(robot)
    except RobmodError:
        return None
    return "pieper" if has_spherical_wrist(robot) else "general6r"


def no_special_axes(robot, tol=1e-9) -> bool:
    """True for a 6R robot no two consecutive axes of which intersect or are parallel.

    Paul's method then has no equation of types 1 to 8 to start from (the general
    6R robot, Khalil & Dombre ch. 4: a polynomial of degree 16): :func:`igm` goes to
    the general-6R solver directly instead of a long, fruitless search.
    """
    try:
        _, C = chain_constants(robot)
    except RobmodError:
        return False
    L = max(1.0, max(np.linalg.norm(c[:3, 3]) for c in C))
    z = np.array([0.0, 0.0, 1.0])
    for c in C[1:6]:
        z2, o2 = c[:3, 2], c[:3, 3]
        n = np.cross(z, z2)
        if np.linalg.norm(n) < tol:
            return False                                  # parallel axes
        if abs(o2 @ n) / np.linalg.norm(n) < tol * L:
            return False                                  # intersecting axes
    return True


def solve_fallback(robot, T, method, tol=1e-9):
    """The :class:`IGMResult` for targets T (..., 4, 4) by ``method`` (see
    :func:`fallback_method`); Pieper's method also gives ``singular`` and ``residual``."""
    joints, _ = chain_constants(robot)
    idx = np.array(joints) - 1
    batch = T.shape[:-2]
    flat = T.reshape((-1, 4, 4))
    nb = N_BRANCHES if method == "pieper" else _GENERAL6R_BRANCHES
    q = np.full((len(flat), nb, len(joints)), np.nan)
    valid = np.zeros((len(flat), nb), bool)
    singular = np.zeros((len(flat), nb), bool)
    residual = np.full((len(flat), nb), np.inf)
    for k, Tk in enumerate(flat):
        if not np.all(np.isfinite(Tk)):
            continue
        if method == "pieper":
            res = igm_pieper(robot, Tk, tol=min(tol, 1e-10))
            q[k] = res.q[:, idx]
            valid[k], singular[k], residual[k] = res.valid, res.singular, res.residual
        else:
            sols = igm_general6r(robot, Tk, tol=min(tol, 1e-10)).q
            q[k, :len(sols)] = sols[:, idx]
            valid[k, :len(sols)] = True
    q[~valid] = np.nan
    if method != "pieper":
        singular = residual = None
    else:
        singular, residual = singular.reshape(batch + (nb,)), residual.reshape(batch + (nb,))
    return IGMResult(q.reshape(batch + (nb, len(joints))), valid.reshape(batch + (nb,)), method,
                     singular=singular, residual=residual)


__all__ = []
