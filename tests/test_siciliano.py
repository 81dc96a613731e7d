"""Seed 003 conventions: Siciliano descriptions converted to Khalil's, and Siciliano's rotor model.

The reference is an independent Lagrangian written here in the book's own terms (standard DH
frames, (7.16)-(7.19) and (7.25)-(7.30) for B, (7.36) for U, Lagrange equations by finite
differences), compared with robmod's Newton-Euler IDM, inertia matrix, energies and DGM of the
converted robot: torques and energies, never parameters.
"""
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import robmod
from robmod.dynamics.siciliano import (SicilianoLink, SicilianoMotor, from_siciliano,
                                          tensor_parameters, to_siciliano)
from robmod.dynamics import gravity_torques, idm, inertia_matrix, kinetic_energy
from robmod.dynamics.rotors import (Rotor, coriolis_matrix_with_rotors, idm_with_rotors,
                                    idm_with_rotors_model, rotor_coriolis_matrix,
                                    rotor_inertia_matrix, rotor_kinetic_energy, rotor_torques_model,
                                    rotor_torques)
from robmod.geometry.direct import dgm
from robmod.testing.random import random_robot, with_random_dynamics

G0 = np.array([0.0, -3.0, -9.81])


# -- the book's Lagrangian, numerically ------------------------------------------------------

def dh(a, alpha, d, theta):
    ca, sa, ct, st_ = np.cos(alpha), np.sin(alpha), np.cos(theta), np.sin(theta)
    return np.array([[ct, -st_ * ca, st_ * sa, a * ct], [st_, ct * ca, -ct * sa, a * st_],
                     [0, sa, ca, d], [0, 0, 0, 1.0]])


def f(x):
    return float(x)


def frames(links, q):
    T = [np.eye(4)]
    for L, qi in zip(links, q):
        rev = L.sigma == 0
        T.append(T[-1] @ dh(f(L.a), f(L.alpha), f(L.d) + (0 if rev else qi),
                            f(L.theta) + (qi if rev else 0)))
    return T


def jac(links, T, point, upto):
    """(7.18)-(7.19): J_P and J_O of a point carried by link ``upto``."""
    n = len(links)
    JP, JO = np.zeros((3, n)), np.zeros((3, n))
    for j in range(upto):
        z, p = T[j][:3, 2], T[j][:3, 3]
        if links[j].sigma == 0:
            JP[:, j] = np.cross(z, point - p)
            JO[:, j] = z
        else:
            JP[:, j] = z
    return JP, JO


def book_B(links, motors, q, model):
    """(7.32) with the rotor terms of (7.30) (``model='khalil'``: spin part k_r^2 I_m only)."""
    T = frames(links, q)
    n = len(links)
    B = np.zeros((n, n))
    for i, L in enumerate(links, start=1):
        R = T[i][:3, :3]
        pc = T[i][:3, :3] @ np.array([f(x) for x in L.r_c]) + T[i][:3, 3]
        JP, JO = jac(links, T, pc, i)
        I = np.array(L.inertia_tensor(), dtype=float)
        B += f(L.m) * JP.T @ JP + JO.T @ R @ I @ R.T @ JO
        mot = motors[i - 1]
        if mot is None:
            continue
        Rp = T[i - 1][:3, :3]
        pm = Rp @ np.array([f(x) for x in mot.p]) + T[i - 1][:3, 3]
        z = Rp @ np.array([f(x) for x in mot.z])
        JPm, JOm = jac(links, T, pm, i - 1)
        B += f(mot.m_m) * JPm.T @ JPm
        Im = f(mot.I_mt) * (np.eye(3) - np.outer(z, z)) + f(mot.I_m) * np.outer(z, z)
        if model == "siciliano":
            JOm[:, i - 1] = f(mot.k_r) * z  # (7.29)
            B += JOm.T @ Im @ JOm
        else:
            B += JOm.T @ (f(mot.I_mt) * (np.eye(3) - np.outer(z, z))) @ JOm
            B[i - 1, i - 1] += f(mot.k_r) ** 2 * f(mot.I_m)
    return B


def book_U(links, motors, q, g0):
    """(7.36)"""
    T = frames(links, q)
    U = 0.0
    for i, L in enumerate(links, start=1):
        pc = T[i][:3, :3] @ np.array([f(x) for x in L.r_c]) + T[i][:3, 3]
        U -= f(L.m) * g0 @ pc
        mot = motors[i - 1]
        if mot is not None:
            pm = T[i - 1][:3, :3] @ np.array([f(x) for x in mot.p]) + T[i - 1][:3, 3]
            U -= f(mot.m_m) * g0 @ pm
    return U


def book_torques(links, motors, q, qd, qdd, model, g0, h=1e-6):
    """Lagrange (7.38)-(7.42): B qdd + Bdot qd - 1/2 d(qd^T B qd)/dq + dU/dq + friction."""
    n = len(q)
    B = book_B(links, motors, q, model)
    dB = [(book_B(links, motors, q + h * e, model) - book_B(links, motors, q - h * e, model))
          / (2 * h) for e in np.eye(n)]
    Bdot = sum(dB[k] * qd[k] for k in range(n))
    dT = np.array([0.5 * qd @ dB[k] @ qd for k in range(n)])
    dU = np.array([(book_U(links, motors, q + h * e, g0) - book_U(links, motors, q - h * e, g0))
                   / (2 * h) for e in np.eye(n)])
    fv = np.array([f(L.F_v) + (f(m.k_r) ** 2 * f(m.F_m) if m else 0)
                   for L, m in zip(links, motors)])
    fs = np.array([f(L.F_s) for L in links])
    return B @ qdd + Bdot @ qd - dT + dU + fv * qd + fs * np.sign(qd)


# -- random arms ----------------------------------------------------------------------------

def random_tensor(rng, scale=0.2):
    a, b = rng.uniform(0.01, scale, 2)
    c = rng.uniform(abs(a - b), a + b)
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return Q @ np.diag([a, b, c]) @ Q.T


def random_arm(rng, n, friction=False):
    links, motors = [], []
    for _ in range(n):
        links.append(SicilianoLink.with_tensor(
            random_tensor(rng), a=rng.uniform(-0.5, 0.5), alpha=rng.uniform(-np.pi, np.pi),
            d=rng.uniform(-0.5, 0.5), theta=rng.uniform(-np.pi, np.pi),
            joint="P" if rng.random() < 0.3 else "R", m=rng.uniform(0.5, 5),
            r_c=tuple(rng.uniform(-0.3, 0.3, 3)),
            F_v=rng.uniform(0, 1) if friction else 0, F_s=rng.uniform(0, 1) if friction else 0))
        z = rng.normal(size=3)
        motors.append(SicilianoMotor(
            k_r=rng.uniform(1, 30), I_m=rng.uniform(1e-4, 1e-2), m_m=rng.uniform(0.1, 2),
            p=tuple(rng.uniform(-0.2, 0.2, 3)), z=tuple(z / np.linalg.norm(z)),
            I_mt=rng.uniform(0, 1e-3), F_m=rng.uniform(0, 1e-3) if friction else 0))
    return links, motors


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 5), model=st.sampled_from(["khalil",
                                                                              "siciliano"]))
def test_converted_arm_has_the_books_torques_energy_and_inertia(seed, n, model):
    rng = np.random.default_rng(seed)
    links, motors = random_arm(rng, n, friction=True)
    robot, rotors = from_siciliano("arm", links, motors, gravity=G0, rotor_model=model)
    assert (len(rotors) == n) == (model == "siciliano")
    for _ in range(2):
        q, qd, qdd = rng.uniform(-2, 2, (3, n))
        Bb = book_B(links, motors, q, model)
        B = inertia_matrix(robot, q) + rotor_inertia_matrix(robot, rotors, q)
        assert np.abs(B - Bb).max() < 1e-11 * max(1, np.abs(Bb).max())
        T = kinetic_energy(robot, q, qd) + rotor_kinetic_energy(robot, rotors, q, qd)
        assert abs(T - 0.5 * qd @ Bb @ qd) < 1e-10 * max(1, abs(T))
        tau = idm_with_rotors(robot, rotors, q, qd, qdd)
        ref = book_torques(links, motors, q, qd, qdd, model, G0)
        assert np.abs(tau - ref).max() < 2e-7 * max(1, np.abs(ref).max())
        dU = [(book_U(links, motors, q + 1e-6 * e, G0) - book_U(links, motors, q - 1e-6 * e, G0))
              / 2e-6 for e in np.eye(n)]
        assert np.abs(gravity_torques(robot, q) - dU).max() < 1e-7


def test_forward_kinematics_every_siciliano_frame():
    rng = np.random.default_rng(7)
    links, motors = random_arm(rng, 5)
    robot, _ = from_siciliano("arm", links, motors)
    for q in rng.uniform(-2, 2, (4, 5)):
        T = frames(links, q)
        np.testing.assert_allclose(dgm(robot, q, tool="tip"), T[5], rtol=0, atol=1e-13)
        for i in range(1, 5):
            L = links[i - 1]
            E = dh(f(L.a), f(L.alpha), 0, 0)  # Trans(x, a_i) Rot(x, alpha_i)
            np.testing.assert_allclose(dgm(robot, q, j=i) @ E, T[i], rtol=0, atol=1e-13)


def test_products_of_inertia_sign_from_point_masses():
    """(7.11) as the book defines it (Ixy = int x y dm, entered with a minus sign), checked on a
    cloud of point masses: kinetic energy of the particles = robmod's energy of the link."""
    rng = np.random.default_rng(3)
    pts, ms = rng.uniform(-0.4, 0.4, (7, 3)), rng.uniform(0.2, 1.0, 7)
    com = ms @ pts / ms.sum()
    r = pts - com
    params = dict(Ixx=ms @ (r[:, 1] ** 2 + r[:, 2] ** 2), Iyy=ms @ (r[:, 0] ** 2 + r[:, 2] ** 2),
                  Izz=ms @ (r[:, 0] ** 2 + r[:, 1] ** 2), Ixy=ms @ (r[:, 0] * r[:, 1]),
                  Ixz=ms @ (r[:, 0] * r[:, 2]), Iyz=ms @ (r[:, 1] * r[:, 2]))
    body = SicilianoLink(a=0.3, alpha=0.7, d=0.1, m=ms.sum(), r_c=tuple(com), **params)
    links = [SicilianoLink(a=0.4, alpha=1.1, d=0.2, m=1, Ixx=0.1, Iyy=0.1, Izz=0.1), body]
    robot, _ = from_siciliano("cloud", links)
    for q, qd in rng.uniform(-2, 2, (3, 2, 2)):
        h = 1e-6
        Tp, Tm = frames(links, q + h * qd)[2], frames(links, q - h * qd)[2]
        v = ((Tp[:3, :3] @ pts.T + Tp[:3, 3:]) - (Tm[:3, :3] @ pts.T + Tm[:3, 3:])) / (2 * h)
        E_particles = 0.5 * ms @ (v ** 2).sum(axis=0)
        E_link2 = kinetic_energy(robot, q, qd) - 0.5 * qd[0] ** 2 * book_B(
            links[:1], [None], q[:1], "khalil")[0, 0]
        assert abs(E_link2 - E_particles) < 1e-8
    assert tensor_parameters(body.inertia_tensor()) == {k: body.__dict__[k] for k in params}


# -- rotors.py: Lagrangian checks ------------------------------------------------------------

def _rotor_cases(rng):
    out = []
    for name in ("rx90", "stanford", "scara", "torso2arms"):
        out.append(with_random_dynamics(robmod.load_robot(name, numeric=True), rng))
    out.append(random_robot(rng, 4, general=True))
    cases = []
    for robot in out:
        rotors = []
        for j in robot.joints:
            z = rng.normal(size=3)
            rotors.append(Rotor(j, rng.uniform(0.01, 0.1), rng.uniform(1, 20),
                                tuple(z / np.linalg.norm(z))))
        cases.append((robot, rotors))
    return cases


def test_rotor_terms_are_the_lagrangian_of_the_rotor_energy():
    rng = np.random.default_rng(11)
    h = 1e-6
    for robot, rotors in _rotor_cases(rng):
        n = robot.n_joints
        q, qd, qdd = rng.uniform(-2, 2, (3, n))
        E = np.eye(n)
        T = lambda q_, v: rotor_kinetic_energy(robot, rotors, q_, v)  # noqa: E731
        # B_r = d2T/dqd2 (T is a quadratic form: polarization is exact)
        Bpol = np.array([[T(q, E[i] + E[j]) - T(q, E[i]) - T(q, E[j]) for j in range(n)]
                         for i in range(n)])
        B = rotor_inertia_matrix(robot, rotors, q)
        assert np.abs(B - Bpol).max() < 1e-10 * np.abs(B).max()
        # Lagrange: B qdd + Bdot qd - dT/dq
        Bd = (rotor_inertia_matrix(robot, rotors, q + h * qd)
              - rotor_inertia_matrix(robot, rotors, q - h * qd)) / (2 * h)
        dT = np.array([(T(q + h * e, qd) - T(q - h * e, qd)) / (2 * h) for e in E])
        ref = B @ qdd + Bd @ qd - dT
        tau = rotor_torques(robot, rotors, q, qd, qdd)
        assert np.abs(tau - ref).max() < 1e-7 * max(1, np.abs(ref).max())
        # Christoffel C: C qd = velocity terms, Bdot - 2 C skew-symmetric
        C = rotor_coriolis_matrix(robot, rotors, q, qd)
        assert np.abs(C @ qd - rotor_torques(robot, rotors, q, qd, 0 * qd)).max() < 1e-10
        N = Bd - 2 * C
        assert np.abs(N + N.T).max() < 1e-7 * max(1, np.abs(Bd).max())
        # power balance: dT/dt = qd . tau (no potential)
        qp, qm = q + h * qd + 0.5 * h**2 * qdd, q - h * qd + 0.5 * h**2 * qdd
        dTdt = (T(qp, qd + h * qdd) - T(qm, qd - h * qdd)) / (2 * h)
        assert abs(dTdt - qd @ tau) < 1e-6 * max(1, abs(dTdt))


def test_rotor_terms_batched_and_complete_coriolis():
    rng = np.random.default_rng(5)
    robot, rotors = _rotor_cases(rng)[0]
    q, qd, qdd = rng.uniform(-2, 2, (3, 4, 3, 6))
    tau = rotor_torques(robot, rotors, q, qd, qdd)
    assert tau.shape == (4, 3, 6)
    assert np.abs(tau[2, 1] - rotor_torques(robot, rotors, q[2, 1], qd[2, 1], qdd[2, 1])).max() \
        < 1e-12
    B = inertia_matrix(robot, q) + rotor_inertia_matrix(robot, rotors, q)
    C = coriolis_matrix_with_rotors(robot, rotors, q, qd)
    full = idm_with_rotors(robot, rotors, q, qd, qdd)
    lhs = np.einsum("...ij,...j->...i", B, qdd) + np.einsum("...ij,...j->...i", C, qd) \
        + gravity_torques(robot, q)
    assert np.abs(lhs - full).max() < 1e-9


def test_symbolic_rotor_models_match_numeric():
    rng = np.random.default_rng(8)
    robot, rotors = _rotor_cases(rng)[0]  # RX-90 with random rotor axes
    q, qd, qdd = rng.uniform(-2, 2, (3, 5, 6))
    m = rotor_torques_model(robot, rotors)
    assert np.abs(m.compile()(q, qd, qdd) - rotor_torques(robot, rotors, q, qd, qdd)).max() \
        < 1e-10
    full = idm_with_rotors_model(robot, rotors).compile()(q, qd, qdd)
    assert np.abs(full - idm_with_rotors(robot, rotors, q, qd, qdd)).max() < 1e-9
    # axes along z of the carrier (the usual mounting): a small customized model
    rx = robmod.load_robot("rx90")
    zr = [Rotor(j, f"IM{j}", f"KR{j}") for j in range(1, 7)]
    cnt = rotor_torques_model(rx, zr).count()
    assert (cnt.mults, cnt.adds) == ROTOR_RX90_COUNT


ROTOR_RX90_COUNT = (73, 51)


# -- to_siciliano ------------------------------------------------------------------------------

def _gamma_b_robot(rng):
    rows = [dict(j=1, ant=0, sigma=0, gamma=0.4, b=0.3, alpha=0.5, d=0.2, theta=0.1, r=0.2)]
    rows += [dict(j=j, ant=j - 1, sigma=int(j == 3), gamma=rng.uniform(-1, 1),
                  b=rng.uniform(-0.3, 0.3), alpha=rng.uniform(-2, 2), d=rng.uniform(-0.4, 0.4),
                  theta=rng.uniform(-1, 1), r=rng.uniform(-0.3, 0.3)) for j in range(2, 5)]
    robot = robmod.make_robot("gb", rows, links=[robmod.Link(j=j) for j in range(1, 5)],
                              Z=sp.Matrix(dh(0.1, 0.3, 0.2, 0.5)))
    return with_random_dynamics(robot, rng, gravity=(0.5, -2.0, -9.81), friction=True)


@pytest.mark.parametrize("name", ["rx90", "puma560", "stanford", "ur5", "lwr4", "gamma_b"])
def test_to_siciliano_round_trip_keeps_torques_and_world_poses(name):
    rng = np.random.default_rng(2)
    if name == "gamma_b":
        robot = _gamma_b_robot(rng)
    else:
        robot = with_random_dynamics(robmod.load_robot(name, numeric=True), rng, friction=True)
    arm = to_siciliano(robot)
    back, rotors = arm.to_robot("khalil")
    assert rotors == ()
    n = robot.n_joints
    q, qd, qdd = rng.uniform(-2, 2, (3, 6, n))
    assert np.abs(idm(back, q, qd, qdd) - idm(robot, q, qd, qdd)).max() < 1e-9
    assert np.abs(kinetic_energy(back, q, qd) - kinetic_energy(robot, q, qd)).max() < 1e-10
    np.testing.assert_allclose(dgm(back, q, tool="tip", i="world"),
                               dgm(robot, q, i="world"), rtol=0, atol=1e-12)
    # and the book's own Lagrangian of the Siciliano description gives the same torques
    g0 = np.array([float(x) for x in arm.gravity])
    for k in range(2):
        ref = book_torques(arm.links, list(arm.motors), q[k], qd[k], qdd[k], "khalil", g0)
        assert np.abs(ref - idm(robot, q[k], qd[k], qdd[k])).max() < 2e-7 * max(
            1, np.abs(ref).max())


def test_from_to_siciliano_parameters_round_trip_and_tool():
    rng = np.random.default_rng(4)
    links, _ = random_arm(rng, 3)
    robot, _ = from_siciliano("arm", links)
    arm = to_siciliano(robot, tool="tip")
    keys = ("a", "alpha", "d", "theta", "m", "Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz")
    for L0, L1 in zip(links, arm.links):
        assert L0.joint == L1.joint
        for k in keys:
            assert abs(float(getattr(L0, k)) - float(getattr(L1, k))) < 1e-12, k
        assert np.abs(np.array(L0.r_c, dtype=float) - np.array(L1.r_c, dtype=float)).max() \
            < 1e-12


def test_symbolic_planar_conversion_is_clean():
    s = robmod.symbol
    L = [SicilianoLink(a=s(f"a{i}"), m=s(f"m{i}"), r_c=(s(f"l{i}") - s(f"a{i}"), 0, 0),
                       Izz=s(f"I{i}")) for i in (1, 2)]
    motors = [None, SicilianoMotor(k_r=s("k2"), I_m=s("Im2"), m_m=s("mm2"))]
    robot, rotors = from_siciliano("p", L, motors, rotor_model="siciliano")
    l1 = robot.link(1)
    assert sp.expand(l1.M - s("m1") - s("mm2")) == 0
    assert sp.expand(l1.MX - s("m1") * s("l1") - s("mm2") * s("a1")) == 0
    assert sp.expand(l1.ZZ - s("I1") - s("m1") * s("l1") ** 2 - s("mm2") * s("a1") ** 2) == 0
    assert robot.link(2).IA == 0 and rotors == (Rotor(2, s("Im2"), s("k2"), (0, 0, 1)),)
    assert (robot.frame(2).d, robot.frame(2).alpha) == (s("a1"), 0)


def test_errors():
    L = SicilianoLink(a=1, m=1, Izz=0.1, Iyy=0.1)
    with pytest.raises(robmod.RobmodError, match="rotor_model"):
        from_siciliano("x", [L], rotor_model="other")
    with pytest.raises(robmod.RobmodError, match="joint type"):
        SicilianoLink(joint="Q")
    with pytest.raises(robmod.RobmodError, match="motors given"):
        from_siciliano("x", [L], [None, None])
    with pytest.raises(robmod.RobmodError, match="unit vector"):
        from_siciliano("x", [L], [SicilianoMotor(z=(0, 0, 2))])
    with pytest.raises(robmod.RobmodError, match="serial"):
        to_siciliano(robmod.load_robot("torso2arms"))
    robot, _ = from_siciliano("x", [L, L])
    with pytest.raises(robmod.RobmodError, match="two rotors"):
        rotor_torques(robot, [Rotor(1, 1, 1), Rotor(1, 1, 1)], [0, 0], [0, 0], [0, 0])
    with pytest.raises(robmod.RobmodError, match="no moving joint"):
        rotor_torques(robot, [Rotor(3, 1, 1)], [0, 0], [0, 0], [0, 0])
