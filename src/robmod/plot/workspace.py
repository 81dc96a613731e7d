"""Workspace slices and manipulability maps, computed by the batched numeric models (one DGM
and one Jacobian call for every configuration of the map).

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

import numpy as np

from ..errors import RobmodError
from ..figures import finish, panels
from ..geometry.direct import dgm
from ..kinematics.analysis import manipulability, min_singular_value
from ..kinematics.drawing import end_frame
from ..kinematics.ik_numeric import joint_domain
from ..kinematics.jacobians import jacobian

INDICES = ("manipulability", "sigma_min")
PLANES = {"xy": (0, 1), "xz": (0, 2), "yz": (1, 2)}
INDEX_LABELS = {"manipulability": "w = sqrt(det(J J^T))", "sigma_min": "smallest singular value"}


def _task_rows(J, rows=None) -> np.ndarray:
    """J restricted to ``rows`` (indices into vx vy vz wx wy wz); default: the translational
    rows that are not zero over the whole batch."""
    if rows is None:
        rows = [r for r in range(3) if np.any(np.abs(J[..., r, :]) > 1e-12)] or [0, 1, 2]
    return J[..., list(rows), :]


def manipulability_index(J, index: str = "manipulability") -> np.ndarray:
    """The index of each Jacobian of a batch (..., m, n): w = prod sigma_i or sigma_min
    (0 when m > n)."""
    if index not in INDICES:
        raise RobmodError(f"index must be one of {', '.join(INDICES)}, got {index!r}")
    if index == "manipulability":
        return manipulability(J)
    m, n = J.shape[-2:]
    return np.zeros(J.shape[:-2]) if m > n else min_singular_value(J)


def _plane_axes(plane: str):
    if plane not in PLANES:
        raise RobmodError(f"plane must be one of {', '.join(PLANES)}, got {plane!r}")
    a, b = PLANES[plane]
    return a, b, 3 - a - b


def _image(ax, values, x, y, label):
    """``values`` (len(y), len(x)) as an image whose pixels are centred on the grid points."""
    dx = (x[-1] - x[0]) / max(len(x) - 1, 1) / 2 or 0.5
    dy = (y[-1] - y[0]) / max(len(y) - 1, 1) / 2 or 0.5
    im = ax.imshow(values, origin="lower", aspect="auto", interpolation="nearest",
                   extent=(x[0] - dx, x[-1] + dx, y[0] - dy, y[-1] + dy))
    ax.figure.colorbar(im, ax=ax, label=label)
    return im


def manipulability_plot(robot, q=None, path=None, *, joints=(2, 3), index="manipulability",
                        resolution: int = 61, ranges=None, plane="xz", rows=None, j=None,
                        tool=None, ax=None):
    """The manipulability map of two joints swept over their ranges, the others at ``q``
    (default zeros): left the index over (q_a, q_b) as an image, right the end points
    (origin of frame ``j`` / ``tool``, default the first tool on the last link, else the last
    link) projected on ``plane`` coloured by the index (``ax``:
    2 Axes).  ``joints``: two joint numbers; ``ranges``: ((lo, hi), (lo, hi)), default their
    limits, else [-pi, pi] (revolute) / [-1, 1] (prismatic); ``resolution``: values per
    joint."""
    q = np.zeros(robot.n_q) if q is None else np.asarray(q, dtype=float)
    if q.shape != (robot.n_q,):
        raise RobmodError(f"q: expected {robot.n_q} joint values, got shape {q.shape}")
    joints = tuple(joints)
    if len(joints) != 2 or joints[0] == joints[1] \
            or not all(jj in robot.joint_index for jj in joints):
        raise RobmodError(f"joints: two different joint numbers among {list(robot.joints)}, "
                          f"got {joints}")
    if not (isinstance(resolution, (int, np.integer)) and resolution >= 2):
        raise RobmodError(f"resolution must be an integer >= 2, got {resolution!r}")
    pa, pb, _ = _plane_axes(plane)
    tool, j = end_frame(robot, j, tool)
    if ranges is None:
        lo, hi = joint_domain(robot, joints)[:2]
        ranges = tuple(zip(lo, hi))
    (a0, a1), (b0, b1) = ranges
    ia, ib = (robot.joint_index[jj] for jj in joints)
    qa, qb = np.linspace(a0, a1, resolution), np.linspace(b0, b1, resolution)
    A, B = np.meshgrid(qa, qb)                      # (len(qb), len(qa))
    Q = np.tile(q, (A.size, 1))
    Q[:, ia], Q[:, ib] = A.ravel(), B.ravel()
    P = dgm(robot, Q, j=j, tool=tool)[:, :3, 3]
    w = manipulability_index(_task_rows(jacobian(robot, Q, j=j, tool=tool), rows), index)
    fig, (left, right) = panels(path, ax, 1, 2, figsize=(12, 5))
    _image(left, w.reshape(A.shape), qa, qb, INDEX_LABELS[index])
    left.plot([q[ia]], [q[ib]], "w+", ms=10)
    left.set_xlabel(f"q{joints[0]}")
    left.set_ylabel(f"q{joints[1]}")
    left.set_title(f"{robot.name}: {index} over q{joints[0]}, q{joints[1]}", fontsize=9)
    sc = right.scatter(P[:, pa], P[:, pb], c=w, s=4)
    fig.colorbar(sc, ax=right, label=INDEX_LABELS[index])
    right.set_xlabel(f"{'xyz'[pa]}0")
    right.set_ylabel(f"{'xyz'[pb]}0")
    right.set_aspect("equal", adjustable="datalim")
    right.set_title("end points, coloured by the index", fontsize=9)
    return finish(fig, path, layout=ax is None)


def _joint_samples(robot, samples: int, seed=0) -> np.ndarray:
    """Configurations uniform in the joint box (limits, else [-pi, pi] / [-1, 1])."""
    if not (isinstance(samples, (int, np.integer)) and samples >= 1):
        raise RobmodError(f"samples must be a positive integer, got {samples!r}")
    lo, hi = joint_domain(robot, robot.joints)[:2]
    return lo + (hi - lo) * np.random.default_rng(seed).random((int(samples), lo.size))


def workspace_plot(robot_or_map, path=None, *, plane="xz", samples: int = 20000, offset=0.0,
                   thickness=None, index="manipulability", rows=None, seed=0, j=None,
                   tool=None, ax=None):
    """A slice of the workspace in ``plane`` ("xy", "xz", "yz").

    Of a robot: ``samples`` random configurations (uniform in the joint limits, ``seed``);
    the end points (origin of frame ``j`` / ``tool``) within ``thickness / 2`` of the plane
    at ``offset`` along its normal (default thickness: a tenth of the points' spread along
    it) drawn in the plane, coloured by ``index`` (None: one colour); ``ax``: one Axes.

    Of a WorkspaceMap (``workspace_map`` on Dask, ``robmod workspace``): its voxels
    summed along the normal — the samples reaching each cell, and their mean
    manipulability — as two images (``ax``: 2 Axes)."""
    pa, pb, pn = _plane_axes(plane)
    if hasattr(robot_or_map, "counts") and hasattr(robot_or_map, "edges"):
        return _map_slices(robot_or_map, path, pa, pb, pn, ax)
    robot = robot_or_map
    if index is not None and index not in INDICES:
        raise RobmodError(f"index must be one of {', '.join(INDICES)} or None, got {index!r}")
    tool, j = end_frame(robot, j, tool)
    Q = _joint_samples(robot, samples, seed)
    P = dgm(robot, Q, j=j, tool=tool)[:, :3, 3]
    if thickness is None:
        thickness = 0.1 * float(np.ptp(P[:, pn])) or 1e-9
    keep = np.abs(P[:, pn] - offset) <= thickness / 2
    P = P[keep]
    fig, ax1 = panels(path, ax, figsize=(7, 6))
    if index is None:
        ax1.scatter(P[:, pa], P[:, pb], s=2, color="tab:blue")
    else:
        J = _task_rows(jacobian(robot, Q[keep], j=j, tool=tool), rows)
        sc = ax1.scatter(P[:, pa], P[:, pb], c=manipulability_index(J, index), s=2)
        fig.colorbar(sc, ax=ax1, label=INDEX_LABELS[index])
    n = "xyz"[pn]
    ax1.set_xlabel(f"{'xyz'[pa]}0")
    ax1.set_ylabel(f"{'xyz'[pb]}0")
    ax1.set_aspect("equal", adjustable="datalim")
    ax1.set_title(f"{robot.name}: {int(keep.sum())} of {len(Q)} samples with "
                  f"|{n}0 - {offset:g}| <= {thickness / 2:.3g}", fontsize=9)
    return finish(fig, path, layout=ax is None)


def _map_slices(m, path, pa, pb, pn, ax):
    """Counts and mean manipulability of a WorkspaceMap summed along axis ``pn``."""
    counts = np.asarray(m.counts).sum(axis=pn)
    w_sum = np.asarray(m.w_voxel_sum).sum(axis=pn)
    with np.errstate(invalid="ignore", divide="ignore"):
        w_mean = np.where(counts > 0, w_sum / np.maximum(counts, 1), np.nan)
    ea, eb = np.asarray(m.edges[pa]), np.asarray(m.edges[pb])
    ca, cb = (ea[:-1] + ea[1:]) / 2, (eb[:-1] + eb[1:]) / 2
    fig, (left, right) = panels(path, ax, 1, 2, figsize=(12, 5))
    # counts[a, b] with a along the first plane axis: the image rows are b
    _image(left, np.where(counts > 0, counts, np.nan).T, ca, cb, "samples per cell")
    _image(right, w_mean.T, ca, cb, "mean manipulability")
    for a, title in ((left, f"workspace: {m.n_samples} samples"),
                     (right, f"manipulability (max {m.w_max:.3g})")):
        a.set_xlabel(f"{'xyz'[pa]}0")
        a.set_ylabel(f"{'xyz'[pb]}0")
        a.set_title(title, fontsize=9)
    return finish(fig, path, layout=ax is None)


__all__ = ["INDICES", "PLANES", "manipulability_index", "manipulability_plot",
           "workspace_plot"]
