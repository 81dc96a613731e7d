"""Every ``method=`` x switch combination of every dynamic model is honoured or refused.

The reference of a switch is the robot whose parameters of that term are zero (``gravity``:
g = 0; ``rotor``: IA = 0; ``friction``: FC = FV = FST = 0; ``wrench``: FX..CZ = 0;
``base_motion``: W0 = WP0 = V0 = VP0 = 0) or whose input is zero (``velocity``: qd = 0;
``acceleration``: qdd = 0), computed with the default switches; the reference of a method is
an independent path (the direct model from the inverse one and the inertia matrix, the
Coriolis matrix by polarization and by Christoffel symbols, ...).  A switch a model cannot
honour is refused with an ArgumentError (``base_motion`` on a floating robot), never
ignored: this grid is how ``inertia_matrix(method="ne", rotor=False)``, which kept the rotor
inertias, is caught.
"""
import itertools
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.control import simulate
from robmod.dynamics import (Rotor, ccg, closed_loop_ddm, closed_loop_gravity_torques,
                             closed_loop_idm, closed_loop_inertia_matrix, coriolis_matrix, ddm,
                             ddm_model, dynamic_manipulability_ellipsoid, energy,
                             gravity_torques, idm, idm_model, idm_with_rotors, inertia_matrix,
                             inertia_matrix_model, operational_space, rotor_torques,
                             state_derivative, velocity_torques)
from robmod.errors import ArgumentError
from robmod.testing.random import random_robot, with_random_dynamics

IDM_SWITCHES = ("gravity", "rotor", "friction", "wrench", "velocity", "base_motion",
                "acceleration")
DDM_SWITCHES = IDM_SWITCHES[:-1]
_WRENCH = ("FX", "FY", "FZ", "CX", "CY", "CZ")


def _full(robot, rng):
    """Every term present: random inertias, rotor inertias, friction with Stribeck, link
    wrenches, gravity and base motion."""
    robot = with_random_dynamics(robot, rng, gravity=tuple(rng.normal(size=3) * 5),
                                 rotor=True, friction=True)
    links = tuple(replace(link, FST=sp.Float(float(link.FC) + 0.3), BST=sp.Float(2.0),
                          **{k: sp.Float(float(rng.normal())) for k in _WRENCH})
                  for link in robot.links)
    vec = lambda: tuple(sp.Float(float(x)) for x in rng.normal(size=3))  # noqa: E731
    return replace(robot, links=links, W0=vec(), WP0=vec(), V0=vec(), VP0=vec())


def _zeroed(robot, off):
    """The reference robot of the switches ``off``: the parameters of those terms set to 0."""
    zero, z3 = sp.Integer(0), (sp.Integer(0),) * 3
    kw = {}
    if "rotor" in off:
        kw["IA"] = zero
    if "friction" in off:
        kw.update(FC=zero, FV=zero, FST=zero)
    if "wrench" in off:
        kw.update({k: zero for k in _WRENCH})
    links = tuple(replace(link, **kw) for link in robot.links)
    out = replace(robot, links=links)
    if "gravity" in off:
        out = replace(out, gravity=z3)
    if "base_motion" in off:
        out = replace(out, W0=z3, WP0=z3, V0=z3, VP0=z3)
    return out


def _inputs(off, *arrays):
    """qd (and qdd) set to zero by ``velocity`` (``acceleration``) off."""
    q, qd, *rest = arrays
    qd = np.zeros_like(qd) if "velocity" in off else qd
    rest = [np.zeros_like(x) if "acceleration" in off else x for x in rest]
    return (q, qd, *rest)


def _combinations(names):
    return [frozenset(c) for r in range(len(names) + 1) for c in itertools.combinations(names, r)]


RNG = np.random.default_rng(27)
ROBOT = _full(random_robot(RNG, 4, prismatic=True), RNG)
N = ROBOT.n_q
Q, QD, QDD, TAU = (RNG.uniform(-1.5, 1.5, (2, N)) for _ in range(4))


@pytest.mark.parametrize("off", _combinations(IDM_SWITCHES), ids=lambda o: "-".join(sorted(o))
                         or "all")
def test_idm_switches(off):
    got = idm(ROBOT, Q, QD, QDD, **{k: False for k in off})
    ref = idm(_zeroed(ROBOT, off), *_inputs(off, Q, QD, QDD))
    assert np.abs(got - ref).max() < 1e-10


@pytest.mark.parametrize("method", ["recursive", "inverse"])
@pytest.mark.parametrize("off", _combinations(DDM_SWITCHES), ids=lambda o: "-".join(sorted(o))
                         or "all")
def test_ddm_methods_and_switches(method, off):
    switches = {k: False for k in off}
    zr = _zeroed(ROBOT, off)
    q, qd = _inputs(off, Q, QD)
    # the reference path: A(q) qdd = tau - H(q, qd), A and H of the zeroed robot
    ref = np.linalg.solve(inertia_matrix(zr, q), (TAU - idm(zr, q, qd, 0 * q))[..., None])[..., 0]
    got = ddm(ROBOT, Q, QD, TAU, method=method, **switches)
    assert np.abs(got - ref).max() < 1e-9
    x = np.concatenate([Q, QD], axis=-1)
    xd = state_derivative(ROBOT, x, TAU, method=method, **switches)
    assert np.abs(xd[..., N:] - ref).max() < 1e-9 and np.array_equal(xd[..., :N], QD)


@pytest.mark.parametrize("method", ["composite", "ne"])
@pytest.mark.parametrize("rotor", [True, False])
def test_inertia_matrix_methods_and_rotor(method, rotor):
    ref = inertia_matrix(_zeroed(ROBOT, set() if rotor else {"rotor"}), Q)
    assert np.abs(inertia_matrix(ROBOT, Q, method=method, rotor=rotor) - ref).max() < 1e-10
    # the inertia matrix from the IDM, column by column ([7.64]), independently
    cols = [idm(ROBOT, Q, 0 * Q, np.broadcast_to(e, Q.shape), gravity=False, friction=False,
                wrench=False, base_motion=False, rotor=rotor) for e in np.eye(N)]
    assert np.abs(np.stack(cols, axis=-1) - ref).max() < 1e-10


def test_symbolic_models_honour_their_switches():
    """The customized models take the same switches as the plain functions."""
    for off in [{"rotor"}, {"friction", "wrench"}, {"gravity", "base_motion"}]:
        sw = {k: False for k in off}
        f = idm_model(ROBOT, **sw).numpy_function()
        assert np.abs(f(Q, QD, QDD) - idm(ROBOT, Q, QD, QDD, **sw)).max() < 1e-10
        for method in ("recursive", "inverse"):
            g = ddm_model(ROBOT, method=method, **sw).numpy_function()
            assert np.abs(g(Q, QD, TAU) - ddm(ROBOT, Q, QD, TAU, **sw)).max() < 1e-9
    A = inertia_matrix_model(ROBOT, rotor=False).numpy_function()(Q)
    low = inertia_matrix(ROBOT, Q, rotor=False)[..., np.tril_indices(N)[0], np.tril_indices(N)[1]]
    assert np.abs(A - low).max() < 1e-10


def test_lagrange_terms_against_the_idm():
    gq = gravity_torques(ROBOT, Q)
    assert np.abs(gq - idm(ROBOT, Q, 0 * Q, 0 * Q, rotor=False, friction=False, wrench=False,
                           base_motion=False)).max() < 1e-10
    h = velocity_torques(ROBOT, Q, QD)
    assert np.abs(ccg(ROBOT, Q, QD) - idm(ROBOT, Q, QD, 0 * Q, rotor=False, friction=False,
                                          wrench=False)).max() < 1e-10
    ne = coriolis_matrix(ROBOT, Q, QD, method="ne")
    ch = coriolis_matrix(ROBOT, Q, QD, method="christoffel")
    assert np.abs(ne - ch).max() < 1e-9
    assert np.abs(np.einsum("...ij,...j->...i", ne, QD) - h).max() < 1e-10
    with pytest.raises(ArgumentError, match="method"):
        coriolis_matrix(ROBOT, Q, QD, method="polarization")
    for rotor in (True, False):
        e = energy(ROBOT, Q, QD, rotor=rotor)
        r = energy(_zeroed(ROBOT, set() if rotor else {"rotor"}), Q, QD)
        assert np.abs(e.kinetic - r.kinetic).max() < 1e-12
        assert np.abs(e.potential - r.potential).max() < 1e-12


def test_simulate_integrates_the_plain_direct_model():
    """The one simulator's plant (the customized direct model with fewer operations) is the
    plain ddm of every method: one RK4 step against the textbook one on ddm."""
    x0 = np.concatenate([Q[0], QD[0]])
    h = 1e-3
    got = simulate(ROBOT, lambda tt, q, qd: TAU[0], None, h, x0=x0, step=h, saturation=False)
    for method in ("recursive", "inverse"):
        def f(q, qd):
            return ddm(ROBOT, q, qd, TAU[0], method=method)
        q, qd = Q[0], QD[0]
        a1 = f(q, qd)
        a2 = f(q + h / 2 * qd, qd + h / 2 * a1)
        a3 = f(q + h / 2 * (qd + h / 2 * a1), qd + h / 2 * a2)
        a4 = f(q + h * (qd + h / 2 * a2), qd + h * a3)
        v = qd + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
        assert np.abs(got.qd[-1] - v).max() < 1e-9


@pytest.mark.parametrize("off", _combinations(("velocity", "acceleration", "base_motion",
                                               "friction", "rotor", "gravity")),
                         ids=lambda o: "-".join(sorted(o)) or "all")
def test_rotor_terms_and_switches(off):
    rotors = [Rotor(2, 0.01, 50.0, (0.0, 0.6, 0.8)), Rotor(3, 0.02, 30.0)]
    sw = {k: False for k in off}
    zr = _zeroed(ROBOT, off)
    q, qd, qdd = _inputs(off, Q, QD, QDD)
    got = idm_with_rotors(ROBOT, rotors, Q, QD, QDD, **sw)
    ref = idm(zr, q, qd, qdd) + rotor_torques(zr, rotors, q, qd, qdd)
    assert np.abs(got - ref).max() < 1e-9
    motion = {k: v for k, v in sw.items() if k in ("velocity", "acceleration", "base_motion")}
    assert np.abs(rotor_torques(ROBOT, rotors, Q, QD, QDD, **motion)
                  - rotor_torques(zr, rotors, q, qd, qdd)).max() < 1e-10


@pytest.mark.parametrize("rotor", [True, False])
@pytest.mark.parametrize("gravity", [True, False])
def test_operational_space_switches(rotor, gravity):
    zr = _zeroed(ROBOT, set() if rotor else {"rotor"})
    q = Q[0]
    os_ = operational_space(ROBOT, q, QD[0], rotor=rotor, rows=(0, 1))
    assert np.abs(os_.B - inertia_matrix(zr, q)).max() < 1e-12
    e = dynamic_manipulability_ellipsoid(ROBOT, q, rows=(0, 1), gravity=gravity, rotor=rotor)
    r = dynamic_manipulability_ellipsoid(_zeroed(zr, set() if gravity else {"gravity"}), q,
                                         rows=(0, 1))
    assert np.abs(e.Q - r.Q).max() < 1e-9 and np.abs(e.centre - r.centre).max() < 1e-9


# -- the derivatives of the IDM and the DDM -------------------------------------------------

@pytest.fixture
def numpy_path():
    """The NumPy path: one compiled model per switch set would make the grid slow (the
    compiled derivatives are checked against it in tests/test_derivatives.py)."""
    old = robmod.set_backend("numpy")
    yield
    robmod.set_backend(old)


def _switched_inputs(D, off, velocity, acceleration):
    """The derivatives by a switched-off input are zero."""
    D = list(D)
    if velocity in off:
        D[1] = np.zeros_like(D[1])
    if acceleration is not None and acceleration in off:
        D[2] = np.zeros_like(D[2])
    return D


@pytest.mark.parametrize("off", _combinations(IDM_SWITCHES), ids=lambda o: "-".join(sorted(o))
                         or "all")
def test_idm_derivatives_switches(off, numpy_path):
    from robmod.dynamics import idm_derivatives

    got = idm_derivatives(ROBOT, Q, QD, QDD, **{k: False for k in off})
    ref = idm_derivatives(_zeroed(ROBOT, off), *_inputs(off, Q, QD, QDD))
    for a, b in zip(got, _switched_inputs(ref, off, "velocity", "acceleration")):
        assert np.abs(a - b).max() < 1e-10


@pytest.mark.parametrize("method", ["idm", "recursive"])
@pytest.mark.parametrize("off", _combinations(DDM_SWITCHES), ids=lambda o: "-".join(sorted(o))
                         or "all")
def test_ddm_derivatives_methods_and_switches(method, off, numpy_path):
    """Each method and switch set against the zeroed robot's derivatives, and those against
    an independent path: dqdd/dtau = A^-1, dqdd/dx = -A^-1 dtau/dx at the DDM's qdd."""
    from robmod.dynamics import ddm_derivatives, idm_derivatives

    got = ddm_derivatives(ROBOT, Q, QD, TAU, method=method, **{k: False for k in off})
    zr = _zeroed(ROBOT, off)
    q, qd = _inputs(off, Q, QD)
    ref = _switched_inputs(ddm_derivatives(zr, q, qd, TAU), off, "velocity", None)
    for a, b in zip(got, ref):
        assert np.abs(a - b).max() < 1e-9
    D = idm_derivatives(zr, q, qd, ddm(zr, q, qd, TAU))
    assert np.abs(ref[0] + np.linalg.solve(D.dtau_dqdd, D.dtau_dq)).max() < 1e-9
    assert np.abs(ref[2] - np.linalg.inv(inertia_matrix(zr, q))).max() < 1e-9


# -- closed loops -------------------------------------------------------------------------

def _parallelogram():
    par = robmod.load_robot("parallelogram").numeric(
        {"m_l1p": 1.0, "m_l2p": 0.8, "m_l3p": 1.2, "m_l1pp": 0.9, "l1p": 0.3, "l2p": 0.15,
         "l3p": 0.25, "l1pp": 0.1, "I_l1p": 0.02, "I_l2p": 0.01, "I_l3p": 0.03, "I_l1pp": 0.01})
    rng = np.random.default_rng(5)
    links = tuple(replace(link, IA=sp.Float(float(rng.uniform(0.1, 0.5))),
                          FC=sp.Float(float(rng.uniform(0.1, 1.0))),
                          FV=sp.Float(float(rng.uniform(0.1, 1.0))),
                          **{k: sp.Float(float(rng.normal())) for k in _WRENCH})
                  for link in par.links)
    return replace(par, links=links)


PAR = _parallelogram()
QA, QDA, QDDA, TAU_A = np.array([0.3, 1.2]), np.array([0.5, -0.2]), np.array([1.0, 2.0]), \
    np.array([0.4, -0.7])
GUESS = np.array([0.3, 0.9, np.pi - 0.9, 1.2, 0.9 - np.pi])


def _switched_off(off):
    """(switches, the robot with those terms zeroed, qd_a and qdd_a as the switches see them)."""
    return ({k: False for k in off}, _zeroed(PAR, off),
            0 * QDA if "velocity" in off else QDA, 0 * QDDA if "acceleration" in off else QDDA)


@pytest.mark.parametrize("off", [set(), {"gravity"}, {"rotor"}, {"friction"}, {"wrench"},
                                 {"velocity"}, {"acceleration"}, {"velocity", "acceleration"},
                                 {"base_motion"}, set(IDM_SWITCHES)],
                         ids=lambda o: "-".join(sorted(o)) or "all")
def test_closed_loop_switches(off):
    sw, zr, qda, qdda = _switched_off(off)
    got = closed_loop_idm(PAR, QA, QDA, QDDA, q_guess=GUESS, **sw)
    ref = closed_loop_idm(zr, QA, qda, qdda, q_guess=GUESS)
    assert np.abs(got - ref).max() < 1e-9
    dsw = {k: v for k, v in sw.items() if k != "acceleration"}
    qdd_a = closed_loop_ddm(PAR, QA, QDA, TAU_A, q_guess=GUESS, **dsw)
    B = closed_loop_inertia_matrix(zr, QA, q_guess=GUESS)
    h = closed_loop_idm(zr, QA, qda, 0 * QDDA, q_guess=GUESS)
    assert np.abs(qdd_a - np.linalg.solve(B, TAU_A - h)).max() < 1e-8


@pytest.mark.parametrize("off", [set(), {"gravity"}, {"rotor"}, {"friction"}, {"wrench"},
                                 {"velocity"}, {"acceleration"}, {"base_motion"}],
                         ids=lambda o: "-".join(sorted(o)) or "all")
def test_closed_loop_derivative_switches(off):
    from robmod.dynamics import closed_loop_ddm_derivatives, closed_loop_idm_derivatives

    sw, zr, qda, qdda = _switched_off(off)
    got = closed_loop_idm_derivatives(PAR, QA, QDA, QDDA, q_guess=GUESS, **sw)
    ref = closed_loop_idm_derivatives(zr, QA, qda, qdda, q_guess=GUESS)
    for a, b in zip(got, _switched_inputs(ref, off, "velocity", "acceleration")):
        assert np.abs(a - b).max() < 1e-9
    dsw = {k: v for k, v in sw.items() if k != "acceleration"}
    got = closed_loop_ddm_derivatives(PAR, QA, QDA, TAU_A, q_guess=GUESS, **dsw)
    ref = closed_loop_ddm_derivatives(zr, QA, qda, TAU_A, q_guess=GUESS)
    for a, b in zip(got, _switched_inputs(ref, dsw, "velocity", None)):
        assert np.abs(a - b).max() < 1e-8


def test_closed_loop_inertia_and_gravity_against_the_idm():
    for rotor in (True, False):
        B = closed_loop_inertia_matrix(PAR, QA, q_guess=GUESS, rotor=rotor)
        zr = _zeroed(PAR, set() if rotor else {"rotor"})
        cols = [closed_loop_idm(zr, QA, 0 * QDA, e, q_guess=GUESS, gravity=False,
                                friction=False, wrench=False) for e in np.eye(2)]
        assert np.abs(B - np.stack(cols, axis=-1)).max() < 1e-9
    g = closed_loop_gravity_torques(PAR, QA, q_guess=GUESS)
    ref = closed_loop_idm(PAR, QA, 0 * QDA, 0 * QDDA, q_guess=GUESS, friction=False,
                          wrench=False)
    assert np.abs(g - ref).max() < 1e-9


def test_unknown_methods_and_switches_are_refused():
    calls = [lambda: inertia_matrix(ROBOT, Q, method="crba"),
             lambda: ddm(ROBOT, Q, QD, TAU, method="aba"),
             lambda: ddm(ROBOT, Q, QD, TAU, method="compiled"),     # the default is compiled
             lambda: ddm_model(ROBOT, method="compiled"),
             lambda: ddm(ROBOT, Q, QD, TAU, acceleration=False),
             lambda: idm(ROBOT, Q, QD, QDD, rotr=False),
             lambda: idm(ROBOT, Q, QD, QDD, rotor="no"),
             lambda: state_derivative(ROBOT, np.zeros(2 * N), TAU[0], gravity=0),
             lambda: closed_loop_ddm(PAR, QA, QDA, TAU_A, acceleration=False),
             lambda: robmod.dynamics.ddm_derivatives(ROBOT, Q, QD, TAU, acceleration=False),
             lambda: robmod.dynamics.ddm_derivatives(ROBOT, Q, QD, TAU, method="inverse"),
             lambda: robmod.dynamics.ddm_derivatives_model(ROBOT, method="aba"),
             lambda: robmod.dynamics.idm_derivatives(ROBOT, Q, QD, QDD, rotor="no")]
    for call in calls:
        with pytest.raises(ArgumentError):
            call()


# -- kinematic models: every frame option, compiled and NumPy paths, against compositions --

PANDA = robmod.load_robot("panda", numeric=True)
QP = np.random.default_rng(8).uniform(-1.5, 1.5, (3, 2, 7))


def _rot6(R):
    """diag(R, R) (..., 6, 6)."""
    out = np.zeros(R.shape[:-2] + (6, 6))
    out[..., :3, :3] = out[..., 3:, 3:] = R
    return out


@pytest.mark.parametrize("backend", ["auto", "numpy"])
@pytest.mark.parametrize("j, i, tool", [(None, 0, None), (4, 0, None), (4, 2, None),
                                        (None, 3, "flange"), (7, 0, "flange"), (2, 5, None)])
def test_kinematic_frames(backend, j, i, tool):
    from robmod.geometry import dgm
    from robmod.kinematics import acceleration, jacobian, jdot_qdot

    q, qd, qdd = QP
    old = robmod.set_backend(backend)
    try:
        T = dgm(PANDA, q, j=j, i=i, tool=tool)
        J = jacobian(PANDA, q, j=j, i=i, tool=tool)
        jd = jdot_qdot(PANDA, q, qd, j=j, i=i, tool=tool)
        acc = acceleration(PANDA, q, qd, qdd, j=j, i=i, tool=tool)
    finally:
        robmod.set_backend(old)
    T0i, T0j = dgm(PANDA, q, j=i), dgm(PANDA, q, j=j, tool=tool)
    assert np.abs(T - np.linalg.inv(T0i) @ T0j).max() < 1e-12
    Ri = np.swapaxes(T0i[..., :3, :3], -1, -2)               # iR0
    assert np.abs(J - _rot6(Ri) @ jacobian(PANDA, q, j=j, tool=tool)).max() < 1e-12
    ref = np.einsum("...ij,...j->...i", _rot6(Ri), jdot_qdot(PANDA, q, qd, j=j, tool=tool))
    assert np.abs(jd - ref).max() < 1e-10
    assert np.abs(acc - (np.einsum("...ij,...j->...i", J, qdd) + jd)).max() < 1e-10
