"""Motion control (Khalil & Dombre ch. 9) and closed-loop simulation."""
import numpy as np
import pytest

import robmod
from robmod.control import (PID, AdaptivePassivity, ComputedTorque, OpenLoop, PassivityBased,
                            PDGravity, TaskComputedTorque, computed_torque_gains, linearize,
                            pid_gains, simulate, tune_pid)
from robmod.dynamics.lagrange import kinetic_energy, potential_energy
from robmod.errors import RobmodError
from robmod.testing.random import with_random_dynamics


@pytest.fixture(scope="module")
def rx90():
    return with_random_dynamics(robmod.load_robot("rx90").numeric(), np.random.default_rng(3),
                                friction=True)


@pytest.fixture(scope="module")
def panda():
    return robmod.load_robot("panda").numeric()


@pytest.fixture(scope="module")
def planar():
    return robmod.load_robot("planar2").numeric()


def quintic(q0, q1, tf):
    """q(t) of the quintic law (Khalil & Dombre (8.8)) as a reference function."""
    q0, q1 = np.asarray(q0, float), np.asarray(q1, float)
    D = q1 - q0

    def ref(t):
        s = np.clip(np.asarray(t, float) / tf, 0.0, 1.0)[..., None]
        r = 10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5
        rd = (30 * s ** 2 - 60 * s ** 3 + 30 * s ** 4) / tf
        rdd = (60 * s - 180 * s ** 2 + 120 * s ** 3) / tf ** 2
        return q0 + r * D, rd * D, rdd * D
    return ref


# -- gains: the reference values of (9.10) and (9.26) ----------------------------------------

def test_pid_gains_reference_values():
    g = pid_gains(2.5, 0.5, 20.0)
    assert g.kp[0] == pytest.approx(3000) and g.kd[0] == pytest.approx(149.5)
    assert g.ki[0] == pytest.approx(20000)
    np.testing.assert_allclose(np.sort_complex(g.poles()[0]), [-20, -20, -20], atol=1e-3)
    g = pid_gains(2.0, 0.5, 10.0)
    np.testing.assert_allclose([g.kp[0], g.kd[0], g.ki[0]], [600, 59.5, 2000])


def test_computed_torque_gains_and_error_poles(rx90):
    kp, kd = computed_torque_gains(10.0, xi=1.0, n=6)
    np.testing.assert_allclose(kp, np.full(6, 100.0))     # (9.26): Kp = omega^2
    np.testing.assert_allclose(kd, np.full(6, 20.0))      # Kd = 2 xi omega (it was never
    kp, kd = computed_torque_gains(10.0, xi=0.7, n=2)     # checked: after an `and` on None)
    np.testing.assert_allclose(kd, [14.0, 14.0])
    ct = ComputedTorque(rx90, omega=10.0)
    np.testing.assert_allclose(ct.error_poles(), -10, atol=1e-6)


def test_linearized_computed_torque_has_the_designed_poles(rx90):
    ct = ComputedTorque(rx90, omega=[4.0, 5.0, 6.0, 7.0, 8.0, 9.0], xi=1.0, dt=0.0)
    poles = linearize(rx90, ct, [0.1, -0.4, 0.3, 0.2, 0.5, -0.2]).poles
    expected = np.repeat([-4.0, -5.0, -6.0, -7.0, -8.0, -9.0], 2)
    np.testing.assert_allclose(np.sort(poles.real), np.sort(expected), atol=2e-3)
    assert np.abs(poles.imag).max() < 2e-3


# -- computed torque ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["rx90", "panda"])
def test_computed_torque_exact_model_tracks_to_1e6(name, request):
    robot = request.getfixturevalue(name)
    n = len(robot.q)
    q0 = np.zeros(n) + 0.1
    ref = quintic(q0, q0 + np.linspace(0.5, -0.4, n), 1.0)
    ct = ComputedTorque(robot, omega=20.0, dt=0.0)
    res = simulate(robot, ct, ref, 1.2, step=1e-3, saturation=False)
    assert np.abs(res.error).max() <= 1e-6


def test_computed_torque_error_dynamics_are_the_designed_ones(rx90):
    """With an exact model, e'' + 2 w e' + w^2 e = 0 (9.25): e(t) = e0 (1 + w t) exp(-w t)."""
    w = 8.0
    q_set = np.array([0.2, -0.5, 0.4, 0.1, 0.6, -0.3])
    e0 = np.array([0.05, -0.02, 0.01, 0.03, -0.04, 0.02])
    ct = ComputedTorque(rx90, omega=w, dt=0.0)
    res = simulate(rx90, ct, q_set, 1.0, x0=np.concatenate([q_set - e0, np.zeros(6)]),
                   step=1e-3, saturation=False)
    t = res.t[:, None]
    np.testing.assert_allclose(res.error, e0 * (1 + w * t) * np.exp(-w * t), atol=1e-8)


def test_digital_computed_torque_on_quintic_and_model_mismatch(rx90):
    ref = quintic(np.zeros(6), np.full(6, 0.5), 1.0)
    exact = simulate(rx90, ComputedTorque(rx90, omega=20.0), ref, 1.5, substeps=2)
    assert exact.metrics().max.max() < 1e-3  # 1 kHz zero-order hold
    rng = np.random.default_rng(0)
    wrong = robmod.testing.random.with_random_dynamics(rx90, rng, friction=True)
    bad = simulate(rx90, ComputedTorque(wrong, omega=20.0), ref, 1.5, substeps=2)
    assert bad.metrics().max.max() > 10 * exact.metrics().max.max()


def test_task_space_computed_torque_tracks(rx90):
    q0 = np.array([0.1, -0.8, 1.2, 0.3, 0.7, -0.2])
    ref = quintic(q0, q0 + 0.3, 1.0)
    ctrl = TaskComputedTorque(rx90, omega=15.0, dt=0.0)
    res = simulate(rx90, ctrl, ref, 1.0, step=1e-3, saturation=False)
    assert np.abs(res.error).max() <= 1e-6


# -- PID, PD + gravity ----------------------------------------------------------------------

def test_pid_integral_removes_the_static_error_under_gravity(planar):
    q_set = np.array([0.6, -0.4])
    g = tune_pid(planar, omega=15.0)
    x0 = np.zeros(4)
    without = simulate(planar, PID(planar, g.kp, g.kd, 0.0), q_set, 3.0, x0=x0, saturation=False)
    with_i = simulate(planar, PID(planar, g.kp, g.kd, g.ki), q_set, 3.0, x0=x0, saturation=False)
    static = without.metrics().final
    Q = robmod.dynamics.gravity_torques(planar, q_set)
    np.testing.assert_allclose(static, np.abs(Q / g.kp), rtol=1e-2)  # e = Q / Kp
    assert with_i.metrics().final.max() < 1e-3 * static.max()


def test_pid_tuning_poles_and_anti_windup(planar):
    g = tune_pid(planar, omega=10.0)
    assert np.all(g.kd > 0)
    np.testing.assert_allclose(np.sort_complex(g.poles()).real, -10.0, atol=1e-3)
    # saturated actuators: with the integral frozen, no overshoot from windup
    lim = np.array([2000.0, 800.0])
    plain = PID(planar, g.kp, g.kd, g.ki)
    frozen = PID(planar, g.kp, g.kd, g.ki, tau_max=lim)
    a = simulate(planar, plain, [1.5, 0.5], 4.0, x0=np.zeros(4), saturation=lim)
    b = simulate(planar, frozen, [1.5, 0.5], 4.0, x0=np.zeros(4), saturation=lim)
    assert a.metrics().overshoot[0] > 0.05
    assert b.metrics().overshoot[0] < 0.5 * a.metrics().overshoot[0]


def test_pd_gravity_reaches_the_set_point(planar):
    ctrl = PDGravity(planar, kp=[25000.0, 12000.0], kd=[5000.0, 2400.0])
    res = simulate(planar, ctrl, [0.8, -0.6], 5.0, x0=np.zeros(4), saturation=False)
    assert res.metrics().final.max() < 1e-5


# -- passivity-based and adaptive control ------------------------------------------------

def test_passivity_based_exact_model(rx90):
    ref = quintic(np.zeros(6), np.full(6, 0.4), 1.0)
    ctrl = PassivityBased(rx90, lam=20.0, kd=50.0, dt=0.0)
    res = simulate(rx90, ctrl, ref, 1.2, step=1e-3, saturation=False)
    assert np.abs(res.error).max() <= 1e-6


def test_adaptive_control_error_decays_and_estimates_converge(planar):
    """10 % parameter error; persistent excitation by a sum of sines."""
    import dataclasses

    import sympy as sp
    wrong_links = tuple(dataclasses.replace(
        link, **{k: sp.Float(1.1 * float(getattr(link, k))) for k in ("M", "MX", "YY", "ZZ", "IA")})
        for link in planar.links)
    model = dataclasses.replace(planar, links=wrong_links)
    w = np.array([1.3, 2.1])

    def ref(t):
        t = np.asarray(t, float)[..., None]
        return (0.5 * np.sin(w * t) + 0.3 * np.sin(3.1 * w * t),
                0.5 * w * np.cos(w * t) + 0.93 * w * np.cos(3.1 * w * t),
                -0.5 * w ** 2 * np.sin(w * t) - 2.883 * w ** 2 * np.sin(3.1 * w * t))
    ctrl = AdaptivePassivity(model, lam=10.0, kd=200.0, adaptation=20.0)
    fixed = PassivityBased(model, lam=10.0, kd=200.0)
    res = simulate(planar, ctrl, ref, 30.0, saturation=False)
    res_fixed = simulate(planar, fixed, ref, 30.0, saturation=False)
    late = res.t > 25
    assert np.abs(res.error[late]).max() < 0.1 * np.abs(res_fixed.error[late]).max()
    truth = ctrl.true_parameters(planar)
    start = np.abs(ctrl.chi0 - truth)
    end = np.abs(res.controller_state - truth)
    big = start > 1e-9
    assert np.all(end[big] < 0.5 * start[big])


# -- the simulation itself ----------------------------------------------------------------

def test_energy_is_conserved_without_control_or_friction(rx90):
    import dataclasses

    import sympy as sp
    links = tuple(dataclasses.replace(link, FC=sp.Integer(0), FV=sp.Integer(0))
                  for link in rx90.links)
    robot = dataclasses.replace(rx90, links=links)
    x0 = np.array([0.1, -0.3, 0.5, 0.2, -0.4, 0.3, 0.5, -0.2, 0.3, 1.0, -0.5, 0.8])
    res = simulate(robot, OpenLoop(lambda t: np.zeros(6), 6, dt=1e-3), np.zeros(6), 1.0,
                   x0=x0, substeps=4, saturation=False)
    H = kinetic_energy(robot, res.q, res.qd) + potential_energy(robot, res.q)
    assert np.abs(H - H[0]).max() < 1e-8 * max(1.0, abs(H[0]))


def test_batched_runs_equal_single_runs(rx90):
    ref = quintic(np.zeros(6), np.full(6, 0.3), 0.5)
    x0 = np.zeros((3, 12))
    x0[:, 0] = [0.0, 0.01, -0.02]
    ct = ComputedTorque(rx90, omega=10.0)
    batch = simulate(rx90, ct, ref, 0.5)
    many = simulate(rx90, ct, ref, 0.5, x0=x0)
    for b in range(3):
        one = simulate(rx90, ct, ref, 0.5, x0=x0[b])
        np.testing.assert_allclose(many.q[:, b], one.q, atol=1e-12)
    np.testing.assert_allclose(many.q[:, 0], batch.q, atol=1e-12)


def test_divergence_is_an_error_with_time_and_joint(planar):
    stiff = PID(planar, kp=1e9, kd=1e7, dt=1e-2)
    with pytest.raises(RobmodError, match=r"diverged at t = .* on joint"):
        simulate(planar, stiff, [0.5, 0.5], 1.0, x0=np.zeros(4), saturation=False)


def test_measurement_noise_quantization_delay(planar):
    ctrl = PDGravity(planar, kp=[25000.0, 12000.0], kd=[5000.0, 2400.0])
    clean = simulate(planar, ctrl, [0.4, 0.2], 2.0, x0=np.zeros(4), saturation=False)
    noisy = simulate(planar, ctrl, [0.4, 0.2], 2.0, x0=np.zeros(4), saturation=False,
                     noise=(1e-4, 1e-3), quantization=(2 * np.pi / 2 ** 16, 1e-3), delay=2)
    assert 0 < np.abs(noisy.q - clean.q).max() < 0.05
    assert noisy.metrics().final.max() < 5e-3


@pytest.mark.parametrize("bad, match", [
    (dict(kp=[1.0, 2.0, 3.0], kd=1.0), "kp"),
    (dict(kp=-1.0, kd=1.0), "non-negative"),
    (dict(kp=np.nan, kd=1.0), "NaN"),
    (dict(kp=1.0, kd="a"), "kd"),
])
def test_bad_gains(planar, bad, match):
    with pytest.raises(RobmodError, match=match):
        PDGravity(planar, **bad)


def test_bad_simulation_input(planar, rx90):
    ctrl = PDGravity(planar, kp=100.0, kd=10.0)
    with pytest.raises(RobmodError, match="another robot"):
        simulate(planar, ctrl, lambda t: (np.zeros(6), np.zeros(6), np.zeros(6)), 1.0)
    with pytest.raises(RobmodError, match="x0"):
        simulate(planar, ctrl, [0.0, 0.0], 1.0, x0=[np.nan, 0, 0, 0])
    with pytest.raises(RobmodError, match="controller is for 6 joints"):
        simulate(planar, ComputedTorque(rx90, omega=5.0), [0.0, 0.0], 1.0)
    with pytest.raises(RobmodError, match="duration"):
        simulate(planar, ctrl, [0.0, 0.0], -1.0)
    import dataclasses
    from types import MappingProxyType
    geometry_only = dataclasses.replace(robmod.load_robot("rx90"),   # symbolic dynamics
                                        values=MappingProxyType({"D3": 0.45, "RL4": 0.45}))
    with pytest.raises(RobmodError, match="symbolic"):
        ComputedTorque(geometry_only, omega=5.0)


def test_result_plot_and_csv(planar, tmp_path):
    pytest.importorskip("matplotlib")
    ctrl = PDGravity(planar, kp=[25000.0, 12000.0], kd=[5000.0, 2400.0])
    res = simulate(planar, ctrl, [0.8, -0.6], 0.5, x0=np.zeros(4))
    fig = res.plot(tmp_path / "run.png")
    assert (tmp_path / "run.png").stat().st_size > 0
    assert len(fig.axes) == 3 and len(fig.axes[0].lines) == 4  # q and q_des of 2 joints
    res.to_csv(tmp_path / "run.csv")
    data = np.loadtxt(tmp_path / "run.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(data[:, 1:3], res.q)


def test_robots_and_controllers_pickle(planar):
    """Worker processes receive robots and controllers by pickling (the read-only values
    mapping made Robot unpicklable; compiled models travel as their models)."""
    import pickle

    back = pickle.loads(pickle.dumps(robmod.load_robot("rx90")))
    assert dict(back.values) == dict(robmod.load_robot("rx90").values) and back.n_joints == 6
    assert back.values["D3"] == 0.45 and len(back.values) == 81
    ct = ComputedTorque(planar, omega=10.0)
    ct.dyn.idm
    copy = pickle.loads(pickle.dumps(ct))
    a = simulate(planar, ct, [0.3, 0.1], 0.2, x0=np.zeros(4))
    b = simulate(planar, copy, [0.3, 0.1], 0.2, x0=np.zeros(4))
    np.testing.assert_array_equal(a.q, b.q)


# -- a singular inertia matrix is refused, never a raw ZeroDivisionError ---------------------

def test_singular_inertia_matrix_is_refused_by_ddm_and_simulate():
    """The UR5 as it was (links as point masses): link 6's mass lies on axis 6, so A66 = 0 at
    every configuration; ddm and the simulator named the joint (the simulator raised a raw
    ZeroDivisionError while building the direct model)."""
    import dataclasses

    import sympy as sp

    from robmod.dynamics import ddm

    ur5 = robmod.load_robot("ur5", numeric=True)
    link6 = ur5.link(6)
    mz, m = float(link6.MZ), float(link6.M)
    point = dataclasses.replace(link6, XX=sp.Float(mz * mz / m), YY=sp.Float(mz * mz / m),
                                ZZ=sp.Integer(0))
    robot = dataclasses.replace(ur5, links=ur5.links[:5] + (point,))
    with pytest.raises(RobmodError, match="singular at joint 6"):
        ddm(robot, np.zeros(6), np.zeros(6), np.zeros(6))
    with pytest.raises(RobmodError, match="singular at joint 6"):
        simulate(robot, OpenLoop(lambda t: np.zeros(6), 6), np.zeros(6), 0.01)


def test_simulation_refuses_a_configuration_where_the_inertia_matrix_is_singular():
    """Joint 1 vertical, joint 2 horizontal on it, one point mass at 0.5 m along x2 and no
    rotor inertia: at q2 = pi/2 the mass is on axis 1 and A11 = 0 (only there)."""
    import sympy as sp

    from robmod.description.robot import Link

    frames = [dict(j=1, ant=0, sigma=0, mu=1, alpha=0, d=0, theta=0, r=0),
              dict(j=2, ant=1, sigma=0, mu=1, alpha=sp.pi / 2, d=0, theta=0, r=0)]
    m, L = 2.0, 0.5
    links = [Link(j=1), Link(j=2, M=sp.Float(m), MX=sp.Float(m * L), YY=sp.Float(m * L * L),
                             ZZ=sp.Float(m * L * L))]
    robot = robmod.make_robot("rr_point", frames, links, gravity=(0, 0, 0))
    start = np.array([0.0, np.pi / 2])
    with pytest.raises(RobmodError, match="singular at joint 1"):
        simulate(robot, OpenLoop(lambda t: np.array([1.0, 0.0]), 2), start, 0.01,
                 x0=np.concatenate([start, [0.0, 0.0]]))


# -- Coulomb friction under a digital controller ---------------------------------------------

def test_coulomb_compensation_at_the_desired_velocity():
    """PUMA 560, exact model, 1 kHz computed torque on a quintic (docs/control.md and its
    figure, docs/figures/coulomb_compensation.py): compensating F_C sign(qd) with the measured
    velocity gave a 2.5e-3 rad error (the sign chatters at rest and at the start); at the
    desired velocity the error is that of the same robot without Coulomb friction, within 3x."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "docs" / "figures" / "coulomb_compensation.py"
    spec = importlib.util.spec_from_file_location("coulomb_compensation", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    err = {k: np.abs(r.error[r.t <= 1.0]).max() for k, r in script.runs().items()}
    measured = err["sign of the measured velocity"]
    desired = err["sign of the desired velocity (default)"]
    none = err["no Coulomb friction"]
    assert measured > 1e-3 and desired < 0.1 * measured and desired < 3 * none
    with pytest.raises(RobmodError, match="coulomb must be one of"):
        ComputedTorque(robmod.load_robot("planar2", numeric=True), omega=5.0, coulomb="sign")
    with pytest.raises(RobmodError, match="coulomb_width"):
        ComputedTorque(robmod.load_robot("planar2", numeric=True), omega=5.0,
                       coulomb="smooth", coulomb_width=0.0)


def test_closed_loop_robot_under_other_controllers():
    """The parallelogram arm (Siciliano et al. §7.3.3) on its actuated joints: Slotine-Li with
    its closed-loop C(q, qd) (polarization of W^T Gamma_tree), PD + gravity W^T Q; task-space
    and adaptive laws say they do not handle loops yet."""
    from robmod.control import Dynamics
    from robmod.trajectory import point_to_point

    par = robmod.load_robot("parallelogram", numeric=True)
    q0 = Dynamics.of(par).start_configuration()
    assert np.allclose(q0, [0.0, np.pi / 2])
    ref = point_to_point(q0, q0 + 0.2, "quintic", duration=0.4)
    res = simulate(par, PassivityBased(par, lam=20.0, kd=50.0), ref, 0.4)
    assert np.abs(res.error).max() < 1e-4
    res = simulate(par, PDGravity(par, kp=1600.0, kd=80.0), q0 + 0.2, 0.6,
                   x0=np.concatenate([q0, [0.0, 0.0]]))
    assert np.abs(res.error[-1]).max() < 1e-6
    with pytest.raises(RobmodError, match="closed-loop"):
        TaskComputedTorque(par, omega=10.0)
    with pytest.raises(RobmodError, match="closed-loop"):
        AdaptivePassivity(par, 10.0, 10.0)
    with pytest.raises(RobmodError, match="closed loops"):
        tune_pid(par, 10.0)


# -- one typed first argument, frames by keyword (issue 27) -----------------------------------

def test_pid_of_a_robot_or_of_n_joints(planar):
    from robmod.errors import ArgumentError
    from robmod.kinematics import Sample

    pid = PID.for_joints(2, [100.0, 50.0], 10.0, 1.0)
    assert pid.n == 2 and pid.dyn is None and pid.tau_max is None
    with pytest.raises(ArgumentError, match="robot must be a robmod Robot"):
        PID(2, [100.0, 50.0], 10.0, 1.0)                 # one way to say "no model"
    ref = Sample(np.array([0.3, -0.2]), np.zeros(2), np.zeros(2))
    q, qd, z = np.zeros(2), np.array([0.1, 0.0]), np.array([0.01, 0.02])
    np.testing.assert_allclose(pid.output(0.0, q, qd, ref, z), [30.0 - 1.0 + 0.01, -10.0 + 0.02])
    with pytest.raises(ArgumentError, match="robmod Robot"):
        PID("planar2", 1.0, 1.0)
    with pytest.raises(ArgumentError, match="number of joints"):
        PID.for_joints(0, 1.0, 1.0)
    with pytest.raises(ArgumentError, match=r"has no option 'gravity'"):
        PID.for_joints(2, 1.0, 1.0, gravity=True)              # no model: no gravity
    with_g = PID(planar, 1.0, 1.0, gravity=True)              # the robot's gravity torques
    np.testing.assert_allclose(with_g.output(0.0, q, q, Sample(q, q, q), q),
                               robmod.dynamics.gravity_torques(planar, q), atol=1e-12)


def test_task_space_frames_by_keyword(rx90):
    from robmod.control import TaskPID
    from robmod.kinematics import Sample

    q = np.array([0.2, -0.5, 0.9, 0.3, 0.6, -0.2])
    ref = Sample(q + 0.05, np.zeros(6), np.zeros(6))
    z = np.zeros(6)
    new = TaskPID(rx90, 100.0, 20.0, j=4)
    assert not np.allclose(new.output(0.0, q, z, ref, z),
                           TaskPID(rx90, 100.0, 20.0).output(0.0, q, z, ref, z))
    with pytest.raises(RobmodError, match="has no option 'frame'"):
        TaskComputedTorque(rx90, omega=10.0, frame=4)
