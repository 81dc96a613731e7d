"""Unilateral contacts with Coulomb friction, time stepping: the solver's NCP, a box at rest
that stays at rest, the friction cone (no slip inside, slip at the rate of Coulomb's law
beyond its edge), no energy gained at an impact."""
import numpy as np
import pytest

from robmod.description import ContactPoint, ContactSurface, Link, Plane, ground, make_robot
from robmod.control import simulate
from robmod.dynamics import contact_step, solve_contacts, unilateral_points
from robmod.errors import ArgumentError
from robmod.geometry import neutral

M, A, B, H = 2.0, 0.2, 0.2, 0.1


def box_robot(gravity=(0.0, 0.0, -9.81)):
    """A 2 kg box of 0.2 x 0.2 x 0.1 m as a floating robot (link 0, one fixed frame)."""
    inertia = dict(XX=M * (B * B + H * H) / 12, YY=M * (A * A + H * H) / 12,
                   ZZ=M * (A * A + B * B) / 12)
    return make_robot("box", [dict(j=1, ant=0, sigma=2, mu=0)], links=[Link(j=1)],
                      base="floating", base_link=dict(M=M, **inertia),
                      gravity=gravity).numeric()


def sole(mu=0.5):
    return ContactSurface.rectangle(1, A, B, center=(0, 0, -H / 2), friction=mu)


def still(t, q, qd):
    return np.zeros(0)


def run_box(box, q, qd, duration, contacts, environment=None):
    return simulate(box, still, None, duration, x0=np.r_[q, qd], contacts=contacts,
                    environment=environment)


def energy(robot, q, qd):
    I = np.diag([float(robot.base_link.XX), float(robot.base_link.YY),
                 float(robot.base_link.ZZ)])
    g = -np.array([float(x) for x in robot.gravity])
    return 0.5 * M * qd[..., :3] @ qd[..., :3] + 0.5 * qd[3:] @ I @ qd[3:] + M * g @ q[:3]


def test_the_solver_solves_coulombs_problem():
    rng = np.random.default_rng(0)
    J = rng.normal(size=(9, 12))
    G = J @ J.T
    for c in (rng.normal(size=9), np.tile([0.1, -0.2, -1.0], 3)):
        mu = np.array([0.3, 0.8, 0.0])
        s = solve_contacts(G, c, mu, tol=1e-13, max_iter=5000)
        L, v = s.impulses, s.velocity
        assert np.allclose(v.ravel(), G @ L.ravel() + c)
        assert np.all(L[:, 2] >= 0) and np.all(np.linalg.norm(L[:, :2], axis=1)
                                                <= mu * L[:, 2] + 1e-12)
        assert s.residual < 1e-8, s
    with pytest.raises(ArgumentError, match="solve_contacts"):
        solve_contacts(np.eye(3), np.zeros(2), [0.5])


def test_a_box_at_rest_on_the_ground_stays_at_rest():
    box = box_robot()
    q = neutral(box)
    q[2] = H / 2
    run = run_box(box, q, np.zeros(6), 2.0, [sole()])
    assert np.abs(run.q[:, :3] - q[:3]).max() < 1e-6
    assert np.abs(run.q[:, 3:7] - q[3:7]).max() < 1e-6
    assert np.allclose(run.contact_forces[-1].sum(axis=0), [0, 0, 9.81 * M])


@pytest.mark.parametrize("ratio", [0.9, 1.05])
def test_the_friction_cone_holds_the_box_inside_and_lets_it_slide_beyond(ratio):
    """Gravity tilted by theta on a flat ground (a slope): tan(theta) = ratio * mu; inside
    the cone it stays, beyond it slides at a = g (sin theta - mu cos theta)."""
    mu = 0.5
    theta = np.arctan(ratio * mu)
    box = box_robot(gravity=(9.81 * np.sin(theta), 0.0, -9.81 * np.cos(theta)))
    q = neutral(box)
    q[2] = H / 2
    run = run_box(box, q, np.zeros(6), 0.5, [sole(mu)])
    t = run.t
    x = run.q[:, 0]
    if ratio < 1:
        assert np.abs(x).max() < 1e-9
    else:
        a = 9.81 * (np.sin(theta) - mu * np.cos(theta))
        # first-order time stepping: the slope of the velocity is exact
        assert np.isclose(run.qd[-1, 0] / t[-1], a, rtol=1e-3)
        assert np.isclose(x[-1], 0.5 * a * t[-1] ** 2, rtol=1e-2)
    assert np.abs(run.q[:, 2] - H / 2).max() < 1e-9      # it neither sinks nor hovers


def test_energy_does_not_grow_in_an_impact():
    box = box_robot()
    q = neutral(box)
    q[2] = H / 2 + 0.05
    qd = np.r_[0.5, 0.2, 0.0, 1.0, -2.0, 3.0]
    run = run_box(box, q, qd, 0.4, [sole(0.8)])
    E = np.array([energy(box, a, b) for a, b in zip(run.q, run.qd)])
    assert np.diff(E).max() < 1e-9
    assert E[-1] < E[0] - 0.1            # the impact is plastic
    assert run.q[:, 2].min() > H / 2 - 1e-3 * H  # through the corners, no deep penetration


def test_points_land_exactly_on_a_plane_and_boxes_are_obstacles():
    from robmod.description import Box

    box = box_robot()
    q = neutral(box)
    q[:3] = [0.0, 0.0, 0.5 + H / 2 + 0.01]
    table = Box((0, 0, 0.25), (1.0, 1.0, 0.5))
    run = run_box(box, q, np.zeros(6), 0.3, [sole()], environment=[ground(), table])
    assert np.isclose(run.q[-1, 2], 0.5 + H / 2, atol=1e-6)      # on the table
    assert len(unilateral_points([sole()])) == 4
    with pytest.raises(ArgumentError, match="environment"):
        contact_step(box, q, np.zeros(6), np.zeros(0), [sole()], environment=["floor"])
    s = contact_step(box, q, np.zeros(6), np.zeros(0), [ContactPoint(1, (0, 0, -H / 2))],
                     dt=1e-3, environment=Plane())
    assert not s.active.any() and np.isclose(s.qd[2], -9.81e-3)


def test_the_compiled_sweeps_are_the_numpy_ones():
    from robmod.dynamics.contact_kernel import pgs_kernel
    from robmod.symbolic import fastpath

    if pgs_kernel() is None:
        pytest.skip("no C compiler")
    rng = np.random.default_rng(3)
    J = rng.normal(size=(12, 18))
    G, c, mu = J @ J.T, rng.normal(size=12), np.array([0.3, 0.8, 0.5, 1.0])
    fast = solve_contacts(G, c, mu, tol=1e-14, max_iter=5000)
    old = fastpath.set_backend("numpy")
    try:
        slow = solve_contacts(G, c, mu, tol=1e-14, max_iter=5000)
    finally:
        fastpath.set_backend(old)
    assert abs(fast.iterations - slow.iterations) <= 2
    assert np.allclose(fast.impulses, slow.impulses, rtol=1e-9, atol=1e-12)


def test_the_compiled_step_against_a_plane_is_contact_steps():
    """The simulation's step against one plane (one C call from the Delassus model: the
    contacts found, their problem, the velocity and the configuration) gives contact_step's
    state and forces: a tilted box whose two corners touch, a slope, a fixed-base slider."""
    import sympy as sp

    from robmod.dynamics import ContactStepper
    from robmod.dynamics.contact_kernel import plane_kernel

    if plane_kernel() is None:
        pytest.skip("no C compiler")
    box = box_robot()
    q = neutral(box)
    q[2] = H / 2 + 1e-4
    q[3:7] = [np.cos(0.05), np.sin(0.05), 0.0, 0.0]         # tilted: two corners down
    qd = np.r_[0.3, -0.1, -0.2, 0.5, 0.0, 0.2]
    slider = make_robot("slider", [dict(j=1, ant=0, sigma=1, alpha=sp.pi / 2)],
                        links=[Link(j=1, M=1.0)], gravity=(0.0, 0.0, -9.81)).numeric()
    cases = [(box, q, qd, np.zeros(0), [sole(0.6)], Plane()),
             (box, q, qd, np.zeros(0), [sole(0.3)], Plane((0.1, 0.0, 1.0), (0, 0, -0.01))),
             (slider, np.array([0.0]), np.array([0.5]), np.array([2.0]),     # y = -q
              [ContactPoint(1, (0, 0, 0))], Plane((0.0, 1.0, 0.0), (0, 0, 0)))]
    for robot, q0, qd0, tau, contacts, plane in cases:
        stepper = ContactStepper(robot, contacts, environment=plane)
        x, v = q0, qd0
        for _ in range(20):
            ref = contact_step(robot, x, v, tau, contacts, environment=plane,
                               warm_start=stepper.forces)
            x, v = stepper.step(x, v, tau, 1e-3)
            assert np.allclose(x, ref.q, rtol=0, atol=1e-12)
            assert np.allclose(v, ref.qd, rtol=1e-9, atol=1e-12)
            assert np.allclose(stepper.forces, ref.forces, rtol=1e-8, atol=1e-9)
        assert ref.active.any()
