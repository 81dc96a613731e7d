"""Kinematic Jacobian iJ_j: finite differences of the DGM, Pinocchio, RX-90 3J6 (SEEDS.md)."""
import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.geometry.direct import dgm
from robmod.kinematics import jacobian, jacobian_model, pose_and_jacobian
from robmod.testing.random import random_robot


def _fd_jacobian(robot, q, j, i=0, tool=None, h=1e-6):
    """Central differences of the DGM: (dP/dq, omega) expressed in frame i."""
    nj = robot.n_joints
    J = np.zeros((6, nj))
    R = dgm(robot, q, j=j, tool=tool)[:3, :3]
    Ri = dgm(robot, q, j=i)[:3, :3] if i else np.eye(3)
    for k in range(nj):
        dq = np.zeros(nj)
        dq[k] = h
        Tp, Tm = dgm(robot, q + dq, j=j, tool=tool), dgm(robot, q - dq, j=j, tool=tool)
        W = (Tp[:3, :3] - Tm[:3, :3]) / (2 * h) @ R.T
        J[:3, k] = Ri.T @ (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        J[3:, k] = Ri.T @ np.array([W[2, 1], W[0, 2], W[1, 0]])
    return J


@pytest.mark.parametrize("tree", [False, True])
def test_finite_differences_on_random_robots(tree):
    rng = np.random.default_rng(11 + tree)
    for _ in range(15):
        robot = random_robot(rng, int(rng.integers(1, 8)), tree=tree, general=True,
                             dynamics=False)
        q = rng.uniform(-3, 3, robot.n_joints)
        for j in range(1, robot.n_frames + 1):
            for i in range(robot.n_frames + 1):
                err = np.abs(jacobian(robot, q, j=j, i=i) - _fd_jacobian(robot, q, j, i)).max()
                assert err < 1e-7, (j, i, err)


def test_agrees_with_pinocchio():
    pytest.importorskip("pinocchio")
    import pinocchio as pin

    from robmod.testing.peers import PinocchioRobot

    rng = np.random.default_rng(5)
    for k in range(30):
        robot = random_robot(rng, int(rng.integers(2, 8)), tree=k % 2 == 1, general=k % 3 > 0)
        peer = PinocchioRobot(robot)
        cols = [j - 1 for j in peer.joint_frames]
        for _ in range(2):
            q = rng.uniform(-3, 3, robot.n_joints)
            qp = peer.pin_q(q)
            pin.computeJointJacobians(peer.model, peer.data, qp)
            pin.updateFramePlacements(peer.model, peer.data)
            Jall = jacobian(robot, np.stack([q, q]), j=None)  # batch path
            assert Jall.shape == (2, 6, robot.n_joints)
            for j in range(1, robot.n_frames + 1):
                ref = pin.computeFrameJacobian(peer.model, peer.data, qp, peer.frame_id[j],
                                               pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
                J = jacobian(robot, q, j=j)
                assert np.abs(J[:, cols] - ref).max() < 1e-10
                others = np.setdiff1d(np.arange(robot.n_joints), cols)
                assert not np.any(J[:, others])


def test_tool_frame_and_pose_in_one_pass():
    robot = robmod.load_robot("panda", numeric=True)
    rng = np.random.default_rng(2)
    q = rng.uniform(-2, 2, (4, 7))
    T, J = pose_and_jacobian(robot, q, tool="flange")
    assert np.abs(T - dgm(robot, q, tool="flange")).max() < 1e-14
    assert np.abs(J - jacobian(robot, q, tool="flange")).max() < 1e-14
    assert np.abs(J[1] - _fd_jacobian(robot, q[1], 7, tool=robot.tools[0])).max() < 1e-7
    J3 = jacobian(robot, q, tool="flange", i=3)
    R3 = dgm(robot, q, j=3)[..., :3, :3]
    assert np.abs(J3[:, :3] - np.swapaxes(R3, -1, -2) @ J[:, :3]).max() < 1e-14


def _expanded(model):
    """The outputs of a customized model as full expressions of the inputs."""
    subs = {}
    for lhs, rhs in model.statements:
        subs[lhs] = rhs.xreplace(subs)
    return [e.xreplace(subs) for e in model.outputs[0].exprs]


def test_rx90_3J6_matches_the_derived_form():
    robot = robmod.load_robot("rx90")
    model = jacobian_model(robot, j=6, i=3)
    D3, RL4 = sp.symbols("D3 RL4")
    q = sp.symbols("q1:7")
    S, C = sp.sin, sp.cos
    S23, C23 = S(q[1] + q[2]), C(q[1] + q[2])
    S3, C3, S4, C4, S5, C5 = S(q[2]), C(q[2]), S(q[3]), C(q[3]), S(q[4]), C(q[4])
    ref = sp.Matrix([
        [0, -RL4 + S3 * D3, -RL4, 0, 0, 0],
        [0, C3 * D3, 0, 0, 0, 0],
        [S23 * RL4 - C(q[1]) * D3, 0, 0, 0, 0, 0],
        [S23, 0, 0, 0, S4, -C4 * S5],
        [C23, 0, 0, 1, 0, C5],
        [0, 1, 1, 0, C4, S4 * S5]])
    got = sp.Matrix(6, 6, _expanded(model))
    trig = {sp.Symbol(f"{p}{k}"): f(qk) for k, qk in enumerate(q, 1)
            for p, f in (("S", S), ("C", C))}
    got = got.xreplace(trig).xreplace({sp.Symbol(f"q{k}"): q[k - 1] for k in range(1, 7)})
    diff = (got - ref).applyfunc(lambda e: sp.simplify(sp.expand_trig(e)))
    assert diff == sp.zeros(6, 6)
    # numeric model agrees with the numeric algorithm
    num = robot.numeric()
    qv = np.linspace(0.2, 1.2, 6)
    f = jacobian_model(num, j=6, i=3).numpy_function()
    assert np.abs(f(qv) - jacobian(num, qv, j=6, i=3)).max() < 1e-14


def test_bad_arguments():
    robot = robmod.load_robot("rx90", numeric=True)
    with pytest.raises(robmod.RobmodError):
        jacobian(robot, np.zeros(5))
    with pytest.raises(robmod.RobmodError):
        jacobian(robot, np.zeros(6), j=9)
