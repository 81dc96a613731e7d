"""The closed loop in C (robmod.control.compiled_loop) against the Python loop of simulate().

Each of robmod's controllers, each Coulomb mode, digital and continuous, noise, quantization,
delay, saturation, batches of initial states and of gains: the compiled run equals the Python
run to 1e-12 (the same operations in the same order: in practice to the last bit, but for the
vectorized sines of a batch).  What the compiled loop does not take falls back to Python.
"""
import dataclasses

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.control import (PID, AdaptivePassivity, ComputedTorque, OpenLoop, PassivityBased,
                            PDGravity, simulate)
from robmod.control import compiled_loop
from robmod.errors import RobmodError


@pytest.fixture(scope="module")
def planar():
    """planar2 with viscous, Coulomb and Stribeck friction (7.26), as real joints have."""
    robot = robmod.load_robot("planar2").numeric()
    links = tuple(dataclasses.replace(link, FV=sp.Float(0.8), FC=sp.Float(1.5),
                                      FST=sp.Float(2.0) if link.j == 1 else sp.Integer(0),
                                      BST=sp.Float(20.0)) for link in robot.links)
    return dataclasses.replace(robot, links=links)


@pytest.fixture(scope="module")
def rx90():
    return robmod.load_robot("rx90").numeric()


def ref2(t):
    t = np.asarray(t, float)[..., None]
    w = np.array([1.3, 2.1])
    return 0.5 * np.sin(w * t), 0.5 * w * np.cos(w * t), -0.5 * w ** 2 * np.sin(w * t)


def spy_on_the_compiled_loop(monkeypatch):
    """A list that gets, per simulate call, whether the compiled loop took the run."""
    taken = []
    original = compiled_loop.run_compiled

    def spy(*a, **k):
        out = original(*a, **k)
        taken.append(out is not None)
        return out
    monkeypatch.setattr("robmod.control.simulation.run_compiled", spy)
    return taken


def both(monkeypatch, robot, ctrl, ref, duration, **kw):
    """(Python run, compiled run), checking that the compiled loop took the second."""
    monkeypatch.setenv("ROBMOD_COMPILED_LOOP", "0")
    slow = simulate(robot, ctrl, ref, duration, **kw)
    monkeypatch.setenv("ROBMOD_COMPILED_LOOP", "1")
    taken = spy_on_the_compiled_loop(monkeypatch)
    fast = simulate(robot, ctrl, ref, duration, **kw)
    assert taken == [True]
    return slow, fast


def assert_same(a, b, tol=1e-12):
    for k in ("q", "qd", "tau", "controller_state"):
        x, y = getattr(a, k), getattr(b, k)
        assert x.shape == y.shape, k
        scale = max(1.0, float(np.abs(x).max())) if x.size else 1.0
        assert np.abs(x - y).max(initial=0.0) <= tol * scale, k


@pytest.mark.parametrize("make", [
    lambda r: PID(r, [400.0, 200.0], [40.0, 20.0], [800.0, 300.0], integral_band=(1e-4, 0.2),
                  gravity=True),
    lambda r: PID.for_joints(2, 400.0, 40.0, 100.0),
    lambda r: PDGravity(r, 400.0, 40.0),
    lambda r: PDGravity(r, 400.0, 40.0, at_desired=True),
    lambda r: ComputedTorque(r, omega=15.0),
    lambda r: ComputedTorque(r, omega=15.0, coulomb="measured"),
    lambda r: ComputedTorque(r, omega=15.0, coulomb="smooth", coulomb_width=0.05),
    lambda r: ComputedTorque(r, omega=15.0, mode="predictive"),
    lambda r: ComputedTorque(r, omega=15.0, mode="position"),
    lambda r: PassivityBased(r, 10.0, 30.0),
    lambda r: PassivityBased(r, 10.0, 30.0, coulomb="smooth"),
], ids=["pid-gravity-band-antiwindup", "pid-n", "pd-gravity", "pd-gravity-desired",
        "ct-desired", "ct-measured", "ct-smooth", "ct-predictive", "ct-position", "pbc",
        "pbc-smooth"])
def test_each_controller_equals_the_python_loop(monkeypatch, planar, make):
    slow, fast = both(monkeypatch, planar, make(planar), ref2, 0.3, x0=[0.1, -0.1, 0.0, 0.0])
    assert_same(slow, fast)
    assert np.abs(fast.q).max() > 0.05       # it moved


def test_adaptive_control_equals_the_python_loop(monkeypatch, planar):
    wrong = dataclasses.replace(planar, links=tuple(dataclasses.replace(
        link, **{k: sp.Float(1.1 * float(getattr(link, k))) for k in ("M", "MX", "YY", "ZZ")})
        for link in planar.links))
    for coulomb in ("desired", "smooth"):
        ctrl = AdaptivePassivity(wrong, lam=10.0, kd=50.0, adaptation=5.0, coulomb=coulomb)
        slow, fast = both(monkeypatch, planar, ctrl, ref2, 0.3)
        assert_same(slow, fast)
        assert np.abs(fast.controller_state - ctrl.chi0).max() > 1e-6   # it adapted


def test_continuous_law_noise_quantization_delay_saturation(monkeypatch, planar):
    ctrl = ComputedTorque(planar, omega=15.0, dt=0.0)
    assert_same(*both(monkeypatch, planar, ctrl, ref2, 0.2, step=2e-3))
    pid = PID(planar, 400.0, 40.0, 200.0, dt=0.0, tau_max=[5.0, 5.0])
    assert_same(*both(monkeypatch, planar, pid, ref2, 0.2, saturation=[3.0, 2.0]))
    ct = ComputedTorque(planar, omega=15.0)
    slow, fast = both(monkeypatch, planar, ct, ref2, 0.3, noise=(1e-3, 1e-2),
                      quantization=(2 * np.pi / 2 ** 14, 1e-3), delay=3, substeps=2, seed=7)
    assert_same(slow, fast)
    clean = simulate(planar, ct, ref2, 0.3)
    assert np.abs(clean.q - fast.q).max() > 1e-6    # the noise was there
    slow, fast = both(monkeypatch, planar, ct, ref2, 0.3, noise=(0.0, 1e-2), saturation=[2, 1])
    assert_same(slow, fast)
    assert np.abs(fast.tau).max() == pytest.approx(2.0)


def test_batches_of_initial_states_and_gain_sets(monkeypatch, rx90):
    rng = np.random.default_rng(0)
    x0 = np.zeros((5, 12))
    x0[:, :6] = rng.uniform(-0.2, 0.2, (5, 6))
    ref = np.full(6, 0.3)
    ct = ComputedTorque(rx90, omega=10.0)
    assert_same(*both(monkeypatch, rx90, ct, ref, 0.2, x0=x0))
    gains = ComputedTorque(rx90, kp=rng.uniform(50, 400, (3, 70, 6)), kd=20.0)
    slow, fast = both(monkeypatch, rx90, gains, ref, 0.1)
    assert fast.q.shape == (101, 3, 70, 6)
    assert_same(slow, fast)


def test_what_the_compiled_loop_does_not_take_runs_in_python(monkeypatch, planar):
    class Mine(PDGravity):                       # a user's law: its output may differ
        def output(self, t, q, qd, ref, z):
            return super().output(t, q, qd, ref, z) + 0.1

    taken = []
    original = compiled_loop.run_compiled
    monkeypatch.setattr("robmod.control.simulation.run_compiled",
                        lambda *a, **k: taken.append(original(*a, **k)) or taken[-1])
    res = simulate(planar, Mine(planar, 100.0, 10.0), [0.2, 0.1], 0.05)
    simulate(planar, OpenLoop(lambda t: np.zeros(2), 2, dt=1e-3), [0.0, 0.0], 0.05)
    assert taken == [None, None]
    assert np.allclose(res.tau[0], Mine(planar, 100.0, 10.0)(0.0, res.q[0], res.qd[0],
                                                            res_ref(res)))
    # a blow-up is given back to the Python loop, whose error names the joint and the time
    stiff = PID(planar, kp=1e9, kd=1e7, dt=1e-2)
    with pytest.raises(RobmodError, match=r"diverged at t = .* on joint"):
        simulate(planar, stiff, [0.5, 0.5], 1.0, x0=np.zeros(4), saturation=False)
    assert taken[-1] is None


def test_a_loop_is_compiled_when_it_pays_and_reused_from_disk(monkeypatch, planar, tmp_path):
    """Auto: a short run keeps the Python loop; a long one (or one compiled before, by any
    process: the index on disk) takes the compiled loop."""
    monkeypatch.delenv("ROBMOD_COMPILED_LOOP", raising=False)
    monkeypatch.setenv("ROBMOD_CACHE", str(tmp_path))      # nothing compiled yet
    monkeypatch.setattr(compiled_loop, "_LOOPS", {})
    ctrl = PDGravity(planar, 300.0, 30.0, at_desired=True)
    taken = spy_on_the_compiled_loop(monkeypatch)
    simulate(planar, ctrl, [0.2, 0.1], 0.05)
    assert taken == [False]
    long_run = simulate(planar, ctrl, [0.2, 0.1], 1.0, substeps=1, x0=np.zeros((2, 4)))
    assert taken == [False, False]                        # 1,000 steps: not worth it
    monkeypatch.setattr(compiled_loop, "WORTH_COMPILING", 500)
    again = simulate(planar, ctrl, [0.2, 0.1], 1.0, x0=np.zeros((2, 4)))
    assert taken[-1] is True and np.array_equal(again.q, long_run.q)
    compiled_loop._LOOPS.clear()                          # a new process: the index on disk
    monkeypatch.setattr(compiled_loop, "WORTH_COMPILING", 10 ** 9)
    simulate(planar, ctrl, [0.2, 0.1], 0.05)
    assert taken[-1] is True


def res_ref(res):
    from robmod.kinematics import Sample

    return Sample(res.q_des[0], res.qd_des[0], res.qdd_des[0])


def test_parameter_sets_are_the_runs_of_each_plant(monkeypatch, rx90):
    """simulate(..., parameters=): one compiled loop for every payload mass and friction value
    (the DDM customized with M6 and FV2 as symbols) equals a run per plant robot."""
    robot = dataclasses.replace(rx90, links=tuple(dataclasses.replace(link, FC=sp.Integer(0))
                                                  for link in rx90.links))
    ct = ComputedTorque(robot, kp=[[100.0] * 6, [200.0] * 6, [400.0] * 6], kd=30.0)
    sets = {"M6": [0.5, 1.5, 3.0], "FV2": [5.0, 10.0, 20.0]}
    monkeypatch.setenv("ROBMOD_COMPILED_LOOP", "1")
    taken = spy_on_the_compiled_loop(monkeypatch)
    res = simulate(robot, ct, np.full(6, 0.3), 0.2, parameters=sets)
    assert taken == [True] and res.q.shape == (201, 3, 6)
    for b in range(3):
        plant = dataclasses.replace(robot, links=tuple(
            dataclasses.replace(link, M=sp.Float(sets["M6"][b])) if link.j == 6 else
            dataclasses.replace(link, FV=sp.Float(sets["FV2"][b])) if link.j == 2 else link
            for link in robot.links))
        one = simulate(plant, ComputedTorque(robot, kp=ct.kp[b], kd=30.0), np.full(6, 0.3), 0.2)
        np.testing.assert_allclose(res.q[:, b], one.q, atol=1e-12)
        np.testing.assert_allclose(res.tau[:, b], one.tau, rtol=1e-12, atol=1e-11)
    assert np.abs(res.q[-1, 0] - res.q[-1, 2]).max() > 1e-6     # the plants differ
    # a controller written in Python: one simulate per set, the same results
    class Mine(PDGravity):
        pass
    mine = simulate(robot, Mine(robot, 400.0, 40.0), np.full(6, 0.3), 0.05,
                    parameters={"M6": [0.5, 3.0]})
    assert mine.q.shape == (51, 2, 6) and np.abs(mine.q[-1, 0] - mine.q[-1, 1]).max() > 0
    with pytest.raises(RobmodError, match="not a link parameter"):
        simulate(robot, ct, np.zeros(6), 0.1, parameters={"M9": [1.0]})
    with pytest.raises(RobmodError, match="one per parameter set"):
        simulate(robot, ct, np.zeros(6), 0.1, parameters={"M6": [1.0, 2.0]})
    # a function of the state: a run per set, as a controller written in Python
    law = simulate(robot, lambda t, q, qd: -100.0 * q - 10.0 * qd, None, 0.02,
                   x0=np.full(12, 0.1), parameters={"M6": [0.5, 3.0]}, saturation=False)
    assert law.q.shape == (21, 2, 6) and np.abs(law.q[-1, 0] - law.q[-1, 1]).max() > 0


def test_record_every_keeps_the_samples_of_the_full_run(monkeypatch, planar, rx90):
    """record_every=k: t[::k] and the full run's samples at those times, on both paths, for a
    digital law with noise and delay, a continuous one and a batch of gain sets; a run that
    does not end on a kept sample keeps t = 0, k, 2k, ...; wrong values are refused."""
    ct = ComputedTorque(planar, omega=15.0)
    opts = dict(noise=(1e-3, 1e-2), delay=2, substeps=2, seed=3)
    full = simulate(planar, ct, ref2, 0.3, **opts)
    for k in (1, 7, 10):
        slow, fast = both(monkeypatch, planar, ct, ref2, 0.3, record_every=k, **opts)
        assert_same(slow, fast)
        assert fast.t.shape == (len(range(0, 301, k)),)
        np.testing.assert_allclose(fast.t, full.t[::k])
        for name in ("q", "qd", "tau"):
            assert np.abs(getattr(fast, name) - getattr(full, name)[::k]).max() <= 1e-12
        np.testing.assert_allclose(fast.reference.q, full.reference.q[::k])
    cont = ComputedTorque(planar, omega=15.0, dt=0.0)
    slow, fast = both(monkeypatch, planar, cont, ref2, 0.2, step=2e-3, record_every=4)
    assert_same(slow, fast)
    assert np.abs(fast.q - simulate(planar, cont, ref2, 0.2, step=2e-3).q[::4]).max() < 1e-12
    gains = ComputedTorque(rx90, kp=np.random.default_rng(1).uniform(50, 400, (70, 6)), kd=20.0)
    slow, fast = both(monkeypatch, rx90, gains, np.full(6, 0.3), 0.1, record_every=25)
    assert fast.q.shape == (5, 70, 6)
    assert_same(slow, fast)
    for bad in (0, -1, 2.5, True, 301, "10"):
        with pytest.raises(RobmodError, match="record_every"):
            simulate(planar, ct, ref2, 0.3, record_every=bad)


@pytest.fixture(scope="module")
def space_arm():
    """A 4-joint tree on a 50 kg satellite, under gravity (free fall): a floating robot."""
    from test_floating_simulation import space_arm as arm

    return arm((0.0, 0.0, -9.81))


@pytest.mark.parametrize("make, opts", [
    (lambda r: PID(r, 80.0, 15.0, 20.0, gravity=True),
     dict(noise=(1e-4, 1e-3), quantization=(1e-5, 0.0), delay=1)),
    (lambda r: PDGravity(r, 80.0, 15.0, at_desired=True), {}),
    (lambda r: ComputedTorque(r, omega=12.0, dt=0.0), dict(step=2e-3)),
    (lambda r: PassivityBased(r, 8.0, 30.0), dict(substeps=2)),
], ids=["pid-noise-delay", "pd-gravity-desired", "computed-torque-continuous", "passivity"])
def test_a_floating_robot_in_the_compiled_loop(monkeypatch, space_arm, make, opts):
    """A floating robot's closed loop in C: the free-floating models of the law, the plant's
    free-floating direct model, Munthe-Kaas's RK4 on SE(3) written operation for operation as
    the NumPy path: the same numbers (to the last bit, in practice)."""
    from test_floating_simulation import start

    n = space_arm.n_q
    x0, _ = start(space_arm, 2)
    from robmod.trajectory import point_to_point

    ref = point_to_point(x0[7:7 + n], x0[7:7 + n] + 0.4, "quintic", duration=0.15)
    slow, fast = both(monkeypatch, space_arm, make(space_arm), ref, 0.2, x0=x0,
                      saturation=False, **opts)
    assert fast.q.shape[-1] == 7 + n and fast.qd.shape[-1] == 6 + n
    assert_same(slow, fast)
    assert np.abs(fast.q[-1, :3] - fast.q[0, :3]).max() > 0.05          # it fell


def test_a_floating_robot_s_gain_sets_and_parameter_sets(monkeypatch, space_arm):
    from test_floating_simulation import start

    n = space_arm.n_q
    x0, _ = start(space_arm, 2)
    gains = ComputedTorque(space_arm, kp=np.linspace(50, 200, 70)[:, None] * np.ones(n),
                           kd=20.0)
    slow, fast = both(monkeypatch, space_arm, gains, np.full(n, 0.3), 0.05, x0=x0,
                      saturation=False)
    assert fast.q.shape == (51, 70, 7 + n)
    assert_same(slow, fast)
    sets = {"M2": [0.5, 2.0, 4.0]}
    taken = spy_on_the_compiled_loop(monkeypatch)
    res = simulate(space_arm, gains := ComputedTorque(space_arm, omega=10.0), np.full(n, 0.3),
                   0.05, x0=x0, parameters=sets, saturation=False)
    assert taken == [True] and res.q.shape == (51, 3, 7 + n)
    for b, mass in enumerate(sets["M2"]):
        plant = dataclasses.replace(space_arm, links=tuple(
            dataclasses.replace(link, M=sp.Float(mass)) if link.j == 2 else link
            for link in space_arm.links))
        one = simulate(plant, gains, np.full(n, 0.3), 0.05, x0=x0, saturation=False)
        np.testing.assert_allclose(res.q[:, b], one.q, atol=1e-12)
