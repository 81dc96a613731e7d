"""Minimum description of tasks by virtual mechanical joints (seed 001 §6.7, Tables 6.1-6.2)."""
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import robmod
from robmod.description.robot import Tool
from robmod.errors import RobmodError
from robmod.kinematics import jacobian
from robmod.kinematics.jacobians import pose_and_jacobian
from robmod.kinematics.task_description import (
    TABLE_6_2, _cylindrical, _cylindrical_groove, _fixed, _line_contact, _planar_contact,
    _point_contact, _prismatic, reduced_jacobian, _revolute, solve_task, _spherical,
    task_residual, virtual_joint)

KINDS = ["point_contact", "line_contact", "planar_contact", "cylindrical_groove", "spherical",
         "cylindrical", "revolute", "revolute_min", "prismatic", "prismatic_min", "fixed"]


@pytest.fixture(scope="module")
def rx90():
    return robmod.load_robot("rx90").numeric()


def unit(v):
    return v / np.linalg.norm(v)


def perp(u, rng):
    return unit(np.cross(u, rng.normal(size=3)))


def satisfied_task(kind, T, rng):
    """(task, allowed twists (6, k) in frame 0 for O_n) with the task satisfied at pose T."""
    R, Pn = T[:3, :3], T[:3, 3]
    p = 0.1 * rng.normal(size=3)
    d = unit(rng.normal(size=3))
    d2 = perp(d, rng)
    A, dw, d2w = R @ p + Pn, R @ d, R @ d2

    def tw(w=(0, 0, 0), t=(0, 0, 0)):
        w, t = np.asarray(w, float), np.asarray(t, float)
        return np.concatenate([t + np.cross(w, Pn - A), w])

    def rotations():
        return [tw(w=e) for e in np.eye(3)]

    if kind == "point_contact":
        N = unit(rng.normal(size=3))
        t1 = perp(N, rng)
        return _point_contact(p, A, N), [tw(t=t1), tw(t=np.cross(N, t1))] + rotations()
    if kind == "line_contact":
        N = perp(dw, rng)
        t1 = perp(N, rng)
        return (_line_contact(p, d, A, N),
                [tw(t=t1), tw(t=np.cross(N, t1)), tw(w=N), tw(w=dw)])
    if kind == "planar_contact":
        n = unit(rng.normal(size=3))
        N = R @ n
        t1 = perp(N, rng)
        return _planar_contact(p, n, A, N), [tw(t=t1), tw(t=np.cross(N, t1)), tw(w=N)]
    if kind == "cylindrical_groove":
        u = unit(rng.normal(size=3))
        return _cylindrical_groove(p, A, u), [tw(t=u)] + rotations()
    if kind == "spherical":
        return _spherical(p, A), rotations()
    if kind == "cylindrical":
        return _cylindrical(p, d, A, dw), [tw(t=dw), tw(w=dw)]
    if kind.startswith("revolute"):
        return _revolute(p, d, A, dw, minimal=kind.endswith("min")), [tw(w=dw)]
    if kind.startswith("prismatic"):
        return _prismatic(p, d, d2, A, dw, d2w, minimal=kind.endswith("min")), [tw(t=dw)]
    if kind == "fixed":
        return _fixed(T), []
    raise AssertionError(kind)


def generic_q(rng, robot):
    """A random configuration away from the singularities (J well conditioned)."""
    while True:
        q = rng.uniform(-2.5, 2.5, 6)
        if abs(np.linalg.det(pose_and_jacobian(robot, q)[1])) > 1e-3:
            return q


@pytest.mark.parametrize("kind", KINDS)
def test_rank_and_allowed_motions(rx90, kind):
    rng = np.random.default_rng(KINDS.index(kind))
    q = generic_q(rng, rx90)
    T, J = pose_and_jacobian(rx90, q)
    task, twists = satisfied_task(kind, T, rng)
    base = kind.replace("_min", "")
    _, _, indep, total = TABLE_6_2[base]
    minimal = kind.endswith("_min")
    assert task.n_equations == (indep if minimal else total)
    assert task.n_independent == indep
    HJ = reduced_jacobian(rx90, q, task)
    assert HJ.shape == (task.n_equations, 6)
    assert np.linalg.matrix_rank(HJ, tol=1e-9) == indep
    np.testing.assert_allclose(task.residual(T), 0, atol=1e-14)
    # the motions the virtual joint allows span the null space of H: H J qd = 0
    if twists:
        W = np.array(twists).T
        assert np.linalg.matrix_rank(W, tol=1e-9) == 6 - indep
        qd = np.linalg.solve(J, W)  # qd producing these twists (J full rank: J^+ = J^-1)
        np.testing.assert_allclose(HJ @ qd, 0, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_rank_at_unsatisfied_pose_and_finite_differences(rx90, kind):
    """Generic rank with the task *not* satisfied; dr = -H J dq (finite differences of [6.51])."""
    rng = np.random.default_rng(7 + len(kind))
    T0, _ = pose_and_jacobian(rx90, generic_q(rng, rx90))
    task, _ = satisfied_task(kind, T0, rng)
    q = generic_q(rng, rx90)
    HJ = reduced_jacobian(rx90, q, task)
    assert np.linalg.matrix_rank(HJ, tol=1e-9) == task.n_independent
    assert np.abs(task_residual(rx90, q, task)).max() > 1e-3
    h = 1e-6
    fd = np.array([(task_residual(rx90, q + h * e, task) - task_residual(rx90, q - h * e, task))
                   / (2 * h) for e in np.eye(6)]).T
    rows = slice(0, 3) if kind == "fixed" else slice(None)  # theta u: d/dt = -w only at 0
    np.testing.assert_allclose(fd[rows], -HJ[rows], atol=1e-8)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_seed_form_6_54_and_batch(rx90, seed):
    """H_n nJ_n ([6.54]) equals H 0J_n; batched poses give the stacked matrices."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(-3, 3, (3, 6))
    T, J0 = pose_and_jacobian(rx90, q)
    task = _revolute(0.1 * rng.normal(size=3), rng.normal(size=3), rng.normal(size=3),
                    rng.normal(size=3))
    Jn = jacobian(rx90, q, i=6)
    np.testing.assert_allclose(task.H_n(T) @ Jn, task.H(T) @ J0, atol=1e-12)
    H = task.H(T)
    assert H.shape == (3, 7, 6)
    np.testing.assert_allclose(H[1], task.H(T[1]), atol=0)
    np.testing.assert_allclose(task.residual(T)[2], task.residual(T[2]), atol=0)


def test_point_contact_redundancy_convergence(rx90):
    """A 6-axis robot on a point-on-plane task (rank 1) is redundant of degree 5: the
    pseudo-inverse loop puts the probe on the plane, the other 5 DOF stay free."""
    probe = [0.0, 0.0, 0.1]
    task = _point_contact(probe, plane_point=[0.0, 0.0, 0.2], normal=[0.0, 0.0, 1.0])
    q0 = np.array([0.3, -0.4, 0.6, 0.2, 0.5, -0.1])
    assert abs(task_residual(rx90, q0, task)[0]) > 0.1
    HJ = reduced_jacobian(rx90, q0, task)
    assert HJ.shape == (1, 6) and np.linalg.matrix_rank(HJ) == 1
    sol = solve_task(rx90, q0, task)
    assert sol.converged and sol.iterations <= 10
    assert sol.residuals[-1] < 1e-10 and np.all(np.diff(sol.residuals[-3:]) < 0)
    T = pose_and_jacobian(rx90, sol.q)[0]
    assert abs((T[:3, :3] @ probe + T[:3, 3])[2] - 0.2) < 1e-10
    # with a secondary motion in the null space (towards q_pref), same task, other solution
    q_pref = np.array([-0.5, 0.2, 0.1, 1.0, -0.6, 0.8])
    sol2 = solve_task(rx90, q0, task, z=lambda q: 0.5 * (q_pref - q), max_iter=200)
    assert sol2.converged and sol2.residuals[-1] < 1e-10
    assert np.linalg.norm(sol2.q - q_pref) < np.linalg.norm(sol.q - q_pref) - 0.5
    T2 = pose_and_jacobian(rx90, sol2.q)[0]
    P1, P2 = T[:3, :3] @ probe + T[:3, 3], T2[:3, :3] @ probe + T2[:3, 3]
    assert abs(P2[2] - 0.2) < 1e-10 and np.linalg.norm(P1[:2] - P2[:2]) > 1e-2


def test_fixed_pairing_reaches_the_frame(rx90):
    qt = np.array([0.2, -0.3, 0.4, 0.5, 0.6, -0.7])
    target = pose_and_jacobian(rx90, qt)[0]
    sol = solve_task(rx90, qt + 0.2, _fixed(target))
    assert sol.converged
    np.testing.assert_allclose(pose_and_jacobian(rx90, sol.q)[0], target, atol=1e-9)


def test_tool_frame(rx90):
    """Tool points are given in the end frame: with a tool E, in frame E."""
    tool = Tool("probe", 6, sp.ImmutableMatrix([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.1],
                                                [0, 0, 0, 1]]))
    q = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    a = _spherical([0.0, 0.02, 0.0], [0.3, 0.1, 0.4])
    b = _spherical([0.0, 0.02, 0.1], [0.3, 0.1, 0.4])
    np.testing.assert_allclose(reduced_jacobian(rx90, q, a, tool=tool),
                               reduced_jacobian(rx90, q, b), atol=1e-14)
    np.testing.assert_allclose(task_residual(rx90, q, a, tool=tool),
                               task_residual(rx90, q, b), atol=1e-14)


def test_virtual_joint_factory_and_errors():
    t = virtual_joint("point_on_plane", point=[0, 0, 0], plane_point=[0, 0, 1], normal=[0, 0, 2])
    assert t.kind == "point_contact" and np.allclose(t.contacts[0].normal, [0, 0, 1])
    assert virtual_joint("line_on_line", point=[0, 0, 0], direction=[1, 0, 0],
                         line_point=[0, 0, 0], line_direction=[0, 1, 0]).n_equations == 4
    assert [TABLE_6_2[k][2:] for k in TABLE_6_2] == [(1, 1), (2, 2), (3, 3), (2, 2), (3, 3),
                                                    (4, 4), (5, 7), (5, 6), (6, 6)]
    with pytest.raises(RobmodError, match="unknown virtual joint"):
        virtual_joint("screw")
    with pytest.raises(RobmodError, match="spherical"):
        virtual_joint("spherical", point=[0, 0, 0])
    with pytest.raises(RobmodError, match="non-zero"):
        _point_contact([0, 0, 0], [0, 0, 0], [0, 0, 0])
    with pytest.raises(RobmodError, match="perpendicular"):
        _prismatic([0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 0], [1, 0, 0], [0, 1, 0])
    with pytest.raises(RobmodError, match="3-vector"):
        _spherical([0, 0], [0, 0, 0])
    with pytest.raises(RobmodError, match="pose"):
        _spherical([0, 0, 0], [0, 0, 0]).H(np.eye(3))
