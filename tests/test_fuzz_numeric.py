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
from robmod.dynamics import (coriolis_matrix, ddm, gravity_torques, idm, inertia_matrix,
                             state_derivative)
from robmod.errors import RobmodError
from robmod.geometry.direct import dgm
from robmod.identification.regressors import regressor
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


@FUZZ
@given(st.sampled_from(sorted(FUNCTIONS)), st.sampled_from(sorted(ROBOTS)), st.data())
def test_numeric_functions_return_finite_output_or_raise_robmod_error(fname, rname, data):
    call, n_args, tail = FUNCTIONS[fname]
    robot = ROBOTS[rname]
    n = robot.n_q
    sizes = (1,) * n_args if isinstance(n_args, int) else n_args
    args = [data.draw(joint_value(k * n)) for k in sizes]
    try:
        out = call(robot, args)
    except RobmodError:
        return
    out = np.asarray(out)
    assert rname != "symbolic", "a robot with symbolic geometry was evaluated"
    assert np.all(np.isfinite(out)), (fname, rname, args)
    if tail is not None:
        assert out.shape[len(out.shape) - len(tail(n)):] == tail(n), (fname, out.shape)
    else:
        assert out.shape[-2] == n


@FUZZ
@given(st.sampled_from(["rx90", "fixed", "symbolic"]), st.data())
def test_simulate_returns_finite_states_or_raises_robmod_error(rname, data):
    from robmod.dynamics import simulate

    robot = ROBOTS[rname]
    n = robot.n_q
    x0 = data.draw(joint_value(2 * n))
    t = data.draw(st.sampled_from([np.linspace(0, 0.02, 3), [0.0], [0.0, 0.0], [0.1, 0.0],
                                   [0.0, np.nan], "t", None, np.zeros((2, 2))]))
    gain = data.draw(st.sampled_from([0.0, 10.0, 1e12]))
    law = data.draw(st.sampled_from(["pd", "nan", "short", "string", "none"]))

    def tau_fn(tt, x):
        if law == "pd":
            return -gain * x[..., :n] - np.sqrt(gain) * x[..., n:]
        return {"nan": np.full(n, np.nan), "short": np.zeros(n - 1), "string": "a",
                "none": None}[law]

    try:
        out = simulate(robot, tau_fn, x0, t)
    except RobmodError:
        return
    assert rname != "symbolic"
    assert np.all(np.isfinite(out)) and out.shape[-1] == 2 * n


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
