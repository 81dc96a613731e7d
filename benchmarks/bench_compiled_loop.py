"""The closed loop at compiled speed (robmod.control.compiled_loop) against the Python loop of
the same simulation and a Python loop over MuJoCo's mj_step on the same robot, in one run.

    python benchmarks/bench_compiled_loop.py [--runs 1000] [--duration 10] [--repeat 2]

Goals (issue 30): 10 s at 1 kHz of computed torque on the Panda <= 20 ms and faster than the
mj_step loop; 1,000 gain sets x 10 s batched <= 2 s on 2 cores (every sample kept, and every
10th: ``record_every=10``); equal to the Python path.
The Python path of the batch is timed on 1 s and scaled (it is 10x longer than the rest).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import robmod  # noqa: E402
from robmod.control import ComputedTorque, Dynamics, simulate  # noqa: E402
from run import best  # noqa: E402


class Sines:
    """q^d(t) = q_mid + 0.3 sin(w t), vectorized over arrays of times."""

    def __init__(self, mid):
        self.mid = mid
        self.w = np.linspace(0.5, 1.5, len(mid))

    def sample(self, t):
        t = np.asarray(t, float)[..., None]
        return (self.mid + 0.3 * np.sin(self.w * t), 0.3 * self.w * np.cos(self.w * t),
                -0.3 * self.w ** 2 * np.sin(self.w * t))


def python_path(fn):
    os.environ["ROBMOD_COMPILED_LOOP"] = "0"
    try:
        return fn()
    finally:
        os.environ["ROBMOD_COMPILED_LOOP"] = "1"


def mujoco_loop(robot, steps):
    try:
        import mujoco

        from robmod.description.io_mjcf import to_mjcf
    except ImportError:
        return None
    m = mujoco.MjModel.from_xml_string(to_mjcf(robot, timestep=1e-3, integrator="RK4"))
    d = mujoco.MjData(m)

    def loop():
        mujoco.mj_resetData(m, d)
        for _ in range(steps):
            mujoco.mj_step(m, d)
    return best(loop, 3)[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--sets", type=int, default=100, help="payload masses (parameter sets)")
    ap.add_argument("--repeat", type=int, default=2, help="extra runs of the gain-set batch")
    args = ap.parse_args()
    os.environ["ROBMOD_COMPILED_LOOP"] = "1"     # compile at the first (short) call
    robot = robmod.load_robot("panda").numeric()
    mid = Dynamics.of(robot).start_configuration()
    ref = Sines(mid)
    ct = ComputedTorque(robot, omega=20.0)
    dur = args.duration
    t0 = time.perf_counter()
    simulate(robot, ct, ref, 0.01)
    first = time.perf_counter() - t0
    fast, res = best(lambda: simulate(robot, ct, ref, dur), 5)
    slow, res_py = best(lambda: python_path(lambda: simulate(robot, ct, ref, dur)), 1)
    diff = max(np.abs(res.q - res_py.q).max(), np.abs(res.tau - res_py.tau).max())
    mj = mujoco_loop(robot, int(round(dur * 1000)))
    print(f"Panda, computed torque, {dur:g} s at 1 kHz, RK4 (first call, generating and "
          f"compiling the loop: {first:.2f} s)")
    print(f"  compiled loop           {fast * 1e3:9.1f} ms")
    print(f"  Python loop (simulate)  {slow * 1e3:9.1f} ms   ({slow / fast:.0f}x; max |diff| "
          f"{diff:.1e})")
    if mj is None:
        print("  MuJoCo mj_step loop     (mujoco not installed)")
    else:
        print(f"  MuJoCo mj_step loop     {mj * 1e3:9.1f} ms   (open loop, RK4, Python for-loop;"
              f" {mj / fast:.1f}x the compiled loop)")
    rng = np.random.default_rng(0)
    kp = rng.uniform(100.0, 900.0, (args.runs, 7))
    kd = 2.0 * np.sqrt(kp)
    many = ComputedTorque(robot, kp=kp, kd=kd)
    simulate(robot, many, ref, 0.01)
    walls = []
    for _ in range(args.repeat):     # the fresh 1.7 GB of a run: its first touch varies
        w, res = best(lambda: simulate(robot, many, ref, dur), 1)
        walls.append(w)
        del res
    wall, res = best(lambda: simulate(robot, many, ref, dur), 1)
    walls.append(wall)
    kept = []
    for _ in range(args.repeat + 1):
        w, _ = best(lambda: simulate(robot, many, ref, dur, record_every=10), 1)
        kept.append(w)
    short = min(1.0, dur)
    wall_py, res_py = best(lambda: python_path(lambda: simulate(robot, many, ref, short)), 1)
    n_short = res_py.q.shape[0]
    diff = np.abs(res.q[:n_short] - res_py.q).max()
    print(f"{args.runs} gain sets x {dur:g} s batched ({os.cpu_count()} cores)")
    steps = args.runs * dur * 1000
    print(f"  compiled loop           {min(walls):9.2f} s    ({min(walls) / steps * 1e9:.0f}"
          f" ns per run and step; {len(walls)} runs: {' '.join(f'{w:.2f}' for w in walls)})")
    print(f"  every 10th sample kept  {min(kept):9.2f} s    ({min(kept) / steps * 1e9:.0f}"
          f" ns per run and step; {len(kept)} runs: {' '.join(f'{w:.2f}' for w in kept)})")
    print(f"  Python loop (batched)   {wall_py * dur / short:9.2f} s    (timed on {short:g} s, "
          f"scaled; max |diff| {diff:.1e})")
    masses = {"M7": np.linspace(0.5, 3.0, args.sets)}
    simulate(robot, ct, ref, 0.01, parameters={"M7": [1.0, 2.0]})
    wall, _ = best(lambda: simulate(robot, ct, ref, dur, parameters=masses), 1)
    print(f"{args.sets} payload masses (parameter sets) x {dur:g} s")
    print(f"  compiled loop           {wall:9.2f} s    ({wall / (args.sets * dur * 1000) * 1e9:.0f}"
          f" ns per run and step)")


if __name__ == "__main__":
    main()
