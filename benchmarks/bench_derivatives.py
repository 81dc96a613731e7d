"""Derivatives of the dynamic models vs Pinocchio's analytical derivatives, measured in the same
run; CasADi graph sizes; JAX batched throughput on the CPU.

    python benchmarks/bench_derivatives.py [--n 100000] [--robots rx90,panda] [--no-jax]
                                           [--agreement 50]

For each robot (random consistent inertial parameters, rotor inertias, no friction):

* operation counts: IDM, DDM and their derivative models (the recursions differentiated
  forward, symbolic/dual.py);
* ``idm_derivatives`` / ``ddm_derivatives`` as a user calls them (compiled, after a first call)
  against ``pin.computeRNEADerivatives`` / ``pin.computeABADerivatives``: single call, ratio
  Pinocchio / robmod measured in turn (goal >= 2); batched over N configurations (the plain
  function, two threads) against a Python loop of the Pinocchio call (goal >= 20);
* CasADi: the exported IDM and IDM derivatives (``model.to_casadi()``: operations, SX nodes,
  instructions) against CasADi's own automatic differentiation of the exported IDM
  (``casadi.jacobian``); Pinocchio's CasADi bindings (``pinocchio.casadi``) when the installed
  ``pin`` has them;
* JAX (``model.to_jax()``, float64): batched throughput on the CPU of the jitted IDM and IDM
  derivatives, with JAX's default XLA options and with ``CPU_COMPILER_OPTIONS``;
* ``--agreement K``: the largest relative difference to Pinocchio over the library's trees and K
  random robots (random trees in Pinocchio's depth-first order).
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
from bench_plain_api import alternated  # noqa: E402
from run import timeit  # noqa: E402

from robmod.dynamics import (ddm_derivatives, ddm_derivatives_model, ddm_model, idm,  # noqa: E402
                             idm_derivatives, idm_derivatives_model, idm_model)
from robmod.symbolic import fastpath  # noqa: E402
from robmod.testing.random import random_robot, with_random_dynamics  # noqa: E402


def _robot(name):
    rng = np.random.default_rng(0)
    r = robmod.load_robot(name, numeric=True)
    return with_random_dynamics(r, rng)


def counts(robot):
    rows = []
    for title, make in (("IDM", idm_model), ("IDM derivatives", idm_derivatives_model),
                        ("DDM (recursive)", ddm_model),
                        ("DDM derivatives (-A^-1 dtau/dx)", ddm_derivatives_model),
                        ("DDM derivatives (recursive on duals)",
                         lambda r: ddm_derivatives_model(r, method="recursive"))):
        t0 = time.perf_counter()
        m = make(robot)
        c = m.count()
        rows.append((f"ops {title}", f"{c.mults} mult, {c.adds} add "
                     f"({c.mults + c.adds} total; generated in {time.perf_counter() - t0:.1f} s)"))
    return rows


def speed(robot, n):
    import pinocchio as pin

    from robmod.testing.peers import PinocchioRobot

    rng = np.random.default_rng(1)
    nq = robot.n_q
    q, qd, qdd = rng.uniform(-2, 2, (3, n, nq))
    tau = idm(robot, q, qd, qdd)
    p = PinocchioRobot(robot)
    m, d = p.model, p.data
    rows = []
    old = fastpath.set_backend("compiled")
    try:
        for title, fn, peer, args in (
                ("idm_derivatives", idm_derivatives, pin.computeRNEADerivatives, (q, qd, qdd)),
                ("ddm_derivatives", ddm_derivatives, pin.computeABADerivatives, (q, qd, tau))):
            t0 = time.perf_counter()
            fn(robot, *(a[0] for a in args))           # compiled (or loaded from the cache)
            ready = time.perf_counter() - t0
            one = [np.ascontiguousarray(a[0]) for a in args]
            pone = [p.pin_q(a) for a in one]
            t_r, t_p = alternated([lambda: fn(robot, *one), lambda: peer(m, d, *pone)],
                                  number=5000)
            rows.append((f"{title}, single", f"{t_r * 1e6:.2f} us vs Pinocchio "
                         f"{t_p * 1e6:.2f} us -> Pinocchio / robmod = {t_p / t_r:.2f} "
                         f"(goal >= 2; compiled or loaded in {ready:.1f} s)"))
            split = [[p.pin_q(a[k]) for a in args] for k in range(min(n, 20000))]

            def loop():
                for x in split:
                    peer(m, d, *x)

            t_loop = timeit(loop, repeat=3) / len(split)
            t_batch = timeit(lambda: fn(robot, *args), repeat=5) / n
            rows.append((f"{title}, batched", f"{t_batch * 1e9:.0f} ns/config vs a Pinocchio "
                         f"loop {t_loop * 1e9:.0f} ns -> {t_loop / t_batch:.1f}x (goal >= 20)"))
    finally:
        fastpath.set_backend(old)
    return rows


def graphs(robot):
    import casadi as ca

    from robmod.symbolic import casadi_operations

    rows = []

    def show(title, f):
        o = casadi_operations(f)
        rows.append((title, f"{o['mults']} mult, {o['adds']} add, {o['funcs']} functions, "
                     f"{o['signs']} signs; {o['nodes']} SX nodes, {o['instructions']} "
                     "instructions"))

    f = idm_model(robot).to_casadi()
    show("CasADi: robmod IDM", f)
    show("CasADi: robmod IDM derivatives", idm_derivatives_model(robot).to_casadi())
    n = robot.n_q
    x = [ca.SX.sym(k, n) for k in ("q", "qd", "qdd")]
    tau = f(*x)
    show("CasADi: its AD of the exported IDM",
         ca.Function("dIDM", x, [ca.jacobian(tau, v) for v in x]))
    try:
        import pinocchio.casadi  # noqa: F401

        rows.append(("Pinocchio CasADi", "available: compare with cpin.rnea (not done here)"))
    except ImportError:
        rows.append(("Pinocchio CasADi", "pinocchio.casadi is not in the installed pin wheel"))
    return rows


def jax_throughput(robot, n):
    import jax

    jax.config.update("jax_enable_x64", True)
    from robmod.symbolic import CPU_COMPILER_OPTIONS

    rows = []
    rng = np.random.default_rng(2)
    x = [jax.numpy.asarray(a) for a in rng.uniform(-2, 2, (3, n, robot.n_q))]
    for title, make in (("IDM", idm_model), ("IDM derivatives", idm_derivatives_model)):
        g = make(robot).to_jax()
        for opts, label in ((None, "defaults"), (CPU_COMPILER_OPTIONS, "CPU_COMPILER_OPTIONS")):
            f = jax.jit(g, compiler_options=opts)
            t0 = time.perf_counter()
            jax.block_until_ready(f(*x))
            t_compile = time.perf_counter() - t0
            t = timeit(lambda: jax.block_until_ready(f(*x)), repeat=3) / n
            rows.append((f"JAX {title}, {label}", f"{t * 1e9:.0f} ns/config "
                         f"({1 / t / 1e6:.2f} M configs/s; compiled in {t_compile:.1f} s)"))
    return rows


def agreement(k):
    import pinocchio as pin

    from robmod.testing.peers import PinocchioRobot

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_derivatives import _robots, rel

    rng = np.random.default_rng(29)
    worst = {}
    old = fastpath.set_backend("numpy")
    try:
        robots = _robots(rng, k)
        for robot in robots:
            p = PinocchioRobot(robot)
            ix = np.ix_(p.index, p.index)
            for _ in range(3):
                q, qd, qdd = rng.uniform(-2, 2, (3, robot.n_q))
                tau = idm(robot, q, qd, qdd)
                for fn, peer, args in ((idm_derivatives, pin.computeRNEADerivatives, (q, qd, qdd)),
                                       (ddm_derivatives, pin.computeABADerivatives,
                                        (q, qd, tau))):
                    got = fn(robot, *args)
                    ref = list(peer(p.model, p.data, *(p.pin_q(a) for a in args)))
                    ref[2] = np.triu(ref[2]) + np.triu(ref[2], 1).T
                    for name, a, b in zip(got._fields, got, ref):
                        worst[name] = max(worst.get(name, 0.0), rel(a[ix], b))
    finally:
        fastpath.set_backend(old)
    return [(f"Pinocchio agreement, {name}", f"{v:.1e} (max relative, {len(robots)} robots x 3 "
             "states)") for name, v in worst.items()]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="configurations in a batch")
    ap.add_argument("--robots", default="rx90,panda")
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--agreement", type=int, default=0, help="random robots for the agreement")
    args = ap.parse_args(argv)
    print(f"robmod derivative benchmarks — {os.cpu_count()} cores, numpy {np.__version__}")
    if args.agreement:
        for k, v in agreement(args.agreement):
            print(f"  {k:40s} {v}")
    for name in args.robots.split(","):
        robot = _robot(name)
        print(f"\n== {name} (N = {args.n}) ==")
        rows = counts(robot) + speed(robot, args.n) + graphs(robot)
        if not args.no_jax:
            rows += jax_throughput(robot, args.n)
        for k, v in rows:
            print(f"  {k:40s} {v}")


if __name__ == "__main__":
    main()
