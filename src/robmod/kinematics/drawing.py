"""Deprecated names of the drawing that moved: the robot is drawn by
:func:`robmod.plot.robot_plot` (every figure is drawn by :mod:`robmod.plot`), the poses of its
frames are :func:`robmod.geometry.frame_origins`."""
from __future__ import annotations

from ..deprecation import deprecated, renamed
from ..geometry.direct import frame_origins as _frame_origins

frame_origins = renamed(_frame_origins, "frame_origins", "robmod.geometry.frame_origins",
                        module=__name__)


@deprecated(__name__, "robmod.plot.robot_plot")
def draw_robot(robot, q=None, path=None, **options):
    from ..plot.robot import robot_plot   # the one drawing; delegation declared in pyproject

    return robot_plot(robot, q, path, **options)


__all__ = []
