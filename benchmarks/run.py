"""robmod benchmarks: ratios against peers measured in the same run.

    python benchmarks/run.py [--n 100000] [--robots rx90,panda] [--models dgm]

Peers: Pinocchio (``pin``), the Robotics Toolbox (``roboticstoolbox-python``)
and the same customized model exported as plain C (``to_c``, what a user gets
from ``robmod models --out``) compiled with ``cc -O3`` and timed in a C loop.
robmod's batched kernel can beat it: it takes the sines and cosines of a block
of configurations from glibc's vector math library (see
:mod:`robmod.symbolic.vector_trig`).  ``out=`` times reuse one output buffer;
the allocating call is shown in parentheses.  Peers that are not installed
are reported as such.  Times are medians of repeated runs on this machine.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import robmod  # noqa: E402
from robmod.geometry.direct import dgm_model  # noqa: E402
from robmod.symbolic.compile import _CFLAGS, compiler  # noqa: E402
from robmod.symbolic.export import c_layout, to_c  # noqa: E402


def best(fn, repeat=5):
    """(best seconds of ``repeat`` calls, the last result)."""
    out, res = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = fn()
        out.append(time.perf_counter() - t0)
    return min(out), res


def timeit(fn, repeat=5, number=1):
    """Median seconds per call."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return statistics.median(times)


def flat_c_time(model, n: int) -> float | None:
    """Seconds per configuration of the model compiled as flat C and run in a C loop."""
    cc = compiler()
    if cc is None:
        return None
    src, _ = to_c(model, "flat_model")
    groups, sizes = c_layout(model)
    nq = len(model.inputs[groups[0]])
    nout = sum(sizes)
    main = f"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
{src}
int main(void) {{
    long n = {n}, i, k;
    double *q = malloc(sizeof(double) * n * {nq}), *out = malloc(sizeof(double) * n * {nout});
    unsigned long s = 12345;
    double best = 1e30, sum = 0;
    int rep;
    for (i = 0; i < n * {nq}; i++) {{ s = s * 6364136223846793005UL + 1; q[i] = (double)(s >> 11) / 9007199254740992.0 * 6.0 - 3.0; }}
    for (rep = 0; rep < 7; rep++) {{
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (i = 0; i < n; i++) flat_model(q + i * {nq}, out + i * {nout});
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double dt = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
        if (dt < best) best = dt;
        for (k = 0; k < n * {nout}; k += 97) sum += out[k];
    }}
    printf("%.9e %g\\n", best / n, sum);
    return 0;
}}
"""
    with tempfile.TemporaryDirectory() as tmp:
        c = Path(tmp) / "flat.c"
        c.write_text(main)
        exe = Path(tmp) / "flat"
        flags = [f for f in _CFLAGS if f not in ("-shared", "-fPIC")]
        subprocess.run([cc, *flags, str(c), "-o", str(exe), "-lm"], check=True)
        out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    return float(out.split()[0])


def time_compiled(f, model, args, n, flat_model=None):
    """(rows, t_single, t_batch): single call, batched call (reused out= and allocating) and
    the plain exported C in a C loop, for a compiled model ``f`` on the batch ``args``."""
    one = [a[0].copy() for a in args]
    t_single = timeit(lambda: f.single(*one), number=20000)
    buf = f.out_buffer(n)
    t_alloc = timeit(lambda: f(*args), repeat=5) / n
    t_batch = timeit(lambda: f(*args, out=buf), repeat=5) / n
    t_flat = flat_c_time(flat_model or model, n)
    rows = [("robmod single call", f"{t_single * 1e6:.3f} us"),
            ("robmod batched (compiled, out=)", f"{t_batch * 1e9:.1f} ns/config "
             f"({t_alloc * 1e9:.1f} allocating the output)")]
    if t_flat:
        rows.append(("flat C loop (cc -O3)", f"{t_flat * 1e9:.1f} ns/config   "
                     f"-> robmod batched / flat C = {t_batch / t_flat:.2f} (target <= 1.2)"))
    return rows, t_single, t_batch


def peers_available():
    have = {}
    try:
        import pinocchio  # noqa: F401

        have["pinocchio"] = True
    except ImportError:
        have["pinocchio"] = False
    try:
        import roboticstoolbox  # noqa: F401

        have["rtb"] = True
    except ImportError:
        have["rtb"] = False
    return have


def bench_dgm(name: str, n: int, have) -> list[tuple[str, str]]:
    from robmod.testing.random import with_random_dynamics

    rows = []
    robot = robmod.load_robot(name, numeric=True)
    if robot.symbols:
        robot = with_random_dynamics(robot, np.random.default_rng(0))
    kin = robot
    t0 = time.perf_counter()
    model = dgm_model(kin, j=kin.n_links)
    t_gen = time.perf_counter() - t0
    t0 = time.perf_counter()
    f = model.compile()
    t_comp = time.perf_counter() - t0
    c = model.count()
    rows.append(("model", f"{c.mults} mult, {c.adds} add; generated in {t_gen * 1e3:.0f} ms, "
                          f"compiled/loaded in {t_comp * 1e3:.0f} ms ({f.backend})"))
    rng = np.random.default_rng(0)
    nj = kin.n_q
    qs = rng.uniform(-3, 3, (n, nj))
    q1 = qs[0].copy()
    timing, t_single, t_batch = time_compiled(f, model, (qs,), n)
    rows += timing
    npf = model.numpy_function()
    t_numpy = timeit(lambda: npf(qs), repeat=3) / n
    rows.append(("robmod batched (NumPy path)", f"{t_numpy * 1e9:.1f} ns/config"))
    if have["pinocchio"] and kin.structure != "closed":
        import pinocchio as pin

        from robmod.testing.peers import PinocchioRobot

        p = PinocchioRobot(kin)
        pq = p.pin_q(qs)
        pq1 = pq[0].copy()
        m, d = p.model, p.data
        jid = m.njoints - 1
        t_pin = timeit(lambda: pin.forwardKinematics(m, d, pq1), number=20000)
        m_loop = min(n, 20000)

        def loop():
            for k in range(m_loop):
                pin.forwardKinematics(m, d, pq[k])
                d.oMi[jid].homogeneous

        t_pin_loop = timeit(loop, repeat=3) / m_loop
        rows.append(("Pinocchio forwardKinematics, single", f"{t_pin * 1e6:.3f} us   -> "
                     f"Pinocchio / robmod = {t_pin / t_single:.2f} (target >= 1)"))
        rows.append(("Pinocchio, Python loop", f"{t_pin_loop * 1e9:.1f} ns/config   -> "
                     f"loop / robmod batched = {t_pin_loop / t_batch:.1f} (target >= 10)"))
    else:
        rows.append(("Pinocchio", "not installed (pip install pin)"))
    if have["rtb"] and kin.structure == "serial" and all(
            fr.gamma == 0 and fr.b == 0 for fr in kin.frames):
        from robmod.testing.peers import rtb_robot

        rt = rtb_robot(kin)
        t_rtb = timeit(lambda: rt.fkine(q1), number=500)
        rows.append(("RTB fkine, single", f"{t_rtb * 1e6:.1f} us   -> RTB / robmod = "
                     f"{t_rtb / t_single:.0f}"))
        m_rtb = min(n, 2000)
        t_rtb_b = timeit(lambda: rt.fkine(qs[:m_rtb]), repeat=3) / m_rtb
        rows.append(("RTB fkine, trajectory of configs", f"{t_rtb_b * 1e9:.0f} ns/config   -> "
                     f"RTB / robmod batched = {t_rtb_b / t_batch:.0f}"))
    elif not have["rtb"]:
        rows.append(("Robotics Toolbox", "not installed (pip install roboticstoolbox-python)"))
    return rows


def bench_jacobian(name: str, n: int, have) -> list[tuple[str, str]]:
    """Kinematic Jacobian 0J_n (customized, compiled) vs pin.computeFrameJacobian
    (LOCAL_WORLD_ALIGNED: linear velocity of O_n and angular velocity, both in frame 0)."""
    from robmod.kinematics.jacobians import jacobian_model

    from robmod.testing.random import with_random_dynamics

    robot = robmod.load_robot(name, numeric=True)
    if robot.symbols:  # the peer needs numbers for every parameter (dynamics unused here)
        robot = with_random_dynamics(robot, np.random.default_rng(0))
    j = robot.n_links
    t0 = time.perf_counter()
    model = jacobian_model(robot, j=j)
    t_gen = time.perf_counter() - t0
    f = model.compile()
    c = model.count()
    rows = [("model", f"{c.mults} mult, {c.adds} add; generated in {t_gen * 1e3:.0f} ms "
                      f"({f.backend})")]
    rng = np.random.default_rng(0)
    qs = rng.uniform(-3, 3, (n, robot.n_q))
    q1 = qs[0].copy()
    timing, t_single, t_batch = time_compiled(f, model, (qs,), n)
    rows += timing
    if not have["pinocchio"]:
        rows.append(("Pinocchio", "not installed (pip install pin)"))
        return rows
    import pinocchio as pin

    from robmod.testing.peers import PinocchioRobot

    p = PinocchioRobot(robot)
    pq = p.pin_q(qs)
    pq1 = pq[0].copy()
    m, d, fid = p.model, p.data, p.frame_id[j]
    ref = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    err = np.abs(pin.computeFrameJacobian(m, d, pq1, fid, ref)[:, p.index.argsort()]
                 - f.single(q1).reshape(6, -1)).max()
    t_pin = timeit(lambda: pin.computeFrameJacobian(m, d, pq1, fid, ref), number=20000)
    m_loop = min(n, 20000)

    def loop():
        for k in range(m_loop):
            pin.computeFrameJacobian(m, d, pq[k], fid, ref)

    t_loop = timeit(loop, repeat=3) / m_loop
    rows.append(("pin.computeFrameJacobian, single", f"{t_pin * 1e6:.3f} us   -> Pinocchio / "
                 f"robmod = {t_pin / t_single:.2f} (target >= 1)"))
    rows.append(("pin.computeFrameJacobian, Python loop", f"{t_loop * 1e9:.1f} ns/config   -> "
                 f"loop / robmod batched = {t_loop / t_batch:.1f} (target >= 10)"))
    rows.append(("max |J_pin - J_robmod|", f"{err:.1e}"))
    return rows


def bench_igm(name: str, n_targets: int, have) -> list[tuple[str, str]]:
    """Numeric IGM: solve rate and time per target, robmod (batched) vs RTB ikine_LM (loop)."""
    from robmod.geometry.direct import dgm
    from robmod.kinematics import igm_numeric

    robot = robmod.load_robot(name, numeric=True)
    tool = robot.tools[0].name if robot.tools else None
    rng = np.random.default_rng(1)
    q = rng.uniform(-2, 2, (n_targets, robot.n_q))
    for k, link in enumerate(robot.links):  # inside the joint limits where known
        lo, hi = link.limits.qmin, link.limits.qmax
        if lo is not None and hi is not None:
            q[:, k] = rng.uniform(float(lo), float(hi), n_targets)
    T = dgm(robot, q, tool=tool)
    rows = []
    t0 = time.perf_counter()
    res = igm_numeric(robot, T, tool=tool, n_restarts=4)
    dt = time.perf_counter() - t0
    ok = int(np.sum(res.status == "converged"))
    rows.append(("robmod igm_numeric (4 restarts)", f"{ok}/{n_targets} solved to 1e-10, "
                 f"{dt / n_targets * 1e3:.2f} ms/target"))
    rows += bench_igm_analytic(robot, q, T, tool, dt / n_targets)
    if have["rtb"] and robot.structure == "serial" and not tool and all(
            f.gamma == 0 and f.b == 0 for f in robot.frames):
        from robmod.testing.peers import rtb_robot

        rt = rtb_robot(robot)
        t0 = time.perf_counter()
        ok_rtb = 0
        for k in range(n_targets):
            sol = rt.ikine_LM(T[k], tol=1e-12)
            if sol.success and np.abs(dgm(robot, np.asarray(sol.q)) - T[k]).max() < 1e-6:
                ok_rtb += 1
        dt_rtb = time.perf_counter() - t0
        rows.append(("RTB ikine_LM tol=1e-12 (loop)", f"{ok_rtb}/{n_targets} solved to 1e-6, "
                     f"{dt_rtb / n_targets * 1e3:.2f} ms/target   -> RTB / robmod time = "
                     f"{dt_rtb / dt:.1f}"))
    return rows


def bench_igm_analytic(robot, q, T, tool, t_numeric) -> list[tuple[str, str]]:
    """Analytic IGM (Paul's method, compiled, all branches) on the same targets."""
    from robmod.errors import RobmodError
    from robmod.geometry.direct import dgm
    from robmod.geometry.inverse import igm_model

    fixed = list(robot.joints[6:])
    try:
        t0 = time.perf_counter()
        sol = igm_model(robot, fixed=fixed or None)
        backend = sol.use_compiled()
        t_gen = time.perf_counter() - t0
    except RobmodError as e:
        return [("robmod analytic IGM", f"not available: {e}")]
    if tool:
        from robmod.geometry.inverse import _strip

        T = _strip(robot, T, tool, False)
    qf = q[:, [j - 1 for j in fixed]] if fixed else None
    ev = sol.evaluate(T, qf)
    n = len(T)
    reached = 0
    for k in range(n):
        good = ev.valid[k]
        if good.any():
            err = np.abs(dgm(robot, ev.q[k][good]) - T[k]).max()
            reached += err < 1e-9
    big = np.repeat(T, max(1, 20_000 // n), axis=0)
    bqf = None if qf is None else np.repeat(qf, max(1, 20_000 // n), axis=0)
    t_batch = timeit(lambda: sol.evaluate(big, bqf), repeat=3) / len(big)
    t_one = timeit(lambda: sol.evaluate(T[0], None if qf is None else qf[0]), repeat=5, number=20)
    given = f", q{','.join(map(str, fixed))} given" if fixed else ""
    return [("robmod analytic IGM (Paul)", f"{reached}/{n} targets reached (all {sol.n_branches} "
             f"branches{given}), batched {t_batch * 1e6:.2f} us/target, single call "
             f"{t_one * 1e6:.0f} us ({backend}); generated+compiled in {t_gen:.1f} s"),
            ("  numeric / analytic time per target", f"{t_numeric / t_batch:.0f}")]


def bench_generation(names) -> list[tuple[str, str]]:
    rows = []
    for name in names:
        robot = robmod.load_robot(name)
        t0 = time.perf_counter()
        m = dgm_model(robot)
        dt = time.perf_counter() - t0
        rows.append((f"{name} symbolic DGM ({robot.n_joints} joints)",
                     f"{dt * 1e3:.0f} ms, {m.count()}"))
    return rows


_MEMORY_CODE = """
import resource, sys, numpy as np, robmod
from robmod.geometry.direct import dgm_model
backend, n = sys.argv[1], int(sys.argv[2])
f = dgm_model(robmod.load_robot("rx90", numeric=True)).compile(backend=backend)
q = np.random.default_rng(0).uniform(-3, 3, (n, 6))
f(q[:10])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = f(q)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((peak - base) * 1024 / out.nbytes)
"""


def bench_memory(n: int) -> list[tuple[str, str]]:
    """Peak memory of one batched call over n configurations, in units of its output size."""
    rows = []
    for backend in ("c", "numpy"):
        res = subprocess.run([sys.executable, "-c", _MEMORY_CODE, backend, str(n)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            rows.append((f"{backend} path", "failed: " + res.stderr.strip().splitlines()[-1]))
            continue
        ratio = float(res.stdout.split()[-1])
        rows.append((f"{backend} path, {n:.0e} configurations",
                     f"peak extra memory = {ratio:.2f} x the output ({n * 12 * 8 / 2**20:.0f} MiB)"))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="configurations in a batch")
    ap.add_argument("--robots", default="rx90,panda,lwr4")
    ap.add_argument("--models", default="dgm,jacobian,igm")
    ap.add_argument("--memory", type=int, default=10_000_000,
                    help="configurations of the peak-memory check (0: skip)")
    args = ap.parse_args(argv)
    have = peers_available()
    names = [r for r in args.robots.split(",") if r in robmod.library_names()]
    print(f"robmod benchmarks — {os.cpu_count()} cores, numpy {np.__version__}, "
          f"peers: {', '.join(k for k, v in have.items() if v) or 'none'}")
    for model in args.models.split(","):
        if model == "igm":
            for name in names:
                print(f"\n== numeric IGM of {name} ==")
                for k, v in bench_igm(name, 200, have):
                    print(f"  {k:38s} {v}")
            continue
        if model == "jacobian":
            for name in names:
                print(f"\n== Jacobian 0J{robmod.load_robot(name).n_links} of {name} ==")
                for k, v in bench_jacobian(name, args.n, have):
                    print(f"  {k:38s} {v}")
            continue
        if model != "dgm":
            print(f"(model {model} has no benchmark yet)")
            continue
        for name in names:
            print(f"\n== DGM 0T{robmod.load_robot(name).n_links} of {name} ==")
            for k, v in bench_dgm(name, args.n, have):
                print(f"  {k:38s} {v}")
        print("\n== symbolic generation ==")
        for k, v in bench_generation(names):
            print(f"  {k:38s} {v}")
    if args.memory:
        print(f"\n== peak memory of a batched DGM call (rx90) ==")
        for k, v in bench_memory(args.memory):
            print(f"  {k:38s} {v}")
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        print("\n(no C compiler: the compiled path fell back to NumPy)")


if __name__ == "__main__":
    main()
