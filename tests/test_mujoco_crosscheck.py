"""robmod's closed-loop simulation against MuJoCo on the same robot (MJCF export)."""
import dataclasses

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.control import ComputedTorque, OpenLoop, simulate
from robmod.description.io_mjcf import to_mjcf
from robmod.errors import RobmodError
from robmod.testing.random import random_inertial, random_robot, with_random_dynamics

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
    from robmod.kinematics import Sample as Desired
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
    assert any("FC1" in w and "dropped" in w for w in to_mjcf(robot, coulomb="ignore").warnings)


def test_mjcf_bounds_point_masses_rods_and_massless_end_links():
    """MuJoCo refused planar2's file (its links are rods: a zero principal moment) and the
    UR5's former point masses; a massless end link too.  The export raises those moments (and
    that mass) to the bound, says so in the file and its warnings, and keeps the dynamics."""
    from robmod.description.io_mjcf import INERTIA_BOUND

    planar = robmod.load_robot("planar2", numeric=True)
    xml = to_mjcf(planar)
    model = mujoco.MjModel.from_xml_string(xml)
    assert len(xml.warnings) == 2 and all("raised" in w for w in xml.warnings)
    assert xml.count("<!-- robmod: link") == 2
    assert model.body_inertia[1:].min() == pytest.approx(INERTIA_BOUND)
    # a point-mass link and a massless end link (M = 0 and no inertia: a tool flange)
    rng = np.random.default_rng(4)
    robot = no_coulomb(random_robot(rng, n=4))
    zero = {k: sp.Integer(0) for k in ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ",
                                       "M")}
    c = np.array([0.1, -0.05, 0.2])
    point = dict(zero, M=sp.Float(1.5), MX=sp.Float(1.5 * c[0]), MY=sp.Float(1.5 * c[1]),
                 MZ=sp.Float(1.5 * c[2]))
    J = 1.5 * (c @ c * np.eye(3) - np.outer(c, c))
    point.update(XX=sp.Float(J[0, 0]), XY=sp.Float(J[0, 1]), XZ=sp.Float(J[0, 2]),
                 YY=sp.Float(J[1, 1]), YZ=sp.Float(J[1, 2]), ZZ=sp.Float(J[2, 2]))
    links = list(robot.links)
    links[1] = dataclasses.replace(links[1], **point)
    links[3] = dataclasses.replace(links[3], **zero)
    robot = dataclasses.replace(robot, links=tuple(links))
    xml = to_mjcf(robot)
    mujoco.MjModel.from_xml_string(xml)
    assert any(w.startswith("link 2: principal moments") for w in xml.warnings)
    assert any(w.startswith("link 4 is massless") for w in xml.warnings)
    assert xml.count("<!-- robmod:") == len(xml.warnings)
    # a massless link with mass fixed to it stays massless (MuJoCo accepts the rigid group)
    tool = dataclasses.replace(robot.frames[3], sigma=2, mu=0)
    welded = dataclasses.replace(robot, frames=robot.frames[:3] + (tool,), links=tuple(
        links[:2]) + (dataclasses.replace(links[2], **zero),
                      dataclasses.replace(links[3], **random_inertial(rng))))
    xml = to_mjcf(welded)
    mujoco.MjModel.from_xml_string(xml)
    assert not any(w.startswith("link 3") for w in xml.warnings)


def test_mjcf_of_closed_loops_has_connect_constraints():
    xml = to_mjcf(robmod.load_robot("parallelogram", numeric=True))
    assert xml.count("<connect ") == 1 and 'site1="loop5_5_0"' in xml
    model = mujoco.MjModel.from_xml_string(xml)
    assert model.neq == 1 and model.nq == 4           # the equivalent tree's joints
