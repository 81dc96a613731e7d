"""The CasADi export's compiled graph builder (robmod.symbolic.casadi_graph): its graph is the
Python builder's node for node (the same serialization, node count, instructions and values
on random states) for a fixed robot, one with a mimic joint, a floating one and every kind of
expression; what the Python walk decides goes there (its errors); without a C++ compiler one
warning says why and the Python builder serves; a compiler's failure is remembered on disk;
the builder shares the process's one libcasadi."""
import sys
import warnings

import numpy as np
import pytest
import sympy as sp
from test_export_agreement import _models, _states
from test_export_builds import _odd_model

import robmod
from robmod.dynamics import idm_model
from robmod.errors import RobmodError, RobmodWarning
from robmod.symbolic import casadi_graph, export_casadi
from robmod.symbolic.model import CustomModel, Output

ca = pytest.importorskip("casadi")


def _builder():
    builder = casadi_graph.graph_builder(ca)
    if builder is None:
        pytest.skip("no compiled CasADi graph builder on this machine (see its warning)")
    return builder


def _both(model):
    """The model's graph made by the compiled builder and by the Python one, as Functions."""
    inputs, args = {}, []
    for g in export_casadi._groups(model):
        for s in model.inputs[g]:
            inputs[s] = len(inputs)
        args.append(ca.SX.sym(g, len(model.inputs[g])))
    compiled = export_casadi._compiled_values(ca, model, inputs, args)
    assert compiled is not None
    python = export_casadi._python_values(ca, model, inputs, args)
    return ca.Function("f", args, compiled), ca.Function("f", args, python)


def _instructions(f):
    return [(f.instruction_id(k), tuple(f.instruction_input(k)),
             tuple(f.instruction_output(k)), f.instruction_constant(k))
            for k in range(f.n_instructions())]


def _assert_same(model, rng, states):
    fc, fp = _both(model)
    assert fc.n_nodes() == fp.n_nodes() and fc.n_instructions() == fp.n_instructions()
    assert _instructions(fc) == _instructions(fp)
    assert fc.serialize() == fp.serialize()
    for x in states:
        a, b = fc.call(list(x)), fp.call(list(x))      # lists of every output
        assert len(a) == len(b) == fc.n_out()
        assert all(np.array_equal(np.array(u), np.array(v)) for u, v in zip(a, b))


@pytest.mark.parametrize("kind", ["fixed", "mimic", "floating"])
def test_compiled_graph_is_the_python_graph(kind):
    _builder()
    _, models = _models(kind)
    rng = np.random.default_rng(7)
    for model in models:
        _assert_same(model, rng, list(zip(*_states(model, rng, (3,)))))


def test_compiled_graph_of_every_kind_of_expression():
    _builder()
    model = _odd_model()
    rng = np.random.default_rng(8)
    _assert_same(model, rng, [(rng.uniform(-1, 1, 2), rng.uniform(0.5, 1.5, 1))
                              for _ in range(3)])
    # numbers the builder converts itself and those it leaves to _float (a Float of more than
    # 53 bits or below the normal range, a Rational of large integers), powers of every kind
    q1, q2 = sp.symbols("q1 q2")
    x = sp.symbols("x1:5")
    statements = (
        (x[0], sp.Float("0.1", 40) * q1 + sp.Rational(10 ** 20 + 1, 3) * q2 - sp.Float(2.5e-300) * sp.Float(1e-310)),
        (x[1], x[0] / q2 ** 3 + sp.Float(-1e300) * q1 ** 2 + sp.Integer(2) ** 60 * q2),
        (x[2], sp.Rational(-3, 4) - x[1] * sp.Float(1.0) + sp.sqrt(q1 ** 2 + 1) ** 3),
        (x[3], (q1 + q2) ** sp.Float(1.5) + 1 / (x[2] + 7)),
    )
    model = CustomModel("numbers", {"q": (q1, q2)}, statements,
                        (Output.vector("y", [x[3], x[0], x[1], -x[2]]),))
    _assert_same(model, rng, [(rng.uniform(0.5, 1, 2),) for _ in range(3)])


def test_what_the_python_walk_decides_goes_there():
    _builder()
    q1, q2, x1 = sp.symbols("q1 q2 x1")
    # a function that does not export, a symbol that is no input: the Python walk's errors
    bad = CustomModel("bad", {"q": (q1,)}, ((x1, sp.log(q1) + 1),), (Output.vector("y", [x1]),))
    with pytest.raises(RobmodError, match="log cannot be exported"):
        bad.to_casadi()
    stray = CustomModel("stray", {"q": (q1,)}, ((x1, q1 * q2),), (Output.vector("y", [x1]),))
    with pytest.raises(RobmodError, match="neither an input nor a statement"):
        stray.to_casadi()
    # an input symbol met as another object equal to it: found by value, as in Python
    other = sp.Symbol.__xnew__(sp.Symbol, "q1")      # not SymPy's cached object
    assert other == q1 and other is not q1
    model = CustomModel("equal", {"q": (q1, q2)}, ((x1, 2 * other + q2),),
                        (Output.vector("y", [x1]),))
    assert float(model.to_casadi()([1.5, 0.25])) == 3.25


def test_without_a_cxx_compiler_one_warning_and_the_python_builder(monkeypatch, tmp_path):
    monkeypatch.setenv("ROBMOD_CACHE", str(tmp_path))
    monkeypatch.setattr(casadi_graph, "_STATE", {})
    monkeypatch.setattr(casadi_graph, "_cxx_command", lambda: None)
    model = idm_model(robmod.load_robot("planar2", numeric=True))
    with pytest.warns(RobmodWarning, match=r"in Python.*no C\+\+ compiler"):
        f = model.to_casadi()
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # once per process
        g = model.to_casadi()
    x = np.random.default_rng(9).uniform(-1, 1, (3, 2))
    assert np.array_equal(np.array(f(*x)), np.array(g(*x)))
    assert not list(tmp_path.glob("*.failed"))  # nothing to remember: no compiler


def test_a_compiler_failure_is_said_once_and_remembered(monkeypatch, tmp_path):
    monkeypatch.setenv("ROBMOD_CACHE", str(tmp_path))
    monkeypatch.setenv("CXX", "false")          # a compiler that fails at once
    monkeypatch.setattr(casadi_graph, "_STATE", {})
    with pytest.warns(RobmodWarning, match="the C\\+\\+ compiler failed"):
        assert casadi_graph.graph_builder(ca) is None
    failed = [p for p in tmp_path.iterdir() if p.name.endswith(".failed")]
    assert len(failed) == 1
    # another process: the failure read from disk, the compiler not run again
    monkeypatch.setattr(casadi_graph, "_STATE", {})
    monkeypatch.setattr(casadi_graph, "_compile", lambda *a: pytest.fail("compiled again"))
    with pytest.warns(RobmodWarning, match="remembered in"):
        assert casadi_graph.graph_builder(ca) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_the_builder_uses_the_process_libcasadi():
    _builder()
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "libcasadi.so" in line}
    assert len(libs) == 1, libs


def test_numpy_backend_builds_the_graph_in_python(monkeypatch):
    from robmod.symbolic import set_backend

    model = idm_model(robmod.load_robot("planar2", numeric=True))
    ref = model.to_casadi()
    monkeypatch.setattr(export_casadi, "graph_builder",
                        lambda ca: pytest.fail("no compiled code under the numpy backend"))
    old = set_backend("numpy")
    try:
        assert model.to_casadi().serialize() == ref.serialize()
    finally:
        set_backend(old)


def test_warmup_builds_the_casadi_graph_builder(capsys):
    """``robmod warmup`` prebuilds to_casadi's compiled builder (one line in its table)."""
    from robmod.cli import main

    assert main(["warmup", "rx90", "--models", "idm"]) == 0
    line = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("casadi graph")]
    assert len(line) == 1
    if casadi_graph.graph_builder(ca) is None:      # no C++ compiler here: it says why
        assert "Python (" in line[0]
    else:
        assert line[0].endswith("compiled (to_casadi's builder)")
