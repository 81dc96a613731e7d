"""Trajectories against time (Khalil & Dombre ch. 8): q, qd, qdd and the jerk of every joint
with the velocity and acceleration limits used and the switching times of the law; for a
task-space line (§8.4) also the tool position, the linear and angular speeds against the task
limits, and the deviation of the tool frame the joints reach from the planned line
(:meth:`robmod.trajectory.TaskLine.deviation`)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..description.arguments import keyword_options, positive_scalar
from ..errors import ArgumentError
from .canvas import finish, panels

JOINT_PANELS = ("q", "qd", "qdd", "qddd")


def _draw_joint_panels(ax, traj, t, s, limits=None):
    """q, qd, qdd, qddd (columns of ``s`` at ``t``) on four Axes; dotted +-limits
    (``limits`` = (qd_max, qdd_max), None where unknown); grey lines at the phases."""
    for j in range(traj.n):
        line, = ax[0].plot(t, s.q[:, j], label=f"q{j + 1}")
        for k, x in enumerate((s.qd, s.qdd, s.qddd), start=1):
            if x is not None:
                ax[k].plot(t, x[:, j], color=line.get_color())
        if limits is not None:
            for k, v in ((1, limits[0]), (2, limits[1])):
                if v is not None:
                    for sgn in (-1, 1):
                        ax[k].axhline(sgn * v[j], color=line.get_color(), lw=0.5, ls=":")
    for a, name in zip(ax, JOINT_PANELS):
        a.set_ylabel(name)
    for name, tt in getattr(traj, "phases", ()):
        for a in ax:
            a.axvline(tt, color="0.8", lw=0.5)
    ax[-1].set_xlabel("t (s)")
    ax[0].legend(loc="best", fontsize="small")


def _times(traj, rate):
    if hasattr(traj, "times"):
        return traj.times(rate)
    return np.linspace(0.0, traj.duration, max(int(traj.duration * rate), 1) + 1)


def _joint_figure(traj, path, limits, rate, ax):
    fig, axes = panels(path, ax, 4, 1, figsize=(8, 9), sharex=True)
    t = _times(traj, rate)
    lim = limits if limits is not None else getattr(traj, "limits", None)
    _draw_joint_panels(axes, traj, t, traj.sample(t), lim)
    return finish(fig, path, layout=ax is None)


def _task_line_figure(traj, path, rate, ax):
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
    dp, dr = traj.deviation(t, s.q)
    left[2].plot(t, dp, color="tab:red")
    left[2].set_ylabel("position error")
    left[3].plot(t, dr, color="tab:red")
    left[3].set_ylabel("orientation error (rad)")
    left[3].set_xlabel("t (s)")
    _draw_joint_panels(axes[:, 1], traj, t, s, traj.limits)
    return finish(fig, path, layout=ax is None)


@keyword_options()
def trajectory_plot(traj, path=None, *, ax=None, limits=None, rate: float = 500.0):
    """A trajectory (any :class:`~robmod.kinematics.Motion`) against time: q, qd, qdd and the
    jerk with the velocity and acceleration limits (``limits`` = (qd_max, qdd_max), default
    those the trajectory used; ``ax``: 4 Axes); a task-space line
    (:func:`robmod.trajectory.task_line`) adds the tool position, its speeds against the task
    limits and the position and orientation errors of the joints' DGM against the line
    (``ax``: 4 x 2 Axes)."""
    if not (callable(getattr(traj, "sample", None)) and hasattr(traj, "duration")
            and hasattr(traj, "n")):
        raise ArgumentError(f"trajectory_plot takes a trajectory (a motion: n, duration, "
                            f"sample(t)), got {type(traj).__name__}")
    rate = positive_scalar("rate (samples per second)", rate)
    if hasattr(traj, "deviation") and hasattr(traj, "pose"):
        traj = traj if limits is None else replace(traj, limits=limits)
        return _task_line_figure(traj, path, rate, ax)
    return _joint_figure(traj, path, limits, rate, ax)


__all__ = ["trajectory_plot"]
