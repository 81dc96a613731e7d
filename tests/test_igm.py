"""Analytic IGM by Paul's method (robmod.geometry.inverse): round trips DGM(IGM(T)) = T."""
import time

import numpy as np
import pytest

import robmod
from robmod.errors import RobmodError
from robmod.geometry.direct import dgm
from robmod.geometry.inverse import IGMSolution, igm, igm_model
from robmod.symbolic.model import CustomModel

N = 10_000


def _random_q(robot, rng, n):
    q = rng.uniform(-np.pi, np.pi, (n, robot.n_joints))
    for j in robot.joints:
        if robot.frame(j).sigma == 1:
            q[:, j - 1] = rng.uniform(-0.8, 0.8, n)
    return q


def _distance(robot, Q, q):
    """Largest joint difference, revolute joints up to 2 pi."""
    d = Q - q
    rev = np.array([robot.frame(j).sigma == 0 for j in robot.joints])
    d[..., rev] = np.angle(np.exp(1j * d[..., rev]))
    return np.abs(d).max(axis=-1)


def _round_trip(robot, sol, q, fixed=()):
    T = dgm(robot, q)
    qf = q[:, [j - 1 for j in fixed]] if fixed else None
    ev = sol.evaluate(T, qf)
    Q, valid = ev.q, ev.valid
    assert Q.shape == (len(q), sol.n_branches, robot.n_joints)
    assert not np.isnan(Q[valid]).any()
    Tq = dgm(robot, np.where(valid[..., None], Q, 0.0))
    err = np.abs(Tq - T[:, None]).max(axis=(-1, -2))
    assert err[valid].max() < 1e-10                          # every valid branch is a solution
    found = ((_distance(robot, Q, q[:, None]) < 1e-5) & valid).any(axis=-1)
    assert found.all()                                       # the generating configuration
    return ev


@pytest.fixture(scope="module")
def rx90():
    robot = robmod.load_robot("rx90", numeric=True)
    return robot, igm_model(robot)


def test_rx90_eight_solutions_at_a_generic_pose(rx90):
    robot, sol = rx90
    assert isinstance(sol, IGMSolution) and sol.n_branches == 8
    q = np.array([0.3, -0.4, 0.5, 0.7, 1.1, -0.2])
    T = dgm(robot, q)
    Q, valid = sol.solve(T)
    assert Q.shape == (8, 6) and valid.all()
    assert np.abs(dgm(robot, Q) - T).max() < 1e-12
    d = _distance(robot, Q[:, None], Q[None])                # eight distinct solutions
    assert (d + np.eye(8) * 10).min() > 1e-3
    assert _distance(robot, Q, q).min() < 1e-12


@pytest.mark.parametrize("name,fixed", [("rx90", ()), ("puma560", ()), ("stanford", ()),
                                        ("scara", ()), ("panda", (7,))])
def test_round_trip_random_poses(name, fixed):
    robot = robmod.load_robot(name, numeric=True)
    sol = igm_model(robot, fixed=list(fixed) or None)
    q = _random_q(robot, np.random.default_rng(11), N)
    ev = _round_trip(robot, sol, q, fixed)
    if name in ("rx90", "puma560", "stanford"):
        assert ev.valid.all()                 # 8 real solutions everywhere (no joint limits)
    if name == "scara":
        assert sol.n_branches == 2 and ev.valid.all()


def test_other_library_robots_round_trip():
    for name, fixed in (("ur5", ()), ("lwr4", (7,)), ("lwr4", (3,))):
        robot = robmod.load_robot(name, numeric=True)
        sol = igm_model(robot, fixed=list(fixed) or None)
        _round_trip(robot, sol, _random_q(robot, np.random.default_rng(5), 2000), fixed)


def test_panda_needs_a_given_joint_and_q3_has_no_closed_form():
    robot = robmod.load_robot("panda", numeric=True)
    with pytest.raises(RobmodError, match="redundant"):
        igm_model(robot)
    with pytest.raises(RobmodError, match="no closed form found") as err:
        igm_model(robot, fixed=[3])
    assert "types 1 to 8" in str(err.value) and "q3 given" in str(err.value)
    sol = igm_model(robot, fixed=[7])
    assert sol.n_branches == 8 and "given q7" in sol.to_text()


def test_rx90_wrist_singularity(rx90):
    robot, sol = rx90
    q = np.array([0.3, -0.4, 0.5, 0.7, 0.0, -0.2])           # q5 = 0: axes 4 and 6 aligned
    T = dgm(robot, q)
    ev = sol.evaluate(T)
    assert ev.valid.all()
    assert np.abs(dgm(robot, ev.q) - T).max() < 1e-12        # still solutions
    wrist = np.abs(np.sin(ev.q[:, 4])) < 1e-8
    assert wrist.sum() == 4 and np.array_equal(ev.singular, wrist)   # flagged singular
    regular = sol.evaluate(dgm(robot, np.array([0.3, -0.4, 0.5, 0.7, 0.4, -0.2])))
    assert not regular.singular.any()


def test_unreachable_pose_has_no_valid_branch(rx90):
    robot, sol = rx90
    T = dgm(robot, np.array([0.3, -0.4, 0.5, 0.7, 1.1, -0.2]))
    T[:3, 3] *= 3.0                                           # beyond D3 + RL4
    q, valid = sol.solve(T)
    assert not valid.any()
    scara = robmod.load_robot("scara", numeric=True)
    T = dgm(scara, np.array([0.2, 0.3, 0.4, 0.1]))
    T[0, 3] = 2.0
    assert not igm(scara, T).valid.any()


def test_scara_solves_what_its_task_constrains():
    """A tilted target: the SCARA reaches P and the rotation angle about z."""
    robot = robmod.load_robot("scara", numeric=True)
    T = dgm(robot, np.array([0.2, 0.9, -0.4, 0.1]))
    c, s = np.cos(0.3), np.sin(0.3)
    tilt = np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])
    T2 = T.copy()
    T2[:3, :3] = T[:3, :3] @ tilt[:3, :3]
    q, valid = igm(robot, T2)
    assert valid.all()
    Tq = dgm(robot, q)
    assert np.abs(Tq[:, :3, 3] - T2[:3, 3]).max() < 1e-12
    yaw = np.arctan2(Tq[:, 1, 0], Tq[:, 0, 0])                 # the closest rotation about z
    assert np.allclose(yaw, np.arctan2(T2[1, 0] - T2[0, 1], T2[0, 0] + T2[1, 1]))
    assert np.allclose(yaw, 0.7)


def test_text_names_the_equation_types(rx90):
    _, sol = rx90
    text = sol.to_text()
    assert "Paul's method" in text and "decoupled (Pieper)" in sol.method
    assert "1. q1: type 2" in text and "element (2,4) of 1T0 U0 = 1T6" in text
    assert "type 6" in text and "type 3" in text and "Number of solutions (branches): 8" in text
    types = [(s.variable, s.type.split(" (")[0]) for s in sol.steps]
    assert types[0] == ("q1", "type 2")
    assert ("q2 + q3", "type 6") in types
    assert sum(t == "type 3" for _, t in types) >= 3
    assert {j for s in sol.steps for j in s.joints} == {1, 2, 3, 4, 5, 6}
    assert "q3 = th23 - q2" in text
    st = sol.steps[0]
    assert st.branches == 2 and "eps" in st.formula and st.singular == "X = Y = 0"
    assert "no solution if D < 0" in text                      # the type-6 derived equation


def test_classical_and_extended_equation_families():
    robot = robmod.load_robot("stanford", numeric=True)
    classic = igm_model(robot, families=("elem",))
    assert [s.type.split(" (")[0] for s in classic.steps][:3] == ["type 2", "type 2", "type 1"]
    extended = igm_model(robot, families=("elem", "inv", "norm"))
    assert "second degree" in extended.steps[0].type         # q3 = +-sqrt(...) from a norm
    q = _random_q(robot, np.random.default_rng(3), 500)
    for sol in (classic, extended):
        _round_trip(robot, sol, q)


def test_symbolic_robot_and_numeric_model(rx90):
    robot, sol = rx90
    sym = igm_model(robmod.load_robot("rx90"))
    assert {str(p) for p in sym.model.parameters} == {"D3", "RL4"}
    assert "D3" in sym.to_text() and "RL4" in sym.to_text()
    q = _random_q(robot, np.random.default_rng(1), 50)
    T = dgm(robot, q)
    a, b = sym.evaluate(T), sol.evaluate(T)
    assert np.array_equal(a.valid, b.valid)
    assert np.abs(_distance(robot, a.q, b.q)).max() < 1e-10
    m = sol.model
    assert isinstance(m, CustomModel) and "T" in m.inputs
    assert "atan2" in m.to_text() and m.count().mults > 0
    other = sym.evaluate(T, params={"D3": 0.5, "RL4": 0.4})   # other lengths: other robot
    assert not np.allclose(np.nan_to_num(other.q), np.nan_to_num(a.q))


def test_compiled_model_gives_the_same_branches(rx90):
    robot, _ = rx90
    sol = igm_model(robmod.load_robot("rx90", numeric=True))
    T = dgm(robot, _random_q(robot, np.random.default_rng(4), 200))
    ref = sol.evaluate(T)
    assert sol.use_compiled() in ("c", "numpy")
    ev = sol.evaluate(T)
    assert np.array_equal(ev.valid, ref.valid) and np.abs(ev.q - ref.q).max() < 1e-9


def test_igm_convenience_batched_fixed_and_tool():
    panda = robmod.load_robot("panda", numeric=True)
    rng = np.random.default_rng(2)
    q = _random_q(panda, rng, 20)
    T = dgm(panda, q)
    Q, valid = igm(panda, T, fixed={7: q[:, 6]})
    assert Q.shape == (20, 8, 7) and valid.any(axis=-1).all()
    assert np.allclose(Q[..., 6], q[:, None, 6])
    with pytest.raises(RobmodError, match="values of the fixed joints"):
        igm(panda, T, fixed=[7])
    Te = dgm(panda, q[0], tool="flange")
    Q, valid = igm(panda, Te[:3], fixed={7: q[0, 6]}, tool="flange")
    assert valid.any() and np.abs(dgm(panda, Q[valid], tool="flange") - Te).max() < 1e-10


def test_rx90_model_is_built_quickly():
    robot = robmod.load_robot("rx90", numeric=True)           # a new robot: no cache
    t = time.process_time()
    sol = igm_model(robot)
    sol.solve(np.eye(4) + np.diag([0, 0, 0, 0]))
    assert time.process_time() - t < 5.0


def test_igm_of_a_tree_chain_and_a_closed_loop_chain():
    """Tree: the IGM of the chain 0..j (right arm of torso2arms, with its tool); closed loop:
    the chain of the parallelogram's equivalent tree, the passive cut joint from the loops."""
    from robmod.geometry.inverse import igm, igm_model
    from robmod.geometry.loops import loop_residual

    tree = robmod.load_robot("torso2arms", numeric=True)
    sol = igm_model(tree, j=7)
    assert sol.robot_joints == (1, 5, 6, 7) and sol.n_branches == 2
    rng = np.random.default_rng(3)
    q = rng.uniform(-1.5, 1.5, (200, tree.n_joints))
    T = dgm(tree, q, tool="right_hand")
    qs, valid = igm(tree, T, j=7, tool="right_hand")
    assert valid.all(axis=-1).mean() > 0.95
    cols = [j - 1 for j in sol.robot_joints]
    for k in range(len(q)):
        for b in np.flatnonzero(valid[k]):
            qq = q[k].copy()
            qq[cols] = qs[k, b]
            assert np.abs(dgm(tree, qq, tool="right_hand") - T[k]).max() < 1e-10
    with pytest.raises(RobmodError, match="give j "):
        igm_model(tree)
    with pytest.raises(RobmodError, match="not on the chain"):
        igm_model(tree, fixed=[2], j=7)

    par = robmod.load_robot("parallelogram", numeric=True)
    q = np.array([0.4, 0.0, 0.0, 1.1, 0.0])
    q[1] = q[3] - q[0]
    q[2] = np.pi - q[1]
    q[4] = q[3] - q[0] - np.pi
    assert np.abs(loop_residual(par, q)).max() < 1e-12
    T = dgm(par, q, j=3)
    qs, valid = igm(par, T, j=3)
    assert valid.any()
    assert min(np.abs(np.angle(np.exp(1j * (qs[b] - q[:3])))).max()
               for b in np.flatnonzero(valid)) < 1e-9
