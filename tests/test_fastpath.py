"""Fast by default: the plain numeric functions through the compiled customized models
(robmod.symbolic.fastpath) give the NumPy path's results, fall back without a compiler, and
keep every argument check."""
import dataclasses
import warnings
from types import MappingProxyType

import numpy as np
import pytest

import robmod
from robmod.dynamics import ddm, idm, inertia_matrix
from robmod.dynamics.lagrange import gravity_torques
from robmod.errors import RobmodError
from robmod.geometry.direct import dgm
from robmod.identification import regressor
from robmod.kinematics.second_order import jdot_qdot
from robmod.kinematics.jacobians import jacobian
from robmod.symbolic import compile as compile_mod
from robmod.symbolic import fastpath
from robmod.testing.random import random_robot, with_random_dynamics

PLAIN = {"idm": (idm, 3), "ddm": (ddm, 3), "inertia_matrix": (inertia_matrix, 1),
         "gravity_torques": (gravity_torques, 1), "dgm": (dgm, 1), "jacobian": (jacobian, 1),
         "jdot_qdot": (jdot_qdot, 2), "regressor": (regressor, 3)}


@pytest.fixture
def policy():
    old = fastpath.set_backend("auto")
    yield fastpath.set_backend
    fastpath.set_backend(old)


def _robots():
    rng = np.random.default_rng(7)
    yield "rx90", with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng,
                                       friction=True)
    yield "tree", with_random_dynamics(random_robot(rng, 4, tree=True), rng)
    yield "prismatic", with_random_dynamics(random_robot(rng, 3, prismatic=True), rng)


@pytest.mark.parametrize("name,robot", list(_robots()), ids=lambda x: x if isinstance(x, str)
                         else "")
def test_compiled_equals_numpy(name, robot, policy):
    """Single configurations and batches (2 threads above the threshold): 1e-12 relative."""
    rng = np.random.default_rng(0)
    n = robot.n_q
    one = rng.uniform(-2, 2, (3, n))
    many = rng.uniform(-2, 2, (3, 2, 70, n))   # 2 blocks of 64 configurations and a tail
    for model, (fn, nargs) in PLAIN.items():
        policy("numpy")
        ref1, refb = fn(robot, *one[:nargs]), fn(robot, *many[:nargs])
        policy("compiled")
        got1, gotb = fn(robot, *one[:nargs]), fn(robot, *many[:nargs])
        assert got1.shape == ref1.shape and gotb.shape == refb.shape, model
        scale = max(1.0, np.abs(refb).max())
        assert np.abs(got1 - ref1).max() <= 1e-12 * scale, model
        assert np.abs(gotb - refb).max() <= 1e-12 * scale, model
        key = {"idm": ("idm", ()), "ddm": ("ddm",), "inertia_matrix": ("A", True),
               "gravity_torques": ("Q",), "dgm": ("dgm", None, 0, None),
               "jacobian": ("jacobian", None, 0, None), "jdot_qdot": ("jdot_qdot", None, 0, None),
               "regressor": ("regressor", None, "all")}[model]
        assert fastpath.entry(robot, key).fn is not None, f"{model} not compiled for {name}"


def test_threads_split_large_batches(policy, monkeypatch):
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True),
                                 np.random.default_rng(1))
    x = np.random.default_rng(2).uniform(-2, 2, (3, 10001, 6))   # 3 chunks and a tail
    policy("compiled")
    one_thread = idm(robot, *x)
    monkeypatch.setattr(fastpath, "_THREAD_MIN", 100)
    assert np.array_equal(idm(robot, *x), one_thread)


@pytest.mark.parametrize("model", ["idm", "dgm"])
def test_a_configuration_gets_the_same_result_anywhere_in_a_batch(policy, model):
    """The vector sines and cosines are taken by groups of 4: a configuration in the last,
    incomplete group of a block used to get the scalar functions (a few ulps apart), so a
    result depended on the batch size and on how the threads cut the batch."""
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True),
                                 np.random.default_rng(1))
    fn, nargs = PLAIN[model]
    x = np.random.default_rng(2).uniform(-2, 2, (3, 9, 6))[:nargs]
    policy("compiled")
    whole = fn(robot, *x)
    for n in range(1, 9):
        assert np.array_equal(fn(robot, *x[:, :n]), whole[:n]), n


def test_nan_in_a_threads_chunk_is_named(policy, monkeypatch):
    """The batch checks run in C in each thread: a NaN in the second half is still found and
    the NumPy path's check names the argument; an overflow in an output too."""
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True),
                                 np.random.default_rng(1))
    policy("compiled")
    monkeypatch.setattr(fastpath, "_THREAD_MIN", 100)
    x = np.random.default_rng(2).uniform(-2, 2, (3, 10000, 6))
    idm(robot, *x)
    x[2, 9990, 4] = np.nan
    with pytest.raises(RobmodError, match="argument qdd holds NaN"):
        idm(robot, *x)
    x[2, 9990, 4] = 0.0
    x[1, 7000, 1] = 1e200
    with pytest.raises(RobmodError, match="overflow"):
        idm(robot, *x)


def test_large_outputs_are_reused_only_once_let_go(policy, monkeypatch):
    """A large output is given again only when nothing holds it any more: results the caller
    keeps (names, views) never change; the one before last is reused in a loop."""
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True),
                                 np.random.default_rng(1))
    policy("compiled")
    monkeypatch.setattr(fastpath._Spare, "SIZES", (1, 1 << 30))
    rng = np.random.default_rng(3)
    x, y, z = (rng.uniform(-2, 2, (400, 6)) for _ in range(3))
    first = inertia_matrix(robot, x)
    kept = first.copy()
    view = inertia_matrix(robot, y)[10:20]       # only a view of the second is kept
    third = inertia_matrix(robot, z)             # both held: a new array
    assert not np.shares_memory(third, first) and not np.shares_memory(third, view)
    assert np.array_equal(first, kept)
    assert np.array_equal(view, inertia_matrix(robot, y[10:20]))
    address = first.__array_interface__["data"][0]
    del first
    fourth = inertia_matrix(robot, x)            # the first one's memory, let go: reused
    assert fourth.__array_interface__["data"][0] == address
    assert np.array_equal(fourth, kept)
    for _ in range(3):                           # a loop keeps the result of the last call
        previous, fourth = fourth, inertia_matrix(robot, y)
        assert not np.shares_memory(previous, fourth)
    small = inertia_matrix(robot, x[:3])
    monkeypatch.setattr(fastpath._Spare, "SIZES", (1 << 22, 1 << 27))
    assert not np.shares_memory(small, inertia_matrix(robot, x[:3]))


@pytest.mark.parametrize("n", [1, 63, 64, 65, 200])
def test_vectorized_kernel_equals_single_calls(n):
    """The structure-of-arrays kernel (full blocks of 64 and a tail) gives each configuration
    the scalar function's result; the DGM keeps the per-configuration kernel."""
    from robmod.dynamics import ddm_model, idm_model
    from robmod.geometry import dgm_model
    from robmod.symbolic.lanes import _vectorizable

    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True),
                                 np.random.default_rng(4), friction=True)
    assert not _vectorizable(dgm_model(robot))
    x = np.random.default_rng(n).uniform(-2, 2, (3, n, 6))
    for make in (idm_model, ddm_model):
        model = make(robot)
        assert _vectorizable(model)
        f = model.compile()
        got = f(*x)
        ref = np.array([f.single(*x[:, k]) for k in range(n)])
        assert np.abs(got - ref).max() <= 1e-12 * max(1.0, np.abs(ref).max())


def test_vectorized_kernel_equals_the_per_configuration_kernel_bit_for_bit(monkeypatch):
    """Same statements in the same order, same vector sines and cosines: the same bits."""
    from robmod.dynamics import ddm_model, idm_model

    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True),
                                 np.random.default_rng(4), friction=True)
    x = np.random.default_rng(5).uniform(-2, 2, (3, 131, 6))
    for make in (idm_model, ddm_model):
        lanes = make(robot).compile()
        with monkeypatch.context() as m:
            m.setattr(compile_mod, "lanes_source", lambda *a: None)
            scalar = make(robot).compile()
        assert np.array_equal(lanes(*x), scalar(*x))


def test_bad_arguments_keep_their_messages(policy):
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True),
                                 np.random.default_rng(1))
    policy("compiled")
    q = np.zeros(6)
    idm(robot, q, q, q)
    with pytest.raises(RobmodError, match="argument qd holds NaN"):
        idm(robot, q, np.full(6, np.nan), q)
    with pytest.raises(RobmodError, match="qdd"):
        idm(robot, q, q, np.zeros(5))
    with pytest.raises(RobmodError, match="q"):
        dgm(robot, np.zeros((2, 7)))
    with pytest.raises(RobmodError, match="overflow"):
        idm(robot, q, np.full(6, 1e200), q)
    # lists and integer arrays are accepted as before
    assert np.allclose(idm(robot, [0] * 6, [0] * 6, [0] * 6), idm(robot, q, q, q))


def test_auto_policy_compiles_after_the_budget(policy, monkeypatch, tmp_path):
    monkeypatch.setenv("ROBMOD_CACHE", str(tmp_path))     # no index of an earlier run
    robot = with_random_dynamics(random_robot(np.random.default_rng(3), 2),
                                 np.random.default_rng(3))
    q = np.zeros(robot.n_q)
    monkeypatch.setenv("ROBMOD_COMPILE_AFTER", "1e9")
    gravity_torques(robot, q)
    assert fastpath.entry(robot, ("Q",)).fn is None        # one call never compiles
    monkeypatch.setenv("ROBMOD_COMPILE_AFTER", "0")
    gravity_torques(robot, q)
    assert fastpath.entry(robot, ("Q",)).fn is not None


def test_disk_index_reused_without_generating(policy, monkeypatch):
    """A model compiled once is found again (another process: here after clear()) without
    generating or compiling it."""
    robot = with_random_dynamics(random_robot(np.random.default_rng(4), 2),
                                 np.random.default_rng(4))
    policy("compiled")
    q = np.full(robot.n_q, 0.3)
    before = gravity_torques(robot, q)
    robmod.symbolic.clear()
    monkeypatch.setattr(compile_mod, "build_from_source",
                        lambda *a, **k: pytest.fail("compiled again"))
    policy("auto")
    again = robmod.Robot.__new__(robmod.Robot)      # an equal robot, new object
    again.__setstate__(robot.__getstate__())
    assert np.array_equal(gravity_torques(again, q), before)
    assert fastpath.entry(again, ("Q",)).fn is not None


def test_no_compiler_falls_back_and_says_so_once(policy, monkeypatch):
    robot = with_random_dynamics(random_robot(np.random.default_rng(5), 3),
                                 np.random.default_rng(5))
    monkeypatch.setattr(compile_mod, "compiler", lambda: None)
    monkeypatch.setattr(fastpath, "_load_indexed", lambda *a: None)
    monkeypatch.setitem(fastpath._STATE, "no_cc", False)
    policy("compiled")
    x = np.random.default_rng(0).uniform(-1, 1, (3, robot.n_q))
    with pytest.warns(robmod.RobmodWarning, match=r"no C compiler.*robmod\[compiler\]"):
        out = idm(robot, *x)
    assert fastpath.entry(robot, ("idm", ())).fn is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")                         # said once
        inertia_matrix(robot, x[0])
    policy("numpy")
    assert np.array_equal(out, idm(robot, *x))


def test_a_compiler_that_fails_says_so_once(policy, monkeypatch):
    """A fast path that cannot build warns (naming why and what to install), once; it never
    runs 100-1000 times slower in silence."""
    robot = with_random_dynamics(random_robot(np.random.default_rng(15), 3),
                                 np.random.default_rng(15))
    monkeypatch.setattr(compile_mod, "build_from_source", lambda *a, **k: None)
    monkeypatch.setattr(fastpath, "_load_indexed", lambda *a: None)
    monkeypatch.setitem(fastpath._STATE, "cc_failed", False)
    policy("compiled")
    x = np.random.default_rng(1).uniform(-1, 1, (3, robot.n_q))
    with pytest.warns(robmod.RobmodWarning, match="could not build.*NumPy path"):
        out = idm(robot, *x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ddm(robot, *x)
    policy("numpy")
    assert np.array_equal(out, idm(robot, *x))


def test_the_fast_path_never_swallows_robmods_errors(policy, monkeypatch):
    """An error of robmod's own while the compiled model is generated reaches the caller (it
    was swallowed, and the NumPy path ran without a word)."""
    import robmod.dynamics.newton_euler as ne

    robot = with_random_dynamics(random_robot(np.random.default_rng(16), 2),
                                 np.random.default_rng(16))

    def broken(*a, **k):
        raise robmod.RobmodError("the generator failed")

    monkeypatch.setattr(ne, "_idm_model", broken)
    monkeypatch.setattr(fastpath, "_load_indexed", lambda *a: None)
    policy("compiled")
    with pytest.raises(robmod.RobmodError, match="the generator failed"):
        idm(robot, *np.zeros((3, robot.n_q)))


def test_one_cache_and_one_clear(policy):
    """Every model robmod derives from a robot is kept in the one cache, keyed by the robot's
    content, and robmod.symbolic.clear() forgets them all: the compiled functions (reset on
    the robots that hold them), the direct model chosen for the plants, the Christoffel
    models, the analytic IGM."""
    from robmod.dynamics import coriolis_matrix, ddm_model
    from robmod.geometry import igm_model
    from robmod.symbolic import cache

    robot = with_random_dynamics(random_robot(np.random.default_rng(17), 2),
                                 np.random.default_rng(17))
    policy("compiled")
    q = np.full(robot.n_q, 0.4)
    idm(robot, q, q, q)
    coriolis_matrix(robot, q, q, method="christoffel")
    fewest = ddm_model(robot, method="fewest")
    assert ddm_model(robot, method="fewest") is fewest            # generated once
    solution = igm_model(robmod.load_robot("rx90"))
    assert igm_model(robmod.load_robot("rx90")) is solution       # an equal robot: found
    assert fastpath.entry(robot, ("idm", ())).fn is not None and len(cache._STORE) >= 4
    robmod.symbolic.clear()
    assert not cache._STORE
    assert fastpath.entry(robot, ("idm", ())).fn is None          # reset on the robot too
    assert ddm_model(robot, method="fewest") is not fewest


def test_an_explicit_cc_that_does_not_exist_means_no_compiler(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    assert compile_mod.compiler() is None
    monkeypatch.setenv("CC", "gcc -O2")
    assert compile_mod.compiler() is not None


def test_symbolic_parameters_fall_back_to_the_numpy_error(policy):
    robot = dataclasses.replace(robmod.load_robot("rx90"),  # no inertial values
                                values=MappingProxyType({"D3": 0.45, "RL4": 0.45})).numeric()
    policy("compiled")
    with pytest.raises(RobmodError, match="symbolic"):
        idm(robot, np.zeros(6), np.zeros(6), np.zeros(6))


def test_warmup_reports_each_model(policy):
    robot = with_random_dynamics(random_robot(np.random.default_rng(6), 2),
                                 np.random.default_rng(6))
    report = robmod.warmup(robot)
    assert set(report) == set(PLAIN) - {"regressor"}     # identification: a layer above
    assert all(compiled for _, compiled in report.values())
    with pytest.raises(RobmodError, match="unknown model"):
        robmod.warmup(robot, models=["rnea"])
    with pytest.raises(RobmodError, match="backend must be"):
        fastpath.set_backend("fast")


def test_numpy_backend_bypasses_compiled_models(policy, monkeypatch):
    """set_backend("numpy") takes effect even for a model already compiled (it was ignored)."""
    robot = with_random_dynamics(random_robot(np.random.default_rng(8), 2),
                                 np.random.default_rng(8))
    q = np.full(robot.n_q, 0.2)
    policy("compiled")
    gravity_torques(robot, q)
    assert fastpath.entry(robot, ("Q",)).fn is not None
    policy("numpy")
    calls = []
    monkeypatch.setattr(fastpath._FastFunction, "batch", lambda *a: calls.append(a))
    entry = fastpath.entry(robot, ("Q",))
    monkeypatch.setattr(entry, "fn", None)   # a compiled call would now fail loudly
    monkeypatch.setattr(fastpath, "_lookup", lambda *a, **k: pytest.fail("looked up"))
    gravity_torques(robot, q)
    assert not calls
