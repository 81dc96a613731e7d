"""Second-order kinematic model (seed 001 §5.10, [5.44]-[5.47]): Jdot qd by the recursion.

Checked against Pinocchio's classical frame acceleration (q'' = 0), against finite
differences of J(q) qd along q + t qd, and against J qdd + Jdot qd.
"""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import robmod
from robmod.description.robot import FIXED, Tool
from robmod.errors import RobmodError
from robmod.geometry.direct import dgm
from robmod.kinematics import jacobian
from robmod.kinematics.second_order import acceleration, jdot_qdot, jdot_qdot_model
from robmod.testing.random import random_robot


def _with_tool(robot, rng):
    """The robot with a random tool E on its last frame."""
    from robmod.spatial import rpy_to_matrix

    T = np.eye(4)
    T[:3, :3] = rpy_to_matrix(rng.uniform(-3, 3, 3))
    T[:3, 3] = rng.uniform(-0.5, 0.5, 3)
    tool = Tool("E", robot.n_links, sp.ImmutableMatrix(T))
    return replace(robot, tools=(tool,))


def _with_fixed_frame(robot, k):
    frames = tuple(replace(f, sigma=FIXED) if f.j == k else f for f in robot.frames)
    return replace(robot, frames=frames)


def _fd(robot, q, qd, j, tool=None, h=1e-5):
    """d/dt (0J_j(q + t qd) qd) at t = 0 by central differences (4th order)."""
    def Jq(t):
        return jacobian(robot, q + t * qd, j=j, tool=tool) @ qd
    return (8 * (Jq(h) - Jq(-h)) - (Jq(2 * h) - Jq(-2 * h))) / (12 * h)


def _pin_acc(peer, q, qd, j, tool=None):
    import pinocchio as pin

    nq = len(peer.joint_frames)
    pin.forwardKinematics(peer.model, peer.data, peer.pin_q(q), peer.pin_q(qd), np.zeros(nq))
    pin.updateFramePlacements(peer.model, peer.data)
    fid = peer.frame_id[f"tool:{tool}" if tool else j]
    return pin.getFrameClassicalAcceleration(peer.model, peer.data, fid,
                                             pin.ReferenceFrame.LOCAL_WORLD_ALIGNED).vector


@pytest.mark.parametrize("tree", [False, True])
def test_agrees_with_pinocchio_classical_acceleration(tree):
    pytest.importorskip("pinocchio")
    from robmod.testing.peers import PinocchioRobot

    rng = np.random.default_rng(21 + tree)
    worst = 0.0
    for k in range(12):
        robot = random_robot(rng, int(rng.integers(1, 8)), tree=tree, general=k % 3 > 0)
        if k % 4 == 3 and robot.n_links > 2:  # a fixed frame (sigma = 2) inside the chain
            robot = _with_fixed_frame(robot, 2)
        robot = _with_tool(robot, rng)
        peer = PinocchioRobot(robot)
        q = rng.uniform(-3, 3, (2, robot.n_q))
        qd = rng.uniform(-2, 2, (2, robot.n_q))
        for j in range(1, robot.n_frames + 1):
            got = jdot_qdot(robot, q, qd, j=j)  # batched
            assert got.shape == (2, 6)
            for b in range(2):
                err = np.abs(got[b] - _pin_acc(peer, q[b], qd[b], j)).max()
                worst = max(worst, err)
        E = jdot_qdot(robot, q[0], qd[0], tool="E")
        worst = max(worst, np.abs(E - _pin_acc(peer, q[0], qd[0], None, "E")).max())
        # expressed in frame i != 0: iR_0 times the frame-0 vector
        for i in range(1, robot.n_frames + 1):
            Ri = dgm(robot, q[0], j=i)[:3, :3]
            for j in (robot.n_links, None):
                ref = _pin_acc(peer, q[0], qd[0], j, None if j else "E")
                got = jdot_qdot(robot, q[0], qd[0], j=j, i=i, tool=None if j else "E")
                worst = max(worst, np.abs(got[:3] - Ri.T @ ref[:3]).max(),
                            np.abs(got[3:] - Ri.T @ ref[3:]).max())
    assert worst < 1e-10, worst


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), tree=st.booleans(), n=st.integers(1, 7))
def test_finite_differences_of_the_jacobian(seed, tree, n):
    rng = np.random.default_rng(seed)
    robot = _with_tool(random_robot(rng, n, tree=tree, general=True, dynamics=False), rng)
    q = rng.uniform(-3, 3, n)
    qd = rng.uniform(-1.5, 1.5, n)
    for j in range(1, n + 1):
        assert np.abs(jdot_qdot(robot, q, qd, j=j) - _fd(robot, q, qd, j)).max() < 1e-7
    assert np.abs(jdot_qdot(robot, q, qd, tool="E") - _fd(robot, q, qd, n, "E")).max() < 1e-7


def test_closed_loop_robot_tree_structure():
    robot = robmod.load_robot("parallelogram", numeric=True)
    rng = np.random.default_rng(4)
    q = rng.uniform(-2, 2, robot.n_q)
    qd = rng.uniform(-1, 1, robot.n_q)
    for j in range(1, robot.n_frames + 1):
        assert np.abs(jdot_qdot(robot, q, qd, j=j) - _fd(robot, q, qd, j)).max() < 1e-7


def test_acceleration_is_J_qdd_plus_jdot_qdot():
    rng = np.random.default_rng(8)
    robot = _with_tool(robmod.load_robot("torso2arms", numeric=True), rng)
    robot = replace(robot, tools=robot.tools[:1])
    q, qd, qdd = rng.uniform(-2, 2, (3, 5, robot.n_q))
    for j, i, tool in ((4, 0, None), (7, 0, None), (7, 4, None), (4, 7, None),
                       (None, 2, "E"), (3, 3, None)):
        J = jacobian(robot, q, j=j, i=i, tool=tool)
        ref = np.einsum("...rk,...k->...r", J, qdd) + jdot_qdot(robot, q, qd, j=j, i=i, tool=tool)
        assert np.abs(acceleration(robot, q, qd, qdd, j=j, i=i, tool=tool) - ref).max() < 1e-12
    # broadcasting of q, qd, qdd
    a = acceleration(robot, q[0], qd, 0.0 * qdd[:1], j=7)
    assert a.shape == (5, 6)
    assert np.abs(a - jdot_qdot(robot, q[0], qd, j=7)).max() < 1e-14


def test_prismatic_joints_coriolis_term():
    """Cartesian arm: Jdot qd = 0; SCARA with its prismatic joint 4 against differences."""
    cart = robmod.load_robot("cartesian2", numeric=True)
    assert not np.any(jdot_qdot(cart, [0.3, -0.2], [1.0, 2.0]))
    scara = robmod.load_robot("scara", numeric=True)
    rng = np.random.default_rng(2)
    q, qd = rng.uniform(-2, 2, (2, 4))
    assert np.abs(jdot_qdot(scara, q, qd) - _fd(scara, q, qd, 4)).max() < 1e-8


def test_customized_model_rx90():
    robot = robmod.load_robot("rx90")
    model = jdot_qdot_model(robot)
    c = model.count()
    assert (c.mults, c.adds) == (100, 54)
    assert {str(s) for s in model.parameters} == {"D3", "RL4"}
    num = robmod.load_robot("rx90", numeric=True)
    f = jdot_qdot_model(num).numpy_function()
    rng = np.random.default_rng(1)
    q, qd = rng.uniform(-3, 3, (2, 10, 6))
    assert np.abs(f(q, qd) - jdot_qdot(num, q, qd)).max() < 1e-12
    # in frame 3 and for a tree with a tool, the model equals the numeric recursion
    f3 = jdot_qdot_model(num, i=3).numpy_function()
    assert np.abs(f3(q, qd) - jdot_qdot(num, q, qd, i=3)).max() < 1e-12
    tree = robmod.load_robot("torso2arms", numeric=True)
    ft = jdot_qdot_model(tree, tool="left_hand", i=5).numpy_function()
    q7, qd7 = rng.uniform(-3, 3, (2, 4, 7))
    ref = jdot_qdot(tree, q7, qd7, tool="left_hand", i=5)
    assert np.abs(ft(q7, qd7) - ref).max() < 1e-12


def test_bad_input():
    robot = robmod.load_robot("rx90", numeric=True)
    with pytest.raises(RobmodError):
        jdot_qdot(robot, np.zeros(5), np.zeros(6))
    with pytest.raises(RobmodError):
        jdot_qdot(robot, np.zeros(6), np.zeros(6), j=9)
    with pytest.raises(RobmodError):
        jdot_qdot(robot, np.zeros(6), np.zeros(6), i=-1)
    with pytest.raises(RobmodError):
        jdot_qdot(robot, np.zeros(6), np.zeros(6), tool="nope")
