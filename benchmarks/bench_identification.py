"""Identification benchmarks.

    python benchmarks/bench_identification.py [--n 2000]

* symbolic base parameters of the 7-axis LWR4 with symbolic geometry (target < 1 s),
  and of the RX-90 and a general 6R robot;
* batched compiled regressor Phi(q, qd, qdd) (standard inertial parameters, numeric
  robot) over N configurations vs a Python loop of pin.computeJointTorqueRegressor
  (target >= 10x), checked equal through Phi chi = Y pi.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import robmod  # noqa: E402
from run import timeit  # noqa: E402

from robmod.identification import base_parameters  # noqa: E402
from robmod.identification.regressors import (regressor_function, standard_names,  # noqa: E402
                                             standard_vector)
from robmod.testing.random import with_random_dynamics  # noqa: E402


def bench_symbolic():
    rows = []
    for name in ("lwr4", "rx90", "panda"):
        robot = robmod.load_robot(name)
        t = timeit(lambda: base_parameters(robot), repeat=3)
        bp = base_parameters(robot)
        rows.append((f"base parameters {name} (symbolic geometry)",
                     f"{t * 1e3:.0f} ms, {len(bp)} parameters ({bp.inertial_count()} inertial)"
                     + ("  [target < 1 s]" if name == "lwr4" else "")))
    return rows


def bench_regressor(name, n):
    rows = []
    rng = np.random.default_rng(0)
    robot = with_random_dynamics(robmod.load_robot(name, numeric=True), rng, rotor=False)
    names = standard_names(robot, rotor=False, friction=False)
    t0 = time.perf_counter()
    f = regressor_function(robot, params=names)
    t_gen = time.perf_counter() - t0
    nj = robot.n_q
    q, qd, qdd = rng.uniform(-2, 2, (3, n, nj))
    f(q[:2], qd[:2], qdd[:2])
    buf = f.out_buffer(n)
    t_alloc = timeit(lambda: f(q, qd, qdd), repeat=5)
    t_batch = timeit(lambda: f(q, qd, qdd, out=buf), repeat=5)
    c = f.model.count()
    rows.append((f"-- regressor {name} ({len(names)} columns)",
                 f"{c.mults} mult, {c.adds} add; generated + compiled in {t_gen:.2f} s "
                 f"({f.backend})"))
    rows.append(("   batched compiled (out=)", f"{t_batch / n * 1e6:.3f} us per configuration "
                 f"({t_alloc / n * 1e6:.3f} allocating the output)"))
    try:
        import pinocchio as pin

        from robmod.testing.peers import PinocchioRobot
    except ImportError:
        rows.append(("   pinocchio", "not installed"))
        return rows
    p = PinocchioRobot(robot, rotor=False)
    pq, pqd, pqdd = p.pin_q(q), p.pin_q(qd), p.pin_q(qdd)
    m = min(n, 5000)

    def loop():
        for k in range(m):
            pin.computeJointTorqueRegressor(p.model, p.data, pq[k], pqd[k], pqdd[k])

    t_pin = timeit(loop, repeat=3) / m
    rows.append(("   Python loop of pin.computeJointTorqueRegressor",
                 f"{t_pin * 1e6:.3f} us per configuration"))
    rows.append(("   ratio pinocchio loop / robmod batched",
                 f"{t_pin / (t_batch / n):.1f}x  [target >= 10]"))
    # check on a few configurations: Phi chi == Y pi
    pi = np.concatenate([p.model.inertias[i].toDynamicParameters()
                         for i in range(1, p.model.njoints)])
    Phi = f(q[:5], qd[:5], qdd[:5])
    chi = standard_vector(robot, names)
    err = max(np.abs(pin.computeJointTorqueRegressor(p.model, p.data, pq[k], pqd[k], pqdd[k])
                     @ pi - (Phi[k] @ chi)[p.index]).max() for k in range(5))
    rows.append(("   max |Y pi - Phi chi|", f"{err:.1e}"))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000,
                    help="configurations per batch (20000: the 6 x 60 x N output, 58 MB, is "
                         "memory-bound)")
    ap.add_argument("--robots", default="rx90,lwr4,panda")
    args = ap.parse_args(argv)
    rows = bench_symbolic()
    for name in args.robots.split(","):
        rows += bench_regressor(name, args.n)
    w = max(len(r[0]) for r in rows)
    for k, v in rows:
        print(f"{k:<{w}}  {v}")


if __name__ == "__main__":
    main()
