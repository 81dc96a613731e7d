"""Trajectory generation (Khalil & Dombre ch. 8): trajectories are objects sampled at any times.

* :func:`point_to_point` — linear, cubic, quintic, bang-bang, trapezoidal and
  continuous-acceleration laws in joint space with minimum times (Table 8.1) and the
  synchronisation of all joints (8.23)-(8.47), and the jerk-limited minimum-time "double S"
  (:func:`jerk_limited`, law ``"jerk-limited"``);
* :func:`via_points` — clamped cubic splines through via points, or straight segments with
  parabolic blends (``method="blends"``);
* :func:`task_line` — a straight line of the tool frame with a rotation about a fixed axis
  (§8.4), joint values by the IGM (one branch) or the inverse kinematic model;
* :func:`topp` — time-optimal path parameterization under joint velocity, acceleration and
  torque limits (TOPP-RA, Pham & Pham 2018) of any path (a trajectory or waypoints);
* :func:`slow_down`, :func:`scale_to_torques` — any trajectory run slower along its path,
  the smallest slow-down that keeps the IDM's torques within limits (Hollerbach's method).
"""
from .base import Sample, Trajectory
from .blends import ViaBlends, via_blends
from .jerk_limited import DoubleS, JerkLimited, double_s, jerk_limited, minimum_time_jerk
from .point_to_point import (JERK_LAW, LAWS, PointToPoint, Synchronisation, cubic, minimum_time,
                             point_to_point, quintic, synchronise, trapezoidal)
from .path import JointPath
from .scaling import TimeScaled, scale_to_torques, slow_down
from .task_space import TaskLine, fixed_axis_rotation, task_line
from .topp import ConstraintUse, TimeOptimal, topp
from .via_points import ViaPoints, via_points

__all__ = ["Sample", "Trajectory", "LAWS", "PointToPoint", "Synchronisation", "point_to_point",
           "minimum_time", "synchronise", "quintic", "cubic", "trapezoidal", "ViaPoints",
           "via_points", "TimeScaled", "slow_down", "scale_to_torques", "TaskLine", "task_line",
           "fixed_axis_rotation", "JERK_LAW", "JerkLimited", "DoubleS", "double_s",
           "jerk_limited", "minimum_time_jerk", "topp", "TimeOptimal", "ConstraintUse",
           "JointPath", "ViaBlends", "via_blends"]
