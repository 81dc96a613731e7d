"""Time series: trajectories, closed-loop simulations, identification (the figures of the
lower layers under the names and the convention of :mod:`robmod.plot`)."""
from __future__ import annotations

from ..errors import RobmodError
from ..identification.cutoff import CutoffChoice
from ..identification.estimator import DynamicIdentification, Validation
from ..identification.plots import cutoff_figure, fit_figure, parameters_figure, validation_figure


def trajectory_plot(traj, path=None, *, ax=None, limits=None, rate: float = 500.0):
    """A trajectory against time: q, qd, qdd and jerk with the velocity and acceleration
    limits (``limits`` = (qd_max, qdd_max), default those the trajectory used; ``ax``: 4
    Axes); a task-space line (:func:`robmod.trajectory.task_line`) adds the tool position,
    its speeds against the task limits and the position and orientation errors of the joints'
    DGM against the line (``ax``: 4 x 2 Axes)."""
    if not hasattr(traj, "sample") or not hasattr(traj, "plot"):
        raise RobmodError(f"trajectory_plot takes a trajectory (robmod.trajectory), got "
                          f"{type(traj).__name__}")
    return traj.plot(path, limits, rate, ax=ax)


def simulation_plot(result, path=None, *, ax=None, joints=None):
    """A closed-loop run (:func:`robmod.control.simulate`): q against q_des, the tracking
    errors and the torques against their limits (``joints``: numbers 1..n; ``ax``: 3 Axes)."""
    if not hasattr(result, "tau") or not hasattr(result, "q_des"):
        raise RobmodError(f"simulation_plot takes a SimulationResult, got "
                          f"{type(result).__name__}")
    return result.plot(path, joints, ax=ax)


def identification_plot(obj, path=None, *, ax=None):
    """Measured against model torques and the residuals, one row per joint (``ax``: n x 2
    Axes): of a :class:`~robmod.identification.DynamicIdentification` on its own data (the
    fit), or of a validation (``est.validate(other_data)``)."""
    if isinstance(obj, Validation):
        return validation_figure(obj, path, ax=ax)
    if isinstance(obj, DynamicIdentification):
        return fit_figure(_fitted(obj), path, ax=ax)
    raise RobmodError(f"identification_plot takes a fitted DynamicIdentification or a "
                      f"Validation, got {type(obj).__name__}")


def parameters_plot(est, path=None, *, ax=None):
    """The identified base parameters with +-2 standard deviations and their relative
    standard deviations (%) on a log scale (``ax``: 2 Axes)."""
    if not isinstance(est, DynamicIdentification):
        raise RobmodError(f"parameters_plot takes a fitted DynamicIdentification, got "
                          f"{type(est).__name__}")
    return parameters_figure(_fitted(est), path, ax=ax)


def cutoff_plot(obj, path=None, *, ax=None):
    """The choice of the identification filter's cut-off by cross-validation in time: the
    held-out torque error against the cut-off, per fold and on average, the choice marked
    (``ax``: 1 Axes); of a :class:`~robmod.identification.DynamicIdentification` fitted with
    ``cutoff='auto'`` or of its :class:`~robmod.identification.CutoffChoice`."""
    if isinstance(obj, DynamicIdentification):
        obj = _fitted(obj).processed_.choice
        if obj is None:
            raise RobmodError("the estimator's cut-off was given, not chosen from the data "
                              "(cutoff='auto'): there is no curve")
    if not isinstance(obj, CutoffChoice):
        raise RobmodError(f"cutoff_plot takes a fitted DynamicIdentification or a CutoffChoice, "
                          f"got {type(obj).__name__}")
    return cutoff_figure(obj, path, ax=ax)


def _fitted(est):
    if not hasattr(est, "params_"):
        raise RobmodError("the estimator is not fitted: call fit(data) first")
    return est


__all__ = ["trajectory_plot", "simulation_plot", "identification_plot", "parameters_plot",
           "cutoff_plot"]
