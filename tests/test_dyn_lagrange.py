"""Lagrange form: A, C (Christoffel), Q, energies, Gamma(q)[qd qd] of seed 003 (7.117)."""
from dataclasses import replace

import numpy as np
import sympy as sp

import robmod
from robmod.dynamics import idm
from robmod.control import simulate
from robmod.dynamics.inertia import inertia_matrix, inertia_matrix_model
from robmod.dynamics.lagrange import (coriolis_matrix, coriolis_matrix_model, energy_model,
                                      friction_torques, gravity_torques,
                                      kinetic_energy, potential_energy, quadratic_velocity_matrix,
                                      quadratic_velocity_matrix_model, _velocity_products)
from robmod.symbolic.differentiation import derivative
from robmod.testing.random import random_robot, with_random_dynamics


def _robots(rng, friction=False):
    out = [with_random_dynamics(robmod.load_robot(n, numeric=True), rng, friction=friction)
           for n in ("rx90", "stanford", "scara")]
    out += [random_robot(rng, int(rng.integers(2, 7)), tree=k % 2 == 1, general=k % 3 == 0)
            for k in range(8)]
    return out


def mv(M, v):
    return np.einsum("...ij,...j->...i", M, v)


def test_idm_is_a_qdd_plus_c_qd_plus_q_plus_friction():
    rng = np.random.default_rng(1)
    for robot in _robots(rng, friction=True):
        q, qd, qdd = rng.uniform(-2, 2, (3, 6, robot.n_joints))
        A = inertia_matrix(robot, q)
        lhs = mv(A, qdd) + mv(coriolis_matrix(robot, q, qd), qd) + gravity_torques(robot, q) \
            + friction_torques(robot, qd)
        assert np.abs(lhs - idm(robot, q, qd, qdd)).max() < 1e-10
        # A symmetric positive definite
        assert np.abs(A - np.swapaxes(A, -1, -2)).max() == 0
        assert np.linalg.eigvalsh(A).min() > 0


def test_adot_minus_2c_is_skew_symmetric():
    rng = np.random.default_rng(2)
    for robot in _robots(rng):
        q, qd = rng.uniform(-2, 2, (2, 5, robot.n_joints))
        h = 1e-6
        Ad = (inertia_matrix(robot, q + h * qd) - inertia_matrix(robot, q - h * qd)) / (2 * h)
        N = Ad - 2 * coriolis_matrix(robot, q, qd)
        assert np.abs(N + np.swapaxes(N, -1, -2)).max() < 1e-6


def test_christoffel_model_and_adot_by_derivative():
    rng = np.random.default_rng(3)
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng)
    q, qd = rng.uniform(-2, 2, (2, 10, 6))
    C = coriolis_matrix(robot, q, qd)
    Cs = coriolis_matrix_model(robot).compile()(q, qd)
    assert np.abs(C - Cs).max() < 1e-11
    assert np.abs(coriolis_matrix(robot, q, qd, method="christoffel") - C).max() < 1e-11
    # A-dot from the forward-mode derivative of the customized A: skew-symmetry exactly
    dm = derivative(inertia_matrix_model(robot), robot.q, keep_outputs=False).compile()
    dA = dm(q)  # one output per q_k, each the lower triangle
    from robmod.dynamics.inertia import _lower_to_full

    Ad = sum(_lower_to_full(dA[k], 6) * qd[:, k, None, None] for k in range(6))
    N = Ad - 2 * C
    assert np.abs(N + np.swapaxes(N, -1, -2)).max() < 1e-11


def test_quadratic_velocity_form_of_seed_003():
    rng = np.random.default_rng(4)
    for robot in _robots(rng)[:6]:
        q, qd = rng.uniform(-2, 2, (2, 5, robot.n_joints))
        G = quadratic_velocity_matrix(robot, q)
        n = robot.n_joints
        assert G.shape == (5, n, n * (n + 1) // 2)
        assert np.abs(mv(G, _velocity_products(qd))
                      - mv(coriolis_matrix(robot, q, qd), qd)).max() \
            < 1e-10
    robot = with_random_dynamics(robmod.load_robot("scara", numeric=True), rng)
    q = rng.uniform(-2, 2, (5, robot.n_joints))
    assert np.abs(quadratic_velocity_matrix_model(robot).compile()(q)
                  - quadratic_velocity_matrix(robot, q)).max() < 1e-11


def test_energies():
    rng = np.random.default_rng(5)
    for robot in _robots(rng):
        q, qd = rng.uniform(-2, 2, (2, 4, robot.n_joints))
        A = inertia_matrix(robot, q)
        assert np.abs(kinetic_energy(robot, q, qd) - 0.5 * np.einsum("...i,...i", qd, mv(A, qd))
                      ).max() < 1e-10
        h = 1e-6
        n = robot.n_joints
        dU = np.stack([(potential_energy(robot, q + h * e) - potential_energy(robot, q - h * e))
                       / (2 * h) for e in np.eye(n)], axis=-1)
        assert np.abs(dU - gravity_torques(robot, q)).max() < 1e-6
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng)
    q, qd = rng.uniform(-2, 2, (2, 4, 6))
    eu = energy_model(robot).compile()(q, qd)
    assert np.abs(eu[:, 0] - kinetic_energy(robot, q, qd)).max() < 1e-11
    assert np.abs(eu[:, 1] - potential_energy(robot, q)).max() < 1e-11


def test_energy_balance_along_a_simulated_motion():
    """dE/dt = qd^T (Gamma - friction): E(T) - E(0) = integral of the power (viscous friction)."""
    rng = np.random.default_rng(6)
    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng)
    links = [replace(l, FV=sp.Float(float(rng.uniform(0.1, 1)))) for l in robot.links]
    robot = replace(robot, links=tuple(links))
    amp = rng.uniform(-5, 5, 6)

    def tau_fn(t, q, qd):
        return amp * np.sin(3 * t) + 2.0

    t = np.linspace(0, 1, 401)
    x0 = np.concatenate([rng.uniform(-1, 1, 6), rng.uniform(-1, 1, 6)])
    q, qd = simulate(robot, tau_fn, None, 1.0, x0=x0, step=1.25e-3, record_every=2,
                     saturation=False)
    E = kinetic_energy(robot, q, qd) + potential_energy(robot, q)
    power = np.einsum("ki,ki->k", qd, np.array([tau_fn(tt, None, None) for tt in t])
                      - friction_torques(robot, qd))
    # composite Simpson rule
    w = np.ones(len(t))
    w[1:-1:2], w[2:-1:2] = 4, 2
    work = (t[1] - t[0]) / 3 * (w @ power)
    assert abs((E[-1] - E[0]) - work) < 1e-6 * max(1.0, abs(work))
