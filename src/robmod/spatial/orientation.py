"""Orientation sets (Khalil & Dombre §3.6, Siciliano et al. §2.4): Euler angles, RPY, quaternions, angle-axis.

All functions are NumPy-only and batched over leading dimensions.  Rotation
inputs may be ``(..., 3, 3)`` matrices or ``(..., 4, 4)`` transforms; outputs
are ``(..., 3, 3)``.  The names spell out the rotation sequence (all rotations
are about the *current* (moving) axes, i.e. the matrices are post-multiplied):

=====================  ==========================================  =================
function               R =                                         source
=====================  ==========================================  =================
euler_zxz_to_matrix    rot(z, phi) rot(x, theta) rot(z, psi)       Khalil §3.6.1
euler_zyz_to_matrix    rot(z, phi) rot(y, theta) rot(z, psi)       Siciliano (2.17)
rpy_to_matrix          rot(z, phi) rot(y, theta) rot(x, psi)       Khalil §3.6.2
quaternion_to_matrix   Q = (Q0, Q1, Q2, Q3), scalar first          Khalil §3.6.3
angle_axis_to_matrix   rot(u, theta)                               Khalil §2.3.7
=====================  ==========================================  =================

Inverse problems (``matrix_to_*``) return *both* solution branches of the
three-angle sets as an :class:`AngleSolutions` ``(first, second, singular)``:
each branch is an ``(..., 3)`` array ``(phi, theta, psi)``; ``singular`` is a
boolean mask of the representation singularities (gimbal lock), where a
conventional solution with ``psi = 0`` is returned.  No NaN is ever produced
(arctan2 everywhere, no arcsin/arccos).

Algorithm (all three-angle sets): the last angle ``psi`` is read off the row
of R that does not depend on phi, then ``M = R rot(last axis, -psi)`` is the
product of the first two rotations, from which phi and theta are read with
arctan2.  Because phi and theta are fitted to R *given* psi, the round trip
``X_to_matrix(matrix_to_X(R))`` is exact to rounding for both branches, even
near the singularity; in the flagged cases (sin or cos of theta below ``tol``)
the error is at most about ``2 tol`` (default ``tol = 1e-13``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..arguments import broadcast, keyword_options, number_array, vector_array
from ..errors import ArgumentError
from .rotations import (SINGULAR_TOL, AngleAxis, cross, matrix_of, angle_axis, rot_axis,
                        rotation_part)


class AngleSolutions(NamedTuple):
    """The two solution branches of a three-angle orientation set.

    first    : (..., 3) ``(phi, theta, psi)``, the branch with theta in [0, pi]
               (Euler) or theta in [-pi/2, pi/2] (RPY)
    second   : (..., 3) the other branch (Euler: -theta; RPY: pi - theta)
    singular : (...) bool, representation singularity (gimbal lock); there psi = 0
               in ``first`` and ``second`` is the same rotation written the other way
    """
    first: np.ndarray
    second: np.ndarray
    singular: np.ndarray

    def branches(self) -> np.ndarray:
        """Both branches stacked on a leading axis: ``(2, ..., 3)``."""
        return np.stack([self.first, self.second])


def _angles(phi, theta, psi):
    if theta is None and psi is None:
        a = number_array(phi)
        if a.shape[-1:] != (3,):
            raise ArgumentError("pass phi, theta, psi or one (..., 3) array")
        return a[..., 0], a[..., 1], a[..., 2]
    if theta is None or psi is None:
        raise ArgumentError("pass phi, theta and psi (or one (..., 3) array)")
    return np.broadcast_arrays(number_array(phi), number_array(theta), number_array(psi))


def _wrap(a):
    """Angle wrapped to (-pi, pi]."""
    return np.arctan2(np.sin(a), np.cos(a))


# ---------------------------------------------------------------- Euler ZXZ (Khalil)

def euler_zxz_to_matrix(phi, theta=None, psi=None) -> np.ndarray:
    """Khalil's Euler angles (Khalil & Dombre §3.6.1): ``R = rot(z, phi) rot(x, theta) rot(z, psi)``.

    * phi: angle between x0 and the line of nodes ON, about z0;
    * theta: angle between z0 and zn, about ON (= the rotated x axis);
    * psi: angle between ON and xn, about zn.

    Arguments broadcast; or pass one ``(..., 3)`` array ``(phi, theta, psi)``::

        [[CphiCpsi - SphiCthetaSpsi, -CphiSpsi - SphiCthetaCpsi,  SphiStheta],
         [SphiCpsi + CphiCthetaSpsi, -SphiSpsi + CphiCthetaCpsi, -CphiStheta],
         [SthetaSpsi,                 SthetaCpsi,                 Ctheta    ]]
    """
    p, t, s = _angles(phi, theta, psi)
    cp, sp_, ct, st, cs, ss = np.cos(p), np.sin(p), np.cos(t), np.sin(t), np.cos(s), np.sin(s)
    return matrix_of([
        cp * cs - sp_ * ct * ss, -cp * ss - sp_ * ct * cs, sp_ * st,
        sp_ * cs + cp * ct * ss, -sp_ * ss + cp * ct * cs, -cp * st,
        st * ss, st * cs, ct], 3, 3)


def _two_branches(a, b, singular, phi_theta) -> AngleSolutions:
    """The two solutions of a set of three angles whose last one, psi, is atan2(a, b) of two
    terms of R (Khalil & Dombre §3.6.1-3.6.2; Siciliano et al. (2.18)-(2.19)): psi on each
    branch (0 and pi where the set is singular), then ``phi_theta(sign of the branch, cos psi,
    sin psi)`` from R rot(-psi)."""
    out = []
    for sgn in (1.0, -1.0):
        psi = np.where(singular, 0.0 if sgn > 0 else np.pi, np.arctan2(sgn * a, sgn * b))
        phi, theta = phi_theta(sgn, np.cos(psi), np.sin(psi))
        out.append(np.stack([phi, theta, psi], axis=-1))
    return AngleSolutions(out[0], out[1], singular)


@keyword_options()
def matrix_to_euler_zxz(R, *, tol: float = SINGULAR_TOL) -> AngleSolutions:
    """Khalil ZXZ Euler angles of R (inverse of :func:`euler_zxz_to_matrix`).

    ``first``: theta in [0, pi] (Khalil's range), phi, psi in (-pi, pi] (Khalil
    uses [0, 2 pi): add 2 pi to negative values if needed).  ``second``:
    ``(phi + pi, -theta, psi + pi)`` wrapped.  ``singular`` where
    ``sin(theta) = sqrt(R31^2 + R32^2) <= tol`` (theta = 0 or pi: only
    phi + psi, resp. phi - psi, is defined); there psi = 0 and
    phi = atan2(R21, R11).
    """
    R = rotation_part(R)
    r31, r32 = R[..., 2, 0], R[..., 2, 1]

    def phi_theta(sgn, c, s):      # M = R rot(z, -psi) = rot(z, phi) rot(x, theta)
        m11 = R[..., 0, 0] * c - R[..., 0, 1] * s
        m21 = R[..., 1, 0] * c - R[..., 1, 1] * s
        m32 = R[..., 2, 0] * s + R[..., 2, 1] * c
        return np.arctan2(m21, m11), np.arctan2(sgn * np.abs(m32), R[..., 2, 2])  # sign
        # of theta fixed even where m32 ~ +-0

    return _two_branches(r31, r32, np.hypot(r31, r32) <= tol, phi_theta)


# ---------------------------------------------------------------- Euler ZYZ (Siciliano)

def euler_zyz_to_matrix(phi, theta=None, psi=None) -> np.ndarray:
    """Siciliano's Euler angles (Siciliano et al. (2.17)): ``R = rot(z, phi) rot(y, theta) rot(z, psi)``.

    phi about z, theta about the current y, psi about the current (final) z::

        [[CphiCthetaCpsi - SphiSpsi, -CphiCthetaSpsi - SphiCpsi, CphiStheta],
         [SphiCthetaCpsi + CphiSpsi, -SphiCthetaSpsi + CphiCpsi, SphiStheta],
         [-SthetaCpsi,                SthetaSpsi,                Ctheta    ]]
    """
    p, t, s = _angles(phi, theta, psi)
    cp, sp_, ct, st, cs, ss = np.cos(p), np.sin(p), np.cos(t), np.sin(t), np.cos(s), np.sin(s)
    return matrix_of([
        cp * ct * cs - sp_ * ss, -cp * ct * ss - sp_ * cs, cp * st,
        sp_ * ct * cs + cp * ss, -sp_ * ct * ss + cp * cs, sp_ * st,
        -st * cs, st * ss, ct], 3, 3)


@keyword_options()
def matrix_to_euler_zyz(R, *, tol: float = SINGULAR_TOL) -> AngleSolutions:
    """ZYZ Euler angles of R (Siciliano et al. (2.18)-(2.19), with the erratum of (2.18)).

    ``first``: theta = atan2(sqrt(r13^2 + r23^2), r33) in [0, pi],
    phi = atan2(r23, r13), psi = atan2(r32, -r31), in (-pi, pi].
    ``second`` (2.19): theta in [-pi, 0], ``(phi + pi, -theta, psi + pi)`` wrapped.
    ``singular`` where sin(theta) <= tol; there psi = 0.
    """
    R = rotation_part(R)
    r31, r32 = R[..., 2, 0], R[..., 2, 1]

    def phi_theta(sgn, c, s):      # M = R rot(z, -psi) = rot(z, phi) rot(y, theta)
        m12 = R[..., 0, 0] * s + R[..., 0, 1] * c
        m22 = R[..., 1, 0] * s + R[..., 1, 1] * c
        m31 = R[..., 2, 0] * c - R[..., 2, 1] * s
        return np.arctan2(-m12, m22), np.arctan2(sgn * np.abs(m31), R[..., 2, 2])  # -m31 =
        # sin(theta) >= 0 on branch 1

    return _two_branches(r32, -r31, np.hypot(r31, r32) <= tol, phi_theta)


# ---------------------------------------------------------------- RPY (z-y-x)

def rpy_to_matrix(phi, theta=None, psi=None) -> np.ndarray:
    """Roll-pitch-yaw angles, Khalil's convention: ``R = rot(z, phi) rot(y, theta) rot(x, psi)``.

    phi (roll in Khalil's wording) about z, theta (pitch) about the current y,
    psi (yaw) about the current x — i.e. the z-y-x sequence of moving axes
    (equivalently x, y, z about fixed axes, Siciliano's (2.21) with
    phi <-> psi swapped)::

        [[CphiCtheta, CphiSthetaSpsi - SphiCpsi, CphiSthetaCpsi + SphiSpsi],
         [SphiCtheta, SphiSthetaSpsi + CphiCpsi, SphiSthetaCpsi - CphiSpsi],
         [-Stheta,    CthetaSpsi,                CthetaCpsi              ]]
    """
    p, t, s = _angles(phi, theta, psi)
    cp, sp_, ct, st, cs, ss = np.cos(p), np.sin(p), np.cos(t), np.sin(t), np.cos(s), np.sin(s)
    return matrix_of([
        cp * ct, cp * st * ss - sp_ * cs, cp * st * cs + sp_ * ss,
        sp_ * ct, sp_ * st * ss + cp * cs, sp_ * st * cs - cp * ss,
        -st, ct * ss, ct * cs], 3, 3)


@keyword_options()
def matrix_to_rpy(R, *, tol: float = SINGULAR_TOL) -> AngleSolutions:
    """RPY (z-y-x) angles of R (inverse of :func:`rpy_to_matrix`).

    ``first``: theta in [-pi/2, pi/2] (cos(theta) >= 0), psi = atan2(r32, r33),
    phi = atan2(r21, r11) in (-pi, pi].  ``second``: cos(theta) <= 0,
    ``(phi + pi, pi - theta, psi + pi)`` wrapped.  ``singular`` where
    ``cos(theta) = sqrt(r32^2 + r33^2) <= tol`` (theta = +-pi/2: only
    phi - psi, resp. phi + psi, is defined); there psi = 0.
    """
    R = rotation_part(R)
    r32, r33 = R[..., 2, 1], R[..., 2, 2]

    def phi_theta(sgn, c, s):      # M = R rot(x, -psi) = rot(z, phi) rot(y, theta)
        m12 = R[..., 0, 1] * c - R[..., 0, 2] * s
        m22 = R[..., 1, 1] * c - R[..., 1, 2] * s
        m33 = R[..., 2, 1] * s + R[..., 2, 2] * c
        return np.arctan2(-m12, m22), np.arctan2(-R[..., 2, 0], sgn * np.abs(m33))  # m33 =
        # cos(theta), >= 0 on branch 1

    return _two_branches(r32, r33, np.hypot(r32, r33) <= tol, phi_theta)


# ---------------------------------------------------------------- quaternions

def _quat(Q) -> np.ndarray:
    Q = number_array(Q)
    if Q.shape[-1:] != (4,):
        raise ArgumentError(f"quaternions must have shape (..., 4), got {Q.shape}")
    n = np.linalg.norm(Q, axis=-1, keepdims=True)
    if np.any(n == 0):
        raise ArgumentError("zero quaternion")
    return Q / n


def quaternion_to_matrix(Q) -> np.ndarray:
    """Rotation matrix of the Euler parameters ``Q = (Q0, Q1, Q2, Q3)`` (scalar first).

    ``Q0 = cos(theta/2)``, ``(Q1, Q2, Q3) = u sin(theta/2)`` for rot(u, theta).
    Q is normalised first (a zero quaternion raises); Q and -Q give the same R::

        [[1 - 2(Q2^2 + Q3^2), 2(Q1Q2 - Q0Q3),     2(Q1Q3 + Q0Q2)    ],
         [2(Q1Q2 + Q0Q3),     1 - 2(Q1^2 + Q3^2), 2(Q2Q3 - Q0Q1)    ],
         [2(Q1Q3 - Q0Q2),     2(Q2Q3 + Q0Q1),     1 - 2(Q1^2 + Q2^2)]]
    """
    q = _quat(Q)
    q0, q1, q2, q3 = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return matrix_of([
        1 - 2 * (q2 * q2 + q3 * q3), 2 * (q1 * q2 - q0 * q3), 2 * (q1 * q3 + q0 * q2),
        2 * (q1 * q2 + q0 * q3), 1 - 2 * (q1 * q1 + q3 * q3), 2 * (q2 * q3 - q0 * q1),
        2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1), 1 - 2 * (q1 * q1 + q2 * q2)], 3, 3)


def matrix_to_quaternion(R) -> np.ndarray:
    """Unit quaternion ``(Q0, Q1, Q2, Q3)`` (scalar first) of R, with ``Q0 >= 0``.

    Shepperd's method: the symmetric matrix ``K = 4 Q Q^T`` is read off R
    (``K00 = 1 + tr R``, ``K11 = 1 + r11 - r22 - r33``, ..., off-diagonal terms
    from sums/differences of r_ij); the row of K with the largest diagonal term
    (so >= 1) is normalised — no division by a small number.  Sign: Q0 > 0;
    where Q0 = 0 (half turns) the component with the largest magnitude is
    positive.  Exactly unit even for a slightly non-orthogonal R.
    """
    R = rotation_part(R)
    r = [[R[..., i, j] for j in range(3)] for i in range(3)]
    tr = r[0][0] + r[1][1] + r[2][2]
    d10, d20, d30 = r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1]
    s12, s13, s23 = r[0][1] + r[1][0], r[0][2] + r[2][0], r[1][2] + r[2][1]
    K = matrix_of([
        1 + tr, d10, d20, d30,
        d10, 1 + r[0][0] - r[1][1] - r[2][2], s12, s13,
        d20, s12, 1 - r[0][0] + r[1][1] - r[2][2], s23,
        d30, s13, s23, 1 - r[0][0] - r[1][1] + r[2][2]], 4, 4)
    k = np.argmax(np.diagonal(K, axis1=-2, axis2=-1), axis=-1)
    q = np.take_along_axis(K, k[..., None, None], axis=-2)[..., 0, :]
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where((q[..., :1] < 0), -q, q)


def quaternion_multiply(Q1, Q2) -> np.ndarray:
    """Hamilton product ``Q1 * Q2`` (scalar first): the quaternion of R(Q1) R(Q2)."""
    return quaternion_product(*broadcast(vector_array(Q1, 4, "Q1"), vector_array(Q2, 4, "Q2")))


def quaternion_product(a, b) -> np.ndarray:
    """:func:`quaternion_multiply` of float arrays (..., 4) that broadcast, unchecked."""
    a0, av = a[..., 0], a[..., 1:]
    b0, bv = b[..., 0], b[..., 1:]
    s = a0 * b0 - np.einsum("...i,...i->...", av, bv)
    v = a0[..., None] * bv + b0[..., None] * av + cross(av, bv)
    return np.concatenate([s[..., None], v], axis=-1)


def quaternion_conjugate(Q) -> np.ndarray:
    """``(Q0, -Q1, -Q2, -Q3)``: the inverse rotation for a unit quaternion."""
    Q = vector_array(Q, 4, "Q")
    return np.concatenate([Q[..., :1], -Q[..., 1:]], axis=-1)


# ---------------------------------------------------------------- angle-axis

def angle_axis_to_matrix(theta, u) -> np.ndarray:
    """rot(u, theta) as a 3x3 matrix (same as :func:`robmod.spatial.rotations.rot_axis`).

    Note the argument order (angle first), matching the name.
    """
    return rot_axis(u, theta)


@keyword_options()
def matrix_to_angle_axis(R, *, tol: float = SINGULAR_TOL) -> AngleAxis:
    """``AngleAxis(theta, u, singular)`` with theta in [0, pi]: see :func:`angle_axis`."""
    return angle_axis(R, tol=tol)


__all__ = ["AngleSolutions", "euler_zxz_to_matrix", "matrix_to_euler_zxz", "euler_zyz_to_matrix",
           "matrix_to_euler_zyz", "rpy_to_matrix", "matrix_to_rpy", "quaternion_to_matrix",
           "matrix_to_quaternion", "quaternion_multiply", "quaternion_conjugate",
           "angle_axis_to_matrix", "matrix_to_angle_axis"]
