"""Via points joined by straight lines with parabolic blends (robmod.trajectory.blends)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robmod.errors import RobmodError
from robmod.trajectory import via_points


def _dense(traj, k=100001):
    t = np.linspace(0, traj.duration, k)
    return t, traj.sample(t)


def test_one_segment_is_the_trapezoid():
    """D = 1, k_v = 1, k_a = 2: tau = 0.5, t_f = 1.5 (Khalil & Dombre (8.20)-(8.22))."""
    tr = via_points([[0.0], [1.0]], qd_max=1.0, qdd_max=2.0, method="blends")
    assert tr.duration == pytest.approx(1.5, rel=1e-9)
    x = tr.sample(np.array([0.25, 0.5, 1.0, 1.5]))
    assert x.q.ravel() == pytest.approx([0.0625, 0.25, 0.75, 1.0], abs=1e-9)


def test_segments_aim_at_the_via_points_and_limits_hold():
    P = np.array([[0.0, 0.0, 0.3], [1.0, 0.5, 0.3], [1.5, -0.5, 0.8], [2.0, 0.0, -0.2]])
    kv, ka = np.array([1.0, 1.0, 2.0]), np.array([2.0, 3.0, 4.0])
    tr = via_points(P, qd_max=kv, qdd_max=ka, method="blends")
    t, x = _dense(tr)
    assert np.all(np.abs(x.qd) <= kv * (1 + 1e-9))
    assert np.all(np.abs(x.qdd) <= ka * (1 + 1e-9))
    assert np.allclose(x.q[0], P[0], atol=1e-12) and np.allclose(x.q[-1], P[-1], atol=1e-9)
    assert np.allclose(x.qd[[0, -1]], 0, atol=1e-9)
    # q̇ is q's derivative and q̈ is q̇'s (away from the blend switches)
    assert np.abs(np.gradient(x.q, t, axis=0) - x.qd).max() < 1e-3
    # each straight part lies on the line through q_k and q_k+1 at the knot times
    knots = tr.knots
    for k in range(len(P) - 1):
        for j in range(P.shape[1]):
            lo = knots[k] + tr.b[k, j] / 2 + (tr.b[k, j] / 2 if k == 0 else 0)
            hi = knots[k + 1] - tr.b[k + 1, j] / 2 - (tr.b[k + 1, j] / 2 if k == len(P) - 2
                                                      else 0)
            sel = (t > lo + 1e-9) & (t < hi - 1e-9)
            if sel.any():
                line = P[k, j] + (P[k + 1, j] - P[k, j]) * (t[sel] - knots[k]) / tr.T[k] \
                    if 0 < k < len(P) - 2 else None
                if line is not None:
                    assert np.allclose(x.q[sel, j], line, atol=1e-9)
                assert np.allclose(x.qdd[sel, j], 0)
    # the blends cut the corners: |error| = |v_k - v_k-1| b_k / 8 at an interior via point
    j = 1
    err = abs(tr.sample(np.array([knots[1]])).q[0, j] - P[1, j])
    assert err == pytest.approx(abs(tr.v[1, j] - tr.v[0, j]) * tr.b[1, j] / 8, rel=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(1, 3), st.integers(0, 10**6))
def test_random_via_points_respect_limits(m, n, seed):
    rng = np.random.default_rng(seed)
    P = np.cumsum(rng.uniform(-1, 1, (m, n)), axis=0)
    kv, ka = rng.uniform(0.2, 3, n), rng.uniform(0.5, 10, n)
    tr = via_points(P, qd_max=kv, qdd_max=ka, method="blends")
    t, x = _dense(tr, 20001)
    assert np.all(np.abs(x.qd) <= kv * (1 + 1e-9))
    assert np.all(np.abs(x.qdd) <= ka * (1 + 1e-9))
    assert np.allclose(x.q[-1], P[-1], atol=1e-8)


def test_bad_input():
    with pytest.raises(RobmodError, match="give no times"):
        via_points([[0], [1]], [0, 1], qd_max=1, qdd_max=1, method="blends")
    with pytest.raises(RobmodError, match="method"):
        via_points([[0], [1]], qd_max=1, qdd_max=1, method="bezier")
    with pytest.raises(RobmodError, match="qd_max"):
        via_points([[0], [1]], qd_max=-1, qdd_max=1, method="blends")
    with pytest.raises(RobmodError, match="same"):
        via_points([[1], [1]], qd_max=1, qdd_max=1, method="blends")
