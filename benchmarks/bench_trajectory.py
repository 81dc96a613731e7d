"""Trajectory sampling speed: robmod's synchronised 7-joint point-to-point motions sampled on an
array of 10^6 times, side by side with Ruckig (Berscheid & Kröger 2021) in the same run —
its online interface (``otg.update`` once per 1 kHz control cycle) and its offline
trajectory (``traj.at_time`` in a loop), both called from Python once per sample.

    python benchmarks/bench_trajectory.py [--n 1000000]

Times are the best of a few runs, in ns per sample (one sample = q, q̇, q̈ of the 7 joints;
robmod also gives the jerk).  The durations of the motions are printed too: Ruckig
synchronises each joint's own profile in time (off the straight line), robmod moves along the
straight line (homothetic profiles), which can take longer.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from robmod.trajectory import point_to_point  # noqa: E402

# a Panda-like 7-joint motion: limits per joint (rad/s, rad/s^2, rad/s^3)
Q0 = np.array([0.0, -0.6, 0.2, -2.0, 0.1, 1.4, 0.3])
Q1 = np.array([1.2, 0.5, -0.7, -0.9, 1.6, 2.6, -1.1])
KV = np.array([2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61])
KA = np.array([15.0, 7.5, 10.0, 12.5, 15.0, 20.0, 20.0])
KJ = np.array([7500.0, 3750.0, 5000.0, 6250.0, 7500.0, 10000.0, 10000.0]) / 50


from run import best as best_of  # noqa: E402  (benchmarks/run.py; the script's folder is on sys.path)


def best(fn, repeat=5):
    return best_of(fn, repeat)[0]


def ruckig_rows(m):
    """(label, ns per sample, duration) of Ruckig's online and offline interfaces, after the
    time to plan the motion (ns per call of ``calculate``)."""
    try:
        from ruckig import InputParameter, OutputParameter, Result, Ruckig, Trajectory
    except ImportError:
        return [("Ruckig (not installed: pip install ruckig)", float("nan"), float("nan"))]
    n = Q0.size
    inp = InputParameter(n)
    inp.current_position, inp.target_position = Q0.tolist(), Q1.tolist()
    inp.max_velocity, inp.max_acceleration, inp.max_jerk = KV.tolist(), KA.tolist(), KJ.tolist()
    traj = Trajectory(n)
    Ruckig(n).calculate(inp, traj)

    def online():
        otg, out = Ruckig(n, 1e-3), OutputParameter(n)
        i = InputParameter(n)
        i.max_velocity, i.max_acceleration, i.max_jerk = inp.max_velocity, \
            inp.max_acceleration, inp.max_jerk
        i.current_position, i.target_position = inp.current_position, inp.target_position
        steps = 0
        while steps < m:
            res = otg.update(i, out)
            out.pass_to_input(i)
            steps += 1
            if res == Result.Finished:     # start the motion again
                i.current_position, i.target_position = inp.current_position, \
                    inp.target_position
                i.current_velocity = i.current_acceleration = [0.0] * n

    ts = np.linspace(0, traj.duration, m).tolist()

    def offline():
        for t in ts:
            traj.at_time(t)

    def plan():
        for _ in range(1000):
            Ruckig(n).calculate(inp, Trajectory(n))

    rows = [("Ruckig calculate (7-joint plan, per call)", best(plan) * 1e6, traj.duration)]
    return rows + [("Ruckig otg.update, 1 kHz online loop", best(online) / m * 1e9, traj.duration),
            ("Ruckig traj.at_time in a loop", best(offline) / m * 1e9, traj.duration)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000, help="samples of robmod's laws")
    ap.add_argument("--ruckig", type=int, default=200_000, help="samples of Ruckig's loops")
    args = ap.parse_args()
    rows = []
    trap = point_to_point(Q0, Q1, "trapezoidal", qd_max=KV, qdd_max=KA)
    jerk = point_to_point(Q0, Q1, "jerk-limited", qd_max=KV, qdd_max=KA, qddd_max=KJ)
    for label, traj in (("robmod trapezoidal (sync), traj.sample(t)", trap),
                        ("robmod jerk-limited (sync), traj.sample(t)", jerk)):
        t = np.linspace(0, traj.duration, args.n)
        traj.sample(t[:1000])
        rows.append((label, best(lambda: traj.sample(t)) / args.n * 1e9, traj.duration))
    build = best(lambda: [point_to_point(Q0, Q1, "jerk-limited", qd_max=KV, qdd_max=KA,
                                         qddd_max=KJ) for _ in range(1000)]) / 1000
    ruck = ruckig_rows(args.ruckig)
    rows = [("robmod point_to_point jerk-limited (plan, per call)", build * 1e9, jerk.duration),
            ruck[0]] + rows + ruck[1:]
    print(f"7 joints; robmod: {args.n} samples in one call; Ruckig: {args.ruckig} calls")
    print(f"| {'method':<51} | {'ns':>9} | {'duration (s)':>12} |")
    print(f"|{'-' * 53}|{'-' * 11}|{'-' * 14}|")
    for label, ns, T in rows:
        print(f"| {label:<51} | {ns:9.1f} | {T:12.4f} |")


if __name__ == "__main__":
    main()
