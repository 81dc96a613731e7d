"""Task-coordinate Jacobians J_x = Omega 0J_j (seed 001 §5.11, [5.48]-[5.70]).

Finite differences of the task coordinates X(q) (orientation module conversions)
against J_x qd; Omega Omega^-1 = I; the inverse maps against the derivative of
the rotation matrix; representation singularities flagged; the customized model.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robmod
from robmod.errors import RobmodError
from robmod.geometry.direct import dgm
from robmod.spatial import (euler_zxz_to_matrix, quaternion_to_matrix,
                                         rpy_to_matrix)
from robmod.kinematics.task_kinematics import (omega_inverse, omega_matrix,
                                             representation_singular, task_coordinates,
                                             task_jacobian, task_jacobian_model)
from robmod.testing.random import random_robot

REPS = ("rpy", "zxz", "quaternion", "cosines")
TO_MATRIX = {"rpy": rpy_to_matrix, "zxz": euler_zxz_to_matrix,
             "quaternion": quaternion_to_matrix}


def _fd_task(robot, q, qd, rep, tool=None, h=1e-6):
    """d/dt X(q + t qd) by central differences (angles wrapped, quaternion sign aligned)."""
    Xp = task_coordinates(robot, q + h * qd, representation=rep, tool=tool)
    Xm = task_coordinates(robot, q - h * qd, representation=rep, tool=tool)
    if rep == "quaternion" and Xp[3:] @ Xm[3:] < 0:
        Xm[3:] = -Xm[3:]
    d = Xp - Xm
    if rep in ("rpy", "zxz"):
        d[3:] = np.arctan2(np.sin(d[3:]), np.cos(d[3:]))
    return d / (2 * h)


def _omega_from_rotation(R, Rdot):
    W = Rdot @ R.T
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), tree=st.booleans(), n=st.integers(1, 7))
def test_finite_differences_on_random_robots(seed, tree, n):
    rng = np.random.default_rng(seed)
    robot = random_robot(rng, n, tree=tree, general=True, dynamics=False)
    q = rng.uniform(-3, 3, n)
    qd = rng.uniform(-1, 1, n)
    for rep in REPS:
        if representation_singular(rep, R=dgm(robot, q), tol=1e-3):
            continue
        Jx = task_jacobian(robot, q, representation=rep)
        assert Jx.shape == (6 + {"quaternion": 1, "cosines": 6}.get(rep, 0), n)
        assert np.abs(Jx @ qd - _fd_task(robot, q, qd, rep)).max() < 1e-7


def test_rx90_batched_and_tool():
    robot = robmod.load_robot("rx90", numeric=True)
    rng = np.random.default_rng(3)
    q = rng.uniform(-2.5, 2.5, (6, 6))
    qd = rng.uniform(-1, 1, 6)
    for rep in REPS:
        Jx = task_jacobian(robot, q, representation=rep)
        for b in range(len(q)):
            assert np.abs(Jx[b] @ qd - _fd_task(robot, q[b], qd, rep)).max() < 1e-7
    panda = robmod.load_robot("panda", numeric=True)
    q7 = rng.uniform(-2, 2, 7)
    qd7 = rng.uniform(-1, 1, 7)
    for rep in REPS:
        Jx = task_jacobian(panda, q7, representation=rep, tool="flange")
        assert np.abs(Jx @ qd7 - _fd_task(panda, q7, qd7, rep, tool="flange")).max() < 1e-7


def test_omega_times_inverse_is_identity():
    rng = np.random.default_rng(5)
    for rep in ("rpy", "zxz"):
        ang = rng.uniform(-3, 3, (50, 3))
        ang[:, 1] = rng.uniform(0.2, 1.3, 50) * rng.choice([-1, 1], 50)  # away from the locks
        O, Oi = omega_matrix(rep, angles=ang), omega_inverse(rep, angles=ang)
        assert np.abs(O @ Oi - np.eye(6)).max() < 1e-12
        assert np.abs(Oi @ O - np.eye(6)).max() < 1e-12
        # the same Omega from the rotation matrix when the angles are on the first branch
        first = ang[:, 1] > 0 if rep == "zxz" else np.ones(50, bool)
        OR = omega_matrix(rep, R=TO_MATRIX[rep](ang))
        assert np.abs(OR[first] - O[first]).max() < 1e-10
    R = rpy_to_matrix(rng.uniform(-3, 3, (50, 3)))
    for rep, gram in (("quaternion", 0.25), ("cosines", 2.0)):
        O, Oi = omega_matrix(rep, R=R), omega_inverse(rep, R=R)
        assert np.abs(Oi @ O - np.eye(6)).max() < 1e-12  # left inverse [5.55]
        Or = O[:, 3:, 3:]
        assert np.abs(np.swapaxes(Or, -1, -2) @ Or - gram * np.eye(3)).max() < 1e-12  # [5.58]
        P = O @ Oi  # a projector onto the tangent space, not the identity
        assert np.abs(P @ P - P).max() < 1e-12
    Q = rng.normal(size=(10, 4)) * 3  # non-unit quaternions: still a left inverse
    assert np.abs(omega_inverse("quaternion", Q) @ omega_matrix("quaternion", Q)
                  - np.eye(6)).max() < 1e-12


@pytest.mark.parametrize("rep", ["rpy", "zxz", "quaternion"])
def test_inverse_map_gives_the_angular_velocity(rep):
    """w = Omega_r^-1 Xr_dot against Rdot R^T along Xr + t Xr_dot ([5.61], [5.64], [5.70])."""
    rng = np.random.default_rng(9)
    h = 1e-6
    for _ in range(10):
        x = rng.uniform(-2, 2, 4 if rep == "quaternion" else 3)
        if rep == "quaternion":
            x /= np.linalg.norm(x)
        xd = rng.uniform(-1, 1, x.shape)
        if rep == "quaternion":
            xd -= (xd @ x) * x  # tangent to the unit sphere ([5.67])
        f = TO_MATRIX[rep]
        Rdot = (f(x + h * xd) - f(x - h * xd)) / (2 * h)
        w = _omega_from_rotation(f(x), Rdot)
        Oi = omega_inverse(rep, x)
        assert np.abs(Oi[3:, 3:] @ xd - w).max() < 1e-8
        if rep != "quaternion":
            assert np.abs(omega_matrix(rep, x)[3:, 3:] @ w - xd).max() < 1e-8


def test_singularities_flagged():
    rx90 = robmod.load_robot("rx90", numeric=True)
    q0 = np.zeros(6)  # 0R6 = I: theta = 0 for the Euler angles
    assert representation_singular("zxz", R=dgm(rx90, q0))
    with pytest.raises(RobmodError, match="singularity"):
        task_jacobian(rx90, q0, representation="zxz")
    Jx = task_jacobian(rx90, np.stack([q0, q0 + 0.3]), representation="zxz", on_singular="nan")
    assert np.all(np.isnan(Jx[0, 3:])) and not np.any(np.isnan(Jx[0, :3]))
    assert not np.any(np.isnan(Jx[1]))
    for rep in ("rpy", "quaternion", "cosines"):  # not singular there
        assert not np.any(np.isnan(task_jacobian(rx90, q0, representation=rep)))
    # RPY: cos(theta) = 0
    lock = np.array([[0.4, np.pi / 2, -0.2], [0.4, 0.3, -0.2]])
    assert list(representation_singular("rpy", angles=lock)) == [True, False]
    with pytest.raises(RobmodError, match="cos"):
        omega_matrix("rpy", angles=lock)
    O = omega_matrix("rpy", angles=lock, on_singular="nan")
    assert np.all(np.isnan(O[0, 3:, 3:])) and np.all(np.isfinite(O[1]))
    assert np.all(np.isfinite(omega_inverse("rpy", angles=lock)))  # the inverse exists
    assert not representation_singular("quaternion", R=np.eye(3))


def test_task_coordinates_round_trip():
    robot = robmod.load_robot("rx90", numeric=True)
    q = np.random.default_rng(1).uniform(-2, 2, (4, 6))
    T = dgm(robot, q)
    for rep in ("rpy", "zxz", "quaternion"):
        X = task_coordinates(robot, q, representation=rep)
        assert np.abs(X[..., :3] - T[..., :3, 3]).max() < 1e-14
        assert np.abs(TO_MATRIX[rep](X[..., 3:]) - T[..., :3, :3]).max() < 1e-12
    X = task_coordinates(robot, q, representation="cosines")
    assert np.abs(X[..., 3:].reshape(4, 3, 3).swapaxes(-1, -2) - T[..., :3, :3]).max() == 0


@pytest.mark.parametrize("rep", REPS)
def test_customized_model_matches_numeric(rep):
    rx90 = robmod.load_robot("rx90", numeric=True)
    rng = np.random.default_rng(4)
    q = rng.uniform(-2.5, 2.5, (20, 6))
    if rep == "quaternion":  # the branch-free model needs Q0 > 0
        q = q[task_coordinates(rx90, q, representation="quaternion")[:, 3] > 0.1]
    Jx, X = task_jacobian_model(rx90, representation=rep, coordinates=True).numpy_function()(q)
    assert np.abs(Jx - task_jacobian(rx90, q, representation=rep)).max() < 1e-10
    ref = task_coordinates(rx90, q, representation=rep)
    dX = X - ref
    if rep in ("rpy", "zxz"):
        dX[:, 3:] = np.arctan2(np.sin(dX[:, 3:]), np.cos(dX[:, 3:]))
    assert np.abs(dX).max() < 1e-10
    tree = robmod.load_robot("torso2arms", numeric=True)
    q7 = rng.uniform(-2, 2, (5, 7))
    if rep == "quaternion":
        q7 = q7[task_coordinates(tree, q7, representation=rep, tool="right_hand")[:, 3] > 0.1]
    f = task_jacobian_model(tree, representation=rep, tool="right_hand").numpy_function()
    assert np.abs(f(q7) - task_jacobian(tree, q7, representation=rep, tool="right_hand")).max() < 1e-10


def test_rx90_model_operation_counts():
    rx90 = robmod.load_robot("rx90")
    counts = {rep: task_jacobian_model(rx90, representation=rep).count() for rep in REPS}
    assert {r: (c.mults, c.adds) for r, c in counts.items()} == {
        "rpy": (99, 43), "zxz": (87, 37), "quaternion": (123, 65), "cosines": (137, 57)}


def test_bad_input():
    rx90 = robmod.load_robot("rx90", numeric=True)
    with pytest.raises(RobmodError, match="unknown orientation"):
        task_jacobian(rx90, np.zeros(6), representation="xyz")
    with pytest.raises(RobmodError):
        omega_matrix("cosines", angles=[0.1, 0.2, 0.3])
    with pytest.raises(RobmodError):
        omega_matrix("rpy", angles=[0.1, 0.2])
    with pytest.raises(RobmodError):
        omega_matrix("quaternion", [0, 0, 0, 0])
    with pytest.raises(RobmodError):
        task_jacobian(rx90, np.zeros(5), representation="rpy")
