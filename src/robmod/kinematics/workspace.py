"""Workspace slices and manipulability maps, computed by the batched numeric models (one DGM
and one Jacobian call for every configuration of the map); :mod:`robmod.plot` draws them.

The index of a configuration, from the task Jacobian J (the translational rows of 0J_n by
default — those not identically zero, so that a planar arm gets its planar index):

* ``"manipulability"``: Yoshikawa's w = sqrt(det(J J^T)) (Khalil & Dombre (5.38); Siciliano
  et al. §3.9), the product of the singular values, proportional to the volume of the
  velocity ellipsoid;
* ``"sigma_min"``: the smallest singular value, the distance to the nearest singularity
  (Khalil & Dombre §6.4).

Both are 0 when J has more rows than columns (the task is out of reach of the joints).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..description.arguments import jacobian_array, joint_array, keyword_options
from ..errors import ArgumentError
from ..geometry.direct import dgm
from .analysis import manipulability, min_singular_value
from .ellipsoids import end_frame
from .ik_numeric import joint_domain
from .jacobians import jacobian

#: the indices of :func:`manipulability_index`
INDICES = ("manipulability", "sigma_min")
#: the planes of :func:`workspace_slice`: the two axes of the base frame in the plane
PLANES = {"xy": (0, 1), "xz": (0, 2), "yz": (1, 2)}


def _task_rows(J, rows=None) -> np.ndarray:
    """J restricted to ``rows`` (indices into vx vy vz wx wy wz); default: the translational
    rows that are not zero over the whole batch."""
    if rows is None:
        rows = [r for r in range(3) if np.any(np.abs(J[..., r, :]) > 1e-12)] or [0, 1, 2]
    return J[..., list(rows), :]


@keyword_options()
def manipulability_index(J, *, index: str = "manipulability") -> np.ndarray:
    """The index of each Jacobian of a batch (..., m, n): w = prod sigma_i or sigma_min
    (0 when m > n)."""
    if index not in INDICES:
        raise ArgumentError(f"index must be one of {', '.join(INDICES)}, got {index!r}")
    J = jacobian_array(J)
    if index == "manipulability":
        return manipulability(J)
    m, n = J.shape[-2:]
    return np.zeros(J.shape[:-2]) if m > n else min_singular_value(J)


def plane_axes(plane: str):
    """(first, second, normal) axis indices of a plane of :data:`PLANES`."""
    if plane not in PLANES:
        raise ArgumentError(f"plane must be one of {', '.join(PLANES)}, got {plane!r}")
    a, b = PLANES[plane]
    return a, b, 3 - a - b


@dataclass(frozen=True)
class ManipulabilityMap:
    """The index over two joints swept (:func:`manipulability_map`): ``joints`` (a, b), the
    values ``qa`` (na,), ``qb`` (nb,), ``index`` (nb, na) and the end points ``P`` (nb, na, 3)
    (origin of the end frame in frame 0), at the configuration ``q`` for the other joints."""

    robot_name: str
    joints: tuple
    q: np.ndarray
    qa: np.ndarray
    qb: np.ndarray
    index_name: str
    index: np.ndarray
    P: np.ndarray


@keyword_options()
def manipulability_map(robot, q=None, *, joints=(2, 3), index="manipulability",
                       resolution: int = 61, ranges=None, rows=None, j=None,
                       tool=None) -> ManipulabilityMap:
    """The manipulability ``index`` of two ``joints`` swept over their ``ranges`` (default
    their limits, else [-pi, pi] (revolute) / [-1, 1] (prismatic); ``resolution`` values per
    joint), the others at ``q`` (default zeros), with the end points (origin of frame ``j`` /
    ``tool``, default the first tool on the last link, else the last link)."""
    q = np.zeros(robot.n_q) if q is None else joint_array(robot, "q", q, allow_batch=False)
    joints = tuple(joints)
    if len(joints) != 2 or joints[0] == joints[1] \
            or not all(jj in robot.joint_index for jj in joints):
        raise ArgumentError(f"joints: two different joint numbers among {list(robot.joints)}, "
                            f"got {joints}")
    if not (isinstance(resolution, (int, np.integer)) and resolution >= 2):
        raise ArgumentError(f"resolution must be an integer >= 2, got {resolution!r}")
    if index not in INDICES:
        raise ArgumentError(f"index must be one of {', '.join(INDICES)}, got {index!r}")
    tool, j = end_frame(robot, j, tool)
    if ranges is None:
        lo, hi = joint_domain(robot, joints)[:2]
        ranges = tuple(zip(lo, hi))
    try:
        (a0, a1), (b0, b1) = ((float(x), float(y)) for x, y in ranges)
    except (TypeError, ValueError):
        raise ArgumentError(f"ranges: ((lo, hi), (lo, hi)) of the two joints, got {ranges!r}") \
            from None
    ia, ib = (robot.joint_index[jj] for jj in joints)
    qa, qb = np.linspace(a0, a1, resolution), np.linspace(b0, b1, resolution)
    A, B = np.meshgrid(qa, qb)                      # (len(qb), len(qa))
    Q = np.tile(q, (A.size, 1))
    Q[:, ia], Q[:, ib] = A.ravel(), B.ravel()
    P = dgm(robot, Q, j=j, tool=tool)[:, :3, 3]
    w = manipulability_index(_task_rows(jacobian(robot, Q, j=j, tool=tool), rows), index=index)
    return ManipulabilityMap(robot.name, joints, q, qa, qb, index, w.reshape(A.shape),
                             P.reshape(A.shape + (3,)))


@dataclass(frozen=True)
class WorkspaceSlice:
    """The end points of random configurations near a plane (:func:`workspace_slice`): ``P``
    (k, 3) in frame 0, their ``index`` (k,) (None without one), the ``plane``, its ``offset``
    and ``thickness``, of ``samples`` configurations."""

    robot_name: str
    plane: str
    offset: float
    thickness: float
    samples: int
    P: np.ndarray
    index_name: str | None
    index: np.ndarray | None


def _joint_samples(robot, samples: int, seed=0) -> np.ndarray:
    """Configurations uniform in the joint box (limits, else [-pi, pi] / [-1, 1])."""
    if not (isinstance(samples, (int, np.integer)) and samples >= 1):
        raise ArgumentError(f"samples must be a positive integer, got {samples!r}")
    lo, hi = joint_domain(robot, robot.joints)[:2]
    return lo + (hi - lo) * np.random.default_rng(seed).random((int(samples), lo.size))


@keyword_options()
def workspace_slice(robot, *, plane="xz", samples: int = 20000, offset=0.0, thickness=None,
                    index="manipulability", rows=None, seed=0, j=None,
                    tool=None) -> WorkspaceSlice:
    """A slice of the workspace in ``plane`` ("xy", "xz", "yz"): the end points (origin of
    frame ``j`` / ``tool``) of ``samples`` random configurations (uniform in the joint limits,
    ``seed``) within ``thickness / 2`` of the plane at ``offset`` along its normal (default
    thickness: a tenth of the points' spread along it), with their ``index`` (None: none)."""
    pa, pb, pn = plane_axes(plane)
    if index is not None and index not in INDICES:
        raise ArgumentError(f"index must be one of {', '.join(INDICES)} or None, got {index!r}")
    tool, j = end_frame(robot, j, tool)
    Q = _joint_samples(robot, samples, seed)
    P = dgm(robot, Q, j=j, tool=tool)[:, :3, 3]
    if thickness is None:
        thickness = 0.1 * float(np.ptp(P[:, pn])) or 1e-9
    keep = np.abs(P[:, pn] - offset) <= thickness / 2
    w = None
    if index is not None:
        J = _task_rows(jacobian(robot, Q[keep], j=j, tool=tool), rows)
        w = manipulability_index(J, index=index)
    return WorkspaceSlice(robot.name, plane, float(offset), float(thickness), len(Q), P[keep],
                          index, w)


__all__ = ["INDICES", "PLANES", "manipulability_index", "ManipulabilityMap",
           "manipulability_map", "WorkspaceSlice", "workspace_slice"]
