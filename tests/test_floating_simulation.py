"""Simulation of floating robots: in space the linear and angular momenta are conserved to the
integration's accuracy (fourth order: halving the step divides the drift by 16), in free fall
the linear momentum grows by M g t and the angular one about the centre of mass stays; the MJCF
export with a ``freejoint``, simulated by MuJoCo, agrees with robmod's simulation."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.dynamics import (center_of_mass, centroidal_momentum, idm,
                             inertia_matrix, floating_simulate,
                             floating_state_derivative, SimulationResult)
from robmod.errors import ArgumentError, RobmodError
from robmod.geometry import neutral
from robmod.testing import random_inertial, random_robot


def space_arm(gravity=(0.0, 0.0, 0.0)):
    """A 4-joint tree on a satellite: random inertias, a 50 kg base."""
    rng = np.random.default_rng(11)
    robot = random_robot(rng, n=4, tree=True, prismatic=False)
    base = random_inertial(rng)
    base = {k: v * 20 for k, v in base.items()}
    robot = robot.with_base("floating", **base)
    return replace(robot, gravity=tuple(sp.Float(g) for g in gravity))


def start(robot, seed=0):
    rng = np.random.default_rng(seed)
    n = robot.n_q
    q = neutral(robot)
    q[:3] = rng.normal(size=3)
    Q = rng.normal(size=4)
    q[3:7] = Q / np.linalg.norm(Q)
    q[7:] = rng.uniform(-1, 1, n)
    return np.r_[q, 0.3 * rng.normal(size=6), rng.normal(size=n)], 0.5 * rng.normal(size=n)


def drift(robot, h, T=1.0):
    x0, tau = start(robot)
    n = robot.n_q
    t = np.arange(0.0, T + h / 2, h)
    res = floating_simulate(robot, lambda tt, x: tau, x0, t)
    assert isinstance(res, SimulationResult) and res.robot is robot
    assert res.q.shape == (t.size, 7 + n) and res.qd.shape == (t.size, 6 + n)
    assert np.array_equal(res.tau, np.broadcast_to(tau, (t.size, n)))
    X = np.asarray(res)          # the states [q, qd] (len(t), 13 + 2 n)
    hg = centroidal_momentum(robot, res.q, res.qd, i="world")
    mass = float(sum(link.M for link in robot.links) + robot.base_link.M)
    g = np.array([float(v) for v in robot.gravity])
    lin = np.abs(hg[:, :3] - hg[0, :3] - mass * g * t[:, None]).max()
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
    assert np.allclose(np.linalg.norm(X[:, 3:7], axis=-1), 1.0, atol=1e-15)
    if gravity[2]:      # the centre of mass falls: c(t) = c0 + v0 t + g t^2 / 2
        n = robot.n_q
        c = center_of_mass(robot, X[:, :7 + n], i="world")
        mass = float(sum(link.M for link in robot.links) + robot.base_link.M)
        t = np.arange(0.0, 1.0 + 1e-3, 2e-3)
        expect = c[0] + hg[0, :3] / mass * t[:, None] + 0.5 * np.array(gravity) * t[:, None] ** 2
        assert np.abs(c - expect).max() < 1e-8


def test_the_state_derivative_and_a_scipy_integrator():
    robot = space_arm()
    x0, tau = start(robot, 1)
    n = robot.n_q
    xd = floating_state_derivative(robot, x0, tau)
    M = inertia_matrix(robot, x0[:7 + n])
    # the accelerations solve M a + h = [0; tau]
    h = idm(robot, x0[:7 + n], x0[7 + n:], np.zeros(6 + n))
    assert np.allclose(M @ xd[7 + n:] + h, np.r_[np.zeros(6), tau], atol=1e-9)
    t = np.linspace(0, 0.2, 5)
    X = floating_simulate(robot, lambda tt, x: tau, x0, t, method="DOP853")
    Y = floating_simulate(robot, lambda tt, x: tau, x0, t, substeps=20)
    assert np.abs(X.x - Y.x).max() < 1e-9
    assert X.tau.shape == Y.tau.shape == (t.size, n)
    with pytest.raises(ArgumentError, match="ddm_method must be one of"):
        floating_simulate(robot, lambda tt, x: tau, x0, t, ddm_method="recursiv")
    with pytest.raises(ArgumentError, match="switch"):
        floating_simulate(robot, lambda tt, x: tau, x0, t, gravity="no")
    with pytest.raises(ArgumentError, match="x0 must be a state"):
        floating_simulate(robot, lambda tt, x: tau, x0[1:], t)
    with pytest.raises(RobmodError, match="torque law gave a bad value"):
        floating_simulate(robot, lambda tt, x: tau[1:], x0, t)


def _solo12():
    from test_floating_urdf_robots import ROOT      # noqa: PLC0415 - the same files

    path = f"{ROOT}/solo_description/robots/solo12.urdf"
    robot = robmod.read_robot(path, base="floating").numeric()
    return replace(robot, links=tuple(replace(link, FC=sp.Integer(0), FV=sp.Integer(0))
                                      for link in robot.links))


def test_mjcf_freejoint_simulated_by_mujoco():
    """Solo-12 (a quadruped from example-robot-data) floating, constant joint torques for 1 s
    (0.2 rad/s^2 on every joint at the start, as the fixed-base library test): MuJoCo's RK4 on
    the exported file (a ``freejoint`` carrying link 0) agrees with robmod's to 1e-9."""
    mujoco = pytest.importorskip("mujoco")
    pytest.importorskip("pinocchio")
    from robmod.description.io_mjcf import to_mjcf

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
    ours = floating_simulate(robot, lambda t, x: tau, np.r_[q0, np.zeros(6 + n)],
                             np.arange(0.0, 1.0 + h / 2, h)).q[-1]
    xml = to_mjcf(robot, timestep=h)
    assert '<freejoint name="base"/>' in xml and not xml.warnings
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    base = model.joint("base").qposadr[0]
    data.qpos[base:base + 7] = q0[:7]
    for k, j in enumerate(robot.joints):
        data.qpos[model.joint(f"q{j}").qposadr[0]] = q0[7 + k]
        data.qfrc_applied[model.joint(f"q{j}").dofadr[0]] = tau[k]
    for _ in range(int(round(1.0 / h))):
        mujoco.mj_step(model, data)
    theirs = np.r_[data.qpos[base:base + 7],
                   [data.qpos[model.joint(f"q{j}").qposadr[0]] for j in robot.joints]]
    if theirs[3] * ours[3] < 0:          # q and -q: the same orientation
        theirs[3:7] *= -1
    assert np.abs(ours[:3] - q0[:3]).max() > 1.0       # it moved
    assert np.abs(theirs - ours).max() <= 1e-9
