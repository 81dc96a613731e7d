"""Derivatives of the IDM and the DDM: Pinocchio's analytical derivatives (Carpentier & Mansard
2018) on random and library robots, the identities dtau/dqdd = A, dqdd/dtau = A^-1,
dqdd/dx = -A^-1 dtau/dx, finite differences where Pinocchio has no counterpart (friction,
mimic joints), the customized models and the compiled path."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.dynamics import (ddm, ddm_derivatives, ddm_derivatives_model, idm, idm_derivatives,
                             idm_derivatives_model, inertia_matrix)
from robmod.errors import ArgumentError
from robmod.symbolic import fastpath
from robmod.testing.random import random_robot, with_random_dynamics
from test_dyn_inertia import dfs_ordered   # Pinocchio takes each subtree as a contiguous range

TREES = [n for n in robmod.library_names()
         if not robmod.load_robot(n, numeric=True).n_loops]


def rel(a, b):
    return np.abs(a - b).max() / max(1.0, np.abs(b).max())


@pytest.fixture
def numpy_path():
    old = fastpath.set_backend("numpy")
    yield
    fastpath.set_backend(old)


def _robots(rng, count=12):
    robots = [with_random_dynamics(robmod.load_robot(n, numeric=True), rng) for n in TREES]
    k = 0
    while len(robots) < len(TREES) + count:
        r = random_robot(rng, int(rng.integers(1, 8)), tree=k % 2 == 1, general=k % 3 == 0)
        k += 1
        if dfs_ordered(r):
            robots.append(r)
    return robots


def test_agree_with_pinocchio_analytical_derivatives(numpy_path):
    pin = pytest.importorskip("pinocchio")
    from robmod.testing.peers import PinocchioRobot

    rng = np.random.default_rng(29)
    worst = {}
    for robot in _robots(rng):
        p = PinocchioRobot(robot)
        ix = p.index
        q, qd, qdd = rng.uniform(-2, 2, (3, 2, robot.n_q))
        D = idm_derivatives(robot, q, qd, qdd)
        tau = idm(robot, q, qd, qdd)
        F = ddm_derivatives(robot, q, qd, tau)
        for k in range(2):
            ref = pin.computeRNEADerivatives(p.model, p.data, *(p.pin_q(x[k]) for x in (q, qd,
                                                                                    qdd)))
            ref = list(ref)
            ref[2] = np.triu(ref[2]) + np.triu(ref[2], 1).T    # Pinocchio fills the upper part
            for name, a, b in zip(D._fields, D, ref):
                worst[name] = max(worst.get(name, 0), rel(a[k][np.ix_(ix, ix)], b))
            ref = pin.computeABADerivatives(p.model, p.data, p.pin_q(q[k]), p.pin_q(qd[k]),
                                            p.pin_q(tau[k]))
            ref = list(ref)
            ref[2] = np.triu(ref[2]) + np.triu(ref[2], 1).T
            for name, a, b in zip(F._fields, F, ref):
                worst[name] = max(worst.get(name, 0), rel(a[k][np.ix_(ix, ix)], b))
    assert max(worst.values()) < 1e-9, worst


def test_identities_and_the_two_methods_of_the_direct_model(numpy_path):
    rng = np.random.default_rng(3)
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng, friction=True)
    q, qd, tau = rng.uniform(-1, 1, (3, 5, 6))
    F = ddm_derivatives(robot, q, qd, tau)
    A = inertia_matrix(robot, q)
    qdd = ddm(robot, q, qd, tau)
    D = idm_derivatives(robot, q, qd, qdd)
    assert rel(D.dtau_dqdd, A) < 1e-12
    assert rel(F.dqdd_dtau, np.linalg.inv(A)) < 1e-10
    assert rel(F.dqdd_dq, -np.linalg.solve(A, D.dtau_dq)) < 1e-10
    assert rel(F.dqdd_dqd, -np.linalg.solve(A, D.dtau_dqd)) < 1e-10
    R = ddm_derivatives(robot, q, qd, tau, method="recursive")
    for a, b in zip(R, F):
        assert rel(a, b) < 1e-10


def _fd(f, x, h=1e-6):
    cols = []
    for k in range(x.shape[-1]):
        e = np.zeros_like(x)
        e[..., k] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.stack(cols, axis=-1)


def test_friction_and_mimic_joints_by_finite_differences(numpy_path):
    """Viscous, Coulomb (away from qd = 0) and Stribeck friction; a dependent joint (the
    derivatives of the independent joints' torques, E^T dtau E)."""
    rng = np.random.default_rng(5)
    base = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng, friction=True)
    links = tuple(replace(l, FST=l.FC + sp.Float(0.3), BST=sp.Float(2.0)) for l in base.links)
    stribeck = replace(base, links=links)
    mimic = replace(with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng),
                    mimic={3: (2, -0.5, 0.1)})
    for robot in (stribeck, mimic):
        n = robot.n_q
        q, qd, qdd = rng.uniform(0.3, 1.0, (3, n))
        D = idm_derivatives(robot, q, qd, qdd)
        for got, arg in zip(D, range(3)):
            args = [q, qd, qdd]

            def f(x, arg=arg):
                a = list(args)
                a[arg] = x
                return idm(robot, *a)
            assert rel(got, _fd(f, args[arg])) < 1e-7, (robot.name, arg)
        tau = idm(robot, q, qd, qdd)
        F = ddm_derivatives(robot, q, qd, tau)
        for got, arg in zip(F, range(3)):
            args = [q, qd, tau]

            def g(x, arg=arg):
                a = list(args)
                a[arg] = x
                return ddm(robot, *a)
            assert rel(got, _fd(g, args[arg])) < 1e-6, (robot.name, arg)


@pytest.mark.parametrize("mimic", [(1, -0.7, 0.2), (1, -1.0, -0.61)])
def test_customized_derivative_models_take_the_mimic_joints(mimic):
    """A 4-joint arm whose joint 3 follows joint 1 (q3 = m q1 + c; multiplier -1 with an
    offset as Talos's grippers): the customized derivative models are over the independent
    joints and equal the chain rule on the uncoupled arm, E^T (dtau/dx) E and E^T A E; the
    DDM's model (A^-1 by L^T D L) equals finite differences of the direct model; the
    recursive method refuses the robot by name."""
    from types import MappingProxyType

    from robmod.identification import regressor, regressor_derivatives_model
    from robmod.kinematics import jacobian, jacobian_derivatives_model

    rng = np.random.default_rng(8)
    free = with_random_dynamics(random_robot(rng, 4, prismatic=False), rng, friction=True)
    robot = replace(free, mimic=MappingProxyType({3: mimic}))
    i, m, c = mimic
    E = np.array([[1, 0, 0], [0, 1, 0], [m, 0, 0], [0, 0, 1.0]])
    q, qd, qdd = rng.uniform(0.2, 1.0, (3, 3))
    Q, QD, QDD = E @ q + [0, 0, c, 0], E @ qd, E @ qdd
    model = idm_derivatives_model(robot)
    assert [str(s) for s in model.inputs["q"]] == ["q1", "q2", "q4"]
    got = model.numpy_function()(q, qd, qdd)
    old = fastpath.set_backend("numpy")
    try:
        ref = idm_derivatives(free, Q, QD, QDD)
        for a, b in zip(got, ref):
            assert a.shape == (3, 3) and rel(a, E.T @ b @ E) < 1e-12
        tau = idm(robot, q, qd, qdd)
        F = ddm_derivatives_model(robot).numpy_function()(q, qd, tau)
        for k, x in enumerate((q, qd, tau)):
            def g(y, k=k):
                a = [q, qd, tau]
                a[k] = y
                return ddm(robot, *a)
            assert rel(F[k], _fd(g, x)) < 1e-6, k
        for a, b in zip(F, ddm_derivatives(robot, q, qd, tau)):
            assert rel(a, b) < 1e-12
        R = regressor_derivatives_model(robot).numpy_function()(q, qd, qdd)
        assert rel(R[0], _fd(lambda y: regressor(robot, y, qd, qdd), q)) < 1e-7
        dJ = jacobian_derivatives_model(robot).numpy_function()(q)
        assert rel(dJ, _fd(lambda y: jacobian(robot, y), q)) < 1e-7
    finally:
        fastpath.set_backend(old)
    for call in (lambda: ddm_derivatives_model(robot, method="recursive"),
                 lambda: ddm_derivatives(robot, q, qd, tau, method="recursive")):
        with pytest.raises(ArgumentError, match="mimic joints.*method='idm'"):
            call()


def test_switches_are_the_zeroed_robots(numpy_path):
    rng = np.random.default_rng(7)
    robot = with_random_dynamics(robmod.load_robot("stanford", numeric=True), rng)
    q, qd, qdd = rng.uniform(-1, 1, (3, 6))
    no_g = replace(robot, gravity=(sp.Integer(0),) * 3)
    for a, b in zip(idm_derivatives(robot, q, qd, qdd, gravity=False),
                    idm_derivatives(no_g, q, qd, qdd)):
        assert rel(a, b) < 1e-13
    D = idm_derivatives(robot, q, qd, qdd, velocity=False, acceleration=False)
    assert not D.dtau_dqd.any() and not D.dtau_dqdd.any()
    assert rel(D.dtau_dq, idm_derivatives(robot, q, 0 * qd, 0 * qdd).dtau_dq) < 1e-13
    with pytest.raises(ArgumentError, match="gravity"):
        idm_derivatives(robot, q, qd, qdd, gravty=False)
    with pytest.raises(ArgumentError, match="method"):
        ddm_derivatives(robot, q, qd, qdd, method="aba")


def test_customized_models_count_and_compile():
    """The derivative models keep the recursion's variables (DWI12_q1, ...) and count their
    operations; compiled, the plain functions give the NumPy path's values, single and
    batched."""
    rng = np.random.default_rng(11)
    robot = random_robot(rng, 3, general=True, prismatic=False)
    m = idm_derivatives_model(robot)
    names = {str(l) for l, _ in m.statements}
    assert {"DWI12_q2", "DVP12_q1", "DF12_q1"} <= names and m.count().mults > 0
    assert [o.name for o in m.outputs] == ["dtau_dq", "dtau_dqd", "dtau_dqdd"]
    assert [o.name for o in ddm_derivatives_model(robot).outputs] == [
        "dqdd_dq", "dqdd_dqd", "dqdd_dtau"]
    q, qd, qdd = rng.uniform(-1, 1, (3, 20, 3))
    old = fastpath.set_backend("numpy")
    try:
        ref_i = idm_derivatives(robot, q, qd, qdd)
        ref_d = ddm_derivatives(robot, q, qd, qdd)
    finally:
        fastpath.set_backend("compiled")
    try:
        for got, ref in ((idm_derivatives(robot, q, qd, qdd), ref_i),
                         (ddm_derivatives(robot, q, qd, qdd), ref_d),
                         (idm_derivatives(robot, q[0], qd[0], qdd[0]), [r[0] for r in ref_i]),
                         (ddm_derivatives(robot, q[0], qd[0], qdd[0]), [r[0] for r in ref_d])):
            for a, b in zip(got, ref):
                assert a.shape == b.shape and rel(a, b) < 1e-12
        key = ("idm_derivatives",)
        assert fastpath.entry(robot, key).fn is not None
        # one configuration: three arrays of their own from the compiled call (``parts``),
        # the batch's rows (to the vector sines' last bits), writable without touching each
        # other
        one = idm_derivatives(robot, q[3], qd[3], qdd[3])
        many = idm_derivatives(robot, q, qd, qdd)
        assert type(one) is type(many) and type(one).__name__ == "IDMDerivatives"
        for a, b in zip(one, many):
            assert a.base is None and a.flags.writeable and a.shape == (3, 3)
            assert rel(a, b[3]) < 1e-13
        one.dtau_dq[:] = 0
        assert rel(one.dtau_dqd, ref_i[1][3]) < 1e-12
    finally:
        fastpath.set_backend(old)


def test_regressor_derivatives(numpy_path):
    """dPhi/dx chi = dtau/dx (Gamma = Phi chi), finite differences of Phi, the compiled path
    (a small robot: the model has p n^2 outputs)."""
    from robmod.identification import (regressor, regressor_derivatives,
                                       regressor_derivatives_model, standard_vector)

    rng = np.random.default_rng(0)
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng, friction=True)
    q, qd, qdd = rng.uniform(0.2, 1, (3, 6))
    R = regressor_derivatives(robot, q, qd, qdd)
    chi = standard_vector(robot)
    for a, b in zip(R, idm_derivatives(robot, q, qd, qdd, wrench=False)):
        assert rel(np.einsum("ick,c->ik", a, chi), b) < 1e-13
    assert rel(R.dphi_dq, _fd(lambda x: regressor(robot, x, qd, qdd), q)) < 1e-8
    small = with_random_dynamics(robmod.load_robot("planar2", numeric=True), rng)
    q, qd, qdd = rng.uniform(-1, 1, (3, 4, 2))
    ref = regressor_derivatives(small, q, qd, qdd)
    assert regressor_derivatives_model(small).outputs[0].shape == ref.dphi_dq.shape[1:]
    fastpath.set_backend("compiled")
    for a, b in zip(regressor_derivatives(small, q, qd, qdd), ref):
        assert rel(a, b) < 1e-13


def _closed_loop_robots():
    from test_closed_loop_dynamics import (QA_SR, QDA_SR, fivebar, fivebar_closed_form,
                                           sr400, sr400_guess)

    yield fivebar(), np.array([0.9, 2.4]), np.array([0.3, -0.4]), fivebar_closed_form
    yield sr400(), QA_SR, QDA_SR, sr400_guess


def test_closed_loops_by_finite_differences():
    """The derivatives along the constraint manifold (a planar five-bar with friction, the
    SR400's spatial parallelogram): Pinocchio has no closed-loop counterpart."""
    from robmod.dynamics import (closed_loop_ddm, closed_loop_ddm_derivatives, closed_loop_idm,
                                 closed_loop_idm_derivatives)

    rng = np.random.default_rng(2)
    for robot, qa, qda, guess in _closed_loop_robots():
        g = guess(qa)
        qdda = rng.uniform(-1, 1, qa.shape)
        D = closed_loop_idm_derivatives(robot, qa, qda, qdda, q_guess=g)
        tau = closed_loop_idm(robot, qa, qda, qdda, q_guess=g)
        F = closed_loop_ddm_derivatives(robot, qa, qda, tau, q_guess=g)
        for k in range(3):
            def f(x, k=k):
                args = [qa, qda, qdda]
                args[k] = x
                return closed_loop_idm(robot, *args, q_guess=g)

            def h(x, k=k):
                args = [qa, qda, tau]
                args[k] = x
                return closed_loop_ddm(robot, *args, q_guess=g)
            assert rel(D[k], _fd(f, [qa, qda, qdda][k])) < 1e-7, (robot.name, k)
            assert rel(F[k], _fd(h, [qa, qda, tau][k])) < 1e-7, (robot.name, k)
        assert rel(F.dqdd_dtau @ D.dtau_dqdd, np.eye(len(qa))) < 1e-12
