"""An animated GIF of a closed-loop simulation, for readers who run nothing (docs/viewer.md,
docs/control.md): the Panda under computed torque (Khalil & Dombre (9.24)) with a 20 %
error on its model's masses, following a quintic point-to-point motion; the robot on the
left, the tracking errors drawn as time goes on the right.

    python docs/figures/simulation_gif.py       # writes docs/images/simulation.gif

The simulation is the compiled closed loop (robmod.control.simulate); the drawing is
Matplotlib's (robmod.plot.robot_plot on each frame, matplotlib.animation with Pillow).
tests/test_docs_gif.py runs it with fewer frames.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import sympy as sp

import robmod
from robmod.control import ComputedTorque, simulate
from robmod.trajectory import point_to_point

OUT = Path(__file__).resolve().parents[1] / "images" / "simulation.gif"


def run(duration=2.0):
    """The simulation result: the Panda, its controller's model 20 % heavier."""
    robot = robmod.load_robot("panda", numeric=True)
    heavy = dataclasses.replace(robot, links=tuple(
        dataclasses.replace(link, **{k: sp.Float(1.2 * float(getattr(link, k)))
                                     for k in ("M", "MX", "MY", "MZ", "XX", "YY", "ZZ")})
        for link in robot.links))
    q0 = np.array([0.0, -0.6, 0.0, -2.2, 0.0, 1.6, 0.8])
    q1 = np.array([1.2, 0.3, -0.5, -1.2, 0.6, 2.2, -0.4])
    traj = point_to_point(q0, q1, "quintic", duration=0.8 * duration)
    ctrl = ComputedTorque(heavy, omega=12.0)
    return simulate(robot, ctrl, traj, duration)


def write_gif(path=OUT, frames=60, duration=2.0, dpi=72):
    """Draw ``frames`` frames of the run and write them as an animated GIF at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    from robmod.plot import robot_plot

    res = run(duration)
    idx = np.linspace(0, len(res.t) - 1, frames).round().astype(int)
    err = 1e3 * np.abs(res.error)
    fig = plt.figure(figsize=(9, 4))
    ax3 = fig.add_axes([0.0, 0.02, 0.48, 0.9], projection="3d")
    ax = fig.add_axes([0.58, 0.14, 0.38, 0.74])

    def draw(k):
        i = idx[k]
        ax3.cla()
        robot_plot(res.robot, res.q[i], ax=ax3, labels=False)
        if ax3.get_legend() is not None:
            ax3.get_legend().remove()
        ax3.set_xlim(-0.6, 0.6), ax3.set_ylim(-0.6, 0.6), ax3.set_zlim(0.0, 1.2)
        ax3.set_title(f"Panda, computed torque, t = {res.t[i]:.2f} s", fontsize=9)
        ax.cla()
        ax.plot(res.t[:i + 1], err[:i + 1])
        ax.set_xlim(0, res.t[-1])
        ax.set_ylim(0, 1.1 * err.max())
        ax.set_xlabel("t (s)")
        ax.set_ylabel("|q_des - q| (mrad)")
        ax.set_title("tracking errors, model masses +20 %", fontsize=9)
        return []

    anim = FuncAnimation(fig, draw, frames=frames, blit=False)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    anim.save(path, writer=PillowWriter(fps=frames / duration), dpi=dpi)
    plt.close(fig)
    return path


if __name__ == "__main__":
    print(write_gif())
