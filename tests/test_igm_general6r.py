"""Exact IGM of the general 6R robot (Raghavan-Roth, dialytic elimination, eigenvalues)."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.description.robot import Tool
from robmod.geometry.direct import dgm
from robmod.geometry.igm_general6r import igm_general6r
from robmod.kinematics import igm_numeric
from robmod.testing.random import random_robot


def _general(rng):
    """A random general 6R: random_robot(general=True) with its zero lengths made non-zero
    (random_robot draws zero lengths with probability 0.3: intersecting axes are special)."""
    robot = random_robot(rng, 6, prismatic=False, general=True, dynamics=False)
    frames = [replace(f, d=f.d if f.d != 0 else sp.Float(rng.uniform(0.1, 0.5)),
                      r=f.r if f.r != 0 else sp.Float(rng.uniform(0.1, 0.5)))
              for f in robot.frames]
    return replace(robot, frames=tuple(frames))


def _member(sols, q, tol):
    d = np.abs(np.angle(np.exp(1j * (sols - q))))
    return bool(np.any(np.all(d < tol, axis=-1)))


def _check(robot, q, n_restarts=96):
    T = dgm(robot, q)
    res = igm_general6r(robot, T)
    sols, info = res.q, res.info
    assert res.valid.all() and res.method == "general6r"
    assert "Raghavan-Roth" in info["method"] and info["formulations"]
    assert _member(sols, q, 1e-8)  # the generating configuration is found
    assert np.abs(dgm(robot, sols) - T).max() < 1e-10
    assert len(sols) % 2 == 0 and len(sols) <= 16
    num = igm_numeric(robot, T, n_restarts=n_restarts, rng=0)
    assert num.n_solutions <= len(sols)
    # the numeric set within the exact set
    assert all(_member(sols, qn, 1e-6) for qn in num.solutions())
    return len(sols), num.n_solutions


def test_random_general_6r_robots():
    rng = np.random.default_rng(2024)
    counts = []
    for _ in range(14):
        robot = _general(rng)
        counts.append(_check(robot, rng.uniform(-np.pi, np.pi, 6)))
    # the numeric IGM from many seeds finds the same solutions here
    assert sum(n for n, _ in counts) == sum(m for _, m in counts)
    assert max(n for n, _ in counts) >= 6


def test_random_robots_with_special_lengths():
    """random_robot as is (zero lengths: intersecting axes): solved through another loop
    formulation, or refused when every pencil is singular (then a continuum of solutions)."""
    rng = np.random.default_rng(7)
    solved = 0
    for _ in range(10):
        robot = random_robot(rng, 6, prismatic=False, general=True, dynamics=False)
        q = rng.uniform(-np.pi, np.pi, 6)
        try:
            _check(robot, q, n_restarts=64)
            solved += 1
        except robmod.RobmodError:
            num = igm_numeric(robot, dgm(robot, q), n_restarts=64, rng=0)
            assert num.n_solutions > 16
    assert solved >= 6


def test_industrial_robots_and_tool():
    for name in ("rx90", "puma560"):
        robot = robmod.load_robot(name, numeric=True)
        q = np.array([0.3, -0.7, 1.1, 0.4, -1.2, 2.0])
        sols = igm_general6r(robot, dgm(robot, q)).q
        assert len(sols) == 8 and _member(sols, q, 1e-8)
    robot = _general(np.random.default_rng(3))
    T6E = sp.ImmutableMatrix([[0, -1, 0, 0.1], [1, 0, 0, 0.05], [0, 0, 1, 0.2], [0, 0, 0, 1]])
    robot = replace(robot, tools=(Tool("grip", 6, T6E),))
    q = np.array([1.0, -0.5, 0.7, 2.0, -1.5, 0.3])
    TE = dgm(robot, q) @ np.array(T6E, dtype=float)
    sols = igm_general6r(robot, TE, tool="grip").q
    assert _member(sols, q, 1e-8)
    assert np.abs(dgm(robot, sols) @ np.array(T6E, dtype=float) - TE).max() < 1e-10


def test_refuses_non_6r():
    rng = np.random.default_rng(0)
    with pytest.raises(robmod.RobmodError):
        igm_general6r(random_robot(rng, 7, prismatic=False, dynamics=False), np.eye(4))
    with pytest.raises(robmod.RobmodError):
        igm_general6r(robmod.load_robot("stanford", numeric=True), np.eye(4))
