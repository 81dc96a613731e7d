"""Dynamic scaling of trajectories, seed 003 §7.7 (7.117)-(7.126), friction off.

The book's relation is checked numerically for a general timing law r(t) (with its rdd
term), and the uniform case r = c t of :func:`scale_to_limits` against the inverse dynamics
of the slowed trajectory evaluated on its own time grid.  (Complements
tests/test_operational_space.py::test_dynamic_scaling_uniform.)
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robmod
from robmod.dynamics import (gravity_torques, idm, inertia_matrix, quadratic_velocity_matrix,
                             scale_to_limits, scaled_torques)
from robmod.dynamics.lagrange import _velocity_products
from robmod.dynamics.time_scaling import _torque_split
from robmod.testing.random import random_robot, with_random_dynamics


def dyn(name, seed=0):
    rng = np.random.default_rng(seed)
    return with_random_dynamics(robmod.load_robot(name, numeric=True), rng, friction=False)


def mv(A, x):
    return np.einsum("...ab,...b->...a", A, x)


def tau_s(robot, q, qd, qdd):
    """(7.123): the velocity- and acceleration-dependent torques, friction off."""
    return idm(robot, q, qd, qdd, friction=False) - gravity_torques(robot, q)


def cubic_path(n, rng):
    """qbar(r) = a + b r + c r^2 + d r^3 and its first two r-derivatives."""
    a, b, c, d = rng.uniform(-1, 1, (4, n))

    def path(r):
        r = np.asarray(r, dtype=float)[..., None]
        return (a + b * r + c * r**2 + d * r**3, b + 2 * c * r + 3 * d * r**2, 2 * c + 6 * d * r)
    return path


@pytest.mark.parametrize("robot", [dyn("rx90", 1),
                                   with_random_dynamics(random_robot(np.random.default_rng(2), 5),
                                                        np.random.default_rng(3))],
                         ids=["rx90", "random5"])
def test_book_relation_for_a_general_timing_law(robot):
    """q(t) = qbar(r(t)), r strictly increasing: (7.120)-(7.121) give qd, qdd; then
    tau_s(t) = rd^2 taubar_s(r) + rdd B(qbar) qbar' (7.126), gravity unchanged; (7.117)
    C qd = Gamma [qd qd] and (7.123) tau_s = B qdd + Gamma [qd qd]."""
    rng = np.random.default_rng(4)
    n = robot.n_joints
    path = cubic_path(n, rng)
    t = np.linspace(0.0, 1.5, 31)
    r, rd, rdd = 1.3 * t + 0.2 * np.sin(2 * t), 1.3 + 0.4 * np.cos(2 * t), -0.8 * np.sin(2 * t)
    qb, qb1, qb2 = path(r)
    q, qd, qdd = qb, rd[:, None] * qb1, rd[:, None] ** 2 * qb2 + rdd[:, None] * qb1
    lhs = tau_s(robot, q, qd, qdd)
    rhs = rd[:, None] ** 2 * tau_s(robot, qb, qb1, qb2) + rdd[:, None] * mv(
        inertia_matrix(robot, qb), qb1)
    assert np.abs(lhs - rhs).max() < 1e-10 * (1 + np.abs(lhs).max())
    Gamma = quadratic_velocity_matrix(robot, q)
    assert Gamma.shape == (31, n, n * (n + 1) // 2)
    quad = mv(Gamma, _velocity_products(qd))
    assert np.abs(lhs - mv(inertia_matrix(robot, q), qdd) - quad).max() < 1e-10 * (
        1 + np.abs(lhs).max())
    # uniform law r = c t: tau_s(t) = c^2 taubar_s(c t), no rdd term
    c = 0.7
    qb, qb1, qb2 = path(c * t)
    assert np.allclose(tau_s(robot, qb, c * qb1, c**2 * qb2), c**2 * tau_s(robot, qb, qb1, qb2),
                       rtol=1e-11, atol=1e-11)


def quintic(n, tf, rng):
    """Rest-to-rest quintic q(t) on [0, tf] and its derivatives (callable)."""
    q0, q1 = rng.uniform(-1.2, 1.2, (2, n))

    def traj(t):
        s = np.asarray(t, dtype=float)[..., None] / tf
        p = 10 * s**3 - 15 * s**4 + 6 * s**5
        v = (30 * s**2 - 60 * s**3 + 30 * s**4) / tf
        a = (60 * s - 180 * s**2 + 120 * s**3) / tf**2
        return q0 + p * (q1 - q0), v * (q1 - q0), a * (q1 - q0)
    return traj


def test_uniform_scaling_on_a_new_time_grid():
    """scale_to_limits on the RX-90: the slowed trajectory qbar(tbar) = q(tbar / c), sampled
    on a fresh grid of [0, c tf], needs exactly tau_s(tbar / c) / c^2 + g (1e-9); the binding
    joint is exactly at its limit, the others below; c is minimal (slightly less violates)."""
    robot = dyn("rx90", 3)
    rng = np.random.default_rng(6)
    tf = 0.5
    traj = quintic(6, tf, rng)
    t = np.linspace(0, tf, 401)
    q, qd, qdd = traj(t)
    ts, g = _torque_split(robot, q, qd, qdd)
    limit = np.abs(g).max(axis=0) + 0.3 * np.abs(ts).max(axis=0)
    res = scale_to_limits(robot, t, q, qd, qdd, limit)
    c = res.c
    assert c > 1.2 and res.joint in range(1, 7)
    tbar = np.linspace(0, c * tf, 157)
    qn, qdn, qddn = traj(tbar / c)
    qdn, qddn = qdn / c, qddn / c**2
    ts_orig, g_orig = _torque_split(robot, *traj(tbar / c))
    expected = scaled_torques(ts_orig, g_orig, c)
    got = idm(robot, qn, qdn, qddn, friction=False)
    assert np.abs(got - expected).max() < 1e-9 * (1 + np.abs(got).max())
    ratio = np.abs(res.tau) / limit
    assert np.isclose(ratio[res.sample, res.joint - 1], 1.0, rtol=1e-12)
    assert ratio.max() <= 1 + 1e-12
    assert np.isclose(res.t[-1], c * tf) and np.allclose(res.q, q)
    slightly_faster = np.abs(scaled_torques(ts, g, c * (1 - 1e-6))) / limit
    assert slightly_faster.max() > 1


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 6), margin=st.sampled_from([0.0, 0.1]))
def test_scaling_properties_random_robots(seed, n, margin):
    """Random robots and limits: after scaling every |tau_i| <= (1 - margin) tau_max_i, with
    equality at the reported (sample, joint) when a slow-down was needed (c > 1)."""
    rng = np.random.default_rng(seed)
    robot = with_random_dynamics(random_robot(rng, n), rng)
    t = np.linspace(0, 0.6, 61)
    q, qd, qdd = quintic(n, 0.6, rng)(t)
    ts, g = _torque_split(robot, q, qd, qdd)
    limit = (np.abs(g).max(axis=0) + rng.uniform(0.05, 1.5, n) * np.abs(ts).max(axis=0) + 1e-3)
    limit = limit / (1 - margin)
    res = scale_to_limits(robot, t, q, qd, qdd, limit, margin=margin)
    ratio = np.abs(res.tau) / ((1 - margin) * limit)
    assert ratio.max() <= 1 + 1e-9
    assert np.abs(idm(robot, res.q, res.qd, res.qdd, friction=False) - res.tau).max() < 1e-9 * (
        1 + np.abs(res.tau).max())
    if res.c > 1:
        assert np.isclose(ratio[res.sample, res.joint - 1], 1.0, rtol=1e-10)
    else:
        assert res.joint is None and np.allclose(res.tau, ts + g)


def test_scalar_limit_and_gravity_alone():
    robot = dyn("rx90", 5)
    rng = np.random.default_rng(9)
    t = np.linspace(0, 0.4, 81)
    q, qd, qdd = quintic(6, 0.4, rng)(t)
    ts, g = _torque_split(robot, q, qd, qdd)
    big = float(np.abs(g).max() + 0.2 * np.abs(ts).max())
    res = scale_to_limits(robot, t, q, qd, qdd, big)            # one limit for every joint
    assert np.isclose(np.abs(res.tau).max(), big, rtol=1e-12)
    # a limit below the static (gravity) torque of joint 2: no timing law can help
    lim = np.full(6, 1e6)
    lim[1] = 0.9 * np.abs(g[:, 1]).max()
    msg = "gravity alone exceeds the torque limit of joint 2"
    with pytest.raises(robmod.RobmodError, match=msg):
        scale_to_limits(robot, t, q, qd, qdd, lim)
    with pytest.raises(robmod.RobmodError, match="positive"):
        scale_to_limits(robot, t, q, qd, qdd, np.zeros(6))


def test_gravity_exactly_at_the_limit():
    """|g| = tau_max with the motion torques pushing outward: infeasible for every c."""
    robot = dyn("rx90", 5)
    t = np.linspace(0, 1, 11)
    q, qd, qdd = np.outer(t, np.ones(6)), np.zeros((11, 6)), np.zeros((11, 6))
    g = gravity_torques(robot, q)
    k = int(np.argmax(np.abs(g[:, 1])))
    qdd[:, 1] = 10 * np.sign(g[k, 1])
    ts, g = _torque_split(robot, q, qd, qdd)
    assert ts[k, 1] * g[k, 1] > 0                        # the motion adds to gravity there
    lim = np.abs(g).max(axis=0) + 1.0
    lim[1] = abs(g[k, 1])
    with pytest.raises(robmod.RobmodError, match="joint 2"):
        scale_to_limits(robot, t, q, qd, qdd, lim)
