"""Via points joined by straight lines with parabolic blends (trapezoid blends).

What industrial controllers do through via points (beyond Khalil & Dombre §8.5's pointer, the
trapezoidal law (8.18)-(8.22) of §8.3.3 extended to several points): each joint moves at
constant velocity v_k = (q_{k+1} - q_k)/T_k along segment k and changes velocity around via point
k with the constant acceleration ±k_a during a blend of duration
b_k = |v_k - v_{k-1}|/k_a centred on the via time; the motion starts and ends at rest, the
first and last blends are placed so that the straight segments still aim at q_0 and q_m:
at the ends, b_0 = T_0 - sqrt(T_0² - 2|q_1 - q_0|/k_a) and v_0 = (q_1 - q_0)/(T_0 - b_0/2)
(and symmetrically at the end).  The velocity is continuous, the acceleration is piecewise
constant within ±k_a, and the via points themselves are passed near, not through (the blends
cut the corners: the error at via point k is |v_k - v_{k-1}| b_k / 8).  All joints share the
segment durations T_k, the smallest such that every joint meets its limits.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import finite_array, keyword_options
from ..errors import ArgumentError, RobmodError
from .base import Trajectory, limit_vector, via_point_rows


def _plan(P, T, kv, ka):
    """Blend durations b (m+1, n), segment velocities v (m, n), accelerations a (m+1, n) for
    segment durations T (m,); None when a segment is too short for its blends or a velocity
    exceeds its limit."""
    D = np.diff(P, axis=0)                       # (m, n)
    m = D.shape[0]
    v = D / T[:, None]
    b = np.zeros((m + 1, P.shape[1]))
    a = np.zeros_like(b)
    if m == 1:
        # one segment: the trapezoid (8.18)-(8.22), D = v (T - b) with v = k_a b
        disc = T[0] ** 2 - 4 * np.abs(D[0]) / ka
        if np.any(disc < -1e-12 * T[0] ** 2):
            return None
        b[0] = b[1] = (T[0] - np.sqrt(np.maximum(disc, 0.0))) / 2
        v[0] = np.sign(D[0]) * ka * b[0]
        a[0], a[1] = np.sign(D[0]) * ka, -np.sign(D[0]) * ka
        if np.any(np.abs(v) > kv * (1 + 1e-12)):
            return None
        return b, v, a
    # first and last: blends from / to rest that keep the line aimed at q_0 / q_m
    for k, seg in ((0, 0), (m, m - 1)):
        d = D[seg]
        disc = T[seg] ** 2 - 2 * np.abs(d) / ka
        if np.any(disc < -1e-12 * T[seg] ** 2):
            return None
        bk = T[seg] - np.sqrt(np.maximum(disc, 0.0))
        b[k] = np.where(d != 0, bk, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            v[seg] = np.where(d != 0, d / (T[seg] - b[k] / 2), 0.0)
    a[0], a[m] = np.sign(v[0]) * ka, -np.sign(v[m - 1]) * ka
    for k in range(1, m):
        dv = v[k] - v[k - 1]
        a[k] = np.sign(dv) * ka
        b[k] = np.abs(dv) / ka
    # straight parts: segment k keeps T_k - b_k/2 - b_{k+1}/2 (the end blends lie wholly
    # inside their segment)
    lin = T[:, None] - b[1:] / 2 - b[:-1] / 2
    lin[0] -= b[0] / 2
    lin[-1] -= b[-1] / 2
    if np.any(lin < -1e-12 * T[:, None]) or np.any(np.abs(v) > kv * (1 + 1e-12)):
        return None
    return b, v, a


class ViaBlends(Trajectory):
    """Straight segments with parabolic blends through ``points`` (see the module)."""

    def __init__(self, points, T, kv, ka):
        points, T = finite_array("points", points), finite_array("T", T)
        kv, ka = finite_array("kv", kv), finite_array("ka", ka)
        if points.ndim != 2 or T.shape != (points.shape[0] - 1,):
            raise ArgumentError(f"ViaBlends: points (m + 1, n) and segment durations T (m,), "
                                f"got shapes {points.shape}, {T.shape}")
        self.points, self.T, self.limits = points, T, (kv, ka)
        self.b, self.v, self.a = _plan(points, T, kv, ka)
        self.knots = np.concatenate([[0.0], np.cumsum(T)])
        # the end blends lie inside the first and last segments: the via "times" of q_0 and
        # q_m are shifted so that the motion starts at 0 and ends at the last knot
        self.n = points.shape[1]
        self.duration = float(self.knots[-1])
        self.phases = tuple((f"via {k}", float(t)) for k, t in enumerate(self.knots))

    def _sample(self, t):
        P, v, a, b, knots = self.points, self.v, self.a, self.b, self.knots
        m = len(self.T)
        n = self.n
        tt = t[:, None]
        # the velocity profile: v_{k-1} -> v_k ramps centred on knots k (interior); the first
        # ramp starts at 0 and the last ends at the duration
        vel = np.concatenate([np.zeros((1, n)), v, np.zeros((1, n))])    # (m+2, n)
        centres = np.repeat(knots[:, None], n, axis=1)                  # per joint
        centres[0] = b[0] / 2
        centres[-1] = knots[-1] - b[-1] / 2
        qd = np.zeros((t.size, n))
        qdd = np.zeros((t.size, n))
        # q by integrating the piecewise-linear velocity: sum of ramp integrals
        q = np.broadcast_to(P[0], (t.size, n)).copy()
        for k in range(m + 1):
            lo = centres[k] - b[k] / 2
            hi = centres[k] + b[k] / 2
            dv = vel[k + 1] - vel[k]
            inside = (tt >= lo) & (tt < hi)
            after = tt >= hi
            s = np.clip(tt - lo, 0.0, b[k])                              # time into the ramp
            with np.errstate(divide="ignore", invalid="ignore"):
                frac = np.where(b[k] > 0, s / b[k], 0.0)
            qd += dv * frac
            qdd += np.where(inside, a[k], 0.0)
            # the ramp's integral from lo to t: s²/(2 b) inside, b/2 + (t - hi) after
            with np.errstate(divide="ignore", invalid="ignore"):
                ramp = np.where(b[k] > 0, s ** 2 / (2 * b[k]), 0.0)
            q += dv * (ramp + np.where(after, tt - hi, 0.0))
        jerk = np.zeros_like(q)     # impulses at the blends' ends are not represented
        return q, qd, qdd, jerk


@keyword_options()
def via_blends(points, *, qd_max=None, qdd_max=None, robot=None) -> ViaBlends:
    """Straight segments between ``points`` (m + 1 rows of n joint values) joined by parabolic
    blends, timed by the limits (the robot's by default): each segment's duration is the
    largest over the joints of |Δq|/k_v, then all are stretched until every blend fits."""
    P, qd_max, qdd_max = via_point_rows(points, qd_max, qdd_max, robot)
    n = P.shape[1]
    kv = limit_vector(qd_max, n, "qd_max")
    ka = limit_vector(qdd_max, n, "qdd_max")
    D = np.diff(P, axis=0)
    keep = np.concatenate([[True], np.any(np.abs(D) > 1e-12, axis=1)])
    P = P[keep]                                   # repeated points are one point
    if P.shape[0] < 2:
        raise RobmodError("points: all the points are the same: there is no motion")
    D = np.diff(P, axis=0)
    T = np.max(np.abs(D) / kv, axis=1)
    # blends need time: stretch every segment by a common factor until they fit
    lo, hi = 1.0, 2.0
    while _plan(P, T * hi, kv, ka) is None:
        hi *= 2.0
        if hi > 1e9:
            raise RobmodError("via_blends: the limits give no feasible timing")
    if _plan(P, T, kv, ka) is None:
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if _plan(P, T * mid, kv, ka) is None else (lo, mid)
        T = T * hi
    return ViaBlends(P, T, kv, ka)


__all__ = ["ViaBlends", "via_blends"]
