"""Seed 003 §7.1-7.3 examples entered as the book gives them (standard DH, Siciliano's rotors).

Pendulum (Example 7.1), two-link Cartesian arm (§7.3.1) and two-link planar arm (§7.3.2,
Example 7.2): the equations of motion as printed, symbolically, and B, C, g with the
Example 7.2 numbers in both rotor models; agreement with the library robots planar2 and
cartesian2 (Khalil's rotor model).
"""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.description.robot import joint_acceleration, joint_variable, joint_velocity
from robmod.dynamics.siciliano import SicilianoLink, SicilianoMotor, from_siciliano
from robmod.dynamics import coriolis_matrix, gravity_torques, idm, inertia_matrix
from robmod.dynamics.rotors import (Rotor, coriolis_matrix_with_rotors, idm_with_rotors,
                                    idm_with_rotors_model, inertia_matrix_with_rotors)

s = robmod.symbol
q1, q2 = joint_variable(1), joint_variable(2)
qd1, qd2 = joint_velocity(1), joint_velocity(2)
qdd1, qdd2 = joint_acceleration(1), joint_acceleration(2)
MODELS = ("khalil", "siciliano")


def expanded(model):
    """The outputs of a customized model as plain expressions of its inputs."""
    vals = {}
    for lhs, rhs in model.statements:
        vals[lhs] = rhs.xreplace(vals)
    return [e.xreplace(vals) for o in model.outputs for e in o.exprs]


def is_zero(expr):
    return sp.simplify(sp.expand(sp.expand_trig(expr))) == 0


# -- Example 7.1: pendulum ----------------------------------------------------------------------

def pendulum(rotor_model):
    """Frame 0 with x0 pointing down (theta = 0 hanging down), so g0 = [g, 0, 0]; the body's
    centre of mass at distance l from the axis, I its inertia about the axis."""
    I, m, l = s("I"), s("m"), s("l")
    link = SicilianoLink(a=l, m=m, Iyy=I - m * l**2, Izz=I - m * l**2, F_v=s("F"))
    motor = SicilianoMotor(k_r=s("k_r"), I_m=s("I_m"), F_m=s("F_m"))
    return from_siciliano("pendulum", [link], [motor], gravity=(s("g"), 0, 0),
                          rotor_model=rotor_model)


@pytest.mark.parametrize("rotor_model", MODELS)
def test_example_7_1_pendulum_equation_of_motion(rotor_model):
    robot, rotors = pendulum(rotor_model)
    (tau,) = expanded(idm_with_rotors_model(robot, rotors))
    I, m, l, g, kr, Im, F, Fm = (s(x) for x in ("I", "m", "l", "g", "k_r", "I_m", "F", "F_m"))
    printed = (I + Im * kr**2) * qdd1 + (F + Fm * kr**2) * qd1 + m * g * l * sp.sin(q1)
    assert is_zero(tau - printed)


# -- §7.3.1: two-link Cartesian arm -------------------------------------------------------------

def cartesian(rotor_model, numeric=False):
    """z0 vertical, z1 = [1, 0, 0] (theta_1 = alpha_1 = pi/2), motors on the joint axes with
    their centres at the origins of frames 0 and 1 (p_mi = p_(i-1), z_mi = z_(i-1))."""
    sym = {k: s(k) for k in ("m_l1", "m_l2", "m_m1", "m_m2", "k_r1", "k_r2", "I_m1", "I_m2",
                             "g")}
    links = [SicilianoLink(joint="P", theta=sp.pi / 2, alpha=sp.pi / 2, m=sym["m_l1"]),
             SicilianoLink(joint="P", m=sym["m_l2"])]
    motors = [SicilianoMotor(k_r=sym[f"k_r{i}"], I_m=sym[f"I_m{i}"], m_m=sym[f"m_m{i}"])
              for i in (1, 2)]
    values = dict(m_l1=20, m_l2=12, m_m1=4, m_m2=3, k_r1=300, k_r2=200, I_m1=1e-4, I_m2=2e-4,
                  g=9.81)
    robot, rotors = from_siciliano("cartesian", links, motors, gravity=(0, 0, -sym["g"]),
                                   rotor_model=rotor_model, values=values)
    return (robot.numeric() if numeric else robot), rotors, sym, values


@pytest.mark.parametrize("rotor_model", MODELS)
def test_cartesian_arm_equations_of_motion_as_printed(rotor_model):
    robot, rotors, p, _ = cartesian(rotor_model)
    tau1, tau2 = expanded(idm_with_rotors_model(robot, rotors))
    printed1 = (p["m_l1"] + p["m_m2"] + p["k_r1"] ** 2 * p["I_m1"] + p["m_l2"]) * qdd1 \
        + (p["m_l1"] + p["m_m2"] + p["m_l2"]) * p["g"]
    printed2 = (p["m_l2"] + p["k_r2"] ** 2 * p["I_m2"]) * qdd2
    assert is_zero(tau1 - printed1) and is_zero(tau2 - printed2)


@pytest.mark.parametrize("rotor_model", MODELS)
def test_cartesian_arm_b_constant_diagonal_c_zero(rotor_model):
    robot, rotors, _, v = cartesian(rotor_model, numeric=True)
    rng = np.random.default_rng(0)
    q, qd = rng.uniform(-1, 1, (2, 5, 2))
    B = inertia_matrix_with_rotors(robot, rotors, q)
    b11 = v["m_l1"] + v["m_m2"] + v["k_r1"] ** 2 * v["I_m1"] + v["m_l2"]
    b22 = v["m_l2"] + v["k_r2"] ** 2 * v["I_m2"]
    assert np.abs(B - np.diag([b11, b22])).max() < 1e-12
    assert np.abs(coriolis_matrix_with_rotors(robot, rotors, q, qd)).max() < 1e-12
    g = gravity_torques(robot, q)
    assert np.abs(g - [(v["m_l1"] + v["m_m2"] + v["m_l2"]) * v["g"], 0]).max() < 1e-12


def test_cartesian_arm_equals_library_cartesian2():
    robot, _, _, v = cartesian("khalil", numeric=True)
    lib = robmod.load_robot("cartesian2").numeric(dict(
        M1=v["m_l1"] + v["m_m2"], M2=v["m_l2"], IA1=v["k_r1"] ** 2 * v["I_m1"],
        IA2=v["k_r2"] ** 2 * v["I_m2"], FV1=0, FV2=0, g0=v["g"]))
    rng = np.random.default_rng(1)
    q, qd, qdd = rng.uniform(-1, 1, (3, 6, 2))
    assert np.abs(idm(robot, q, qd, qdd) - idm(lib, q, qd, qdd)).max() < 1e-10


# -- §7.3.2 and Example 7.2: two-link planar arm --------------------------------------------------

EX72 = dict(a1=1, a2=1, l1=0.5, l2=0.5, m_l1=50, m_l2=50, I_l1=10, I_l2=10, k_r1=100, k_r2=100,
            m_m1=5, m_m2=5, I_m1=0.01, I_m2=0.01, g=9.81)


def planar(rotor_model, numeric=False):
    """Frames of Fig. 7.4: x0 horizontal, y0 up (g0 = [0, -g, 0]); the centre of mass of link i
    at l_i from joint i, i.e. at x = l_i - a_i in the distal frame i; motors on the joint axes."""
    links = [SicilianoLink(a=s(f"a{i}"), m=s(f"m_l{i}"), r_c=(s(f"l{i}") - s(f"a{i}"), 0, 0),
                           Iyy=s(f"I_l{i}"), Izz=s(f"I_l{i}")) for i in (1, 2)]
    motors = [SicilianoMotor(k_r=s(f"k_r{i}"), I_m=s(f"I_m{i}"), m_m=s(f"m_m{i}")) for i in (1, 2)]
    robot, rotors = from_siciliano("planar", links, motors, gravity=(0, -s("g"), 0),
                                   rotor_model=rotor_model, values=EX72)
    return (robot.numeric() if numeric else robot), rotors


@pytest.mark.parametrize("rotor_model", MODELS)
def test_planar_arm_equations_of_motion_7_82(rotor_model):
    robot, rotors = planar(rotor_model)
    tau1, tau2 = expanded(idm_with_rotors_model(robot, rotors))
    a1, l1, l2, ml1, ml2, mm2, Il1, Il2, kr1, kr2, Im1, Im2, g = (s(x) for x in (
        "a1", "l1", "l2", "m_l1", "m_l2", "m_m2", "I_l1", "I_l2", "k_r1", "k_r2", "I_m1", "I_m2",
        "g"))
    c1, c2, s2, c12 = sp.cos(q1), sp.cos(q2), sp.sin(q2), sp.cos(q1 + q2)
    full = rotor_model == "siciliano"  # Khalil's model drops I_m2 in b11 and k_r2 I_m2 in b12
    b11 = Il1 + ml1 * l1**2 + kr1**2 * Im1 + Il2 + ml2 * (a1**2 + l2**2 + 2 * a1 * l2 * c2) \
        + (Im2 if full else 0) + mm2 * a1**2
    b12 = Il2 + ml2 * (l2**2 + a1 * l2 * c2) + (kr2 * Im2 if full else 0)
    b22 = Il2 + ml2 * l2**2 + kr2**2 * Im2
    printed1 = b11 * qdd1 + b12 * qdd2 - 2 * ml2 * a1 * l2 * s2 * qd1 * qd2 \
        - ml2 * a1 * l2 * s2 * qd2**2 + (ml1 * l1 + mm2 * a1 + ml2 * a1) * g * c1 \
        + ml2 * l2 * g * c12
    printed2 = b12 * qdd1 + b22 * qdd2 + ml2 * a1 * l2 * s2 * qd1**2 + ml2 * l2 * g * c12
    assert is_zero(tau1 - printed1)
    assert is_zero(tau2 - printed2)


QS = [(0.0, 0.0), (0.3, 0.7), (-1.2, 2.5), (2.0, -3.0), (0.5, np.pi)]


@pytest.mark.parametrize("rotor_model", MODELS)
def test_example_7_2_numbers(rotor_model):
    robot, rotors = planar(rotor_model, numeric=True)
    g = EX72["g"]
    extra = 0.01 if rotor_model == "siciliano" else 0.0  # I_m2 in b11
    for (t1, t2), (w1, w2) in zip(QS, [(0.4, -1.1), (1.0, 2.0), (-0.3, 0.8), (2.0, 0.0),
                                       (0.0, 1.5)]):
        q, qd = np.array([t1, t2]), np.array([w1, w2])
        c1, c2, s2, c12 = np.cos(t1), np.cos(t2), np.sin(t2), np.cos(t1 + t2)
        b12 = (23.5 if rotor_model == "siciliano" else 22.5) + 25 * c2
        Bref = np.array([[200 + extra + 50 * c2, b12], [b12, 122.5]])
        B = inertia_matrix_with_rotors(robot, rotors, q)
        assert np.abs(B - Bref).max() < 1e-12
        h = -25 * s2
        Cref = np.array([[h * w2, h * (w1 + w2)], [-h * w1, 0]])
        C = coriolis_matrix_with_rotors(robot, rotors, q, qd)
        assert np.abs(C - Cref).max() < 1e-12
        gref = [80 * g * c1 + 25 * g * c12, 25 * g * c12]
        assert np.abs(gravity_torques(robot, q) - gref).max() < 1e-12
        # N = Bdot - 2C as printed (skew-symmetric), Bdot = [[2h w2, h w2], [h w2, 0]]
        eps = 1e-6
        Bd = (inertia_matrix_with_rotors(robot, rotors, q + eps * qd)
              - inertia_matrix_with_rotors(robot, rotors, q - eps * qd)) / (2 * eps)
        assert np.abs(Bd - [[2 * h * w2, h * w2], [h * w2, 0]]).max() < 1e-7
        Nref = np.array([[0, -2 * h * w1 - h * w2], [2 * h * w1 + h * w2, 0]])
        assert np.abs(Bd - 2 * C - Nref).max() < 1e-7


def test_example_7_2_agrees_with_library_planar2():
    lib = robmod.load_robot("planar2", numeric=True)
    khalil, none = planar("khalil", numeric=True)
    sic, rotors = planar("siciliano", numeric=True)
    rng = np.random.default_rng(2)
    q, qd, qdd = rng.uniform(-3, 3, (3, 8, 2))
    # Khalil's rotor model: the same robot as the library's
    assert none == ()
    assert np.abs(idm(khalil, q, qd, qdd) - idm(lib, q, qd, qdd)).max() < 1e-10
    assert np.abs(inertia_matrix(khalil, q) - inertia_matrix(lib, q)).max() < 1e-12
    assert np.abs(coriolis_matrix(khalil, q, qd) - coriolis_matrix(lib, q, qd)).max() < 1e-12
    # the library robot with IA -> 0 plus Siciliano's rotors = the complete model
    lib0 = replace(lib, links=tuple(replace(l, IA=sp.Integer(0)) for l in lib.links))
    lib_rotors = [Rotor(1, 0.01, 100), Rotor(2, 0.01, 100)]
    assert np.abs(idm_with_rotors(lib0, lib_rotors, q, qd, qdd)
                  - idm_with_rotors(sic, rotors, q, qd, qdd)).max() < 1e-10
    # the two models differ by the gyroscopic coupling k_r2 I_m2 and the axial I_m2 only
    d = idm_with_rotors(sic, rotors, q, qd, qdd) - idm(khalil, q, qd, qdd)
    ref = np.stack([0.01 * qdd[:, 0] + 1.0 * qdd[:, 1], 1.0 * qdd[:, 0]], axis=-1)
    assert np.abs(d - ref).max() < 1e-10
