"""Inertia matrix by composite links: Pinocchio's CRBA, the NE columns of [7.64], Example 7.1."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from robmod.testing import numpy_path
import robmod
from robmod.dynamics.inertia import (inertia_matrix, inertia_matrix_model,
                                     _lower_to_full)
from robmod.dynamics.lagrange import gravity_torques_model
from robmod.testing.random import random_robot, with_random_dynamics


def dfs_ordered(robot) -> bool:
    """Pinocchio's CRBA assumes each subtree is a contiguous range of joints."""
    n = robot.n_links
    for j in range(1, n + 1):
        sub = {j}
        for k in range(j + 1, n + 1):
            if robot.frame(k).ant in sub:
                sub.add(k)
        if sub != set(range(j, j + len(sub))):
            return False
    return True


def random_robots(rng, count, dfs=False):
    out = []
    k = 0
    while len(out) < count:
        r = random_robot(rng, int(rng.integers(1, 8)), tree=k % 2 == 1, general=k % 3 == 0)
        k += 1
        if not dfs or dfs_ordered(r):
            out.append(r)
    return out


def test_agrees_with_pinocchio_crba():
    pin = pytest.importorskip("pinocchio")
    from robmod.testing.peers import PinocchioRobot

    rng = np.random.default_rng(21)
    robots = [with_random_dynamics(robmod.load_robot(n, numeric=True), rng)
              for n in ("rx90", "stanford", "scara", "torso2arms", "panda")]
    robots += random_robots(rng, 110, dfs=True)
    n_tree = sum(r.structure == "tree" for r in robots)
    n_prism = sum(any(f.sigma == 1 for f in r.frames) for r in robots)
    assert n_tree >= 20 and n_prism >= 20
    for robot in robots:
        p = PinocchioRobot(robot)
        q = rng.uniform(-2, 2, (3, robot.n_joints))
        A = inertia_matrix(robot, q)
        A_ne = inertia_matrix(robot, q, method="ne")
        for k in range(3):
            M = pin.crba(p.model, p.data, p.pin_q(q[k]))
            M = np.triu(M) + np.triu(M, 1).T
            # A is over dofs (the joint frames in order), as Pinocchio's joints
            assert np.abs(A[k] - M).max() < 1e-10, robot.name
            assert np.abs(A_ne[k] - M).max() < 1e-10, robot.name


def test_non_dfs_trees_against_ne_columns():
    rng = np.random.default_rng(5)
    for robot in random_robots(rng, 30):
        q = rng.uniform(-2, 2, (4, robot.n_joints))
        assert np.abs(inertia_matrix(robot, q) - inertia_matrix(robot, q, method="ne")).max() < 1e-10


def test_customized_model_equals_numeric():
    rng = np.random.default_rng(3)
    for robot in [with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng),
                  random_robot(rng, 6, tree=True)]:
        model = inertia_matrix_model(robot)
        n = robot.n_joints
        assert model.outputs[0].names[:2] == ("A11", "A21")
        q = rng.uniform(-2, 2, (20, n))
        with numpy_path():          # not the compiled model a warm cache would give
            ref = inertia_matrix(robot, q)
        assert np.abs(_lower_to_full(model.compile()(q), n) - ref).max() < 1e-12
        assert np.abs(_lower_to_full(model.numpy_function()(q), n) - ref).max() < 1e-12


def _expand(model):
    """Outputs of a customized model as explicit expressions of its inputs."""
    subs = {}
    for lhs, rhs in model.statements:
        subs[lhs] = rhs.xreplace(subs)
    return {n: e.xreplace(subs) for o in model.outputs for n, e in zip(o.names, o.exprs)}


def _rx90_3():
    r = robmod.load_robot("rx90")
    return replace(r, frames=r.frames[:3], links=r.links[:3], n_links=3)


def test_example_7_1_rx90_first_three_links():
    r = _rx90_3()
    q1, q2, q3 = sp.symbols("q1 q2 q3")
    S2, C2, S3, C3 = sp.sin(q2), sp.cos(q2), sp.sin(q3), sp.cos(q3)
    S23, C23 = sp.sin(q2 + q3), sp.cos(q2 + q3)
    (IA1, IA2, IA3, ZZ1, ZZ2, ZZ3, XX2, XX3, XY2, XY3, YY2, YY3, XZ2, XZ3, YZ2, YZ3, MX2, MX3,
     MY2, MY3, MZ3, M3, D3, G3) = sp.symbols(
        "IA1 IA2 IA3 ZZ1 ZZ2 ZZ3 XX2 XX3 XY2 XY3 YY2 YY3 XZ2 XZ3 YZ2 YZ3 MX2 MX3 MY2 MY3 MZ3 "
        "M3 D3 G3")
    seed = {  # 000 Example 7.1, typed from the seed
        "A11": IA1 + ZZ1 + S2**2 * XX2 + 2 * C2 * S2 * XY2 + C2**2 * YY2 + S23**2 * XX3
        + 2 * C23 * S23 * XY3 + C23**2 * YY3 + 2 * C2 * C23 * D3 * MX3
        - 2 * C2 * S23 * D3 * MY3 + C2**2 * D3**2 * M3,
        "A21": S2 * XZ2 + C2 * YZ2 + S23 * XZ3 + C23 * YZ3 - S2 * D3 * MZ3,
        "A31": S23 * XZ3 + C23 * YZ3,
        "A22": IA2 + ZZ2 + ZZ3 + 2 * C3 * D3 * MX3 - 2 * S3 * D3 * MY3 + D3**2 * M3,
        "A32": ZZ3 + C3 * D3 * MX3 - S3 * D3 * MY3,
        "A33": IA3 + ZZ3,
    }
    got = _expand(inertia_matrix_model(r))
    assert set(got) == set(seed)
    for k, e in seed.items():
        assert sp.simplify(sp.expand_trig(got[k] - e)) == 0, k
    seed_q = {"Q1": sp.Integer(0),
              "Q2": -G3 * (C2 * MX2 - S2 * MY2 + C23 * MX3 - S23 * MY3 + D3 * C2 * M3),
              "Q3": -G3 * (C23 * MX3 - S23 * MY3)}
    got = _expand(gravity_torques_model(r))
    for k, e in seed_q.items():
        assert sp.simplify(sp.expand_trig(got.get(k, 0) - e)) == 0, k


def test_ne_method_honours_rotor_switch():
    """inertia_matrix(method="ne", rotor=False) left the rotor inertias IA in (4.75 off on the
    PUMA 560): the NE columns of [7.64] follow the switch like the composite links."""
    robot = robmod.load_robot("puma560", numeric=True)
    q = np.random.default_rng(3).uniform(-2, 2, (4, robot.n_q))
    for rotor in (True, False):
        A = inertia_matrix(robot, q, rotor=rotor)
        A_ne = inertia_matrix(robot, q, method="ne", rotor=rotor)
        assert np.abs(A_ne - A).max() < 1e-10, rotor
    IA = np.array([float(robot.link(j).IA) for j in robot.joints])
    diff = inertia_matrix(robot, q[0], rotor=True) - inertia_matrix(robot, q[0], rotor=False)
    assert np.abs(diff - np.diag(IA)).max() < 1e-12 and IA.sum() > 4
