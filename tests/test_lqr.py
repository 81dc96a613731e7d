"""The dynamics linearized on the analytical derivatives (state matrices, closed-loop poles) and
the LQR tracking controller: its gains at a set point are SciPy's Riccati solutions on the
finite-difference linearization; it tracks a trajectory."""
from dataclasses import replace

import numpy as np
import pytest
import scipy.linalg
import sympy as sp

import robmod
from robmod.control import LQR, ComputedTorque, linearize, simulate, state_matrices
from robmod.control.linearization import discretized
from robmod.dynamics import ddm, idm
from robmod.errors import RobmodError
from robmod.testing.random import with_random_dynamics
from robmod.trajectory import point_to_point

N = 6
Q0 = np.array([0.1, -0.4, 0.3, 0.2, 0.5, -0.2])
QW = np.diag([1e4] * N + [1e2] * N)
RW = np.eye(N) * 1e-2


@pytest.fixture(scope="module")
def rx90():
    """A numeric RX-90 with viscous friction, without Coulomb friction (discontinuous at rest:
    finite differences across qd = 0 would see a jump)."""
    r = with_random_dynamics(robmod.load_robot("rx90", numeric=True), np.random.default_rng(3),
                             friction=True)
    return replace(r, links=tuple(replace(l, FC=sp.Integer(0)) for l in r.links))


def _fd_matrices(robot, q, qd, tau, h=1e-6):
    n = len(q)

    def f(x, u):
        return np.concatenate([x[n:], ddm(robot, x[:n], x[n:], u)])
    x = np.concatenate([q, qd])
    A = np.stack([(f(x + h * e, tau) - f(x - h * e, tau)) / (2 * h) for e in np.eye(2 * n)], -1)
    B = np.stack([(f(x, tau + h * e) - f(x, tau - h * e)) / (2 * h) for e in np.eye(n)], -1)
    return A, B


def test_state_matrices_and_their_sampling(rx90):
    rng = np.random.default_rng(0)
    qd, tau = rng.uniform(-1, 1, (2, N))
    A, B = state_matrices(rx90, Q0, qd, tau)
    Af, Bf = _fd_matrices(rx90, Q0, qd, tau)
    assert np.abs(A - Af).max() < 1e-6 * np.abs(Af).max() and np.abs(B - Bf).max() < 1e-7
    Ad, Bd = state_matrices(rx90, Q0, qd, tau, dt=0.01)
    E = scipy.linalg.expm(np.block([[A, B], [np.zeros((N, 3 * N))]]) * 0.01)
    assert np.abs(Ad - E[:2 * N, :2 * N]).max() < 1e-13
    assert np.abs(Bd - E[:2 * N, 2 * N:]).max() < 1e-13
    # batched, and the large norms of a stiff robot (scaling and squaring)
    M = np.random.default_rng(1).normal(size=(3, 5, 5)) * 40
    for k in range(3):
        E = scipy.linalg.expm(M[k])
        assert np.abs(discretized(M[k], np.zeros((5, 0)), 1.0)[0] - E).max() < 1e-11 * \
            np.abs(E).max()


def test_set_point_gains_are_the_riccati_solutions_of_scipy(rx90):
    tau = idm(rx90, Q0, np.zeros(N), np.zeros(N))
    A, B = _fd_matrices(rx90, Q0, np.zeros(N), tau)
    P = scipy.linalg.solve_continuous_are(A, B, QW, RW)
    K = np.linalg.solve(RW, B.T @ P)
    assert np.abs(LQR(rx90, Q0, Q=QW, R=RW, dt=0).K - K).max() < 1e-7 * np.abs(K).max()
    dt = 1e-3
    E = scipy.linalg.expm(np.block([[A, B], [np.zeros((N, 3 * N))]]) * dt)
    Ad, Bd = E[:2 * N, :2 * N], E[:2 * N, 2 * N:]
    P = scipy.linalg.solve_discrete_are(Ad, Bd, QW, RW)
    K = np.linalg.solve(RW + Bd.T @ P @ Bd, Bd.T @ P @ Ad)
    assert np.abs(LQR(rx90, Q0, Q=QW, R=RW, dt=dt).K - K).max() < 1e-7 * np.abs(K).max()
    # the closed loop's poles (on the analytical derivatives) are those of A - B K
    c = LQR(rx90, Q0, Q=QW, R=RW, dt=0)
    A, B = state_matrices(rx90, Q0, np.zeros(N), tau)
    ref = np.sort_complex(np.linalg.eigvals(A - B @ c.K))
    assert np.abs(np.sort_complex(linearize(rx90, c, Q0).poles) - ref).max() < 1e-6 * \
        np.abs(ref).max()
    # computed torque still has its designed poles (9.26)
    assert np.abs(linearize(rx90, ComputedTorque(rx90, omega=10.0, dt=0.0), Q0).poles
                  + 10).max() < 1e-6


def test_tracks_a_trajectory_digital_and_continuous(rx90):
    traj = point_to_point(Q0, Q0 + 0.8, "quintic", duration=1.0)
    ctrl = LQR(rx90, traj, Q=QW, R=RW)
    assert ctrl.gains.shape == (1001, N, 2 * N)
    # after the end: the stationary gain of the final point
    end = LQR(rx90, Q0 + 0.8, Q=QW, R=RW).K
    assert np.abs(ctrl.gain(2.0) - end).max() < 1e-9 * np.abs(end).max()
    start = np.concatenate([Q0 + 0.02, np.zeros(N)])       # an initial error of 20 mrad
    res = simulate(rx90, ctrl, traj, 1.5, x0=start)
    err = np.abs(res.error).max(axis=-1)
    assert err[res.t > 0.5].max() < 5e-4 and err[res.t > 1.4].max() < 5e-6
    assert np.abs(simulate(rx90, ctrl, traj, 1.5).error).max() < 3e-4
    cont = LQR(rx90, traj, Q=QW, R=RW, dt=0)
    res = simulate(rx90, cont, traj, 1.2)
    assert np.abs(res.error).max() < 2e-4


def test_bryson_weights_and_errors(rx90):
    panda = robmod.load_robot("panda", numeric=True)      # taumax in its file
    c = LQR(panda, np.zeros(7), dt=0)
    assert c.R[0, 0] == pytest.approx(1 / float(panda.link(1).limits.taumax) ** 2)
    assert c.Q[0, 0] == pytest.approx(1e6) and c.Q[7, 7] == pytest.approx(1e4)
    with pytest.raises(RobmodError, match="taumax"):
        LQR(replace(rx90, links=tuple(replace(l, limits=replace(l.limits, taumax=None))
                                    for l in rx90.links)), Q0)
    with pytest.raises(RobmodError, match="Q must be 12 x 12"):
        LQR(rx90, Q0, Q=np.eye(3), R=RW)
    with pytest.raises(RobmodError, match="horizon"):
        LQR(rx90, lambda t: (Q0, 0 * Q0, 0 * Q0), Q=QW, R=RW)


def test_state_matrices_of_a_robot_with_mimic_joints(rx90):
    """A coupled joint (q3 = -0.5 q2 + 0.1): the state matrices of its joint variables against
    finite differences of its direct model; the controllers refuse it by name."""
    robot = replace(rx90, mimic={3: (2, -0.5, 0.1)})
    q, qd, tau = np.random.default_rng(4).uniform(-1, 1, (3, 5))
    A, B = state_matrices(robot, q, qd, tau)
    Af, Bf = _fd_matrices(robot, q, qd, tau)
    assert A.shape == (10, 10) and B.shape == (10, 5)
    assert np.abs(A - Af).max() < 1e-6 * np.abs(Af).max() and np.abs(B - Bf).max() < 1e-7
    with pytest.raises(RobmodError, match="mimic joints"):
        LQR(robot, q, Q=np.eye(10), R=np.eye(5))
    with pytest.raises(robmod.errors.ArgumentError, match="'dt'"):
        state_matrices(robot, q, qd, tau, dtt=0.1)


def test_closed_loop_robot_linearized_on_its_actuated_joints():
    """The parallelogram arm (actuated joints 1 and 4): the state matrices against finite
    differences of its closed-loop direct model, the computed-torque poles."""
    from robmod.control import Dynamics

    robot = robmod.load_robot("parallelogram", numeric=True)
    plant = Dynamics.of(robot, "plant")
    qa = plant.start_configuration() + 0.1
    qda = np.array([0.2, -0.3])
    tau = plant.idm(qa, qda, np.zeros(2))
    A, B = state_matrices(robot, qa, qda, tau)
    h = 1e-6

    def f(x, u):
        return np.concatenate([x[2:], plant.ddm(x[:2], x[2:], u)])
    x = np.concatenate([qa, qda])
    Af = np.stack([(f(x + h * e, tau) - f(x - h * e, tau)) / (2 * h) for e in np.eye(4)], -1)
    Bf = np.stack([(f(x, tau + h * e) - f(x, tau - h * e)) / (2 * h) for e in np.eye(2)], -1)
    assert np.abs(A - Af).max() < 1e-6 * np.abs(Af).max() and np.abs(B - Bf).max() < 1e-6
    poles = linearize(robot, ComputedTorque(robot, omega=8.0, dt=0.0), qa).poles
    assert np.abs(poles + 8).max() < 1e-3
