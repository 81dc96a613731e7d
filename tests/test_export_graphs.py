"""Exports to CasADi and JAX: round trips against robmod's numeric models, the CasADi graph's
operation count equal to the model's, automatic differentiation of the exports equal to the
derivative models, the error naming the extra when the library is missing."""
import functools
import sys

import numpy as np
import pytest

import robmod
from robmod.dynamics import (ddm, ddm_derivatives, ddm_derivatives_model, idm, idm_derivatives,
                             idm_derivatives_model, idm_model)
from robmod.errors import RobmodError
from robmod.kinematics import jacobian_dot, jacobian_dot_model
from robmod.testing.random import with_random_dynamics

ROBOT = with_random_dynamics(robmod.load_robot("rx90", numeric=True), np.random.default_rng(0),
                             friction=True)
RNG = np.random.default_rng(1)
Q, QD, QDD = RNG.uniform(0.1, 1.0, (3, 6))


@functools.lru_cache(maxsize=None)
def model(make):
    """Each model of ROBOT generated once for the tests of this file."""
    return make(ROBOT)


def test_casadi_round_trip_graph_and_automatic_differentiation():
    ca = pytest.importorskip("casadi")
    from robmod.symbolic.export_casadi import casadi_operations

    m = model(idm_model)
    f = m.to_casadi()
    assert f.name_in() == ["q", "qd", "qdd"] and f.name_out() == ["GAM"]
    assert np.abs(np.array(f(Q, QD, QDD)).ravel() - idm(ROBOT, Q, QD, QDD)).max() < 1e-12
    for mm in (m, model(idm_derivatives_model)):
        ops, count = casadi_operations(mm.to_casadi()), mm.count()
        # one SX node per operation of the model (CasADi folds a few: x*(-1) is a sign, x - x
        # of one node is 0)
        assert 0.99 * count.total <= ops["mults"] + ops["adds"] + ops["signs"] <= count.total
        assert ops["funcs"] == count.funcs
    D = idm_derivatives(ROBOT, Q, QD, QDD)
    fd = model(idm_derivatives_model).to_casadi()
    for a, b in zip(fd(Q, QD, QDD), D):
        assert np.abs(np.array(a) - b).max() < 1e-12
    # CasADi's own AD of the exported IDM gives the same derivatives
    x = [ca.SX.sym(n, 6) for n in ("q", "qd", "qdd")]
    tau = f(*x)
    J = ca.Function("dgam", x, [ca.jacobian(tau, v) for v in x])
    for a, b in zip(J(Q, QD, QDD), D):
        assert np.abs(np.array(a) - b).max() < 1e-11
    # the direct model's derivatives and a 3-D output (rows of its leading dimensions)
    small = with_random_dynamics(robmod.load_robot("planar2", numeric=True), RNG)
    x = RNG.uniform(-1, 1, (3, 2))
    for a, b in zip(ddm_derivatives_model(small).to_casadi()(*x), ddm_derivatives(small, *x)):
        assert np.abs(np.array(a) - b).max() < 1e-10
    from robmod.kinematics import jacobian_derivatives, jacobian_derivatives_model
    g = jacobian_derivatives_model(ROBOT).to_casadi()
    assert np.abs(np.array(g(Q)) - jacobian_derivatives(ROBOT, Q).reshape(36, 6)).max() < 1e-13


def test_casadi_model_with_free_parameters():
    pytest.importorskip("casadi")
    robot = robmod.load_robot("scara")      # symbolic inertial parameters
    m = idm_model(robot, friction=False)
    f = m.to_casadi()
    assert f.name_in() == ["q", "qd", "qdd", "params"]
    numeric = robot.numeric()
    params = [float(numeric.values[str(p)]) for p in m.parameters]
    q, qd, qdd = RNG.uniform(-1, 1, (3, 4))
    ref = idm(numeric, q, qd, qdd, friction=False)
    assert np.abs(np.array(f(q, qd, qdd, params)).ravel() - ref).max() < 1e-11


@pytest.fixture
def jax64():
    jax = pytest.importorskip("jax")
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", old)


def test_jax_round_trip_jit_vmap_and_jacfwd(jax64):
    from robmod.symbolic.export_jax import jit_function

    jax = jax64
    g = model(idm_model).to_jax()
    f = jit_function(g)
    q, qd, qdd = RNG.uniform(0.1, 1.0, (3, 8, 6))
    assert np.abs(np.asarray(f(q, qd, qdd)) - idm(ROBOT, q, qd, qdd)).max() < 1e-12
    v = jit_function(jax.vmap(g))(q, qd, qdd)
    assert np.abs(np.asarray(v) - idm(ROBOT, q, qd, qdd)).max() < 1e-12
    D = idm_derivatives(ROBOT, Q, QD, QDD)
    v = RNG.uniform(-1, 1, (3, 6))         # forward mode: a directional derivative
    _, dtau = jit_function(lambda *x: jax.jvp(g, x[:3], x[3:]))(Q, QD, QDD, *v)
    assert np.abs(np.asarray(dtau) - sum(d @ w for d, w in zip(D, v))).max() < 1e-11
    grad = jit_function(jax.grad(lambda x: g(x, QD, QDD).sum()))(Q)    # reverse mode
    assert np.abs(np.asarray(grad) - D.dtau_dq.sum(0)).max() < 1e-11
    # derivative models, a model of two inputs, the direct model (an ODE right-hand side)
    small = with_random_dynamics(robmod.load_robot("planar2", numeric=True), RNG)
    x = RNG.uniform(-1, 1, (3, 2))
    for a, b in zip(idm_derivatives_model(small).to_jax(jit=True)(*x),
                    idm_derivatives(small, *x)):
        assert np.abs(np.asarray(a) - b).max() < 1e-12
    Jd = jacobian_dot_model(ROBOT).to_jax(jit=True)(Q, QD)
    assert np.abs(np.asarray(Jd) - jacobian_dot(ROBOT, Q, QD)).max() < 1e-13
    from robmod.dynamics import ddm_model
    ref = ddm(small, *x)
    assert np.abs(np.asarray(ddm_model(small).to_jax(jit=True)(*x)) - ref).max() < 1e-11


def test_missing_library_names_the_extra(monkeypatch):
    m = idm_model(robmod.load_robot("planar2", numeric=True))
    monkeypatch.setitem(sys.modules, "casadi", None)
    with pytest.raises(RobmodError, match=r"robmod\[casadi\]"):
        m.to_casadi()
    monkeypatch.setitem(sys.modules, "jax", None)
    monkeypatch.setitem(sys.modules, "jax.numpy", None)
    with pytest.raises(RobmodError, match=r"robmod\[jax\]"):
        m.to_jax()
