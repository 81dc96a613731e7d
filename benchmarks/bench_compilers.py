"""The first compile of a 7-axis robot's models with the system compiler and with the clang of
the ``ziglang`` wheel (the fallback where no compiler is installed), in one run.

    python benchmarks/bench_compilers.py [--robot panda]

For each compiler, in fresh caches (robmod's and zig's: the very first compile on a machine): each model's extension compiled alone (CPU seconds of the
compiler, wall seconds), then ``robmod.warmup`` (models generated and compiled, the compilers
running in parallel, one per core), then the single-call IDM and the batched IDM per
configuration.  On a machine shared with other work the wall times grow; the CPU times hold.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, SRC)

from robmod.symbolic.compile import _compiler_command as compiler_command  # noqa: E402

CHILD = textwrap.dedent("""
    import resource, sys, time, timeit
    import numpy as np, robmod
    from robmod.dynamics import idm
    from robmod.symbolic.compile import build_from_source, extension_source, compiler_description
    from robmod.geometry.direct import dgm_model
    from robmod.kinematics.jacobians import jacobian_model
    from robmod.kinematics.second_order import jdot_qdot_model
    from robmod.dynamics.newton_euler import idm_model
    from robmod.dynamics.inertia import inertia_matrix_model
    from robmod.dynamics.lagrange import gravity_torques_model
    from robmod.dynamics.direct import ddm_model
    print("compiler:", compiler_description())
    robot = robmod.load_robot(sys.argv[1], numeric=True)
    if sys.argv[2] == "models":
        total = 0.0
        for make in (dgm_model, jacobian_model, jdot_qdot_model, idm_model,
                     inertia_matrix_model, gravity_torques_model, ddm_model):
            name, src = extension_source(make(robot))
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            w = time.perf_counter()
            assert build_from_source(name, src) is not None
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
            total += cpu
            print(f"  {make.__name__:22s} compile {cpu:6.2f} s CPU {time.perf_counter() - w:6.2f} s wall")
        print(f"  {'all models':22s} compile {total:6.2f} s CPU")
    else:
        w = time.perf_counter()
        robmod.warmup(robot)
        print(f"  warmup (generate + compile, parallel): {time.perf_counter() - w:.2f} s wall")
        q = np.full(robot.n_q, 0.1)
        one = min(timeit.repeat(lambda: idm(robot, q, q, q), number=20000, repeat=5)) / 20000
        Q = np.random.default_rng(0).uniform(-1, 1, (100000, robot.n_q))
        many = min(timeit.repeat(lambda: idm(robot, Q, Q, Q), number=3, repeat=3)) / 3e5
        print(f"  idm single call {one * 1e6:.2f} us, batched {many * 1e9:.0f} ns/configuration")
""")


def run(robot, env, what):
    out = subprocess.run([sys.executable, "-c", CHILD, robot, what], env=env,
                         capture_output=True, text=True)
    print(out.stdout.rstrip())
    if out.returncode:
        print(out.stderr[-2000:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--robot", default="panda")
    args = ap.parse_args()
    system = compiler_command()
    envs = []
    if system and "ziglang" not in " ".join(system):
        envs.append(("system compiler", {}))
    hidden = tempfile.mkdtemp(prefix="robmod-nocc-")
    envs.append(("zig cc (no compiler on PATH)", {"PATH": hidden}))
    for label, extra in envs:
        for what in ("models", "warmup"):
            # fresh caches: robmod's, and zig's own (zig keeps every object it compiled: a
            # second compile of the same source would be a cache hit, not a compile)
            cache = tempfile.mkdtemp(prefix="robmod-bench-cache-")
            zig_cache = tempfile.mkdtemp(prefix="robmod-bench-zig-")
            env = {k: v for k, v in os.environ.items() if k != "CC"}
            env.update(extra, ROBMOD_CACHE=cache, PYTHONPATH=SRC, ZIG_GLOBAL_CACHE_DIR=zig_cache,
                       ZIG_LOCAL_CACHE_DIR=zig_cache)
            print(f"{label}, {what}:")
            run(args.robot, env, what)
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(zig_cache, ignore_errors=True)
    shutil.rmtree(hidden, ignore_errors=True)
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime:.0f} s CPU in all)")


if __name__ == "__main__":
    main()
