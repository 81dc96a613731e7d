"""Scenes: robots in contact with one another (a gripper holding a box, two free bodies
colliding), simulated by time stepping with the two-sided Delassus operator."""
import numpy as np
import pytest
import sympy as sp

from robmod.control import simulate
from robmod.description import (Box, ContactPoint, Link, Scene, Solid, ground, make_robot)
from robmod.dynamics import SceneStepper
from robmod.errors import ArgumentError

MU, MASS, SIDE, HEIGHT = 0.8, 0.2, 0.05, 0.3
G = 9.81


def free_box(mass=MASS, side=SIDE, gravity=(0.0, 0.0, -G), name="box"):
    I = mass * side ** 2 / 6
    return make_robot(name, [dict(j=1, ant=0, sigma=2, mu=0)], links=[Link(j=1)],
                      base="floating", gravity=gravity,
                      base_link=dict(M=mass, XX=I, YY=I, ZZ=I)).numeric()


def gripper():
    """Two fingers sliding along y (prismatic joints from frame 0), frame 0 at HEIGHT."""
    fingers = [dict(j=1, ant=0, sigma=1, alpha=-sp.pi / 2),
               dict(j=2, ant=0, sigma=1, alpha=sp.pi / 2)]
    Z = np.eye(4)
    Z[2, 3] = HEIGHT
    return make_robot("gripper", fingers, links=[Link(j=1, M=0.1), Link(j=2, M=0.1)],
                      gravity=(0, 0, -G), Z=Z.tolist()).numeric()


def grasp_scene(mu=MU):
    pads = [ContactPoint(j, (x, y, 0), friction=mu) for j in (1, 2) for x in (-0.01, 0.01)
            for y in (-0.01, 0.01)]
    corners = [ContactPoint(1, (x, y, -SIDE / 2), friction=0.5) for x in (-SIDE / 2, SIDE / 2)
               for y in (-SIDE / 2, SIDE / 2)]
    return Scene([gripper(), free_box()], contacts=[pads, corners],
                 solids=[(), [Solid(1, Box(size=(SIDE,) * 3))]], environment=[ground()])


def start():
    return np.r_[SIDE / 2, SIDE / 2, 0, 0, HEIGHT, 1, 0, 0, 0, np.zeros(2 + 6)]


def squeeze(force, open_at=np.inf):
    def law(t, q, qd):
        if t < open_at:
            return -force - 1.0 * qd[:2]
        return 40.0 * (0.05 - q[:2]) - 4.0 * qd[:2]
    return law


@pytest.fixture(scope="module")
def held():
    scene = grasp_scene()
    return scene, simulate(scene, squeeze(5.0, open_at=3.0), None, 3.6, x0=start())


def test_the_box_held_by_the_grasp_does_not_slip(held):
    scene, run = held
    fingers, box = scene.split(run.q)
    hold = run.t < 3.0
    assert np.abs(box[hold, :3] - [0, 0, HEIGHT]).max() < 1e-6        # 3 s held, no slip
    assert np.abs(box[hold, 3:] - [1, 0, 0, 0]).max() < 1e-6
    F = run.contact_forces[np.searchsorted(run.t, 2.0)]
    # each finger squeezes with 5 N, the fingers' friction carries the box's weight
    assert np.allclose(F[:4, 1].sum(), 5.0) and np.allclose(F[4:8, 1].sum(), -5.0)
    assert np.isclose(F[:8, 2].sum(), -MASS * G)
    assert np.all(np.hypot(F[:8, 0], F[:8, 2]) <= MU * np.abs(F[:8, 1]) + 1e-9)
    assert not F[8:].any()                                # the box's corners touch nothing


def test_the_box_drops_when_the_grip_opens(held):
    scene, run = held
    fingers, box = scene.split(run.q)
    assert fingers[-1] == pytest.approx([0.05, 0.05], abs=1e-3)
    assert box[-1, 2] == pytest.approx(SIDE / 2, abs=1e-4)      # on the ground
    assert not run.contact_forces[-1][:8].any()
    assert run.contact_forces[-1][8:, 2].sum() == pytest.approx(MASS * G, rel=1e-6)


def test_a_grip_too_weak_lets_the_box_slide_at_coulombs_rate():
    scene = grasp_scene()
    force = 0.5                                          # 2 mu N = 0.8 N < m g = 1.96 N
    run = simulate(scene, squeeze(force), None, 0.1, x0=start())
    box = scene.split(run.q)[1]
    a = G - 2 * MU * force / MASS
    assert box[-1, 2] == pytest.approx(HEIGHT - a * 0.1 ** 2 / 2, rel=2e-2)


def test_two_free_bodies_collide_with_their_momentum_kept():
    """A box's face points hit another free box off its centre (no gravity, no ground): the
    impulses are equal and opposite at the same points -- the linear and angular momenta are
    kept --, the impact is plastic (the points stop along the normal) and loses energy."""
    ma, mb = 1.0, 3.0
    a = free_box(ma, gravity=(0, 0, 0), name="a")
    b = free_box(mb, gravity=(0, 0, 0), name="b")
    face = [ContactPoint(1, (SIDE / 2, y, z), friction=0.3) for y in (-0.01, 0.005)
            for z in (-0.01, 0.01)]
    scene = Scene([a, b], contacts=[face, ()], solids=[(), [Solid(1, Box(size=(SIDE,) * 3))]],
                  environment=())
    q = np.r_[-SIDE, 0.01, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]
    qd = np.r_[1.0, 0.3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]      # no spin: a_free = 0
    step = SceneStepper(scene)
    _, after = step.step(q, qd, np.zeros(0), 1e-3)
    assert np.count_nonzero(step.forces[:, 0]) == 4

    def momenta(v):              # the bodies' frames are the world's before the step
        (va, vb), (ca, cb) = np.split(v, 2), (q[:3], q[7:10])
        p = ma * va[:3] + mb * vb[:3]
        L = ma * np.cross(ca, va[:3]) + mb * np.cross(cb, vb[:3]) + (
            ma * va[3:] + mb * vb[3:]) * SIDE ** 2 / 6
        e = (ma * va[:3] @ va[:3] + mb * vb[:3] @ vb[:3]
             + (ma * va[3:] @ va[3:] + mb * vb[3:] @ vb[3:]) * SIDE ** 2 / 6) / 2
        return p, L, e

    (p0, L0, e0), (p1, L1, e1) = momenta(qd), momenta(after)
    assert np.allclose(p1, p0, atol=1e-12) and np.allclose(L1, L0, atol=1e-12)
    assert e1 < e0
    va, vb = np.split(after, 2)
    for c in face:                         # plastic: no approach along the normal x
        x = q[:3] + np.array(c.point)
        rel = (va[:3] + np.cross(va[3:], x - q[:3])) - (vb[:3] + np.cross(vb[3:], x - q[7:10]))
        assert rel[0] == pytest.approx(0.0, abs=1e-8)


def test_what_a_scene_does_not_take_is_refused_by_name():
    box = free_box()
    mobile = make_robot("cart", [dict(j=1, ant=0, sigma=1)], links=[Link(j=1, M=1.0)],
                        base="mobile", gravity=(0, 0, -G)).numeric()
    with pytest.raises(ArgumentError, match="mobile base"):
        Scene([box, mobile])
    with pytest.raises(ArgumentError, match="one entry per robot"):
        Scene([box], contacts=[(), ()])
    with pytest.raises(ArgumentError, match="Solid"):
        Scene([box], solids=[[Box()]])
    with pytest.raises(ArgumentError, match="robots"):
        Scene([])
    scene = grasp_scene()
    with pytest.raises(ArgumentError, match="contacts="):
        simulate(scene, squeeze(1.0), None, 0.01, x0=start(), contacts=[])
    with pytest.raises(ArgumentError, match="noise"):
        simulate(scene, squeeze(1.0), None, 0.01, x0=start(), noise=(0.01, 0.0))
    with pytest.raises(ArgumentError, match="x0"):
        simulate(scene, squeeze(1.0), None, 0.01)
    with pytest.raises(ArgumentError, match="split"):
        scene.split(np.zeros(5))
    with pytest.raises(ArgumentError, match="frame"):
        SceneStepper(Scene([box], contacts=[[ContactPoint(3)]]))
