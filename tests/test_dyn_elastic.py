"""Elastic joints [7.34]-[7.35]: inverse then direct model gives back the accelerations."""
from dataclasses import replace

import numpy as np
import sympy as sp

import robmod
from robmod.dynamics.direct import ddm
from robmod.dynamics.elastic import (elastic_ddm, elastic_ddm_model, elastic_idm,
                                     elastic_idm_model, elastic_state_derivative)
from robmod.testing.random import random_robot, with_random_dynamics


def _elastic(robot, rng, rigid=()):
    links = [l if l.j in rigid else replace(l, K=sp.Float(float(rng.uniform(50, 500))))
             for l in robot.links]
    return replace(robot, links=tuple(links))


def _traj(q, qd, qdd, q3, q4, t):
    return (q + qd * t + qdd * t**2 / 2 + q3 * t**3 / 6 + q4 * t**4 / 24,
            qd + qdd * t + q3 * t**2 / 2 + q4 * t**3 / 6, qdd + q3 * t + q4 * t**2 / 2,
            q3 + q4 * t, q4)


def test_inverse_then_direct():
    rng = np.random.default_rng(12)
    robots = [_elastic(with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng,
                                            friction=True), rng, rigid=(3,))]
    robots += [_elastic(random_robot(rng, 5, tree=k % 2 == 1), rng, rigid=(2,)) for k in range(4)]
    for robot in robots:
        n = robot.n_joints
        fvm = rng.uniform(0, 1, n)
        fcm = rng.uniform(0, 1, n)
        d = rng.uniform(-1, 1, (5, 6, n))
        inv = elastic_idm(robot, *d, fvm=fvm, fcm=fcm)
        qdd, qmdd = elastic_ddm(robot, d[0], d[1], inv.qm, inv.qmd, inv.tau, fvm=fvm, fcm=fcm)
        assert np.abs(qdd - d[2]).max() < 1e-9
        assert np.abs(qmdd - inv.qmdd).max() < 1e-9
        # qM' and qM'' are the time derivatives of qM along the motion
        h = 1e-5
        p, m = (elastic_idm(robot, *_traj(*d, s)) for s in (h, -h))
        assert np.abs((p.qm - m.qm) / (2 * h) - inv.qmd).max() < 1e-6
        assert np.abs((p.qmd - m.qmd) / (2 * h) - inv.qmdd).max() < 1e-6
        x = np.concatenate([d[0], d[1], inv.qm, inv.qmd], axis=-1)
        xd = elastic_state_derivative(robot, x, inv.tau, fvm=fvm, fcm=fcm)
        assert np.abs(xd[..., n:2 * n] - d[2]).max() < 1e-9


def test_rigid_robot_is_unchanged():
    rng = np.random.default_rng(13)
    robot = with_random_dynamics(robmod.load_robot("scara", numeric=True), rng)
    q, qd, tau = rng.uniform(-1, 1, (3, 4, robot.n_joints))
    qdd, qmdd = elastic_ddm(robot, q, qd, q, qd, tau)
    assert np.abs(qdd - ddm(robot, q, qd, tau)).max() < 1e-12
    assert np.abs(qmdd - qdd).max() == 0


def test_customized_models():
    rng = np.random.default_rng(14)
    robot = _elastic(with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng), rng)
    d = rng.uniform(-1, 1, (5, 7, 6))
    inv = elastic_idm(robot, *d)
    tau, qm = elastic_idm_model(robot).compile()(*d)
    assert np.abs(tau - inv.tau).max() < 1e-10 and np.abs(qm - inv.qm).max() < 1e-12
    qdd, qmdd = elastic_ddm_model(robot).compile()(d[0], d[1], inv.qm, inv.qmd, inv.tau)
    assert np.abs(qdd - d[2]).max() < 1e-9 and np.abs(qmdd - inv.qmdd).max() < 1e-9
