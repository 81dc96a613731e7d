"""Dynamic model of the actuated joints of closed-loop robots (robmod.dynamics.closed_loop).

Golden values: seed 003 §7.3.3, parallelogram arm, B_a and g_a (b_a22 with its index
misprints corrected, see robots/parallelogram.yaml).  Independent checks: finite
differences of the loop solution (W and the acceleration bias), the kinetic energy
of the tree (B_a = d2T/dqd_a2), the potential energy (g_a = dU/dq_a), Lagrange's
equations in the actuated coordinates, energy conservation of a simulation.
"""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

import robmod
from robmod.dynamics.closed_loop import (acceleration_bias, close_loops, closed_loop_ddm,
                                         closed_loop_energy, closed_loop_gravity_torques,
                                         closed_loop_idm, closed_loop_inertia_matrix,
                                         closed_loop_state,
                                         closed_loop_symbolic, constraint_bias,
                                         equivalent_tree, loop_constraints, loop_jacobian,
                                         passive_velocity_map)
from robmod.dynamics.newton_euler import idm
from robmod.control import simulate
from robmod.errors import RobmodError
from robmod.testing.random import with_random_dynamics

# -- the book's parallelogram (seed 003 §7.3.3) -----------------------------------------------
# book symbol -> robmod parameter: I_l1' = I_l1p, m_l1' = m_l1p, l_1' = l1p, a_1' = a1p,
# a_1'' = a1pp (= a_2'), ... ; theta_1' = q1, theta_1'' = q4; g0 = [0, -g, 0].
S = sp.symbols("I_l1p I_l2p I_l3p I_l1pp m_l1p m_l2p m_l3p m_l1pp l1p l2p l3p l1pp a1p a1pp g")
(I1, I2, I3, I1pp, m1, m2, m3, m1pp, l1, l2, l3, l1pp, a1, a1pp, g) = S
th1, th1pp = sp.symbols("q1 q4")
l3bar = l3 - a1  # distance of the COM of link 3' from the axis of joint 4
BOOK_BA11 = I1 + m1 * l1**2 + m2 * a1**2 + I3 + m3 * l3**2 + m3 * a1**2 - 2 * a1 * m3 * l3
BOOK_BA12 = (a1 * m2 * l2 + a1pp * m3 * (a1 - l3)) * sp.cos(th1pp - th1)
BOOK_BA22 = I1pp + m1pp * l1pp**2 + I2 + m2 * l2**2 + m3 * a1pp**2      # corrected
BOOK_BA22_PRINTED = I1 + m1 * l1**2 + I2 + m2 * l2**2 + m2 * a1pp**2    # as printed
BOOK_GA = [(m1 * l1 + m2 * a1 - m3 * l3bar) * g * sp.cos(th1),
           (m1pp * l1pp + m2 * l2 + m3 * a1pp) * g * sp.cos(th1pp)]
BOOK_BA = sp.Matrix([[BOOK_BA11, BOOK_BA12], [BOOK_BA12, BOOK_BA22]])
BOOK = sp.lambdify(S + (th1, th1pp), (BOOK_BA, sp.Matrix(BOOK_GA)), "numpy")
G0 = 9.81  # the library robot's gravity is [0, -9.81, 0]


def parallelogram_guess(qa):
    """The closed parallelogram (seed 003 geometry): q2 = q4 - q1, q3 = pi - q2."""
    q1, q4 = qa[..., 0], qa[..., 1]
    q2 = q4 - q1
    return np.stack([q1, q2, np.pi - q2, q4, q2 - np.pi], axis=-1)


def random_book_values(rng):
    vals = {str(s): float(rng.uniform(0.1, 2.0)) for s in S[:12]}
    vals.update(a1p=float(rng.uniform(0.3, 1.0)), a1pp=float(rng.uniform(0.3, 1.0)))
    return vals


def test_parallelogram_symbolic_equals_book():
    robot = robmod.load_robot("parallelogram")
    robot = replace(robot.substitute({"a2p": a1pp, "a3p": a1}), gravity=(0, -g, 0))
    Ba, ga = closed_loop_symbolic(
        robot, {"q2": th1pp - th1, "q3": sp.pi - th1pp + th1, "q5": th1pp - th1 - sp.pi})
    assert sp.simplify(Ba - BOOK_BA) == sp.zeros(2, 2)
    assert sp.simplify(ga - sp.Matrix(BOOK_GA)) == sp.zeros(2, 1)
    # the printed b_a22 is wrong (index misprints), the yaml header's correction is right
    assert sp.simplify(Ba[1, 1] - BOOK_BA22_PRINTED) != 0
    # the book's decoupling condition m3 lbar3 / (m2 l2) = a1' / a1'' makes b_a12 vanish
    assert sp.simplify(Ba[0, 1].subs(m3, m2 * l2 * a1 / (a1pp * l3bar))) == 0


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_parallelogram_numeric_equals_book(seed):
    rng = np.random.default_rng(seed)
    vals = random_book_values(rng)
    robot = robmod.load_robot("parallelogram").numeric(vals)
    # away from the folded configurations q4 - q1 = 0, pi where the parallelogram and
    # antiparallelogram assembly modes meet
    q1 = rng.uniform(-np.pi, np.pi, size=6)
    delta = rng.uniform(0.3, np.pi - 0.3, size=6) * rng.choice([-1, 1], size=6)
    qa = np.stack([q1, q1 + delta], axis=-1)
    guess = parallelogram_guess(qa) + rng.uniform(-0.05, 0.05, size=(6, 5))
    Ba = closed_loop_inertia_matrix(robot, qa, q_guess=guess)
    ga = closed_loop_gravity_torques(robot, qa, q_guess=guess)
    args = [vals[str(s)] for s in S[:14]] + [G0]
    for k in range(len(qa)):
        Bb, gb = BOOK(*args, qa[k, 0], qa[k, 1])
        assert np.abs(Ba[k] - Bb).max() < 1e-10
        assert np.abs(ga[k] - np.asarray(gb, float)[:, 0]).max() < 1e-10


def test_parallelogram_loop_structure():
    robot = robmod.load_robot("parallelogram", numeric=True)
    robot = robot.numeric(random_book_values(np.random.default_rng(1)))
    qa = np.array([0.3, 1.2])
    q = close_loops(robot, qa, q_guess=parallelogram_guess(qa) + 0.05)
    assert np.allclose(q, parallelogram_guess(qa), atol=1e-12)
    assert loop_constraints(robot, q).shape == (6, 5)
    assert loop_jacobian(robot, q).shape == (3, 5)      # planar loop: 3 independent rows
    W = passive_velocity_map(robot, q)                  # constant for a parallelogram
    assert np.allclose(W, [[1, 0], [-1, 1], [1, -1], [0, 1], [-1, 1]], atol=1e-12)
    assert equivalent_tree(robot).n_loops == 0 and equivalent_tree(robot).n_joints == 4


# -- a general planar five-bar: the parallelogram robot with unequal lengths -----------------
FIVEBAR_LENGTHS = dict(a1p=0.5, a2p=0.7, a3p=0.6, a1pp=0.4)


def fivebar(seed=3):
    robot = robmod.load_robot("parallelogram").numeric(
        dict(random_book_values(np.random.default_rng(seed)), **FIVEBAR_LENGTHS))
    return with_random_dynamics(robot, np.random.default_rng(seed), gravity=(0, -9.81, 0),
                                friction=True)


def fivebar_closed_form(qa):
    """Closed-form loop solution of the five-bar (circle intersection, one assembly mode)."""
    L = FIVEBAR_LENGTHS
    q1, q4 = qa
    A = L["a1p"] * np.array([np.cos(q1), np.sin(q1)])
    C = L["a1pp"] * np.array([np.cos(q4), np.sin(q4)])
    d = np.linalg.norm(C - A)
    x = (L["a2p"] ** 2 - L["a3p"] ** 2 + d**2) / (2 * d)
    y = np.sqrt(L["a2p"] ** 2 - x**2)
    u = (C - A) / d
    B = A + x * u + y * np.array([-u[1], u[0]])
    ab = np.arctan2(*(B - A)[::-1])
    bc = np.arctan2(*(C - B)[::-1])
    q2, q3 = ab - q1, bc - ab
    return np.array([q1, q2, q3, q4, q4 - (q1 + q2 + q3)])


def wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


QA5 = np.array([0.2, 1.9])
QDA5 = np.array([0.8, -0.6])


def fd_W(robot, qa, guess, h=1e-5):
    cols = []
    for k in range(len(qa)):
        e = np.zeros(len(qa))
        e[k] = h
        cols.append((close_loops(robot, qa + e, q_guess=guess)
                     - close_loops(robot, qa - e, q_guess=guess))
                    / (2 * h))
    return np.stack(cols, axis=-1)


def test_fivebar_velocity_map_and_bias_by_finite_differences():
    robot = fivebar()
    exact = fivebar_closed_form(QA5)
    q = close_loops(robot, QA5, q_guess=exact + 0.03)
    assert np.abs(wrap(q - exact)).max() < 1e-12
    W = passive_velocity_map(robot, q)
    err_W = np.abs(W - fd_W(robot, QA5, exact)).max()
    assert err_W < 1e-8
    # bias: w = Wdot qd_a, Wdot by central differences along qa(t) = qa + t qd_a
    h = 1e-5
    qp = close_loops(robot, QA5 + h * QDA5, q_guess=exact)
    qm = close_loops(robot, QA5 - h * QDA5, q_guess=exact)
    Wdot = (passive_velocity_map(robot, qp) - passive_velocity_map(robot, qm)) / (2 * h)
    qd = W @ QDA5
    w = acceleration_bias(robot, q, qd)
    assert np.abs(w).max() > 0.1                        # not a trivial loop
    assert np.abs(w - Wdot @ QDA5).max() < 1e-7
    # the 6 acceleration constraints hold (independent rows or not)
    qdda = np.array([0.4, -1.1])
    qdd = W @ qdda + w
    G = loop_constraints(robot, q)
    assert np.abs(G @ qd).max() < 1e-13
    assert np.abs(G @ qdd + constraint_bias(robot, q, qd)).max() < 1e-12


def test_fivebar_inertia_gravity_from_energies():
    robot = fivebar()
    exact = fivebar_closed_form(QA5)
    q = close_loops(robot, QA5, q_guess=exact)
    Wfd = fd_W(robot, QA5, exact)
    tree = equivalent_tree(robot)

    def T(v):
        return robmod.dynamics.kinetic_energy(tree, q[:4], (Wfd @ v)[:4])

    I = np.eye(2)
    B_fd = np.array([[T(I[i] + I[j]) - T(I[i]) - T(I[j]) if i != j else 2 * T(I[i])
                      for j in range(2)] for i in range(2)])
    Ba = closed_loop_inertia_matrix(robot, QA5, q_guess=exact)
    assert np.abs(Ba - B_fd).max() < 1e-8
    # g_a = dU(q(qa))/dqa
    h = 1e-6
    U = [[closed_loop_energy(robot, close_loops(robot, QA5 + s * h * I[k], q_guess=exact),
                             np.zeros(5))[1] for s in (1, -1)] for k in range(2)]
    g_fd = np.array([(up - um) / (2 * h) for up, um in U])
    assert np.abs(closed_loop_gravity_torques(robot, QA5, q_guess=exact) - g_fd).max() < 1e-7


def test_fivebar_idm_satisfies_lagrange_equations():
    """Gamma_a = B_a qdd_a + (dB_a/dt) qd_a - 1/2 d(qd_a^T B_a qd_a)/dq_a + g_a (+ friction)."""
    robot = fivebar()
    exact = fivebar_closed_form(QA5)
    qdda = np.array([-0.7, 1.3])
    gam = closed_loop_idm(robot, QA5, QDA5, qdda, q_guess=exact, friction=False)
    h = 1e-5
    dB = []
    for k in range(2):
        e = np.zeros(2)
        e[k] = h
        dB.append((closed_loop_inertia_matrix(robot, QA5 + e, q_guess=exact)
                   - closed_loop_inertia_matrix(robot, QA5 - e, q_guess=exact)) / (2 * h))
    Ba = closed_loop_inertia_matrix(robot, QA5, q_guess=exact)
    Bdot = sum(dB[k] * QDA5[k] for k in range(2))
    lag = (Ba @ qdda + Bdot @ QDA5 - 0.5 * np.array([QDA5 @ dB[k] @ QDA5 for k in range(2)])
           + closed_loop_gravity_torques(robot, QA5, q_guess=exact))
    assert np.abs(gam - lag).max() < 1e-7


def test_virtual_work_and_ddm_round_trip():
    for robot, qa, guess, qda in [(fivebar(), QA5, fivebar_closed_form(QA5), QDA5),
                                  (sr400(), QA_SR, sr400_guess(QA_SR), QDA_SR)]:
        rng = np.random.default_rng(7)
        qdda = rng.normal(size=len(qa))
        q, qd, qdd, W = closed_loop_state(robot, qa, qda, qdda, q_guess=guess)
        tau_a = closed_loop_idm(robot, qa, qda, qdda, q_guess=guess)
        n = robot.n_links
        gam_tree = idm(equivalent_tree(robot), q[:n], qd[:n], qdd[:n])
        # virtual work: the actuated power equals the tree's power
        assert abs(tau_a @ qda - gam_tree @ qd[:n]) < 1e-12 * max(1.0, abs(tau_a @ qda))
        back = closed_loop_ddm(robot, qa, qda, tau_a, q_guess=guess)
        assert np.abs(back - qdda).max() < 1e-10


def test_fivebar_energy_is_conserved_without_torque():
    robot = fivebar()
    robot = replace(robot, links=tuple(replace(l, FC=0, FV=0) for l in robot.links))
    exact = fivebar_closed_form(QA5)
    t = np.linspace(0.0, 0.1, 51)
    qd0 = closed_loop_state(robot, QA5, 3 * QDA5, None, q_guess=exact)[1]
    run = simulate(robot, lambda tt, qa, qda: np.zeros(len(QA5)), None, 0.1,
                   x0=np.r_[exact, qd0], step=2e-3)    # every joint: the assembly mode
    qa, qda = run                        # one result type: SimulationResult, unpacks as q, qd
    assert isinstance(run, robmod.dynamics.SimulationResult) and np.allclose(run.t, t)
    assert run.tau.shape == (len(t), len(QA5)) and not np.any(run.tau)   # free motion
    assert run.x.shape == (len(t), 2 * len(QA5)) and qa.shape == (len(t), len(QA5))
    q, qd = zip(*(closed_loop_state(robot, a, b, None, q_guess=exact)[:2]
                  for a, b in zip(qa, qda)))
    assert np.abs(q[0] - exact).max() < 1e-9      # the assembly mode of the closed form
    q, qd = np.array(q), np.array(qd)     # every joint, the loops closed
    E = np.array([sum(closed_loop_energy(robot, a, b)) for a, b in zip(q, qd)])
    T0 = closed_loop_energy(robot, q[0], qd[0])[0]
    scale = T0 + abs(closed_loop_energy(robot, q[0], qd[0])[1])
    drift = np.abs(E - E[0]).max() / scale
    assert drift < 1e-8
    assert np.abs(q[-1] - q[0]).max() > 0.05            # it did move
    assert np.abs(robmod.geometry.loops.loop_residual(robot, q)).max() < 1e-12


# -- SR400 (library robot with random dynamics) ------------------------------------------------
SR400_GEOMETRY = dict(D2=0.15, D3=0.6, D4=0.12, D8=0.25, RL4=0.7)
QA_SR = np.array([0.1, -0.3, 0.2, 0.4, -0.1, 0.5])      # joints 1, 2, 4, 5, 6, 7
QDA_SR = np.array([0.3, -0.5, 0.8, 0.2, -0.4, 0.6])


def sr400():
    robot = robmod.load_robot("sr400").numeric(SR400_GEOMETRY)
    return with_random_dynamics(robot, np.random.default_rng(11), friction=True)


def sr400_guess(qa):
    """The parallelogram of the SR400: q3 = q7 - q2 + pi/2, q8 = q2 - q7, q9 = q3 + pi/2."""
    q1, q2, q4, q5, q6, q7 = qa
    q3 = q7 - q2 + np.pi / 2
    return np.array([q1, q2, q3, q4, q5, q6, q7, q2 - q7, q3 + np.pi / 2]) + 0.05


def test_sr400_inertia_matrix_is_the_hessian_of_the_kinetic_energy():
    robot = sr400()
    assert robot.actuated == (1, 2, 4, 5, 6, 7)
    guess = sr400_guess(QA_SR)
    q = close_loops(robot, QA_SR, q_guess=guess)
    assert loop_jacobian(robot, q).shape == (3, 9)
    Wfd = fd_W(robot, QA_SR, guess)
    assert np.abs(passive_velocity_map(robot, q) - Wfd).max() < 1e-8
    tree = equivalent_tree(robot)
    I = np.eye(6)

    def T(v):
        return robmod.dynamics.kinetic_energy(tree, q[:8], (Wfd @ v)[:8])

    B_fd = np.array([[T(I[i] + I[j]) - T(I[i]) - T(I[j]) if i != j else 2 * T(I[i])
                      for j in range(6)] for i in range(6)])
    Ba = closed_loop_inertia_matrix(robot, QA_SR, q_guess=guess)
    assert np.abs(Ba - B_fd).max() < 1e-8
    assert np.all(np.linalg.eigvalsh(Ba) > 0)
    # gravity from the potential energy
    h = 1e-6
    g_fd = np.array([(closed_loop_energy(robot, close_loops(robot, QA_SR + h * I[k], q_guess=guess),
                                         np.zeros(9))[1]
                      - closed_loop_energy(robot, close_loops(robot, QA_SR - h * I[k], q_guess=guess),
                                           np.zeros(9))[1]) / (2 * h) for k in range(6)])
    assert np.abs(closed_loop_gravity_torques(robot, QA_SR, q_guess=guess) - g_fd).max() < 1e-7
    # the IDM: B_a qdd_a + h_a, h_a the IDM at qdd_a = 0 (batched over two states)
    qdda = np.array([[0.5, -0.2, 0.1, 0.3, -0.6, 0.9], [0.0] * 6])
    gam = closed_loop_idm(robot, np.stack([QA_SR] * 2), np.stack([QDA_SR] * 2), qdda,
                          q_guess=np.stack([guess] * 2))
    assert np.abs(gam[0] - gam[1] - Ba @ qdda[0]).max() < 1e-10


def test_errors():
    with pytest.raises(RobmodError, match="no closed loop"):
        passive_velocity_map(robmod.load_robot("rx90", numeric=True), np.zeros(6))
    robot = fivebar()
    with pytest.raises(RobmodError, match="qa must have 2"):
        close_loops(robot, np.zeros(3))
    short = robmod.load_robot("parallelogram").numeric(dict(a1p=0.5, a2p=0.1, a3p=0.1, a1pp=0.4))
    with pytest.raises(RobmodError, match="could not be closed"):
        close_loops(short, np.array([0.0, np.pi]))      # |AC| = 0.9 > a2p + a3p: unreachable
    # all joints declared actuated: the loop does not determine anything
    allact = replace(robot, frames=tuple(replace(f, mu=1) if f.j in (2, 3) else f
                                         for f in robot.frames))
    with pytest.raises(RobmodError, match="independent constraints"):
        passive_velocity_map(allact, fivebar_closed_form(QA5))
