"""Jerk-limited minimum-time profiles (double S): closed forms, limits, Ruckig as the oracle."""
import numpy as np
import pytest

import robmod
from robmod.errors import RobmodError
from robmod.trajectory import (JerkLimited, double_s, jerk_limited, minimum_time_jerk,
                               point_to_point)

# -- closed forms (Biagiotti & Melchiorri 2008, §3.4) -----------------------------------------

A_ONLY = 0.05 + np.sqrt(0.0025 + 0.5)      # a reached, v not: T_a = T_j/2 + sqrt(T_j^2/4 + D/a)


@pytest.mark.parametrize("D, v, a, j, Tj, Ta, Tv, T, vp, ap", [
    # every limit reached: T = D/v + v/a + a/j
    (10.0, 1.0, 2.0, 4.0, 0.5, 1.0, 9.0, 11.0, 1.0, 2.0),
    # short distance, the jerk limit alone: T = 4 (D/(2J))^(1/3)
    (0.016, 1.0, 2.0, 1.0, 0.2, 0.4, 0.0, 0.8, 0.04, 0.2),
    # acceleration reached, velocity not
    (0.5, 1.0, 1.0, 10.0, 0.1, A_ONLY, 0.0, 2 * A_ONLY, A_ONLY - 0.1, 1.0),
    # velocity reached, acceleration not (v j < a^2): T_j = sqrt(v/j)
    (5.0, 1.0, 10.0, 1.0, 1.0, 2.0, 3.0, 7.0, 1.0, 1.0),
    # exactly on the boundary D = 2 a^3 / j^2 (a just reached, no cruise)
    (2.0, 10.0, 1.0, 1.0, 1.0, 2.0, 0.0, 4.0, 1.0, 1.0),
])
def test_double_s_closed_forms(D, v, a, j, Tj, Ta, Tv, T, vp, ap):
    p = double_s(D, v, a, j)
    np.testing.assert_allclose([p.Tj, p.Ta, p.Tv, p.T, p.v_peak, p.a_peak],
                               [Tj, Ta, Tv, T, vp, ap], rtol=1e-12, atol=1e-15)
    assert minimum_time_jerk([-D], v, a, j)[0] == pytest.approx(T, rel=1e-12)
    traj = point_to_point([0.3], [0.3 - D], "jerk-limited", qd_max=v, qdd_max=a, qddd_max=j)
    assert traj.duration == pytest.approx(T, rel=1e-12)
    x = traj.sample(np.linspace(0, T, 200001))
    # the peaks are reached (to the sampling step) and never exceeded
    assert np.abs(x.qd).max() == pytest.approx(vp, rel=1e-9)
    assert np.abs(x.qdd).max() == pytest.approx(ap, rel=1e-4)
    assert np.abs(x.qddd).max() == pytest.approx(j, rel=1e-12)
    names, times = zip(*traj.phases)
    assert names[-1] == "end" and times[-1] == traj.duration
    np.testing.assert_allclose(times[:4], [0, Tj, Ta - Tj, Ta], atol=1e-12)


def test_jerk_only_case_formula():
    D, J = np.array([1e-4, 2e-3, 0.05]), 7.0
    np.testing.assert_allclose(minimum_time_jerk(D, 100.0, 100.0, J), 4 * np.cbrt(D / (2 * J)),
                               rtol=1e-12)


# -- the trajectory object --------------------------------------------------------------------

def check_profile(traj, kv, ka, kj, n=100001):
    T = traj.duration
    s = traj.sample([0.0, T])
    np.testing.assert_array_equal(s.q[0], traj.q0)          # exact boundary values
    np.testing.assert_array_equal(s.q[1], traj.q1)
    np.testing.assert_array_equal(s.qd, 0.0)
    np.testing.assert_array_equal(s.qdd, 0.0)
    t = np.linspace(0, T, n)
    x = traj.sample(t)
    for val, lim in ((x.qd, kv), (x.qdd, ka), (x.qddd, kj)):
        assert np.all(np.abs(val) <= np.asarray(lim) * (1 + 1e-9))
    # all joints on the straight line q0 + r D
    D = traj.q1 - traj.q0
    r = (x.q - traj.q0) @ D / (D @ D)
    np.testing.assert_allclose(x.q, traj.q0 + r[:, None] * D, atol=1e-12 * (1 + np.abs(D).max()))
    assert np.all(np.diff(r) >= -1e-15)
    # q, qd, qdd, jerk consistent (finite differences away from the switching times)
    h = t[1] - t[0]
    inner = np.ones(n, bool)
    for _, tt in traj.phases:
        inner &= np.abs(t - tt) > 3 * h
    inner[[0, -1]] = False
    for lo, hi, scale in ((x.q, x.qd, kv), (x.qd, x.qdd, ka), (x.qdd, x.qddd, kj)):
        fd = np.gradient(lo, h, axis=0)
        assert np.abs(fd - hi)[inner].max() <= 1e-6 * np.max(scale)


def test_synchronised_profile_meets_every_limit():
    kv, ka, kj = np.array([1.0, 2.0, 0.5, 1.5]), np.array([3.0, 1.0, 2.0, 4.0]), \
        np.array([10.0, 5.0, 30.0, 8.0])
    q0, q1 = np.array([0.1, -0.2, 0.3, 0.0]), np.array([1.2, 0.4, -0.5, 0.0])
    traj = point_to_point(q0, q1, "jerk-limited", qd_max=kv, qdd_max=ka, qddd_max=kj)
    assert isinstance(traj, JerkLimited)
    check_profile(traj, kv, ka, kj)
    # common limits of r: min_j k/|D_j| (joint 4 does not move)
    D = np.abs(q1 - q0)[:3]
    p = double_s(1.0, np.min(kv[:3] / D), np.min(ka[:3] / D), np.min(kj[:3] / D))
    assert traj.duration == pytest.approx(float(p.T), rel=1e-12)
    assert traj.duration >= traj.joint_times.max() * (1 - 1e-12)
    # the binding joint of each limit reaches it
    x = traj.sample(np.linspace(0, traj.duration, 200001))
    for val, lim in ((x.qd, kv), (x.qdd, ka), (x.qddd, kj)):
        ratio = np.abs(val).max(0)[:3] / lim[:3]
        assert ratio.max() <= 1 + 1e-9
    assert (np.abs(x.qddd).max(0)[:3] / kj[:3]).max() == pytest.approx(1.0, rel=1e-12)
    slower = jerk_limited(q0, q1, qd_max=kv, qdd_max=ka, qddd_max=kj,
                          duration=1.7 * traj.duration)
    check_profile(slower, kv / 1.7, ka / 1.7 ** 2, kj / 1.7 ** 3)


def test_identical_limits_take_the_slowest_joint_time():
    D = np.array([0.3, -1.2, 0.7])
    traj = jerk_limited(np.zeros(3), D, qd_max=1.0, qdd_max=2.0, qddd_max=10.0)
    assert traj.duration == pytest.approx(traj.joint_times.max(), rel=1e-12)
    assert traj.joint_times.max() == pytest.approx(float(double_s(1.2, 1.0, 2.0, 10.0).T))


def test_no_motion_and_robot_limits():
    still = jerk_limited([0.5, 0.5], [0.5, 0.5], qd_max=1.0, qdd_max=1.0, qddd_max=1.0)
    assert still.duration == 0.0
    s = still.sample([0.0, 1.0])
    np.testing.assert_array_equal(s.q, 0.5)
    np.testing.assert_array_equal(s.qd, 0.0)
    panda = robmod.load_robot("panda")
    traj = point_to_point(np.zeros(7), np.full(7, 0.5), "jerk-limited", robot=panda,
                          qddd_max=100.0)
    kv = np.array([float(panda.link(j).limits.qdmax) for j in range(1, 8)])
    ka = np.array([float(panda.link(j).limits.qddmax) for j in range(1, 8)])
    check_profile(traj, kv, ka, np.full(7, 100.0), n=20001)


@pytest.mark.parametrize("kw, match", [
    (dict(qd_max=-1.0, qdd_max=1.0, qddd_max=1.0), "qd_max must be positive"),
    (dict(qd_max=1.0, qdd_max=np.nan, qddd_max=1.0), "qdd_max must be positive"),
    (dict(qd_max=1.0, qdd_max=1.0, qddd_max=0.0), "qddd_max must be positive"),
    (dict(qd_max=1.0, qdd_max=1.0, qddd_max=[1.0, 2.0, 3.0]), "qddd_max: expected"),
    (dict(qd_max=1.0, qdd_max=1.0), "needs qd_max, qdd_max"),
    (dict(qd_max=1.0, qdd_max=1.0, qddd_max=1.0, duration=0.5), "shorter than the minimum"),
    (dict(qd_max=1.0, qdd_max=1.0, qddd_max=1.0, duration=np.nan), "duration"),
])
def test_bad_input(kw, match):
    with pytest.raises(RobmodError, match=match):
        point_to_point([0.0, 0.0], [1.0, 1.0], "jerk-limited", **kw)


def test_bad_vectors():
    with pytest.raises(RobmodError, match="q1"):
        jerk_limited([0.0, 0.0], [1.0], qd_max=1, qdd_max=1, qddd_max=1)
    with pytest.raises(RobmodError, match="q0"):
        jerk_limited([0.0, np.inf], [1.0, 1.0], qd_max=1, qdd_max=1, qddd_max=1)
    with pytest.raises(RobmodError, match="qddd_max"):
        point_to_point([0.0], [1.0], "trapezoidal", qd_max=1, qdd_max=1, qddd_max=1)
    with pytest.raises(RobmodError, match="D"):
        minimum_time_jerk([[1.0]], 1, 1, 1)


# -- Ruckig as the oracle (Berscheid & Kröger 2021) -------------------------------------------

def log_uniform(rng, lo, hi, size):
    return 10 ** rng.uniform(np.log10(lo), np.log10(hi), size)


def ruckig_trajectory(D, v, a, j, phase=False):
    ruckig = pytest.importorskip("ruckig")
    n = len(D)
    inp = ruckig.InputParameter(n)
    inp.current_position, inp.target_position = [0.0] * n, list(map(float, D))
    inp.current_velocity = inp.current_acceleration = [0.0] * n
    inp.target_velocity = inp.target_acceleration = [0.0] * n
    inp.max_velocity, inp.max_acceleration, inp.max_jerk = list(v), list(a), list(j)
    if phase:
        inp.synchronization = ruckig.Synchronization.Phase
    traj = ruckig.Trajectory(n)
    assert ruckig.Ruckig(n).calculate(inp, traj) == ruckig.Result.Working
    return traj


def test_one_joint_minimum_time_agrees_with_ruckig():
    rng = np.random.default_rng(20240601)
    N = 1000
    D = log_uniform(rng, 1e-3, 1e2, N) * rng.choice([-1, 1], N)
    v, a, j = log_uniform(rng, 1e-2, 1e1, N), log_uniform(rng, 1e-2, 1e2, N), \
        log_uniform(rng, 1e-1, 1e3, N)
    ours = minimum_time_jerk(D, v, a, j)
    theirs = np.array([ruckig_trajectory([D[i]], [v[i]], [a[i]], [j[i]]).duration
                       for i in range(N)])
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)   # observed: below 1e-15
    # all four cases of the closed form occur in the sample
    p = double_s(D, v, a, j)
    cruise, a_reached = p.Tv > 0, p.a_peak >= a * (1 - 1e-12)
    assert min(np.sum(cruise & a_reached), np.sum(cruise & ~a_reached),
               np.sum(~cruise & a_reached), np.sum(~cruise & ~a_reached)) >= 50
    # the profiles themselves coincide (the time-optimal one is unique)
    for i in range(0, N, 40):
        traj = jerk_limited([0.0], [D[i]], qd_max=v[i], qdd_max=a[i], qddd_max=j[i])
        rk = ruckig_trajectory([D[i]], [v[i]], [a[i]], [j[i]])
        ts = np.linspace(0, traj.duration, 23)[1:-1]
        ours_x = traj.sample(ts)
        theirs_x = np.array([[x[0] for x in rk.at_time(float(t))] for t in ts])
        for k, (val, scale) in enumerate(((ours_x.q, abs(D[i])), (ours_x.qd, v[i]),
                                          (ours_x.qdd, a[i]))):
            np.testing.assert_allclose(val[:, 0], theirs_x[:, k], atol=1e-7 * scale)


def test_synchronised_duration_against_ruckig():
    """Ruckig synchronises each joint's own profile in time (off the straight line); ours is the
    fastest straight line.  Over 200 random 7-joint motions ours is never faster than Ruckig's
    minimum; it is equal in 72 of them (exactly those where Ruckig's phase synchronisation finds
    a straight line), slower by 0.68 % (median), 9.3 % (90th percentile), 28 % (worst case)."""
    rng = np.random.default_rng(7)
    slower, straight = [], 0
    for _ in range(200):
        D = log_uniform(rng, 1e-2, 3, 7) * rng.choice([-1, 1], 7)
        v, a, j = log_uniform(rng, 0.5, 5, 7), log_uniform(rng, 1, 50, 7), \
            log_uniform(rng, 10, 5000, 7)
        ours = jerk_limited(np.zeros(7), D, qd_max=v, qdd_max=a, qddd_max=j)
        rk = ruckig_trajectory(D, v, a, j)
        assert ours.duration >= rk.duration * (1 - 1e-6)
        slower.append(ours.duration / rk.duration - 1)
        # Ruckig's phase synchronisation: where it gives a straight line, it is ours
        ph = ruckig_trajectory(D, v, a, j, phase=True)
        P = np.array([ph.at_time(float(t))[0] for t in np.linspace(0, ph.duration, 9)])
        if np.abs(P - np.outer(P @ D / (D @ D), D)).max() < 1e-9:
            straight += 1
            assert ours.duration == pytest.approx(ph.duration, rel=1e-6)
    slower = np.array(slower)
    assert straight == np.sum(slower < 1e-9) == 72
    assert np.median(slower) == pytest.approx(0.0068, abs=5e-4)
    assert slower.max() == pytest.approx(0.281, abs=1e-3)


def test_continuous_acceleration_law_is_slower_or_equal():
    """The continuous-acceleration law (Khalil & Dombre §8.3.4) with k_v, k_a has the peak jerk
    8 k_a^2 / (3 k'_v) ((8.41): 6 k'_v / tau^2).  Under the same three limits the double S is
    never slower: the continuous-acceleration law is 1 to 5.15 % slower (the short moves, no
    cruise: 3 / 2.853; the long ones: by k_v / (8 k_a) s)."""
    rng = np.random.default_rng(3)
    ratio = []
    for _ in range(200):
        D, v, a = 10 ** rng.uniform(-3, 2), 10 ** rng.uniform(-1, 1), 10 ** rng.uniform(-1, 2)
        ca = point_to_point([0.0], [D], "continuous-acceleration", qd_max=v, qdd_max=a)
        J = np.abs(ca.sample(np.linspace(0, ca.duration, 2001)).qddd).max()
        kv = v if D > 1.5 * v * v / a else np.sqrt(2 / 3 * D * a)
        assert J == pytest.approx(8 * a * a / (3 * kv), rel=1e-9)
        jl = jerk_limited([0.0], [D], qd_max=v, qdd_max=a, qddd_max=J)
        ratio.append(ca.duration / jl.duration)
        if D > 1.5 * v * v / a:
            assert ca.duration - jl.duration == pytest.approx(v / (8 * a), rel=1e-9)
    ratio = np.array(ratio)
    short = 3 / (3 / 8 + np.sqrt(9 / 64 + 6))          # 3 u / (2 T_a), u = k'_v / k_a
    assert ratio.min() >= 1.0
    assert ratio.max() == pytest.approx(short, rel=1e-12) and short == pytest.approx(1.0515, 1e-4)
    assert 1.02 < np.median(ratio) < 1.05


def test_random_synchronised_motions_respect_every_limit():
    rng = np.random.default_rng(11)
    for _ in range(60):
        n = int(rng.integers(1, 8))
        q0 = rng.uniform(-2, 2, n)
        q1 = q0 + log_uniform(rng, 1e-4, 1e1, n) * rng.choice([-1, 1], n)
        still = rng.random(n) < 0.1                  # a joint may not move
        q1[still] = q0[still]
        kv, ka, kj = log_uniform(rng, 1e-2, 1e1, n), log_uniform(rng, 1e-2, 1e2, n), \
            log_uniform(rng, 1e-1, 1e3, n)
        traj = jerk_limited(q0, q1, qd_max=kv, qdd_max=ka, qddd_max=kj)
        x = traj.sample(np.linspace(0, traj.duration, 4001))
        for val, lim in ((x.qd, kv), (x.qdd, ka), (x.qddd, kj)):
            assert np.all(np.abs(val) <= lim * (1 + 1e-9))
        np.testing.assert_array_equal(x.q[[0, -1]], [q0, q1])
        assert traj.duration >= traj.joint_times.max() * (1 - 1e-12)
        # the common profile reaches each of its limits, or is the shorter double S
        p = traj.profile
        assert p.T == pytest.approx(2 * p.Ta + p.Tv, rel=1e-14) and p.Tv >= 0
        assert 0 < 2 * p.Tj <= p.Ta * (1 + 1e-12) or (traj.duration == 0 and np.all(q0 == q1))
