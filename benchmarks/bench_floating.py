"""Floating bases: generation time and operation counts of the customized models, speed of the
plain functions against Pinocchio's free-flyer.

    python benchmarks/bench_floating.py [--robots talos_reduced,solo12] [--repeat 3]

Goals (issue #28): the floating inverse dynamic model of a 30-joint humanoid generated in at
most 2 s (each repetition in a fresh interpreter, CPU time, reading the URDF excluded); the
customized floating IDM costs the fixed-base IDM plus a bounded number of operations; the
plain ``idm`` / ``ddm`` of the floating robot faster than Pinocchio's ``rnea`` / ``aba`` on one
configuration, and batched at least 20 times a Pinocchio loop.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
FILES = {"talos_reduced": "talos_data/robots/talos_reduced.urdf",
         "g1": "g1_description/urdf/g1_29dof_rev_1_0.urdf",
         "solo12": "solo_description/robots/solo12.urdf"}
GOAL = 2.0

_ONE_RUN = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import robmod
from robmod.dynamics import ddm_model, idm_model, inertia_matrix_model

robot = robmod.read_robot(sys.argv[2], base="floating").numeric()
fixed = robot.with_base("fixed")
out = {}
for name, build in [("floating idm", lambda: idm_model(robot)),
                    ("idm (fixed base)", lambda: idm_model(fixed)),
                    ("free-floating idm", lambda: idm_model(robot, method="free_floating")),
                    ("floating inertia matrix", lambda: inertia_matrix_model(robot)),
                    ("floating ddm", lambda: ddm_model(robot))]:
    t0 = time.process_time()
    c = build().count()
    out[name] = (time.process_time() - t0, c.mults, c.adds)
print(json.dumps(out))
"""


def robots_dir():
    import cmeel

    return Path(cmeel.__file__).resolve().parents[1] / "cmeel.prefix" / "share" / \
        "example-robot-data" / "robots"


def generation(name, repeat):
    path = str(robots_dir() / FILES[name])
    runs = []
    for _ in range(repeat):
        res = subprocess.run([sys.executable, "-c", _ONE_RUN, SRC, path], capture_output=True,
                             text=True)
        if res.returncode:
            raise SystemExit(res.stderr)
        runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
    return {k: (min(r[k][0] for r in runs), runs[0][k][1], runs[0][k][2]) for k in runs[0]}


def speed(name, n_batch=100_000):
    """(ours single, Pinocchio single, ours batched per configuration, Pinocchio loop per
    configuration) in microseconds, for rnea and aba."""
    import numpy as np
    import pinocchio as pin

    sys.path.insert(0, SRC)
    import robmod
    from robmod.dynamics import ddm, idm
    from robmod.testing import to_pinocchio_configuration

    path = str(robots_dir() / FILES[name])
    robot = robmod.read_robot(path, base="floating").numeric()
    robmod.warmup(robot, models=())
    robmod.set_backend("compiled")
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    data = model.createData()
    n = robot.n_q
    rng = np.random.default_rng(0)
    Q = rng.normal(size=(n_batch, 4))
    q = np.column_stack([rng.normal(size=(n_batch, 3)), Q / np.linalg.norm(Q, axis=1)[:, None],
                         rng.uniform(-1, 1, (n_batch, n))])
    v, a = rng.normal(size=(2, n_batch, 6 + n))
    tau = rng.normal(size=(n_batch, n))
    n_peer = 2000                       # the Pinocchio loop's configurations (timed per call)
    qp = [pin.neutral(model) for _ in range(n_peer)]      # same dimension when no continuous joint
    for k in range(n_peer):
        qp[k][:7] = to_pinocchio_configuration(q[k, :7])
    out = {}
    for what, ours, theirs, args in (
            ("rnea", lambda x: idm(robot, *x), lambda k: pin.rnea(model, data, qp[k],
                                                                           v[k], a[k]), (q, v, a)),
            ("aba", lambda x: ddm(robot, *x), lambda k: pin.aba(model, data, qp[k], v[k],
                                                                         np.r_[np.zeros(6),
                                                                               tau[k]]),
             (q, v, tau))):
        one = tuple(x[0] for x in args)
        ours(one)
        reps = 2000
        t0 = time.perf_counter()
        for _ in range(reps):
            ours(one)
        single = (time.perf_counter() - t0) / reps * 1e6
        t0 = time.perf_counter()
        for k in range(reps):
            theirs(k % n_peer)
        peer = (time.perf_counter() - t0) / reps * 1e6
        ours(args)
        t0 = time.perf_counter()
        for _ in range(3):
            ours(args)
        batched = (time.perf_counter() - t0) / 3 / n_batch * 1e6
        out[what] = (single, peer, batched)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--robots", default="talos_reduced,solo12")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-speed", action="store_true")
    args = ap.parse_args(argv)
    for name in args.robots.split(","):
        gen = generation(name, args.repeat)
        print(f"\n{name}: generation (best of {args.repeat}, CPU s), operations")
        for k, (sec, m, a) in gen.items():
            print(f"  {k:26s} {sec:6.2f} s  {m:6d} mult {a:6d} add")
        extra = gen["floating idm"][1] - gen["idm (fixed base)"][1], \
            gen["floating idm"][2] - gen["idm (fixed base)"][2]
        print(f"  floating idm - fixed idm: {extra[0]} mult, {extra[1]} add; goal "
              f"<= {GOAL} s: {'met' if gen['floating idm'][0] <= GOAL else 'MISSED'}")
        if not args.no_speed:
            for what, (single, peer, batched) in speed(name).items():
                print(f"  {what}: robmod {single:.2f} us (Pinocchio {peer:.2f} us, "
                      f"{peer / single:.2f}x); batched {batched:.3f} us per configuration "
                      f"({peer / batched:.1f}x a Pinocchio loop)")


if __name__ == "__main__":
    main()
