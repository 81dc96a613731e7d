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

Big trees (issue #26), with ``--trees``: the customized IDM, inertia matrix, DDM and base
parameters of the URDF files of example-robot-data, from a 2-joint pendulum to the 43-joint
Unitree G1 with hands (Talos, Romeo and Tiago Pro with mimic grippers), in a table of times
against the number of joints and links, with the time per link of each model (near-linear
cost: the same order of magnitude from small robots to the biggest trees) and the goal of
issue #26, every model of a tree of at most 32 joints in less than 2 s::

    python benchmarks/bench_generation.py --trees [--repeat 3]
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


_TREE_RUN = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import robmod
from robmod.dynamics import ddm_model, idm_model, inertia_matrix_model
from robmod.identification import base_parameters

robot = robmod.read_robot(sys.argv[2])
out = {"joints": robot.n_q, "links": robot.n_links}
for name, build in [("idm", idm_model), ("inertia matrix", inertia_matrix_model),
                    ("ddm", ddm_model), ("base parameters", base_parameters)]:
    t0 = time.process_time()
    try:
        build(robot)
    except robmod.RobmodError as e:
        out[name + " refused"] = str(e)[:60]
    out[name] = time.process_time() - t0
print(json.dumps(out))
"""
TREES = ["double_pendulum_description/urdf/double_pendulum.urdf",
         "ur_description/urdf/ur5_robot.urdf", "xarm_description/urdf/xarm7.urdf",
         "solo_description/robots/solo12.urdf", "anymal_b_simple_description/robots/anymal.urdf",
         "baxter_description/urdf/baxter.urdf", "tiago_pro_description/robots/tiago_pro.urdf",
         "simple_humanoid_description/urdf/simple_humanoid.urdf",
         "talos_data/robots/talos_full_v2.urdf", "icub_description/robots/icub.urdf",
         "romeo_description/urdf/romeo.urdf", "human_description/robots/human.urdf",
         "centauro_description/urdf/centauro.urdf",
         "g1_description/urdf/g1_29dof_with_hand_rev_1_0.urdf"]
TREE_GOAL = 2.0        # seconds per model, trees of at most 32 joints
MODELS = ("idm", "inertia matrix", "ddm", "base parameters")


def robots_dir():
    """example-robot-data's robots folder (installed by the test extra), or None."""
    try:
        import cmeel
    except ImportError:
        return None
    root = Path(cmeel.__file__).resolve().parents[1] / "cmeel.prefix" / "share" / \
        "example-robot-data" / "robots"
    return root if root.is_dir() else None


def bench_trees(repeat: int) -> None:
    root = robots_dir()
    if root is None:
        raise SystemExit("example-robot-data is not installed (pip install example-robot-data)")
    print(f"\n== customized models of example-robot-data trees (CPU s, best of {repeat}; "
          "per link: ms) ==")
    print(f"{'file':34s} {'joints':>6s} {'links':>5s}  " + "  ".join(f"{m:>15s}" for m in MODELS)
          + "  worst per link")
    worst, missed = {m: 0.0 for m in MODELS}, []
    for rel in TREES:
        runs = []
        for _ in range(repeat):
            res = subprocess.run([sys.executable, "-c", _TREE_RUN, SRC, str(root / rel)],
                                 capture_output=True, text=True)
            if res.returncode != 0:
                raise SystemExit(f"{rel}: {res.stderr.strip()[-400:]}")
            runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
        best = {m: min(r[m] for r in runs) for m in MODELS}
        n, links = runs[0]["joints"], runs[0]["links"]
        cells = []
        for m in MODELS:
            mark = "*" if runs[0].get(m + " refused") else ""
            cells.append(f"{best[m]:14.2f}{mark or ' '}")
            worst[m] = max(worst[m], 1000 * best[m] / links)
            if n <= 32 and best[m] > TREE_GOAL:
                missed.append(f"{Path(rel).stem} {m} {best[m]:.2f} s")
        per_link = max(1000 * best[m] / links for m in MODELS)
        print(f"{Path(rel).stem:34s} {n:6d} {links:5d}  " + "  ".join(cells)
              + f"  {per_link:8.1f}")
    print("* refused with a RobmodError (the DDM of a robot whose inertia matrix is singular)")
    print("largest time per link (ms): " + ", ".join(f"{m} {v:.0f}" for m, v in worst.items()))
    print(f"goal: every model of a tree of at most 32 joints in < {TREE_GOAL} s: "
          + ("met" if not missed else "NOT met: " + "; ".join(missed)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--robots", default="panda,rx90")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trees", action="store_true",
                    help="the example-robot-data trees instead (IDM, inertia matrix, DDM, "
                         "base parameters)")
    args = ap.parse_args(argv)
    if args.trees:
        bench_trees(args.repeat)
        return
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
