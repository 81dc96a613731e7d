"""The customizing engine: the RX-90 DGM of seed 001 Example 3.4, passes, counts, export, compiled path."""
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.description.expr import parse_expression
from robmod.geometry.direct import dgm, dgm_model
from robmod.geometry.transforms import frame_transforms
from robmod.symbolic import count_ops
from robmod.symbolic.compile import CompiledModel

# seed 001, Example 3.4 a): the customized DGM of the RX-90 (44 multiplications, 18 additions)
SEED_EXAMPLE_3_4 = """
T4611 = C5*C6
T4612 = -C5*S6
T4631 = S5*C6
T4632 = -S5*S6
T3611 = C4*T4611 - S4*S6
T3612 = C4*T4612 - S4*C6
T3613 = -C4*S5
T3631 = -S4*T4611 - C4*S6
T3632 = -S4*T4612 - C4*C6
T3633 = S4*S5
T1314 = D3*C2
T1334 = D3*S2
T1611 = C23*T3611 - S23*T4631
T1612 = C23*T3612 - S23*T4632
T1613 = C23*T3613 - S23*C5
T1614 = -S23*RL4 + T1314
T1631 = S23*T3611 + C23*T4631
T1632 = S23*T3612 + C23*T4632
T1633 = S23*T3613 + C23*C5
T1634 = C23*RL4 + T1334
T0611 = C1*T1611 + S1*T3631
T0612 = C1*T1612 + S1*T3632
T0613 = C1*T1613 + S1*T3633
T0614 = C1*T1614
T0621 = S1*T1611 - C1*T3631
T0622 = S1*T1612 - C1*T3632
T0623 = S1*T1613 - C1*T3633
T0624 = S1*T1614
"""


def _seed_statements():
    out = {}
    for line in SEED_EXAMPLE_3_4.strip().splitlines():
        name, rhs = line.split("=")
        out[name.strip()] = parse_expression(rhs)
    return out


@pytest.fixture(scope="module")
def rx90():
    return robmod.load_robot("rx90")


@pytest.fixture(scope="module")
def rx90_dgm(rx90):
    return dgm_model(rx90)


def test_rx90_dgm_statements_equal_seed(rx90_dgm):
    ours = {str(l): r for l, r in rx90_dgm.statements}
    seed = _seed_statements()
    for name, rhs in seed.items():
        assert name in ours, name
        assert sp.expand(ours[name] - rhs) == 0, (name, ours[name], rhs)
    trig = {str(l): r for l, r in rx90_dgm.trig_block()}
    q2, q3 = sp.symbols("q2 q3")
    assert trig["S23"] == sp.sin(q2 + q3) and trig["C23"] == sp.cos(q2 + q3)
    outputs = dict(zip(rx90_dgm.outputs[0].names, map(str, rx90_dgm.outputs[0].exprs)))
    assert outputs["T0631"] == "T1631" and outputs["T0634"] == "T1634"


def test_rx90_dgm_operation_counts(rx90):
    c = dgm_model(rx90).count()
    assert (c.mults, c.adds) == (44, 18)
    c = dgm_model(rx90, columns="nap").count()
    assert (c.mults, c.adds) == (30, 12)


def _matrix_product(robot, q):
    Ts = frame_transforms(robot, q)
    out = Ts[0]
    for T in Ts[1:]:
        out = out @ T
    return out


def test_exports_agree_with_matrix_product(rx90, rx90_dgm, tmp_path):
    num = rx90.numeric()
    params = {"D3": 0.45, "RL4": 0.45}
    rng = np.random.default_rng(0)
    q = rng.uniform(-np.pi, np.pi, (50, 6))
    ref = _matrix_product(num, q)[:, :3, :]
    # Python/NumPy
    f = rx90_dgm.numpy_function()
    assert np.abs(f(q, params=params) - ref).max() < 1e-12
    # text: evaluate the statements with the restricted parser
    text = rx90_dgm.to_text()
    assert "Number of operations: 44 '*' or '/', 18 '+' or '-'" in text
    for k in range(3):
        env = {sp.Symbol(f"q{i + 1}"): q[k, i] for i in range(6)}
        env.update({sp.Symbol(n): v for n, v in params.items()})
        for line in text.splitlines():
            if not line or line.startswith("(*"):
                continue
            name, rhs = line.lstrip("*").split(" = ")
            env[sp.Symbol(name)] = float(parse_expression(rhs).xreplace(env))
        T = np.array([[env[sp.Symbol(f"T06{r}{c}")] for c in range(1, 5)] for r in range(1, 4)])
        assert np.abs(T - ref[k]).max() < 1e-12
    # C, compiled with gcc and called from a small main program
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    src, hdr = rx90_dgm.to_c()
    (tmp_path / "rx90_dgm.c").write_text(src)
    (tmp_path / "rx90_dgm.h").write_text(hdr)
    main = textwrap.dedent("""
        #include <stdio.h>
        #include "rx90_dgm.h"
        int main(void) {
            double q[6], p[2] = {0.45, 0.45}, out[RX90_DGM_NOUT];
            int i;
            for (i = 0; i < 6; i++) if (scanf("%lf", &q[i]) != 1) return 1;
            rx90_dgm(q, p, out);
            for (i = 0; i < RX90_DGM_NOUT; i++) printf("%.17g\\n", out[i]);
            return 0;
        }""")
    (tmp_path / "main.c").write_text(main)
    exe = tmp_path / "dgm"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(tmp_path / "main.c"),
                    str(tmp_path / "rx90_dgm.c"), "-lm"], check=True)
    for k in range(3):
        res = subprocess.run([str(exe)], input=" ".join(map(repr, q[k].tolist())), capture_output=True,
                             text=True, check=True)
        out = np.array([float(x) for x in res.stdout.split()]).reshape(3, 4)
        assert np.abs(out - ref[k]).max() < 1e-12


def test_octave_export_runs(rx90_dgm, tmp_path):
    octave = shutil.which("octave-cli") or shutil.which("octave")
    src = rx90_dgm.to_octave()
    assert src.startswith("function [out1] = rx90_dgm(q, params)")
    if octave is None:
        pytest.skip("Octave is not installed: the generated .m file was not run")
    (tmp_path / "rx90_dgm.m").write_text(src)
    q = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    cmd = f"disp(num2str(rx90_dgm([{' '.join(map(str, q))}], [0.45 0.45]), 17))"
    res = subprocess.run([octave, "--no-gui", "--quiet", "--eval", cmd], cwd=tmp_path,
                         capture_output=True, text=True, check=True)
    out = np.array([float(x) for x in res.stdout.split()]).reshape(3, 4)
    ref = _matrix_product(robmod.load_robot("rx90", numeric=True), np.array(q))[:3, :]
    assert np.abs(out - ref).max() < 1e-12


def test_latex_export(rx90_dgm):
    tex = rx90_dgm.to_latex()
    assert tex.startswith("\\begin{align*}") and "T_{4611} &= C_{5} C_{6}" in tex


def test_compiled_path_agrees_with_numpy_path(rx90):
    num = rx90.numeric()
    model = dgm_model(num)
    assert model.parameters == ()
    fc = model.compile()
    fn = CompiledModel(model, backend="numpy")
    assert fn.backend == "numpy"
    rng = np.random.default_rng(1)
    q = rng.uniform(-4, 4, (1000, 6))
    a, b = fc(q), fn(q)
    assert a.shape == (1000, 3, 4)
    assert np.abs(a - b).max() < 1e-12
    assert np.abs(a - dgm(num, q)[:, :3, :]).max() < 1e-12
    if fc.backend == "c":
        single = fc.single(q[0])
        assert np.abs(single - a[0]).max() < 1e-15
    # batch shapes: (), (k,), (k, m)
    assert fc(q[0]).shape == (3, 4)
    assert fc(q.reshape(10, 100, 6)).shape == (10, 100, 3, 4)
    # preallocated output, reused: same values, written in place
    for f in (fc, fn):
        buf = f.out_buffer(1000)
        res = f(q, out=buf)
        assert np.abs(res - a).max() < 1e-12 and np.shares_memory(res, buf)
    with pytest.raises(ValueError, match="out must be"):
        fc(q, out=np.empty((10, 12))) if fc.backend == "c" else (_ for _ in ()).throw(
            ValueError("out must be"))


def test_symbolic_parameters_are_inputs(rx90):
    model = dgm_model(rx90)
    assert [str(p) for p in model.parameters] == ["D3", "RL4"]
    f = model.compile()
    q = np.zeros((2, 6))
    out = f(q, params={"D3": 0.45, "RL4": 0.5})
    assert np.allclose(out[0], [[1, 0, 0, 0.45], [0, 1, 0, 0], [0, 0, 1, 0.5]])


def test_cache_works_across_processes(tmp_path):
    code = textwrap.dedent("""
        import time, robmod
        from robmod.geometry.direct import dgm_model
        from robmod.symbolic import compile as c
        m = dgm_model(robmod.load_robot("scara", numeric=True))
        t = time.perf_counter(); f = m.compile(); dt = time.perf_counter() - t
        print(f.backend, len(list(c.cache_dir().iterdir())))
    """)
    env = dict(os.environ, ROBMOD_CACHE=str(tmp_path))
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, check=True).stdout.split()
    if first[0] != "c":
        pytest.skip("no C compiler: NumPy fallback in use")
    files = sorted(tmp_path.iterdir())
    mtimes = [p.stat().st_mtime_ns for p in files]
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, check=True).stdout.split()
    assert first == second == ["c", "1"]
    assert [p.stat().st_mtime_ns for p in sorted(tmp_path.iterdir())] == mtimes


def _generic_3r():
    rows = []
    for j in (1, 2, 3):
        rows.append(dict(j=j, ant=j - 1, sigma=0, alpha=f"alpha{j}", d=f"d{j}", r=f"r{j}"))
    return robmod.make_robot("g3r", rows)


def test_numeric_robot_drops_statements_of_zero_parameters():
    sym = _generic_3r()
    full = dgm_model(sym)
    values = {"alpha1": 0, "d1": 0, "r1": 0, "alpha2": "pi/2", "d2": 0, "r2": 0,
              "alpha3": 0, "d3": 0.4, "r3": 0}
    num = sym.numeric(values)
    small = dgm_model(num)
    assert small.count().total < full.count().total
    assert len(small.statements) < len(full.statements)
    # the same through the substitution pass of the symbolic model
    sub = full.substituted({sp.Symbol(k): parse_expression(str(v)) for k, v in values.items()})
    assert sub.count().total < full.count().total
    rng = np.random.default_rng(2)
    q = rng.uniform(-3, 3, (20, 3))
    assert np.abs(small.numpy_function()(q) - sub.numpy_function()(q)).max() < 1e-12
    assert np.abs(small.numpy_function()(q) - dgm(num, q)[:, :3]).max() < 1e-12


def test_a_float_zero_of_a_file_drops_its_products():
    """A robot file's zeros are Floats (gravity 0.0 0.0 -9.81), and in SymPy >= 1.13
    Float(0.0) == 0 is False: the engine's product of a number and a symbol built 0.0*C1 as a
    statement (VP21 = 0.0*C1 in the IDM of a numeric RX-90) instead of dropping it."""
    from robmod.dynamics import idm_model
    from robmod.symbolic.algebra import mul
    from robmod.testing.random import with_random_dynamics

    x = sp.Symbol("x")
    assert mul(sp.Float(0.0), x) == 0 and mul(x, sp.Float(0.0)) == 0
    assert mul(sp.Float(2.0), x) == 2.0 * x
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True),
                                 np.random.default_rng(0))
    assert robot.gravity[0] == sp.Float(0.0)
    model = idm_model(robot)
    assert not [l for l, r in model.statements if r.has(sp.Float(0.0))], model.statements


def test_constant_block_is_separated():
    model = dgm_model(_generic_3r())
    const = {str(s) for s in model.constant_symbols()}
    assert {"S_A2", "C_A2"} <= const
    text = model.to_text()
    assert "*S_A2 = sin(alpha2)" in text and "Constant block" in text


def test_cse_never_increases_count(rx90):
    for model in (dgm_model(rx90), dgm_model(_generic_3r())):
        assert model.with_cse().count().total <= model.count().total


@pytest.mark.parametrize("expr, counts", [
    ("a*b", (1, 0)), ("-a*b", (1, 0)), ("a**2", (1, 0)), ("a**3", (2, 0)), ("2*a", (1, 0)),
    ("a/b", (1, 0)), ("1/b", (1, 0)), ("a*b/c", (2, 0)), ("a - b", (0, 1)),
    ("-a - b", (0, 1)), ("a*b + c*d - e", (2, 2)), ("a", (0, 0)), ("-a", (0, 0)),
])
def test_operation_count_rules(expr, counts):
    c = count_ops(parse_expression(expr))
    assert (c.mults, c.adds) == counts


def test_function_calls_counted_separately():
    c = count_ops(parse_expression("sin(q2 + q3)*a"))
    assert (c.mults, c.adds, c.funcs) == (1, 0, 1)


def test_sin2_plus_cos2_is_folded():
    from robmod.symbolic import SymbolicContext

    ctx = SymbolicContext()
    q1, a, b = sp.symbols("q1 a b")
    s, c = ctx.sincos(q1, "1")
    assert str(s) == "S1" and str(c) == "C1"
    x = ctx.var(a * s**2 + a * c**2 + b, "X")
    assert ctx.statements[-1][1] == a + b and str(x) == "X"
    assert ctx.var(3 * s**2 + 3 * c**2, "Y") == 3


def test_trig_of_an_angle_with_every_term_negative():
    """sin(-1.0*q31 - 0.61), the angle of a mimic joint with multiplier -1 (Talos's and Romeo's
    grippers), never finished in SymPy under distribute(False): RecursionError in idm_model."""
    from sympy.core.parameters import distribute

    from robmod.symbolic import SymbolicContext

    q = sp.Symbol("q31")
    angle = sp.Float(-1.0) * q - sp.Float(0.61)
    ctx = SymbolicContext()
    with distribute(False):
        s, c = ctx.sincos(angle, "32")
        sign = ctx.fn("sign", -q - sp.Float(0.5))
    # the sine's statement is sin(1.0 q31 + 0.61) itself, its sign a free change (as sin(q + pi))
    assert (-s).is_Symbol and dict(ctx.statements)[-s] == sp.sin(1.0 * q + 0.61)
    assert dict(ctx.statements)[c] == sp.cos(1.0 * q + 0.61)
    assert sign.func == sp.sign


def test_pythagoras_folding_pairs_come_from_the_statement():
    """Only the sine/cosine pairs present in a statement are tried, in the order the angles
    were met (the pass searched every statement once per joint: quadratic on big trees)."""
    from robmod.symbolic import SymbolicContext

    ctx = SymbolicContext()
    qs = sp.symbols("q1:41")
    trig = [ctx.sincos(q, str(k + 1)) for k, q in enumerate(qs)]
    (s1, c1), (s7, c7) = trig[0], trig[6]
    ctx.var(s1**2 * s7**2 + s1**2 * c7**2 + c1**2 + s7, "X")
    assert ctx.statements[-1][1] == s1**2 + c1**2 + s7     # one pass, pairs in order


def test_forward_mode_derivative_matches_finite_differences():
    from robmod.symbolic.differentiation import derivative

    robot = robmod.load_robot("rx90", numeric=True)
    model = derivative(dgm_model(robot), [sp.Symbol(f"q{k}") for k in range(1, 7)],
                       keep_outputs=False)
    f = model.numpy_function()
    rng = np.random.default_rng(8)
    q = rng.uniform(-3, 3, 6)
    outs = f(q)
    h = 1e-6
    for k in range(6):
        e = np.zeros(6)
        e[k] = h
        fd = (dgm(robot, q + e) - dgm(robot, q - e))[:3] / (2 * h)
        assert np.abs(outs[k] - fd).max() < 1e-8
    # derivatives reuse the model's sines and cosines
    assert "cos(" not in "".join(str(r) for l, r in model.statements if str(l).startswith("D"))


def test_vectorized_trig_prepass_matches_scalar_path():
    """The batched C kernel takes sin/cos of the inputs from a vectorized pre-pass (libmvec
    when it links); every batch size (block remainders) and models with parameters agree with
    the NumPy path, and a trig argument that is an expression of inputs is moved too."""
    from robmod.symbolic.vector_trig import batch_source, trig_prepass
    from robmod.dynamics import idm_model

    robot = robmod.load_robot("rx90")
    for model in (dgm_model(robot), idm_model(robot.numeric({"G3": 9.81}))):
        args, where = trig_prepass(model)
        assert args and len(where) >= len(args)
        assert "rm_vtrig" in batch_source(model, "m")
        fc, fn = model.compile(), CompiledModel(model, backend="numpy")
        if fc.backend != "c":
            pytest.skip("no C compiler")
        rng = np.random.default_rng(2)
        prm = {str(p): rng.uniform(0.2, 1) for p in model.parameters} or None
        ng = len([g for g in model.inputs if g != "params" and model.inputs[g]])
        for n in (1, 3, 63, 64, 65, 130):
            xs = [rng.uniform(-4, 4, (n, 6)) for _ in range(ng)]
            a, b = fc(*xs, params=prm), fn(*xs, params=prm)
            assert np.abs(a - b).max() < 1e-11 * (1 + np.abs(b).max())
    # sin/cos of an expression of the inputs (sum of angles) is moved as well
    from robmod.symbolic.model import Output, customize

    q1, q2 = sp.symbols("q1 q2")

    def alg(ctx):
        s = ctx.var(sp.sin(q1 + q2), "S12")
        c = ctx.var(sp.cos(q1 + q2), "C12")
        return [Output.vector("y", [s * c, s + c])]

    m = customize("t", alg, inputs={"q": (q1, q2)})
    args, _ = trig_prepass(m)
    assert args == [q1 + q2]
    x = np.random.default_rng(3).uniform(-3, 3, (77, 2))
    y = m.compile()(x)
    ref = np.stack([np.sin(x.sum(1)) * np.cos(x.sum(1)), np.sin(x.sum(1)) + np.cos(x.sum(1))], -1)
    assert np.abs(y - ref).max() < 1e-14
