"""The Khalil-Kleinfinger parameters (gamma, b, alpha, d, theta, r) of a rigid transform (floats).

The rotations, URDF's roll-pitch-yaw angles and the transforms themselves are those of the leaf
package :mod:`robmod.spatial` (URDF's ``rpy = (roll, pitch, yaw)`` is
``rpy_to_matrix(yaw, pitch, roll)``: R = Rot(z, yaw) Rot(y, pitch) Rot(x, roll))."""
from __future__ import annotations

import math

import numpy as np

from ..spatial import rot_matrix

#: |sin alpha| at or below this: the two z axes are taken as parallel
_PARALLEL_Z_TOL = 1e-13


def _half_turn(angle: float, length: float) -> tuple[float, float]:
    """Bring an angle into (-pi/2, pi/2] by negating the length that goes with it."""
    if angle > math.pi / 2:
        return angle - math.pi, -length
    if angle <= -math.pi / 2:
        return angle + math.pi, -length
    return angle, length


def kk_parameters_from_transform(T, tol: float = _PARALLEL_Z_TOL) -> tuple:
    """The Khalil-Kleinfinger parameters (gamma, b, alpha, d, theta, r) of a rigid transform.

    ``T = Rot(z,gamma) Trans(z,b) Rot(x,alpha) Trans(x,d) Rot(z,theta) Trans(z,r)``
    (4x4, floats).  gamma is chosen in (-pi/2, pi/2] (alpha may then be
    negative).  When z and the transformed z are parallel (|sin alpha| <= tol,
    alpha = 0 or pi), gamma is taken from the position so that the offset lies
    along x: d is the distance between the two z axes, b = 0 and r is the
    offset along z; coincident axes give gamma = d = 0.
    """
    T = np.asarray(T, dtype=float)
    R, P = T[:3, :3], T[:3, 3]
    sin_alpha = math.hypot(R[0, 2], R[1, 2])
    if sin_alpha > tol:
        alpha = math.atan2(sin_alpha, R[2, 2])
        gamma = math.atan2(R[0, 2], -R[1, 2])
        gamma, alpha = _half_turn(gamma, alpha)
        v = rot_matrix("z", -gamma) @ P  # = (d, -sin(alpha) r, b + cos(alpha) r)
        d = v[0]
        r = -v[1] / math.sin(alpha)
        b = v[2] - math.cos(alpha) * r
    else:
        alpha = 0.0 if R[2, 2] > 0 else math.pi
        if math.hypot(P[0], P[1]) > tol:
            gamma, d = _half_turn(math.atan2(P[1], P[0]), math.hypot(P[0], P[1]))
        else:
            gamma, d = 0.0, P[0]
        b = 0.0
        r = P[2] * (1.0 if alpha == 0.0 else -1.0)
    M = (rot_matrix("z", gamma) @ rot_matrix("x", alpha)).T @ R  # = Rot(z, theta)
    theta = math.atan2(M[1, 0], M[0, 0])
    return gamma, b, alpha, d, theta, r


__all__ = []
