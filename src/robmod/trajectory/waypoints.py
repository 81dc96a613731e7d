"""Motion through via points with continuous velocity and acceleration (Khalil & Dombre §8.5).

A cubic spline per joint through the points q_0, ..., q_m at times t_0 = 0 < ... < t_m, at rest
at both ends (clamped): velocity and acceleration are continuous at every via point, the jerk
is piecewise constant.  Without times, each segment gets the minimum time of a trapezoidal
motion between its points; then, if a velocity or acceleration limit is still exceeded
anywhere (dense sampling), every time is stretched by the smallest factor that fits
(velocities scale as 1/k, accelerations as 1/k^2).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..description.arguments import keyword_options
from ..errors import RobmodError
from .base import Trajectory, limit_vector, via_point_rows
from .laws import minimum_time


@dataclass(frozen=True)
class ViaPoints(Trajectory):
    """A clamped cubic spline through ``points`` (m + 1, n) at ``knots`` (m + 1,)."""

    points: np.ndarray
    knots: np.ndarray
    limits: tuple | None = None

    @property
    def n(self) -> int:
        return self.points.shape[1]

    @property
    def duration(self) -> float:
        return float(self.knots[-1])

    @property
    def phases(self) -> tuple:
        return tuple((f"via {k}", float(t)) for k, t in enumerate(self.knots))

    @property
    def spline(self):
        from scipy.interpolate import CubicSpline

        return CubicSpline(self.knots, self.points, axis=0, bc_type="clamped")

    def _sample(self, t):
        s = self.spline
        return s(t), s(t, 1), s(t, 2), s(t, 3)


@keyword_options()
def via_points(points, times=None, *, qd_max=None, qdd_max=None, robot=None,
               method: str = "spline"):
    """The motion through ``points`` (m + 1 rows of n joint values).

    ``method="spline"`` (default): the clamped cubic spline through the points, at ``times``
    (m + 1 increasing values from 0) or timed from the limits; ``"blends"``: straight segments
    joined by parabolic blends (:mod:`.blends`, timed from the limits; the blends pass near
    the via points, not through them).
    """
    if method == "blends":
        if times is not None:
            raise RobmodError("via_points: method='blends' is timed by the limits; give no times")
        from .blends import via_blends

        return via_blends(points, qd_max=qd_max, qdd_max=qdd_max, robot=robot)
    if method != "spline":
        raise RobmodError(f"via_points: method must be 'spline' or 'blends', got {method!r}")
    P, qd_max, qdd_max = via_point_rows(points, qd_max, qdd_max, robot)
    n = P.shape[1]
    limits = None
    if qd_max is not None and qdd_max is not None:
        limits = (limit_vector(qd_max, n, "qd_max"), limit_vector(qdd_max, n, "qdd_max"))
    if times is None:
        if limits is None:
            raise RobmodError("give the times of the points, or velocity and acceleration limits")
        seg = [float(np.max(minimum_time("trapezoidal", b - a, *limits))) for a, b in
               zip(P[:-1], P[1:])]
        seg = [s if s > 0 else 1e-3 for s in seg]
        knots = np.concatenate([[0.0], np.cumsum(seg)])
    else:
        knots = np.asarray(times, dtype=float)
        if knots.shape != (P.shape[0],) or not np.all(np.isfinite(knots)):
            raise RobmodError(f"times: expected {P.shape[0]} finite values, got {np.shape(times)}")
        if knots[0] != 0 or np.any(np.diff(knots) <= 0):
            raise RobmodError("times must start at 0 and increase strictly")
    traj = ViaPoints(P, knots, limits)
    if limits is not None:
        t = np.linspace(0, traj.duration, 50 * P.shape[0] + 200)
        s = traj.sample(t)
        k = max(1.0, float(np.max(np.abs(s.qd) / limits[0])),
                float(np.sqrt(np.max(np.abs(s.qdd) / limits[1]))))
        if k > 1.0:
            if times is not None:
                raise RobmodError(f"the limits are exceeded with these times (a factor {k:.4g} "
                                  "slower would fit): give longer times or no times")
            traj = ViaPoints(P, knots * k * (1 + 1e-9), limits)
    return traj


__all__ = ["ViaPoints", "via_points"]
