"""Motion control and closed-loop simulation (Khalil & Dombre ch. 9).

Controllers are small objects with explicit state, sampled at a period ``dt`` (1 kHz by
default): :class:`PID` (9.5) with the tuning rule (9.10), :class:`PDGravity` (9.12),
:class:`ComputedTorque` (9.22)-(9.31), :class:`LQR` tracking on the dynamics linearized along the
reference (:func:`state_matrices`, on the analytical derivatives), in task space :class:`TaskPID` (9.17) and
:class:`TaskComputedTorque` (9.33)-(9.36), and Slotine and Li's :class:`PassivityBased` and
:class:`AdaptivePassivity` (on the base-parameter regressor).  :func:`simulate`, the one
simulator of robmod, runs a controller or a function of the state on the robot's compiled
direct dynamics (a closed-loop robot's on its actuated joints, :class:`ClosedLoopDynamics`; a
floating robot's with its base free, :class:`FloatingDynamics`; a robot on a mobile base's
with the base's given motion, :class:`MobileDynamics` and :class:`BaseMotion`), robmod's own
controllers as one compiled C loop (:mod:`~robmod.control.compiled_loop`), one controller on plants whose
parameters differ (``parameters=``); :func:`linearize` gives the closed loop's poles.
"""
from .analysis import linearize, LinearizedLoop, closed_loop_poles
from .base import Controller, OpenLoop, DEFAULT_DT
from .computed_torque import ComputedTorque, computed_torque_gains
from .linearization import state_matrices
from .lqr import LQR
from .joint_space import PID, PIDGains, PDGravity, pid_gains, tune_pid, max_diagonal_inertia
from .passivity import PassivityBased, AdaptivePassivity
from .closed_plant import ClosedLoopDynamics
from .floating_plant import FloatingDynamics
from .mobile_plant import BaseMotion, MobileDynamics
from .plant import Dynamics, COULOMB_MODES, coulomb_option, coulomb_torque
from .reference import Desired, Reference  # Desired: the Sample of robmod.kinematics
from ..dynamics.simulation import SimulationResult, TrackingMetrics, tracking_metrics  # re-exported
from .simulation import simulate
from .task_space import TaskPID, TaskComputedTorque
from .gait import Trot, Stand
from .whole_body import WholeBodyController

__all__ = [
    # analysis
    "linearize", "LinearizedLoop", "closed_loop_poles",
    # base
    "Controller", "OpenLoop", "DEFAULT_DT",
    # computed_torque
    "ComputedTorque", "computed_torque_gains",
    # linearization, lqr
    "state_matrices", "LQR",
    # joint_space
    "PID", "PIDGains", "PDGravity", "pid_gains", "tune_pid", "max_diagonal_inertia",
    # passivity
    "PassivityBased", "AdaptivePassivity",
    # closed_plant, floating_plant, mobile_plant
    "ClosedLoopDynamics", "FloatingDynamics", "MobileDynamics", "BaseMotion",
    # plant
    "Dynamics", "COULOMB_MODES", "coulomb_option", "coulomb_torque",
    # reference
    "Reference",
    # robmod.dynamics (re-exported): the result of every simulation
    "SimulationResult", "TrackingMetrics", "tracking_metrics",
    # simulation
    "simulate",
    # task_space
    "TaskPID", "TaskComputedTorque",
    # gait, whole_body (contacts)
    "Trot", "Stand", "WholeBodyController",
]
