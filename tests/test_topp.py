"""Time-optimal path parameterization (TOPP-RA, Pham & Pham 2018): analytic minimum times,
toppra as the oracle, limits checked on the sampled motion with robmod's own IDM."""

import numpy as np
import pytest

import robmod
from robmod.dynamics import gravity_torques, idm
from robmod.dynamics.layout import joint_limit_vector
from robmod.errors import RobmodError
from robmod.testing.random import with_random_dynamics
from robmod.trajectory import (TimeOptimal, minimum_time, point_to_point, topp, via_points)


@pytest.fixture(scope="module")
def rx90():
    """RX-90 with random numeric dynamics (the library's RX-90 has symbolic inertias)."""
    return with_random_dynamics(robmod.load_robot("rx90").numeric(), np.random.default_rng(3))


@pytest.fixture(scope="module")
def panda():
    return robmod.load_robot("panda").numeric()


def rx90_case(rx90):
    W = np.random.default_rng(0).uniform(-1, 1, (5, 6)) * 0.8
    tau = np.abs(gravity_torques(rx90, W)).max(axis=0) * 1.5 + 5.0
    return W, dict(qd_max=np.full(6, 3.0), qdd_max=np.full(6, 10.0), tau_max=tau)


def panda_case(panda):
    """The Panda's own velocity and acceleration limits, 60 % of its torque limits (so that
    the torque of joint 2 binds)."""
    W = np.random.default_rng(0).uniform(-1, 1, (5, 7)) * 0.8
    W[:, 3] = -1.5 + 0.5 * W[:, 3]
    lim = {k: joint_limit_vector(panda, f) for k, f in
           (("qd_max", "qdmax"), ("qdd_max", "qddmax"), ("tau_max", "taumax"))}
    lim["tau_max"] = 0.6 * lim["tau_max"]
    return W, lim


CASES = {"rx90": rx90_case, "panda": panda_case}


def toppra_duration(robot, W, lim, N, discretization):
    """toppra on the same spline, grid, limits and scheme (robmod.testing.peers)."""
    pytest.importorskip("toppra")
    from robmod.testing.peers import toppra_parameterization

    return toppra_parameterization(robot, W, lim, N, discretization)


# -- analytic minimum times ------------------------------------------------------------------

def test_straight_line_acceleration_limits_only_is_bang_bang():
    """A straight line q = s D with only acceleration limits: s̈ = ±a, a = min_j k_aj / |D_j|;
    along the line (length L = |D|, acceleration a L) the minimum time is 2 sqrt(L / (a L))."""
    D = np.array([1.0, -0.5, 2.0])
    ka = np.array([2.0, 4.0, 1.0])
    L, a_eff = np.linalg.norm(D), np.min(ka / np.abs(D)) * np.linalg.norm(D)
    traj = topp([np.zeros(3), D], qdd_max=ka, grid=100)   # switch at s = 1/2: a grid point
    assert traj.duration == pytest.approx(2 * np.sqrt(L / a_eff), rel=1e-12)
    # = joint 3 alone (Table 8.1, bang-bang), the slowest joint
    assert traj.duration == pytest.approx(minimum_time("bang-bang", [2.0], [np.inf], [1.0])[0])
    # a grid whose points miss the switch: feasible, so never faster; first order in the step
    odd = topp([np.zeros(3), D], qdd_max=ka, grid=101)
    assert 0 <= odd.duration - traj.duration <= 2.0 / 101
    x = traj.sample(np.linspace(0, traj.duration, 2001))
    assert np.abs(x.qdd).max(axis=0) == pytest.approx(np.abs(D) * np.min(ka / np.abs(D)))
    assert np.all(np.abs(x.qdd) <= ka * (1 + 1e-12))


def test_straight_line_velocity_and_acceleration_is_trapezoidal():
    """With velocity limits: accelerate, cruise at v = min_j k_vj / |D_j| (in s), decelerate:
    T = 1/v + v/a = joint 3's trapezoidal minimum time (Khalil & Dombre (8.22))."""
    D = np.array([1.0, -0.5, 2.0])
    kv, ka = np.array([1.0, 2.0, 1.0]), np.array([2.0, 4.0, 2.0])
    traj = topp(np.array([np.zeros(3), D]), qd_max=kv, qdd_max=ka, grid=200)
    assert traj.duration == pytest.approx(2.5, rel=1e-9)
    assert traj.duration == pytest.approx(minimum_time("trapezoidal", [2.0], [1.0], [2.0])[0])
    x = traj.sample(np.linspace(0, traj.duration, 4001))
    np.testing.assert_allclose(np.abs(x.qd).max(axis=0), 0.5 * np.abs(D), rtol=1e-9)
    assert np.all(np.abs(x.qd) <= kv * (1 + 1e-9)) and np.all(np.abs(x.qdd) <= ka * (1 + 1e-9))
    np.testing.assert_allclose(x.q[-1], D, atol=1e-12)


# -- toppra as the oracle --------------------------------------------------------------------

@pytest.mark.parametrize("name", ["rx90", "panda"])
@pytest.mark.parametrize("discretization", ["collocation", "interpolation"])
def test_duration_and_profile_match_toppra(name, discretization, request):
    robot = request.getfixturevalue(name)
    W, lim = CASES[name](robot)
    traj = topp(W, robot, grid=200, discretization=discretization, **lim)
    duration, sd = toppra_duration(robot, W, lim, 200, discretization)
    assert traj.duration == pytest.approx(duration, rel=5e-3)
    assert traj.duration == pytest.approx(duration, rel=1e-4)   # measured: ~1e-6
    np.testing.assert_allclose(traj.sd, sd, atol=1e-3 * sd.max())


# -- limits on the sampled motion ------------------------------------------------------------

@pytest.mark.parametrize("name", ["rx90", "panda"])
def test_limits_hold_at_the_grid_with_robmods_idm(name, request):
    """At the grid times the sampled motion is the one TOPP-RA constrains (s̈ of the interval
    that starts there): torques recomputed by the NumPy Newton-Euler IDM are within the
    limits to rounding (1e-9 relative), and some limit binds everywhere (time-optimal)."""
    robot = request.getfixturevalue(name)
    W, lim = CASES[name](robot)
    traj = topp(W, robot, grid=200, **lim)
    x = traj.sample(traj.t[:-1])
    tau = idm(robot, x.q, x.qd, x.qdd, friction=False)
    assert np.all(np.abs(tau) <= lim["tau_max"] * (1 + 1e-9))
    assert np.all(np.abs(x.qd) <= lim["qd_max"] * (1 + 1e-9))
    assert np.all(np.abs(x.qdd) <= lim["qdd_max"] * (1 + 1e-9))
    use = traj.constraint_use()
    np.testing.assert_allclose(use.torque, np.abs(tau) / lim["tau_max"], rtol=1e-9, atol=1e-12)
    assert use.torque.max() == pytest.approx(1.0, abs=1e-9)   # the torque limits bind
    binding = np.max(np.hstack([use.velocity, use.acceleration, use.torque]), axis=1)
    assert np.mean(binding > 1 - 1e-6) > 0.5   # bang-bang: a limit is active on most stages


@pytest.mark.parametrize("name", ["rx90", "panda"])
def test_limits_between_grid_points_interpolation_is_second_order(name, request):
    """Between grid points nothing is imposed.  With the interpolation scheme each interval
    has the limits at both ends with the same s̈, so inside it the torque leaves its chord by
    at most Δs²/8 max|d²Γ/ds²|: the excess over the limit is O(Δs²), here < 5e-3 at 200
    intervals, and at least 3 times smaller at 400 (the velocity is imposed at the grid
    points only: same order).  Dense sampling, 20001 samples, NumPy IDM."""
    robot = request.getfixturevalue(name)
    W, lim = CASES[name](robot)
    excess = []
    for N in (200, 400):
        traj = topp(W, robot, grid=N, discretization="interpolation", **lim)
        x = traj.sample(np.linspace(0, traj.duration, 20001))
        tau = idm(robot, x.q, x.qd, x.qdd, friction=False)
        ratios = [np.abs(tau) / lim["tau_max"], np.abs(x.qd) / lim["qd_max"],
                  np.abs(x.qdd) / lim["qdd_max"]]
        excess.append(max(float(r.max()) for r in ratios) - 1.0)
    assert excess[0] < 5e-3
    assert excess[1] < max(excess[0] / 3, 1e-9)


def test_collocation_overshoots_only_near_zero_inertia_points(rx90):
    """Collocation lets s̈ chatter where a torque does not depend on s̈ (a_j(s) = 0, a
    zero-inertia point): the torque then exceeds its limit between grid points (first order
    in the step, here about twice the limit of joint 1 near s = 0.85); the interpolation
    scheme removes it (previous test)."""
    W, lim = rx90_case(rx90)
    traj = topp(W, rx90, grid=200, **lim)
    x = traj.sample(np.linspace(0, traj.duration, 20001))
    use = np.abs(idm(rx90, x.q, x.qd, x.qdd, friction=False)) / lim["tau_max"]
    k, j = np.unravel_index(np.argmax(use), use.shape)
    assert j == 0 and use[k, j] > 1.5
    s = traj.path_state(np.linspace(0, traj.duration, 20001))[0][k]
    grid = np.linspace(0, 1, 201)
    def f(q, qd, qdd):
        return idm(rx90.numeric(), q, qd, qdd, friction=False)

    q, dq = traj.path(grid, 1)
    a1 = (f(q, 0 * q, dq) - f(q, 0 * q, 0 * q))[:, 0]    # a(s) of joint 1
    crossing = grid[np.flatnonzero(np.diff(np.sign(a1)))]
    assert np.min(np.abs(crossing - s)) < 0.02


def test_rest_to_rest_and_path_following(panda):
    """At rest at both ends, the positions follow the path, s(t) increases from 0 to 1, and
    the velocities and accelerations are the time derivatives of the positions."""
    q0 = np.array([0.0, -0.5, 0.0, -2.0, 0.0, 1.5, 0.5])
    path = via_points([q0, q0 + 0.4, q0 + [1, 0.8, -0.5, 0.6, 1, -0.5, 1]], [0, 1, 2])
    traj = topp(path, panda, grid=150)
    assert isinstance(traj, TimeOptimal)
    assert traj.sd[0] == 0 and traj.sd[-1] == 0
    t = np.linspace(0, traj.duration, 30001)
    x = traj.sample(t)
    np.testing.assert_allclose(x.qd[[0, -1]], 0, atol=1e-12)
    np.testing.assert_allclose(x.q[[0, -1]], path.sample([0, 2]).q, atol=1e-12)
    s, sd, _ = traj.path_state(t)
    assert s[0] == 0 and s[-1] == pytest.approx(1) and np.all(np.diff(s) >= 0)
    np.testing.assert_allclose(x.q, path.sample(2 * s).q, atol=1e-12)
    h = t[1] - t[0]
    np.testing.assert_allclose(np.gradient(x.q, h, axis=0)[1:-1], x.qd[1:-1], atol=5e-4)
    # s̈ (so q̈) jumps at the grid times: compare where the stencil does not cross one
    k = np.searchsorted(traj.t, t)
    away = (np.abs(t - traj.t[np.clip(k, 0, len(traj.t) - 1)]) > 2 * h) & \
        (np.abs(t - traj.t[np.clip(k - 1, 0, len(traj.t) - 1)]) > 2 * h)
    away[[0, -1]] = False
    np.testing.assert_allclose(np.gradient(x.qd, h, axis=0)[away], x.qdd[away],
                               atol=1e-3 * np.abs(x.qdd).max())
    # jerk: the derivative of qdd inside the intervals (s̈ constant there)
    i = 40
    tt = np.linspace(traj.t[i], traj.t[i + 1], 11)[3:6]
    e = 1e-7
    fd = (traj.sample(tt + e).qdd - traj.sample(tt - e).qdd) / (2 * e)
    np.testing.assert_allclose(traj.sample(tt).qddd, fd, rtol=1e-5, atol=1e-5)
    # panda's own limits (no torque overshoot margin needed: torque does not bind here)
    use = traj.constraint_use()
    assert max(v.max() for v in use.peak().values()) <= 1 + 1e-9


def test_end_velocity_and_trajectory_paths(panda):
    q0 = np.array([0.0, -0.5, 0.0, -2.0, 0.0, 1.5, 0.5])
    line = point_to_point(q0, q0 + 0.5, "quintic", duration=1.0)    # q' = q'' = 0 at the ends
    traj = topp(line, panda, grid=100)
    assert traj.duration < 1.0            # faster than the quintic timing
    moving = topp([q0, q0 + 0.5], panda, grid=100, end_velocity=0.3)
    assert moving.sd[-1] == pytest.approx(0.3)
    assert moving.sample([moving.duration - 1e-12]).qd[0] == pytest.approx(0.15, rel=1e-6)
    with pytest.raises(RobmodError, match="end_velocity"):
        topp([q0, q0 + 0.5], panda, grid=100, end_velocity=50.0)
    with pytest.raises(RobmodError, match="start_velocity"):
        topp([q0, q0 + 0.5], panda, grid=100, start_velocity=50.0)


def test_compiled_kernel_and_numpy_passes_agree(rx90):
    W, lim = rx90_case(rx90)
    # a grid given by its values is the same grid
    np.testing.assert_array_equal(topp(W, rx90, grid=np.linspace(0, 1, 121), **lim).sd,
                                  topp(W, rx90, grid=120, **lim).sd)
    for disc in ("collocation", "interpolation"):
        a = topp(W, rx90, grid=120, discretization=disc, **lim)
        b = topp(W, rx90, grid=120, discretization=disc, compiled=False, **lim)
        # x = ṡ² (sqrt would magnify rounding where x ~ 0: collocation can stop the path
        # at a zero-inertia point)
        np.testing.assert_allclose(a.sd ** 2, b.sd ** 2, rtol=1e-9, atol=1e-13)
        np.testing.assert_allclose(a.sdd, b.sdd, rtol=1e-7, atol=1e-9 * np.abs(a.sdd).max())


# -- infeasible paths and bad input ----------------------------------------------------------

@pytest.mark.parametrize("compiled", [True, False])
def test_gravity_beyond_a_torque_limit_names_the_joint_and_s(panda, compiled):
    W, lim = panda_case(panda)
    lim["tau_max"] = lim["tau_max"] * 0.4 / 0.6
    with pytest.raises(RobmodError, match=r"at s = 0\.88 .*torque limit of joint 2 \(gravity "
                                          r"torque -39.4\d, alone beyond the limit 34.8\)"):
        topp(W, panda, grid=200, compiled=compiled, **lim)
    # a torque the path acceleration cannot change (q' = 0 at the start of a via-point path)
    path = via_points([W[0], W[2], W[4]], [0, 1, 2])
    with pytest.raises(RobmodError, match="at s = 0 .*joint 2 .*alone beyond.*even at rest"):
        topp(path, panda, tau_max=[87, 5, 87, 87, 12, 12, 12], grid=50, compiled=compiled)


@pytest.mark.parametrize("kw, match", [
    (dict(qdd_max=-1.0), "qdd_max must be positive"),
    (dict(qdd_max=[1.0, 2.0]), "qdd_max: expected a scalar or 7 values"),
    (dict(qd_max=np.nan), "qd_max must be positive"),
    (dict(tau_max="x"), "tau_max: expected a positive number"),
    (dict(grid=1), "grid: at least 2 intervals"),
    (dict(grid=[0, 0.5, 0.4, 1]), "grid: the values of s must increase"),
    (dict(grid=np.array([0, np.nan, 1.0])), "grid: expected at least 3 finite"),
    (dict(end_velocity=-1), "end_velocity: expected a path velocity"),
    (dict(start_velocity=np.inf), "start_velocity: expected a path velocity"),
    (dict(discretization="spline"), "discretization must be"),
])
def test_bad_input(panda, kw, match):
    q0 = np.array([0.0, -0.5, 0.0, -2.0, 0.0, 1.5, 0.5])
    with pytest.raises(RobmodError, match=match):
        topp([q0, q0 + 0.5], panda, **kw)


@pytest.mark.parametrize("path, kw, match", [
    (np.array([[0, np.nan], [1, 1]]), dict(qdd_max=1), "NaN or infinite"),
    (np.zeros((1, 3)), dict(qdd_max=1), "expected waypoints of shape"),
    ("abc", dict(qdd_max=1), "expected a robmod Trajectory or waypoints"),
    (np.zeros((3, 2)), dict(qdd_max=1), "does not move"),
    ([[0, 0], [1, 1]], dict(qd_max=1), "acceleration limit .* or a torque limit"),
    ([[0, 0], [1, 1]], dict(qdd_max=1, tau_max=3), "need the robot's dynamic model"),
])
def test_bad_paths_and_missing_limits(path, kw, match):
    with pytest.raises(RobmodError, match=match):
        topp(path, **kw)


def test_robot_checks(panda):
    with pytest.raises(RobmodError, match="robot has 7 joints, the path 6"):
        topp(np.zeros((2, 6)) + [[0], [1]], panda)
    import dataclasses
    from types import MappingProxyType

    symbolic = dataclasses.replace(robmod.load_robot("rx90"),   # lengths only: symbolic dynamics
                                   values=MappingProxyType({"D3": 0.45, "RL4": 0.45}))
    with pytest.raises(RobmodError, match="numeric robot"):
        topp(np.zeros((2, 6)) + [[0], [1]], symbolic, qdd_max=1, tau_max=10)
    # no torque limits: a symbolic robot is fine (its limits only)
    traj = topp(np.zeros((2, 6)) + [[0], [1]], symbolic, qdd_max=1, grid=10)
    assert traj.duration == pytest.approx(2.0)
    assert "peak use" in str(traj.constraint_use())


def test_the_compiled_idm_is_shared_by_content():
    """One compiled IDM per robot content (never by id(): a dead robot's id is reused)."""
    import dataclasses
    import gc

    from robmod.symbolic import fastpath

    key = ("idm", (("friction", False),))

    def compiled(robot):
        old = robmod.set_backend("compiled")
        try:
            out = idm(robot, q, q, q, friction=False)
        finally:
            robmod.set_backend(old)
        return fastpath.entry(robot, key).fn, out

    q = np.full(7, 0.3)
    a = robmod.load_robot("panda", numeric=True)
    f, tau = compiled(a)
    assert f is not None and compiled(robmod.load_robot("panda", numeric=True))[0] is f
    del a
    gc.collect()
    base = robmod.load_robot("panda", numeric=True)
    links = list(base.links)
    links[6] = dataclasses.replace(links[6], M=links[6].M + 1)
    heavier = dataclasses.replace(base, links=tuple(links))   # another content
    g, out = compiled(heavier)
    assert g is not f
    np.testing.assert_allclose(out, idm(heavier, q, q, q, friction=False), rtol=1e-12,
                               atol=1e-12)
    assert not np.allclose(out, tau)
