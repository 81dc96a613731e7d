"""Trajectory generation (Khalil & Dombre ch. 8): reference values, limits, identities."""
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import robmod
from robmod.errors import RobmodError
from robmod.trajectory import (LAWS, minimum_time, point_to_point, synchronise, trapezoidal,
                               via_points)

# -- reference values ------------------------------------------------------------------------


@pytest.mark.parametrize("law, tf", [("linear", 1.0), ("cubic", np.sqrt(3)), ("quintic", 1.875),
                                     ("bang-bang", 2.0), ("trapezoidal", 1.5),
                                     ("continuous-acceleration", 1.75)])
def test_one_joint_minimum_times(law, tf):
    """D = 1 rad, k_v = 1 rad/s, k_a = 2 rad/s^2 (Table 8.1, (8.22), (8.45))."""
    assert minimum_time(law, [1.0], [1.0], [2.0])[0] == pytest.approx(tf, rel=1e-12)
    traj = point_to_point([0.0], [1.0], law, qd_max=1.0, qdd_max=2.0)
    assert traj.duration == pytest.approx(tf, rel=1e-12)


def test_continuous_acceleration_one_joint_tau():
    traj = point_to_point([0.0], [1.0], "continuous-acceleration", qd_max=1.0, qdd_max=2.0)
    assert traj.tau == pytest.approx(0.75)


@pytest.mark.parametrize("law, D, kv, ka, tau, tf, lam, nu", [
    ("trapezoidal", (1, -0.5, 2), (1, 2, 1.5), (2, 4, 1), np.sqrt(2), 2 * np.sqrt(2),
     (0.707107, 0.25, 1), (0.25, 0.0625, 1)),
    ("continuous-acceleration", (1, -0.5, 2), (1, 2, 1.5), (2, 4, 1), np.sqrt(3),
     2 * np.sqrt(3), (0.57735, 0.25, 1), (0.25, 0.0625, 1)),
    ("trapezoidal", (1, 1), (1, 0.8), (1, 4), 0.8, 2.05, (0.8, 1), (1, 0.25)),
    ("trapezoidal", (1, -0.5, 2), (1, 0.3, 1.5), (2, 4, 1.5), 0.8, 2.466667, (0.6, 1, 0.8),
     (0.375, 0.09375, 1)),
])
def test_synchronisation_reference_values(law, D, kv, ka, tau, tf, lam, nu):
    s = synchronise(law, D, kv, ka)
    assert s.tau == pytest.approx(tau, abs=1e-6) and s.duration == pytest.approx(tf, abs=1e-6)
    np.testing.assert_allclose(s.lam, lam, atol=1e-6)
    np.testing.assert_allclose(s.nu, nu, atol=1e-6)
    traj = point_to_point(np.zeros(len(D)), D, law, qd_max=kv, qdd_max=ka)
    t = np.linspace(0, traj.duration, 40001)
    x = traj.sample(t)
    # peak velocity lambda_j k'_vj and acceleration nu_j k_aj reached, never exceeded
    np.testing.assert_allclose(np.abs(x.qd).max(0), s.lam * s.kv, rtol=1e-6)
    assert np.all(np.abs(x.qd).max(0) <= np.asarray(kv) * (1 + 1e-9))
    assert np.all(np.abs(x.qdd).max(0) <= np.asarray(ka) * (1 + 1e-9))


def test_case_e_synchronised_is_slower_than_the_slowest_joint():
    single = minimum_time("trapezoidal", [1, 1], [1, 0.8], [1, 4])
    np.testing.assert_allclose(single, [2.0, 1.45])
    assert trapezoidal([0, 0], [1, 1], qd_max=[1, 0.8], qdd_max=[1, 4]).duration == \
        pytest.approx(2.05)
    np.testing.assert_allclose(minimum_time("trapezoidal", [1, -0.5, 2], [1, 0.3, 1.5],
                                            [2, 4, 1.5]), [1.5, 1.741667, 2.333333], atol=1e-6)


# -- every law: boundary conditions, limits, derivatives -----------------------------------

def check_law(traj, kv=None, ka=None):
    T = traj.duration
    s0, s1 = traj.sample(0.0), traj.sample(T)
    np.testing.assert_allclose(s0.q, traj.q0, atol=1e-12)
    np.testing.assert_allclose(s1.q, traj.q1, atol=1e-12)
    if traj.law != "linear":
        np.testing.assert_allclose(s0.qd, 0, atol=1e-12)
        np.testing.assert_allclose(s1.qd, 0, atol=1e-12)
    t = np.linspace(0, T, 20001)
    x = traj.sample(t)
    if kv is not None:
        assert np.all(np.abs(x.qd) <= np.asarray(kv) * (1 + 1e-9) + 1e-12)
        if traj.law != "linear":
            assert np.all(np.abs(x.qdd) <= np.asarray(ka) * (1 + 1e-9) + 1e-12)
    h = t[1] - t[0]
    inner = np.ones(len(t), bool)
    for _, tt in traj.phases:        # velocity or acceleration jumps at the switching times
        inner &= np.abs(t - tt) > 3 * h
    fd = np.gradient(x.q, h, axis=0)
    assert np.abs(fd - x.qd)[inner].max() <= 1e-6 * max(1.0, np.abs(x.qd).max())
    if traj.law != "linear":
        fdd = np.gradient(x.qd, h, axis=0)
        assert np.abs(fdd - x.qdd)[inner].max() <= 1e-4 * max(1.0, np.abs(x.qdd).max())


@pytest.mark.parametrize("law", LAWS)
def test_laws_meet_their_conditions(law):
    kv, ka = np.array([1.0, 2.0, 0.5]), np.array([3.0, 1.0, 2.0])
    traj = point_to_point([0.1, -0.2, 0.3], [1.2, 0.4, -0.5], law, qd_max=kv, qdd_max=ka)
    check_law(traj, kv, ka)
    slower = point_to_point([0.1, -0.2, 0.3], [1.2, 0.4, -0.5], law, qd_max=kv, qdd_max=ka,
                            duration=1.5 * traj.duration)
    check_law(slower, kv, ka)


@settings(max_examples=40, deadline=None)
@example([1e-15], 1.0, 1.0, "trapezoidal")
@example([1e-15], 1.0, 1.0, "quintic")
@given(st.lists(st.floats(-3, 3), min_size=1, max_size=4),
       st.floats(0.1, 5), st.floats(0.1, 10), st.sampled_from(LAWS))
def test_random_motions_respect_limits(D, kv, ka, law):
    D = np.array(D)
    traj = point_to_point(np.zeros(D.size), D, law, qd_max=kv, qdd_max=ka)
    x = traj.sample(np.linspace(0, traj.duration, 4001))
    assert np.all(np.abs(x.qd) <= kv * (1 + 1e-9) + 1e-12)
    if law != "linear":
        assert np.all(np.abs(x.qdd) <= ka * (1 + 1e-9) + 1e-12)
    np.testing.assert_allclose(x.q[-1], D, atol=1e-9)
    t_min = np.max(minimum_time(law, D, kv, ka))
    # no motion below 1e-12 (rad or m) or 1e-9 s (hypothesis found D = 1e-15 held at once
    # by the trapezoidal law but not by the others)
    no_motion = t_min < 1e-9 or np.abs(D).max() <= 1e-12
    assert traj.duration >= t_min * (1 - 1e-12) or no_motion
    assert (traj.duration == 0) == no_motion


def test_robot_limits_and_duration_only():
    panda = robmod.load_robot("panda")
    traj = point_to_point(np.zeros(7), np.full(7, 0.5), "trapezoidal", robot=panda)
    kv = np.array([float(panda.link(j).limits.qdmax) for j in range(1, 8)])
    ka = np.array([float(panda.link(j).limits.qddmax) for j in range(1, 8)])
    check_law(traj, kv, ka)
    q = point_to_point([0.0, 1.0], [1.0, 0.0], "quintic", duration=2.0)
    assert q.duration == 2.0 and q.sample(1.0).q == pytest.approx([0.5, 0.5])
    # peak velocity 15/8 D/t_f and acceleration 10/sqrt(3) D/t_f^2
    x = q.sample(np.linspace(0, 2, 20001))
    assert np.abs(x.qd).max() == pytest.approx(15 / 8 / 2, rel=1e-6)
    assert np.abs(x.qdd).max() == pytest.approx(10 / np.sqrt(3) / 4, rel=1e-5)


@pytest.mark.parametrize("kw, match", [
    (dict(qd_max=-1.0, qdd_max=1.0), "qd_max must be positive"),
    (dict(qd_max=np.nan, qdd_max=1.0), "qd_max must be positive"),
    (dict(qd_max=1.0, qdd_max=[1.0, 2.0, 3.0]), "qdd_max"),
    (dict(qd_max=1.0, qdd_max=1.0, duration=0.1), "shorter than the minimum"),
    (dict(), "needs qd_max"),
])
def test_bad_input(kw, match):
    with pytest.raises(RobmodError, match=match):
        point_to_point([0.0, 0.0], [1.0, 1.0], "trapezoidal", **kw)


def test_bad_joint_vectors():
    with pytest.raises(RobmodError, match="q1"):
        point_to_point([0.0, 0.0], [1.0], "quintic", duration=1.0)
    with pytest.raises(RobmodError, match="NaN"):
        point_to_point([0.0, np.nan], [1.0, 1.0], "quintic", duration=1.0)
    with pytest.raises(RobmodError, match="law"):
        point_to_point([0.0], [1.0], "septic", duration=1.0)


# -- via points ----------------------------------------------------------------------------

def test_via_points_continuity_and_limits():
    P = np.array([[0.0, 0.0], [0.5, 1.0], [1.0, 0.2], [0.3, -0.4]])
    traj = via_points(P, qd_max=[1.0, 1.5], qdd_max=[2.0, 3.0])
    np.testing.assert_allclose(traj.sample(traj.knots).q, P, atol=1e-12)
    x = traj.sample(np.linspace(0, traj.duration, 20001))
    assert np.all(np.abs(x.qd) <= np.array([1.0, 1.5]) * (1 + 1e-6))
    assert np.all(np.abs(x.qdd) <= np.array([2.0, 3.0]) * (1 + 1e-6))
    np.testing.assert_allclose(traj.sample([0.0, traj.duration]).qd, 0, atol=1e-12)
    eps = 1e-7   # velocity and acceleration continuous at the via points
    for tk in traj.knots[1:-1]:
        a, b = traj.sample([tk - eps, tk + eps]).qdd
        assert np.abs(a - b).max() < 1e-5
    with pytest.raises(RobmodError, match="increase"):
        via_points(P, [0.0, 1.0, 1.0, 2.0])


# -- with the controllers -------------------------------------------------------------------

def test_trajectories_drive_computed_torque():
    from robmod.control import ComputedTorque, simulate
    from robmod.testing.random import with_random_dynamics

    robot = with_random_dynamics(robmod.load_robot("rx90").numeric(), np.random.default_rng(0))
    q0 = np.full(6, 0.1)
    quint = point_to_point(q0, q0 + 0.4, "quintic", duration=1.0)
    res = simulate(robot, ComputedTorque(robot, omega=20.0, dt=0.0), quint, 1.0, step=1e-3,
                   saturation=False)
    assert np.abs(res.error).max() <= 1e-6
    cont = point_to_point(q0, q0 + np.linspace(0.2, 0.6, 6), "continuous-acceleration",
                          qd_max=1.0, qdd_max=4.0)
    res = simulate(robot, ComputedTorque(robot, omega=20.0, dt=0.0), cont, cont.duration,
                   step=1e-3, saturation=False)
    assert np.abs(res.error).max() <= 1e-6


def test_trajectory_csv_and_plot(tmp_path):
    traj = trapezoidal([0.0, 0.0], [1.0, -0.5], qd_max=1.0, qdd_max=2.0)
    traj.to_csv(tmp_path / "traj.csv", rate=100)
    data = np.loadtxt(tmp_path / "traj.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(data[:, 1:3], traj.sample(data[:, 0]).q)
    pytest.importorskip("matplotlib")
    fig = traj.plot(tmp_path / "traj.png")
    assert len(fig.axes) == 4 and (tmp_path / "traj.png").stat().st_size > 0


def test_at_rest_from_the_end_on():
    """The deceleration of a trapezoid at t = t_f was held after the end: a computed-torque
    controller then settled with a constant error qdd/Kp."""
    traj = trapezoidal([0.0], [1.0], qd_max=1.0, qdd_max=2.0)
    s = traj.sample([traj.duration, traj.duration + 1.0, -1.0])
    np.testing.assert_array_equal(s.qd, 0.0)
    np.testing.assert_array_equal(s.qdd, 0.0)
    np.testing.assert_allclose(s.q[:2], 1.0)
    assert traj.sample(0.0).qdd[0] == pytest.approx(2.0)    # the start acceleration is kept
