"""Time-optimal path parameterization: robmod's topp and toppra in the same run, on the same
path (not-a-knot cubic spline through 5 waypoints), grid and limits (velocity, acceleration,
torque; collocation).  toppra's torque constraint calls robmod's compiled IDM (one
configuration per call: the fastest inverse dynamics it can be given).  Times are the best
of several runs, models already compiled; both include building the path and evaluating
the constraints.

    python benchmarks/bench_topp.py
"""
import logging

import numpy as np

import robmod
from robmod.dynamics import gravity_torques
from robmod.dynamics.layout import joint_limit_vector
from robmod.testing.random import with_random_dynamics
from robmod.testing.peers import toppra_parameterization
from robmod.trajectory import topp
from run import best  # noqa: E402  (benchmarks/run.py)


def cases():
    rx90 = with_random_dynamics(robmod.load_robot("rx90").numeric(), np.random.default_rng(3))
    W = np.random.default_rng(0).uniform(-1, 1, (5, 6)) * 0.8
    tau = np.abs(gravity_torques(rx90, W)).max(axis=0) * 1.5 + 5.0
    yield "RX-90", rx90, W, dict(qd_max=np.full(6, 3.0), qdd_max=np.full(6, 10.0), tau_max=tau)
    panda = robmod.load_robot("panda").numeric()
    W = np.random.default_rng(0).uniform(-1, 1, (5, 7)) * 0.8
    W[:, 3] = -1.5 + 0.5 * W[:, 3]
    lim = {k: joint_limit_vector(panda, f) for k, f in
           (("qd_max", "qdmax"), ("qdd_max", "qddmax"), ("tau_max", "taumax"))}
    lim["tau_max"] = 0.6 * lim["tau_max"]
    yield "Panda (7R)", panda, W, lim


def main():
    try:
        import toppra  # noqa: F401
    except ImportError:
        toppra = None
    logging.getLogger("toppra").setLevel(logging.ERROR)
    print("| robot | grid N | robmod topp (ms) | robmod, NumPy passes (ms) | toppra (ms) | "
          "toppra / robmod | duration rel. diff. |")
    print("|---|---|---|---|---|---|---|")
    for name, robot, W, lim in cases():
        topp(W, robot, grid=50, **lim)              # compile the IDM and the kernel once
        for N in (100, 200, 500, 1000):
            t_rm, traj = best(lambda: topp(W, robot, grid=N, **lim), 20)
            t_np, _ = best(lambda: topp(W, robot, grid=N, compiled=False, **lim), 3)
            if toppra is None:
                print(f"| {name} | {N} | {t_rm * 1e3:.2f} | {t_np * 1e3:.1f} | (toppra not "
                      "installed) | | |")
                continue
            t_tp, dur = best(lambda: toppra_parameterization(robot, W, lim, N)[0], 5)
            print(f"| {name} | {N} | {t_rm * 1e3:.2f} | {t_np * 1e3:.1f} | {t_tp * 1e3:.1f} | "
                  f"{t_tp / t_rm:.1f}x | {traj.duration / dur - 1:+.1e} |")


if __name__ == "__main__":
    main()
