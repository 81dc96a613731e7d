"""Simulation of floating robots by the one simulator (robmod.control.simulate): the state is
the robot's (7 + n configuration values, 6 + n velocities), the base integrated on SE(3)
(Munthe-Kaas's RK4: fourth order, the quaternion unit), the joint-space controllers act on the
joints with the base free.  In space the linear and angular momenta are conserved to the
integration's accuracy under a joint PD; in free fall the linear momentum grows by M g t and
the angular one about the centre of mass stays; the MJCF export with a ``freejoint``, simulated
by MuJoCo, agrees with robmod's simulation, open loop and under a joint PD."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.control import (PID, AdaptivePassivity, ComputedTorque, FloatingDynamics,
                            PassivityBased, PDGravity, TaskComputedTorque, simulate)
from robmod.dynamics import center_of_mass, centroidal_momentum, SimulationResult
from robmod.errors import ArgumentError, RobmodError
from robmod.geometry import difference, neutral
from robmod.testing import example_robot_data, random_inertial, random_robot


def space_arm(gravity=(0.0, 0.0, 0.0)):
    """A 4-joint tree on a satellite: random inertias, a 50 kg base."""
    rng = np.random.default_rng(11)
    robot = random_robot(rng, n=4, tree=True, prismatic=False)
    base = random_inertial(rng)
    base = {k: v * 20 for k, v in base.items()}
    robot = robot.with_base("floating", **base)
    return replace(robot, gravity=tuple(sp.Float(g) for g in gravity))


def start(robot, seed=0):
    """A state [q, qd] (13 + 2 n): the base anywhere, turning and moving, the joints too."""
    rng = np.random.default_rng(seed)
    n = robot.n_q
    q = neutral(robot)
    q[:3] = rng.normal(size=3)
    Q = rng.normal(size=4)
    q[3:7] = Q / np.linalg.norm(Q)
    q[7:] = rng.uniform(-1, 1, n)
    return np.r_[q, 0.3 * rng.normal(size=6), rng.normal(size=n)], 0.5 * rng.normal(size=n)


def mass(robot):
    return float(sum(link.M for link in robot.links) + robot.base_link.M)


def drift(robot, h, T=1.0):
    x0, tau = start(robot)
    n = robot.n_q
    res = simulate(robot, lambda tt, q, qd: tau, None, T, x0=x0, step=h, saturation=False)
    t = res.t
    assert isinstance(res, SimulationResult) and res.robot.content_key == robot.content_key
    assert res.q.shape == (t.size, 7 + n) and res.qd.shape == (t.size, 6 + n)
    assert np.array_equal(res.tau, np.broadcast_to(tau, (t.size, n)))
    X = np.asarray(res)          # the states [q, qd] (len(t), 13 + 2 n)
    hg = centroidal_momentum(robot, res.q, res.qd, i="world")
    g = np.array([float(v) for v in robot.gravity])
    lin = np.abs(hg[:, :3] - hg[0, :3] - mass(robot) * g * t[:, None]).max()
    ang = np.abs(hg[:, 3:] - hg[0, 3:]).max()
    return lin, ang, hg, X


@pytest.mark.parametrize("gravity", [(0.0, 0.0, 0.0), (0.0, 0.0, -9.81)])
def test_momentum_is_conserved_to_the_integration_accuracy(gravity):
    robot = space_arm(gravity)
    lin1, ang1, _, _ = drift(robot, 4e-3)
    lin2, ang2, hg, X = drift(robot, 2e-3)
    scale = np.abs(hg).max()
    assert max(lin2, ang2) < 1e-8 * scale
    assert 10 < max(lin1, ang1) / max(lin2, ang2) < 25          # fourth order
    assert np.allclose(np.linalg.norm(X[:, 3:7], axis=-1), 1.0, atol=1e-14)
    if gravity[2]:      # the centre of mass falls: c(t) = c0 + v0 t + g t^2 / 2
        n = robot.n_q
        c = center_of_mass(robot, X[:, :7 + n], i="world")
        t = np.arange(0.0, 1.0 + 1e-3, 2e-3)
        expect = c[0] + hg[0, :3] / mass(robot) * t[:, None] \
            + 0.5 * np.array(gravity) * t[:, None] ** 2
        assert np.abs(c - expect).max() < 1e-8


def test_a_joint_pd_in_zero_gravity_conserves_the_momentum():
    """A digital PD (1 kHz, zero-order hold) on the joints of a free-floating arm: internal
    torques, so the centroidal momentum (linear, and angular about the centre of mass) stays
    what it was at the start -- the base turning and moving -- to 1e-8 over 3 s, while the
    joints reach their set point and the base turns."""
    robot = space_arm()
    n = robot.n_q
    x0, _ = start(robot, 2)
    pd = PID(robot, 60.0, 12.0)
    res = simulate(robot, pd, np.full(n, 0.4), 3.0, x0=x0, saturation=False)
    h = centroidal_momentum(robot, res.q, res.qd, i="world")
    assert np.abs(h[0]).max() > 1.0                                  # it does carry momentum
    assert np.abs(h - h[0]).max() < 1e-8 * np.abs(h[0]).max()
    assert np.abs(res.error[-1]).max() < 0.05 and np.abs(res.tau).max() > 1.0
    assert np.linalg.norm(difference(robot, res.q[0], res.q[-1])[3:6]) > 0.1  # the base turned
    assert np.abs(np.linalg.norm(res.q[:, 3:7], axis=-1) - 1).max() < 1e-14


def test_a_pid_on_a_quadruped_simulates_the_floating_robot():
    """control.simulate(quadruped, PID(...)) simulated the robot bolted to the ground (q of n
    values per sample): the robot is floating, its base falls under gravity."""
    solo = _solo12()
    n = solo.n_q
    pid = PID(solo, 5.0, 0.1)
    res = simulate(solo, pid, np.zeros(n), 0.3)
    assert res.q.shape == (301, 7 + n) and res.qd.shape == (301, 6 + n)
    assert res.tau.shape == (301, n) and res.error.shape == (301, n)
    fall = res.q[-1, :3] - res.q[0, :3]
    assert np.allclose(fall, [0.0, 0.0, -0.5 * 9.81 * 0.3 ** 2], atol=1e-9)   # free fall
    assert isinstance(pid.dyn, FloatingDynamics)


@pytest.mark.parametrize("make", [
    lambda r: PID(r, 80.0, 15.0, 20.0, gravity=True),
    lambda r: PDGravity(r, 80.0, 15.0, at_desired=True),
    lambda r: ComputedTorque(r, omega=12.0),
    lambda r: ComputedTorque(r, omega=12.0, dt=0.0),
    lambda r: ComputedTorque(r, omega=12.0, mode="position"),
    lambda r: PassivityBased(r, 8.0, 30.0),
], ids=["pid", "pd-gravity", "computed-torque", "continuous", "position", "passivity"])
def test_joint_space_controllers_track_with_the_base_free(make):
    """Each joint-space law on a floating robot under gravity: the joints follow a quintic,
    the base falls and turns (its own equations), the momentum about the centre of mass
    stays."""
    from robmod.trajectory import point_to_point

    robot = space_arm((0.0, 0.0, -9.81))
    n = robot.n_q
    ref = point_to_point(np.zeros(n), np.full(n, 0.5), "quintic", duration=1.0)
    ctrl = make(robot)
    res = simulate(robot, ctrl, ref, 2.0, saturation=False)
    assert res.q.shape == (2001, 7 + n)
    h = centroidal_momentum(robot, res.q, res.qd, i="world")
    assert np.abs(h[:, 3:] - h[0, 3:]).max() < 1e-8
    bound = 1e-5 if isinstance(ctrl, ComputedTorque) and ctrl.mode == "tracking" else 0.05
    assert np.abs(res.error[-1]).max() < bound, np.abs(res.error[-1])


def test_computed_torque_cancels_the_free_floating_dynamics():
    """With the free-floating IDM as its model, computed torque makes the joint error obey
    e'' + Kd e' + Kp e = 0 (9.25): a continuous law keeps an exact start at e = 0."""
    from robmod.trajectory import point_to_point

    robot = space_arm()
    n = robot.n_q
    x0, _ = start(robot, 3)
    q0 = x0[7:7 + n]
    ref = point_to_point(q0, q0 + 0.6, "quintic", duration=1.0)
    x0[7 + n + 6:] = 0.0                                # the joints at rest, the base moving
    res = simulate(robot, ComputedTorque(robot, omega=10.0, dt=0.0), ref, 1.0, x0=x0,
                   step=1e-3, saturation=False)
    assert np.abs(res.error).max() < 1e-8


def test_the_integrators_agree_and_bad_runs_are_refused():
    robot = space_arm()
    x0, tau = start(robot, 1)
    n = robot.n_q
    law = lambda tt, q, qd: tau - 2.0 * qd[..., 6:]           # noqa: E731
    X = simulate(robot, law, None, 0.2, x0=x0, step=0.05, method="DOP853", saturation=False)
    Y = simulate(robot, law, None, 0.2, x0=x0, step=1e-3, record_every=50, saturation=False)
    assert X.q.shape == Y.q.shape == (5, 7 + n)
    assert np.abs(difference(robot, X.q, Y.q)).max() < 1e-9
    assert np.abs(X.qd - Y.qd).max() < 1e-9
    # a batch of initial states; a joints-only x0 puts the base at the origin, at rest
    XB = simulate(robot, law, None, 0.01, x0=np.stack([x0, x0]), saturation=False)
    assert XB.q.shape == (11, 2, 7 + n) and np.array_equal(XB.q[:, 0], XB.q[:, 1])
    J = simulate(robot, law, None, 0.01, x0=np.r_[x0[7:7 + n], x0[-n:]], saturation=False)
    assert np.array_equal(J.q[0], np.r_[neutral(robot)[:7], x0[7:7 + n]])
    with pytest.raises(ArgumentError, match=r"x0 must hold 21 values \[q, qd\] \(or 8"):
        simulate(robot, law, None, 0.1, x0=x0[1:])
    with pytest.raises(RobmodError, match="torque law gave shape"):
        simulate(robot, lambda tt, q, qd: tau[1:], None, 0.1, x0=x0)
    with pytest.raises(ArgumentError, match="one run"):
        simulate(robot, law, None, 0.1, x0=np.stack([x0, x0]), method="RK45")


def test_controllers_that_cannot_apply_refuse_by_name():
    robot = space_arm()
    fixed = robot.with_base("fixed")
    n = robot.n_q
    with pytest.raises(ArgumentError, match="AdaptivePassivity needs a fixed base.*"
                                            "not linear in its inertial parameters"):
        AdaptivePassivity(robot, 5.0, 20.0)
    with pytest.raises(ArgumentError, match="TaskComputedTorque needs a fixed base"):
        TaskComputedTorque(robot, omega=10.0)
    with pytest.raises(ArgumentError, match="predictive.*no state of the base"):
        ComputedTorque(robot, omega=10.0, mode="predictive")
    with pytest.raises(ArgumentError, match="model of the robot has a fixed base, the "
                                            "simulated robot .* a floating one"):
        simulate(robot, ComputedTorque(fixed, omega=10.0), np.zeros(n), 0.1)
    with pytest.raises(ArgumentError, match="PID follows a desired motion"):
        simulate(robot, PID(robot, 1.0, 1.0), None, 0.1, x0=start(robot)[0])
    ship = robot.with_base("mobile")              # its motion given: another kind of base
    with pytest.raises(ArgumentError, match="model of the robot has a floating base, the "
                                            "simulated robot .* a mobile one"):
        simulate(ship, ComputedTorque(robot, omega=10.0), np.zeros(n), 0.1)
    with pytest.raises(ArgumentError, match="base_motion is the given motion of a mobile "
                                            "base; .* has a floating base"):
        simulate(robot, lambda t, q, qd: np.zeros(n), None, 0.1, x0=start(robot)[0],
                 base_motion=lambda t: None)
    for law in (lambda: AdaptivePassivity(ship, 5.0, 20.0),
                lambda: TaskComputedTorque(ship, omega=10.0)):
        with pytest.raises(ArgumentError, match="needs a fixed base.*mobile robot"):
            law()


def _solo12():
    robot = robmod.read_robot(example_robot_data("solo_description/robots/solo12.urdf"),
                              base="floating").numeric()
    return replace(robot, links=tuple(replace(link, FC=sp.Integer(0), FV=sp.Integer(0))
                                      for link in robot.links))


def _mujoco_run(robot, q0, h, steps, torque):
    """MuJoCo's RK4 on the MJCF export (a ``freejoint`` carrying link 0), the joint torques
    ``torque(q_joints, qd_joints)`` held over each step: the final configuration (7 + n)."""
    mujoco = pytest.importorskip("mujoco")
    from robmod.description.io_mjcf import to_mjcf

    xml = to_mjcf(robot, timestep=h)
    assert '<freejoint name="base"/>' in xml and not xml.warnings
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    base = model.joint("base").qposadr[0]
    qadr = [model.joint(f"q{j}").qposadr[0] for j in robot.joints]
    vadr = [model.joint(f"q{j}").dofadr[0] for j in robot.joints]
    data.qpos[base:base + 7] = q0[:7]
    data.qpos[qadr] = q0[7:]
    for _ in range(steps):
        data.qfrc_applied[vadr] = torque(data.qpos[qadr], data.qvel[vadr])
        mujoco.mj_step(model, data)
    return np.r_[data.qpos[base:base + 7], data.qpos[qadr]]


def _same(robot, ours, theirs):
    if theirs[3] * ours[3] < 0:          # q and -q: the same orientation
        theirs = np.r_[theirs[:3], -theirs[3:7], theirs[7:]]
    return np.abs(difference(robot, ours, theirs)).max()


def test_mjcf_freejoint_simulated_by_mujoco():
    """Solo-12 (a quadruped from example-robot-data) floating, constant joint torques for 1 s
    (0.2 rad/s^2 on every joint at the start, as the fixed-base library test): MuJoCo's RK4 on
    the exported file agrees with robmod's to 1e-9."""
    from robmod.dynamics import inertia_matrix

    robot = _solo12()
    n = robot.n_q
    rng = np.random.default_rng(1)
    q0 = neutral(robot)
    q0[:3] = [0.1, -0.2, 0.3]
    Q = rng.normal(size=4)
    q0[3:7] = Q / np.linalg.norm(Q)
    q0[7:] = rng.uniform(-0.3, 0.3, n)
    tau = 0.2 * inertia_matrix(robot, q0)[6:, 6:] @ np.ones(n)
    h = 1e-3
    ours = simulate(robot, lambda t, q, qd: tau, None, 1.0, x0=np.r_[q0, np.zeros(6 + n)],
                    step=h, saturation=False).q[-1]
    theirs = _mujoco_run(robot, q0, h, 1000, lambda q, qd: tau)
    assert np.abs(ours[:3] - q0[:3]).max() > 1.0       # it moved
    assert _same(robot, ours, theirs) <= 1e-9


def test_a_joint_pd_on_solo_agrees_with_mujoco():
    """Solo-12 floating under a digital joint PD (1 kHz, one RK4 step per sample, the torque
    held: MuJoCo's mj_step with the torque computed before each step), 1 s, the legs moving
    to a crouch while the robot falls and turns: the same configuration to 1e-8."""
    robot = _solo12()
    n = robot.n_q
    q0 = neutral(robot)
    q0[7:] = np.tile([0.0, 0.4, -0.8], 4)
    target = np.tile([0.2, 0.9, -1.6], 4)
    kp, kd = 3.0, 0.05
    pd = PID(robot, kp, kd)
    run = simulate(robot, pd, target, 1.0, x0=np.r_[q0, np.zeros(6 + n)], saturation=False)
    theirs = _mujoco_run(robot, q0, 1e-3, 1000,
                         lambda q, qd: kp * (target - q) + kd * (0.0 - qd))
    assert np.abs(run.joint_q[-1] - run.joint_q[0]).max() > 0.3      # the legs moved
    assert _same(robot, run.q[-1], theirs) <= 1e-8


def test_lqr_and_linearize_on_a_floating_robot():
    """LQR of a floating robot's joints, its base free (the joints' dynamics with the base's
    twist following at no momentum): it tracks a quintic from 10 mrad off; at a set point the
    closed loop's poles from state_matrices and from linearize agree, and computed torque's
    linearized loop has its designed poles (9.26)."""
    from robmod.control import LQR, linearize, state_matrices
    from robmod.trajectory import point_to_point

    robot = space_arm()
    n = robot.n_q
    qa = np.full(n, 0.2)
    motion = point_to_point(qa, qa + 0.4, "quintic", duration=0.5)
    lqr = LQR(robot, motion, R=np.eye(n), dt=2e-3)
    res = simulate(robot, lqr, motion, 0.8, x0=np.r_[qa + 0.01, np.zeros(n)], saturation=False)
    assert res.q.shape == (401, 7 + n) and np.abs(res.error[-1]).max() < 1e-4
    at_rest = LQR(robot, qa, dt=0, R=np.eye(n))
    A, B = state_matrices(robot, qa, np.zeros(n), np.zeros(n))
    assert A.shape == (2 * n, 2 * n) and B.shape == (2 * n, n)
    top = np.linalg.eigvals(A - B @ at_rest.K).real.max()
    assert top < 0 and abs(np.sort(linearize(robot, at_rest, qa).poles.real)[-1] - top) < 1e-6
    poles = linearize(robot, ComputedTorque(robot, omega=10.0, dt=0.0), qa).poles
    assert np.allclose(poles, -10.0, atol=1e-3)


def test_the_joints_dynamics_with_the_base_free_against_differences():
    """FloatingDynamics.derivatives (the tangent-space derivatives through the base's twist at
    no momentum) against central differences of the joints' accelerations."""
    robot = space_arm((0.0, 0.0, -9.81))
    dyn = FloatingDynamics(robot)
    rng = np.random.default_rng(4)
    n = robot.n_q
    q, qd, tau = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    D = dyn.derivatives(q, qd, tau)

    def qdd(a, b, c):
        return dyn.ddm(*dyn.state_of_joints(a, b), c)[6:]

    for k, (x, got) in enumerate(zip((q, qd, tau), D)):
        num = np.empty((n, n))
        for c in range(n):
            e = np.zeros(n)
            e[c] = 1e-6
            args = [q, qd, tau]
            args[k] = x + e
            up = qdd(*args)
            args[k] = x - e
            num[:, c] = (up - qdd(*args)) / 2e-6
        assert np.abs(got - num).max() < 1e-6 * max(1.0, np.abs(num).max())
