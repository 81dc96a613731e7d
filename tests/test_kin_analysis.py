"""Velocity transmission analysis and statics (seed 001 §5.8-§5.9, §6.4)."""
import dataclasses

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import robmod
from robmod.dynamics.newton_euler import idm
from robmod.geometry.direct import dgm
from robmod.kinematics import jacobian
from robmod.kinematics.analysis import (force_ellipsoid, is_singular, jacobian_svd, manipulability,
                                        min_singular_value, rank, singular_values,
                                        singularities_symbolic, task_rows_jacobian,
                                        task_space_dimension, velocity_bounds, velocity_ellipsoid,
                                        velocity_polytope)
from robmod.description import planar3r
from robmod.kinematics.statics import (joint_torques, transport_wrench, virtual_powers,
                                       wrench_from_torques, wrench_transport_matrix)

PANDA = robmod.load_robot("panda").numeric()
RX90 = robmod.load_robot("rx90")
P3R = planar3r()
rng0 = np.random.default_rng(0)
Q_PANDA = rng0.uniform(-2, 2, (5, 7))


# -- SVD, rank, subspaces -------------------------------------------------------------------
def test_svd_subspaces_of_the_panda():
    J = jacobian(PANDA, Q_PANDA, tool="flange")
    d = jacobian_svd(J)
    assert d.U.shape == (5, 6, 6) and d.V.shape == (5, 7, 7) and np.all(d.rank == 6)
    S = np.zeros((5, 6, 7))
    S[:, range(6), range(6)] = d.sigma
    assert np.abs(d.U @ S @ np.swapaxes(d.V, -1, -2) - J).max() < 1e-13  # [5.27]
    one = d[2]
    assert one.null_space.shape == (7, 1) and np.abs(J[2] @ one.null_space).max() < 1e-13
    assert one.range_complement.shape == (6, 0)
    # [5.31]: sigma_i V_i^T qd = U_i^T Xd
    qd = rng0.normal(size=7)
    xd = J[2] @ qd
    assert np.abs(one.sigma * (one.V.T @ qd)[:6] - one.U.T @ xd).max() < 1e-13
    with pytest.raises(robmod.RobmodError):
        d.null_space


def test_singular_planar_arm_subspaces_and_duality():
    """Stretched planar 3R with the (x, y, phi) task: rank 2, Fig. 5.13 / 5.15."""
    q = np.array([0.4, 0.0, -0.3])
    J = task_rows_jacobian(P3R, q, tool="tip", rows=(0, 1, 5))
    d = jacobian_svd(J, tol=1e-9)
    assert int(d.rank) == 2 and rank(J, tol=1e-9) == 2
    u, v = d.range_complement[:, 0], d.null_space[:, 0]
    assert np.abs(J @ v).max() < 1e-12       # self-motion
    assert np.abs(J.T @ u).max() < 1e-12     # wrench borne by the structure (Gamma = 0)
    assert np.abs(joint_torques(J, u)).max() < 1e-12
    J_regular = task_rows_jacobian(P3R, np.array([0.4, 0.5, -0.3]), tool="tip", rows=(0, 1, 5))
    assert is_singular(J) and not is_singular(J_regular)


def test_task_space_dimension():
    assert task_space_dimension(PANDA, tool="flange") == 6
    assert task_space_dimension(RX90.numeric()) == 6
    assert task_space_dimension(P3R, tool="tip") == 3            # x, y, phi (zero rows ignored)
    assert task_space_dimension(P3R, tool="tip", rows=(0, 1)) == 2
    assert task_space_dimension(robmod.load_robot("scara").numeric()) == 4


# -- manipulability and ellipsoids ----------------------------------------------------------
def test_manipulability_definitions():
    J = jacobian(PANDA, Q_PANDA, tool="flange")
    w = manipulability(J)
    assert w.shape == (5,)
    assert np.abs(w - np.sqrt(np.linalg.det(J @ np.swapaxes(J, -1, -2)))).max() < 1e-12  # [5.38]
    assert np.abs(manipulability(task_rows_jacobian(PANDA, Q_PANDA, tool="flange")) - w).max() == 0
    rx = RX90.numeric()
    q = rng0.uniform(-2, 2, (4, 6))
    assert np.abs(manipulability(jacobian(rx, q)) - np.abs(np.linalg.det(jacobian(rx, q)))).max() < 1e-13
    # two-link planar arm: w = a1 a2 |sin q2| (Fig. 5.14)
    p2 = robmod.load_robot("planar2").numeric()
    q2 = np.stack([np.zeros(7), np.linspace(-3, 3, 7)], -1)
    assert np.abs(manipulability(task_rows_jacobian(p2, q2, tool="tip", rows=(0, 1)))
                  - np.abs(np.sin(q2[:, 1]))).max() < 1e-14
    assert manipulability(np.ones((4, 3))) == 0  # m > n


def test_velocity_and_force_ellipsoids():
    rng = np.random.default_rng(3)
    q = np.array([0.3, 1.1, -0.6])
    J = task_rows_jacobian(P3R, q, tool="tip", rows=(0, 1))
    ve, fe = velocity_ellipsoid(J), force_ellipsoid(J)
    assert np.allclose(np.abs(ve.axes), np.abs(fe.axes))
    assert np.allclose(ve.lengths * fe.lengths, 1)
    assert np.isclose(ve.volume_measure, manipulability(J))
    A = np.linalg.inv(J @ J.T)
    for _ in range(20):
        qd = rng.normal(size=3)
        qd /= np.linalg.norm(qd)
        x = J @ qd
        assert ve.level(x) <= 1 + 1e-12 and np.isclose(ve.level(x), x @ A @ x)  # [5.37]
        qr = np.linalg.pinv(J) @ x
        assert np.isclose(ve.level(J @ (qr / np.linalg.norm(qr))), 1)  # boundary: ||qd|| = 1
        c = rng.normal(size=2)
        f = fe.points(c / np.linalg.norm(c))
        assert np.isclose(np.linalg.norm(J.T @ f), 1) and np.isclose(f @ J @ J.T @ f, 1)
    # a flat velocity ellipsoid at a singularity: zero length, infinite force axis
    Js = task_rows_jacobian(P3R, np.array([0.4, 0.0, -0.3]), tool="tip", rows=(0, 1, 5))
    assert np.isclose(velocity_ellipsoid(Js).lengths[-1], 0, atol=1e-12)
    assert force_ellipsoid(Js).lengths[-1] > 1e12


def test_velocity_bounds_and_polytope():
    rng = np.random.default_rng(4)
    q = np.array([0.3, 1.1, -0.6])
    J = task_rows_jacobian(P3R, q, tool="tip", rows=(0, 1))
    qd_max = np.array([1.0, 2.0, 3.0])
    xmax = velocity_bounds(J, qd_max)
    samples = rng.uniform(-1, 1, (2000, 3)) * qd_max @ J.T
    assert np.all(np.abs(samples) <= xmax + 1e-12)
    for k in range(2):
        assert np.isclose(J[k] @ (qd_max * np.sign(J[k])), xmax[k])  # reached at a corner
    V = velocity_polytope(J, qd_max)
    corners = np.array(np.meshgrid(*[[-1, 1]] * 3)).reshape(3, -1).T * qd_max @ J.T
    assert 4 <= len(V) <= 8 and np.allclose(np.abs(V).max(axis=0), xmax)
    assert all(np.min(np.linalg.norm(corners - v, axis=1)) < 1e-12 for v in V)
    from scipy.spatial import Delaunay
    assert np.all(Delaunay(V).find_simplex(samples) >= 0)
    # flat polytope (singular 3x3 Jacobian): vertices still found in the range space
    Js = task_rows_jacobian(P3R, np.array([0.4, 0.0, -0.3]), tool="tip", rows=(0, 1, 5))
    Vs = velocity_polytope(Js, qd_max)
    assert len(Vs) >= 4 and np.allclose(np.abs(Vs).max(axis=0), velocity_bounds(Js, qd_max))


# -- singularities ------------------------------------------------------------------------------
def test_rx90_symbolic_singularities():
    """det(3J6) = -D3 RL4 C3 S5 (RL4 S23 - D3 C2): elbow, wrist, shoulder (seed 001 §6.4)."""
    s = singularities_symbolic(RX90)  # i = 3 by default
    S2, C2, S3, C3, S5 = sp.symbols("S2 C2 S3 C3 S5")
    D3, RL4 = sp.symbols("D3 RL4")
    shoulder = sp.expand(RL4 * (S2 * C3 + C2 * S3) - D3 * C2)
    expected = {C3, S5, shoulder}
    got = {f for f, k in s.factors}
    assert len(s.factors) == 3 and all(k == 1 for _, k in s.factors)
    assert {sp.expand(f) for f in got} | {sp.expand(-f) for f in got} >= expected
    prod = s.constant * sp.Mul(*[f**k for f, k in s.factors])
    assert sp.expand(s.constant * C3 * S5 * shoulder / prod) in (1, -1)
    assert sp.expand(s.constant**2 - D3**2 * RL4**2) == 0
    # numerically: det vanishes at each condition; equals det of the numeric Jacobian elsewhere
    rx = RX90.numeric()
    vals = RX90.values
    rng = np.random.default_rng(5)
    q = rng.uniform(-2, 2, (6, 6))
    assert np.abs(s.evaluate(q, vals) - np.linalg.det(jacobian(rx, q, j=6, i=3))).max() < 1e-12
    q[0, 4] = 0.0                         # wrist: S5 = 0
    q[1, 2] = np.pi / 2                   # elbow: C3 = 0 (arm stretched)
    d3, rl4 = float(vals["D3"]), float(vals["RL4"])
    q[2, 2] = 0.7                         # shoulder: RL4 S23 = D3 C2, solved for q2
    a, b = rl4 * np.cos(0.7), rl4 * np.sin(0.7) - d3   # RL4 S23 - D3 C2 = a S2 + b C2
    q[2, 1] = np.arctan2(-b, a)
    det = s.evaluate(q[:3], vals)
    assert np.abs(det).max() < 1e-15
    assert np.all(is_singular(jacobian(rx, q[:3]), tol=1e-9))
    assert not np.any(is_singular(jacobian(rx, q[3:])))
    # in the shoulder singularity the wrist centre lies on the axis z1 (= z0)
    P4 = dgm(rx, q[2], j=4)[:3, 3]
    assert np.hypot(P4[0], P4[1]) < 1e-15


def test_symbolic_singularities_other_robots():
    s = singularities_symbolic(planar3r(numeric=False), tool="tip")
    assert s.kind == "det(J)" and s.jacobian.shape == (3, 3)
    assert s.factors == ((sp.Symbol("S2"), 1),)
    assert sp.expand(s.constant - sp.Symbol("L1") * sp.Symbol("L2")) == 0
    st_ = singularities_symbolic(robmod.load_robot("stanford"))
    assert {str(f): k for f, k in st_.factors} == {"S2": 1, "S5": 1, "q3": 2}
    # redundant task: det(J J^T) = w^2 ([5.38])
    red = singularities_symbolic(P3R, tool="tip", rows=(0, 1))
    q = np.random.default_rng(6).uniform(-3, 3, (5, 3))
    assert red.kind == "det(J J^T)"
    assert np.abs(red.evaluate(q) - manipulability(task_rows_jacobian(P3R, q, tool="tip", rows=(0, 1))) ** 2).max() \
        < 1e-12


# -- statics ------------------------------------------------------------------------------------
def test_static_torques_match_newton_euler_with_a_link_wrench():
    """Gamma = nJn^T f ([5.43]) against the NE model with the wrench FX..CZ on link 7."""
    rng = np.random.default_rng(7)
    F7 = rng.normal(size=6)
    link7 = dataclasses.replace(PANDA.links[6], **dict(zip(("FX", "FY", "FZ", "CX", "CY", "CZ"),
                                                            map(sp.Float, F7))))
    robot = dataclasses.replace(PANDA, links=PANDA.links[:6] + (link7,))
    q = Q_PANDA[:3]
    z = np.zeros_like(q)
    tau = idm(robot, q, z, z, gravity=False, friction=False, rotor=False)
    g = joint_torques(task_rows_jacobian(PANDA, q, j=7, i="end"), F7)
    assert np.abs(g - tau).max() < 1e-12
    # same wrench with components in frame 0 (moment still about O7): 0J7^T f
    R = dgm(PANDA, q, j=7)[..., :3, :3]
    F0 = np.concatenate([R @ F7[:3], R @ F7[3:]], -1)
    assert np.abs(joint_torques(task_rows_jacobian(PANDA, q, j=7), F0) - tau).max() < 1e-12
    # in an intermediate frame 4
    R4 = dgm(PANDA, q, j=7, i=4)[..., :3, :3]
    F4 = np.concatenate([R4 @ F7[:3], R4 @ F7[3:]], -1)
    assert np.abs(joint_torques(task_rows_jacobian(PANDA, q, j=7, i=4), F4) - tau).max() < 1e-12


def test_wrench_transport_and_duality():
    rng = np.random.default_rng(8)
    q = Q_PANDA[:2]
    FE = rng.normal(size=(2, 6))
    # tool wrench at O_E in R_E == transported wrench at O7 in R7
    g_tool = joint_torques(task_rows_jacobian(PANDA, q, tool="flange", i="end"), FE)
    F7 = transport_wrench(PANDA, q, FE, j=7, i=7, tool="flange")
    assert np.abs(joint_torques(task_rows_jacobian(PANDA, q, j=7, i="end"), F7) - g_tool).max() < 1e-12
    M = wrench_transport_matrix(PANDA, q, j=7, i=7, tool="flange")
    assert np.abs(np.einsum("...ij,...j->...i", M, FE) - F7).max() < 1e-14
    # power: qd . Gamma = V . f for any qd, f
    J = jacobian(PANDA, q, tool="flange")
    qd = rng.normal(size=(2, 7))
    p1, p2 = virtual_powers(J, qd, FE)
    assert np.abs(p1 - p2).max() < 1e-12
    # and V . f is frame invariant: the twist at O0 in R0 with the wrench at O0 in R0
    V = np.einsum("...ij,...j->...i", J, qd)
    F0E = transport_wrench(PANDA, q, FE, j=7, i=0, tool="flange")
    T = dgm(PANDA, q, tool="flange")
    w = V[..., 3:]
    V0 = np.concatenate([V[..., :3] - np.cross(w, T[..., :3, 3]), w], -1)  # velocity of O0
    FEb = np.concatenate([np.einsum("...ij,...j->...i", T[..., :3, :3], FE[..., :3]),
                          np.einsum("...ij,...j->...i", T[..., :3, :3], FE[..., 3:])], -1)
    assert np.abs(np.sum(V0 * F0E, -1) - np.sum(V * FEb, -1)).max() < 1e-12
    # torques -> wrench (square regular Jacobian): exact round trip
    rx = RX90.numeric()
    qr = np.array([0.1, 0.4, 0.3, 0.5, 0.9, 0.2])
    f = rng.normal(size=6)
    assert np.abs(wrench_from_torques(jacobian(rx, qr), joint_torques(jacobian(rx, qr), f)) - f).max() < 1e-10


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=3, max_size=3))
def test_singular_values_min_is_distance_to_singularity(q):
    q = np.array(q)
    J = task_rows_jacobian(P3R, q, tool="tip", rows=(0, 1, 5))
    s = singular_values(J)
    assert np.isclose(min_singular_value(J), s[-1])
    assert np.isclose(np.prod(s), abs(np.linalg.det(J)), atol=1e-12)
    assert np.isclose(abs(np.linalg.det(J)), abs(np.sin(q[1])), atol=1e-12)  # L1 L2 |S2|
