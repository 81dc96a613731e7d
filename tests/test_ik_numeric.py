"""Numeric inverse geometric model (Khalil & Dombre §6.6): batched damped least squares with
restarts."""
import numpy as np
import pytest

import robmod
from robmod.geometry.direct import dgm
from robmod.geometry.transforms import transform_to_numpy
from robmod.geometry import IGMResult, rotation_error
from robmod.kinematics import igm_numeric
from robmod.kinematics.ik_numeric import _CONVERGED, _MAX_ITER, _UNREACHABLE, joint_domain
from robmod.testing.random import random_robot


def _fk(robot, q, tool=None):
    T = dgm(robot, q)
    if tool is not None:
        T = T @ transform_to_numpy(tool.T)
    return T


def _contains(sols, q, tol=1e-6):
    d = np.abs(np.angle(np.exp(1j * (sols - q))))
    return bool(np.any(np.all(d < tol, axis=-1)))


def _check(robot, T, res, q_true=None, tool=None, n_expected=None):
    assert isinstance(res, IGMResult) and res.method == "numeric"
    assert res.q.shape[:-1] == res.valid.shape and res.valid.shape[:-1] == T.shape[:-2]
    assert np.isnan(res.q[~res.valid]).all()  # padding
    for t in range(len(T)):
        sols = res.solutions(t)
        assert res.status[t] == _CONVERGED
        assert res.n_solutions[t] == len(sols) >= 1
        assert np.abs(_fk(robot, sols, tool) - T[t]).max() < 1e-10
        if n_expected is not None:
            assert len(sols) == n_expected
        if q_true is not None:
            assert _contains(sols, q_true[t])
        # distinct modulo 2 pi, sorted
        d = np.abs(np.angle(np.exp(1j * (sols[:, None] - sols[None]))))
        assert np.all(np.all(d < 1e-6, axis=-1) == np.eye(len(sols), dtype=bool))
        assert np.array_equal(np.lexsort(sols[:, ::-1].T), np.arange(len(sols)))


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
    q = res.q[res.valid]
    assert np.all(q >= lo - 1e-12) and np.all(q <= hi + 1e-12)
    assert np.all(res.n_solutions > 1)  # a self-motion: many distinct solutions


def test_random_general_6r():
    rng = np.random.default_rng(4)
    for _ in range(4):
        robot = random_robot(rng, 6, prismatic=False, general=True, dynamics=False)
        q = rng.uniform(-np.pi, np.pi, (8, 6))
        T = dgm(robot, q)
        res = igm_numeric(robot, T, n_restarts=48, rng=5)
        _check(robot, T, res)
        assert np.all(res.n_solutions <= 16)


def test_random_robots_with_prismatic_joints_and_trees():
    rng = np.random.default_rng(6)
    for k in range(4):
        robot = random_robot(rng, 6, tree=k % 2 == 1, general=True, dynamics=False)
        q = rng.uniform(-1, 1, (5, 6))
        j = robot.n_links
        T = dgm(robot, q, j=j)
        res = igm_numeric(robot, T, j=j, n_restarts=32, rng=7)
        for t in range(len(T)):
            if robot.structure == "serial":
                assert res.status[t] == _CONVERGED
            for qs in res.solutions(t):
                assert np.abs(dgm(robot, qs, j=j) - T[t]).max() < 1e-10


def test_unreachable_and_max_iter():
    robot = robmod.load_robot("rx90", numeric=True)
    T = np.repeat(dgm(robot, np.zeros(6))[None], 3, axis=0)
    T[:, :3, 3] = [[2.0, 0, 0], [0, 5.0, 1.0], [0.6, 0.6, 0.6]]  # reach is 0.9 m
    res = igm_numeric(robot, T, n_restarts=16, rng=0)
    assert res.status.tolist() == [_UNREACHABLE] * 3
    assert np.all(res.n_solutions == 0) and np.all(res.error > 0.1)
    assert res.q.shape == (3, 0, 6)
    T2 = dgm(robot, np.array([0.3, -1.0, 2.0, 0.4, 1.0, -2.0]))
    r = igm_numeric(robot, T2, np.zeros(6), n_restarts=1, max_iter=2)
    assert r.status == _MAX_ITER and r.n_solutions == 0 and r.iterations == 2


def test_single_target_seed_and_sequential_mode():
    robot = robmod.load_robot("rx90", numeric=True)
    q = np.array([0.3, -1.0, 2.0, 0.4, 1.0, -2.0])
    T = dgm(robot, q)
    r = igm_numeric(robot, T[:3], q + 0.05, n_restarts=1)  # 3x4 accepted, one seed
    assert r.status == _CONVERGED and r.n_solutions == 1 and r.n_converged == 1
    qs, valid = r  # unpacks as the analytic IGM does
    assert qs.shape == (1, 6) and valid.tolist() == [True]
    assert np.abs(qs[0] - q).max() < 1e-9
    Ts = dgm(robot, np.stack([q, -q]))
    a = igm_numeric(robot, Ts, n_restarts=32, rng=4)
    b = igm_numeric(robot, Ts, n_restarts=32, rng=4, batch=False)
    assert a.n_solutions.tolist() == [8, 8] and b.n_solutions.tolist() == [8, 8]
    assert a.q.shape == b.q.shape == (2, 8, 6) and b.status.tolist() == [_CONVERGED] * 2


def test_batch_shape_and_padding():
    """Targets (2, 2, 4, 4): q (2, 2, n, 6) padded with NaN rows where fewer were found."""
    robot = robmod.load_robot("rx90", numeric=True)
    T = dgm(robot, np.array([0.3, -1.0, 2.0, 0.4, 1.0, -2.0]))
    Ts = np.stack([np.stack([T, T]), np.stack([T, T])])
    Ts[1, 1, :3, 3] = [2.0, 0.0, 0.0]  # out of reach
    res = igm_numeric(robot, Ts, n_restarts=24, rng=3)
    assert res.q.shape[:2] == (2, 2) and res.valid.shape == res.q.shape[:3]
    assert res.status.shape == res.error.shape == res.iterations.shape == (2, 2)
    assert res.status[1, 1] == _UNREACHABLE and res.n_solutions[1, 1] == 0
    assert not res.valid[1, 1].any() and np.isnan(res.q[1, 1]).all()
    assert np.all(res.n_solutions[0] >= 1)


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
