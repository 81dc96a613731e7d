"""Inverse kinematic models and resolved-rate control (seed 001 §6.3-§6.5, App. 4)."""
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import robmod
from robmod.dynamics.inertia import inertia_matrix
from robmod.geometry.direct import dgm
from robmod.kinematics import jacobian
from robmod.kinematics.analysis import manipulability, min_singular_value, task_rows_jacobian
from robmod.kinematics.ikm import (DampedLeastSquares, ExtendedJacobian, JointLimitCriterion,
                                   ManipulabilityCriterion, NullSpaceOptimization, PseudoInverse,
                                   TaskPriority, WeightedPseudoInverse, damping_factor,
                                   dls_inverse, greville_pinv, ikm_dls, ikm_extended,
                                   ikm_null_space, ikm_pinv, ikm_task_priority, ikm_weighted,
                                   null_space_projector, numerical_gradient, pinv, weighted_pinv)
from robmod.description import planar3r
from robmod.kinematics.resolved_motion import resolved_rate

PANDA = robmod.load_robot("panda").numeric()
Q = np.random.default_rng(1).uniform(-1.5, 1.5, (4, 7))
Q[:, 3] = np.clip(Q[:, 3] - 1.5, -3.0, -0.1)
J_PANDA = jacobian(PANDA, Q, tool="flange")
Q_SING = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.5, 0.0])  # joints 1, 3, 5 aligned: rank 5


def _mv(A, x):
    return np.einsum("...ij,...j->...i", A, x)


# -- Appendix 4 ---------------------------------------------------------------------------------
def test_appendix4_pseudo_inverse_and_greville():
    W = [[1, 2, 3], [2, 3, 4]]
    ref = np.array([[-11 / 6, 4 / 3], [-1 / 3, 1 / 3], [7 / 6, -2 / 3]])
    assert np.abs(pinv(np.array(W, float)) - ref).max() < 1e-14
    steps = []
    Wp = greville_pinv(W, steps=steps)
    R = sp.Rational
    assert Wp == sp.Matrix([[R(-11, 6), R(4, 3)], [R(-1, 3), R(1, 3)], [R(7, 6), R(-2, 3)]])
    (k2, d2, c2, b2), (k3, d3, c3, b3) = steps  # Example A4.1, step by step
    assert (k2, d2) == (2, sp.Matrix([[R(8, 5)]]))
    assert (list(c2), list(b2)) == ([R(2, 5), R(-1, 5)], [2, -1])
    assert (k3, list(d3), list(c3), list(b3)) == (3, [-1, 2], [0, 0], [R(7, 6), R(-2, 3)])


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 5), st.integers(0, 10**6))
def test_penrose_conditions(r, m, n, seed):
    """[A4.12] on random matrices of rank r (numerically and by Greville in exact arithmetic)."""
    rng = np.random.default_rng(seed)
    r = min(r, m, n)
    W = rng.integers(-3, 4, (m, r)) @ rng.integers(-3, 4, (r, n))
    for Wp, eq in ((pinv(W.astype(float)), np.allclose),
                   (np.array(greville_pinv(W), dtype=float), np.allclose)):
        assert eq(W @ Wp @ W, W) and eq(Wp @ W @ Wp, Wp)
        assert eq((W @ Wp).T, W @ Wp) and eq((Wp @ W).T, Wp @ W)


# -- pseudo-inverse -----------------------------------------------------------------------------
def test_pinv_is_the_minimum_norm_solution():
    rng = np.random.default_rng(2)
    xd = rng.normal(size=(4, 6))
    qd = ikm_pinv(J_PANDA, xd)
    assert np.abs(_mv(J_PANDA, qd) - xd).max() < 1e-12
    N = null_space_projector(J_PANDA)
    for _ in range(10):
        z = rng.normal(size=(4, 7))
        other = ikm_pinv(J_PANDA, xd, z)  # [6.31]: another exact solution
        assert np.abs(_mv(J_PANDA, other) - xd).max() < 1e-12
        assert np.all(np.linalg.norm(other, axis=-1) > np.linalg.norm(qd, axis=-1))
        assert np.allclose(other - qd, _mv(N, z))
        assert np.allclose(np.einsum("...i,...i->...", other - qd, qd), 0)  # orthogonal


def test_pinv_at_a_singularity_realizes_the_range_components():
    """[6.11] cases: Xd in R(J) exact; Xd in R(J)^perp gives qd = 0."""
    J = jacobian(PANDA, Q_SING, tool="flange")
    U = np.linalg.svd(J)[0]
    u_deg = U[:, -1]
    assert np.abs(ikm_pinv(J, u_deg, rtol=1e-9)).max() < 1e-9
    x_ok = J @ np.arange(7.0)
    assert np.abs(J @ ikm_pinv(J, x_ok, rtol=1e-9) - x_ok).max() < 1e-12


# -- damped least squares -----------------------------------------------------------------------
def test_dls_forms_and_damping_rules():
    rng = np.random.default_rng(3)
    J = J_PANDA
    lam = 0.2
    A15 = np.linalg.solve(np.swapaxes(J, -1, -2) @ J + lam**2 * np.eye(7), np.swapaxes(J, -1, -2))
    A16 = np.swapaxes(J, -1, -2) @ np.linalg.inv(J @ np.swapaxes(J, -1, -2) + lam**2 * np.eye(6))
    D = dls_inverse(J, lam)
    assert np.abs(D - A15).max() < 1e-12 and np.abs(D - A16).max() < 1e-12  # [6.15]-[6.17]
    assert np.abs(dls_inverse(J, 0.0) - pinv(J)).max() < 1e-10
    # it minimizes ||xd - J qd||^2 + lam^2 ||qd||^2 ([6.13])
    xd = rng.normal(size=6)
    qd = ikm_dls(J[0], xd, rule="fixed", lam=lam)

    def cost(v):
        return np.sum((xd - J[0] @ v) ** 2) + lam**2 * np.sum(v**2)
    assert all(cost(qd) < cost(qd + 1e-3 * rng.normal(size=7)) for _ in range(20))
    # [6.20]: lambda0 (1 - w/w0)^2 below w0, 0 above
    w = manipulability(J)
    w0 = float(np.median(w))
    got = damping_factor(J, rule="manipulability", lam=0.5, w0=w0)
    assert np.allclose(got, np.where(w < w0, 0.5 * (1 - w / w0) ** 2, 0))
    # [6.21]: sqrt(eps^2 - sigma_min^2) below eps, 0 above
    s = min_singular_value(J)
    eps = float(np.median(s))
    assert np.allclose(damping_factor(J, rule="singular_value", eps=eps),
                       np.sqrt(np.maximum(eps**2 - s**2, 0)))
    assert np.allclose(damping_factor(J, rule="fixed"), 0.003)
    assert np.allclose(damping_factor(J, rule="singular_value"),          # default eps = 0.05
                       np.sqrt(np.maximum(0.05**2 - s**2, 0)))
    with pytest.raises(robmod.RobmodError):
        damping_factor(J, rule="nope")


def test_dls_bounded_near_a_singularity_while_pinv_blows_up():
    rng = np.random.default_rng(4)
    d = rng.normal(size=7)
    eps_list = np.logspace(-1, -7, 7)
    q = Q_SING + eps_list[:, None] * d  # approaching the singular configuration
    J = jacobian(PANDA, q, tool="flange")
    smin = min_singular_value(J)
    assert smin[-1] < 1e-6 and np.all(np.diff(smin) < 0)
    U = np.linalg.svd(J)[0]
    xd = U[..., :, -1] + 0.5 * U[..., :, 0]  # partly along the degenerate direction
    nx = np.linalg.norm(xd, axis=-1)
    n_pinv = np.linalg.norm(ikm_pinv(J, xd), axis=-1)
    assert n_pinv[-1] > 1e5 and np.allclose(n_pinv * smin, 1, rtol=1e-3)  # ~ 1/sigma_min
    eps = 0.05
    n_sv = np.linalg.norm(ikm_dls(J, xd, rule="singular_value", eps=eps), axis=-1)
    assert np.all(n_sv <= nx / eps * (1 + 1e-9))           # gain sigma/(sigma^2+lam^2) <= 1/eps
    lam = 0.05
    n_fix = np.linalg.norm(ikm_dls(J, xd, rule="fixed", lam=lam), axis=-1)
    assert np.all(n_fix <= nx / (2 * lam) * (1 + 1e-9))    # max of s/(s^2+lam^2) = 1/(2 lam)
    n_w = np.linalg.norm(ikm_dls(J, xd, rule="manipulability", lam=0.1, w0=1e-2), axis=-1)
    assert n_w.max() < 100 and n_pinv.max() > 1e4 * n_sv.max()


# -- weighted pseudo-inverse ----------------------------------------------------------------------
def test_weighted_pinv_minimizes_the_weighted_norm():
    """E = inertia matrix (Benoit): qd_E has the least kinetic energy among the solutions."""
    rng = np.random.default_rng(5)
    E = inertia_matrix(PANDA, Q)
    xd = rng.normal(size=(4, 6))
    qd = ikm_weighted(J_PANDA, xd, E)
    assert np.abs(_mv(J_PANDA, qd) - xd).max() < 1e-11
    energy = np.einsum("...i,...ij,...j->...", qd, E, qd)
    for _ in range(10):
        other = ikm_pinv(J_PANDA, xd, rng.normal(size=(4, 7)))
        assert np.all(np.einsum("...i,...ij,...j->...", other, E, other) > energy)
    assert np.all(np.einsum("...i,...ij,...j->...", ikm_pinv(J_PANDA, xd), E,
                            ikm_pinv(J_PANDA, xd)) > energy)
    assert np.abs(weighted_pinv(J_PANDA, np.eye(7)) - pinv(J_PANDA)).max() < 1e-10
    # KKT: E qd = J^T mu for some mu
    mu = np.linalg.lstsq(J_PANDA[0].T, E[0] @ qd[0], rcond=None)[0]
    assert np.abs(J_PANDA[0].T @ mu - E[0] @ qd[0]).max() < 1e-10


# -- null-space optimization ----------------------------------------------------------------------
def test_joint_limit_criteria_and_gradients():
    crit2 = JointLimitCriterion.from_robot(PANDA)
    crit6 = JointLimitCriterion.from_robot(PANDA, p=6)
    lo, hi = np.asarray(crit2.qmin), np.asarray(crit2.qmax)
    y = (Q - (lo + hi) / 2) / (hi - lo)
    assert np.allclose(crit2.value(Q), np.sum(y**2, -1))                          # [6.36]
    assert np.allclose(crit2.gradient(Q), 2 * (Q - (lo + hi) / 2) / (hi - lo) ** 2)  # [6.37]
    assert np.allclose(crit6.value(Q), np.sum(y**6, -1) ** (1 / 6))              # [6.39]
    big = JointLimitCriterion(lo, hi, p=200)
    assert np.allclose(big.value(Q), np.abs(y).max(-1), rtol=0.03)             # -> [6.38]
    for c in (crit2, crit6):
        assert np.abs(c.gradient(Q) - numerical_gradient(c.value, Q)).max() < 1e-7
    man = ManipulabilityCriterion(PANDA, tool="flange")
    g = man.gradient(Q[0])
    dq = 1e-4 * np.random.default_rng(6).normal(size=7)
    assert abs(man.value(Q[0] + dq) - man.value(Q[0] - dq) - 2 * g @ dq) < 1e-9


def test_null_space_term_does_not_move_the_end_effector():
    rng = np.random.default_rng(7)
    xd = rng.normal(size=(4, 6))
    g = JointLimitCriterion.from_robot(PANDA).gradient(Q)
    qd = ikm_null_space(J_PANDA, xd, g, alpha=-3.0)
    assert np.abs(_mv(J_PANDA, qd) - xd).max() < 1e-11
    # the homogeneous term decreases phi at first order (alpha < 0): grad . P grad >= 0
    P = null_space_projector(J_PANDA)
    assert np.all(np.einsum("...i,...i->...", g, qd - ikm_pinv(J_PANDA, xd)) <= 0)
    assert np.allclose(qd - ikm_pinv(J_PANDA, xd), -3.0 * _mv(P, g))


def _panda_line(q0, length=0.1, duration=1.0):
    """Straight-line translation of the flange, constant orientation."""
    T0 = dgm(PANDA, q0, tool="flange")
    v = np.array([0.0, 1.0, -0.5])
    v = length * v / np.linalg.norm(v) / duration

    def path(t):
        T = T0.copy()
        T[:3, 3] += v * t
        return T, np.r_[v, 0, 0, 0]
    return path


def test_resolved_rate_panda_joint_limit_avoidance():
    """[6.32] with [6.36] (p = 2) and [6.39] (p = 6) against plain pinv on the same path."""
    q0 = np.array([-0.88, -0.04, 1.81, -0.53, -0.66, 2.08, -0.83])
    T0 = dgm(PANDA, q0, tool="flange")
    t = np.linspace(0, 1.0, 101)
    path = _panda_line(q0)
    plain = resolved_rate(PANDA, q0, path, t, PseudoInverse(), tool="flange", gain=20)
    assert plain.position_error.max() < 1e-3 and plain.orientation_error.max() < 1e-3
    for p in (2, 6):
        crit = JointLimitCriterion.from_robot(PANDA, p=p)
        opt = resolved_rate(PANDA, q0, path, t, NullSpaceOptimization(crit, -10.0),
                            tool="flange", gain=20)
        phi_plain, phi_opt = crit.value(plain.q), crit.value(opt.q)
        assert np.all(phi_opt <= phi_plain + 1e-12) and phi_opt[-1] < phi_plain[-1] - 0.015
        assert opt.position_error.max() < 1e-3 and opt.orientation_error.max() < 1e-3
        # pure self-motion (fixed location): phi decreases monotonically, the flange stays
        hold = resolved_rate(PANDA, q0, lambda s: (T0, np.zeros(6)), t,
                             NullSpaceOptimization(crit, -10.0), tool="flange", gain=20)
        phi = crit.value(hold.q)
        assert np.all(np.diff(phi) < 0) and phi[-1] < phi[0] - 0.025
        assert hold.position_error.max() < 1e-4 and hold.orientation_error.max() < 1e-4


# -- task priority --------------------------------------------------------------------------------
def test_task_priority_two_tasks():
    rng = np.random.default_rng(8)
    # task 1: the full location (6 rows); task 2: two components of the elbow (O4) velocity
    J1 = J_PANDA
    J2 = jacobian(PANDA, Q, j=4)[:, :2, :]
    x1, x2 = rng.normal(size=(4, 6)), rng.normal(size=(4, 2))
    qd = ikm_task_priority(J1, x1, J2, x2)
    assert np.abs(_mv(J1, qd) - x1).max() < 1e-11  # primary task exact
    q1 = ikm_pinv(J1, x1)
    N1 = null_space_projector(J1)
    for k in range(4):  # secondary: least squares among the solutions of task 1
        z = np.linalg.lstsq(J2[k] @ N1[k], x2[k] - J2[k] @ q1[k], rcond=1e-10)[0]
        best = np.linalg.norm(J2[k] @ (q1[k] + N1[k] @ z) - x2[k])
        assert np.isclose(np.linalg.norm(J2[k] @ qd[k] - x2[k]), best, rtol=1e-9, atol=1e-12)
        assert best > 1e-3  # one redundant dof: task 2 cannot be met exactly
        for _ in range(5):
            worse = q1[k] + N1[k] @ rng.normal(size=7)
            assert np.linalg.norm(J2[k] @ worse - x2[k]) >= best - 1e-12
    # z2 moves in the remaining null space: both task errors unchanged
    qz = ikm_task_priority(J1, x1, J2, x2, z2=rng.normal(size=(4, 7)))
    assert np.abs(_mv(J1, qz) - x1).max() < 1e-11
    assert np.allclose(_mv(J2, qz), _mv(J2, qd))
    # compatible tasks (position 3 + 2 orientation components): both exact
    Jp, Jo = J_PANDA[:, :3], J_PANDA[:, 3:5]
    qd = ikm_task_priority(Jp, x1[:, :3], Jo, x2)
    assert np.abs(_mv(Jp, qd) - x1[:, :3]).max() < 1e-11 and np.abs(_mv(Jo, qd) - x2).max() < 1e-10
    # as a resolved-rate solver: keep the elbow still while the flange translates
    q0 = Q[0]
    t = np.linspace(0, 1, 51)
    P4 = dgm(PANDA, q0, j=4)[:3, 3]

    def elbow(q):
        return jacobian(PANDA, q, j=4)[:3], 10 * (P4 - dgm(PANDA, q, j=4)[:3, 3])
    res = resolved_rate(PANDA, q0, _panda_line(q0, 0.05), t, TaskPriority(elbow), tool="flange",
                        gain=20)
    assert res.position_error.max() < 1e-3
    drift = np.linalg.norm(dgm(PANDA, res.q, j=4)[:, :3, 3] - P4, axis=-1)
    plain = resolved_rate(PANDA, q0, _panda_line(q0, 0.05), t, tool="flange", gain=20)
    drift_plain = np.linalg.norm(dgm(PANDA, plain.q, j=4)[:, :3, 3] - P4, axis=-1)
    assert drift.max() < 0.5 * drift_plain.max()


# -- extended Jacobian ----------------------------------------------------------------------------
def test_extended_jacobian_reproduces_both_velocities():
    rng = np.random.default_rng(9)
    Jh = np.zeros((1, 7))
    Jh[0, 2] = 1.0  # h(q) = q3 (the "elbow angle" of the redundant arm)
    x, xc = rng.normal(size=(4, 6)), rng.normal(size=(4, 1))
    qd = ikm_extended(J_PANDA, x, Jh, xc)
    assert np.abs(_mv(J_PANDA, qd) - x).max() < 1e-11 and np.abs(qd[:, 2:3] - xc).max() < 1e-12
    with pytest.raises(robmod.RobmodError):
        ikm_extended(J_PANDA, x, np.zeros((1, 7)), xc)  # artificial singularity
    with pytest.raises(robmod.RobmodError):
        ikm_extended(J_PANDA, x, np.zeros((2, 7)), np.zeros((4, 2)))


def test_extended_jacobian_is_cyclic_pinv_is_not():
    """A closed task path gives a closed joint path with the extended Jacobian (§6.5.1)."""
    robot = planar3r()
    q0 = np.array([0.3, 1.2, 0.8])
    c = dgm(robot, q0, tool="tip")[:2, 3]
    rad = 0.5

    def circle(t):
        a = 2 * np.pi * t
        p = c + rad * np.array([np.cos(a) - 1, np.sin(a)])
        return np.r_[p, 0], rad * 2 * np.pi * np.array([-np.sin(a), np.cos(a)])
    t = np.linspace(0, 2, 801)  # two turns
    ext = ExtendedJacobian(lambda q: (np.array([[0, 0, 1.0]]), np.array([-5 * (q[2] - q0[2])])))
    r_ext = resolved_rate(robot, q0, circle, t, ext, tool="tip", rows=(0, 1), gain=50)
    r_pin = resolved_rate(robot, q0, circle, t, PseudoInverse(), tool="tip", rows=(0, 1), gain=50)
    assert r_ext.position_error.max() < 5e-3 and r_pin.position_error.max() < 5e-3
    assert np.linalg.norm(r_ext.q[-1] - q0) < 2e-3
    assert np.linalg.norm(r_pin.q[-1] - q0) > 2e-2


# -- examples of Figs 6.1-6.4: planar 3R ----------------------------------------------------------
def test_planar3r_passing_near_the_folded_singularity():
    """(x, y, phi) task; the wrist passes 5 mm from the base axis (q2 close to pi)."""
    robot = planar3r(l3=0.5)
    yw, v = 0.005, 0.8

    def path(t):
        T = np.eye(4)
        T[:2, 3] = -0.4 + v * t + 0.5, yw
        return T, np.array([v, 0, 0, 0, 0, 0])
    c2 = (0.4**2 + yw**2 - 2) / 2
    q2 = np.arccos(c2)
    q1 = np.arctan2(yw, -0.4) - np.arctan2(np.sin(q2), 1 + np.cos(q2))
    q0 = np.array([q1, q2, -q1 - q2])
    t = np.linspace(0, 1, 401)
    rows = (0, 1, 5)
    pinv_run = resolved_rate(robot, q0, path, t, PseudoInverse(), tool="tip", rows=rows, gain=20)
    eps = 0.1
    dls_run = resolved_rate(robot, q0, path, t, DampedLeastSquares("singular_value", eps=eps),
                            tool="tip", rows=rows, gain=20)
    wmin = manipulability(task_rows_jacobian(robot, pinv_run.q, tool="tip", rows=rows)).min()
    assert wmin < 0.02                                           # close to the singularity
    assert pinv_run.joint_speed.max() > 50                       # pinv: huge joint speeds
    bound = np.linalg.norm([v, 0, 0]) / eps + 20 * np.abs(dls_run.error).max(0).sum() / eps
    assert dls_run.joint_speed.max() < min(bound, 5)             # DLS: bounded
    assert dls_run.position_error.max() < 0.02                   # at the price of a small error
    assert dls_run.position_error[-1] < 1e-3                     # recovered after the passage


def test_planar3r_redundant_manipulability_and_joint_limits():
    """(x, y) task: the null space keeps the arm away from (avoidable) singularities / limits."""
    robot = planar3r(qmin=[-2.5] * 3, qmax=[2.5] * 3)
    q0 = np.array([0.3, 0.05, 2.9])  # near an avoidable singularity: w small
    p0 = dgm(robot, q0, tool="tip")[:2, 3]
    vel = np.array([-0.3, 0.3])

    def path(t):
        return np.r_[p0 + vel * t, 0], vel
    t = np.linspace(0, 1, 201)
    rows = (0, 1)
    man = ManipulabilityCriterion(robot, tool="tip", rows=rows)
    plain = resolved_rate(robot, q0, path, t, tool="tip", rows=rows, gain=20)
    opt = resolved_rate(robot, q0, path, t, NullSpaceOptimization(man, 3.0), tool="tip",
                        rows=rows, gain=20)
    w_plain, w_opt = man.value(plain.q), man.value(opt.q)
    assert w_opt[-1] > 3 * w_plain[-1] and np.all(w_opt[1:] > w_plain[1:])
    assert opt.position_error.max() < 2e-3
    crit = JointLimitCriterion.from_robot(robot)
    q1 = np.array([1.0, 1.5, 2.3])
    p1 = dgm(robot, q1, tool="tip")[:2, 3]
    hold = resolved_rate(robot, q1, lambda t: (np.r_[p1, 0], np.zeros(2)), t,
                         NullSpaceOptimization(crit, -5.0), tool="tip", rows=rows, gain=20)
    phi = crit.value(hold.q)
    assert phi[-1] < 0.8 * phi[0] and np.all(np.diff(phi) < 0)  # self-motion only
    assert hold.position_error.max() < 1e-4


def test_weighted_solver_and_bad_input():
    robot = planar3r()
    E = np.diag([10.0, 1.0, 1.0])
    q0 = np.array([0.3, 1.0, 0.6])
    p0 = dgm(robot, q0, tool="tip")[:2, 3]
    t = np.linspace(0, 0.5, 51)
    res = resolved_rate(robot, q0, lambda s: (np.r_[p0 + [0.2 * s, 0], 0], np.array([0.2, 0])),
                        t, WeightedPseudoInverse(E), tool="tip", rows=(0, 1), gain=10)
    plain = resolved_rate(robot, q0, lambda s: (np.r_[p0 + [0.2 * s, 0], 0],
                                                np.array([0.2, 0])), t, tool="tip",
                          rows=(0, 1), gain=10)
    assert np.abs(res.qd[:, 0]).max() < np.abs(plain.qd[:, 0]).max()  # joint 1 is expensive
    assert res.position_error.max() < 1e-3
    with pytest.raises(robmod.RobmodError):
        resolved_rate(robot, q0, lambda s: (np.zeros(2), np.zeros(2)), t, tool="tip")
    with pytest.raises(robmod.RobmodError):
        resolved_rate(robot, q0, lambda s: (np.zeros(3), np.zeros(5)), t, tool="tip")
    with pytest.raises(robmod.RobmodError):
        ikm_pinv(np.eye(3), np.zeros(2))
    J = task_rows_jacobian(robot, q0, tool="tip", rows=(0, 1))
    assert np.allclose(ikm_pinv(J, [1.0, 0.0]), np.linalg.pinv(J) @ [1.0, 0.0])
