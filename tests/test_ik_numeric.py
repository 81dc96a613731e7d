"""Numeric inverse geometric model (seed 001 §6.6): batched damped least squares with restarts."""
import numpy as np
import pytest

import robmod
from robmod.geometry.direct import dgm
from robmod.geometry.transforms import transform_to_numpy
from robmod.kinematics.ik_numeric import (CONVERGED, MAX_ITER, UNREACHABLE, igm_numeric,
                                          joint_domain, rotation_error)
from robmod.testing.random import random_robot


def _fk(robot, q, tool=None):
    T = dgm(robot, q)
    if tool is not None:
        T = T @ transform_to_numpy(tool.T)
    return T


def _contains(sols, q, tol=1e-6):
    d = np.abs(np.angle(np.exp(1j * (sols - q))))
    return bool(np.any(np.all(d < tol, axis=-1)))


def _check(robot, T, results, q_true=None, tool=None, n_expected=None):
    for t, res in enumerate(results):
        assert res.status == CONVERGED
        assert res.n_solutions >= 1
        assert np.abs(_fk(robot, res.q, tool) - T[t]).max() < 1e-10
        if n_expected is not None:
            assert res.n_solutions == n_expected
        if q_true is not None:
            assert _contains(res.q, q_true[t])
        # distinct modulo 2 pi
        d = np.abs(np.angle(np.exp(1j * (res.q[:, None] - res.q[None]))))
        assert np.all(np.all(d < 1e-6, axis=-1) == np.eye(res.n_solutions, dtype=bool))


def test_rx90_generic_poses_give_eight_solutions():
    robot = robmod.load_robot("rx90", numeric=True)
    rng = np.random.default_rng(0)
    q = rng.uniform(-np.pi, np.pi, (12, 6))
    T = dgm(robot, q)
    res = igm_numeric(robot, T, n_restarts=64, rng=1)
    _check(robot, T, res, q, n_expected=8)


def test_puma560():
    robot = robmod.load_robot("puma560", numeric=True)
    rng = np.random.default_rng(1)
    q = rng.uniform(-np.pi, np.pi, (12, 6))
    T = dgm(robot, q)
    res = igm_numeric(robot, T, n_restarts=64, rng=2)
    _check(robot, T, res, q, n_expected=8)


def test_panda_redundant_within_limits():
    robot = robmod.load_robot("panda", numeric=True)
    tool = robot.tools[0]
    lo, hi, *_ = joint_domain(robot, range(1, 8))
    rng = np.random.default_rng(2)
    q = rng.uniform(lo, hi, (10, 7))
    T = _fk(robot, q, tool)
    res = igm_numeric(robot, T, tool="flange", n_restarts=32, rng=3)
    _check(robot, T, res, tool=tool)
    for r in res:
        assert np.all(r.q >= lo - 1e-12) and np.all(r.q <= hi + 1e-12)
        assert r.n_solutions > 1  # a self-motion: many distinct solutions


def test_random_general_6r():
    rng = np.random.default_rng(4)
    for _ in range(4):
        robot = random_robot(rng, 6, prismatic=False, general=True, dynamics=False)
        q = rng.uniform(-np.pi, np.pi, (8, 6))
        T = dgm(robot, q)
        res = igm_numeric(robot, T, n_restarts=48, rng=5)
        _check(robot, T, res)
        for r in res:
            assert r.n_solutions <= 16


def test_random_robots_with_prismatic_joints_and_trees():
    rng = np.random.default_rng(6)
    for k in range(4):
        robot = random_robot(rng, 6, tree=k % 2 == 1, general=True, dynamics=False)
        q = rng.uniform(-1, 1, (5, 6))
        j = robot.n_links
        T = dgm(robot, q, j)
        res = igm_numeric(robot, T, j=j, n_restarts=32, rng=7)
        for t, r in enumerate(res):
            if robot.structure == "serial":
                assert r.status == CONVERGED
            for qs in r.q:
                assert np.abs(dgm(robot, qs, j) - T[t]).max() < 1e-10


def test_unreachable_and_max_iter():
    robot = robmod.load_robot("rx90", numeric=True)
    T = np.repeat(dgm(robot, np.zeros(6))[None], 3, axis=0)
    T[:, :3, 3] = [[2.0, 0, 0], [0, 5.0, 1.0], [0.6, 0.6, 0.6]]  # reach is 0.9 m
    res = igm_numeric(robot, T, n_restarts=16, rng=0)
    assert [r.status for r in res] == [UNREACHABLE] * 3
    assert all(r.n_solutions == 0 and r.error > 0.1 for r in res)
    T2 = dgm(robot, np.array([0.3, -1.0, 2.0, 0.4, 1.0, -2.0]))
    r = igm_numeric(robot, T2, np.zeros(6), n_restarts=1, max_iter=2)
    assert r.status == MAX_ITER and r.n_solutions == 0


def test_single_target_seed_and_sequential_mode():
    robot = robmod.load_robot("rx90", numeric=True)
    q = np.array([0.3, -1.0, 2.0, 0.4, 1.0, -2.0])
    T = dgm(robot, q)
    r = igm_numeric(robot, T[:3], q + 0.05, n_restarts=1)  # 3x4 accepted, one seed
    assert r.status == CONVERGED and r.n_solutions == 1
    assert np.abs(r.q[0] - q).max() < 1e-9
    Ts = dgm(robot, np.stack([q, -q]))
    a = igm_numeric(robot, Ts, n_restarts=32, rng=4)
    b = igm_numeric(robot, Ts, n_restarts=32, rng=4, batch=False)
    assert [x.n_solutions for x in a] == [8, 8] and [x.n_solutions for x in b] == [8, 8]


def test_rotation_error_is_theta_u():
    rng = np.random.default_rng(8)
    for theta in [0.0, 1e-9, 0.3, 2.0, np.pi - 1e-9, np.pi]:
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        K = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
        R = np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K
        Rc = dgm(robmod.load_robot("rx90", numeric=True), rng.uniform(-3, 3, 6))[:3, :3]
        e = rotation_error(R @ Rc, Rc)
        if theta > np.pi - 1e-6:
            assert np.isclose(np.linalg.norm(e), theta) and abs(abs(e @ u) - theta) < 1e-6
        else:
            assert np.abs(e - theta * u).max() < 1e-12


def test_bad_target_shape():
    robot = robmod.load_robot("rx90", numeric=True)
    with pytest.raises(robmod.RobmodError):
        igm_numeric(robot, np.eye(3))
