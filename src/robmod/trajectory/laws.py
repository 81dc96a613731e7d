"""Point-to-point motion in joint space (Khalil & Dombre §8.3).

Every law moves all joints along the same interpolation function r(t), 0 -> 1 (8.1):

    q(t) = q^i + r(t) D,   D = q^f - q^i

so that the joints start and finish together (synchronised, homothetic profiles).

* ``linear`` r = t/t_f; ``cubic`` r = 3 s^2 - 2 s^3 (8.6); ``quintic``
  r = 10 s^3 - 15 s^4 + 6 s^5 (8.8), s = t/t_f; ``bang-bang`` (§8.3.2, (8.15)-(8.17));
* the minimum time of each joint under its velocity and acceleration limits k_v, k_a is that of
  Table 8.1, and the motion lasts t_f = max_j t_fj (8.14);
* ``trapezoidal`` velocity (§8.3.3): acceleration phase of duration tau, cruise, deceleration.
  A joint reaches its k_v only if |D| > k_v^2 / k_a (8.18); otherwise its peak velocity is
  k'_v = sqrt(|D| k_a) (8.35).  All joints share tau (industrial controllers do so): with a
  reference joint r, lambda_r = min(1, min_j k_vj |D_r| / (k_vr |D_j|)),
  nu_r = min(1, min_j k_aj |D_r| / (k_ar |D_j|)) (8.34, minima over all joints after k_v
  is replaced by k'_v where it cannot be reached), tau = lambda_r k_vr / (nu_r k_ar) (8.33),
  t_f = tau + |D_r| / (lambda_r k_vr);
* ``continuous-acceleration`` (§8.3.4): second-degree acceleration blends of duration
  tau = 3/2 lambda k_v / (nu k_a) (8.41); cruise iff |D| > 3/2 k_v^2 / k_a (8.46), else
  k_v <- sqrt(2/3 |D| k_a) (8.47); the acceleration is continuous, its peak 3/2 lambda k_v/tau.

* ``jerk-limited``: the time-optimal seven-phase "double S" under velocity, acceleration and
  jerk limits (the constant-jerk variant of §8.3.4 made minimum-time), in
  :mod:`robmod.trajectory.s_curves`.

A longer ``duration`` than the minimum stretches the law in time (limits still hold).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..description.arguments import (checked_options, keyword_defaults, keyword_options,
                                     number_array)
from ..errors import ArgumentError, RobmodError
from .base import StraightLine, joint_vector, limit_vector, robot_limits
from .s_curves import JerkLimited, jerk_limited

LAWS = ("linear", "cubic", "quintic", "bang-bang", "trapezoidal", "continuous-acceleration")
JERK_LAW = "jerk-limited"     # also needs a jerk limit, qddd_max


# -- interpolation functions r(t) on [0, T] with their derivatives -----------------------------

def _polynomial(coeffs, T, t):
    """r = sum c_k s^k, s = t/T, and its derivatives in t."""
    s = t / T
    p = np.polynomial.Polynomial(coeffs)
    return (p(s), p.deriv(1)(s) / T, p.deriv(2)(s) / T ** 2, p.deriv(3)(s) / T ** 3)


_POLYNOMIALS = {"linear": [0, 1], "cubic": [0, 0, 3, -2], "quintic": [0, 0, 0, 10, -15, 6]}


def _blend(tau, T, t, start):
    """r of a law made of a start blend on [0, tau], a cruise at 1/(T - tau) and the mirrored
    blend on [T - tau, T]; ``start(u)`` gives (r, rd, rdd, rddd) of the start blend."""
    r, rd, rdd, rj = (np.zeros_like(t) for _ in range(4))
    a = t <= tau
    c = (t > tau) & (t < T - tau)
    e = t >= T - tau
    r[a], rd[a], rdd[a], rj[a] = start(t[a])
    r[c] = (2 * t[c] - tau) / (2 * (T - tau))
    rd[c] = 1.0 / (T - tau)
    u = T - t[e]
    r0, rd0, rdd0, rj0 = start(u)
    r[e], rd[e], rdd[e], rj[e] = 1.0 - r0, rd0, -rdd0, rj0
    return r, rd, rdd, rj


def _trapezoid(tau, T, t):
    """(8.19)-(8.21) normalised: r = t^2 / (2 tau (T - tau)) on [0, tau]."""
    k = 1.0 / (tau * (T - tau))
    return _blend(tau, T, t, lambda u: (0.5 * k * u ** 2, k * u, np.full_like(u, k),
                                        np.zeros_like(u)))


def _continuous(tau, T, t):
    """(8.42)-(8.44) normalised: r = (2 t^3/tau^2 - t^4/tau^3) / (2 (T - tau)) on [0, tau]."""
    c = 1.0 / (2 * (T - tau))
    return _blend(tau, T, t, lambda u: (c * (2 * u ** 3 / tau ** 2 - u ** 4 / tau ** 3),
                                        c * (6 * u ** 2 / tau ** 2 - 4 * u ** 3 / tau ** 3),
                                        c * (12 * u / tau ** 2 - 12 * u ** 2 / tau ** 3),
                                        c * (12 / tau ** 2 - 24 * u / tau ** 3)))


# -- minimum times ---------------------------------------------------------------------------

def minimum_time(law: str, D, qd_max, qdd_max) -> np.ndarray:
    """Minimum duration of each joint alone (Khalil & Dombre Table 8.1 and §8.3.3-8.3.4)."""
    D = np.abs(number_array(D, "D"))
    kv, ka = number_array(qd_max, "qd_max"), number_array(qdd_max, "qdd_max")
    if law == "linear":
        return D / kv
    if law == "cubic":
        return np.maximum(1.5 * D / kv, np.sqrt(6 * D / ka))
    if law == "quintic":
        return np.maximum(15 * D / (8 * kv), np.sqrt(10 * D / (np.sqrt(3) * ka)))
    if law == "bang-bang":
        return np.maximum(2 * D / kv, 2 * np.sqrt(D / ka))
    if law == "trapezoidal":
        return np.where(D > kv ** 2 / ka, kv / ka + D / np.where(kv > 0, kv, 1), 2 * np.sqrt(D / ka))
    if law == "continuous-acceleration":
        kv2 = _reachable_velocity(law, D, kv, ka)
        return np.where(D > 0, 1.5 * kv2 / ka + D / np.where(kv2 > 0, kv2, 1), 0.0)
    raise ArgumentError(f"law must be one of {', '.join(LAWS)}, got {law!r} (the jerk-limited law: "
                      f"minimum_time_jerk)")


def _reachable_velocity(law, D, kv, ka):
    """k_v, or the peak velocity a joint reaches without cruise ((8.35), (8.47))."""
    D = np.abs(D)
    if law == "trapezoidal":
        return np.where(D > kv ** 2 / ka, kv, np.sqrt(D * ka))
    return np.where(D > 1.5 * kv ** 2 / ka, kv, np.sqrt(2.0 / 3.0 * D * ka))


@dataclass(frozen=True)
class Synchronisation:
    """The shared blend time tau and duration t_f of (8.23)-(8.35) (or (8.36)-(8.47)), the
    reachable velocities k_v used and each joint's ratios lambda_j, nu_j (peak velocity
    lambda_j k_vj, acceleration nu_j k_aj)."""

    tau: float
    duration: float
    kv: np.ndarray
    lam: np.ndarray
    nu: np.ndarray
    reference: int


#: displacements up to this size (rad or m) are rounding noise, not a motion: the trajectory
#: holds its end from t = 0 (duration 0)
_NO_MOTION = 1e-12


def synchronise(law: str, D, qd_max, qdd_max) -> Synchronisation:
    """Homothetic synchronisation of a trapezoidal or continuous-acceleration motion."""
    D = number_array(D, "D")
    ka = number_array(qdd_max, "qdd_max")
    kv = _reachable_velocity(law, D, number_array(qd_max, "qd_max"), ka)
    aD = np.abs(D)
    moving = np.flatnonzero(aD > 1e-12 * aD.max()) if aD.size and aD.max() > _NO_MOTION else []
    if len(moving) == 0:
        return Synchronisation(0.0, 0.0, kv, np.zeros_like(D), np.zeros_like(D), -1)
    r = int(moving[np.argmax(aD[moving])])   # any moving joint works; the largest is best
    aD = np.where(np.isin(np.arange(D.size), moving), aD, 0.0)   # rounding noise: no motion
    lam_r = min(1.0, float(np.min(kv[moving] * aD[r] / (kv[r] * aD[moving]))))
    nu_r = min(1.0, float(np.min(ka[moving] * aD[r] / (ka[r] * aD[moving]))))
    tau = lam_r * kv[r] / (nu_r * ka[r])
    if law == "continuous-acceleration":
        tau *= 1.5
    T = tau + aD[r] / (lam_r * kv[r])
    lam, nu = np.zeros_like(aD), np.zeros_like(aD)
    lam[moving] = lam_r * kv[r] * aD[moving] / (aD[r] * kv[moving])
    nu[moving] = nu_r * ka[r] * aD[moving] / (aD[r] * ka[moving])
    return Synchronisation(float(tau), float(T), kv, lam, nu, r)


# -- the trajectory object -------------------------------------------------------------------

@dataclass(frozen=True)
class PointToPoint(StraightLine):
    """q(t) = q0 + r(t) (q1 - q0) for one of :data:`LAWS` (see the module's description)."""

    q0: np.ndarray
    q1: np.ndarray
    law: str
    duration: float
    tau: float = 0.0                      # blend time (trapezoidal, continuous, bang-bang)
    stretch: float = 1.0                  # duration / the law's own duration
    limits: tuple | None = None           # (qd_max, qdd_max) used
    sync: Synchronisation | None = None
    phases: tuple = field(default=())

    def _shape(self, t):
        T0 = self.duration / self.stretch
        u = t / self.stretch
        if self.duration == 0:
            z = np.zeros_like(t)
            return np.ones_like(t), z, z, z
        if self.law in _POLYNOMIALS:
            r = _polynomial(_POLYNOMIALS[self.law], T0, u)
        elif self.law == "continuous-acceleration":
            r = _continuous(self.tau, T0, u)
        else:
            r = _trapezoid(self.tau, T0, u)
        k = self.stretch
        return r[0], r[1] / k, r[2] / k ** 2, r[3] / k ** 3

    def _sample(self, t):
        r, rd, rdd, rj = self._shape(t)
        D = self.D
        return (self.q0 + r[:, None] * D, rd[:, None] * D, rdd[:, None] * D, rj[:, None] * D)


@keyword_options()
def point_to_point(q0, q1, law: str = "quintic", *, duration=None, qd_max=None, qdd_max=None,
                   qddd_max=None, robot=None) -> PointToPoint | JerkLimited:
    """A point-to-point motion from ``q0`` to ``q1`` (Khalil & Dombre §8.3).

    ``duration``: the motion's duration; with limits, at least the minimum one (a shorter one
    is refused).  ``qd_max``, ``qdd_max``: velocity and acceleration limits (scalars or one per
    joint), by default the robot's ``qdmax``/``qddmax``.  Without limits, ``duration`` is
    required (linear, cubic, quintic, bang-bang only).  ``qddd_max``: jerk limits, for the
    ``jerk-limited`` law only (required there).
    """
    if law not in LAWS and law != JERK_LAW:
        raise ArgumentError(f"law must be one of {', '.join(LAWS + (JERK_LAW,))}, got {law!r}")
    if qddd_max is not None and law != JERK_LAW:
        raise RobmodError(f"qddd_max: a jerk limit is used by the {JERK_LAW} law only, not {law}")
    q0 = joint_vector(q0, None, "q0")
    q1 = joint_vector(q1, q0.size, "q1")
    n = q0.size
    if robot is not None and (qd_max is None or qdd_max is None):
        rv, ra = robot_limits(robot, n)
        qd_max = rv if qd_max is None else qd_max
        qdd_max = ra if qdd_max is None else qdd_max
    if law == JERK_LAW:
        if qd_max is None or qdd_max is None or qddd_max is None:
            raise RobmodError(f"the {JERK_LAW} law needs qd_max, qdd_max (or a robot with limits) "
                              "and qddd_max")
        return jerk_limited(q0, q1, qd_max=qd_max, qdd_max=qdd_max, qddd_max=qddd_max,
                            duration=duration)
    if duration is not None:
        duration = float(duration)
        if not np.isfinite(duration) or duration <= 0:
            raise RobmodError(f"duration must be a positive time in s, got {duration}")
    D = q1 - q0
    limited = qd_max is not None or qdd_max is not None
    if not limited:
        if law in ("trapezoidal", "continuous-acceleration"):
            raise RobmodError(f"the {law} law needs qd_max and qdd_max (or a robot with limits)")
        if duration is None:
            raise RobmodError("give a duration, or velocity and acceleration limits")
        tau = duration / 2 if law == "bang-bang" else 0.0
        phases = (("start", 0.0), ("switch", tau), ("end", duration)) if tau else \
            (("start", 0.0), ("end", duration))
        return PointToPoint(q0, q1, law, duration, tau, 1.0, None, None, phases)
    kv = limit_vector(qd_max, n, "qd_max")
    ka = limit_vector(qdd_max, n, "qdd_max")
    if law in ("trapezoidal", "continuous-acceleration"):
        sync = synchronise(law, D, kv, ka)
        T, tau = sync.duration, sync.tau
    else:
        sync = None
        T = float(np.max(minimum_time(law, D, kv, ka))) if n else 0.0
        tau = T / 2 if law == "bang-bang" else 0.0
    if T < 1e-9 or not np.any(np.abs(D) > _NO_MOTION):   # no motion (rounding noise): hold q1
        T, tau = 0.0, 0.0
    stretch = 1.0
    if duration is not None:
        if duration < T * (1 - 1e-12):
            raise RobmodError(f"duration {duration:g} s is shorter than the minimum {T:.6g} s of "
                              f"the {law} law under these limits")
        stretch = duration / T if T > 0 else 1.0
        T = duration if T > 0 else 0.0
    if law in ("trapezoidal", "continuous-acceleration", "bang-bang") and T > 0:
        phases = (("acceleration", 0.0), ("cruise", tau * stretch),
                  ("deceleration", T - tau * stretch), ("end", T))
    else:
        phases = (("start", 0.0), ("end", T))
    return PointToPoint(q0, q1, law, T, tau, stretch, (kv, ka), sync, phases)


_LAW_OPTIONS = keyword_defaults(point_to_point, exclude=("qddd_max",))


@keyword_options(**_LAW_OPTIONS)
def quintic(q0, q1, **options) -> PointToPoint:
    """:func:`point_to_point` with the quintic law (8.8)."""
    return point_to_point(q0, q1, "quintic", **checked_options(quintic, options))


@keyword_options(**_LAW_OPTIONS)
def cubic(q0, q1, **options) -> PointToPoint:
    """:func:`point_to_point` with the cubic law (8.6)."""
    return point_to_point(q0, q1, "cubic", **checked_options(cubic, options))


@keyword_options(**_LAW_OPTIONS)
def trapezoidal(q0, q1, **options) -> PointToPoint:
    """:func:`point_to_point` with the trapezoidal velocity law (§8.3.3)."""
    return point_to_point(q0, q1, "trapezoidal", **checked_options(trapezoidal, options))


__all__ = ["LAWS", "JERK_LAW", "PointToPoint", "point_to_point", "Synchronisation", "synchronise",
           "minimum_time", "quintic", "cubic", "trapezoidal"]
