"""Pictures (Matplotlib, optional: ``pip install 'robmod[plot]'``): every figure of robmod is
drawn here, one module per topic, one convention for all:

    <thing>_plot(obj_or_robot, ..., path=None, *, ax=None, options...) -> matplotlib Figure

``path``: the figure is written there (PNG, PDF, SVG... by its suffix) and is not registered
with pyplot; ``ax``: drawn on these Axes (one, or a sequence of as many as the plot has
panels) instead of a new figure; without either, a pyplot figure (``plt.show()``).  What is
drawn is computed by the model layers; the ``plot()`` methods of their results delegate here.

* :func:`robot_plot` — the robot in 3D at a configuration: links, joint axes, KK frame
  labels, tools, trees and closed loops, with the velocity, force and dynamic manipulability
  ellipsoids (:func:`robmod.dynamics.manipulability_ellipsoid`);
* :func:`manipulability_plot` — a map of the manipulability index over two joints swept,
  and the end points coloured by it; :func:`workspace_plot` — a slice of the reachable
  points in a plane (or of the WorkspaceMap of ``robmod workspace``, computed on Dask);
* :func:`trajectory_plot` — q, qd, qdd, jerk against the limits (task-space lines: with the
  tool position, speeds and position/orientation errors);
* :func:`simulation_plot` — tracking and torques of a simulated run;
* :func:`identification_plot`, :func:`parameters_plot`, :func:`cutoff_plot` — fits,
  validations and residuals; the estimated parameters with their standard deviations; the
  cross-validation that chose the identification filter's cut-off.
"""
from .identification import cutoff_plot, identification_plot, parameters_plot
from .robot import robot_plot
from .simulation import simulation_plot
from .trajectory import trajectory_plot
from .workspace import manipulability_plot, workspace_plot

__all__ = [
    # identification
    "identification_plot", "parameters_plot", "cutoff_plot",
    # robot
    "robot_plot",
    # simulation
    "simulation_plot",
    # trajectory
    "trajectory_plot",
    # workspace
    "manipulability_plot", "workspace_plot",
]
