"""Time scaling of trajectories (slow_down, scale_to_torques) and the `robmod traj` command."""
import numpy as np
import pytest

import robmod
from robmod.cli import main
from robmod.dynamics import idm
from robmod.errors import RobmodError
from robmod.testing.random import with_random_dynamics
from robmod.trajectory import point_to_point, scale_to_torques, slow_down


def test_slow_down_scales_the_derivatives():
    traj = point_to_point([0, 0], [1, -2], "quintic", duration=2.0)
    s = slow_down(traj, 2.5)
    assert s.duration == pytest.approx(5.0)
    t = np.linspace(-1, 6, 71)
    a, b = traj.sample(t / 2.5), s.sample(t)
    assert np.allclose(b.q, a.q, atol=1e-15)
    assert np.allclose(b.qd, a.qd / 2.5, atol=1e-15)
    assert np.allclose(b.qdd, a.qdd / 2.5**2, atol=1e-15)
    assert np.allclose(b.qddd, a.qddd / 2.5**3, atol=1e-15)
    with pytest.raises(RobmodError, match="positive"):
        slow_down(traj, 0.0)


def test_scale_to_torques_meets_the_limits_exactly():
    """Friction off: the slowed motion's IDM torques touch the limit at the binding joint and
    stay within it everywhere (Γ_s = (Γ - Q)/c² + Q)."""
    rng = np.random.default_rng(0)
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng)
    traj = point_to_point(np.zeros(6), [1.0, -0.6, 0.8, 0.5, 1.0, -0.7], "quintic",
                          duration=0.4)
    t = traj.times(1000.0)
    s0 = traj.sample(t)
    tau0 = idm(robot, s0.q, s0.qd, s0.qdd, friction=False)
    g = idm(robot, s0.q, 0 * s0.q, 0 * s0.q, friction=False)
    lim = 0.5 * np.abs(tau0).max(axis=0) + np.abs(g).max(axis=0)
    scaled = scale_to_torques(robot, traj, tau_max=lim)
    with pytest.raises(robmod.ArgumentError, match="robot must be a robmod Robot"):
        scale_to_torques(traj, robot, tau_max=lim)            # the robot first
    assert scaled.c > 1
    ts = scaled.times(1000.0 / scaled.c)          # the same path samples
    s = scaled.sample(ts)
    tau = idm(robot, s.q, s.qd, s.qdd, friction=False)
    ratio = np.abs(tau) / lim
    assert ratio.max() <= 1 + 1e-9
    assert ratio[:, scaled.binding_joint - 1].max() == pytest.approx(1.0, abs=1e-9)
    # already feasible: the trajectory itself
    assert scale_to_torques(robot, traj, tau_max=10 * np.abs(tau0).max(axis=0) + 1) is traj


def test_scale_to_torques_refuses_gravity_beyond_the_limits():
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True),
                                 np.random.default_rng(0))
    traj = point_to_point(np.zeros(6), np.full(6, 0.5), "quintic", duration=1.0)
    with pytest.raises(RobmodError, match="gravity alone"):
        scale_to_torques(robot, traj, tau_max=1e-6)
    with pytest.raises(RobmodError, match="torque limit"):
        scale_to_torques(robot, traj)          # the library RX-90 has no taumax


def test_cli_traj_writes_samples_and_plot(tmp_path, capsys):
    csv, png = tmp_path / "t.csv", tmp_path / "t.png"
    assert main(["traj", "rx90", "--to", "1", "-0.5", "0.8", "0", "1", "0", "--qd-max", "1",
                 "--qdd-max", "2", "--out", str(csv), "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "duration 1.5 s" in out            # joint 1: tau = 0.5, t_f = 1.5 (Table 8.1)
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert data.shape == (1501, 19)
    assert np.allclose(data[-1, 1:7], [1, -0.5, 0.8, 0, 1, 0])
    assert np.abs(data[:, 7:13]).max() <= 1 + 1e-9
    assert png.stat().st_size > 0
    assert main(["traj", "panda", "--to", "1", "0.5", "0", "-1", "0", "1", "0.5",
                 "--torque-limits", "--random-dynamics", "1"]) == 0
    assert "slowed down" in capsys.readouterr().out
    assert main(["traj", "rx90", "--to", "1", "--law", "jerk-limited", "--qd-max", "1",
                 "--qdd-max", "2", "--qddd-max", "10"]) == 0
    assert "duration 1.7 s" in capsys.readouterr().out     # D/v + v/a + a/j
    assert main(["traj", "rx90", "--to", "1", "2"]) == 2       # 2 values for 6 joints
    assert "expected 1 or 6 values" in capsys.readouterr().err


def test_cli_joint_values_that_are_not_numbers(capsys):
    """A word where joint values are expected: exit 2 with the option named (was an internal
    error in `robmod simulate`)."""
    for cmd in (["traj", "rx90", "--to", "x"], ["simulate", "rx90", "--to", "x"]):
        assert main(cmd) == 2
        assert "--to: expected numbers" in capsys.readouterr().err
