"""The robot drawn at a configuration with its manipulability ellipsoids.

The drawing itself is :func:`robmod.kinematics.draw_robot`; here the three ellipsoids of the
end frame's origin are computed, the dynamic one needing the dynamics layer:

* velocity: Xd^T (J J^T)^-1 Xd <= 1 (Khalil & Dombre (5.37); Siciliano et al. §3.9) — axes U_i,
  lengths sigma_i of the translational rows J of 0J_n;
* force: f^T J J^T f <= 1 (Khalil & Dombre §5.9.3; Siciliano et al. §3.9) — the same axes,
  lengths 1 / sigma_i;
* dynamic: xdd^T (J A^-1 A^-T J^T)^-1 xdd <= 1 (Yoshikawa 1985; Siciliano et al. §7.9 for the
  minimum-norm variant, (7.148)) — the axes and singular values of J A^-1, A the inertia matrix.
"""
from __future__ import annotations

import numpy as np

from ..dynamics.operational import dynamic_ellipsoid
from ..errors import RobmodError
from ..kinematics.drawing import (ELLIPSOID_KINDS, draw_robot, ellipsoid_kinds, end_frame,
                                  translational_ellipsoid)


def manipulability_ellipsoid(robot, q, kind: str = "velocity", *, j=None, tool=None):
    """The translational ``kind`` ("velocity", "force" or "dynamic") ellipsoid of the origin
    of frame j (or of ``tool``; default the first tool on the last link, else the last link)
    at q, an :class:`~robmod.kinematics.analysis.Ellipsoid` (axes as columns, semi-axis
    lengths)."""
    tool, j = end_frame(robot, j, tool)
    if kind == "dynamic":
        return dynamic_ellipsoid(robot, q, j=j, tool=tool, rows=(0, 1, 2))
    if kind not in ELLIPSOID_KINDS:
        raise RobmodError(f"kind must be one of {', '.join(ELLIPSOID_KINDS)}, got {kind!r}")
    return translational_ellipsoid(robot, q, kind, j, tool)


def robot_plot(robot, q=None, path=None, *, ax=None, ellipsoid=None, ellipsoid_scale=None,
               j=None, tool=None, axis_length=None, labels=True):
    """The robot at ``q`` (default zeros): links, joint axes, frame labels, tools (see
    :func:`robmod.kinematics.draw_robot`), with the ``ellipsoid`` asked for: "velocity"
    (or True), "force", "dynamic" or a list of them, at the origin of frame ``j`` / ``tool``.
    Each ellipsoid's largest semi-axis is drawn at ``axis_length`` unless ``ellipsoid_scale``
    (drawing units per unit) is given.  Returns the figure (``path``: written; ``ax``: a 3D
    Axes to draw on)."""
    q = np.zeros(robot.n_q) if q is None else np.asarray(q, dtype=float)
    chosen = [(k, manipulability_ellipsoid(robot, q, k, j=j, tool=tool))
              if isinstance(k, str) else k for k in ellipsoid_kinds(ellipsoid)]
    return draw_robot(robot, q, path, ax=ax, axis_length=axis_length, labels=labels,
                      ellipsoid=chosen, ellipsoid_scale=ellipsoid_scale, j=j, tool=tool)


__all__ = ["manipulability_ellipsoid", "robot_plot"]
