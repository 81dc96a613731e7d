"""robmod dynamic models vs Pinocchio and flat C, measured in the same run.

    python benchmarks/bench_dynamics.py [--n 100000] [--robots rx90,panda]

For each robot (random consistent inertial parameters, rotor inertias, no
friction) and each model — inverse dynamics (NE, vs ``pin.rnea``), inertia
matrix (composite links, vs ``pin.crba``), direct dynamics (recursive §7.6.2,
vs ``pin.aba``) — prints:

* single call of the compiled customized model (``f.single``) vs one Pinocchio
  call: ratio Pinocchio / robmod (target >= 1);
* batched compiled call over N configurations vs a Python loop of the
  Pinocchio call: ratio (target >= 10);
* batched compiled call vs the same customized model compiled as flat C and
  run in a C loop (``flat_c_time`` of benchmarks/run.py): robmod / flat C
  (target <= 1.2).  flat_c_time takes one input group: the model's groups
  (q, qd, qdd or q, qd, GAM) are joined into one, the statements unchanged.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import robmod  # noqa: E402
from run import peers_available, time_compiled, timeit  # noqa: E402

from robmod.dynamics import ddm_model, idm_model, inertia_matrix_model  # noqa: E402
from robmod.testing.random import with_random_dynamics  # noqa: E402


def one_group(model):
    """The same model with its variable inputs joined into one group (for flat_c_time)."""
    joined = tuple(s for g, syms in model.inputs.items() if g != "params" for s in syms)
    inputs = {"x": joined}
    if model.inputs.get("params"):
        inputs["params"] = model.inputs["params"]
    return replace(model, inputs=inputs)


def bench_robot(name: str, n: int, have) -> list[tuple[str, str]]:
    rng = np.random.default_rng(0)
    robot = robmod.load_robot(name, numeric=True)
    if robot.symbols:
        robot = with_random_dynamics(robot, rng)
    nj = robot.n_q
    q, qd, qdd = rng.uniform(-2, 2, (3, n, nj))
    tau = rng.uniform(-5, 5, (n, nj))
    pin = p = None
    if have["pinocchio"]:
        import pinocchio as pin

        from robmod.testing.peers import PinocchioRobot

        p = PinocchioRobot(robot)
    rows = []
    cases = [("IDM (NE)", lambda: idm_model(robot), (q, qd, qdd), "rnea"),
             ("inertia matrix (composite links)", lambda: inertia_matrix_model(robot), (q,),
              "crba"),
             ("DDM (recursive, 7.6.2)", lambda: ddm_model(robot), (q, qd, tau), "aba"),
             ("DDM (A^-1 (Gamma - H), LTDL)", lambda: ddm_model(robot, method="inverse"),
              (q, qd, tau), "aba")]
    for title, build, args, peer in cases:
        t0 = time.perf_counter()
        model = build()
        t_gen = time.perf_counter() - t0
        f = model.compile()
        c = model.count()
        rows.append((f"-- {title}", f"{c.mults} mult, {c.adds} add; generated in "
                                    f"{t_gen * 1e3:.0f} ms ({f.backend})"))
        timing, t_single, t_batch = time_compiled(f, model, args, n, one_group(model))
        rows += timing
        if p is None:
            rows.append(("Pinocchio", "not installed"))
            continue
        m, d = p.model, p.data
        fn = getattr(pin, peer)
        pargs = [p.pin_q(a) for a in args]
        one_p = [a[0].copy() for a in pargs]
        t_pin = timeit(lambda: fn(m, d, *one_p), number=20000)
        m_loop = min(n, 20000)

        def loop():
            for k in range(m_loop):
                fn(m, d, *[a[k] for a in pargs])

        t_loop = timeit(loop, repeat=3) / m_loop
        rows.append((f"pin.{peer}, single", f"{t_pin * 1e6:.3f} us   -> Pinocchio / robmod = "
                                           f"{t_pin / t_single:.2f} (target >= 1)"))
        rows.append((f"pin.{peer}, Python loop", f"{t_loop * 1e9:.1f} ns/config   -> loop / "
                     f"robmod batched = {t_loop / t_batch:.1f} (target >= 10)"))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="configurations in a batch")
    ap.add_argument("--robots", default="rx90,panda")
    args = ap.parse_args(argv)
    have = peers_available()
    print(f"robmod dynamics benchmarks — {os.cpu_count()} cores, numpy {np.__version__}, "
          f"peers: {', '.join(k for k, v in have.items() if v) or 'none'}")
    for name in args.robots.split(","):
        print(f"\n== dynamics of {name} (N = {args.n}) ==")
        for k, v in bench_robot(name, args.n, have):
            print(f"  {k:38s} {v}")


if __name__ == "__main__":
    main()
