"""Seed 003 §7.2.1 / Example 7.2 in Siciliano's own parametrization: of the 22 parameters
(7.77) of the two-link planar arm with geared motors, 8 appear in the model (7.84) and the
minimum is 5.

robmod builds the arm from Siciliano's description (``from_siciliano``, rotor model
"siciliano"); the torques are linear in pi = (pi_1, pi_2), pi_i = [m, m lCx, m lCy, m lCz,
Ixx, Ixy, Ixz, Iyy, Iyz, Izz (augmented link, about the origin of the distal frame i), I_mi],
so each column of the regressor Y is the torque difference of a unit change of one
parameter.  A parameter "appears" when its column is not null and its value is not zero; the
minimum number is the rank of those columns.  In Khalil's convention the same arm has 7
parameters that appear (m1 acts only through the distal frame of Siciliano's convention) and
the same minimum 5 (tests/test_ident_base_symbolic.py).
"""
import numpy as np
import sympy as sp

from robmod import SicilianoLink, SicilianoMotor, from_siciliano
from robmod.dynamics import idm_with_rotors

NAMES = ["m", "mlx", "mly", "mlz", "Ixx", "Ixy", "Ixz", "Iyy", "Iyz", "Izz", "Im"]
KR = 100.0
A = (1.0, 1.0)


def torques(pi, q, qd, qdd):
    """tau of the planar arm whose parameters (about the distal frames) are pi (2 x 11)."""
    links, motors = [], []
    for i in range(2):
        m, ml, (ixx, ixy, ixz, iyy, iyz, izz), im = pi[i][0], pi[i][1:4], pi[i][4:10], pi[i][10]
        r = np.asarray(ml) / m
        I_O = np.array([[ixx, -ixy, -ixz], [-ixy, iyy, -iyz], [-ixz, -iyz, izz]])
        I_C = I_O - m * (r @ r * np.eye(3) - np.outer(r, r))
        if i == 0:  # rotor 2 rides on link 1: its axial inertia is part of the augmented link
            I_C = I_C - pi[1][10] * np.diag([0.0, 0.0, 1.0])
        links.append(SicilianoLink.with_tensor(sp.Matrix(I_C), a=A[i], m=m,
                                               r_c=tuple(float(x) for x in r)))
        motors.append(SicilianoMotor(k_r=KR, I_m=im))
    robot, rotors = from_siciliano("planar", links, motors, gravity=(0, -9.81, 0),
                                   rotor_model="siciliano")
    return idm_with_rotors(robot, rotors, q, qd, qdd)


def book_values():
    """Example 7.2's arm: COM on the x axis of the distal frame (l_i - a_i = -0.5)."""
    pi = []
    for m, lc, I, im in ((50.0 + 5.0, -0.5 * 50 / 55, 10.0, 0.01), (50.0, -0.5, 10.0, 0.01)):
        # augmented link 1 carries motor 2 (5 kg at the joint 2 axis, i.e. its distal origin)
        if m == 55.0:
            ml = 50.0 * -0.5 + 5.0 * 0.0
            izz = 10.0 + 50.0 * 0.25 + 0.01          # I_l1 + m_l1 (l1 - a1)^2 + I_m2  (7.83)
        else:
            ml = -25.0
            izz = 10.0 + 50.0 * 0.25
        pi.append([m, ml, 0.0, 0.0, 0.05, 0.0, 0.0, izz, 0.0, izz, im])  # Ixx: a thin rod
    return np.array(pi)


def test_planar_arm_8_of_22_parameters_appear_minimum_5():
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.uniform(-2, 2, (3, 40, 2))
    pi0 = book_values()
    tau0 = torques(pi0, q, qd, qdd)
    cols, names = [], []
    for i in range(2):
        for k in range(11):
            p = pi0.copy()
            p[i, k] += 1e-3 if k < 4 else 1e-2
            cols.append(((torques(p, q, qd, qdd) - tau0) / (p[i, k] - pi0[i, k])).reshape(-1))
            names.append(f"{NAMES[k]}{i + 1}")
    Y = np.array(cols).T                                   # (80, 22)
    assert Y.shape[1] == 22
    scale = np.abs(Y).max(axis=0)
    live = scale > 1e-6 * scale.max()
    nonzero = np.abs(pi0.reshape(-1)) > 1e-6
    appear = [n for n, l, v in zip(names, live, nonzero) if l and v]
    assert set(appear) == {"m1", "mlx1", "Izz1", "Im1", "m2", "mlx2", "Izz2", "Im2"}, appear
    # their columns are those of (7.84): pi_1..pi_8, and the minimum is 5
    Ya = Y[:, [names.index(n) for n in ("m1", "mlx1", "Izz1", "Im1", "m2", "mlx2", "Izz2",
                                          "Im2")]]
    Ya = Ya / np.linalg.norm(Ya, axis=0)
    assert np.linalg.matrix_rank(Ya, tol=1e-8) == 5
    # general links (COM off the x axis): m l_Cy columns are live as well (10 appear)
    assert live[names.index("mly1")] and live[names.index("mly2")]
    # Y pi reproduces the torques (the model is linear in pi)
    assert np.allclose(Y @ pi0.reshape(-1), tau0.reshape(-1), atol=1e-6)
