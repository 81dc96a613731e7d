"""Inverse robot (seed 001 Appendix 2) and closed-loop DGM (tree + loop-closure equations)."""
import numpy as np
import sympy as sp

import robmod
from robmod.geometry.direct import dgm
from robmod.geometry.robot_inversion import inverse_joint_values, inverse_robot
from robmod.geometry.loops import loop_closure_model, loop_residual, solve_loops
from robmod.testing.random import random_robot


def test_table_a2_2_for_the_rx90():
    inv = inverse_robot(robmod.load_robot("rx90"))
    D3, RL4 = sp.symbols("D3 RL4")
    # j' = 1..6: alpha' = 0, -alpha6, -alpha5, ..., -alpha2; d' = 0, -d6, ..., -d2; r' = -r6, ..., -r1
    assert [f.alpha for f in inv.frames] == [0, sp.pi / 2, -sp.pi / 2, sp.pi / 2, 0, -sp.pi / 2]
    assert [f.d for f in inv.frames] == [0, 0, 0, 0, -D3, 0]
    assert [f.r for f in inv.frames] == [0, 0, -RL4, 0, 0, 0]


def test_inverse_robot_dgm_is_the_inverse():
    rng = np.random.default_rng(5)
    robots = [robmod.load_robot(n, numeric=True) for n in ("rx90", "puma560", "stanford",
                                                            "scara")]
    robots += [random_robot(rng, 6, general=True, dynamics=False) for _ in range(10)]
    for robot in robots:
        inv = inverse_robot(robot)
        tool = inv.tools[0].name if inv.tools else None
        q = rng.uniform(-3, 3, (20, robot.n_joints))
        T = dgm(robot, q)
        Ti = dgm(inv, inverse_joint_values(q), tool=tool)
        assert np.abs(Ti @ T - np.eye(4)).max() < 1e-12, robot.name


def test_parallelogram_loop_closure():
    robot = robmod.load_robot("parallelogram", numeric=True)
    assert robot.structure == "closed" and robot.loop_pairs == ((5, 6),)
    q1 = np.linspace(-0.5, 0.8, 6)
    q4 = np.linspace(0.2, -0.3, 6)
    guess = np.stack([q1, q4 - q1 + 0.05, np.pi - (q4 - q1) - 0.05, q4,
                      q4 - q1 - np.pi + 0.02], axis=-1)
    q, ok = solve_loops(robot, guess)
    assert ok.all()
    assert np.abs(loop_residual(robot, q)).max() < 1e-10
    # the parallelogram: q2 = q4 - q1, q3 = pi - q2 (seed 003 §7.3.3 geometry)
    assert np.allclose(q[:, 1], q4 - q1) and np.allclose(q[:, 2], np.pi - q[:, 1])
    # active joints kept
    assert np.allclose(q[:, 0], q1) and np.allclose(q[:, 3], q4)
    # the symbolic closure equations vanish there
    f = loop_closure_model(robot).numpy_function()
    L = f(q)
    assert np.abs(L - np.eye(4)[:3]).max() < 1e-10
