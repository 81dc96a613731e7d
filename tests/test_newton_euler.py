"""Newton-Euler inverse dynamics: Pinocchio agreement, seed operation counts, compiled path."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from robmod.testing import numpy_path
import robmod
from robmod.dynamics import idm, idm_model
from robmod.testing.random import random_robot, with_random_dynamics

WRENCH = ("FX", "FY", "FZ", "CX", "CY", "CZ")


def _rx90_general():
    r = robmod.load_robot("rx90")
    links = list(r.links)
    links[5] = replace(links[5], **{k: sp.Symbol(f"{k}6") for k in WRENCH})
    return replace(r, links=tuple(links))


def test_rx90_operation_counts_table_7_6():
    # general standard parameters, wrench on the terminal link, no friction: 294 / 283
    c = idm_model(_rx90_general(), friction=False).count()
    assert (c.mults, c.adds) <= (294, 283), c
    # simplified: diagonal inertia tensors, one first moment per link: 202 / 153
    r = _rx90_general()
    keep = ["MX", "MX", "MY", "MZ", "MY", "MZ"]
    links = []
    for link in r.links:
        kw = {k: 0 for k in ("XY", "XZ", "YZ")}
        kw.update({k: 0 for k in ("MX", "MY", "MZ") if k != keep[link.j - 1]})
        links.append(replace(link, **kw))
    c = idm_model(replace(r, links=tuple(links)), friction=False).count()
    assert c.mults <= 202 and c.adds <= 153, c


def test_agrees_with_pinocchio_rnea():
    pin = pytest.importorskip("pinocchio")
    from robmod.testing.peers import PinocchioRobot

    rng = np.random.default_rng(11)
    robots = [with_random_dynamics(robmod.load_robot(n, numeric=True), rng)
              for n in ("rx90", "stanford", "scara", "torso2arms", "panda")]
    robots += [random_robot(rng, int(rng.integers(1, 8)), tree=k % 2 == 1, general=k % 3 == 0)
               for k in range(100)]
    for robot in robots:
        p = PinocchioRobot(robot)
        q, qd, qdd = rng.uniform(-2, 2, (3, 4, robot.n_joints))
        tau = idm(robot, q, qd, qdd)
        for k in range(4):
            ref = pin.rnea(p.model, p.data, p.pin_q(q[k]), p.pin_q(qd[k]), p.pin_q(qdd[k]))
            assert np.abs(tau[k][p.index] - ref).max() < 1e-10, robot.name


def test_customized_model_equals_numeric_algorithm():
    rng = np.random.default_rng(3)
    for robot in [with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng,
                                       friction=True),
                  random_robot(rng, 5, tree=True)]:
        model = idm_model(robot)
        f = model.compile()
        q, qd, qdd = rng.uniform(-2, 2, (3, 50, robot.n_joints))
        with numpy_path():          # not the compiled model a warm cache would give
            ref = idm(robot, q, qd, qdd)
        assert np.abs(f(q, qd, qdd) - ref).max() < 1e-10
        assert np.abs(model.numpy_function()(q, qd, qdd) - ref).max() < 1e-10


def test_friction_rotor_and_wrench_terms():
    rng = np.random.default_rng(4)
    robot = with_random_dynamics(robmod.load_robot("scara", numeric=True), rng, friction=True)
    q, qd, qdd = rng.uniform(-1, 1, (3, robot.n_joints))
    full = idm(robot, q, qd, qdd)
    bare = idm(robot, q, qd, qdd, friction=False, rotor=False)
    fc = np.array([float(l.FC) for l in robot.links])
    fv = np.array([float(l.FV) for l in robot.links])
    ia = np.array([float(l.IA) for l in robot.links])
    assert np.allclose(full - bare, fc * np.sign(qd) + fv * qd + ia * qdd)
    # a wrench exerted by the last link on the environment: Gamma = J^T F (statics)
    links = list(robot.links)
    links[-1] = replace(links[-1], FZ=sp.Float(5.0))
    loaded = replace(robot, links=tuple(links))
    extra = idm(loaded, q, 0 * qd, 0 * qdd) - idm(robot, q, 0 * qd, 0 * qdd)
    # SCARA: frame 4 z is vertical; a vertical force is taken by the prismatic joint only
    assert np.allclose(extra, [0, 0, 0, 5.0])


def test_symbolic_time_for_a_7_axis_robot():
    import time

    t = time.process_time()
    model = idm_model(robmod.load_robot("lwr4"))
    assert time.process_time() - t < 5
    assert model.count().mults > 0
