"""DGM: one algorithm, symbolic and numeric, checked against Pinocchio and a plain matrix product."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from robmod.testing import numpy_path
import robmod
from robmod.geometry.direct import dgm, dgm_model
from robmod.geometry.transforms import frame_transform
from robmod.testing.random import random_robot


def _product(robot, q, j):
    T = np.eye(4)
    for k in robot.chain(j):
        T = T @ frame_transform(robot, k, q[k - 1])
    return T


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), tree=st.booleans(), general=st.booleans(),
       n=st.integers(1, 7))
def test_numeric_and_customized_dgm_agree_with_product(seed, tree, general, n):
    rng = np.random.default_rng(seed)
    robot = random_robot(rng, n, tree=tree, general=general, dynamics=False)
    q = rng.uniform(-3, 3, n)
    for j in range(1, n + 1):
        ref = _product(robot, q, j)
        assert np.abs(dgm(robot, q, j=j) - ref).max() < 1e-12
    model = dgm_model(robot, j=n)
    f = model.numpy_function()
    assert np.abs(f(q) - _product(robot, q, n)[:3]).max() < 1e-12


def test_any_frame_to_any_frame_in_a_tree():
    robot = robmod.load_robot("torso2arms", numeric=True)
    rng = np.random.default_rng(3)
    q = rng.uniform(-2, 2, (5, 7))
    T4 = dgm(robot, q, j=4)
    T7 = dgm(robot, q, j=7)
    with numpy_path():              # not the compiled model a warm cache would give
        T47 = dgm(robot, q, j=7, i=4)
    assert np.abs(T47 - np.linalg.inv(T4) @ T7).max() < 1e-12
    f = dgm_model(robot, j=7, i=4).compile()
    assert np.abs(f(q) - T47[:, :3]).max() < 1e-12


def test_base_and_tool_frames():
    robot = robmod.load_robot("torso2arms", numeric=True)
    q = np.linspace(-1, 1, 7)
    tool = robot.tools[0]
    T = dgm(robot, q, tool=tool.name, i="world")
    ref = _product(robot, q, tool.frame) @ np.array(tool.T.evalf(), dtype=float)
    assert np.abs(T - ref).max() < 1e-12
    f = dgm_model(robot, tool=tool.name, i="world").numpy_function()
    assert np.abs(f(q) - ref[:3]).max() < 1e-12


def test_symmetric_tree_arms_mirror():
    robot = robmod.load_robot("torso2arms", numeric=True)
    q = np.array([0.0, 0.3, -0.2, 0.5, 0.3, -0.2, 0.5])
    left, right = dgm(robot, q, j=4), dgm(robot, q, j=7)
    # gamma = pi turns the right arm by a half turn about z1 (q1 = 0): x, y change sign
    assert np.allclose(left[:3, 3] * [-1, -1, 1], right[:3, 3])


def test_agrees_with_pinocchio_on_random_robots():
    pytest.importorskip("pinocchio")
    from robmod.testing.peers import PinocchioRobot

    rng = np.random.default_rng(7)
    for k in range(40):
        robot = random_robot(rng, int(rng.integers(2, 8)), tree=k % 2 == 1, general=k % 4 > 1)
        pin_robot = PinocchioRobot(robot)
        for _ in range(3):
            q = rng.uniform(-3, 3, robot.n_joints)
            for j in range(1, robot.n_frames + 1):
                assert np.abs(pin_robot.fk(q, j) - dgm(robot, q, j=j)).max() < 1e-12


def test_batched_shapes():
    robot = robmod.load_robot("rx90", numeric=True)
    q = np.zeros((2, 3, 6))
    assert dgm(robot, q).shape == (2, 3, 4, 4)
    assert dgm(robot, np.zeros(6)).shape == (4, 4)
    with pytest.raises(robmod.RobmodError):
        dgm(robot, np.zeros(5))
