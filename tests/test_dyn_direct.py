"""Direct dynamic model: A^-1 (Gamma - H) and the recursive O(n) algorithm of §7.6.2."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from robmod.testing import numpy_path
import robmod
from robmod.dynamics import idm
from robmod.dynamics.direct import ddm, ddm_model, state_derivative
from robmod.control import simulate
from robmod.testing.random import random_robot, with_random_dynamics

WRENCH = ("FX", "FY", "FZ", "CX", "CY", "CZ")


def _with_wrenches(robot, rng):
    links = [replace(l, **{k: sp.Float(float(rng.uniform(-3, 3))) for k in WRENCH})
             for l in robot.links]
    return replace(robot, links=tuple(links))


def _robots(rng, count):
    return [random_robot(rng, int(rng.integers(1, 8)), tree=k % 2 == 1, general=k % 3 == 0)
            for k in range(count)]


def test_ddm_inverts_idm_both_algorithms():
    rng = np.random.default_rng(7)
    robots = [with_random_dynamics(robmod.load_robot(n, numeric=True), rng, friction=True)
              for n in ("rx90", "stanford", "scara", "torso2arms", "panda")]
    robots += [_with_wrenches(r, rng) for r in _robots(rng, 40)]
    for robot in robots:
        q, qd, qdd = rng.uniform(-2, 2, (3, 8, robot.n_joints))
        tau = idm(robot, q, qd, qdd)
        for method in ("recursive", "inverse"):
            assert np.abs(ddm(robot, q, qd, tau, method=method) - qdd).max() < 1e-9, robot.name


def test_agrees_with_pinocchio_aba():
    pin = pytest.importorskip("pinocchio")
    from robmod.testing.peers import PinocchioRobot

    rng = np.random.default_rng(8)
    robots = [_with_wrenches(r, rng) for r in _robots(rng, 110)]
    robots += [_with_wrenches(with_random_dynamics(robmod.load_robot(n, numeric=True), rng), rng)
               for n in ("rx90", "stanford", "scara", "panda")]
    for robot in robots:
        p = PinocchioRobot(robot)  # armature = IA
        assert np.all(p.model.armature > 0) or robot.n_joints == 0
        q, qd, tau = rng.uniform(-2, 2, (3, 3, robot.n_joints))
        got = ddm(robot, q, qd, tau)
        # robmod's FX..CZ: wrench exerted BY link j on the environment, at O_j in frame j
        fext = [pin.Force.Zero() for _ in range(p.model.njoints)]
        for jid, j in enumerate(p.joint_frames, start=1):
            w = np.array([float(getattr(robot.link(j), k)) for k in WRENCH])
            fext[jid] = pin.Force(-w[:3], -w[3:])
        for k in range(3):
            ref = pin.aba(p.model, p.data, p.pin_q(q[k]), p.pin_q(qd[k]), p.pin_q(tau[k]), fext)
            assert np.abs(got[k][p.index] - ref).max() < 1e-10, robot.name


def test_customized_models_equal_numeric():
    rng = np.random.default_rng(9)
    for robot in [with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng,
                                       friction=True),
                  _with_wrenches(random_robot(rng, 6, tree=True), rng)]:
        q, qd, tau = rng.uniform(-2, 2, (3, 20, robot.n_joints))
        with numpy_path():          # not the compiled model a warm cache would give
            ref = ddm(robot, q, qd, tau)
        for method in ("recursive", "inverse"):
            f = ddm_model(robot, method=method).compile()
            assert np.abs(f(q, qd, tau) - ref).max() < 1e-10, method


def _rx90_general(simplified=False):
    r = robmod.load_robot("rx90")
    links = list(r.links)
    links[5] = replace(links[5], **{k: sp.Symbol(f"{k}6") for k in WRENCH})
    if simplified:
        keep = ["MX", "MX", "MY", "MZ", "MY", "MZ"]
        for i, link in enumerate(links):
            kw = {k: 0 for k in ("XY", "XZ", "YZ")}
            kw.update({k: 0 for k in ("MX", "MY", "MZ") if k != keep[i]})
            links[i] = replace(link, **kw)
    return replace(r, links=tuple(links))


def test_rx90_recursive_ddm_operation_counts():
    """Khalil & Dombre §7.6.2: 889/653 with base parameters, 637/423 with simplified ones.

    Standard parameters here (base parameters are another model); the counts are
    recorded as regression bounds."""
    c = ddm_model(_rx90_general(), friction=False).count()
    assert c.mults <= 820 and c.adds <= 640, c
    c = ddm_model(_rx90_general(simplified=True), friction=False).count()
    assert c.mults <= 660 and c.adds <= 460, c


def test_state_derivative_and_simulation():
    rng = np.random.default_rng(10)
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng)
    x = rng.uniform(-1, 1, (4, 12))
    tau = rng.uniform(-5, 5, (4, 6))
    xd = state_derivative(robot, x, tau)
    assert np.allclose(xd[:, :6], x[:, 6:])
    assert np.abs(idm(robot, x[:, :6], x[:, 6:], xd[:, 6:]) - tau).max() < 1e-9
    assert np.abs(state_derivative(robot, x, tau, method="inverse") - xd).max() < 1e-9

    def tau_fn(t, q, qd):                                # a torque law: t and the state
        return np.sin(t) * np.ones(6)

    t = np.linspace(0, 0.5, 51)
    options = dict(x0=x[0], saturation=False)
    run = simulate(robot, tau_fn, None, 0.5, step=0.005, record_every=2, **options)
    X = run.x
    Y = simulate(robot, tau_fn, None, 0.5, step=0.01, method="DOP853", **options).x
    assert np.abs(X - Y).max() < 1e-6 and np.allclose(run.t, t)
    # one result type: q, qd, the torques applied at the grid's times, the states x
    assert run.q.shape == run.qd.shape == run.tau.shape == (51, 6)
    assert np.array_equal(np.asarray(run), X) and np.array_equal(X, np.hstack([run.q, run.qd]))
    np.testing.assert_allclose(run.tau, np.sin(t)[:, None] * np.ones(6))
    q, qd = run                                          # unpacks as q, qd
    assert q is run.q and qd is run.qd and run.reference is None
    assert run.robot.content_key == robot.content_key
    assert run.controller is tau_fn
    # batched initial states
    XB = simulate(robot, tau_fn, None, 0.04, x0=x, step=0.01, saturation=False)
    assert XB.x.shape == (5, 4, 12) and XB.tau.shape == (5, 4, 6)
    one = simulate(robot, tau_fn, None, 0.04, x0=x[0], step=0.01, saturation=False)
    assert np.abs(XB.x[:, 0] - one.x).max() < 1e-12


def test_fewest_takes_the_customized_model_with_fewer_operations():
    """ddm_model(method="fewest") (the plant of the simulations): the inverse model on the
    library's arms (Khalil & Dombre [7.62]-[7.64]), the recursive one's values."""
    from robmod.control import Dynamics

    for name in ("panda", "puma560"):
        robot = robmod.load_robot(name).numeric()
        models = {m: ddm_model(robot, method=m) for m in ("recursive", "inverse", "fewest")}
        ops = {m: x.count().mults + x.count().adds for m, x in models.items()}
        assert ops["fewest"] == min(ops["recursive"], ops["inverse"]) == ops["inverse"]
        assert ops["inverse"] < 0.8 * ops["recursive"]
        rng = np.random.default_rng(2)
        q, qd, tau = rng.uniform(-1, 1, (3, 50, robot.n_q))
        plant = Dynamics.of(robot).ddm(q, qd, tau)
        ref = ddm(robot, q, qd, tau, method="recursive")
        assert np.max(np.abs(plant - ref) / (1 + np.abs(ref))) < 1e-12
