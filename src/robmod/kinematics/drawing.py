"""The robot drawn in 3D at a configuration (Matplotlib): links as segments between the
origins of consecutive frames (antecedent a(j) to j, so trees and closed loops show their
branches), the joint axes z_j, the KK frames' labels and the tools; optionally the velocity
manipulability ellipsoid of the end frame (Khalil & Dombre ch. 5: principal axes U_i and
lengths sigma_i of the SVD of the translational rows of 0J_n, scaled for the drawing)."""
from __future__ import annotations

import numpy as np

from ..errors import RobmodError
from ..geometry.direct import dgm


def frame_origins(robot, q) -> dict:
    """{frame j: 0T_j (4x4)} for every frame (0 = identity) and {tool name: 0T_E}."""
    q = np.asarray(q, dtype=float)
    poses = {0: np.eye(4)}
    for f in robot.frames:
        poses[f.j] = dgm(robot, q, j=f.j)
    for t in robot.tools:
        poses[t.name] = dgm(robot, q, tool=t.name)
    return poses


def draw_robot(robot, q=None, path=None, *, ax=None, axis_length=None, labels=True,
               ellipsoid=False):
    """Draw ``robot`` at ``q`` (default zeros); returns the Matplotlib figure (written to
    ``path`` when given).  ``axis_length``: of the drawn z_j (default 1/6 of the robot's
    size); ``ellipsoid``: also the velocity manipulability ellipsoid at the last frame."""
    try:
        import matplotlib
        if path is not None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        raise RobmodError("drawings need Matplotlib: pip install 'robmod[plot]'") from None
    q = np.zeros(robot.n_q) if q is None else q
    poses = frame_origins(robot, q)
    P = {k: T[:3, 3] for k, T in poses.items()}
    pts = np.array(list(P.values()))
    size = float(np.max(np.ptp(pts, axis=0))) or 1.0
    length = axis_length or size / 6
    if ax is None:
        fig = plt.figure(figsize=(7, 7))
        ax = fig.add_subplot(projection="3d")
    else:
        fig = ax.figure
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
    if ellipsoid:      # translational velocity ellipsoid: U diag(sigma) of 0J_n's first rows
        from .jacobians import jacobian

        U, sigma, _ = np.linalg.svd(jacobian(robot, q)[:3])
        u, v = np.mgrid[0:2 * np.pi:24j, 0:np.pi:12j]
        sph = np.stack([np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v)])
        scale = length / max(float(sigma[0]), 1e-12)
        xyz = np.einsum("ik,k,kuv->iuv", U, sigma * scale, sph)
        c = P[robot.n_links]
        ax.plot_wireframe(c[0] + xyz[0], c[1] + xyz[1], c[2] + xyz[2], color="tab:red",
                          lw=0.3, label="velocity ellipsoid")
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    mid, half = (lo + hi) / 2, max(float(np.max(hi - lo)) / 2, 1e-3) * 1.1
    ax.set_xlim(mid[0] - half, mid[0] + half)
    ax.set_ylim(mid[1] - half, mid[1] + half)
    ax.set_zlim(mid[2] - half, mid[2] + half)
    ax.set_xlabel("x0")
    ax.set_ylabel("y0")
    ax.set_zlabel("z0")
    ax.set_title(f"{robot.name} at q = {np.round(np.asarray(q, float), 3).tolist()}",
                 fontsize=9)
    ax.legend(loc="upper left", fontsize="small")
    if path is not None:
        fig.savefig(path)
    return fig


__all__ = ["draw_robot", "frame_origins"]
