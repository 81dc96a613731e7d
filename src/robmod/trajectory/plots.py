"""Figures of trajectories (Matplotlib, optional: ``pip install 'robmod[plot]'``).

* :func:`joint_figure`: q, qd, qdd and the jerk of every joint against time, with the
  velocity and acceleration limits used (+-) and the switching times of the law;
* :func:`task_line_figure`: a task-space line (Khalil & Dombre §8.4) — the tool position,
  the linear and angular speeds against the task limits, and the deviation of the tool frame
  the joints reach (their DGM) from the planned line, in position ||P(q(t)) - P(t)|| and in
  orientation (the angle of R(t)^T R(q(t))) — beside the joint panels.
"""
from __future__ import annotations

import numpy as np

from ..figures import finish, panels

JOINT_PANELS = ("q", "qd", "qdd", "jerk")


def _draw_joint_panels(ax, traj, t, s, limits=None):
    """q, qd, qdd, jerk (columns of ``s`` at ``t``) on four Axes; dotted +-limits
    (``limits`` = (qd_max, qdd_max), None where unknown); grey lines at the phases."""
    for j in range(traj.n):
        line, = ax[0].plot(t, s.q[:, j], label=f"q{j + 1}")
        for k, x in enumerate((s.qd, s.qdd, s.jerk), start=1):
            ax[k].plot(t, x[:, j], color=line.get_color())
        if limits is not None:
            for k, v in ((1, limits[0]), (2, limits[1])):
                if v is not None:
                    for sgn in (-1, 1):
                        ax[k].axhline(sgn * v[j], color=line.get_color(), lw=0.5, ls=":")
    for a, name in zip(ax, JOINT_PANELS):
        a.set_ylabel(name)
    for name, tt in traj.phases:
        for a in ax:
            a.axvline(tt, color="0.8", lw=0.5)
    ax[-1].set_xlabel("t (s)")
    ax[0].legend(loc="best", fontsize="small")


def joint_figure(traj, path=None, limits=None, rate: float = 500.0, *, ax=None):
    """q, qd, qdd and jerk against time (``ax``: 4 Axes); returns the figure."""
    fig, axes = panels(path, ax, 4, 1, figsize=(8, 9), sharex=True)
    t = traj.times(rate)
    lim = limits if limits is not None else getattr(traj, "limits", None)
    _draw_joint_panels(axes, traj, t, traj.sample(t), lim)
    return finish(fig, path, layout=ax is None)


def _rotation_angle(R) -> np.ndarray:
    """The angle of rotations R (..., 3, 3), accurate near 0 (atan2 of sin and cos)."""
    s = 0.5 * np.linalg.norm(np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                                       R[..., 1, 0] - R[..., 0, 1]], axis=-1), axis=-1)
    c = 0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0)
    return np.arctan2(s, c)


def _task_line_errors(traj, t, q=None):
    """(position error (T,), orientation error (T,)): ||P(q(t)) - P(t)|| and the angle of
    R(t)^T R(q(t)), the DGM of the joint values (``q``: sampled at ``t``) against the line."""
    planned = traj.pose(t)
    reached = traj.solver.dgm(traj.sample(t).q if q is None else q)
    dp = np.linalg.norm(reached[..., :3, 3] - planned[..., :3, 3], axis=-1)
    R = np.swapaxes(planned[..., :3, :3], -1, -2) @ reached[..., :3, :3]
    return dp, _rotation_angle(R)


def task_line_figure(traj, path=None, rate: float = 500.0, *, ax=None):
    """A task-space line: left the tool position, |v| and |omega| against the task limits,
    the position and orientation errors; right q, qd, qdd, jerk (``ax``: 4 x 2 Axes, as
    ``plt.subplots(4, 2)`` gives them).  Returns the figure."""
    fig, axes = panels(path, ax, 4, 2, figsize=(12, 9), sharex=True, squeeze=False)
    t = traj.times(rate)
    P = traj.pose(t)[..., :3, 3]
    tw = traj.twist(t)
    left = axes[:, 0]
    for k, name in enumerate("xyz"):
        left[0].plot(t, P[:, k], label=name)
    left[0].set_ylabel("tool position")
    left[0].legend(loc="best", fontsize="small")
    for k, (name, v) in enumerate((("|v|", tw[:, :3]), ("|omega|", tw[:, 3:]))):
        line, = left[1].plot(t, np.linalg.norm(v, axis=-1), label=name)
        if traj.task_limits is not None:
            left[1].axhline(traj.task_limits[0][k], color=line.get_color(), lw=0.5, ls=":")
    left[1].set_ylabel("speeds")
    left[1].legend(loc="best", fontsize="small")
    s = traj.sample(t)
    dp, dr = _task_line_errors(traj, t, s.q)
    left[2].plot(t, dp, color="tab:red")
    left[2].set_ylabel("position error")
    left[3].plot(t, dr, color="tab:red")
    left[3].set_ylabel("orientation error (rad)")
    left[3].set_xlabel("t (s)")
    _draw_joint_panels(axes[:, 1], traj, t, s, traj.limits)
    return finish(fig, path, layout=ax is None)


__all__ = []
