"""Argument checks of the numeric API (robmod.description.arguments), singular direct
dynamics and the content-keyed caches of compiled models."""
from dataclasses import replace
from types import MappingProxyType

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.description.arguments import finite_array, joint_array, require_numeric
from robmod.dynamics import coriolis_matrix, ddm, idm, inertia_matrix
from robmod.dynamics.articulated import _singular_joint
from robmod.dynamics.lagrange import _compiled_christoffel
from robmod.errors import ArgumentError, RobmodError
from robmod.geometry.direct import dgm
from robmod.kinematics.jacobians import jacobian
from robmod.testing.random import random_robot, with_random_dynamics


@pytest.fixture(scope="module")
def rx90():
    return with_random_dynamics(robmod.load_robot("rx90", numeric=True), np.random.default_rng(0))


def test_joint_array_names_argument_and_shape(rx90):
    assert joint_array(rx90, "q", [1, 2, 3, 4, 5, 6]).dtype == float
    assert joint_array(rx90, "q", np.zeros((3, 2, 6))).shape == (3, 2, 6)
    for bad in ([1, 2, 3], np.zeros((6, 3)), 1.0, [], [[1, 2], [3]]):
        with pytest.raises(RobmodError, match=r"argument q .*6 joint values \(q1, .*q6\)"):
            joint_array(rx90, "q", bad)
    with pytest.raises(RobmodError, match="argument qd must be .*the string 'abc'"):
        joint_array(rx90, "qd", "abc")
    with pytest.raises(RobmodError, match="argument qdd is missing"):
        joint_array(rx90, "qdd", None)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_are_refused_not_propagated(rx90, value):
    q = np.zeros(6)
    bad = q.copy()
    bad[2] = value
    with pytest.raises(RobmodError, match="argument qd holds (NaN|an infinite value)"):
        idm(rx90, q, bad, q)
    with pytest.raises(RobmodError, match="argument q holds"):
        dgm(rx90, bad)
    with pytest.raises(RobmodError, match="argument tau holds"):
        ddm(rx90, q, q, bad)
    with pytest.raises(RobmodError, match="argument q holds"):
        jacobian(rx90, bad)


def test_wrong_shapes_name_the_arguments(rx90):
    with pytest.raises(RobmodError, match=r"argument qdd must have 6 joint values"):
        idm(rx90, np.zeros(6), np.zeros(6), np.zeros(5))
    with pytest.raises(RobmodError, match="do not broadcast"):
        idm(rx90, np.zeros((2, 6)), np.zeros((3, 6)), np.zeros(6))
    with pytest.raises(RobmodError, match=r"argument q must have 6 joint values"):
        inertia_matrix(rx90, np.zeros(7))


def test_symbolic_robot_is_refused_naming_the_symbols():
    robot = robmod.load_robot("rx90")  # D3, RL4 and the dynamic parameters are symbols
    with pytest.raises(RobmodError, match=r"D3, RL4 are symbolic .*robot.numeric"):
        dgm(robot, np.zeros(6))
    with pytest.raises(RobmodError, match=r"D3, RL4 are symbolic"):
        jacobian(robot, np.zeros(6))
    with pytest.raises(RobmodError, match=r"idm needs a numeric robot: D3, RL4 are symbolic"):
        idm(robot, np.zeros(6), np.zeros(6), np.zeros(6))
    with pytest.raises(RobmodError, match=r"symbolic"):
        ddm(robot, np.zeros(6), np.zeros(6), np.zeros(6))
    assert require_numeric(robot.numeric(), "x", scope="geometry") is not None
    geometry_only = replace(robot, values=MappingProxyType({"D3": 0.45, "RL4": 0.45}))
    with pytest.raises(RobmodError, match=r"parameter G3 is symbolic.*robot.numeric"):
        idm(geometry_only.numeric(), np.zeros(6), np.zeros(6), np.zeros(6), friction=False)


def test_finite_array_names_the_argument():
    with pytest.raises(RobmodError, match="argument x holds"):
        finite_array("x", [1, np.inf])


# -- singular inertia matrix in the direct model ------------------------------------------

def _massless_tail(robot, first):
    """``robot`` with links first..n massless and without rotor inertia."""
    zero = {k: sp.Integer(0) for k in ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ",
                                       "M", "IA")}
    links = tuple(replace(l, **zero) if l.j >= first else l for l in robot.links)
    return replace(robot, links=links)


@pytest.mark.parametrize("method", ["recursive", "inverse"])
def test_singular_inertia_names_the_joint(method):
    robot = _massless_tail(random_robot(np.random.default_rng(7), 4, prismatic=False), 4)
    q = np.random.default_rng(1).uniform(-1, 1, (2, 4))
    with pytest.raises(RobmodError, match=r"singular at joint 4.*massless.*IA4 = 0"):
        ddm(robot, q, np.zeros(4), np.ones(4), method=method)


def test_singular_joint_pivots():
    robot = random_robot(np.random.default_rng(3), 3)
    A = inertia_matrix(robot, np.zeros(3))
    assert _singular_joint(robot, A) is None
    A[2, :] = A[:, 2] = 0.0
    assert _singular_joint(robot, A) == 3


def test_regular_ddm_unchanged(rx90):
    rng = np.random.default_rng(0)
    q, qd, tau = rng.uniform(-1, 1, (3, 4, 6))
    qdd = ddm(rx90, q, qd, tau)
    assert np.abs(idm(rx90, q, qd, qdd) - tau).max() < 1e-9


# -- caches of compiled models keyed by content, not id ---------------------------------

def test_compiled_models_are_shared_by_content():
    """Equal robots (another object, the same content) share their compiled models; a robot of
    other parameters has its own."""
    import robmod
    from robmod.symbolic import fastpath

    a = random_robot(np.random.default_rng(5), 3)
    b = random_robot(np.random.default_rng(5), 3)  # equal content, another object
    c = random_robot(np.random.default_rng(6), 3)  # other parameters
    assert a == b and a is not b and a != c
    q, qd, tau = np.random.default_rng(2).uniform(-1, 1, (3, 3))
    old = robmod.set_backend("compiled")
    try:
        out = {id(r): ddm(r, q, qd, tau) for r in (a, b, c)}
    finally:
        robmod.set_backend(old)
    fn = {id(r): fastpath.entry(r, ("ddm",)).fn for r in (a, b, c)}
    assert fn[id(a)] is fn[id(b)] is not None and fn[id(c)] is not fn[id(a)]
    for robot in (a, c):
        ref = ddm(robot, q, qd, tau, method="inverse")
        assert np.abs(out[id(robot)] - ref).max() < 1e-10


def test_compiled_christoffel_cache_is_keyed_by_content():
    a = random_robot(np.random.default_rng(8), 3)
    b = random_robot(np.random.default_rng(8), 3)
    c = random_robot(np.random.default_rng(9), 3)
    assert _compiled_christoffel(a, "coriolis") is _compiled_christoffel(b, "coriolis")
    assert _compiled_christoffel(a, "coriolis") is not _compiled_christoffel(c, "coriolis")
    q, qd = np.random.default_rng(2).uniform(-1, 1, (2, 3))
    for robot in (a, c):
        ref = coriolis_matrix(robot, q, qd, method="ne")
        assert np.abs(coriolis_matrix(robot, q, qd, method="christoffel") - ref).max() < 1e-10


# -- simulation that blows up --------------------------------------------------------------

def test_simulate_stiff_pd_law_stops_with_time_and_joint():
    from robmod.control import simulate

    robot = random_robot(np.random.default_rng(12), 2, prismatic=False)

    def stiff(t, q, qd):
        return -1e9 * q - 1e5 * qd

    x0 = np.array([0.1, -0.2, 0.0, 0.0])
    with pytest.raises(RobmodError, match=r"diverged at t = [0-9.e-]+ s on joint [12]: q = "):
        simulate(robot, stiff, None, 1.0, x0=x0, step=0.1, saturation=False)
    # the same law with a fine enough step is stable and finite
    soft = simulate(robot, lambda t, q, qd: -10 * q - 2 * qd, None, 0.1, x0=x0, step=0.01)
    assert soft.x.shape == (11, 4) and np.all(np.isfinite(soft.x))


def test_simulate_bad_torque_law_and_arguments():
    from robmod.control import simulate
    from robmod.dynamics import state_derivative

    robot = random_robot(np.random.default_rng(12), 2, prismatic=False)
    x0 = np.zeros(4)
    with pytest.raises(RobmodError, match=r"at t = 0\.1[0-9]* the torque law .*tau holds NaN"):
        simulate(robot, lambda t, q, qd: np.full(2, np.nan if t >= 0.1 else 0.0), None, 0.3,
                 x0=x0, step=0.1)
    with pytest.raises(ArgumentError, match=r"argument duration must be a number"):
        simulate(robot, lambda t, q, qd: np.zeros(2), None, "1 s", x0=x0)
    with pytest.raises(ArgumentError, match=r"argument duration must be > 0"):
        simulate(robot, lambda t, q, qd: np.zeros(2), None, 0.0, x0=x0)
    with pytest.raises(ArgumentError, match=r"x0 must hold 4 values \[q, qd\]"):
        simulate(robot, lambda t, q, qd: np.zeros(2), None, 0.1, x0=np.zeros(3))
    with pytest.raises(ArgumentError, match=r"give x0"):
        simulate(robot, lambda t, q, qd: np.zeros(2), None, 0.1)
    with pytest.raises(ArgumentError, match=r"torque law gave shape \(3,\)"):
        simulate(robot, lambda t, q, qd: np.zeros(3), None, 0.1, x0=x0)
    with pytest.raises(ArgumentError, match=r"torque law must be a controller .* or a function"):
        simulate(robot, np.zeros(2), None, 0.1, x0=x0)
    with pytest.raises(ArgumentError, match=r"method must be one of rk4, RK45"):
        simulate(robot, lambda t, q, qd: np.zeros(2), None, 0.1, x0=x0, method="rk5")
    with pytest.raises(RobmodError, match=r"argument x must be a state"):
        state_derivative(robot, np.zeros(5), np.zeros(2))


def test_overflow_is_an_error_not_a_silent_inf(rx90):
    from robmod.identification.regressors import regressor
    from robmod.kinematics.second_order import jdot_qdot

    z, big = np.zeros(6), np.full(6, 1e300)
    with np.errstate(all="ignore"):
        for call in (lambda: idm(rx90, z, big, z), lambda: coriolis_matrix(rx90, z, big),
                     lambda: jdot_qdot(rx90, z, big), lambda: regressor(rx90, z, big, z)):
            with pytest.raises(RobmodError, match=r"overflowed .*max \|qd\| = 1e\+300"):
                call()
        with pytest.raises(RobmodError, match="non-finite accelerations: the inputs are too"):
            ddm(rx90, z, big, z)


def test_block_ikm_cache_is_keyed_by_content():
    from robmod.kinematics import BlockIKM

    a, b = robmod.load_robot("rx90"), robmod.load_robot("rx90")
    assert a == b and a is not b
    assert BlockIKM.from_robot(a) is BlockIKM.from_robot(b)
    c = a.with_values(D3=0.5)
    assert BlockIKM.from_robot(c) is not BlockIKM.from_robot(a)
    assert BlockIKM.from_robot(c).robot.values["D3"] == 0.5


def test_compiled_model_reads_a_mutated_params_dict():
    """Parameters were cached by id(params): a dict mutated between calls gave stale results."""
    import numpy as np

    import robmod
    from robmod.geometry.direct import dgm_model

    f = dgm_model(robmod.load_robot("rx90")).compile()
    params = {"D3": 0.45, "RL4": 0.45}
    q = np.zeros(6)
    a = f.single(q, params=params)
    params["D3"] = 1.0
    b = f.single(q, params=params)
    assert a[0, 3] == pytest.approx(0.45) and b[0, 3] == pytest.approx(1.0)
    vec = f.parameter_vector(params)
    np.testing.assert_allclose(f.single(q, params=vec), b)


def test_igm_refuses_missing_geometric_values():
    import dataclasses
    from types import MappingProxyType

    import numpy as np

    import robmod
    from robmod.errors import RobmodError
    from robmod.geometry.inverse import igm

    bare = dataclasses.replace(robmod.load_robot("rx90"), values=MappingProxyType({}))
    with pytest.raises(RobmodError, match="D3, RL4 have no value"):
        igm(bare, np.eye(4))


def test_igm_numeric_refuses_a_target_that_is_not_a_transform():
    import numpy as np

    import robmod
    from robmod.errors import RobmodError
    from robmod.kinematics import igm_numeric

    T = np.eye(4)
    T[0, 0] = 2.0
    with pytest.raises(RobmodError, match="not a homogeneous transform"):
        igm_numeric(robmod.load_robot("rx90").numeric(), T)


def test_identify_refuses_rank_deficient_data_and_symbolic_geometry():
    import dataclasses
    from types import MappingProxyType

    import numpy as np

    import robmod
    from robmod.dynamics import idm
    from robmod.errors import RobmodError
    from robmod.identification import base_parameters, identify
    from robmod.testing.random import with_random_dynamics

    rng = np.random.default_rng(0)
    true = with_random_dynamics(robmod.load_robot("rx90").numeric(), rng, friction=True)
    bp = base_parameters(true)
    q, qd, qdd = rng.uniform(-1, 1, (3, 5, 6))          # 30 equations, 52 parameters
    with pytest.raises(RobmodError, match="equations for"):
        identify(true, q, qd, qdd, idm(true, q, qd, qdd), params=bp)
    q, qd, qdd = rng.uniform(-1, 1, (3, 200, 6))
    q[:, 4] = 0.3
    qd[:, 4] = qdd[:, 4] = 0.0                              # joint 5 never moves
    with pytest.raises(RobmodError, match="excite"):
        identify(true, q, qd, qdd, idm(true, q, qd, qdd), params=bp)
    bare = dataclasses.replace(robmod.load_robot("rx90"), values=MappingProxyType({}))
    with pytest.raises(RobmodError, match="D3"):
        identify(bare, q, qd, qdd, idm(true, q, qd, qdd), params=bp)


def test_igm_cache_is_keyed_by_content():
    """The analytic IGM cache was keyed by id(robot): a new robot at a dead robot's address got
    the old solution.  Robots of equal content share it; others never do."""
    import gc

    import numpy as np

    import robmod
    from robmod.geometry.direct import dgm
    from robmod.geometry.inverse import igm, igm_model

    a = robmod.load_robot("rx90")
    assert igm_model(a) is igm_model(robmod.load_robot("rx90"))
    for d3 in (0.3, 0.6, 0.9):
        del a
        gc.collect()
        a = robmod.load_robot("rx90").with_values(D3=d3)
        q = np.array([0.1, -0.4, 0.3, 0.2, 0.5, -0.1])
        T = dgm(a.numeric(), q)
        sols, valid = igm(a, T)
        assert valid.any()
        assert np.abs(sols[valid] - q).max(axis=1).min() < 1e-9
