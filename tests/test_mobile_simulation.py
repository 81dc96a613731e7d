"""Simulation and control of a robot on a mobile base (its motion given over time): the
joints against Pinocchio's free-flyer with the base's acceleration prescribed (the joint rows
of M [a_b; qdd] + h = [f_b; tau], crba and rnea on the same URDF), a fixed base as the mobile
base at rest, computed torque compensating an accelerating cart where a PID shows the
disturbance, state_derivative on every base kind, the viewer following the base, and the
refusals by name."""
import re

import numpy as np
import pytest

import robmod
from robmod.control import (LQR, PID, BaseMotion, ComputedTorque, MobileDynamics, simulate,
                            tune_pid)
from robmod.dynamics import ddm, state_derivative
from robmod.errors import ArgumentError
from robmod.geometry import difference, integrate, neutral
from robmod.testing import example_robot_data, to_pinocchio_configuration
from robmod.trajectory import point_to_point

Q0 = np.array([0.0, -1.0, 1.5, -0.5, 0.5, 0.0])


def cart(t):
    """A cart driving and turning in the plane on a heaving floor: its pose, its twist in
    frame 0 and the twist's derivative (V0 = R^T v, VD0 = R^T a - W0 x V0)."""
    x, dx, ddx = 0.4 * t ** 2, 0.8 * t, 0.8
    y, dy, ddy = 0.1 * np.sin(3 * t), 0.3 * np.cos(3 * t), -0.9 * np.sin(3 * t)
    z, dz, ddz = 0.02 * np.sin(5 * t), 0.1 * np.cos(5 * t), -0.5 * np.sin(5 * t)
    th, dth, ddth = 0.5 * t ** 2, t, 1.0
    c, s = np.cos(th), np.sin(th)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    w = np.array([0, 0, dth])
    v0 = R.T @ [dx, dy, dz]
    a0 = R.T @ [ddx, ddy, ddz] - np.cross(w, v0)
    return (np.r_[x, y, z, np.cos(th / 2), 0, 0, np.sin(th / 2)], np.r_[v0, w],
            np.r_[a0, 0, 0, ddth])


def test_the_cart_motion_is_consistent():
    """The twist is the pose's derivative and the acceleration the twist's (finite
    differences): the conventions of docs/floating.md."""
    arm = robmod.load_robot("ur5", numeric=True).with_base("mobile")
    h, t = 1e-5, 0.7
    p0, v0, a0 = cart(t)
    qa, qb = (np.r_[cart(t + s)[0], np.zeros(6)] for s in (-h, h))
    assert np.abs(difference(arm, qa, qb)[:6] / (2 * h) - v0).max() < 1e-7
    assert np.abs((cart(t + h)[1] - cart(t - h)[1]) / (2 * h) - a0).max() < 1e-7


@pytest.fixture(scope="module")
def ur5_urdf():
    pin = pytest.importorskip("pinocchio")
    path = example_robot_data("ur_description/urdf/ur5_robot.urdf")
    robot = robmod.read_robot(path, base="mobile").numeric()
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    names = dict(re.findall(r"(\d+): joint '([^']+)'", robot.description))
    ids = [model.getJointId(names[str(j)]) for j in robot.joints]
    perm = list(range(6)) + [model.joints[jid].idx_v for jid in ids]
    qperm = [model.joints[jid].idx_q for jid in ids]
    return pin, robot, model, model.createData(), perm, qperm


def _pinocchio_accelerations(peer, pose, twist, acc, qj, vj, tau):
    """The joints' accelerations of Pinocchio's free-flyer at the base's given acceleration:
    M_jj qdd = tau - rnea(q, v, [a_b; 0])_j (crba, rnea)."""
    pin, robot, model, data, perm, qperm = peer
    qp = pin.neutral(model)
    qp[:7] = to_pinocchio_configuration(pose)
    qp[qperm] = qj
    vp, ap = np.zeros(model.nv), np.zeros(model.nv)
    vp[perm] = np.r_[twist, vj]
    ap[perm[:6]] = acc
    M = pin.crba(model, data, qp)
    M = (np.triu(M) + np.triu(M, 1).T)[np.ix_(perm, perm)]
    h = pin.rnea(model, data, qp, vp, ap)[perm]
    return np.linalg.solve(M[6:, 6:], tau - h[6:])


def test_the_plant_is_pinocchios_free_flyer_with_the_base_acceleration_given(ur5_urdf):
    robot = ur5_urdf[1]
    plant = MobileDynamics.of(robot)
    assert isinstance(plant, MobileDynamics) and (plant.nq, plant.nv) == (13, 12)
    rng = np.random.default_rng(4)
    for t in (0.0, 0.4, 1.3):
        pose, twist, acc = cart(t)
        qj, vj, tau = rng.uniform(-1, 1, (3, 6))
        out = plant.ddm(np.r_[pose, qj], np.r_[twist, vj], tau, acc)
        ref = _pinocchio_accelerations(ur5_urdf, pose, twist, acc, qj, vj, tau)
        assert np.array_equal(out[:6], acc)
        assert np.abs(out[6:] - ref).max() < 1e-9 * max(1.0, np.abs(ref).max())
        # the controller's model at the base's acceleration inverts it
        view = plant.moving(acc)
        assert np.abs(view.idm(np.r_[pose, qj], np.r_[twist, vj], out[6:]) - tau).max() < 1e-9


def test_a_run_on_a_moving_cart_against_pinocchio(ur5_urdf):
    """simulate's RK4 of the joints, the base at its motion at every stage, and the same RK4
    on Pinocchio's accelerations: the same trajectory (1e-9)."""
    robot = ur5_urdf[1]
    K, D = 40.0, 6.0

    def law(t, q, qd):
        return -K * (q[..., 7:] - Q0) - D * qd[..., 6:] + np.sin(4 * t)

    h, steps = 2e-3, 150
    run = simulate(robot, law, None, h * steps, x0=np.r_[Q0, np.zeros(6)], step=h,
                   saturation=False, base_motion=cart)
    assert run.q.shape == (steps + 1, 13) and run.qd.shape == (steps + 1, 12)
    for k in (0, steps // 2, steps):                       # the base where its motion puts it
        pose, twist, _ = cart(run.t[k])
        assert np.array_equal(run.q[k, :7], pose) and np.array_equal(run.qd[k, :6], twist)

    def f(t, qj, vj):
        pose, twist, acc = cart(t)
        tau = -K * (qj - Q0) - D * vj + np.sin(4 * t)
        return _pinocchio_accelerations(ur5_urdf, pose, twist, acc, qj, vj, tau)

    q, v, t = Q0.copy(), np.zeros(6), 0.0
    for _ in range(steps):
        a1 = f(t, q, v)
        v2 = v + h / 2 * a1
        a2 = f(t + h / 2, q + h / 2 * v, v2)
        v3 = v + h / 2 * a2
        a3 = f(t + h / 2, q + h / 2 * v2, v3)
        v4 = v + h * a3
        a4 = f(t + h, q + h * v3, v4)
        q, v = q + h / 6 * (v + 2 * v2 + 2 * v3 + v4), v + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
        t += h
    assert np.abs(run.q[-1, 7:] - q).max() < 1e-9 and np.abs(run.qd[-1, 6:] - v).max() < 1e-8
    assert np.abs(run.q[-1, 7:] - Q0).max() > 1e-2              # the cart shook the arm


def test_a_fixed_base_is_a_mobile_base_at_rest():
    """The same arm bolted down and on a mobile base at rest (no base_motion): the same joint
    trajectories and torques under PID, computed torque and a torque law."""
    arm = robmod.load_robot("ur5", numeric=True)
    mobile = arm.with_base("mobile", M=50, XX=5, YY=5, ZZ=5)
    reach = point_to_point(Q0, Q0 + 0.3, "quintic", duration=0.3)
    g = tune_pid(arm, 20.0)
    for make in (lambda r: PID(r, g.kp, g.kd, g.ki, gravity=True),
                 lambda r: ComputedTorque(r, omega=20.0), lambda r: ComputedTorque(
                     r, omega=20.0, dt=0.0)):
        a = simulate(arm, make(arm), reach, 0.3)
        b = simulate(mobile, make(mobile), reach, 0.3)
        assert np.abs(a.q - b.q[:, 7:]).max() < 1e-12 and np.abs(a.tau - b.tau).max() < 1e-9
        assert np.array_equal(b.q[:, :7], np.broadcast_to(neutral(mobile)[:7], (301, 7)))
        assert not b.qd[:, :6].any()
    law = lambda t, q, qd: np.sin(3 * t) * np.ones(6)                    # noqa: E731
    a = simulate(arm, law, None, 0.2, x0=np.r_[Q0, np.zeros(6)], step=2e-3)
    b = simulate(mobile, law, None, 0.2, x0=np.r_[Q0, np.zeros(6)], step=2e-3)
    assert np.abs(a.q - b.q[:, 7:]).max() < 1e-12


def _drive(t):
    """A cart along x: 1 m in 1 s (quintic), then at rest."""
    s = min(max(t, 0.0), 1.0)
    x, v, a = (10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5, 30 * s ** 2 - 60 * s ** 3 + 30 * s ** 4,
               60 * s - 180 * s ** 2 + 120 * s ** 3)
    return np.r_[x, 0, 0, 1, 0, 0, 0], np.r_[v, 0, 0, 0, 0, 0], np.r_[a, 0, 0, 0, 0, 0]


@pytest.fixture(scope="module")
def on_a_cart():
    arm = robmod.load_robot("ur5", numeric=True)
    return arm, arm.with_base("mobile", M=50, XX=5, YY=5, ZZ=5), point_to_point(
        Q0, Q0 + 0.3, "quintic", duration=1.0)


def test_computed_torque_compensates_the_carts_acceleration_a_pid_does_not(on_a_cart):
    arm, robot, reach = on_a_cart
    error = {}
    for moving in (False, True):
        motion = {"base_motion": _drive} if moving else {}
        ct = simulate(robot, ComputedTorque(robot, omega=20.0, dt=0.0), reach, 1.2, **motion)
        digital = simulate(robot, ComputedTorque(robot, omega=20.0), reach, 1.2, **motion)
        g = tune_pid(robot, 20.0)
        pid = simulate(robot, PID(robot, g.kp, g.kd, g.ki, gravity=True), reach, 1.2, **motion)
        error[moving] = [np.abs(r.error).max() for r in (ct, digital, pid)]
        if moving:
            assert np.abs(ct.q[-1, :3] - [1, 0, 0]).max() < 1e-12      # the cart drove 1 m
    assert error[True][0] < 1e-9                  # continuous computed torque: exact
    assert error[True][1] < 3 * error[False][1]   # digital: the torque held over a sample
    assert error[True][2] > 3 * error[False][2]   # the PID feels the cart
    # LQR: its feedforward takes the base's acceleration too
    lqr = LQR(robot, reach)
    moving = simulate(robot, lqr, reach, 1.2, base_motion=_drive)
    still = simulate(robot, lqr, reach, 1.2)
    assert np.abs(moving.error).max() < 2 * np.abs(still.error).max() + 1e-5


def test_the_viewer_follows_the_cart(on_a_cart):
    from robmod.viewer import RecordingVisualizer, view

    _, robot, reach = on_a_cart
    run = simulate(robot, ComputedTorque(robot, omega=20.0), reach, 1.2, base_motion=_drive)
    rec = RecordingVisualizer()
    view(robot, visualizer=rec).animate(run, fps=25.0)
    poses = rec.animation_poses(f"/meshcat/robmod/{robot.name}")
    assert np.allclose(poses[:, :3, 3], run.q[::40, :3]) and poses[-1, 0, 3] == 1.0


def test_state_derivative_of_every_base_kind():
    arm = robmod.load_robot("ur5", numeric=True)
    rng = np.random.default_rng(2)
    for kind in ("floating", "mobile"):
        robot = arm.with_base(kind, M=50, XX=5, YY=5, ZZ=5)
        Q = rng.normal(size=4)
        q = np.r_[rng.normal(size=3), Q / np.linalg.norm(Q), rng.uniform(-1, 1, 6)]
        qd, tau, a0 = rng.normal(size=12), rng.normal(size=6), rng.normal(size=6)
        given = {"base_acceleration": a0} if kind == "mobile" else {}
        xd = state_derivative(robot, np.r_[q, qd], tau, **given)
        h = 1e-6
        rates = (integrate(robot, q, qd, dt=h) - integrate(robot, q, qd, dt=-h)) / (2 * h)
        assert xd.shape == (25,) and np.abs(xd[:13] - rates).max() < 1e-8
        assert np.array_equal(xd[13:], ddm(robot, q, qd, tau, **given))
        batch = state_derivative(robot, np.stack([np.r_[q, qd]] * 3), tau, **given)
        assert batch.shape == (3, 25) and np.allclose(batch[1], xd)
    with pytest.raises(ArgumentError, match=r"argument x must be a state .*\(\.\.\., 25\)"):
        state_derivative(robot, np.zeros(12), tau)
    with pytest.raises(ArgumentError, match="base_acceleration is the given acceleration of a "
                                            "mobile base"):
        state_derivative(arm.with_base("floating"), np.r_[q, qd], tau, base_acceleration=a0)


def test_bad_base_motions_are_refused_by_name(on_a_cart):
    arm, robot, reach = on_a_cart
    ct = ComputedTorque(robot, omega=20.0)
    with pytest.raises(ArgumentError, match="base_motion is the given motion of a mobile base; "
                                            "'ur5' has a fixed base"):
        simulate(arm, ComputedTorque(arm, omega=20.0), reach, 0.1, base_motion=_drive)
    with pytest.raises(ArgumentError, match=r"base_motion: expected a function t -> \(pose"):
        simulate(robot, ct, reach, 0.1, base_motion=np.zeros(6))
    with pytest.raises(ArgumentError, match=r"base_motion\(0\)'s twist: expected 6 values"):
        simulate(robot, ct, reach, 0.1, base_motion=lambda t: (_drive(t)[0], np.zeros(3),
                                                               np.zeros(6)))
    with pytest.raises(ArgumentError, match="quaternion Q0..Q3 must be unit"):
        simulate(robot, ct, reach, 0.1, base_motion=lambda t: (np.r_[0, 0, 0, 2, 0, 0, 0],
                                                               np.zeros(6), np.zeros(6)))
    with pytest.raises(ArgumentError, match=r"base_motion\(0\) gave 2 values"):
        simulate(robot, ct, reach, 0.1, base_motion=lambda t: _drive(t)[:2])
    moved = np.r_[_drive(0.0)[0] + [1, 0, 0, 0, 0, 0, 0], Q0, np.zeros(12)]
    with pytest.raises(ArgumentError, match="x0: its base's pose and twist are not "
                                            "base_motion's at t = 0"):
        simulate(robot, ct, reach, 0.1, x0=moved, base_motion=_drive)
    with pytest.raises(ArgumentError, match="base_motion does not take parameters="):
        simulate(robot, ct, reach, 0.1, base_motion=_drive, parameters={"M6": [1.0, 2.0]})
    with pytest.raises(ArgumentError, match="model of the robot has a fixed base, the "
                                            "simulated robot .* a mobile one"):
        simulate(robot, ComputedTorque(arm, omega=20.0), reach, 0.1, base_motion=_drive)
    loops = robmod.load_robot("parallelogram", numeric=True)
    for kind in ("mobile", "floating"):         # never simulated bolted down without a word
        with pytest.raises(ArgumentError, match=f"closed loops on a {kind} base"):
            MobileDynamics.of(loops.with_base(kind, M=5, XX=1, YY=1, ZZ=1))
    # a constant twist: BaseMotion.constant, or the twist of x0 without base_motion
    twist = np.r_[0.5, 0, 0, 0, 0, 0.2]
    x0 = np.r_[neutral(robot), twist, np.zeros(6)]
    x0[7:13] = Q0
    a = simulate(robot, ct, reach, 0.2, x0=x0)
    b = simulate(robot, ct, reach, 0.2, base_motion=BaseMotion.constant(neutral(robot)[:7],
                                                                        twist))
    assert np.array_equal(a.q, b.q) and np.allclose(a.qd[:, :6], twist)
    assert np.allclose(a.q[-1, :7], integrate(robot, np.r_[neutral(robot)[:7], Q0],
                                              np.r_[twist, np.zeros(6)], dt=0.2)[:7])
