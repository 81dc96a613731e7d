"""Identification from a measured log, end to end.

    python benchmarks/bench_ident_pipeline.py [--n 100000]

* RX-90, N samples at 1 kHz written as a CSV log: load + clean + filter + regressor +
  decimation + WLS + sigma (target < 5 s for 1e5 samples);
* the same observation matrix built by a Python loop of pin.computeJointTorqueRegressor
  (a plain Pinocchio + least-squares pipeline), in the same run;
* Panda (7 axes): fit and physically consistent SDP (target < 10 s).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import robmod  # noqa: E402
from robmod.identification import (DynamicIdentification, FourierTrajectory,  # noqa: E402
                                   load_log)
from robmod.identification.consistency import consistent_fit  # noqa: E402
from robmod.testing.measured import simulated_log  # noqa: E402
from robmod.testing.random import with_random_dynamics  # noqa: E402


def motion(n, seed, amp=0.3):
    rng = np.random.default_rng(seed)
    return FourierTrajectory(np.zeros(n), rng.uniform(-amp, amp, (n, 5)),
                             rng.uniform(-amp, amp, (n, 5)), 0.1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    n_samples = ap.parse_args().n
    rx90 = with_random_dynamics(robmod.load_robot("rx90").numeric(), np.random.default_rng(0),
                                friction=True)
    log = simulated_log(rx90, motion(6, 0), duration=(n_samples - 1) / 1000, rate=1000,
                        torque_noise=0.02, seed=1)
    path = os.path.join(tempfile.mkdtemp(), "rx90_log.csv")
    np.savetxt(path, np.column_stack([log.t, log.q, log.tau]), delimiter=",",
               header="t," + ",".join(f"q{j}" for j in range(1, 7)) + ","
               + ",".join(f"tau{j}" for j in range(1, 7)), comments="")
    DynamicIdentification(rx90)           # generate and compile the regressor once
    t0 = time.perf_counter()
    data = load_log(path, 6)
    t1 = time.perf_counter()
    est = DynamicIdentification(rx90).fit(data)
    t2 = time.perf_counter()
    print(f"RX-90, {n_samples} samples: load+clean {t1 - t0:.2f} s, filter+regressor+WLS+sigma "
          f"{t2 - t1:.2f} s, total {t2 - t0:.2f} s  [target < 5 s]; {len(est.names_)} "
          f"parameters, condition {est.condition_:.3g}")
    p = est.processed_
    W_rm = time.perf_counter()
    est.regressor(p.q, p.qd, p.qdd)
    W_rm = time.perf_counter() - W_rm
    try:
        import pinocchio as pin

        from robmod.testing.peers import PinocchioRobot
        peer = PinocchioRobot(rx90)
        t3 = time.perf_counter()
        for k in range(len(p.q)):
            pin.computeJointTorqueRegressor(peer.model, peer.data, p.q[k], p.qd[k], p.qdd[k])
        t_pin = time.perf_counter() - t3
        print(f"observation matrix of {len(p.q)} samples: robmod compiled {W_rm:.3f} s, "
              f"Pinocchio loop {t_pin:.3f} s: ratio {t_pin / W_rm:.1f}x")
    except ImportError:
        print("Pinocchio not installed: no peer comparison")
    rng = np.random.default_rng(1)
    import dataclasses

    import sympy as sp
    panda = robmod.load_robot("panda").numeric()
    panda = dataclasses.replace(panda, links=tuple(dataclasses.replace(
        link, FC=sp.Float(rng.uniform(0.2, 1)), FV=sp.Float(rng.uniform(0.1, 0.5)),
        IA=sp.Float(0.1)) for link in panda.links))
    plog = simulated_log(panda, motion(7, 0, 0.25), duration=20.0, rate=1000, torque_noise=0.02,
                         seed=1)
    t4 = time.perf_counter()
    pest = DynamicIdentification(panda).fit(plog)
    t5 = time.perf_counter()
    c = consistent_fit(pest)
    t6 = time.perf_counter()
    print(f"Panda: fit {t5 - t4:.2f} s, consistent SDP {t6 - t5:.2f} s ({c.status})  "
          f"[target < 10 s]")


if __name__ == "__main__":
    main()
