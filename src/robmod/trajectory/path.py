"""Geometric paths q(s), s in [0, 1], with their derivatives in s (input of :func:`topp`).

* a robmod :class:`~robmod.trajectory.base.Trajectory` of duration T, with s = t / T:
  q'(s) = T q̇, q''(s) = T² q̈, q'''(s) = T³ (jerk) by the chain rule;
* waypoints ((m + 1) rows of n joint values): a cubic spline per joint through them at
  s_k = k / m (SciPy's CubicSpline, not-a-knot ends; two points give the straight line).
"""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentError
from .base import Trajectory


class JointPath:
    """q(s) and its first three derivatives in s, on arrays of s in [0, 1]."""

    def __init__(self, source):
        self.source = source
        if isinstance(source, Trajectory):
            T = float(source.duration)
            if not (np.isfinite(T) and T > 0):
                raise ArgumentError(f"path: a trajectory of positive duration is needed, got "
                                  f"duration {T}")
            self.n, self._T, self._spline = int(source.n), T, None
            return
        try:
            P = np.asarray(source, dtype=float)
        except (TypeError, ValueError):
            raise ArgumentError("path: expected a robmod Trajectory or waypoints (rows of joint "
                              f"values), got {type(source).__name__}") from None
        if P.ndim != 2 or P.shape[0] < 2 or P.shape[1] < 1:
            raise ArgumentError(f"path: expected waypoints of shape (m + 1, n), m >= 1, got "
                              f"shape {P.shape}")
        if not np.all(np.isfinite(P)):
            raise ArgumentError("path: the waypoints have NaN or infinite values")
        from scipy.interpolate import CubicSpline

        self.n, self._T = P.shape[1], None
        self._spline = CubicSpline(np.linspace(0.0, 1.0, P.shape[0]), P, axis=0)

    @property
    def spline(self):
        """The SciPy CubicSpline of a path given by waypoints (None for a trajectory)."""
        return self._spline

    def __call__(self, s, order: int = 3):
        """(q, q', ..., q^(order)) at the path parameters ``s`` (1-D), each (len(s), n)."""
        s = np.clip(np.asarray(s, dtype=float).ravel(), 0.0, 1.0)
        if self._spline is not None:
            sp = self._spline
            return tuple(sp(s, k) for k in range(order + 1))
        T = self._T
        x = self.source.derivatives(s * T)
        return (x.q, T * x.qd, T ** 2 * x.qdd, T ** 3 * x.qddd)[:order + 1]

    def __repr__(self) -> str:
        what = "waypoints spline" if self._spline is not None else type(self.source).__name__
        return f"JointPath({what}, n={self.n})"


def path_grid(grid, default: int = 200) -> np.ndarray:
    """The grid s_0 = 0 < ... < s_N = 1: N uniform intervals (an int, ``default`` when
    None) or the values given."""
    if grid is None:
        grid = default
    if isinstance(grid, (int, np.integer)) and not isinstance(grid, bool):
        if grid < 2:
            raise ArgumentError(f"grid: at least 2 intervals are needed, got {grid}")
        return np.linspace(0.0, 1.0, int(grid) + 1)
    try:
        s = np.asarray(grid, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"grid: expected a number of intervals or increasing values of s "
                          f"from 0 to 1, got {grid!r}") from None
    if s.ndim != 1 or s.size < 3 or not np.all(np.isfinite(s)):
        raise ArgumentError(f"grid: expected at least 3 finite values of s, got shape {s.shape}")
    if s[0] != 0.0 or s[-1] != 1.0 or np.any(np.diff(s) <= 0):
        raise ArgumentError("grid: the values of s must increase strictly from 0 to 1")
    return s


__all__ = ["JointPath"]
