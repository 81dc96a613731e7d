"""The robot drawn in 3D at a configuration (Matplotlib), with its manipulability ellipsoids.

Links are segments between the origins of consecutive frames (antecedent a(j) to j, so trees
and closed loops show their branches), with the joint axes z_j, the KK frames' labels and the
tools.  The ellipsoids at the end frame are computed by the models
(:func:`robmod.dynamics.manipulability_ellipsoid`: velocity, force and Yoshikawa's dynamic
ellipsoid, Khalil & Dombre §5.9, (5.36)-(5.38); Siciliano et al. §3.9, §7.9); any
:class:`~robmod.kinematics.Ellipsoid` can be passed as ``{label: ellipsoid}``.

Each ellipsoid is scaled for the drawing: its largest finite semi-axis is drawn at
``axis_length`` (or ``ellipsoid_scale`` drawing units per unit of the ellipsoid); unbounded
semi-axes (the force ellipsoid at a singularity) are drawn at three times ``axis_length``.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import configuration, keyword_options
from ..dynamics.operational import manipulability_ellipsoid as _ellipsoid
from ..geometry.direct import dgm, frame_origins
from ..geometry.floating import neutral
from ..kinematics.ellipsoids import ellipsoid_kinds, end_frame
from .canvas import finish, panels

ELLIPSOID_COLORS = {"velocity": "tab:red", "force": "tab:purple", "dynamic": "tab:brown"}


def _ellipsoid_surface(centre, ellipsoid, scale: float, cap: float, n_u: int = 24,
                       n_v: int = 12) -> np.ndarray:
    """Points (3, n_u, n_v) of the drawn surface: centre + U diag(scale * lengths) s for s on
    a (longitude, latitude) grid of the unit sphere; semi-axes beyond ``cap`` (unbounded
    ones) are drawn at ``cap``."""
    u, v = np.mgrid[0:2 * np.pi:n_u * 1j, 0:np.pi:n_v * 1j]
    sph = np.stack([np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v)])
    lengths = np.minimum(np.asarray(ellipsoid.lengths, dtype=float) * scale, cap)
    xyz = np.einsum("ik,k,kuv->iuv", np.asarray(ellipsoid.axes, dtype=float), lengths, sph)
    return np.asarray(centre, dtype=float)[:, None, None] + xyz


def _draw_ellipsoid(ax, centre, ellipsoid, *, length: float, scale=None, label=None,
                    color="tab:red"):
    """An ellipsoid as a wireframe around ``centre``: ``scale`` drawing units per unit of its
    lengths (default: the largest finite semi-axis drawn at ``length``)."""
    lengths = np.asarray(ellipsoid.lengths, dtype=float)
    finite = lengths[np.isfinite(lengths)]
    if scale is None:
        top = float(finite.max()) if finite.size else 0.0
        scale = length / top if top > 0 else 1.0
    unbounded = int(np.sum(~np.isfinite(lengths)))
    if unbounded and label:
        label = f"{label} (unbounded along {unbounded} ax{'es' if unbounded > 1 else 'is'})"
    xyz = _ellipsoid_surface(centre, ellipsoid, scale, cap=3 * length)
    return ax.plot_wireframe(*xyz, color=color, lw=0.3, label=label)


def _draw_links(ax, robot, poses, length, labels):
    """Links a(j) -> j, tools, joint axes z_j and the frames' labels."""
    P = {k: T[:3, 3] for k, T in poses.items()}
    for f in robot.frames:                     # links: a(j) -> j
        a, b = P[f.ant], P[f.j]
        ax.plot(*zip(a, b), color="0.25", lw=3, solid_capstyle="round",
                label="link" if f.j == 1 else None)
    for t in robot.tools:
        a, b = P[t.frame], P[t.name]
        ax.plot(*zip(a, b), color="tab:green", lw=2, label="tool" if t is robot.tools[0] else None)
        if labels:
            ax.text(*b, f" {t.name}", color="tab:green", fontsize=8)
    for f in robot.frames:                     # joint axes z_j and labels
        T = poses[f.j]
        if f.sigma != 2:
            z = T[:3, 2] * length
            ax.plot(*zip(T[:3, 3] - z / 2, T[:3, 3] + z / 2),
                    color="tab:blue" if f.sigma == 0 else "tab:orange", lw=1.5,
                    label={0: "revolute axis", 1: "prismatic axis"}[f.sigma]
                    if f.j == min(g.j for g in robot.frames if g.sigma == f.sigma) else None)
        if labels:
            ax.text(*T[:3, 3], f" {f.j}", fontsize=8)


@keyword_options()
def robot_plot(robot, q=None, path=None, *, ax=None, ellipsoid=None, ellipsoid_scale=None,
               j=None, tool=None, axis_length=None, labels=True):
    """The robot at its configuration ``q`` (default zeros; a mobile or floating robot's, the
    base's pose first, drawn in frame 0): links, joint axes, frame labels, tools, with the
    ``ellipsoid`` asked for — "velocity" (or True), "force", "dynamic", a list of them, or
    ``{label: Ellipsoid}`` — at the origin of frame ``j`` / ``tool`` (default: the first tool
    on the last link, else the last link).  ``axis_length``: of the drawn z_j (default 1/6 of
    the robot's size); each ellipsoid's largest semi-axis is drawn at ``axis_length`` unless
    ``ellipsoid_scale`` (drawing units per unit) is given.  Returns the figure (``path``:
    written; ``ax``: a 3D Axes to draw on)."""
    q = neutral(robot) if q is None else configuration(robot, q)
    kinds = ellipsoid_kinds(ellipsoid)
    chosen = [(k, _ellipsoid(robot, q, kind=k, j=j, tool=tool))
              if isinstance(k, str) else k for k in kinds]
    fig, ax = panels(path, ax, figsize=(7, 7), projection="3d")
    poses = frame_origins(robot, q)
    pts = np.array([T[:3, 3] for T in poses.values()])
    size = float(np.max(np.ptp(pts, axis=0))) or 1.0
    length = axis_length or size / 6
    _draw_links(ax, robot, poses, length, labels)
    if chosen:
        tool_obj, jj = end_frame(robot, j, tool)
        centre = dgm(robot, q, j=jj, tool=tool_obj)[:3, 3]
        for name, e in chosen:
            _draw_ellipsoid(ax, centre, e, length=length, scale=ellipsoid_scale,
                            label=f"{name} ellipsoid",
                            color=ELLIPSOID_COLORS.get(name, "tab:red"))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    mid, half = (lo + hi) / 2, max(float(np.max(hi - lo)) / 2, 1e-3) * 1.1
    ax.set_xlim(mid[0] - half, mid[0] + half)
    ax.set_ylim(mid[1] - half, mid[1] + half)
    ax.set_zlim(mid[2] - half, mid[2] + half)
    ax.set_xlabel("x0")
    ax.set_ylabel("y0")
    ax.set_zlabel("z0")
    joints = q[len(q) - robot.n_q:]
    ax.set_title(f"{robot.name} at q = {np.round(joints, 3).tolist()}", fontsize=9)
    legend = ax.legend(loc="upper left", fontsize="small")
    for handle in getattr(legend, "legend_handles", ()):   # the wireframes' lines are thin
        if hasattr(handle, "set_linewidth"):
            handle.set_linewidth(max(float(np.max(handle.get_linewidth())), 1.5))
    return finish(fig, path, layout=False)


__all__ = ["robot_plot"]
