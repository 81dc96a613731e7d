"""∂J/∂q and J̇: finite differences of the Jacobian (trees, tools, frame i, mimic joints),
Pinocchio's frame Jacobian time variation, J̇ q̇ = the second-order model (5.47), the compiled
path."""
from dataclasses import replace
from types import MappingProxyType

import numpy as np
import pytest

import robmod
from robmod.kinematics import (jacobian, jacobian_derivatives, jacobian_derivatives_model,
                               jacobian_dot, jacobian_dot_model, jdot_qdot)
from robmod.symbolic import fastpath
from robmod.testing.random import random_robot


def _fd(robot, q, h=1e-6, **frames):
    return np.stack([(jacobian(robot, q + h * e, **frames) - jacobian(robot, q - h * e, **frames))
                     / (2 * h) for e in np.eye(robot.n_q)], axis=-1)


@pytest.fixture
def numpy_path():
    old = fastpath.set_backend("numpy")
    yield
    fastpath.set_backend(old)


def test_finite_differences_and_the_second_order_model(numpy_path):
    rng = np.random.default_rng(1)
    panda = robmod.load_robot("panda", numeric=True)
    robots = [(panda, dict(tool="flange")), (panda, dict(i=3)),
              (robmod.load_robot("torso2arms", numeric=True), {})]
    robots += [(random_robot(rng, 6, tree=k % 2 == 1, general=True), {}) for k in range(4)]
    base = random_robot(rng, 4, prismatic=False)
    robots.append((replace(base, mimic=MappingProxyType({3: (1, -0.7, 0.2)})), {}))
    for robot, frames in robots:
        q, qd = rng.uniform(-2, 2, (2, robot.n_q))
        D = jacobian_derivatives(robot, q, **frames)
        assert D.shape == (6, robot.n_q, robot.n_q)
        assert np.abs(D - _fd(robot, q, **frames)).max() < 1e-8, robot.name
        Jd = jacobian_dot(robot, q, qd, **frames)
        assert np.abs(Jd - D @ qd).max() < 1e-12
        if frames.get("i", 0) == 0:
            assert np.abs(Jd @ qd - jdot_qdot(robot, q, qd, **frames)).max() < 1e-11
    # batched
    q, qd = rng.uniform(-2, 2, (2, 3, 7))
    assert np.allclose(jacobian_dot(panda, q, qd)[1], jacobian_dot(panda, q[1], qd[1]))


def test_jacobian_time_variation_of_pinocchio(numpy_path):
    pin = pytest.importorskip("pinocchio")
    from robmod.testing.peers import PinocchioRobot

    rng = np.random.default_rng(4)
    for robot in [robmod.load_robot("panda", numeric=True), random_robot(rng, 6, general=True)]:
        p = PinocchioRobot(robot)
        q, qd = rng.uniform(-2, 2, (2, robot.n_q))
        pin.computeJointJacobiansTimeVariation(p.model, p.data, p.pin_q(q), p.pin_q(qd))
        pin.updateFramePlacements(p.model, p.data)
        j = robot.n_links
        ref = pin.getFrameJacobianTimeVariation(p.model, p.data, p.frame_id[j],
                                                pin.LOCAL_WORLD_ALIGNED)
        assert np.abs(jacobian_dot(robot, q, qd, j=j)[:, p.index] - ref).max() < 1e-12


def test_models_and_compiled_path():
    robot = robmod.load_robot("rx90", numeric=True)
    m = jacobian_derivatives_model(robot)
    assert m.outputs[0].shape == (6, 6, 6) and m.count().mults > 0
    assert jacobian_dot_model(robot, i=3).outputs[0].name == "Jdot"
    rng = np.random.default_rng(2)
    q, qd = rng.uniform(-2, 2, (2, 5, 6))
    old = fastpath.set_backend("numpy")
    try:
        ref = jacobian_derivatives(robot, q), jacobian_dot(robot, q, qd)
    finally:
        fastpath.set_backend("compiled")
    try:
        assert np.abs(jacobian_derivatives(robot, q) - ref[0]).max() < 1e-13
        assert np.abs(jacobian_dot(robot, q[2], qd[2]) - ref[1][2]).max() < 1e-13
        assert fastpath.entry(robot, ("jacobian_dot", None, 0, None)).fn is not None
    finally:
        fastpath.set_backend(old)
