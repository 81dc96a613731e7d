"""robmod's closed-loop simulation against MuJoCo on the same robot (MJCF export)."""
import dataclasses

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.control import ComputedTorque, OpenLoop, simulate
from robmod.description.io_mjcf import to_mjcf
from robmod.errors import RobmodError
from robmod.testing.random import random_robot, with_random_dynamics

mujoco = pytest.importorskip("mujoco")


def no_coulomb(robot):
    links = tuple(dataclasses.replace(link, FC=sp.Integer(0)) for link in robot.links)
    return dataclasses.replace(robot, links=links)


def mujoco_run(robot, tau_fn, x0, duration, h):
    model = mujoco.MjModel.from_xml_string(to_mjcf(robot, timestep=h))
    data = mujoco.MjData(model)
    joints = [j for j in robot.joints if j <= robot.n_links]
    adr = [model.joint(f"q{j}").qposadr[0] for j in joints]
    dadr = [model.joint(f"q{j}").dofadr[0] for j in joints]
    n = len(joints)
    data.qpos[adr], data.qvel[dadr] = x0[:n], x0[n:]
    steps = int(round(duration / h))
    out = np.empty((steps + 1, n))
    out[0] = data.qpos[adr]
    for k in range(steps):
        data.qfrc_applied[dadr] = tau_fn(k * h, data.qpos[adr], data.qvel[dadr])
        mujoco.mj_step(model, data)
        out[k + 1] = data.qpos[adr]
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_open_loop_agrees_with_mujoco(seed):
    rng = np.random.default_rng(seed)
    robot = no_coulomb(with_random_dynamics(robmod.load_robot("rx90").numeric(), rng,
                                            friction=True))
    amp = rng.uniform(-5, 5, 6)

    def tau(t):
        return amp * np.sin(3 * t + np.arange(6))
    x0 = np.concatenate([rng.uniform(-1, 1, 6), rng.uniform(-0.5, 0.5, 6)])
    h = 1e-4
    ours = simulate(robot, OpenLoop(tau, 6, dt=h), np.zeros(6), 1.0, x0=x0, saturation=False)
    theirs = mujoco_run(robot, lambda t, q, qd: tau(t), x0, 1.0, h)
    assert np.abs(ours.q - theirs).max() <= 1e-6


def test_tree_robot_agrees_with_mujoco():
    rng = np.random.default_rng(5)
    robot = no_coulomb(random_robot(rng, n=5, tree=True))
    n = len(robot.q)
    x0 = np.concatenate([rng.uniform(-1, 1, n), np.zeros(n)])
    h = 1e-4
    ours = simulate(robot, OpenLoop(lambda t: np.zeros(n), n, dt=h), np.zeros(n), 0.3, x0=x0,
                    saturation=False)
    theirs = mujoco_run(robot, lambda t, q, qd: np.zeros(n), x0, 0.3, h)
    assert np.abs(ours.q - theirs).max() <= 1e-6


def test_closed_loop_computed_torque_agrees_with_mujoco():
    rng = np.random.default_rng(2)
    robot = no_coulomb(with_random_dynamics(robmod.load_robot("rx90").numeric(), rng,
                                            friction=True))
    q_set = np.array([0.3, -0.2, 0.4, 0.1, -0.3, 0.2])
    ct = ComputedTorque(robot, omega=10.0, dt=1e-3)
    ours = simulate(robot, ct, q_set, 0.5, x0=np.zeros(12), substeps=10, saturation=False)
    from robmod.control.reference import Desired
    d = Desired(q_set, np.zeros(6), np.zeros(6))
    held = {}

    def law(t, q, qd):
        k = int(np.floor(t / 1e-3 + 1e-9))
        if k not in held:
            held[k] = ct.output(t, q.copy(), qd.copy(), d, np.zeros(0))
        return held[k]
    theirs = mujoco_run(robot, law, np.zeros(12), 0.5, 1e-4)
    assert np.abs(ours.q - theirs[::10]).max() <= 1e-6


def test_mjcf_refuses_coulomb_and_symbols():
    with pytest.raises(RobmodError, match="symbolic"):
        to_mjcf(robmod.load_robot("rx90"))
    robot = with_random_dynamics(robmod.load_robot("rx90").numeric(), np.random.default_rng(0),
                                 friction=True)
    with pytest.raises(RobmodError, match="Coulomb"):
        to_mjcf(robot)
    assert "<joint" in to_mjcf(robot, coulomb="ignore")
