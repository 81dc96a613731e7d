"""A simulated run (:class:`robmod.dynamics.SimulationResult` of :func:`robmod.control.simulate`):
the joint positions against the desired ones and the tracking errors when the run followed a
desired motion (else the velocities), and the torques against their limits (a floating
robot's joints: its base's pose and twist are not drawn)."""
from __future__ import annotations

import numpy as np

from ..description.arguments import keyword_options
from ..errors import ArgumentError, RobmodError
from .canvas import finish, panels


@keyword_options()
def simulation_plot(result, path=None, *, ax=None, joints=None):
    """A run: q (against q_des, dashed), the tracking errors q_des - q (or qd without a
    desired motion) and the torques against their limits (``joints``: numbers 1..n; ``ax``:
    3 Axes); of one run (index a batch first)."""
    if not all(hasattr(result, k) for k in ("t", "q", "qd", "tau")):
        raise ArgumentError(f"simulation_plot takes a SimulationResult, got "
                            f"{type(result).__name__}")
    q = np.asarray(getattr(result, "joint_q", result.q))
    qd = np.asarray(getattr(result, "joint_qd", result.qd))
    if q.ndim != 2:
        raise RobmodError("simulation_plot draws one run: index the batch first")
    n = q.shape[1]
    try:
        js = range(n) if joints is None else [int(j) - 1 for j in joints]
    except (TypeError, ValueError):
        js = None
    if js is None or any(not 0 <= j < n for j in js):
        raise ArgumentError(f"joints: joint numbers 1..{n}, got {joints!r}")
    q_des = getattr(result, "q_des", None)
    tau = None if result.tau is None else np.asarray(result.tau)
    limit = getattr(result, "tau_limit", None)
    fig, axes = panels(path, ax, 3, 1, figsize=(8, 8), sharex=True)
    for j in js:
        line, = axes[0].plot(result.t, q[:, j], label=f"q{j + 1}")
        color = line.get_color()
        if q_des is not None:
            axes[0].plot(result.t, q_des[:, j], "--", color=color)
            axes[1].plot(result.t, q_des[:, j] - q[:, j], color=color)
        else:
            axes[1].plot(result.t, qd[:, j], color=color)
        if tau is not None and j < tau.shape[-1]:
            axes[2].plot(result.t, tau[:, j], color=color)
            if limit is not None:
                for s in (-1, 1):
                    axes[2].axhline(s * limit[j], color=color, lw=0.5, ls=":")
    axes[0].set_ylabel("q, q_des (dashed)" if q_des is not None else "q")
    axes[1].set_ylabel("error q_des - q" if q_des is not None else "qd")
    axes[2].set_ylabel("torque")
    axes[2].set_xlabel("t (s)")
    axes[0].legend(loc="best", fontsize="small")
    return finish(fig, path, layout=ax is None)


__all__ = ["simulation_plot"]
