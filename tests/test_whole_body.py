"""Inverse dynamics with contacts (the QP) and the whole-body controller on Solo-12."""
import numpy as np
import pytest

import robmod
from robmod.control import Trot, WholeBodyController
from robmod.description import ContactPoint
from robmod.control import simulate
from robmod.dynamics import constrained_ddm, contact_idm, idm
from robmod.errors import ArgumentError
from robmod.geometry import neutral
from robmod.kinematics import contact_jacobian
from robmod.testing import example_robot_data

pytest.importorskip("proxsuite")

FEET = tuple(ContactPoint(f"{leg}_FOOT", friction=0.8) for leg in ("FL", "FR", "HL", "HR"))


@pytest.fixture(scope="module")
def solo():
    return robmod.read_robot(example_robot_data("solo_description/robots/solo12.urdf"),
                             base="floating").numeric()


def standing(solo):
    q = neutral(solo)
    q[7:] = np.tile([0.0, 0.8, -1.6], 4)
    q[2] = 0.22294615             # the feet on the ground
    return q


def test_contact_inverse_dynamics_gives_the_motion_asked(solo):
    q = standing(solo)
    rng = np.random.default_rng(0)
    qd = np.zeros(18)
    qdd = np.r_[rng.normal(size=6) * 0.3, np.zeros(12)]
    J = contact_jacobian(solo, q, FEET)
    # accelerations that keep the feet still: the null space of J
    qdd = qdd - np.linalg.pinv(J) @ (J @ qdd)
    out = contact_idm(solo, q, qd, qdd, FEET)
    assert np.abs(out.base_wrench).max() < 1e-6          # the contacts give the base's wrench
    f = out.forces.reshape(4, 3)
    assert np.all(f[:, 2] >= -1e-9)
    assert np.all(np.abs(f[:, :2]) <= 0.8 / np.sqrt(2) * f[:, 2:] + 1e-9)
    # forward: these torques give that motion
    fwd = constrained_ddm(solo, q, qd, out.tau, FEET)
    assert np.allclose(fwd.qdd, qdd, atol=1e-6)
    # forces given: Pinocchio's rnea less J^T f
    given = contact_idm(solo, q, qd, qdd, FEET, forces=out.forces)
    full = idm(solo, q, qd, qdd) - J.T @ out.forces
    assert np.allclose(given.tau, full[6:]) and np.allclose(given.base_wrench, full[:6])


def test_torque_limits_and_friction_are_constraints(solo):
    q = standing(solo)
    with pytest.raises(robmod.RobmodError, match="no solution"):
        contact_idm(solo, q, np.zeros(18), np.zeros(18), FEET, tau_max=0.1)
    with pytest.raises(ArgumentError, match="point contacts"):
        contact_idm(solo, q, np.zeros(18), np.zeros(18),
                    [robmod.description.ContactSurface.rectangle("FL_FOOT", 0.1, 0.1)])


def test_solo_stands_under_the_whole_body_controller(solo):
    q = standing(solo)
    wbc = WholeBodyController(solo, FEET, tau_max=2.7)
    run = simulate(solo, wbc, None, 0.5, x0=np.r_[q, np.zeros(18)], contacts=FEET)
    assert np.abs(run.q[:, :3] - q[:3]).max() < 1e-6
    mass = float(solo.base_link.M + sum(link.M for link in solo.links))
    assert np.isclose(run.contact_forces[-1, :, 2].sum(), 9.81 * mass, rtol=1e-6)
    assert np.abs(run.tau).max() <= 2.7 + 1e-9


def test_the_controller_wants_a_floating_robot_and_point_feet(solo):
    with pytest.raises(ArgumentError, match="floating base"):
        WholeBodyController(robmod.load_robot("rx90", numeric=True), [ContactPoint(6)])
    with pytest.raises(ArgumentError, match="point contacts"):
        WholeBodyController(solo, [robmod.description.ContactSurface.rectangle(
            "FL_FOOT", 0.1, 0.1)])
    assert Trot().stance(0.0).all() and Trot().stance(0.25).tolist() == [False, True, True,
                                                                          False]


SLOW = pytest.mark.skipif(__import__("os").environ.get("ROBMOD_SLOW") != "1",
                          reason="a long run: ROBMOD_SLOW=1")


def test_solo_at_rest_stays_at_rest_for_10_s(solo):
    q = standing(solo)
    run = simulate(solo, WholeBodyController(solo, FEET, tau_max=2.7), None, 10.0,
                   x0=np.r_[q, np.zeros(18)], contacts=FEET, record_every=100)
    assert np.abs(run.q[:, :3] - q[:3]).max() < 1e-6


def test_solo_recovers_from_a_push(solo):
    q = standing(solo)
    kick = np.zeros(18)
    kick[1], kick[3] = 0.4, 1.0
    run = simulate(solo, WholeBodyController(solo, FEET, tau_max=2.7), None, 1.0,
                   x0=np.r_[q, kick], contacts=FEET)
    assert np.abs(run.q[-1, :3] - q[:3]).max() < 1e-3
    assert np.abs(run.q[-1, 4:7]).max() < 1e-3           # level again
    assert np.abs(run.tau).max() <= 2.7 + 1e-9


def trot(solo, duration):
    q = standing(solo)
    wbc = WholeBodyController(solo, FEET, gait=Trot(), velocity=(0.2, 0, 0), tau_max=2.7)
    return simulate(solo, wbc, None, duration, x0=np.r_[q, np.zeros(18)], contacts=FEET)


def test_solo_trots(solo, tmp_path):
    run = trot(solo, 1.5)
    # the viewer plays it: the base's node follows the simulated base
    pytest.importorskip("meshcat")
    from robmod.spatial import quaternion_to_matrix
    from robmod.viewer import RecordingVisualizer, view

    rec = RecordingVisualizer()
    viewer = view(solo, run.q[0], visualizer=rec)
    viewer.animate(run, fps=20)
    poses = rec.animation_poses("/meshcat/robmod/solo")
    np.testing.assert_allclose(poses[:, :3, 3], run.q[::50, :3], atol=1e-12)
    np.testing.assert_allclose(poses[-1, :3, :3], quaternion_to_matrix(run.q[-1, 3:7]),
                               atol=1e-12)
    (tmp_path / "trot.html").write_text(viewer.static_html())
    assert abs(run.q[-1, 0] - 0.3) < 0.03 and abs(run.q[-1, 1]) < 0.03
    assert abs(run.q[-1, 2] - 0.223) < 0.01 and np.abs(run.tau).max() <= 2.7 + 1e-9
    # the diagonal pairs alternate on the ground
    down = run.contact_forces[:, :, 2] > 0
    assert down[900:, 0].mean() < 0.8 and down[900:, 1].mean() < 0.8


@SLOW
def test_solo_trots_10_s_at_1_khz(solo):
    run = trot(solo, 10.0)
    assert abs(run.q[-1, 0] - 2.0) < 0.05 and abs(run.q[-1, 1]) < 0.05
    assert np.abs(run.q[:, 2] - 0.223).max() < 0.02


@SLOW
def test_talos_stands_on_both_feet():
    from robmod.description import ContactSurface
    from robmod.kinematics import contact_poses

    talos = robmod.read_robot(example_robot_data("talos_data/robots/talos_reduced.urdf"),
                              base="floating").numeric()
    soles = [ContactSurface.rectangle(f"{s}_sole_link", 0.2, 0.1, friction=0.8)
             for s in ("left", "right")]
    points = soles[0].points() + soles[1].points()
    q = neutral(talos)
    q[2] = -contact_poses(talos, q, points)[:, 2, 3].min()
    run = simulate(talos, WholeBodyController(talos, points), None, 2.0,
                   x0=np.r_[q, np.zeros(38)], contacts=points)
    assert np.abs(run.q[:, :3] - q[:3]).max() < 1e-5
    mass = float(talos.base_link.M + sum(link.M for link in talos.links))
    assert np.isclose(run.contact_forces[-1, :, 2].sum(), 9.81 * mass, rtol=1e-6)


def test_the_controllers_terms_in_one_call_are_the_models(solo):
    """M, h, the feet's J, J̇qd and positions of one compiled call (the controller's) are
    inertia_matrix's, idm's at qdd = 0 and contact_kinematics', compiled and in NumPy."""
    from robmod.dynamics.contact_problem import whole_body_terms
    from robmod.dynamics import inertia_matrix
    from robmod.kinematics.contacts import contact_kinematics
    from robmod.symbolic import fastpath

    rng = np.random.default_rng(2)
    q = standing(solo)
    q[:3], q[7:] = rng.normal(size=3), rng.normal(size=12)
    Q = rng.normal(size=4)
    q[3:7] = Q / np.linalg.norm(Q)
    qd = rng.normal(size=18)
    want = (inertia_matrix(solo, q), idm(solo, q, qd, np.zeros(18)),
            *contact_kinematics(solo, q, qd, FEET))
    for policy in ("compiled", "numpy"):
        old = fastpath.set_backend(policy)
        try:
            got = whole_body_terms(solo, q, qd, FEET)
        finally:
            fastpath.set_backend(old)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_the_compiled_qp_is_the_numpy_one(solo):
    """The QP's arrays and the torques filled in C are the NumPy path's (to rounding), with a
    swing foot and the torque limits: the same trot's sample either way."""
    from robmod.control.whole_body_kernel import qp_kernel
    from robmod.symbolic import fastpath

    if qp_kernel() is None:
        pytest.skip("no C compiler")
    runs = []
    for policy in ("compiled", "numpy"):
        old = fastpath.set_backend(policy)
        try:
            wbc = WholeBodyController(solo, FEET, gait=Trot(start=0.0), velocity=(0.2, 0, 0),
                                      tau_max=2.7)
            q, qd = standing(solo), np.r_[0.1, 0.0, 0.05, 0.2, -0.1, 0.0, np.zeros(12)]
            taus = [wbc(t, q, qd) for t in (0.0, 0.05, 0.25)]
            runs.append((taus, [np.array(a) for P in wbc._shapes.values() for a in P[:7]]))
        finally:
            fastpath.set_backend(old)
    (tau_c, arrays_c), (tau_n, arrays_n) = runs
    assert len(arrays_c) == len(arrays_n) == 14           # two sets of stance feet
    for a, b in zip(arrays_c, arrays_n):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(tau_c, tau_n, rtol=1e-7, atol=1e-7)
    assert np.abs(tau_c).max() <= 2.7 + 1e-9


def test_the_reduced_qp_has_the_full_qps_optimum(solo):
    """The QP with its equalities eliminated (x = x0 + Z y, n unknowns; C and NumPy) has the
    optimum of the full QP by ProxQP, at the samples of a trot with two and four feet down."""
    from robmod.control.whole_body import _eliminated, _solve
    from robmod.control.whole_body_kernel import qp_kernel
    from robmod.dynamics.contact_qp import solve_qp

    wbc = WholeBodyController(solo, FEET, gait=Trot(start=0.1), velocity=(0.2, 0, 0),
                              tau_max=2.7)
    q, qd = standing(solo), np.r_[0.1, 0.0, 0.05, 0.2, -0.1, 0.0, np.zeros(12)]
    kernels = [None] + ([qp_kernel()] if qp_kernel() is not None else [])
    for t in (0.05, 0.15, 0.35):
        wbc(t, q, qd)
        P = wbc._shapes[wbc.gait.stance(t).tobytes()]
        full = solve_qp(P.H, P.g, P.A, P.b, P.C, P.lower, P.upper)
        obj = 0.5 * full @ P.H @ full + P.g @ full
        for kernel in kernels:
            x0, Z, Hr = _eliminated(P, kernel)[:3]
            assert Z.shape == (18 + 3 * len(P.idx), 12) and Hr.shape == (12, 12)
            np.testing.assert_allclose(P.A @ x0, P.b, atol=1e-10)
            np.testing.assert_allclose(P.A @ Z, 0, atol=1e-10)
            np.testing.assert_allclose(Z.T @ Z, np.eye(12), atol=1e-12)
            x = _solve(P, kernel)
            np.testing.assert_allclose(P.A @ x, P.b, atol=1e-8)
            assert np.all(P.C @ x >= P.lower - 1e-8) and np.all(P.C @ x <= P.upper + 1e-8)
            assert abs(0.5 * x @ P.H @ x + P.g @ x - obj) <= 1e-8 * max(1, abs(obj))
            # the accelerations and forces the same to the solvers' tolerance
            np.testing.assert_allclose(x, full, atol=1e-4 * np.abs(full).max())


def test_the_compiled_base_task_is_the_numpy_one(solo):
    """The base's desired acceleration in C is _base_task's; beyond 90 degrees of rotation
    error the C kernel hands over to it (None)."""
    from robmod.control.whole_body import _rotation
    from robmod.control.whole_body_kernel import qp_kernel

    kernel = qp_kernel()
    if kernel is None:
        pytest.skip("no C compiler")
    rng = np.random.default_rng(4)
    wbc = WholeBodyController(solo, FEET, velocity=(0.2, 0.1, 0))
    q = standing(solo)
    wbc(0.0, q, np.zeros(18))
    for k in range(20):
        q[:3] = rng.normal(size=3)
        Q = np.r_[1.0, rng.normal(size=3) * (0.2 if k < 15 else 3.0)]
        q[3:7] = Q / np.linalg.norm(Q)
        qd = rng.normal(size=18)
        want = wbc._base_task(0.3, q, qd, _rotation(q[3:7]))
        got = kernel.base_task(q, qd, *wbc._base_targets(0.3, q), *wbc.base_gains)
        if got is None:
            assert k >= 15
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_the_trots_swing_path_is_smooth_and_lands():
    """Trot.swing: from start to end with zero velocity and acceleration at both ends, the
    bump's height at the middle, and velocity and acceleration the derivatives of the path
    (central differences)."""
    gait = Trot(height=0.04)
    start, end, T = np.array([0.1, -0.2, 0.0]), np.array([0.25, -0.15, -0.005]), 0.2
    p0, v0, a0 = gait.swing(start, end, 0.0, T)
    p1, v1, a1 = gait.swing(start, end, 1.0, T)
    np.testing.assert_allclose(p0, start, atol=1e-15)
    np.testing.assert_allclose(p1, end, atol=1e-15)
    np.testing.assert_allclose(np.r_[v0, a0, v1, a1], 0, atol=1e-12)
    assert np.isclose(gait.swing(start, end, 0.5, T)[0][2], (start[2] + end[2]) / 2 + 0.04)
    e = 1e-6
    for s in (0.2, 0.5, 0.8):
        p, v, a = gait.swing(start, end, s, T)
        pp, vp, _ = gait.swing(start, end, s + e, T)
        pm, vm, _ = gait.swing(start, end, s - e, T)
        np.testing.assert_allclose(v, (pp - pm) / (2 * e * T), atol=1e-6)
        np.testing.assert_allclose(a, (vp - vm) / (2 * e * T), atol=1e-4)
