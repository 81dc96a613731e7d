"""Time to generate every symbolic model of a robot, the analytic IGM included.

    python benchmarks/bench_generation.py [--robots panda,rx90] [--repeat 3]

Goal of issue #14 ("Fast by default"): all models of a 7-axis arm (the Panda,
its IGM with q7 given) generated in less than 1.5 s.  Each repetition runs in a
fresh interpreter (the models are memoized in a process), so the times include
everything a first call pays; the table shows the best of the repetitions per
model and the best total.  Times are the CPU time of the process
(``time.process_time``: the generation is single-threaded, and this is what the
wall time is on an idle machine, with less noise on a shared one).  The models: DGM, Jacobian 0Jn, inverse dynamics
(Newton-Euler), inertia matrix, direct dynamics, base inertial parameters and
the analytic IGM by Paul's method (:func:`robmod.geometry.inverse.igm_model`).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
GOAL = {"panda": 1.5}          # seconds for all models of the robot

_ONE_RUN = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import robmod
from robmod.dynamics import ddm_model, idm_model, inertia_matrix_model
from robmod.geometry import dgm_model
from robmod.geometry.inverse import igm_model
from robmod.identification import base_parameters
from robmod.kinematics import jacobian_model

robot = robmod.load_robot(sys.argv[2])
fixed = json.loads(sys.argv[3]) or None
models = [("dgm", lambda: dgm_model(robot)), ("jacobian", lambda: jacobian_model(robot)),
          ("idm", lambda: idm_model(robot)), ("inertia matrix", lambda: inertia_matrix_model(robot)),
          ("ddm", lambda: ddm_model(robot)), ("base parameters", lambda: base_parameters(robot)),
          ("igm", lambda: igm_model(robot, fixed=fixed))]
out = {}
for name, build in models:
    t0 = time.process_time()
    build()
    out[name] = time.process_time() - t0
print(json.dumps(out))
"""


def fixed_joints(name: str) -> list:
    """The joints given to the IGM: the redundant 7R arms fix their last joint."""
    sys.path.insert(0, SRC)
    import robmod

    robot = robmod.load_robot(name)
    return [robot.joints[-1]] if len(robot.joints) > 6 else []


def run_once(name: str, fixed: list) -> dict:
    res = subprocess.run([sys.executable, "-c", _ONE_RUN, SRC, name, json.dumps(fixed)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"{name}: {res.stderr.strip()}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def bench(name: str, repeat: int) -> tuple[dict, float]:
    """(best seconds per model, best total) over ``repeat`` fresh interpreters."""
    fixed = fixed_joints(name)
    runs = [run_once(name, fixed) for _ in range(repeat)]
    best = {k: min(r[k] for r in runs) for k in runs[0]}
    return best, min(sum(r.values()) for r in runs)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--robots", default="panda,rx90")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    for name in args.robots.split(","):
        best, total = bench(name, args.repeat)
        fixed = fixed_joints(name)
        print(f"\n== symbolic generation of {name} (CPU s, best of {args.repeat}"
              + (f", IGM with q{fixed[0]} given" if fixed else "") + ") ==")
        for k, v in best.items():
            print(f"  {k:20s} {v:7.3f} s")
        goal = GOAL.get(name)
        print(f"  {'total':20s} {total:7.3f} s"
              + (f"   (goal < {goal} s: {'met' if total < goal else 'NOT met'})" if goal else ""))


if __name__ == "__main__":
    main()
