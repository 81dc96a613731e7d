"""Fuzzing of the plain numeric API: every call either returns finite output of the right
shape or raises a RobmodError (never a NumPy/SymPy exception, never a silent NaN).

Budget: ``ROBMOD_FUZZ_EXAMPLES`` examples per test (default 40); run more with e.g.
``ROBMOD_FUZZ_EXAMPLES=2000 pytest -m fuzz tests/test_fuzz_numeric.py``.
"""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robmod
from robmod.description import Link, make_robot
from robmod import geometry as geo
from robmod import kinematics as kin
from robmod import dynamics as dyn
from robmod.dynamics import (ccg, coriolis_matrix, ddm, energy, friction_torques, gravity_torques,
                             idm, idm_with_rotors, inertia_matrix, quadratic_velocity_matrix,
                             state_derivative, velocity_torques)
from robmod.errors import ArgumentError, ExpressionError, FileFormatError, RobmodError
from robmod.geometry.direct import dgm
from robmod.identification.regressors import regressor
from robmod.kinematics import (acceleration, task_coordinates, task_jacobian, task_rows_jacobian,
                               wrench_transport_matrix)
from robmod.kinematics.jacobians import jacobian
from robmod.kinematics.second_order import jdot_qdot
from robmod.testing.random import with_random_dynamics

pytestmark = pytest.mark.fuzz
EXAMPLES = int(os.environ.get("ROBMOD_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


def _robots():
    rng = np.random.default_rng(0)
    rx90 = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng)
    rows = [dict(sigma=0, mu=1, alpha=0, d=0, theta=0, r=0.3),
            dict(sigma=2, mu=0, alpha=0.5, d=0.1, theta=0.4, r=0.05),
            dict(sigma=1, mu=1, alpha=-1.5, d=0.2, theta=0, r=0.1),
            dict(sigma=0, mu=1, alpha=1.5, d=0.1, theta=0.3, r=0.2)]
    frames = [dict(j=j, ant=j - 1, **row) for j, row in enumerate(rows, start=1)]
    fixed = with_random_dynamics(
        make_robot("fixed", frames, links=[Link(j=j) for j in range(1, 5)]), rng)
    symbolic = robmod.load_robot("rx90")
    return {"rx90": rx90, "fixed": fixed, "symbolic": symbolic}


ROBOTS = _robots()

# name: (call, number of joint arguments or their sizes in units of n, output tail shape)
FUNCTIONS = {
    "dgm": (lambda r, a: dgm(r, a[0]), 1, lambda n: (4, 4)),
    "jacobian": (lambda r, a: jacobian(r, a[0]), 1, lambda n: (6, n)),
    "jdot_qdot": (lambda r, a: jdot_qdot(r, a[0], a[1]), 2, lambda n: (6,)),
    "idm": (lambda r, a: idm(r, a[0], a[1], a[2]), 3, lambda n: (n,)),
    "ddm": (lambda r, a: ddm(r, a[0], a[1], a[2]), 3, lambda n: (n,)),
    "ddm_inverse": (lambda r, a: ddm(r, a[0], a[1], a[2], method="inverse"), 3,
                    lambda n: (n,)),
    "inertia": (lambda r, a: inertia_matrix(r, a[0]), 1, lambda n: (n, n)),
    "gravity": (lambda r, a: gravity_torques(r, a[0]), 1, lambda n: (n,)),
    "coriolis": (lambda r, a: coriolis_matrix(r, a[0], a[1]), 2, lambda n: (n, n)),
    "regressor": (lambda r, a: regressor(r, a[0], a[1], a[2]), 3, None),
    # x = [q, qd] (2 n values) and tau
    "state_derivative": (lambda r, a: state_derivative(r, a[0], a[1]), (2, 1),
                         lambda n: (2 * n,)),
    # the other functions of the geometry, kinematics and dynamics layers
    "dgm_i_tool": (lambda r, a: dgm(r, a[0], j=3, i=1), 1, lambda n: (4, 4)),
    "jacobian_i": (lambda r, a: jacobian(r, a[0], i=2), 1, lambda n: (6, n)),
    "acceleration": (lambda r, a: acceleration(r, a[0], a[1], a[2]), 3, lambda n: (6,)),
    "task_rows_jacobian": (lambda r, a: task_rows_jacobian(r, a[0], i="end", rows=(0, 1, 5)), 1,
                           lambda n: (3, n)),
    "task_jacobian": (lambda r, a: task_jacobian(r, a[0], on_singular="nan"), 1,
                      lambda n: (6, n)),
    "task_coordinates": (lambda r, a: task_coordinates(r, a[0]), 1, lambda n: (6,)),
    "wrench_transport": (lambda r, a: wrench_transport_matrix(r, a[0]), 1, lambda n: (6, 6)),
    "ccg": (lambda r, a: ccg(r, a[0], a[1]), 2, lambda n: (n,)),
    "velocity_torques": (lambda r, a: velocity_torques(r, a[0], a[1]), 2, lambda n: (n,)),
    "friction_torques": (lambda r, a: friction_torques(r, a[0]), 1, lambda n: (n,)),
    "energy": (lambda r, a: np.stack(energy(r, a[0], a[1])), 2, lambda n: ()),
    "inertia_ne": (lambda r, a: inertia_matrix(r, a[0], method="ne", rotor=False), 1,
                   lambda n: (n, n)),
    "quadratic_velocity": (lambda r, a: quadratic_velocity_matrix(r, a[0]), 1, None),
    "idm_switches": (lambda r, a: idm(r, a[0], a[1], a[2], gravity=False, velocity=False), 3,
                     lambda n: (n,)),
    "idm_with_rotors": (lambda r, a: idm_with_rotors(r, [], a[0], a[1], a[2]), 3,
                        lambda n: (n,)),
}

SPECIAL = [np.nan, np.inf, -np.inf, 1e300, -0.0, 0.0]


@st.composite
def joint_value(draw, n):
    """A plausible or broken joint argument for a robot with n joint variables."""
    kind = draw(st.sampled_from(["good", "good", "batch", "length", "special", "empty",
                                 "string", "none", "ragged", "scalar", "object"]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    if kind == "good":
        return rng.uniform(-3, 3, n)
    if kind == "batch":
        return rng.uniform(-3, 3, tuple(draw(st.lists(st.integers(1, 3), max_size=2))) + (n,))
    if kind == "length":
        return rng.uniform(-3, 3, draw(st.sampled_from([0, 1, n - 1, n + 1, n + 3])))
    if kind == "special":
        x = rng.uniform(-3, 3, n)
        x[draw(st.integers(0, n - 1))] = draw(st.sampled_from(SPECIAL))
        return x
    if kind == "empty":
        return np.zeros(draw(st.sampled_from([(0,), (0, n), (n, 0)])))
    if kind == "string":
        return draw(st.sampled_from(["abc", "1,2,3", ["a"] * n]))
    if kind == "none":
        return None
    if kind == "ragged":
        return [[1.0] * n, [1.0]]
    if kind == "scalar":
        return draw(st.floats(allow_nan=True, allow_infinity=True))
    return np.array([object()] * n)


def _finite_or_refused(call, robot, args, fname, rname, tail):
    """The output of ``call(robot, args)`` if finite and of the right tail shape; None if
    refused with a RobmodError (anything else fails)."""
    try:
        out = call(robot, args)
    except RobmodError:
        return None
    out = np.asarray(out)
    assert rname != "symbolic", "a robot with symbolic geometry was evaluated"
    assert np.all(np.isfinite(out)), (fname, rname, args)
    n = robot.n_q
    if tail is not None:
        assert out.shape[len(out.shape) - len(tail(n)):] == tail(n), (fname, out.shape)
    return out


@FUZZ
@given(st.sampled_from(sorted(FUNCTIONS)), st.sampled_from(sorted(ROBOTS)), st.data())
def test_numeric_functions_return_finite_output_or_raise_robmod_error(fname, rname, data):
    call, n_args, tail = FUNCTIONS[fname]
    robot = ROBOTS[rname]
    n = robot.n_q
    sizes = (1,) * n_args if isinstance(n_args, int) else n_args
    args = [data.draw(joint_value(k * n)) for k in sizes]
    out = _finite_or_refused(call, robot, args, fname, rname, tail)
    if out is not None and tail is None:
        assert out.shape[-2] == n


# functions of arrays (a Jacobian, a transform, vectors): what they return is finite for
# finite inputs, or they raise a RobmodError (the elementwise helpers of robmod.geometry
# propagate NaN as NumPy's functions do; the Jacobian's functions refuse it)
ARRAY_FUNCTIONS = {
    "manipulability": (kin.manipulability, ["J"]),
    "jacobian_svd": (lambda J: kin.jacobian_svd(J).sigma, ["J"]),
    "rank": (kin.rank, ["J"]),
    "condition_number": (lambda J: np.minimum(kin.condition_number(J), 1e300), ["J"]),
    "velocity_ellipsoid": (lambda J: kin.velocity_ellipsoid(J).lengths, ["J"]),
    "velocity_bounds": (kin.velocity_bounds, ["J", "n"]),
    "joint_torques": (kin.joint_torques, ["J", "m"]),
    "wrench_from_torques": (kin.wrench_from_torques, ["J", "n"]),
    "pinv": (kin.pinv, ["J"]),
    "ikm_pinv": (kin.ikm_pinv, ["J", "m"]),
    "ikm_dls": (kin.ikm_dls, ["J", "m"]),
    "rot_matrix": (lambda a: geo.rot_matrix("z", a), ["m"]),
    "skew": (geo.skew, ["v3"]),
    "rpy_to_matrix": (geo.rpy_to_matrix, ["v3"]),
    "matrix_to_rpy": (lambda T: np.stack(geo.matrix_to_rpy(T)[:2]), ["T"]),
    "angle_axis": (lambda T: geo.angle_axis(T).theta, ["T"]),
    "matrix_to_quaternion": (geo.matrix_to_quaternion, ["T"]),
    "quaternion_to_matrix": (geo.quaternion_to_matrix, ["v4"]),
    "inverse_transform": (geo.inverse_transform, ["T"]),
    "screw_transform": (geo.screw_transform, ["T"]),
    "transform_wrench": (geo.transform_wrench, ["T", "v6"]),
    "frame_error": (lambda T: geo.frame_error(T, T), ["T"]),
}


@st.composite
def array_value(draw, kind, m, n):
    """A plausible or broken array of the ``kind`` a function takes (m x n Jacobians)."""
    good = {"J": (m, n), "n": (n,), "m": (m,), "v3": (3,), "v4": (4,), "v6": (6,),
            "T": (4, 4)}[kind]
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    how = draw(st.sampled_from(["good", "good", "batch", "shape", "special", "string", "none",
                                "ragged", "object"]))
    if how in ("good", "batch"):
        batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2))) if how == "batch" else ()
        x = rng.uniform(-2, 2, batch + good)
        if kind == "T":
            x[..., 3, :] = [0, 0, 0, 1]
        return x
    if how == "shape":
        return rng.uniform(-2, 2, draw(st.sampled_from([(0,), (2,), (5, 1), (3, 3, 3)])))
    if how == "special":
        x = rng.uniform(-2, 2, good)
        x.flat[draw(st.integers(0, x.size - 1))] = draw(st.sampled_from(SPECIAL))
        return x
    return {"string": "abc", "none": None, "ragged": [[1.0], [1.0, 2.0]],
            "object": np.array([object()] * 3)}[how]


@FUZZ
@given(st.sampled_from(sorted(ARRAY_FUNCTIONS)), st.integers(1, 6), st.integers(1, 7), st.data())
def test_array_functions_return_finite_output_or_raise_robmod_error(fname, m, n, data):
    fn, kinds = ARRAY_FUNCTIONS[fname]
    args = [data.draw(array_value(k, m, n)) for k in kinds]
    try:
        out = fn(*args)
    except RobmodError:
        return
    finite_in = all(np.all(np.isfinite(np.asarray(a, dtype=float))) for a in args)
    if finite_in and np.all(np.abs(np.asarray(args[0], float)) < 1e100):
        assert np.all(np.isfinite(np.asarray(out, dtype=float))), (fname, args)


@FUZZ
@given(st.sampled_from(["rx90", "fixed", "symbolic"]), st.data())
def test_simulate_returns_finite_states_or_raises_robmod_error(rname, data):
    from robmod.control import simulate

    robot = ROBOTS[rname]
    n = robot.n_q
    x0 = data.draw(joint_value(2 * n))
    duration, step = data.draw(st.sampled_from([(0.02, 0.01), (0.0, 0.01), (0.01, 0.0),
                                                (-0.1, 0.01), (np.nan, 0.01), ("t", 0.01),
                                                (None, 0.01), (np.zeros((2, 2)), 0.01),
                                                (0.02, np.inf), (0.02, "s")]))
    gain = data.draw(st.sampled_from([0.0, 10.0, 1e12]))
    law = data.draw(st.sampled_from(["pd", "nan", "short", "string", "none"]))

    def tau_fn(tt, q, qd):
        if law == "pd":
            return -gain * q - np.sqrt(gain) * qd
        return {"nan": np.full(n, np.nan), "short": np.zeros(n - 1), "string": "a",
                "none": None}[law]

    try:
        out = np.asarray(simulate(robot, tau_fn, None, duration, x0=x0, step=step))
    except RobmodError:
        return
    # (a robot with symbols runs with the values of its file, robot.numeric(), as the
    # controllers' models do)
    assert np.all(np.isfinite(out)) and out.shape[-1] == 2 * n


# floating bases (docs/floating.md): q has 7 + n values, qd and qdd 6 + n, tau n
def _floating_robots():
    from robmod.testing import random_inertial

    rng = np.random.default_rng(1)
    out = {k: r.with_base("floating", **random_inertial(rng)) for k, r in ROBOTS.items()
           if k != "symbolic"}
    out["symbolic"] = ROBOTS["symbolic"].with_base("floating")
    return out


FLOATING_ROBOTS = _floating_robots()


def _simulate_floating(robot, x0, tau):
    """The last state of 2 ms of a floating robot under the torques ``tau``."""
    from robmod.control import simulate

    return simulate(robot, lambda t, q, qd: tau, None, 2e-3, x0=x0, saturation=False).x[-1]
FLOATING = {
    "floating_idm": (lambda r, a: dyn.idm(r, *a), (7, 6, 6), lambda n: (6 + n,)),
    "free_floating_idm": (lambda r, a: dyn.idm(r, *a, method="free_floating"), (7, 6, 0),
                          lambda n: (6 + n,)),
    "floating_inertia": (lambda r, a: dyn.inertia_matrix(r, *a), (7,),
                         lambda n: (6 + n, 6 + n)),
    "floating_ddm": (lambda r, a: dyn.ddm(r, *a), (7, 6, 0), lambda n: (6 + n,)),
    "floating_ddm_inverse": (lambda r, a: dyn.ddm(r, *a, method="inverse"), (7, 6, 0),
                             lambda n: (6 + n,)),
    "floating_dgm": (lambda r, a: geo.dgm(r, *a, j=2, i="world"), (7,), lambda n: (4, 4)),
    "floating_jacobian": (lambda r, a: kin.jacobian(r, *a, i=1), (7,),
                          lambda n: (6, 6 + n)),
    "center_of_mass": (lambda r, a: dyn.center_of_mass(r, *a), (7,), lambda n: (3,)),
    "centroidal": (lambda r, a: dyn.centroidal_momentum_matrix(r, *a), (7,),
                   lambda n: (6, 6 + n)),
    "integrate": (lambda r, a: geo.integrate(r, *a), (7, 6), lambda n: (7 + n,)),
    "difference": (lambda r, a: geo.difference(r, *a), (7, 7), lambda n: (6 + n,)),
    "simulate": (lambda r, a: _simulate_floating(r, *a), ("x", 0), None),
}


@FUZZ
@given(st.sampled_from(sorted(FLOATING)), st.sampled_from(sorted(FLOATING_ROBOTS)), st.data())
def test_floating_functions_return_finite_output_or_raise_robmod_error(fname, rname, data):
    call, extra, tail = FLOATING[fname]
    robot = FLOATING_ROBOTS[rname]
    n = robot.n_q
    args = [data.draw(joint_value(2 * n + 13 if e == "x" else n + e)) for e in extra]
    for a in args:           # a good configuration holds a quaternion that is not zero
        if isinstance(a, np.ndarray) and a.dtype == float and a.shape[-1:] in \
                ((n + 7,), (2 * n + 13,)) and np.all(np.isfinite(a)):
            a[..., 3] += 2.0
    _finite_or_refused(call, robot, args, fname, rname, tail)


# -- inverse geometric models: a target pose of any kind -----------------------------------------
def _igm_functions():
    from robmod.geometry.igm_general6r import igm_general6r
    from robmod.geometry.igm_pieper import igm_pieper
    from robmod.geometry.inverse import igm
    from robmod.kinematics.ik_numeric import igm_numeric

    return {"igm": lambda r, T: igm(r, T),
            "igm_general6r": lambda r, T: igm_general6r(r, T),
            "igm_pieper": lambda r, T: igm_pieper(r, T),
            "igm_numeric": lambda r, T: igm_numeric(r, T, n_restarts=2, max_iter=20)}


IGM_FUNCTIONS = _igm_functions()


@st.composite
def target_pose(draw):
    """A reachable pose of the RX-90, or a broken one (NaN, infinite, huge, wrong shape, not
    a rotation, not numbers)."""
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    T = dgm(ROBOTS["rx90"], rng.uniform(-2, 2, 6))
    kind = draw(st.sampled_from(["good", "special", "special", "shape", "rotation", "string",
                                 "none", "batch", "3x4", "object"]))
    if kind == "special":
        T = T.copy()
        T[draw(st.integers(0, 2)), draw(st.integers(0, 3))] = draw(st.sampled_from(SPECIAL))
    elif kind == "shape":
        T = np.eye(draw(st.sampled_from([0, 2, 3, 5])))
    elif kind == "rotation":
        T = T.copy()
        T[:3, :3] *= draw(st.sampled_from([0.0, 2.0, -1.0]))
    elif kind == "string":
        T = "eye(4)"
    elif kind == "none":
        T = None
    elif kind == "batch":
        T = np.stack([T, T])
    elif kind == "3x4":
        T = T[:3]
    elif kind == "object":
        T = np.array([[object()] * 4] * 4)
    return T


@FUZZ
@given(st.sampled_from(sorted(IGM_FUNCTIONS)), target_pose())
def test_inverse_models_return_solutions_or_raise_robmod_error(fname, T):
    """igm_general6r with a NaN in the target raised LinAlgError ("SVD did not converge")."""
    try:
        res = IGM_FUNCTIONS[fname](ROBOTS["rx90"], T)
    except RobmodError:
        return
    q = np.asarray(res.q)
    valid = np.asarray(res.valid)
    assert np.all(np.isfinite(q[valid])), fname


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e300])
def test_general6r_refuses_a_non_finite_target(bad):
    from robmod.geometry.igm_general6r import igm_general6r

    T = dgm(ROBOTS["rx90"], np.full(6, 0.3))
    T[0, 3] = bad
    match = "finite|out of range" if bad == 1e300 else "NaN|infinite"
    with pytest.raises(RobmodError, match=match):
        igm_general6r(ROBOTS["rx90"], T)


# -- every public entry point of every package, with bad arguments --------------------------
# Each exported function and class (controllers, estimators, ...) is called with broken values
# for all its required arguments, and with a robot first and broken values for the rest: it
# raises an ArgumentError (one error class per kind of mistake: a bad argument; the text of a
# file or of an expression, its own kind: FileFormatError, ExpressionError) or returns; never
# another RobmodError, nor a NumPy, SymPy or Python error from deep inside
# (docs/architecture.md, "Errors").

#: exported objects left out, and why
NOT_CALLED = {
    "CompiledModel": "built by CustomModel.compile(), not by users",
    "IGMSolution": "built by igm_model, not by users",
    "kk_transform": "the formula a(j)T_j for any scalar type (SymPy or NumPy), unchecked; "
                    "frame_transform(robot, j, q) is the checked function",
    "get_client": "no required argument: it starts a Dask cluster",
    "local_cluster": "no required argument: it starts a Dask cluster",
    "close_default": "no argument",
}
BROKEN = [None, "abc", float("nan"), [[1.0], [1.0, 2.0]], np.array([object()] * 3)]


def _entry_points():
    import importlib
    import inspect

    out, seen = [], set()
    names = ["", ".spatial", ".description", ".symbolic", ".geometry", ".kinematics",
             ".dynamics", ".identification", ".trajectory", ".control", ".plot", ".distributed"]
    for name in names:
        try:
            pkg = importlib.import_module("robmod" + name)
        except ImportError:      # the dask extra
            continue
        for attr in pkg.__all__:
            obj = getattr(pkg, attr)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or id(obj) in seen \
                    or attr in NOT_CALLED:
                continue
            seen.add(id(obj))
            try:
                params = list(inspect.signature(obj).parameters.values())
            except (TypeError, ValueError):
                continue
            required = [p for p in params if p.default is p.empty
                        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            keywords = [p.name for p in params if p.default is p.empty
                        and p.kind is p.KEYWORD_ONLY]
            if required or keywords:
                out.append((f"{pkg.__name__}.{attr}", obj, [p.name for p in required], keywords))
    return out


ENTRY_POINTS = _entry_points()


@pytest.mark.parametrize("qual, fn, required, keywords", ENTRY_POINTS,
                         ids=[e[0] for e in ENTRY_POINTS])
def test_every_entry_point_refuses_bad_arguments_with_an_argument_error(qual, fn, required,
                                                                        keywords, tmp_path,
                                                                        monkeypatch):
    import warnings

    pytest.importorskip("matplotlib").use("Agg")
    monkeypatch.chdir(tmp_path)              # a writer given the path "abc" writes it here
    calls = [([b] * len(required), b) for b in BROKEN]
    if required and required[0] == "robot" and len(required) + len(keywords) > 1:
        calls += [([ROBOTS["rx90"]] + [b] * (len(required) - 1), b) for b in BROKEN]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args, b in calls:
            try:
                fn(*args, **{k: b for k in keywords})
            except (ArgumentError, FileFormatError, ExpressionError):
                pass
