"""Library robots against their sources' own conventions.

Each test composes 0T_j = 0T_a(j) a(j)T_j with robmod.geometry.frame_transform and compares
it with a reference written here from the source's convention (standard DH, RTB/Craig/Franka
modified DH, or a printed closed form), at three fixed joint configurations, to 1e-12.
"""
import numpy as np
import pytest

import robmod
from robmod.geometry import frame_transform

TOL = 1e-12
PI = np.pi


def rotx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def rotz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def tx(d):
    T = np.eye(4)
    T[0, 3] = d
    return T


def tz(d):
    T = np.eye(4)
    T[2, 3] = d
    return T


def frames(robot, q):
    """{j: 0T_j} for every frame (fixed frames and cut joints get their entry of q or 0)."""
    T = {0: np.eye(4)}
    for f in robot.frames:
        qj = q[f.j - 1] if f.j <= len(q) else 0.0
        T[f.j] = T[f.ant] @ frame_transform(robot, f.j, qj)
    return T


def configs(n, seed, low=-PI, high=PI):
    return np.random.default_rng(seed).uniform(low, high, (3, n))


def std_dh_frames(table, q, sigma=None):
    """Standard DH (Paul/Craig-1st-ed./RTB 'standard'): T_i = Rz(theta) Tz(d) Tx(a) Rx(alpha)."""
    T, out = np.eye(4), [np.eye(4)]
    for i, (th, d, a, al) in enumerate(table):
        if sigma is not None and sigma[i] == 1:
            T = T @ rotz(th) @ tz(d + q[i]) @ tx(a) @ rotx(al)
        else:
            T = T @ rotz(th + q[i]) @ tz(d) @ tx(a) @ rotx(al)
        out.append(T)
    return out


def check_std_dh(name, table, sigma=None, low=-PI, high=PI):
    """Every frame: DH frame j = MDH frame j Tx(a_j) Rx(alpha_j)."""
    robot = robmod.load_robot(name, numeric=True)
    for q in configs(len(table), 1, low, high):
        T = frames(robot, q)
        ref = std_dh_frames(table, q, sigma)
        for j, (th, d, a, al) in enumerate(table, start=1):
            np.testing.assert_allclose(T[j] @ tx(a) @ rotx(al), ref[j], rtol=0, atol=TOL)
        np.testing.assert_allclose(T[len(table)], ref[-1], rtol=0, atol=TOL)


def test_stanford_vs_rtb_standard_dh():
    # RTB mdl_stanford.m: (theta, d, a, alpha), joint 3 prismatic
    table = [(0, 0.412, 0, -PI / 2), (0, 0.154, 0, PI / 2), (-PI / 2, 0, 0, 0),
             (0, 0, 0, -PI / 2), (0, 0, 0, PI / 2), (0, 0.263, 0, 0)]
    check_std_dh("stanford", table, sigma=[0, 0, 1, 0, 0, 0])


def test_ur5_vs_ur_standard_dh():
    d = [0.089159, 0, 0, 0.10915, 0.09465, 0.0823]
    a = [0, -0.425, -0.39225, 0, 0, 0]
    alpha = [PI / 2, 0, 0, PI / 2, -PI / 2, 0]
    check_std_dh("ur5", [(0, d[i], a[i], alpha[i]) for i in range(6)])


def test_lwr4_vs_de_luca_standard_dh():
    alpha = [PI / 2, -PI / 2, -PI / 2, PI / 2, PI / 2, -PI / 2, 0]
    d = [0, 0, 0.4, 0, 0.39, 0, 0]
    check_std_dh("lwr4", [(0, d[i], 0, alpha[i]) for i in range(7)])


def test_lwr4_base_and_flange():
    robot = robmod.load_robot("lwr4", numeric=True)
    Z = np.array(robot.Z.evalf(), dtype=float)
    E = np.array(robot.tools[0].T.evalf(), dtype=float)
    np.testing.assert_allclose(Z, tz(0.3105), atol=TOL)
    # at q = 0 the arm is straight up: flange at 0.3105 + 0.4 + 0.39 + 0.078
    T = Z @ frames(robot, np.zeros(7))[7] @ E
    np.testing.assert_allclose(T, tz(1.1785), atol=TOL)


def test_panda_vs_franka_modified_dh():
    # Franka docs dh-parameters.csv rows (a, d, alpha): T = Rx(alpha) Tx(a) Rz(q) Tz(d)
    rows = [(0, 0.333, 0), (0, 0, -PI / 2), (0, 0.316, PI / 2), (0.0825, 0, PI / 2),
            (-0.0825, 0.384, -PI / 2), (0, 0, PI / 2), (0.088, 0, PI / 2)]
    robot = robmod.load_robot("panda", numeric=True)
    flange = [t for t in robot.tools if t.name == "flange"][0]
    E = np.array(flange.T.evalf(), dtype=float)
    for q in configs(7, 2):
        T = frames(robot, q)
        ref = np.eye(4)
        for j, ((a, d, al), qj) in enumerate(zip(rows, q), start=1):
            ref = ref @ rotx(al) @ tx(a) @ rotz(qj) @ tz(d)
            np.testing.assert_allclose(T[j], ref, rtol=0, atol=TOL)
        np.testing.assert_allclose(T[7] @ E, ref @ tz(0.107), rtol=0, atol=TOL)
    T0 = frames(robot, np.zeros(7))[7] @ E
    np.testing.assert_allclose(T0[:3, 3], [0.088, 0, 0.926], atol=TOL)
    np.testing.assert_allclose(T0[:3, :3], np.diag([1.0, -1.0, -1.0]), atol=TOL)


def test_puma560_vs_rtb_akb_and_craig():
    robot = robmod.load_robot("puma560", numeric=True)
    # RTB mdl_puma560akb.m, 'modified' links (theta, d, a, alpha): Rx(alpha) Tx(a) Rz(theta) Tz(d)
    akb = [(0, 0, 0, 0), (0, 0.2435, 0, -PI / 2), (0, -0.0934, 0.4318, 0),
           (0, 0.4331, -0.0203, PI / 2), (0, 0, 0, -PI / 2), (0, 0, 0, PI / 2)]
    for q in configs(6, 3):
        T = frames(robot, q)
        ref = np.eye(4)
        for j, ((th, d, a, al), qj) in enumerate(zip(akb, q), start=1):
            ref = ref @ rotx(al) @ tx(a) @ rotz(th + qj) @ tz(d)
            np.testing.assert_allclose(T[j], ref, rtol=0, atol=TOL)
        # Craig's closed-form 0T6 (Introduction to Robotics, (3.14)) with q3 + pi, q6 + pi
        qc = q + np.array([0, 0, PI, 0, 0, PI])
        np.testing.assert_allclose(T[6], craig_puma(qc, 0.4318, 0.0203, 0.2435 - 0.0934, 0.4331),
                                   rtol=0, atol=TOL)


def craig_puma(q, a2, a3, d3, d4):
    c1, c2, c3, c4, c5, c6 = np.cos(q)
    s1, s2, s3, s4, s5, s6 = np.sin(q)
    c23, s23 = np.cos(q[1] + q[2]), np.sin(q[1] + q[2])
    T = np.eye(4)
    T[0, 0] = c1 * (c23 * (c4 * c5 * c6 - s4 * s6) - s23 * s5 * c6) + s1 * (s4 * c5 * c6 + c4 * s6)
    T[1, 0] = s1 * (c23 * (c4 * c5 * c6 - s4 * s6) - s23 * s5 * c6) - c1 * (s4 * c5 * c6 + c4 * s6)
    T[2, 0] = -s23 * (c4 * c5 * c6 - s4 * s6) - c23 * s5 * c6
    T[0, 1] = c1 * (c23 * (-c4 * c5 * s6 - s4 * c6) + s23 * s5 * s6) + s1 * (c4 * c6 - s4 * c5 * s6)
    T[1, 1] = s1 * (c23 * (-c4 * c5 * s6 - s4 * c6) + s23 * s5 * s6) - c1 * (c4 * c6 - s4 * c5 * s6)
    T[2, 1] = -s23 * (-c4 * c5 * s6 - s4 * c6) + c23 * s5 * s6
    T[0, 2] = -c1 * (c23 * c4 * s5 + s23 * c5) - s1 * s4 * s5
    T[1, 2] = -s1 * (c23 * c4 * s5 + s23 * c5) + c1 * s4 * s5
    T[2, 2] = s23 * c4 * s5 - c23 * c5
    T[0, 3] = c1 * (a2 * c2 + a3 * c23 - d4 * s23) - d3 * s1
    T[1, 3] = s1 * (a2 * c2 + a3 * c23 - d4 * s23) + d3 * c1
    T[2, 3] = -a3 * s23 - a2 * s2 - d4 * c23
    return T


def rx90_0T6(q, D3, RL4):
    """Khalil, Part I, Example 3.3 (seed 001): symbolic 0T6 of the RX-90 (s, n, a, P)."""
    C1, C2, C3, C4, C5, C6 = np.cos(q)
    S1, S2, S3, S4, S5, S6 = np.sin(q)
    C23, S23 = np.cos(q[1] + q[2]), np.sin(q[1] + q[2])
    s = [C1 * (C23 * (C4 * C5 * C6 - S4 * S6) - S23 * S5 * C6) - S1 * (S4 * C5 * C6 + C4 * S6),
         S1 * (C23 * (C4 * C5 * C6 - S4 * S6) - S23 * S5 * C6) + C1 * (S4 * C5 * C6 + C4 * S6),
         S23 * (C4 * C5 * C6 - S4 * S6) + C23 * S5 * C6]
    n = [C1 * (-C23 * (C4 * C5 * S6 + S4 * C6) + S23 * S5 * S6) + S1 * (S4 * C5 * S6 - C4 * C6),
         S1 * (-C23 * (C4 * C5 * S6 + S4 * C6) + S23 * S5 * S6) - C1 * (S4 * C5 * S6 - C4 * C6),
         -S23 * (C4 * C5 * S6 + S4 * C6) - C23 * S5 * S6]
    a = [-C1 * (C23 * C4 * S5 + S23 * C5) + S1 * S4 * S5,
         -S1 * (C23 * C4 * S5 + S23 * C5) - C1 * S4 * S5,
         -S23 * C4 * S5 + C23 * C5]
    P = [-C1 * (S23 * RL4 - C2 * D3), -S1 * (S23 * RL4 - C2 * D3), C23 * RL4 + S2 * D3]
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = s, n, a, P
    return T


@pytest.mark.parametrize("name, values", [("rx90", None), ("scemi", {"D3": 0.4, "RL4": 0.35})])
def test_rx90_and_scemi_vs_khalil_example_3_3(name, values):
    robot = robmod.load_robot(name).numeric(values)
    D3, RL4 = float(robot.frame(3).d), float(robot.frame(4).r)
    for q in configs(6, 4):
        np.testing.assert_allclose(frames(robot, q)[6], rx90_0T6(q, D3, RL4), rtol=0, atol=TOL)


def test_planar2_tip_vs_closed_form():
    robot = robmod.load_robot("planar2", numeric=True)
    E = np.array(robot.tools[0].T.evalf(), dtype=float)
    for q in configs(2, 5):
        T = frames(robot, q)[2] @ E
        ref = rotz(q[0] + q[1])
        ref[:2, 3] = [np.cos(q[0]) + np.cos(q[0] + q[1]), np.sin(q[0]) + np.sin(q[0] + q[1])]
        np.testing.assert_allclose(T, ref, rtol=0, atol=TOL)


def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def inertia_matrix(robot, q):
    """B(q) of a serial revolute robot from its Link parameters: sum_k J_k^T Phi_k J_k + diag(IA),
    J_k the Jacobian of (v_Ok, w_k) in frame k, Phi_k = [[M 1, -S(MS)], [S(MS), J_O]]."""
    n = robot.n_links
    T = frames(robot, q)
    B = np.zeros((n, n))
    for k in range(1, n + 1):
        J = np.zeros((6, n))
        for i in robot.chain(k):
            z = T[i][:3, 2]
            J[:3, i - 1] = np.cross(z, T[k][:3, 3] - T[i][:3, 3])
            J[3:, i - 1] = z
        R = T[k][:3, :3]
        J = np.vstack([R.T @ J[:3], R.T @ J[3:]])
        L = robot.link(k)
        MS = np.array([float(L.MX), float(L.MY), float(L.MZ)])
        Phi = np.block([[float(L.M) * np.eye(3), -skew(MS)],
                        [skew(MS), np.array(L.inertia_matrix().evalf(), dtype=float)]])
        B += J.T @ Phi @ J
    return B + np.diag([float(robot.link(k).IA) for k in range(1, n + 1)])


@pytest.mark.parametrize("q", [[0.3, 0.7], [-1.0, 2.5]])
def test_planar2_inertia_matrix(q):
    # Siciliano Example 7.2 with Khalil's rotor model (IA_j = k_r^2 I_m on joint j only)
    robot = robmod.load_robot("planar2", numeric=True)
    c2 = np.cos(q[1])
    ref = np.array([[200 + 50 * c2, 22.5 + 25 * c2], [22.5 + 25 * c2, 122.5]])
    np.testing.assert_allclose(inertia_matrix(robot, np.array(q)), ref, rtol=0, atol=1e-9)


def test_parallelogram_loop_closes():
    robot = robmod.load_robot("parallelogram", numeric=True)
    for t1, t4 in configs(2, 6):
        q2 = t4 - t1
        q = np.array([t1, q2, PI - q2, t4, t4 - t1 - PI])
        T = frames(robot, q)
        np.testing.assert_allclose(T[5], T[6], rtol=0, atol=TOL)


def test_sr400_loop_closes():
    robot = robmod.load_robot("sr400").numeric({"D2": 0.2, "D3": 0.6, "D4": 0.1, "D8": 0.25,
                                                 "RL4": 0.7})
    for qq in configs(9, 7):
        q = qq.copy()
        q[2] = q[6] - q[1] + PI / 2          # q3
        q[7] = q[1] - q[6]                   # q8
        q[8] = q[6] - q[1] + PI              # q9
        T = frames(robot, q)
        np.testing.assert_allclose(T[9], T[10], rtol=0, atol=TOL)
