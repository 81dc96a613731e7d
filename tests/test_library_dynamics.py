"""Every library robot runs every model: a complete numeric dynamic model with its sources and
approximations named, the numeric IDM, inertia matrix and DDM (closed loops: on their actuated
joints), 1 s of computed-torque control at 1 kHz, its MJCF export simulated by MuJoCo against
robmod's own simulation, and the ``robmod simulate`` and ``robmod models`` commands."""
import dataclasses

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.cli import main
from robmod.control import ComputedTorque, Dynamics, OpenLoop, simulate
from robmod.dynamics import ddm, idm, inertia_matrix
from robmod.dynamics.closed_loop import (closed_loop_ddm, closed_loop_idm,
                                         closed_loop_inertia_matrix)
from robmod.trajectory import point_to_point

NAMES = robmod.library_names()
#: robots whose dynamic parameters are symbols in the file (values given separately)
SYMBOLIC = {"cartesian2", "lwr4", "parallelogram", "rx90", "scara", "scemi", "sr400",
            "torso2arms"}


def state(robot, seed=0):
    """A regular state near the robot's default start (q, qd, qdd of the plant's joints)."""
    plant = Dynamics.of(robot, "plant")
    rng = np.random.default_rng(seed)
    n = plant.n
    return (plant, plant.start_configuration() + rng.uniform(-0.2, 0.2, n),
            rng.uniform(-0.5, 0.5, n), rng.uniform(-1.0, 1.0, n))


def test_the_library():
    assert len(NAMES) == 13 and SYMBOLIC < set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_complete_numeric_model_with_its_approximations_named(name, capsys):
    symbolic, numeric = robmod.load_robot(name), robmod.load_robot(name, numeric=True)
    assert not numeric.symbols                      # every parameter has a value
    if name in SYMBOLIC:                            # the symbolic models keep their symbols
        assert {"M1", "m_l1p"} & {s.name for s in symbolic.symbols}
    assert "approximation" in symbolic.source.lower()
    assert main(["show", name]) == 0
    out = capsys.readouterr().out
    assert "Source:" in out and "approximation" in out.lower()


@pytest.mark.parametrize("name", NAMES)
def test_idm_inertia_matrix_and_ddm(name):
    robot = robmod.load_robot(name, numeric=True)
    plant, q, qd, qdd = state(robot)
    if robot.n_loops:
        guess = plant.close(q)[0]
        A = closed_loop_inertia_matrix(robot, q, q_guess=guess)
        tau = closed_loop_idm(robot, q, qd, qdd, q_guess=guess)
        back = closed_loop_ddm(robot, q, qd, tau, q_guess=guess)
    else:
        A = inertia_matrix(robot, q)
        tau = idm(robot, q, qd, qdd)
        back = ddm(robot, q, qd, tau)
    assert np.allclose(A, A.T) and np.linalg.eigvalsh(A).min() > 0
    np.testing.assert_allclose(back, qdd, atol=1e-8)
    # the compiled plant of control and simulation is the same model
    np.testing.assert_allclose(plant.idm(q, qd, qdd), tau, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(plant.ddm(q, qd, tau), qdd, atol=1e-8)


@pytest.mark.parametrize("name", NAMES)
def test_one_second_of_computed_torque(name):
    """1 kHz digital computed torque with the exact model (Coulomb friction compensated at
    the desired velocity) on a quintic of 0.3 rad (m): the error stays at the zero-order
    hold's level."""
    robot = robmod.load_robot(name, numeric=True)
    ct = ComputedTorque(robot, omega=20.0)
    q0 = ct.dyn.start_configuration()
    ref = point_to_point(q0, q0 + 0.3, "quintic", duration=1.0)
    res = simulate(robot, ct, ref, 1.0)
    assert np.abs(res.error).max() < 5e-4


def no_coulomb(robot):
    zero = sp.Integer(0)
    return dataclasses.replace(robot, links=tuple(dataclasses.replace(link, FC=zero, FST=zero)
                                                  for link in robot.links))


@pytest.mark.parametrize("name", NAMES)
def test_mjcf_export_simulated_by_mujoco(name):
    """Constant torques for 1 s (gravity at the start plus 0.2 rad/s^2 on every joint):
    MuJoCo's RK4 on the exported file against robmod's.  Trees at the same step agree to
    rounding; closed loops (MuJoCo's soft connect constraints, robmod's exact projection at a
    5 times larger step) to 1e-8."""
    mujoco = pytest.importorskip("mujoco")
    from robmod.description.io_mjcf import to_mjcf

    robot = no_coulomb(robmod.load_robot(name, numeric=True))
    plant, q0, _, _ = state(robot, seed=1)
    n = plant.n
    if robot.n_loops:
        qfull = plant.close(q0)[0]
        A = closed_loop_inertia_matrix(robot, q0, q_guess=qfull)
    else:
        qfull, A = q0, inertia_matrix(robot, q0)
    tau = plant.gravity(q0) + 0.2 * A @ np.ones(n)
    h = 2e-4
    ours = simulate(robot, OpenLoop(lambda t: tau, n, dt=1e-3 if robot.n_loops else h), q0,
                    1.0, x0=np.concatenate([q0, np.zeros(n)]), saturation=False).q[-1]
    xml = to_mjcf(robot, timestep=h)
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    tree = [j for j in robot.joints if j <= robot.n_links]
    adr = [model.joint(f"q{j}").qposadr[0] for j in tree]
    data.qpos[adr] = qfull[[robot.joint_index[j] for j in tree]]
    actuated = list(plant.joints) if robot.n_loops else tree
    act = [model.joint(f"q{j}").dofadr[0] for j in actuated]
    data.qfrc_applied[act] = tau
    for _ in range(int(round(1.0 / h))):
        mujoco.mj_step(model, data)
    theirs = data.qpos[[model.joint(f"q{j}").qposadr[0] for j in actuated]]
    assert np.abs(theirs - ours).max() <= (1e-8 if robot.n_loops else 1e-9)
    bounded = any("raised" in w or "massless" in w for w in xml.warnings)
    assert bounded == (name in ("cartesian2", "parallelogram", "planar2"))


@pytest.mark.parametrize("name", NAMES)
def test_cli_simulate_and_models(name, tmp_path, capsys):
    assert main(["simulate", name, "--out", str(tmp_path / "run.csv")]) == 0
    assert "on " + name in capsys.readouterr().out and (tmp_path / "run.csv").exists()
    # every model generated (the export formats other than text: tests/test_cli.py)
    assert main(["models", name, "--out", str(tmp_path / "models"), "--quiet", "--formats",
                 "txt"]) == 0
    out = capsys.readouterr().out
    assert "IDM (Newton-Euler)" in out and "inertia matrix" in out
    assert (tmp_path / "models" / "summary.txt").exists()
