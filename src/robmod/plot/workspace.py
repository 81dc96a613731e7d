"""Workspace slices and manipulability maps, drawn: the computations are those of
:mod:`robmod.kinematics` (:func:`~robmod.kinematics.manipulability_map`,
:func:`~robmod.kinematics.workspace_slice`) and of the Dask workspace map
(``workspace_map`` of the distributed package, computed on Dask)."""
from __future__ import annotations

import numpy as np

from ..description.arguments import keyword_options
from ..kinematics.workspace import manipulability_map, plane_axes, workspace_slice
from .canvas import finish, panels

INDEX_LABELS = {"manipulability": "w = sqrt(det(J J^T))", "sigma_min": "smallest singular value"}


def _image(ax, values, x, y, label):
    """``values`` (len(y), len(x)) as an image whose pixels are centred on the grid points."""
    dx = (x[-1] - x[0]) / max(len(x) - 1, 1) / 2 or 0.5
    dy = (y[-1] - y[0]) / max(len(y) - 1, 1) / 2 or 0.5
    im = ax.imshow(values, origin="lower", aspect="auto", interpolation="nearest",
                   extent=(x[0] - dx, x[-1] + dx, y[0] - dy, y[-1] + dy))
    ax.figure.colorbar(im, ax=ax, label=label)
    return im


@keyword_options()
def manipulability_plot(robot, q=None, path=None, *, joints=(2, 3), index="manipulability",
                        resolution: int = 61, ranges=None, plane="xz", rows=None, j=None,
                        tool=None, ax=None):
    """The manipulability map of two joints swept over their ranges, the others at ``q``
    (default zeros) (:func:`robmod.kinematics.manipulability_map`): left the index over
    (q_a, q_b) as an image, right the end points (origin of frame ``j`` / ``tool``, default
    the first tool on the last link, else the last link) projected on ``plane`` coloured by
    the index (``ax``: 2 Axes).  ``joints``: two joint numbers; ``ranges``: ((lo, hi),
    (lo, hi)), default their limits, else [-pi, pi] (revolute) / [-1, 1] (prismatic);
    ``resolution``: values per joint."""
    pa, pb, _ = plane_axes(plane)
    m = manipulability_map(robot, q, joints=joints, index=index, resolution=resolution,
                           ranges=ranges, rows=rows, j=j, tool=tool)
    ia, ib = (robot.joint_index[jj] for jj in m.joints)
    fig, (left, right) = panels(path, ax, 1, 2, figsize=(12, 5))
    _image(left, m.index, m.qa, m.qb, INDEX_LABELS[index])
    left.plot([m.q[ia]], [m.q[ib]], "w+", ms=10)
    left.set_xlabel(f"q{m.joints[0]}")
    left.set_ylabel(f"q{m.joints[1]}")
    left.set_title(f"{robot.name}: {index} over q{m.joints[0]}, q{m.joints[1]}", fontsize=9)
    P = m.P.reshape(-1, 3)
    sc = right.scatter(P[:, pa], P[:, pb], c=m.index.ravel(), s=4)
    fig.colorbar(sc, ax=right, label=INDEX_LABELS[index])
    right.set_xlabel(f"{'xyz'[pa]}0")
    right.set_ylabel(f"{'xyz'[pb]}0")
    right.set_aspect("equal", adjustable="datalim")
    right.set_title("end points, coloured by the index", fontsize=9)
    return finish(fig, path, layout=ax is None)


@keyword_options()
def workspace_plot(robot_or_map, path=None, *, plane="xz", samples: int = 20000, offset=0.0,
                   thickness=None, index="manipulability", rows=None, seed=0, j=None,
                   tool=None, ax=None):
    """A slice of the workspace in ``plane`` ("xy", "xz", "yz").

    Of a robot (:func:`robmod.kinematics.workspace_slice`): ``samples`` random configurations
    (uniform in the joint limits, ``seed``); the end points (origin of frame ``j`` / ``tool``)
    within ``thickness / 2`` of the plane at ``offset`` along its normal (default thickness:
    a tenth of the points' spread along it) drawn in the plane, coloured by ``index`` (None:
    one colour); ``ax``: one Axes.

    Of a WorkspaceMap (``workspace_map`` on Dask, ``robmod workspace``): its voxels
    summed along the normal — the samples reaching each cell, and their mean
    manipulability — as two images (``ax``: 2 Axes)."""
    pa, pb, pn = plane_axes(plane)
    if hasattr(robot_or_map, "counts") and hasattr(robot_or_map, "edges"):
        return _map_slices(robot_or_map, path, pa, pb, pn, ax)
    robot = robot_or_map
    s = workspace_slice(robot, plane=plane, samples=samples, offset=offset,
                        thickness=thickness, index=index, rows=rows, seed=seed, j=j, tool=tool)
    fig, ax1 = panels(path, ax, figsize=(7, 6))
    if s.index is None:
        ax1.scatter(s.P[:, pa], s.P[:, pb], s=2, color="tab:blue")
    else:
        sc = ax1.scatter(s.P[:, pa], s.P[:, pb], c=s.index, s=2)
        fig.colorbar(sc, ax=ax1, label=INDEX_LABELS[index])
    n = "xyz"[pn]
    ax1.set_xlabel(f"{'xyz'[pa]}0")
    ax1.set_ylabel(f"{'xyz'[pb]}0")
    ax1.set_aspect("equal", adjustable="datalim")
    ax1.set_title(f"{robot.name}: {len(s.P)} of {s.samples} samples with "
                  f"|{n}0 - {s.offset:g}| <= {s.thickness / 2:.3g}", fontsize=9)
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


__all__ = ["manipulability_plot", "workspace_plot"]
