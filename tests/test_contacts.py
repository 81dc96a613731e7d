"""Contact models, the contact Jacobian and J̇q̇, constrained forward dynamics and impacts:
against Pinocchio 4 (frame Jacobians and classical accelerations, ``constraintDynamics``,
``impulseDynamics``) on random trees, Solo-12 and TALOS, and against closed forms."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.description import ContactPoint, ContactSurface, Plane, Box, ground
from robmod.dynamics import constrained_ddm, delassus, impact, inertia_matrix
from robmod.errors import ArgumentError
from robmod.geometry import neutral
from robmod.kinematics import (contact_jacobian, contact_jdot_qdot, contact_jacobian_model,
                               contact_jdot_qdot_model, contact_poses, jacobian,
                               jacobian_model, jdot_qdot_model)
from robmod.testing import example_robot_data
from robmod.testing.random import random_robot

pin = pytest.importorskip("pinocchio")
from robmod.testing.peers import PinocchioRobot  # noqa: E402


@pytest.fixture(scope="module")
def solo():
    return robmod.read_robot(example_robot_data("solo_description/robots/solo12.urdf"),
                             base="floating").numeric()


@pytest.fixture(scope="module")
def talos():
    """TALOS (reduced), its joints' friction (damping in its file) off as in Pinocchio."""
    robot = robmod.read_robot(example_robot_data("talos_data/robots/talos_reduced.urdf"),
                              base="floating").numeric()
    return replace(robot, links=tuple(replace(link, FV=0, FC=0) for link in robot.links))


FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")


def _floating_state(robot, rng):
    q = neutral(robot)
    q[:3] = rng.normal(size=3)
    Q = rng.normal(size=4)
    q[3:7] = Q / np.linalg.norm(Q)
    q[7:] = rng.uniform(-1, 1, robot.n_q)
    return q, rng.normal(size=6 + robot.n_q), rng.normal(size=robot.n_q)


def _random_floating_tree(rng, n=9):
    r = random_robot(rng, n, tree=True, general=True)
    return r.with_base("floating", M=3.0, XX=0.2, YY=0.3, ZZ=0.25)


def _placement(P, robot, c):
    fid = P.frame_id[robot.frame_number(c.frame)]
    f = P.model.frames[fid]
    p = c.point if isinstance(c, ContactPoint) else c.center
    return f.parentJoint, f.placement * pin.SE3(np.eye(3), np.array(p))


def _pinocchio_rows(P, robot, contacts, q, qd):
    """Pinocchio's LOCAL_WORLD_ALIGNED frame Jacobians and accelerations of the contacts:
    classical for points, spatial for the 6D ones."""
    m, d = P.model, P.data
    pq, pv = P.pin_q(q), P.pin_v(qd)
    pin.forwardKinematics(m, d, pq, pv, np.zeros(m.nv))
    pin.computeJointJacobians(m, d, pq)
    rows, accs = [], []
    for c in contacts:
        joint, pl = _placement(P, robot, c)
        Jw = pin.getFrameJacobian(m, d, joint, pl, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        R = (d.oMi[joint] * pl).rotation
        a, v = pl.actInv(d.a[joint]), pl.actInv(d.v[joint])
        if isinstance(c, ContactPoint):
            rows.append(Jw[:3])
            accs.append(R @ (a.linear + np.cross(v.angular, v.linear)))
        else:
            rows.append(Jw)
            accs.append(np.r_[R @ a.linear, R @ a.angular])
    return P.robmod_v(np.vstack(rows)), np.concatenate(accs)


def _pinocchio_constrained(P, robot, contacts, q, qd, tau):
    m, d = P.model, P.data
    models, datas = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    for c in contacts:
        joint, pl = _placement(P, robot, c)
        kind = pin.ContactType.CONTACT_3D if c.size == 3 else pin.ContactType.CONTACT_6D
        cm = pin.RigidConstraintModel(kind, m, joint, pl, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        models.append(cm)
        datas.append(cm.createData())
    pin.initConstraintDynamics(m, d, models, datas)
    full = np.r_[np.zeros(6), tau] if P.floating else tau
    a = pin.constraintDynamics(m, d, P.pin_q(q), P.pin_v(qd), P.pin_v(full), models, datas,
                               pin.ProximalSettings(1e-14, 1e-12, 0, 1))
    return P.robmod_v(a), d.lambda_c.copy(), models, datas


def _relative(a, b):
    return np.abs(a - b).max() / max(1.0, np.abs(b).max())


# -- contact models (data) -----------------------------------------------------------------

def test_contact_data_is_checked_and_immutable():
    c = ContactPoint("FL_FOOT", (0, 0, -0.01), friction=0.7)
    assert c.name == "FL_FOOT" and c.size == 3 and c.points() == (c,)
    with pytest.raises(ArgumentError, match="friction"):
        ContactPoint(1, friction=-1)
    with pytest.raises(ArgumentError, match="frame"):
        ContactPoint(1.5)
    s = ContactSurface.rectangle("sole", 0.2, 0.1, center=(0.01, 0, 0))
    assert s.size == 6 and np.allclose(s.center, (0.01, 0, 0)) and len(s.points()) == 4
    assert [p.name for p in s.points()] == ["sole:0", "sole:1", "sole:2", "sole:3"]
    with pytest.raises(ArgumentError, match="flat polygon"):
        ContactSurface(1, ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)))
    with pytest.raises(ArgumentError, match="at least 3"):
        ContactSurface(1, ((0, 0, 0), (1, 0, 0)))
    with pytest.raises(AttributeError):
        c.friction = 2.0
    assert hash(c) == hash(ContactPoint("FL_FOOT", (0, 0, -0.01), friction=0.7))


def test_obstacles_give_signed_distances_and_normals():
    d, n = ground(height=0.1).distance([[0, 0, 0.3], [1, 2, 0.0]])
    assert np.allclose(d, [0.2, -0.1]) and np.allclose(n, [0, 0, 1])
    d, n = Plane((0, 0, 2), (0, 0, 1)).distance([0, 0, 0.5])
    assert np.isclose(d, -0.5) and np.allclose(n, [0, 0, 1])
    box = Box((1, 0, 0.5), (2, 1, 1))
    d, n = box.distance([[1, 0, 1.2], [1, 0, 0.9], [2.5, 0, 1.5]])
    assert np.allclose(d, [0.2, -0.1, np.hypot(0.5, 0.5)])
    assert np.allclose(n[0], [0, 0, 1]) and np.allclose(n[1], [0, 0, 1])
    assert np.allclose(n[2], np.array([1, 0, 1]) / np.sqrt(2))


# -- the contact Jacobian and J̇q̇ against Pinocchio ----------------------------------------

def test_contact_jacobian_and_jdot_qdot_match_pinocchio_on_solo(solo):
    rng = np.random.default_rng(1)
    contacts = (ContactPoint("FL_FOOT", (0.01, 0.02, 0.03)),
                ContactSurface.rectangle("HR_FOOT", 0.1, 0.05, center=(0.01, 0, 0)))
    P = PinocchioRobot(solo, floating=True)
    for _ in range(3):
        q, qd, _ = _floating_state(solo, rng)
        Jp, Ap = _pinocchio_rows(P, solo, contacts, q, qd)
        assert _relative(contact_jacobian(solo, q, contacts), Jp) < 1e-12
        assert _relative(contact_jdot_qdot(solo, q, qd, contacts), Ap) < 1e-12


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_contact_jacobian_and_jdot_qdot_match_pinocchio_on_random_trees(seed):
    rng = np.random.default_rng(seed)
    for robot in (random_robot(rng, 7, tree=True, general=True), _random_floating_tree(rng)):
        floating = robot.base_kind == "floating"
        contacts = (ContactPoint(7, tuple(rng.normal(size=3) * 0.2)),
                    ContactSurface.rectangle(4, 0.1, 0.1, center=tuple(rng.normal(size=3) * .1)))
        P = PinocchioRobot(robot, floating=floating)
        if floating:
            q, qd, _ = _floating_state(robot, rng)
        else:
            q, qd = rng.normal(size=(2, robot.n_q))
        Jp, Ap = _pinocchio_rows(P, robot, contacts, q, qd)
        assert _relative(contact_jacobian(robot, q, contacts), Jp) < 1e-12
        assert _relative(contact_jdot_qdot(robot, q, qd, contacts), Ap) < 1e-12


def test_a_point_contact_is_the_frame_jacobian_with_a_tool():
    rx90 = robmod.load_robot("rx90", numeric=True)
    q = np.linspace(-0.5, 0.8, 6)
    J = contact_jacobian(rx90, q, ContactPoint(6, (0.0, 0.0, 0.1)))
    tool = robmod.Tool("t", 6, sp.ImmutableMatrix([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.1],
                                                    [0, 0, 0, 1]]))
    assert np.allclose(J, jacobian(rx90, q, j=6, tool=tool)[:3])
    qs = np.stack([q, q + 0.1])
    assert contact_jacobian(rx90, qs, [ContactPoint(6)]).shape == (2, 3, 6)
    # the customized models are the robot's recursions, no more: the point's three rows cost
    # at most the frame Jacobian's six, its J̇q̇ the second-order model's
    point = [ContactPoint(6, (0.0, 0.0, 0.1))]
    mine, frame = contact_jacobian_model(rx90, point).count(), jacobian_model(
        rx90, j=6, tool=tool).count()
    assert 0 < mine.mults <= frame.mults and mine.adds <= frame.adds
    mine = contact_jdot_qdot_model(rx90, point).count()
    second = jdot_qdot_model(rx90, j=6, tool=tool).count()
    assert 0 < mine.mults <= second.mults and mine.adds <= second.adds


def test_contact_poses_are_the_points_in_the_world(solo):
    q = neutral(solo)
    q[:3] = [0.1, 0.2, 0.3]
    T = contact_poses(solo, q, [ContactPoint("FL_FOOT", (0, 0, 0.01))])
    foot = robmod.geometry.dgm(solo, q, j="FL_FOOT", i="world")
    assert np.allclose(T[0], foot @ np.r_[np.c_[np.eye(3), [0, 0, 0.01]], [[0, 0, 0, 1]]])


def test_bad_contacts_are_refused_by_name(solo):
    with pytest.raises(ArgumentError, match="no frame"):
        contact_jacobian(solo, neutral(solo), [ContactPoint("NO_FOOT")])
    with pytest.raises(ArgumentError, match="ContactPoint, a ContactSurface"):
        contact_jacobian(solo, neutral(solo), ["FL_FOOT"])
    ship = robmod.load_robot("ur5", numeric=True).with_base("mobile", M=5, XX=1, YY=1, ZZ=1)
    with pytest.raises(ArgumentError, match="mobile base"):
        contact_jacobian(ship, np.zeros(6), [ContactPoint(6)])


# -- constrained forward dynamics ----------------------------------------------------------

def test_delassus_terms_are_those_of_the_matrices(solo):
    rng = np.random.default_rng(4)
    q, qd, tau = _floating_state(solo, rng)
    contacts = tuple(ContactPoint(f) for f in FEET)
    P = delassus(solo, q, qd, tau, contacts)
    M = inertia_matrix(solo, q)
    h = robmod.dynamics.idm(solo, q, qd, np.zeros(18))
    J = contact_jacobian(solo, q, contacts)
    a = np.linalg.solve(M, np.r_[np.zeros(6), tau] - h)
    assert np.allclose(P.G, J @ np.linalg.solve(M, J.T), atol=1e-10)
    assert np.allclose(P.a_free, a) and np.allclose(P.Ja, J @ a) and np.allclose(P.Jv, J @ qd)
    assert np.allclose(P.minv_jt, np.linalg.solve(M, J.T))
    assert np.allclose(P.drift, contact_jdot_qdot(solo, q, qd, contacts))
    assert np.allclose(P.positions, contact_poses(solo, q, contacts)[:, :3, 3])


def test_constrained_dynamics_matches_pinocchio_on_solo(solo):
    rng = np.random.default_rng(2)
    P = PinocchioRobot(solo, floating=True)
    for contacts in [tuple(ContactPoint(f) for f in FEET),
                     (ContactPoint("FL_FOOT"), ContactPoint("HR_FOOT", (0.01, 0, 0)),
                      ContactSurface.rectangle("FR_FOOT", 0.02, 0.02))]:
        for _ in range(3):
            q, qd, tau = _floating_state(solo, rng)
            a, lam, *_ = _pinocchio_constrained(P, solo, contacts, q, qd, tau)
            out = constrained_ddm(solo, q, qd, tau, contacts)
            assert _relative(out.qdd, a) < 1e-9 and _relative(out.forces, lam) < 1e-9
            # the constraint holds: J qdd + J̇qd = 0
            J = contact_jacobian(solo, q, contacts)
            assert np.abs(J @ out.qdd + contact_jdot_qdot(solo, q, qd, contacts)).max() < 1e-8


def test_constrained_dynamics_matches_pinocchio_on_talos_standing(talos):
    rng = np.random.default_rng(3)
    feet = (ContactSurface.rectangle("left_sole_link", 0.2, 0.1),
            ContactSurface.rectangle("right_sole_link", 0.2, 0.1))
    P = PinocchioRobot(talos, floating=True)
    q, qd, tau = _floating_state(talos, rng)
    q[7:] *= 0.3
    a, lam, *_ = _pinocchio_constrained(P, talos, feet, q, qd, tau)
    out = constrained_ddm(talos, q, qd, tau, feet)
    assert _relative(out.qdd, a) < 1e-9 and _relative(out.forces, lam) < 1e-9
    # at rest, torques off: Newton's law of the whole, sum f = M (c'' - g), c'' = Jc qdd
    q0 = neutral(talos)
    still = constrained_ddm(talos, q0, np.zeros(38), np.zeros(32), feet)
    mass = float(talos.base_link.M + sum(link.M for link in talos.links))
    cdd = robmod.dynamics.center_of_mass_jacobian(talos, q0) @ still.qdd
    assert np.allclose(still.forces[0:3] + still.forces[6:9], mass * (cdd + [0, 0, 9.81]))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_constrained_dynamics_matches_pinocchio_on_random_trees(seed):
    rng = np.random.default_rng(seed)
    for robot in (_random_floating_tree(rng), random_robot(rng, 8, general=True)):
        floating = robot.base_kind == "floating"
        n = robot.n_links
        contacts = (ContactPoint(n, tuple(rng.normal(size=3) * 0.2)),)
        if floating:      # a sole on another branch of the tree
            other = [k for k in range(1, n) if k not in robot.chain(n)]
            contacts += (ContactSurface.rectangle(other[-1], 0.1, 0.1),)
            q, qd, tau = _floating_state(robot, rng)
        else:
            q, qd, tau = rng.normal(size=(3, robot.n_q))
        J = contact_jacobian(robot, q, contacts)
        assert np.linalg.matrix_rank(J) == len(J), "redundant contacts: no unique forces"
        P = PinocchioRobot(robot, floating=floating)
        a, lam, *_ = _pinocchio_constrained(P, robot, contacts, q, qd, tau)
        out = constrained_ddm(robot, q, qd, tau, contacts)
        assert _relative(out.qdd, a) < 1e-9 and _relative(out.forces, lam) < 1e-9


def test_constrained_dynamics_is_batched(solo):
    rng = np.random.default_rng(5)
    states = [_floating_state(solo, rng) for _ in range(5)]
    q, qd, tau = (np.stack(x) for x in zip(*states))
    contacts = tuple(ContactPoint(f) for f in FEET)
    out = constrained_ddm(solo, q, qd, tau, contacts)
    assert out.qdd.shape == (5, 18) and out.forces.shape == (5, 12)
    one = constrained_ddm(solo, q[3], qd[3], tau[3], contacts)
    assert np.allclose(out.qdd[3], one.qdd) and np.allclose(out.forces[3], one.forces)


def test_redundant_contacts_get_the_forces_of_least_norm(solo):
    q = neutral(solo)
    q[7:] = np.tile([0.0, 0.8, -1.6], 4)
    sole = ContactSurface.rectangle("FL_FOOT", 0.02, 0.02)
    contacts = sole.points() + (ContactPoint("FR_FOOT"), ContactPoint("HL_FOOT"),
                                ContactPoint("HR_FOOT"), ContactPoint("HR_FOOT"))
    out = constrained_ddm(solo, q, np.zeros(18), np.zeros(12), contacts)
    J = contact_jacobian(solo, q, contacts)
    assert np.abs(J @ out.qdd).max() < 1e-9                  # the constraints hold
    # the doubled contact shares its force equally (least norm)
    assert np.allclose(out.forces[-6:-3], out.forces[-3:])
    mass = float(solo.base_link.M + sum(link.M for link in solo.links))
    cdd = robmod.dynamics.center_of_mass_jacobian(solo, q) @ out.qdd
    assert np.isclose(out.forces[2::3].sum(), mass * (cdd[2] + 9.81))


def test_baumgarte_matches_pinocchio_and_pulls_the_contacts_back(solo):
    rng = np.random.default_rng(6)
    q, qd, tau = _floating_state(solo, rng)
    contacts = (ContactPoint("FL_FOOT"), ContactPoint("HR_FOOT"))
    anchors = contact_poses(solo, q, contacts).copy()
    anchors[:, :3, 3] += [[0.01, -0.02, 0.005], [0.0, 0.01, -0.01]]
    kp, kd = 100.0, 20.0
    P = PinocchioRobot(solo, floating=True)
    m, d = P.model, P.data
    models, datas = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    for c, A in zip(contacts, anchors):
        joint, pl = _placement(P, solo, c)
        cm = pin.RigidConstraintModel(pin.ContactType.CONTACT_3D, m, joint, pl, 0,
                                      pin.SE3(A[:3, :3], A[:3, 3]),
                                      pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        bp = cm.m_baumgarte_parameters
        bp.Kp, bp.Kd = kp, kd
        cm.setBaumgarteCorrectorParameters(bp)
        models.append(cm)
        datas.append(cm.createData())
    pin.initConstraintDynamics(m, d, models, datas)
    a = pin.constraintDynamics(m, d, P.pin_q(q), P.pin_v(qd), P.pin_v(np.r_[np.zeros(6), tau]),
                               models, datas, pin.ProximalSettings(1e-14, 1e-12, 0, 1))
    out = constrained_ddm(solo, q, qd, tau, contacts, baumgarte=(kp, kd), anchors=anchors)
    assert _relative(out.qdd, P.robmod_v(a)) < 1e-9 and _relative(out.forces, d.lambda_c) < 1e-9


# -- impacts -------------------------------------------------------------------------------

def test_impacts_match_pinocchio_and_the_closed_form(solo):
    rng = np.random.default_rng(7)
    q, qd, _ = _floating_state(solo, rng)
    contacts = (ContactPoint("FL_FOOT"), ContactSurface.rectangle("HR_FOOT", 0.02, 0.02))
    P = PinocchioRobot(solo, floating=True)
    *_, models, datas = _pinocchio_constrained(P, solo, contacts, q, qd, np.zeros(12))
    for e in (0.0, 0.5, 1.0):
        v = pin.impulseDynamics(P.model, P.data, P.pin_q(q), P.pin_v(qd), models, datas, e,
                                pin.ProximalSettings(1e-14, 1e-12, 0, 1))
        out = impact(solo, q, qd, contacts, restitution=e)
        assert _relative(out.qd, P.robmod_v(v)) < 1e-9
        assert _relative(out.impulses, P.data.impulse_c) < 1e-9
        # the closed form: M (v+ - v-) = J^T L, J v+ = -e J v-
        M = inertia_matrix(solo, q)
        J = contact_jacobian(solo, q, contacts)
        assert np.allclose(M @ (out.qd - qd), J.T @ out.impulses)
        assert np.allclose(J @ out.qd, -e * J @ qd)
        # energy does not grow; a plastic impact loses it, an elastic one keeps it
        before, after = qd @ M @ qd / 2, out.qd @ M @ out.qd / 2
        assert after <= before + 1e-9
        if e == 1.0:
            assert np.isclose(after, before)
