"""Motion control and closed-loop simulation (Khalil & Dombre ch. 9).

Controllers are small objects with explicit state, sampled at a period ``dt`` (1 kHz by
default): :class:`PID` (9.5) with the tuning rule (9.10), :class:`PDGravity` (9.12),
:class:`ComputedTorque` (9.22)-(9.31), in task space :class:`TaskPID` (9.17) and
:class:`TaskComputedTorque` (9.33)-(9.36), and Slotine and Li's :class:`PassivityBased` and
:class:`AdaptivePassivity` (on the base-parameter regressor).  :func:`simulate` runs one on the
robot's compiled direct dynamics; :func:`linearize` gives the closed loop's poles.
"""
from .analysis import closed_loop_poles, linearize
from .base import DEFAULT_DT, Controller, OpenLoop
from .computed_torque import ComputedTorque, computed_torque_gains
from .joint_space import PID, PDGravity, PIDGains, max_diagonal_inertia, pid_gains, tune_pid
from .passivity import AdaptivePassivity, PassivityBased
from .plant import Dynamics
from .reference import Desired, Reference
from .result import SimulationResult, TrackingMetrics, tracking_metrics
from .simulation import simulate
from .task_space import TaskComputedTorque, TaskPID

__all__ = ["Controller", "OpenLoop", "DEFAULT_DT", "PID", "PIDGains", "PDGravity", "pid_gains",
           "tune_pid", "max_diagonal_inertia", "ComputedTorque", "computed_torque_gains",
           "PassivityBased", "AdaptivePassivity", "TaskPID", "TaskComputedTorque", "Dynamics",
           "Desired", "Reference", "simulate", "SimulationResult", "TrackingMetrics",
           "tracking_metrics", "linearize", "closed_loop_poles"]
