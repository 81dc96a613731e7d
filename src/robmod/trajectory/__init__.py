"""Trajectory generation (Khalil & Dombre ch. 8): trajectories are objects sampled at any times.

* :func:`point_to_point` — linear, cubic, quintic, bang-bang, trapezoidal and
  continuous-acceleration laws in joint space with minimum times (Table 8.1) and the
  synchronisation of all joints (8.23)-(8.47);
* :func:`via_points` — clamped cubic splines through via points;
* :func:`topp` — time-optimal path parameterization under joint velocity, acceleration and
  torque limits (TOPP-RA, Pham & Pham 2018) of any path (a trajectory or waypoints);
* dynamic time scaling of any trajectory to torque limits:
  :func:`robmod.dynamics.scale_to_limits` (Hollerbach's method).
"""
from .base import Sample, Trajectory
from .point_to_point import (LAWS, PointToPoint, Synchronisation, cubic, minimum_time,
                             point_to_point, quintic, synchronise, trapezoidal)
from .path import JointPath
from .topp import ConstraintUse, TimeOptimal, topp
from .via_points import ViaPoints, via_points

__all__ = ["Sample", "Trajectory", "LAWS", "PointToPoint", "Synchronisation", "point_to_point",
           "minimum_time", "synchronise", "quintic", "cubic", "trapezoidal", "ViaPoints",
           "via_points", "topp", "TimeOptimal", "ConstraintUse", "JointPath"]
