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
from ..kinematics.motion import Sample, Motion   # re-exported: what a trajectory gives
from .base import Trajectory
from .blends import ViaBlends, via_blends
from .s_curves import JerkLimited, jerk_limited, DoubleS, double_s, minimum_time_jerk
from .path import JointPath
from .laws import (LAWS, JERK_LAW, PointToPoint, point_to_point, Synchronisation,
                             synchronise, minimum_time, quintic, cubic, trapezoidal)
from .scaling import TimeScaled, slow_down, scale_to_torques
from .task_space import TaskLine, task_line, fixed_axis_rotation
from .time_optimal import topp, TimeOptimal, ConstraintUse
from .waypoints import ViaPoints, via_points

__all__ = [
    # robmod.kinematics (re-exported)
    "Sample", "Motion",
    # base
    "Trajectory",
    # blends
    "ViaBlends", "via_blends",
    # s_curves
    "JerkLimited", "jerk_limited", "DoubleS", "double_s", "minimum_time_jerk",
    # path
    "JointPath",
    # laws
    "LAWS", "JERK_LAW", "PointToPoint", "point_to_point", "Synchronisation", "synchronise",
    "minimum_time", "quintic", "cubic", "trapezoidal",
    # scaling
    "TimeScaled", "slow_down", "scale_to_torques",
    # task_space
    "TaskLine", "task_line", "fixed_axis_rotation",
    # time_optimal
    "topp", "TimeOptimal", "ConstraintUse",
    # waypoints
    "ViaPoints", "via_points",
]
