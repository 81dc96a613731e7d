"""Identification of base parameters from simulated noisy data; the base-params command."""
import argparse

import numpy as np

import robmod
from robmod.dynamics import idm
from robmod.identification import base_parameters
from robmod.cli.base_params import add_base_params_command
from robmod.identification import MeasuredData, identify, process
from robmod.testing.random import random_robot, with_random_dynamics


def _true(bp):
    return np.array([float(v) for v in bp.values_of().values()])


def test_identify_planar2_and_random_robot_from_noisy_torques():
    rng = np.random.default_rng(10)
    robots = [with_random_dynamics(robmod.load_robot("planar2", numeric=True), rng,
                                   gravity=(0, -9.81, 0), friction=True),
              with_random_dynamics(random_robot(rng, 3, prismatic=True), rng, friction=True)]
    for robot in robots:
        bp = base_parameters(robot)
        N, nj = 3000, robot.n_joints
        q, qd, qdd = rng.uniform(-2, 2, (3, N, nj))
        tau = idm(robot, q, qd, qdd)
        noise = 0.01 * np.array([1.0, 3.0, 0.5, 2.0][:nj])
        res = identify(robot, q, qd, qdd, tau + rng.normal(size=tau.shape) * noise, params=bp)
        assert res.names == bp.names
        err = np.abs(res.beta - _true(bp))
        assert (err < 5 * res.std + 1e-9).all(), (err, res.std)
        assert np.allclose(res.sigma_joint, noise, rtol=0.15)
        assert np.isfinite(res.condition) and res.condition > 1
        assert "std %" in str(res)
        html = res._repr_html_()            # Jupyter: one row per base parameter
        assert html.count("<tr>") == len(bp.names) + 1 and bp.names[0] in html


def test_operation_counts_display_as_a_table():
    from robmod.geometry import dgm_model

    html = dgm_model(robmod.load_robot("rx90")).count()._repr_html_()
    assert "<td>44</td><td>18</td>" in html                 # Example 3.4


def test_identify_from_a_filtered_trajectory():
    rng = np.random.default_rng(11)
    robot = with_random_dynamics(robmod.load_robot("planar2", numeric=True), rng,
                                 gravity=(0, -9.81, 0), friction=False)
    bp = base_parameters(robot)
    t = np.arange(0, 20, 1e-3)
    w = np.array([[0.7, 1.9, 3.1], [1.1, 2.3, 2.9]])
    q = sum(np.sin(np.outer(t, w[:, k]) + k) / (k + 1) for k in range(3))
    qd = sum(np.cos(np.outer(t, w[:, k]) + k) * w[:, k] / (k + 1) for k in range(3))
    qdd = sum(-np.sin(np.outer(t, w[:, k]) + k) * w[:, k]**2 / (k + 1) for k in range(3))
    tau = idm(robot, q, qd, qdd)
    qm = q + rng.normal(size=q.shape) * 1e-5
    tm = tau + rng.normal(size=tau.shape) * 0.05
    p = process(MeasuredData(t, qm, None, tm), cutoff=10.0)       # the estimator's filter
    s = slice(None, None, 10)
    res = identify(robot, p.q[s], p.qd[s], p.qdd[s], p.tau_filtered[s], params=bp)
    rel = np.abs(res.beta - _true(bp)) / np.maximum(np.abs(_true(bp)), 1.0)
    assert rel.max() < 0.02, rel


def _run(argv):
    p = argparse.ArgumentParser()
    add_base_params_command(p.add_subparsers(dest="command", required=True))
    a = p.parse_args(argv)
    return a.func(a)


def test_base_params_command(capsys, tmp_path):
    assert _run(["base-params", "scemi", "--check"]) == 0
    out = capsys.readouterr().out
    assert "count: 36 base parameters" in out and "agree: 36" in out
    assert "ZZR1 = " in out and "XXR2 = " in out
    assert _run(["base-params", "rx90", "--gravity", "G1,0,G3", "--no-friction",
                 "--out", str(tmp_path), "--formats", "txt,py"]) == 0
    out = capsys.readouterr().out
    assert "count: 42 base parameters (38 inertial)" in out
    assert (tmp_path / "rx90_base_parameters.txt").exists()
    assert (tmp_path / "rx90_base_regressor.py").exists()
    # the relations model compiles: beta = f(chi)
    bp = base_parameters(robmod.load_robot("planar2"))
    f = bp.relations_model().numpy_function()
    chi = np.arange(1.0, len(bp.standard) + 1)
    beta = f(chi[None], params={"a1": 2.0})
    vals = dict(zip(bp.standard, chi))
    assert np.isclose(beta[0, 0], vals["IA1"] + vals["ZZ1"] + 4 * vals["M2"])


def test_identify_with_a_known_wrench_subtracted():
    """A measured wrench f on the end effector adds J^T f (static model) to the torques; given
    as ``known`` it is removed before the fit and the parameters are found exactly."""
    from robmod.kinematics import jacobian

    rng = np.random.default_rng(12)
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng)
    bp = base_parameters(robot)
    N = 400
    q, qd, qdd = rng.uniform(-2, 2, (3, N, 6))
    f = rng.normal(size=(N, 6)) * 20
    J = jacobian(robot, q)                                   # 0J6, (N, 6, 6)
    wrench = np.einsum("nij,ni->nj", J, f)
    tau = idm(robot, q, qd, qdd) + wrench
    good = identify(robot, q, qd, qdd, tau, params=bp, weights="none", tau_known=wrench)
    assert np.abs(good.beta - _true(bp)).max() < 1e-8
    bad = identify(robot, q, qd, qdd, tau, params=bp, weights="none")
    assert np.abs(bad.beta - _true(bp)).max() > 1e-2
    import pytest

    with pytest.raises(robmod.RobmodError, match="same number of samples"):
        identify(robot, q, qd, qdd, tau, params=bp, tau_known=wrench[:3])
