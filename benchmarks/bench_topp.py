"""Time-optimal path parameterization: robmod's topp and toppra in the same run, on the same
path (not-a-knot cubic spline through 5 waypoints), grid and limits (velocity, acceleration,
torque; collocation).  toppra's torque constraint calls robmod's compiled IDM (one
configuration per call: the fastest inverse dynamics it can be given).  Times are the best
of several runs, models already compiled; both include building the path and evaluating
the constraints.

    python benchmarks/bench_topp.py
"""
import logging
import time

import numpy as np

import robmod
from robmod.dynamics import gravity_torques
from robmod.dynamics.newton_euler import compiled_idm
from robmod.dynamics.spatial import joint_limit_vector
from robmod.testing.random import with_random_dynamics
from robmod.trajectory import topp


def best(fn, repeat):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = fn()
        out.append(time.perf_counter() - t0)
    return min(out), res


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


def toppra_run(robot, W, lim, N):
    import toppra
    import toppra.algorithm as ta
    import toppra.constraint as tc

    f = compiled_idm(robot, friction=False)
    scheme = tc.DiscretizationType.Collocation
    tau = lim["tau_max"]
    cons = [tc.JointVelocityConstraint(lim["qd_max"]),
            tc.JointAccelerationConstraint(lim["qdd_max"], discretization_scheme=scheme),
            tc.JointTorqueConstraint(lambda q, qd, qdd: f.single(q, qd, qdd),
                                     np.column_stack([-tau, tau]), np.zeros(len(tau)),
                                     discretization_scheme=scheme)]
    path = toppra.SplineInterpolator(np.linspace(0, 1, len(W)), W)
    alg = ta.TOPPRA(cons, path, gridpoints=np.linspace(0, 1, N + 1),
                    parametrizer="ParametrizeConstAccel")
    return alg.compute_trajectory(0, 0).duration


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
            t_tp, dur = best(lambda: toppra_run(robot, W, lim, N), 5)
            print(f"| {name} | {N} | {t_rm * 1e3:.2f} | {t_np * 1e3:.1f} | {t_tp * 1e3:.1f} | "
                  f"{t_tp / t_rm:.1f}x | {traj.duration / dur - 1:+.1e} |")


if __name__ == "__main__":
    main()
