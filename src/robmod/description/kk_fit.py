"""Rigid-transform geometry in floats: elementary rotations, URDF roll-pitch-yaw, and the
Khalil-Kleinfinger parameters (gamma, b, alpha, d, theta, r) of a 4x4 transform."""
from __future__ import annotations

import math

import numpy as np

#: |sin alpha| at or below this: the two z axes are taken as parallel
_PARALLEL_Z_TOL = 1e-13


def _rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def matrix_from_rpy(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """URDF's rotation: R = Rot(z, yaw) Rot(y, pitch) Rot(x, roll)."""
    return _rot_z(yaw) @ _rot_y(pitch) @ _rot_x(roll)


def rpy_from_matrix(R) -> tuple[float, float, float]:
    """(roll, pitch, yaw) with ``matrix_from_rpy(roll, pitch, yaw) == R``, pitch in [-pi/2, pi/2].

    Robust at and near the gimbal lock (pitch = +-pi/2): yaw is taken first from
    the first column, then pitch and roll from ``Rot(z, -yaw) R`` so that the
    errors of one angle are absorbed by the others.  At the exact lock (first
    column along +-z) roll = 0.
    """
    R = np.asarray(R, dtype=float)
    if math.hypot(R[0, 0], R[1, 0]) > 1e-300:
        yaw = math.atan2(R[1, 0], R[0, 0])
        M = _rot_z(-yaw) @ R
        pitch = math.atan2(-M[2, 0], M[0, 0])
        roll = math.atan2(-M[1, 2], M[1, 1])
    else:
        pitch = math.copysign(math.pi / 2, -R[2, 0])
        roll = 0.0
        # R = Rz(yaw) Ry(+-pi/2): second column = (-sin yaw, cos yaw, 0)
        yaw = math.atan2(-R[0, 1], R[1, 1])
    return roll, pitch, yaw


def homogeneous(R, p) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def inverse(T) -> np.ndarray:
    R, p = T[:3, :3], T[:3, 3]
    return homogeneous(R.T, -R.T @ p)


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
        Ra = _rot_z(gamma) @ _rot_x(alpha)
        v = _rot_z(-gamma) @ P  # = (d, -sin(alpha) r, b + cos(alpha) r)
        d = v[0]
        r = -v[1] / math.sin(alpha)
        b = v[2] - math.cos(alpha) * r
    else:
        alpha = 0.0 if R[2, 2] > 0 else math.pi
        if math.hypot(P[0], P[1]) > tol:
            gamma, d = _half_turn(math.atan2(P[1], P[0]), math.hypot(P[0], P[1]))
        else:
            gamma, d = 0.0, P[0]
        Ra = _rot_z(gamma) @ _rot_x(alpha)
        b = 0.0
        r = P[2] * (1.0 if alpha == 0.0 else -1.0)
    M = Ra.T @ R  # = Rot(z, theta)
    theta = math.atan2(M[1, 0], M[0, 0])
    return gamma, b, alpha, d, theta, r


__all__ = []
