"""Task-space lines with a rotation about a fixed axis (Khalil & Dombre §8.4) on the RX-90."""
import re
from pathlib import Path

import numpy as np
import pytest

import robmod
from robmod.description.io_yaml import loads_yaml
from robmod.errors import RobmodError
from robmod.geometry.direct import dgm
from robmod.geometry.inverse import igm
from robmod.spatial import rot_axis, rot_matrix
from robmod.kinematics import jacobian
from robmod.trajectory import fixed_axis_rotation, synchronise, task_line

U = np.array([1.0, 2.0, 2.0]) / 3
Q_I = np.array([0.3, -0.4, 0.5, 0.7, 1.1, -0.2])
LIMITS = dict(v_max=0.5, a_max=2.0, w_max=1.0, wd_max=4.0)


@pytest.fixture(scope="module")
def rx90():
    return robmod.load_robot("rx90", numeric=True)


def final_pose(T_i, dP, u, alpha):
    T = T_i.copy()
    T[:3, 3] += dP
    T[:3, :3] = T_i[:3, :3] @ rot_axis(u, alpha)
    return T


@pytest.fixture(scope="module")
def line(rx90):
    T_i = dgm(rx90, Q_I)
    T_f = final_pose(T_i, [0.1, -0.2, 0.2], U, 0.8)     # D = 0.3 m, alpha = 0.8 rad
    return task_line(rx90, Q_I, T_f, "trapezoidal", **LIMITS)


# -- (8.50)-(8.51) ------------------------------------------------------------------------------

def test_rotation_reference_value():
    """R^i = rot(x, 0.3), R^f = R^i rot((1, 2, 2)/3, 2.0): alpha = 2.0, u = (1, 2, 2)/3."""
    Ri = rot_matrix("x", 0.3)
    Rf = Ri @ rot_axis(U, 2.0)
    alpha, u = fixed_axis_rotation(Ri, Rf)
    assert alpha == pytest.approx(2.0, abs=1e-14)
    np.testing.assert_allclose(u, U, atol=1e-14)
    alpha0, u0 = fixed_axis_rotation(Ri, Rf, axis="base")      # (8.56): u0 = R^i u
    assert alpha0 == pytest.approx(2.0, abs=1e-14)
    np.testing.assert_allclose(u0, Ri @ U, atol=1e-14)


@pytest.mark.parametrize("alpha", [np.pi - 1e-7, np.pi - 1e-3, np.pi, 1e-9])
def test_rotation_near_pi_and_near_zero(alpha):
    Ri = rot_matrix("x", 0.3)
    a, u = fixed_axis_rotation(Ri, Ri @ rot_axis(U, alpha))
    assert a == pytest.approx(alpha, abs=1e-12)
    np.testing.assert_allclose(rot_axis(u, a), rot_axis(U, alpha), atol=1e-14)
    if alpha < np.pi:
        np.testing.assert_allclose(u, U, atol=1e-7 if alpha < 1e-6 else 1e-12)


def test_no_rotation():
    Ri = rot_matrix("x", 0.3)
    alpha, u = fixed_axis_rotation(Ri, Ri)
    assert alpha == 0.0 and np.linalg.norm(u) == pytest.approx(1.0)


# -- the line on the RX-90 --------------------------------------------------------------------

def test_timing_is_the_synchronised_task_law(line):
    """D = 0.3 m and alpha = 0.8 rad timed together (§8.3 applied to (D, alpha))."""
    s = synchronise("trapezoidal", [0.3, 0.8], [0.5, 1.0], [2.0, 4.0])
    assert line.distance == pytest.approx(0.3) and line.alpha == pytest.approx(0.8)
    assert line.duration == pytest.approx(1.05) == s.duration
    assert dict(line.phases)["cruise"] == pytest.approx(0.25)
    assert line.stretch == 1.0 and line.limits is None       # the RX-90 has no joint limits
    t = np.linspace(0, line.duration, 4001)
    tw = line.twist(t)
    v, w = np.linalg.norm(tw[:, :3], axis=1), np.linalg.norm(tw[:, 3:], axis=1)
    assert v.max() <= 0.5 * (1 + 1e-9) and w.max() == pytest.approx(1.0, rel=1e-9)


def test_tool_follows_the_line_and_the_fixed_axis(rx90, line):
    t = np.linspace(0, line.duration, 3001)
    x = line.sample(t)
    T = dgm(rx90, x.q)
    r = line.path_parameter(t)[0]
    Pi, Pf = line.T_start[:3, 3], line.T_end[:3, 3]
    line_points = Pi + r[:, None] * (Pf - Pi)                          # (8.53)
    assert np.abs(T[:, :3, 3] - line_points).max() <= 1e-9
    Ri = line.T_start[:3, :3]
    rel = np.einsum("ji,tjk->tik", Ri, T[:, :3, :3])                  # R^i^T R(t)
    assert np.abs(rel - rot_axis(U, r * 0.8)).max() <= 1e-9             # (8.54)
    np.testing.assert_allclose(line.pose(t), T, atol=1e-9)
    np.testing.assert_allclose(x.q[0], Q_I, atol=1e-12)                  # the branch of q^i
    np.testing.assert_allclose(T[-1], line.T_end, atol=1e-9)
    # the twist (8.57) is J qd
    V = np.einsum("tij,tj->ti", jacobian(rx90, x.q), x.qd)
    np.testing.assert_allclose(V, line.twist(t), atol=1e-9)
    np.testing.assert_allclose(line.twist(t)[:, 3:], np.outer(line.path_parameter(t)[1] * 0.8,
                                                              Ri @ U), atol=1e-12)


def test_no_branch_jumps(line):
    x = line.sample(np.linspace(0, line.duration, 4001))
    assert np.abs(np.diff(x.q, axis=0)).max() < 2e-3
    assert np.abs(x.qd).max() < 3.0


def test_derivatives_against_finite_differences(line):
    t = np.array([0.1, 0.2, 0.4, 0.6, 0.9, 1.0])         # inside the phases (0.25, 0.8 switch)
    h = 1e-6
    p, m, x = line.sample(t + h), line.sample(t - h), line.sample(t)
    np.testing.assert_allclose((p.q - m.q) / (2 * h), x.qd, atol=1e-8)
    np.testing.assert_allclose((p.qd - m.qd) / (2 * h), x.qdd, atol=1e-7)
    np.testing.assert_allclose((p.qdd - m.qdd) / (2 * h), x.qddd, atol=1e-5 * np.abs(x.qddd).max())
    assert np.abs(x.qddd).max() > 1.0                    # a real check: the jerk is not zero
    end = line.sample([-1.0, line.duration, line.duration + 1])
    assert np.all(end.qd == 0) and np.all(end.qdd == 0)
    np.testing.assert_allclose(end.q[1], end.q[2])


def test_axis_fixed_in_frame_0_is_the_same_motion(rx90, line):
    base = task_line(rx90, Q_I, line.T_end, "trapezoidal", axis="base", **LIMITS)
    np.testing.assert_allclose(base.u, line.T_start[:3, :3] @ U, atol=1e-12)
    t = np.linspace(0, line.duration, 11)
    np.testing.assert_allclose(base.pose(t), line.pose(t), atol=1e-12)
    np.testing.assert_allclose(base.sample(t).q, line.sample(t).q, atol=1e-10)


def test_rotation_near_pi_about_the_tool_axis_moves_q6_only(rx90):
    T_i = dgm(rx90, Q_I)
    alpha = np.pi - 1e-6
    traj = task_line(rx90, Q_I, final_pose(T_i, [0, 0, 0], [0, 0, 1], alpha), "quintic",
                     **LIMITS)
    assert traj.alpha == pytest.approx(alpha, abs=1e-12) and traj.distance == 0
    # pure rotation: quintic minimum time of alpha alone (Table 8.1), w_max = 1, wd_max = 4
    tf = max(15 / 8 * alpha, np.sqrt(10 * alpha / (np.sqrt(3) * 4)))
    assert traj.duration == pytest.approx(tf, rel=1e-12)
    x = traj.sample(np.linspace(0, traj.duration, 201))
    np.testing.assert_allclose(x.q[:, :5], np.tile(Q_I[:5], (201, 1)), atol=1e-9)
    assert x.q[-1, 5] - Q_I[5] == pytest.approx(alpha, abs=1e-9)


def test_pure_translation(rx90):
    T_i = dgm(rx90, Q_I)
    traj = task_line(rx90, T_i, final_pose(T_i, [0.05, 0.05, -0.1], U, 0.0), "cubic",
                     duration=1.0, q_start=Q_I)
    assert traj.alpha == 0.0
    t = np.linspace(0, 1, 101)
    T = dgm(rx90, traj.sample(t).q)
    assert np.abs(T[:, :3, :3] - T_i[:3, :3]).max() < 1e-9
    np.testing.assert_allclose(traj.sample(0.0).q, Q_I, atol=1e-12)


def test_q_start_chooses_the_branch(rx90):
    T_i = dgm(rx90, Q_I)
    T_f = final_pose(T_i, [0.05, 0.05, 0.05], U, 0.3)
    Q, valid = igm(rx90, T_i)
    other = Q[valid][np.argmax(np.abs(Q[valid] - Q_I).max(axis=1))]
    traj = task_line(rx90, T_i, T_f, duration=1.0, q_start=other + 0.01)
    np.testing.assert_allclose(traj.sample(0.0).q, other, atol=1e-9)
    T = dgm(rx90, traj.sample(np.linspace(0, 1, 51)).q)
    np.testing.assert_allclose(T, traj.pose(np.linspace(0, 1, 51)), atol=1e-9)


def test_numeric_ikm_follows_the_same_branch(rx90, line):
    num = task_line(rx90, Q_I, line.T_end, "trapezoidal", method="ikm", **LIMITS)
    t = np.linspace(0, line.duration, 201)
    a, b = num.sample(t), line.sample(t)
    np.testing.assert_allclose(a.q, b.q, atol=1e-10)
    np.testing.assert_allclose(a.qd, b.qd, atol=1e-8)
    np.testing.assert_allclose(a.qdd, b.qdd, atol=1e-7)


# -- joint limits ---------------------------------------------------------------------------

def rx90_with_limits(joints: str):
    path = Path(robmod.__file__).parent / "robots" / "rx90.yaml"
    return loads_yaml(path.read_text() + "joints:\n" + joints, "<rx90 limits>").numeric()


def test_joint_speed_limits_stretch_the_motion(line):
    robot = rx90_with_limits("".join(f"  - {{j: {j}, qdmax: 0.4, qddmax: 3.0}}\n"
                                     for j in range(1, 7)))
    traj = task_line(robot, Q_I, line.T_end, "trapezoidal", **LIMITS)
    assert traj.stretch > 1.0
    assert traj.duration == pytest.approx(line.duration * traj.stretch, rel=1e-12)
    x = traj.sample(np.linspace(0, traj.duration, 20001))
    qd, qdd = np.abs(x.qd).max(), np.abs(x.qdd).max()
    assert qd <= 0.4 * (1 + 1e-4) and qdd <= 3.0 * (1 + 1e-4)
    assert max(qd / 0.4, qdd / 3.0) >= 1 - 1e-3              # the smallest stretch that fits
    np.testing.assert_allclose(traj.sample(traj.times(50)).q,             # same path, slower
                               line.sample(traj.times(50) / traj.stretch).q, atol=1e-9)


def test_joint_position_limit(line):
    robot = rx90_with_limits("  - {j: 2, qmin: -1.0, qmax: -0.3}\n")
    msg = r"joint limit at t = .*q2 = -0\.29\d* is outside its limits \[-1, -0\.3\]"
    with pytest.raises(RobmodError, match=msg):
        task_line(robot, Q_I, line.T_end, "trapezoidal", **LIMITS)


# -- failures along the line ----------------------------------------------------------------

def reported_time(message):
    return float(re.search(r"at t = ([0-9.e+-]+) s", message).group(1))


@pytest.mark.parametrize("method", ["igm", "ikm"])
def test_line_through_the_workspace_boundary(rx90, method):
    """Reach of the RX-90: D3 + RL4 = 0.9 m from the shoulder."""
    T_i = dgm(rx90, Q_I)
    T_f = T_i.copy()
    T_f[:3, 3] *= 1.2 / np.linalg.norm(T_i[:3, 3])
    with pytest.raises(RobmodError, match="unreachable pose at t = ") as e:
        task_line(rx90, Q_I, T_f, duration=2.0, method=method)
    s = reported_time(str(e.value)) / 2.0
    r = 10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5               # the quintic law (8.8)
    P = T_i[:3, 3] + r * (T_f[:3, 3] - T_i[:3, 3])
    assert np.linalg.norm(P) == pytest.approx(0.9, abs=1e-3)


def wrist_singular_line(robot):
    """A line through the wrist singularity q5 = 0 at its middle."""
    q_s = np.array([0.3, -0.4, 0.5, 0.7, 0.0, -0.2])
    T_s = dgm(robot, q_s)
    q_a = q_s + [0.05, 0.05, -0.05, 0.1, 0.3, 0.1]
    T_i = dgm(robot, q_a)
    beta, u = fixed_axis_rotation(T_i, T_s)
    T_f = final_pose(T_i, 2 * (T_s[:3, 3] - T_i[:3, 3]), u, 2 * beta)
    return q_a, T_f


@pytest.mark.parametrize("method", ["igm", "ikm"])
def test_line_through_a_wrist_singularity(rx90, method):
    q_a, T_f = wrist_singular_line(rx90)
    with pytest.raises(RobmodError, match="(singular configuration|branch change) at t = ") as e:
        task_line(rx90, q_a, T_f, duration=2.0, method=method)
    assert reported_time(str(e.value)) == pytest.approx(1.0, abs=0.05)   # the middle


# -- bad input ------------------------------------------------------------------------------

def test_bad_input(rx90, line):
    T = line.T_end
    bad = T.copy()
    bad[0, 0] += 0.1
    with pytest.raises(RobmodError, match="end.*not a homogeneous transform"):
        task_line(rx90, Q_I, bad, duration=1.0)
    nan = T.copy()
    nan[1, 3] = np.nan
    with pytest.raises(RobmodError, match="argument end holds NaN"):
        task_line(rx90, Q_I, nan, duration=1.0)
    with pytest.raises(RobmodError, match="start has NaN"):
        task_line(rx90, [0.1, np.nan, 0, 0, 0, 0], T, duration=1.0)
    with pytest.raises(RobmodError, match="argument end must be a 4x4 homogeneous transform"):
        task_line(rx90, Q_I, np.eye(3), duration=1.0)
    with pytest.raises(RobmodError, match="law must be"):
        task_line(rx90, Q_I, T, "spline", duration=1.0)
    with pytest.raises(RobmodError, match="axis must be"):
        task_line(rx90, Q_I, T, duration=1.0, axis="world")
    with pytest.raises(RobmodError, match="missing a_max, wd_max"):
        task_line(rx90, Q_I, T, v_max=1.0, w_max=1.0)
    with pytest.raises(RobmodError, match="shorter than the minimum 1.05 s"):
        task_line(rx90, Q_I, T, "trapezoidal", duration=0.5, **LIMITS)
    with pytest.raises(RobmodError, match="give a duration"):
        task_line(rx90, Q_I, T)
    with pytest.raises(RobmodError, match="method must be"):
        task_line(rx90, Q_I, T, duration=1.0, method="newton")
    with pytest.raises(RobmodError, match="6 joints"):
        task_line(robmod.load_robot("scara", numeric=True), np.zeros(4), np.eye(4), duration=1.0)
