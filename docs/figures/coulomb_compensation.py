"""Coulomb friction under a digital computed-torque law (docs/control.md): the PUMA 560 with its
exact model at 1 kHz on a quintic, the Coulomb term compensated at the measured velocity, at
the desired one, with a smooth sign, and the same robot without Coulomb friction.

    python docs/figures/coulomb_compensation.py     # writes docs/images/coulomb_compensation.png
"""
import dataclasses
from pathlib import Path

import numpy as np
import sympy as sp

import robmod
from robmod.control import ComputedTorque, simulate
from robmod.trajectory import point_to_point

Q0 = np.zeros(6)
Q1 = np.array([0.8, -0.6, 0.9, 0.5, -0.7, 0.6])


def runs(duration=1.5):
    """{label: SimulationResult} of the four cases (omega = 20 rad/s, dt = 1 ms)."""
    puma = robmod.load_robot("puma560", numeric=True)
    zero = sp.Integer(0)
    no_fc = dataclasses.replace(puma, links=tuple(dataclasses.replace(link, FC=zero)
                                                  for link in puma.links))
    ref = point_to_point(Q0, Q1, "quintic", duration=1.0)
    cases = {"sign of the measured velocity": (puma, "measured"),
             "smooth sign, width 0.01 rad/s": (puma, "smooth"),
             "sign of the desired velocity (default)": (puma, "desired"),
             "no Coulomb friction": (no_fc, "desired")}
    return {label: simulate(robot, ComputedTorque(robot, omega=20.0, coulomb=mode), ref,
                            duration, saturation=False)
            for label, (robot, mode) in cases.items()}


def figure(path):
    from matplotlib.figure import Figure

    res = runs()
    fig = Figure(figsize=(8, 6.5))
    ax = fig.subplots(2, 1, sharex=True)
    for label, r in res.items():
        ax[0].semilogy(r.t, np.maximum(np.abs(r.error).max(axis=-1), 1e-9), label=label, lw=1)
    ax[0].set_ylabel("max_j |q_j^d - q_j| (rad)")
    ax[0].legend(fontsize="small", loc="lower right")
    ax[0].set_title("PUMA 560, computed torque at 1 kHz, exact model")
    for label in ("sign of the measured velocity", "sign of the desired velocity (default)"):
        r = res[label]
        ax[1].plot(r.t, r.tau[:, 0], label=label, lw=0.8)
    ax[1].set_ylabel("torque of joint 1 (N m)")
    ax[1].set_xlabel("t (s)")
    ax[1].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    figure(Path(__file__).resolve().parents[1] / "images" / "coulomb_compensation.png")
