"""Re-placing URDF joint frames as Khalil-Kleinfinger (modified DH) frames.

See :mod:`robmod.description.io_urdf` for the rules: z_j on the joint axis, x_j
along the common normal to the axis of the first movable child joint, O_j at its
foot; a URDF frame that already satisfies them is kept.
"""
from __future__ import annotations

import numpy as np

from ..spatial import homogeneous

#: joint axes whose angle (radians) is below this are treated as parallel
_PARALLEL_TOL = 1e-6
#: tolerance of the "URDF frame is already a MDH frame" test (radians, and metres per metre)
_KEEP_TOL = 1e-9
#: nearly parallel axes whose common normal lies farther than this (times the distance between
#: the joints, at least 1 m) are placed as parallel ones: a file's rounded angles (a quaternion
#: of 6 digits, rpy 1.5708) tilt parallel axes by micro-radians, whose common normal is then
#: kilometres away -- a frame there gives inertias of 1e9 that cancel to the last digits
_FAR = 100.0


def _min_rotation_to(axis) -> np.ndarray:
    """Smallest rotation bringing z onto ``axis`` (unit); Rot(x, pi) for -z."""
    a = np.asarray(axis, dtype=float)
    v = np.array([-a[1], a[0], 0.0])  # z x a
    s2 = float(v @ v)
    if s2 == 0.0:
        return np.eye(3) if a[2] > 0 else np.diag([1.0, -1.0, -1.0])
    K = np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    return np.eye(3) + K + K @ K * ((1.0 - a[2]) / s2)


def _frame_from_x(axis, x, origin) -> np.ndarray:
    x = x - (x @ axis) * axis
    x = x / np.linalg.norm(x)
    return homogeneous(np.column_stack([x, np.cross(axis, x), axis]), origin)


def _common_normal(a, p, u):
    """(c = a x u, |c|, s): s = position on line (0, a) of the foot of the common normal."""
    c = np.cross(a, u)
    nc = float(np.linalg.norm(c))
    if nc < _PARALLEL_TOL:
        return c, nc, None
    w = -p
    bb = float(a @ u)
    s = (bb * float(u @ w) - float(a @ w)) / (1.0 - bb * bb)
    return c, nc, s


def _is_mdh(x0, a, p, u) -> bool:
    """Does the frame (origin 0, x = x0, z = a) satisfy MDH w.r.t. the axis (p, u)?

    x0 is perpendicular to a; MDH also wants x0 perpendicular to u and the x
    line meeting the line (p, u): then x0 is the common normal and 0 its foot
    (or, for parallel axes, x0 points towards the other axis; coincident axes
    accept any x0).
    """
    scale = max(1.0, float(np.linalg.norm(p)))
    return abs(float(x0 @ u)) <= _KEEP_TOL \
        and abs(float(p @ np.cross(x0, u))) <= _KEEP_TOL * scale


def mdh_frame(axis, children) -> np.ndarray:
    """Pose, in the URDF joint/link frame, of the MDH frame of a joint of axis ``axis``.

    ``axis``: unit axis through the origin; ``children``: (point, unit direction)
    of the axes of the movable child joints, in file order.
    """
    a = np.asarray(axis, dtype=float)
    R0 = _min_rotation_to(a)
    x0 = R0[:, 0]
    kept = homogeneous(R0, np.zeros(3))
    if not children:
        return kept
    for p, u in children:
        if _is_mdh(x0, a, p, u):
            return kept
    p, u = children[0]
    scale = max(1.0, float(np.linalg.norm(p)))
    c, nc, s = _common_normal(a, p, u)
    if s is None or abs(s) > _FAR * scale:
        perp = p - (p @ a) * a
        if np.linalg.norm(perp) <= _KEEP_TOL * scale:  # coincident axes
            return kept
        return _frame_from_x(a, perp, np.zeros(3))
    foot = s * a
    t = float(u @ (foot - p))
    gap = p + t * u - foot
    x = c / nc
    if np.linalg.norm(gap) > _KEEP_TOL * scale:
        if x @ gap < 0:
            x = -x
    elif x @ x0 < 0:
        x = -x
    return _frame_from_x(a, x, foot)


__all__ = []
