"""Operational space model, dynamically consistent inverse, dynamic manipulability ellipsoid
(seed 003 §7.8-7.9) and dynamic scaling of trajectories (§7.7)."""
import numpy as np
import pytest

import robmod
from robmod.dynamics import ddm, idm
from robmod.dynamics.operational import (dynamic_manipulability_ellipsoid,
                                               operational_space)
from robmod.dynamics.time_scaling import scale_to_limits, _torque_split
from robmod.kinematics import acceleration, jacobian
from robmod.testing.random import random_robot, with_random_dynamics


def dyn(name, seed=0):
    rng = np.random.default_rng(seed)
    return with_random_dynamics(robmod.load_robot(name, numeric=True), rng, friction=False)


def test_non_redundant_operational_model_is_the_joint_model():
    """RX-90: J^T (B_A xdd + C_A xd + g_A) = IDM, with xdd = J qdd + Jdot qd."""
    robot = dyn("rx90")
    rng = np.random.default_rng(1)
    q, qd, qdd = rng.uniform(-1.5, 1.5, (3, 20, 6))
    q[:, 4] = rng.uniform(0.3, 1.2, 20)        # away from the wrist singularity
    q[:, 2] = rng.uniform(-1.2, 1.2, 20)       # and from the elbow one
    op = operational_space(robot, q, qd)
    xdd = acceleration(robot, q, qd, qdd)
    F = np.einsum("...ab,...b->...a", op.Lambda, xdd) + op.mu + op.p
    tau = idm(robot, q, qd, qdd, friction=False)
    assert np.abs(op.torques(F) - tau).max() < 1e-8 * (1 + np.abs(tau).max())
    assert np.allclose(op.Lambda, np.swapaxes(op.Lambda, -1, -2))
    assert np.all(np.linalg.eigvalsh(op.Lambda) > 0)
    assert np.abs(op.task_acceleration(F) - xdd).max() < 1e-7 * (1 + np.abs(xdd).max())


@pytest.mark.parametrize("rows", [None, (0, 1, 2)])
def test_redundant_robot_dynamic_consistency(rows):
    """Panda (7 axes) and a random 6-axis robot on a position task: J Jbar = I; torques in the
    null space give no task acceleration; the direct dynamics of J^T F + N G0 give the task
    acceleration the operational model predicts."""
    rng = np.random.default_rng(2)
    robots = [dyn("panda")]
    if rows is not None:
        robots.append(with_random_dynamics(random_robot(rng, 6), rng, friction=False))
    for robot in robots:
        n = robot.n_joints
        q, qd = rng.uniform(-1.2, 1.2, (2, 10, n))
        op = operational_space(robot, q, qd, rows=rows)
        m = op.J.shape[-2]
        assert np.allclose(op.J @ op.Jbar, np.eye(m), atol=1e-9)
        G0 = rng.normal(size=(10, n)) * 5
        null = op.torques(np.zeros((10, m)), G0)
        Binv_null = np.linalg.solve(op.B, null[..., None])[..., 0]
        assert np.abs(np.einsum("...mi,...i->...m", op.J, Binv_null)).max() < 1e-9 * (
            1 + np.abs(G0).max())
        F = rng.normal(size=(10, m)) * 10
        tau = op.torques(F, G0)
        qdd = ddm(robot, q, qd, tau, friction=False)
        xdd = acceleration(robot, q, qd, qdd)[..., list(range(6) if rows is None else rows)]
        pred = op.task_acceleration(F)
        assert np.abs(xdd - pred).max() < 1e-7 * (1 + np.abs(pred).max())


def test_dynamic_manipulability_ellipsoid():
    robot = dyn("rx90")
    q = np.array([0.2, -0.5, 0.7, 0.3, 0.9, -0.4])
    e = dynamic_manipulability_ellipsoid(robot, q)
    J = jacobian(robot, q)
    from robmod.dynamics import gravity_torques, inertia_matrix

    B, g = inertia_matrix(robot, q), gravity_torques(robot, q)
    assert np.allclose(e.centre, -J @ np.linalg.solve(B, g))
    for k in range(6):  # points on the ellipsoid need unit torques (7.149)
        xdd = e.centre + e.axes[:, k] * e.lengths[k]
        assert np.isclose(e.level(xdd), 1.0)
        tau = B @ np.linalg.solve(J, xdd) + g
        assert np.isclose(np.linalg.norm(tau), 1.0)
    # without gravity the ellipsoid is centred; its semi-axes are the singular values of J B^-1
    e0 = dynamic_manipulability_ellipsoid(robot, q, gravity=False)
    assert np.allclose(e0.centre, 0)
    s = np.linalg.svd(J @ np.linalg.inv(B), compute_uv=False)
    assert np.allclose(np.sort(e0.lengths), np.sort(s))
    with pytest.raises(robmod.RobmodError, match="singular"):
        dynamic_manipulability_ellipsoid(robot, np.zeros(6))   # q5 = 0: wrist singular


def trajectory(n, tf=1.0, N=201):
    t = np.linspace(0, tf, N)
    s = 10 * (t / tf)**3 - 15 * (t / tf)**4 + 6 * (t / tf)**5
    sd = (30 * (t / tf)**2 - 60 * (t / tf)**3 + 30 * (t / tf)**4) / tf
    sdd = (60 * (t / tf) - 180 * (t / tf)**2 + 120 * (t / tf)**3) / tf**2
    q0, q1 = np.zeros(n), np.linspace(1.5, -1.0, n)
    d = q1 - q0
    return t, q0 + s[:, None] * d, sd[:, None] * d, sdd[:, None] * d


def test_dynamic_scaling_uniform():
    robot = dyn("rx90", 3)
    t, q, qd, qdd = trajectory(6, tf=0.4)
    tau_s, g = _torque_split(robot, q, qd, qdd)
    tau = tau_s + g
    limit = 0.6 * np.abs(tau).max(axis=0) + 0.4 * np.abs(g).max(axis=0)
    res = scale_to_limits(robot, t, q, qd, qdd, limit)
    assert res.c > 1 and res.joint is not None
    # (7.126) with r = c t: the IDM of the slowed trajectory equals tau_s / c^2 + g
    assert np.abs(idm(robot, res.q, res.qd, res.qdd, friction=False) - res.tau).max() < 1e-9
    ratio = np.abs(res.tau) / limit
    assert ratio.max() <= 1 + 1e-12 and np.isclose(ratio[res.sample, res.joint - 1], 1.0)
    assert np.isclose(res.t[-1], res.c * t[-1])
    # feasible already: c = 1
    easy = scale_to_limits(robot, t, q, qd, qdd, 10 * np.abs(tau).max(axis=0))
    assert easy.c == 1.0 and easy.joint is None
    # gravity alone over the limit: no scaling helps
    with pytest.raises(robmod.RobmodError, match="gravity alone"):
        scale_to_limits(robot, t, q, qd, qdd, 0.5 * np.abs(g).max(axis=0) + 1e-9)


def test_yoshikawa_and_siciliano_dynamic_ellipsoids_agree_for_a_square_jacobian():
    """With all 6 rows of the RX-90's J (square, regular), Yoshikawa's ellipsoid (J B^-1)
    and (7.148) without gravity have the same semi-axes."""
    import robmod
    from robmod.dynamics import dynamic_ellipsoid, dynamic_manipulability_ellipsoid
    from robmod.testing.random import with_random_dynamics

    r = with_random_dynamics(robmod.load_robot("rx90", numeric=True), np.random.default_rng(0))
    q = np.random.default_rng(1).uniform(-1, 1, 6)
    a = dynamic_ellipsoid(r, q, rows=tuple(range(6)))
    b = dynamic_manipulability_ellipsoid(r, q, gravity=False)
    assert np.allclose(np.sort(a.lengths), np.sort(b.lengths), rtol=1e-10)
