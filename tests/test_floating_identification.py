"""Identification of floating robots: the regressor of a floating robot (Y chi = idm), the base's
six equations carry every identifiable inertial parameter (Ayusawa, Venture & Nakamura 2014:
the same base parameters as all 6 + n equations), and the pipeline identifies them from a log
of positions alone (no joint torque, no contact: the scale from the known total mass)."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.control import simulate
from robmod.dynamics import idm
from robmod.errors import RobmodError
from robmod.geometry import neutral
from robmod.identification import (DynamicIdentification, MeasuredData, regressor,
                                   regressor_model, numeric_base, standard_names,
                                   standard_vector)
from robmod.identification.parameters import parameter_set
from robmod.testing import random_inertial, random_robot


def space_arm(seed=11, n=4, gravity=0.0, friction=False):
    """The arm on a satellite of tests/test_floating_simulation.py (seed 11, 4 joints: the same
    compiled models), or another one; with viscous friction on request."""
    if (seed, n) == (11, 4):
        from test_floating_simulation import space_arm as same     # noqa: PLC0415

        robot = same((0.0, 0.0, -gravity) if gravity else (0.0, 0.0, 0.0))
    else:
        rng = np.random.default_rng(seed)
        robot = random_robot(rng, n=n, tree=True, prismatic=False)
        robot = robot.with_base("floating", **{k: v * 20 for k, v in
                                               random_inertial(rng).items()})
        robot = replace(robot, gravity=(sp.Integer(0), sp.Integer(0), sp.Float(-gravity)))
    if friction:
        rng = np.random.default_rng(seed + 1)
        robot = replace(robot, links=tuple(replace(link, FV=sp.Float(rng.uniform(0.1, 1)))
                                           for link in robot.links))
    return robot


def _states(robot, rng, k):
    """k random states (q, qd, qdd) of a floating robot."""
    n = robot.n_q
    Q = rng.normal(size=(k, 4))
    q = np.column_stack([rng.normal(size=(k, 3)), Q / np.linalg.norm(Q, axis=1, keepdims=True),
                         rng.uniform(-1, 1, (k, n))])
    return (q, *rng.normal(size=(2, k, 6 + n)))


def test_the_regressor_of_a_floating_robot():
    robot = space_arm(gravity=9.81, friction=True)
    n = robot.n_q
    q, v, a = _states(robot, np.random.default_rng(0), 3)
    names = standard_names(robot)
    assert names[:10] == tuple(f"{k}0" for k in ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX",
                                                  "MY", "MZ", "M"))
    Y = regressor(robot, q, v, a)
    assert Y.shape == (3, 6 + n, len(names))
    assert np.allclose(Y @ standard_vector(robot, names), idm(robot, q, v, a),
                       atol=1e-10)
    f = regressor_model(robot).numpy_function()
    assert np.allclose(f(q[0], v[0], a[0]), Y[0], atol=1e-12)
    # the base's six equations alone (Ayusawa et al.), computed alone, and the joints' alone
    assert np.allclose(regressor(robot, q, v, a, equations="base"), Y[:, :6], atol=1e-12)
    assert np.allclose(regressor(robot, q, v, a, equations="joints"), Y[:, 6:], atol=1e-12)
    base_only = regressor_model(robot, equations="base")
    assert base_only.outputs[0].shape == (6, len(names))
    assert base_only.count().mults < regressor_model(robot).count().mults


def test_an_identification_model_of_all_equations_after_one_of_the_base_ones():
    """The cached regressor of the identification model is keyed by its rows: a model of the
    6 + n equations built after one of the base's six gives 6 + n rows (it gave six, then a
    raw NumPy error)."""
    from robmod.identification import identification_model

    robot = space_arm(seed=5, n=3, gravity=9.81)
    names = parameter_set(robot, rotor=False, friction=False)
    n = robot.n_q
    q, v, a = _states(robot, np.random.default_rng(2), 4)
    for equations, rows in (("base", 6), ("all", 6 + n), ("base", 6)):
        model = identification_model(robot, params=names, equations=equations)
        Y = model.regressor(q, v, a)
        assert Y.shape[-2] == rows, equations


@pytest.mark.parametrize("seed", [3, 4])
def test_the_base_equations_carry_every_identifiable_inertial_parameter(seed):
    robot = space_arm(seed, n=5, gravity=9.81)
    names = parameter_set(robot, rotor=False, friction=False)
    base = numeric_base(robot, names, equations="base")
    full = numeric_base(robot, names, equations="all")
    assert base.rank == full.rank == len(base.base) < len(names)
    assert np.linalg.matrix_rank(np.vstack([base.K, full.K]), 1e-8) == full.rank


def _log(robot, seconds=12.0, rate=200.0, noise=1e-5, seed=0):
    """Positions of a space arm moved by its joints (a PD around sines), sampled at ``rate``
    with noise; no torque recorded, no contact (the base's wrench is zero)."""
    rng = np.random.default_rng(seed)
    n = robot.n_q
    w, ph, amp = rng.uniform(1, 4, n), rng.uniform(0, 6, n), rng.uniform(0.5, 2, n)
    t = np.arange(0.0, seconds, 1.0 / rate)
    X = simulate(robot, lambda tt, q, qd: amp * np.sin(w * tt + ph) - qd[6:] - 3.0 * q[7:], None,
                 (t.size - 1) / rate, x0=np.r_[neutral(robot), np.zeros(6 + n)], step=1 / rate)
    q = X.q + rng.normal(size=(t.size, 7 + n)) * noise
    return MeasuredData(t, q, tau=np.zeros((t.size, 6)), floating=True, source="space arm")


def test_identification_from_positions_alone():
    """A 4-joint arm on a satellite: 12 s of positions at 200 Hz (noise 1e-5), no torque,
    no contact; the total mass known (the base parameter MR0, M0 + M1 + ... + M4): every other
    base parameter within 0.5 % of the largest."""
    robot = space_arm()
    data = _log(robot)
    total = float(robot.base_link.M + sum(link.M for link in robot.links))
    est = DynamicIdentification(robot, known={"MR0": total}).fit(data)
    model = est.model_
    assert model.equations == "base" and model.n_rows == 6 and not model.offsets
    true = model.K @ standard_vector(robot, model.free)
    err = np.abs(est.params_ - true).max() / np.abs(true).max()
    assert err < 5e-3, est.report()
    assert "M0 = " in est.report()
    with pytest.raises(RobmodError, match="homogeneous.*known=\\{'MR0'"):
        DynamicIdentification(robot).fit(data)
    with pytest.raises(RobmodError, match="floating base, the data are not"):
        DynamicIdentification(robot).fit(MeasuredData(data.t, data.q[:, 7:],
                                                      tau=np.zeros((data.t.size, 4))))
