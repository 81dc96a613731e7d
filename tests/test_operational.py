"""Operational space model of seed 003 §7.8 (7.127)-(7.141) and the dynamic manipulability
ellipsoid of §7.9 (7.142)-(7.149), checked against Pinocchio, finite differences, the
non-redundant closed forms and the algebraic identities of the dynamically consistent inverse.

(Complements tests/test_operational_space.py, which checks the model against the joint-space
IDM/DDM on the RX-90 and Panda.)
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robmod
from robmod.dynamics import gravity_torques, idm, inertia_matrix
from robmod.dynamics.operational import (dynamic_manipulability_ellipsoid,
                                               operational_space)
from robmod.kinematics import acceleration, jacobian, velocity_ellipsoid, weighted_pinv
from robmod.testing.random import random_robot, with_random_dynamics

pin = pytest.importorskip("pinocchio")
from robmod.testing.peers import PinocchioRobot  # noqa: E402


def dyn(name, seed=0):
    rng = np.random.default_rng(seed)
    return with_random_dynamics(robmod.load_robot(name, numeric=True), rng, friction=False)


def mv(A, x):
    return np.einsum("...ab,...b->...a", A, x)


def fd_jdot_qdot(robot, q, qd, j=None, tool=None, h=1e-6):
    """d/dt (J(q) qd) along q + t qd at t = 0 (central differences)."""
    def f(t):
        return mv(jacobian(robot, q + t * qd, j=j, tool=tool), qd)
    return (f(h) - f(-h)) / (2 * h)


def pinocchio_operational(robot, q, qd, frame, rows):
    """B_A, C_A xd, g_A (7.130)-(7.132) from Pinocchio's M, nonlinear effects, frame Jacobian
    and classical frame acceleration (LOCAL_WORLD_ALIGNED = robmod's frame-0 rows)."""
    P = PinocchioRobot(robot)
    fid = P.frame_id[frame]
    pq, pv = P.pin_q(q), P.pin_q(qd)
    M = pin.crba(P.model, P.data, pq)
    M = np.triu(M) + np.triu(M, 1).T
    g = pin.computeGeneralizedGravity(P.model, P.data, pq)
    c = pin.nonLinearEffects(P.model, P.data, pq, pv) - g
    pin.forwardKinematics(P.model, P.data, pq, pv, np.zeros_like(pv))
    pin.computeJointJacobians(P.model, P.data, pq)
    pin.updateFramePlacements(P.model, P.data)
    J = pin.getFrameJacobian(P.model, P.data, fid, pin.LOCAL_WORLD_ALIGNED)[rows, :]
    a = pin.getFrameClassicalAcceleration(P.model, P.data, fid, pin.LOCAL_WORLD_ALIGNED)
    jd = np.r_[a.linear, a.angular][rows]
    Bi_Jt = np.linalg.solve(M, J.T)
    Lam = np.linalg.inv(J @ Bi_Jt)
    mu = Lam @ (J @ np.linalg.solve(M, c) - jd)
    p = Lam @ J @ np.linalg.solve(M, g)
    # Pinocchio orders its joints as P.joint_frames; robmod's q follows frames 1..NJ
    order = [P.joint_frames.index(f) for f in range(1, robot.n_joints + 1)]
    return Lam, mu, p, J[:, order]


CASES = [  # robot, frame (or tool), task rows
    ("rx90", 6, None, None),
    ("panda", None, "flange", None),             # redundant: n = 7 > m = 6
    ("panda", 7, None, (0, 1, 2)),               # reduced task: position only
    ("torso2arms", None, "left_hand", (0, 1, 2, 4)),  # tree, zero Jacobian columns
]


@pytest.mark.parametrize("name,j,tool,rows", CASES)
def test_against_pinocchio(name, j, tool, rows):
    """B_A, C_A xd, g_A on a (2, 3) batch of configurations equal Pinocchio's to 1e-10; the
    Jdot qd used equals finite differences of J(q) qd."""
    robot = dyn(name, 4)
    rng = np.random.default_rng(5)
    n = robot.n_joints
    q, qd = rng.uniform(-1.3, 1.3, (2, 2, 3, n))
    op = operational_space(robot, q, qd, j=j, tool=tool, rows=rows)
    r = list(range(6)) if rows is None else list(rows)
    m = len(r)
    assert op.Lambda.shape == (2, 3, m, m) and op.N.shape == (2, 3, n, n)
    frame = f"tool:{tool}" if tool else j
    for a in range(2):
        for b in range(3):
            Lam, mu, p, J = pinocchio_operational(robot, q[a, b], qd[a, b], frame, r)
            assert np.allclose(op.J[a, b], J, atol=1e-12)
            assert np.abs(op.Lambda[a, b] - Lam).max() < 1e-10 * np.abs(Lam).max()
            assert np.abs(op.mu[a, b] - mu).max() < 1e-10 * (1 + np.abs(mu).max())
            assert np.abs(op.p[a, b] - p).max() < 1e-10 * (1 + np.abs(p).max())
    fd = fd_jdot_qdot(robot, q, qd, j=j, tool=tool)[..., r]
    assert np.abs(op.jdot_qdot - fd).max() < 1e-6 * (1 + np.abs(fd).max())


def test_non_redundant_closed_forms():
    """(7.134)-(7.136): B_A = J^-T B J^-1, C_A xd = J^-T C qd - B_A Jdot qd, g_A = J^-T g;
    Jbar = J^-1 and N = 0 (Gamma = J^T F exactly), on a random 6-axis robot with a prismatic
    joint."""
    rng = np.random.default_rng(11)
    robot = with_random_dynamics(random_robot(rng, 6, general=True), rng)
    q, qd = rng.uniform(-1.0, 1.0, (2, 8, 6))
    op = operational_space(robot, q, qd)
    Ji = np.linalg.inv(op.J)
    JiT = np.swapaxes(Ji, -1, -2)
    B = inertia_matrix(robot, q)
    g = gravity_torques(robot, q)
    c = idm(robot, q, qd, np.zeros_like(qd), friction=False) - g
    Lam = JiT @ B @ Ji
    assert np.abs(op.Lambda - Lam).max() < 1e-9 * np.abs(Lam).max()
    mu = mv(JiT, c) - mv(Lam, op.jdot_qdot)
    assert np.abs(op.mu - mu).max() < 1e-9 * (1 + np.abs(mu).max())
    assert np.abs(op.p - mv(JiT, g)).max() < 1e-9 * (1 + np.abs(g).max())
    assert np.abs(op.Jbar - Ji).max() < 1e-9 * np.abs(Ji).max()
    assert np.abs(op.N).max() < 1e-9
    # the model IS the joint model: J^T (B_A xdd + C_A xd + g_A) = IDM
    qdd = rng.uniform(-2, 2, (8, 6))
    xdd = acceleration(robot, q, qd, qdd)
    tau = idm(robot, q, qd, qdd, friction=False)
    F = mv(op.Lambda, xdd) + op.mu + op.p
    assert np.abs(op.torques(F) - tau).max() < 1e-9 * (1 + np.abs(tau).max())


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(7, 9), m=st.integers(2, 6))
def test_dynamically_consistent_inverse(seed, n, m):
    """Redundant random robots, random task rows: (7.140) Jbar^T tau = gamma_A for the IDM
    torques of any qdd; Jbar is the inertia-weighted pseudo-inverse of J (minimum kinetic
    energy, [6.30] of seed 001) with J Jbar = I; N = I - J^T Jbar^T is a projector with
    Jbar^T N = 0 and B^-1 N symmetric, so that N Gamma0 gives no task acceleration."""
    rng = np.random.default_rng(seed)
    robot = with_random_dynamics(random_robot(rng, n, general=True), rng)
    rows = sorted(rng.choice(6, m, replace=False).tolist())
    q, qd, qdd = rng.uniform(-1.2, 1.2, (3, 4, n))
    op = operational_space(robot, q, qd, rows=rows)
    I_m, I_n = np.eye(m), np.eye(n)
    assert np.abs(op.J @ op.Jbar - I_m).max() < 1e-9
    assert np.allclose(op.Jbar, weighted_pinv(op.J, op.B), atol=1e-9 * np.abs(op.Jbar).max())
    assert np.abs(op.N @ op.N - op.N).max() < 1e-9
    assert np.abs(np.swapaxes(op.Jbar, -1, -2) @ op.N).max() < 1e-9
    BiN = np.linalg.solve(op.B, op.N)
    assert np.abs(BiN - np.swapaxes(BiN, -1, -2)).max() < 1e-9 * (1 + np.abs(BiN).max())
    G0 = rng.normal(size=(4, n)) * 10
    null_acc = mv(op.J, np.linalg.solve(op.B, mv(op.N, G0)[..., None])[..., 0])
    assert np.abs(null_acc).max() < 1e-9 * (1 + np.abs(G0).max())
    tau = idm(robot, q, qd, qdd, friction=False)
    xdd = acceleration(robot, q, qd, qdd)[..., rows]
    gamma = mv(op.Lambda, xdd) + op.mu + op.p                         # (7.133)
    assert np.abs(np.einsum("...im,...i->...m", op.Jbar, tau) - gamma).max() < 1e-9 * (
        1 + np.abs(gamma).max())
    # (7.141) with tau0 = the IDM torques themselves gives them back
    assert np.abs(op.torques(gamma, tau) - tau).max() < 1e-9 * (1 + np.abs(tau).max())


def test_singular_task_is_refused():
    robot = dyn("rx90")
    q = np.array([0.3, -0.4, 0.8, 0.2, 0.0, 0.1])                     # q5 = 0: wrist singular
    with pytest.raises(robmod.RobmodError, match="singular"):
        operational_space(robot, q, np.ones(6))
    operational_space(robot, q, np.ones(6), rows=(0, 1, 2))            # position task is fine


def ellipsoid_torques(robot, q, xdd):
    """(7.145)-(7.147): tau = B J+ (xdd + J B^-1 g) for a point of the ellipsoid."""
    J, B, g = jacobian(robot, q), inertia_matrix(robot, q), gravity_torques(robot, q)
    return B @ np.linalg.pinv(J) @ (xdd + J @ np.linalg.solve(B, g))


@pytest.mark.parametrize("name", ["rx90", "panda"])
def test_dynamic_ellipsoid_is_the_book_form(name):
    """(7.148): the semi-axes are 1/sigma_k(B J+) along the right singular vectors (centre
    -J B^-1 g); surface points need unit-norm torques (7.142); for a square J this is the
    kinematic velocity ellipsoid of J B^-1 ((7.149))."""
    robot = dyn(name, 2)
    n = robot.n_joints
    q = np.linspace(0.9, -0.7, n)
    e = dynamic_manipulability_ellipsoid(robot, q)
    J, B = jacobian(robot, q), inertia_matrix(robot, q)
    _, s, Vt = np.linalg.svd(B @ np.linalg.pinv(J))
    order = np.argsort(e.lengths)
    assert np.allclose(e.lengths[order], 1 / s, rtol=1e-10)
    for k, i in enumerate(order):
        assert abs(abs(e.axes[:, i] @ Vt[k]) - 1) < 1e-8
        for sign in (1, -1):
            x = e.centre + sign * e.lengths[i] * e.axes[:, i]
            assert np.isclose(np.linalg.norm(ellipsoid_torques(robot, q, x)), 1.0, rtol=1e-10)
            assert np.isclose(e.level(x), 1.0)
    # random directions: level 1 <=> unit torque norm
    rng = np.random.default_rng(3)
    for u in rng.normal(size=(5, 6)):
        Qu = u @ e.Q @ u
        x = e.centre + u / np.sqrt(Qu)
        assert np.isclose(np.linalg.norm(ellipsoid_torques(robot, q, x)), 1.0, rtol=1e-10)
    if n == 6:
        kin = velocity_ellipsoid(J @ np.linalg.inv(B))
        assert np.allclose(np.sort(kin.lengths), np.sort(e.lengths), rtol=1e-10)
    e0 = dynamic_manipulability_ellipsoid(robot, q, gravity=False)
    assert np.allclose(e0.centre, 0) and np.allclose(e0.lengths, e.lengths)
    assert np.allclose(e.centre, -J @ np.linalg.solve(B, gravity_torques(robot, q)))


def test_dynamic_ellipsoid_position_task_batched():
    """Position rows only, a batch of configurations: each equals its unbatched value, and
    the ellipsoid of the reduced task is consistent with the SVD of B J_p+."""
    robot = dyn("rx90", 7)
    rng = np.random.default_rng(8)
    q = rng.uniform(-1.0, 1.0, (4, 6))
    e = dynamic_manipulability_ellipsoid(robot, q, rows=(0, 1, 2))
    assert e.lengths.shape == (4, 3) and e.axes.shape == (4, 3, 3)
    for k in range(4):
        Jp = jacobian(robot, q[k])[:3]
        s = np.linalg.svd(inertia_matrix(robot, q[k]) @ np.linalg.pinv(Jp), compute_uv=False)
        assert np.allclose(np.sort(e.lengths[k]), np.sort(1 / s), rtol=1e-10)
        one = dynamic_manipulability_ellipsoid(robot, q[k], rows=(0, 1, 2))
        assert np.allclose(one.centre, e.centre[k]) and np.allclose(one.Q, e.Q[k])
