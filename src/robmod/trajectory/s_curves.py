"""Jerk-limited minimum-time point-to-point motion ("double S", seven phases).

The trapezoidal-acceleration law of Khalil & Dombre §8.3.4 (their Fig. 8.9b: constant-jerk
phases) made time-optimal: a joint moving |D| at rest at both ends under the limits k_v, k_a,
k_j (velocity, acceleration, jerk) follows the closed forms of Biagiotti & Melchiorri (2008,
§3.4, with zero initial and final velocities).  The jerk is +k_j, 0, -k_j, 0 (cruise), -k_j, 0,
+k_j; T_j is the duration of a jerk phase, T_a that of the whole acceleration (= deceleration),
T_v that of the cruise:

* k_a reached iff k_v k_j >= k_a^2: T_j = k_a/k_j, T_a = T_j + k_v/k_a; else
  T_j = sqrt(k_v/k_j), T_a = 2 T_j;
* k_v reached iff |D| >= k_v T_a: T_v = |D|/k_v - T_a, and T = T_a + |D|/k_v (with k_a reached
  too: T = |D|/k_v + k_v/k_a + k_a/k_j);
* otherwise no cruise; k_a still reached iff |D| >= 2 k_a^3/k_j^2: T_j = k_a/k_j,
  T_a = T_j/2 + sqrt(T_j^2/4 + |D|/k_a); else only the jerk limit acts:
  T_j = (|D|/(2 k_j))^(1/3), T_a = 2 T_j, T = 4 T_j.

Each time is the smallest one (the minimum time of the joint is T = 2 T_a + T_v).

**Synchronisation.**  All joints move along one normalised profile r(t), 0 -> 1 (8.1):
q(t) = q^i + r(t) D, a straight line in joint space (homothetic profiles, as in §8.3 for the
other laws, and as Ruckig's "phase synchronization" does for straight lines, Berscheid & Kröger
2021).  r is the double S of a unit distance under the limits min_j k_vj/|D_j|,
min_j k_aj/|D_j|, min_j k_jj/|D_j|: the fastest common profile with every joint within its
limits.  It is never faster than the slowest joint alone, and can be slower when the three
limits come from different joints; per-joint time synchronisation (each joint its own
seven-phase profile stretched to the common duration, Ruckig's default) is at most as long but
leaves the straight line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..description.arguments import broadcast, keyword_options, number_array
from ..errors import RobmodError
from .base import StraightLine, joint_vector, limit_vector


@dataclass(frozen=True)
class DoubleS:
    """The switching durations of rest-to-rest double-S profiles (arrays, one per joint, or
    floats): jerk phase T_j, acceleration T_a (= deceleration), cruise T_v, total
    T = 2 T_a + T_v; the peak velocity and acceleration reached, the jerk limit used."""

    Tj: np.ndarray
    Ta: np.ndarray
    Tv: np.ndarray
    T: np.ndarray
    v_peak: np.ndarray
    a_peak: np.ndarray
    jerk: np.ndarray


def double_s(D, v, a, jerk) -> DoubleS:
    """Closed-form double-S durations for distances |D| under limits v, a, ``jerk`` (arrays
    broadcast; Biagiotti & Melchiorri 2008, §3.4).  No input checks: see
    :func:`jerk_limited`."""
    D, v, a, j = broadcast(*(np.abs(number_array(x, name)) for x, name in
                             ((D, "D"), (v, "v"), (a, "a"), (jerk, "jerk"))))
    with np.errstate(divide="ignore", invalid="ignore"):
        # acceleration phase up to the velocity limit
        reach_a = v * j >= a * a
        Tj_v = np.where(reach_a, a / j, np.sqrt(v / j))
        Ta_v = np.where(reach_a, Tj_v + v / a, 2 * Tj_v)
        cruise = D >= v * Ta_v
        # no cruise: with or without the acceleration limit
        reach_a2 = D >= 2 * a ** 3 / (j * j)
        Tj_a = a / j
        Ta_a = 0.5 * Tj_a + np.sqrt(0.25 * Tj_a * Tj_a + D / a)
        Tj_j = np.cbrt(D / (2 * j))
        Tj = np.where(cruise, Tj_v, np.where(reach_a2, Tj_a, Tj_j))
        Ta = np.where(cruise, Ta_v, np.where(reach_a2, Ta_a, 2 * Tj_j))
        Tv = np.where(cruise, D / v - Ta_v, 0.0)
    Tv = np.maximum(Tv, 0.0)
    a_peak = j * Tj
    v_peak = a_peak * (Ta - Tj)
    return DoubleS(Tj, Ta, Tv, 2 * Ta + Tv, v_peak, a_peak, j)


def _unit_double_s(v: float, a: float, j: float) -> DoubleS:
    """:func:`double_s` of a unit distance for scalar limits (the same closed forms, in floats:
    the common profile of a synchronised motion is built in microseconds)."""
    if v * j >= a * a:
        Tj = a / j
        Ta = Tj + v / a
    else:
        Tj = math.sqrt(v / j)
        Ta = 2 * Tj
    if 1.0 >= v * Ta:
        Tv = max(1.0 / v - Ta, 0.0)
    elif 1.0 >= 2 * a ** 3 / (j * j):
        Tj = a / j
        Ta, Tv = 0.5 * Tj + math.sqrt(0.25 * Tj * Tj + 1.0 / a), 0.0
    else:
        Tj = math.cbrt(1.0 / (2 * j))
        Ta, Tv = 2 * Tj, 0.0
    a_peak = j * Tj
    return DoubleS(Tj, Ta, Tv, 2 * Ta + Tv, a_peak * (Ta - Tj), a_peak, j)


def minimum_time_jerk(D, qd_max, qdd_max, qddd_max) -> np.ndarray:
    """Minimum rest-to-rest time of each joint alone under velocity, acceleration and jerk
    limits (the double S of Biagiotti & Melchiorri 2008, §3.4)."""
    D = joint_vector(D, None, "D")
    n = D.size
    lim = [limit_vector(x, n, name) for x, name in
           ((qd_max, "qd_max"), (qdd_max, "qdd_max"), (qddd_max, "qddd_max"))]
    return double_s(D, *lim).T


def _unit_profile(Tj, Ta, Tv, J, t):
    """The unit double S (jerk J, phase durations Tj, Ta, Tv) at times t in [0, T]: the first
    half by pieces, the second half by the symmetry r(t) = 1 - r(T - t).  Returns the mask of
    the second half, then r (first half) or 1 - r (second half) and the three derivatives."""
    T = 2 * Ta + Tv
    second = t > 0.5 * T
    u = np.where(second, T - t, t)
    # states at the switching times of the first half: Tj, Ta - Tj, Ta
    A = J * Tj                                     # peak acceleration
    v1, p1 = 0.5 * J * Tj ** 2, J * Tj ** 3 / 6
    d2 = Ta - 2 * Tj                               # constant-acceleration duration
    v2, p2 = v1 + A * d2, p1 + v1 * d2 + 0.5 * A * d2 ** 2
    Vp = A * (Ta - Tj)                             # peak velocity
    p3 = 0.5 * Vp * Ta                             # position at the end of the acceleration
    k = np.searchsorted(np.array([Tj, Ta - Tj, Ta]), u, side="right")
    t0 = np.array([0.0, Tj, Ta - Tj, Ta])[k]
    p0 = np.array([0.0, p1, p2, p3])[k]
    w0 = np.array([0.0, v1, v2, Vp])[k]
    a0 = np.array([0.0, A, A, 0.0])[k]
    jk = np.array([J, 0.0, -J, 0.0])[k]
    s = u - t0
    r = p0 + s * (w0 + s * (0.5 * a0 + s * jk / 6))
    rd = w0 + s * (a0 + 0.5 * s * jk)
    rdd = a0 + s * jk
    # mirrored half: first derivative even, second odd, third even
    rdd = np.where(second, -rdd, rdd)
    return second, r, rd, rdd, jk


@dataclass(frozen=True)
class JerkLimited(StraightLine):
    """q(t) = q0 + r(t) (q1 - q0), r the minimum-time double S of the joints' common limits
    (see the module's description).  ``profile``: the :class:`DoubleS` of r (unit distance);
    ``limits``: (qd_max, qdd_max, qddd_max); ``joint_times``: each joint's own minimum time."""

    q0: np.ndarray
    q1: np.ndarray
    duration: float
    profile: DoubleS
    limits: tuple
    stretch: float = 1.0
    phases: tuple = field(default=())
    law: str = "jerk-limited"

    @property
    def joint_times(self) -> np.ndarray:
        return double_s(self.D, *self.limits).T

    def _sample(self, t):
        if self.duration == 0:
            z = np.zeros((t.size, self.n))
            return self.q1 + z, z, z.copy(), z.copy()
        p, k = self.profile, self.stretch
        second, r, rd, rdd, rj = _unit_profile(float(p.Tj), float(p.Ta), float(p.Tv),
                                               float(p.jerk), t / k)
        D = self.D
        q = np.multiply.outer(np.where(second, 1.0 - r, r), D)
        q += self.q0
        q[second & (r == 0.0)] = self.q1          # the end exactly (q0 + D may round)
        return (q, (rd / k)[:, None] * D, (rdd / k ** 2)[:, None] * D,
                (rj / k ** 3)[:, None] * D)


@keyword_options()
def jerk_limited(q0, q1, *, qd_max, qdd_max, qddd_max, duration=None) -> JerkLimited:
    """The synchronised jerk-limited minimum-time motion from ``q0`` to ``q1``.

    ``qd_max``, ``qdd_max``, ``qddd_max``: velocity, acceleration and jerk limits (scalars or one
    per joint).  ``duration``: a longer duration than the minimum stretches the motion in time
    (the limits still hold); a shorter one is refused.
    """
    q0 = joint_vector(q0, None, "q0")
    q1 = joint_vector(q1, q0.size, "q1")
    n = q0.size
    kv = limit_vector(qd_max, n, "qd_max")
    ka = limit_vector(qdd_max, n, "qdd_max")
    kj = limit_vector(qddd_max, n, "qddd_max")
    D = q1 - q0
    aD = np.abs(D)
    big = float(aD.max()) if n else 0.0
    if big == 0.0:
        prof = DoubleS(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
        T = 0.0
    else:
        # the common profile of r in [0, 1]: every joint's limit divided by its distance
        # (distances below 1e-12 of the largest are rounding noise: no limit of their own)
        moving = aD > 1e-12 * big
        V, A, Jr = (np.stack((kv, ka, kj))[:, moving] / aD[moving]).min(axis=1).tolist()
        prof = _unit_double_s(V, A, Jr)
        T = float(prof.T)
    stretch = 1.0
    if duration is not None:
        duration = float(duration)
        if not np.isfinite(duration) or duration <= 0:
            raise RobmodError(f"duration must be a positive time in s, got {duration}")
        if duration < T * (1 - 1e-12):
            raise RobmodError(f"duration {duration:g} s is shorter than the minimum {T:.6g} s of "
                              f"the jerk-limited law under these limits")
        if T > 0:
            stretch, T = duration / T, duration
    if T > 0:
        Tj, Ta, Tv = (float(x) * stretch for x in (prof.Tj, prof.Ta, prof.Tv))
        names = ("jerk+", "acceleration", "jerk-", "cruise", "jerk-", "deceleration", "jerk+")
        starts = (0.0, Tj, Ta - Tj, Ta, Ta + Tv, Ta + Tv + Tj, T - Tj)
        phases = tuple(zip(names, starts)) + (("end", T),)
    else:
        phases = (("start", 0.0), ("end", 0.0))
    return JerkLimited(q0, q1, T, prof, (kv, ka, kj), stretch, phases)


__all__ = ["JerkLimited", "jerk_limited", "DoubleS", "double_s", "minimum_time_jerk"]
