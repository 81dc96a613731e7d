"""Trajectory generation (Khalil & Dombre ch. 8): trajectories are objects sampled at any times.

* :func:`point_to_point` — linear, cubic, quintic, bang-bang, trapezoidal and
  continuous-acceleration laws in joint space with minimum times (Table 8.1) and the
  synchronisation of all joints (8.23)-(8.47), and the jerk-limited minimum-time "double S"
  (:func:`jerk_limited`, law ``"jerk-limited"``);
* :func:`via_points` — clamped cubic splines through via points;
* dynamic time scaling of any trajectory to torque limits:
  :func:`robmod.dynamics.scale_to_limits` (Hollerbach's method).
"""
from .base import Sample, Trajectory
from .jerk_limited import DoubleS, JerkLimited, double_s, jerk_limited, minimum_time_jerk
from .point_to_point import (JERK_LAW, LAWS, PointToPoint, Synchronisation, cubic, minimum_time,
                             point_to_point, quintic, synchronise, trapezoidal)
from .via_points import ViaPoints, via_points

__all__ = ["Sample", "Trajectory", "LAWS", "PointToPoint", "Synchronisation", "point_to_point",
           "minimum_time", "synchronise", "quintic", "cubic", "trapezoidal", "ViaPoints",
           "via_points", "JERK_LAW", "JerkLimited", "DoubleS", "double_s", "jerk_limited",
           "minimum_time_jerk"]
