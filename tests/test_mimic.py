"""Dependent (mimic) joints q_j = m q_i + c: one entry per independent joint in every joint
vector; Jacobians, torques and inertia by the chain rule (robmod.description.mimic).  The URDF
robots with <mimic> tags agree with Pinocchio's mimic model in tests/test_urdf_robots.py."""
import pickle
from dataclasses import replace
from types import MappingProxyType

import numpy as np
import pytest

import robmod
from robmod.dynamics import ddm, idm, inertia_matrix
from robmod.dynamics.lagrange import gravity_torques
from robmod.errors import RobmodError
from robmod.geometry.direct import dgm, dgm_model
from robmod.kinematics.jacobians import jacobian
from robmod.testing.random import random_robot, with_random_dynamics


def _coupled(seed=0):
    """A random 4-joint serial robot whose joint 3 follows joint 1: q3 = -0.7 q1 + 0.2."""
    rng = np.random.default_rng(seed)
    base = with_random_dynamics(random_robot(rng, 4, prismatic=False), rng, friction=True)
    return base, replace(base, mimic=MappingProxyType({3: (1, -0.7, 0.2)}))


def _full_state(q, qd=None, qdd=None):
    """The same state for the robot without the coupling (4 independent joints)."""
    def expand(x, off):
        return np.array([x[0], x[1], -0.7 * x[0] + off, x[2]])
    return [expand(q, 0.2)] + [expand(x, 0.0) for x in (qd, qdd) if x is not None]


def test_joint_vectors_exclude_the_mimic_joint():
    free, robot = _coupled()
    assert robot.joints == (1, 2, 4) and robot.n_q == 3 and free.n_q == 4
    with pytest.raises(RobmodError, match="3 joint values"):
        dgm(robot, np.zeros(4))


def test_models_follow_the_chain_rule():
    free, robot = _coupled()
    rng = np.random.default_rng(1)
    q, qd, qdd = rng.uniform(-1, 1, (3, 3))
    Q, QD, QDD = _full_state(q, qd, qdd)
    E = np.array([[1, 0, 0], [0, 1, 0], [-0.7, 0, 0], [0, 0, 1.0]])
    assert np.allclose(dgm(robot, q), dgm(free, Q), atol=1e-14)
    assert np.allclose(jacobian(robot, q), jacobian(free, Q) @ E, atol=1e-13)
    assert np.allclose(idm(robot, q, qd, qdd), E.T @ idm(free, Q, QD, QDD), atol=1e-10)
    A = inertia_matrix(robot, q)
    assert np.allclose(A, E.T @ inertia_matrix(free, Q) @ E, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(A) > 0)
    assert np.allclose(gravity_torques(robot, q), E.T @ gravity_torques(free, Q), atol=1e-10)
    tau = idm(robot, q, qd, qdd)
    assert np.allclose(ddm(robot, q, qd, tau), qdd, atol=1e-9)       # DDM(IDM) = identity
    # batched as well
    qb = rng.uniform(-1, 1, (5, 3))
    assert np.allclose(dgm(robot, qb)[2], dgm(robot, qb[2]), atol=1e-14)


def test_jacobian_against_finite_differences_of_the_dgm():
    _, robot = _coupled(2)
    q = np.array([0.3, -0.4, 0.5])
    J = jacobian(robot, q)
    h = 1e-6
    for k in range(3):
        dq = np.zeros(3)
        dq[k] = h
        v = (dgm(robot, q + dq)[:3, 3] - dgm(robot, q - dq)[:3, 3]) / (2 * h)
        assert np.allclose(J[:3, k], v, atol=1e-8)


def test_symbolic_dgm_takes_the_independent_joints():
    _, robot = _coupled()
    model = dgm_model(robot)
    assert [str(s) for s in model.inputs["q"]] == ["q1", "q2", "q4"]
    f = model.numpy_function()
    q = np.array([0.1, 0.2, 0.3])
    assert np.allclose(f(q[None])[0], dgm(robot, q)[:3], atol=1e-12)


@pytest.mark.parametrize("mimic", [(1, -0.7, 0.2), (1, -1.0, -0.61)])
def test_customized_models_take_the_mimic_joints(mimic):
    """The customized IDM, inertia matrix and DDM over the independent joints (torques
    Γ_i + m Γ_j, Eᵀ A E, the DDM by A^-1 (Γ - H)) equal the numeric models.  Multiplier -1 with
    an offset (Talos's grippers) made idm_model recurse until RecursionError."""
    from robmod.dynamics import ddm_model, idm_model, inertia_matrix_model

    free, _ = _coupled()
    robot = replace(free, mimic=MappingProxyType({3: mimic}))
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.uniform(-1, 1, (3, 5, 3))
    model = idm_model(robot)
    assert [str(s) for s in model.inputs["q"]] == ["q1", "q2", "q4"]
    assert model.outputs[0].names == ("GAM1", "GAM2", "GAM4")
    tau = idm(robot, q, qd, qdd)
    assert np.allclose(model.numpy_function()(q, qd, qdd), tau, atol=1e-10)
    lower = inertia_matrix_model(robot).numpy_function()(q)
    A = inertia_matrix(robot, q)
    assert np.allclose(lower, A[:, [0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]], atol=1e-12)
    direct = ddm_model(robot)
    assert "A^-1" in direct.title
    assert np.allclose(direct.numpy_function()(q, qd, tau), qdd, atol=1e-9)
    with pytest.raises(RobmodError, match="method='inverse'"):
        ddm_model(robot, method="recursive")


def test_base_parameters_and_regressor_of_a_mimic_robot():
    """Base parameters of a robot with a mimic joint: the closed-form rules hold (they rest on
    which parts of a link move with its joint, not on what drives it), the numeric finish
    regroups what the coupling adds (the mimic joint's rotor and friction into the joint it
    follows); Φ_b β = Γ and Φ χ = Γ."""
    from robmod.identification import base_parameters, regressor
    from robmod.identification.base_numeric import compare
    from robmod.identification.regressors import standard_vector

    _, robot = _coupled()
    bp = base_parameters(robot)
    assert compare(bp).same_space
    assert "IA3" not in bp.names and "FV3" not in bp.names
    rng = np.random.default_rng(4)
    q, qd, qdd = rng.uniform(-1, 1, (3, 6, 3))
    tau = idm(robot, q, qd, qdd)
    assert np.allclose(regressor(robot, q, qd, qdd) @ standard_vector(robot), tau, atol=1e-10)
    beta = np.array([float(v) for v in bp.values_of(robot).values()])
    assert np.allclose(regressor(robot, q, qd, qdd, params=bp) @ beta, tau, atol=1e-10)


def test_refusals_and_validation():
    _, robot = _coupled()
    with pytest.raises(RobmodError, match="independent joint"):
        robmod.make_robot("bad", robot.frames, robot.links, mimic={3: (3, 1.0, 0.0)})
    with pytest.raises(RobmodError, match="non-zero"):
        robmod.make_robot("bad", robot.frames, robot.links, mimic={3: (1, 0.0, 0.0)})
    again = pickle.loads(pickle.dumps(robot))
    assert again.mimic == robot.mimic and again.joints == robot.joints


def test_urdf_mimic_tag(tmp_path):
    """<mimic joint= multiplier= offset=>, a chain of mimics composed, errors with the line."""
    links = "".join(f'<link name="l{k}"><inertial><mass value="1"/><origin xyz="0.1 0 0"/>'
                    f'<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>'
                    f'</inertial></link>' for k in range(4))

    def joint(k, extra=""):
        return (f'<joint name="j{k}" type="revolute"><parent link="l{k - 1}"/>'
                f'<child link="l{k}"/><origin xyz="0.3 0 0"/><axis xyz="0 0 1"/>'
                f'<limit lower="-3" upper="3" effort="10" velocity="2"/>{extra}</joint>')
    body = (joint(1) + joint(2, '<mimic joint="j1" multiplier="2" offset="0.1"/>')
            + joint(3, '<mimic joint="j2" multiplier="-1"/>'))
    path = tmp_path / "m.urdf"
    path.write_text(f'<robot name="m">{links}{body}</robot>')
    robot = robmod.read_robot(str(path)).numeric()
    assert robot.n_q == 1
    assert dict(robot.mimic) == {2: (1, 2.0, 0.1), 3: (1, -2.0, -0.1)}
    # planar: q1 = 0.3, q2 = 2 q1 + 0.1 = 0.7, q3 = -q2 = -0.7; frame 3 sits at joint 3
    T = dgm(robot, [0.3])
    assert np.allclose(T[:2, 3], [0.3 + 0.3 * np.cos(0.3) + 0.3 * np.cos(1.0),
                                  0.3 * np.sin(0.3) + 0.3 * np.sin(1.0)], atol=1e-12)
    assert np.allclose(T[:2, 0], [np.cos(0.3), np.sin(0.3)], atol=1e-12)
    bad = body.replace('joint="j1"', 'joint="nope"')
    path.write_text(f'<robot name="m">{links}{bad}</robot>')
    with pytest.raises(RobmodError, match="names no movable joint"):
        robmod.read_robot(str(path))


def test_yaml_keeps_the_mimic_joints(tmp_path):
    _, robot = _coupled()
    path = tmp_path / "c.yaml"
    robmod.write_robot(robot, str(path))
    again = robmod.read_robot(str(path))
    assert dict(again.mimic) == {3: (1, -0.7, 0.2)} and again.joints == (1, 2, 4)
    with pytest.raises(RobmodError, match="only in its YAML"):
        robmod.write_robot(robot, str(tmp_path / "c.urdf"))
    text = path.read_text().replace("joint: 1,", "joint: x,")
    path.write_text(text)
    with pytest.raises(RobmodError, match="mimic"):
        robmod.read_robot(str(path))
