"""Identification models: Gamma = Phi chi (customized, batched, compiled), Pinocchio's regressor,
the energy model, and the operation counts of the base-parameter IDM (Khalil & Dombre Table 7.6)."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.dynamics import idm
from robmod.identification import base_parameters
from robmod.identification.regressors import (base_idm_model, energy_identification_rows,
                                             regressor, regressor_function, regressor_model,
                                             _regressor_model_derivative, standard_names,
                                             standard_vector)
from robmod.testing.random import random_robot, with_random_dynamics

WRENCH = ("FX", "FY", "FZ", "CX", "CY", "CZ")


def _joint_cols(robot):
    return [f.j - 1 for f in robot.frames[:robot.n_links] if f.sigma != 2]


def test_regressor_times_parameters_is_the_idm():
    rng = np.random.default_rng(1)
    robots = [with_random_dynamics(robmod.load_robot(n, numeric=True), rng, friction=True)
              for n in ("rx90", "stanford", "torso2arms")]
    robots += [with_random_dynamics(random_robot(rng, int(rng.integers(1, 6)), tree=k % 2 == 1),
                                    rng, friction=True) for k in range(20)]
    for robot in robots:
        q, qd, qdd = rng.uniform(-2, 2, (3, 7, robot.n_joints))
        Phi = regressor(robot, q, qd, qdd)
        tau = idm(robot, q, qd, qdd, wrench=False)[..., _joint_cols(robot)]
        assert np.abs(Phi @ standard_vector(robot) - tau).max() < 1e-10


def test_customized_compiled_and_derivative_regressors_agree():
    rng = np.random.default_rng(2)
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng, friction=True)
    bp = base_parameters(robot)
    q, qd, qdd = rng.uniform(-2, 2, (3, 20, 6))
    ref = regressor(robot, q, qd, qdd, params=bp)
    f = regressor_function(robot, params=bp)
    assert np.abs(f(q, qd, qdd) - ref).max() < 1e-10
    g = _regressor_model_derivative(robot, bp.standard_names).numpy_function()
    out = g(q, qd, qdd)
    out = np.stack(out, axis=-1) if isinstance(out, tuple) else out
    assert np.abs(out - ref).max() < 1e-10
    # base model: Phi_b beta equals the IDM
    beta = np.array([float(v) for v in bp.values_of().values()])
    assert np.abs(ref @ beta - idm(robot, q, qd, qdd)).max() < 1e-10
    # symbolic geometry: the customized regressor keeps D3, RL4 as parameters
    m = regressor_model(robmod.load_robot("scemi"),
                        params=base_parameters(robmod.load_robot("scemi")))
    assert {"D3", "RL4", "G3"} <= {str(s) for s in m.parameters}


def test_against_pinocchio_regressor():
    pin = pytest.importorskip("pinocchio")
    from robmod.testing.peers import PinocchioRobot

    rng = np.random.default_rng(3)
    robots = [with_random_dynamics(robmod.load_robot(n, numeric=True), rng, rotor=False)
              for n in ("rx90", "panda", "torso2arms")]
    robots += [with_random_dynamics(random_robot(rng, int(rng.integers(1, 7)), tree=k % 2 == 1),
                                    rng, rotor=False) for k in range(20)]
    for robot in robots:
        p = PinocchioRobot(robot, rotor=False)
        pi = np.concatenate([p.model.inertias[i].toDynamicParameters()
                             for i in range(1, p.model.njoints)])
        names = standard_names(robot, rotor=False, friction=False)
        chi = standard_vector(robot, names)
        q, qd, qdd = rng.uniform(-2, 2, (3, 3, robot.n_joints))
        Phi = regressor(robot, q, qd, qdd, params=names)
        cols = _joint_cols(robot)
        for k in range(3):
            Y = pin.computeJointTorqueRegressor(p.model, p.data, p.pin_q(q[k]), p.pin_q(qd[k]),
                                                p.pin_q(qdd[k]))
            ours = (Phi[k] @ chi)[[cols.index(i) for i in p.index]]
            assert np.abs(Y @ pi - ours).max() < 1e-9


def test_energy_model():
    """int Gamma . qd dt = [h(tb) - h(ta)] chi + friction integrals (power form)."""
    rng = np.random.default_rng(4)
    for robot in [with_random_dynamics(robmod.load_robot("planar2", numeric=True), rng,
                                       friction=True),
                  with_random_dynamics(random_robot(rng, 4, tree=True), rng, friction=True)]:
        nj = robot.n_joints
        t = np.linspace(0, 2, 20001)
        a, w, ph = rng.uniform(0.3, 1, nj), rng.uniform(1, 3, nj), rng.uniform(0, 6, nj)
        q = a * np.sin(np.outer(t, w) + ph)
        qd = a * w * np.cos(np.outer(t, w) + ph)
        qdd = -a * w**2 * np.sin(np.outer(t, w) + ph)
        tau = idm(robot, q, qd, qdd)
        intervals = [(0, 5000), (5000, 12000), (3000, 20000)]
        Y, y = energy_identification_rows(robot, t, q, qd, tau, intervals)
        chi = standard_vector(robot)
        assert np.abs(Y @ chi - y).max() < 1e-5 * max(1, np.abs(y).max())


def _rx90_general():
    r = robmod.load_robot("rx90")
    links = list(r.links)
    links[5] = replace(links[5], **{k: sp.Symbol(f"{k}6") for k in WRENCH})
    return replace(r, links=tuple(links))


def test_base_idm_operation_counts_table_7_6():
    r = _rx90_general()
    c = base_idm_model(base_parameters(r, friction=False), friction=False).count()
    assert (c.mults, c.adds) == (253, 238)
    # simplified (symmetric links, as the Appendix): 160 / 113
    keep = {1: (), 2: ("MX", "MY"), 3: ("MY",), 4: ("MZ",), 5: ("MY",), 6: ("MZ",)}
    links = []
    for link in r.links:
        kw = {k: 0 for k in ("XY", "XZ", "YZ")}
        kw.update({k: 0 for k in ("MX", "MY", "MZ") if k not in keep[link.j]})
        links.append(replace(link, **kw))
    bp = base_parameters(replace(r, links=tuple(links)), friction=False)
    assert set(bp.names) == {"ZZR1", "XXR2", "ZZR2", "MXR2", "MY2", "XXR3", "ZZR3", "MYR3",
                             "XXR4", "ZZR4", "XXR5", "ZZR5", "MYR5", "XXR6", "ZZ6", "IA3",
                             "IA4", "IA5", "IA6"}
    c = base_idm_model(bp, friction=False).count()
    assert (c.mults, c.adds) == (160, 113)


@pytest.mark.parametrize("n", [3, 4, 6])
def test_general_robot_92n_127(n):
    frames = [dict(j=j, ant=j - 1, alpha=0 if j == 1 else sp.Symbol(f"alpha{j}"),
                   d=0 if j == 1 else sp.Symbol(f"d{j}"),
                   r=0 if j in (1, n) else sp.Symbol(f"r{j}")) for j in range(1, n + 1)]
    g = robmod.make_robot("general", frames)
    links = list(g.links)
    links[-1] = replace(links[-1], **{k: sp.Symbol(f"{k}{n}") for k in WRENCH})
    g = replace(g, links=tuple(links))
    c = base_idm_model(base_parameters(g, friction=False), friction=False).count()
    assert c.mults == 92 * n - 127
    assert c.adds <= 81 * n - 117


def test_regressor_with_a_moving_base():
    """The regressor runs the same forward recursion as the IDM (robmod.kinematics.recursion):
    a base in motion (W0, WP0, VP0: a robot on a vehicle) enters both.  The regressor's own copy
    of the recursion used to ignore it."""
    rng = np.random.default_rng(3)
    for robot in (robmod.load_robot("rx90", numeric=True),
                  random_robot(rng, 4, tree=True)):
        robot = with_random_dynamics(robot, rng)
        robot = replace(robot, W0=tuple(sp.Float(x) for x in rng.normal(size=3)),
                        WP0=tuple(sp.Float(x) for x in rng.normal(size=3)),
                        VP0=tuple(sp.Float(x) for x in rng.normal(size=3)))
        q, qd, qdd = rng.uniform(-2, 2, (3, 5, robot.n_q))
        phi = regressor(robot, q, qd, qdd)
        assert np.abs(phi @ standard_vector(robot) - idm(robot, q, qd, qdd)).max() < 1e-10
