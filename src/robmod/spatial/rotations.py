"""Homogeneous transforms and the rotation rot(u, theta) (Khalil & Dombre, ch. 2, §2.3).

All functions are NumPy-only and batched: angles broadcast against each other,
vectors have shape ``(..., 3)``, rotation matrices ``(..., 3, 3)`` and
homogeneous transforms ``(..., 4, 4)``.  Functions taking a rotation also accept
a homogeneous transform (its upper-left 3x3 block is used).

Conventions (Khalil, Paul):

* ``T = [[R, P], [0, 1]]``; the columns of R are the unit vectors s, n, a of the
  moving frame expressed in the reference frame, P is its origin.
* ``rot('z', t)`` is the *active* rotation of angle ``t`` about z (positive
  counter-clockwise): ``rot('z', t) @ [1, 0, 0, 1] = [cos t, sin t, 0, 1]``.
* ``rot_axis(u, t) = u u^T (1 - cos t) + I cos t + û sin t`` (Khalil & Dombre [2.30]).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..arguments import broadcast, keyword_options, number_array, vector_array
from ..errors import ArgumentError


#: default tolerance of the singularity masks (on sin or cos(theta) for Euler/RPY, on theta for
#: angle-axis); in flagged Euler/RPY cases the round-trip error is at most ~2 tol
SINGULAR_TOL = 1e-13


def cross(a, b) -> np.ndarray:
    """a x b over the last axis of float arrays (..., 3), broadcast (what ``np.cross`` gives,
    without its axis handling: several times faster on the small arrays of one state)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def matrix_of(entries, rows: int, cols: int) -> np.ndarray:
    """Row-major list of rows*cols broadcastable scalars/arrays -> array (..., rows, cols)."""
    arrs = broadcast(*[number_array(e) for e in entries])
    out = np.stack(arrs, axis=-1)
    return out.reshape(out.shape[:-1] + (rows, cols))


def rotation_part(R) -> np.ndarray:
    """The rotation block of a ``(..., 3, 3)`` matrix or a ``(..., 4, 4)`` transform."""
    R = number_array(R)
    if R.shape[-2:] == (4, 4):
        return R[..., :3, :3]
    if R.shape[-2:] != (3, 3):
        raise ArgumentError(f"expected (..., 3, 3) or (..., 4, 4), got shape {R.shape}")
    return R


def homogeneous(R=None, P=None) -> np.ndarray:
    """``[[R, P], [0, 0, 0, 1]]`` from R (..., 3, 3) and P (..., 3) (either may be None)."""
    R = np.eye(3) if R is None else number_array(R)
    P = np.zeros(3) if P is None else number_array(P)
    batch = np.broadcast_shapes(R.shape[:-2], P.shape[:-1])
    T = np.zeros(batch + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = P
    T[..., 3, 3] = 1.0
    return T


def trans(x, y=None, z=None) -> np.ndarray:
    """Trans(x, y, z): pure translation (Khalil & Dombre §2.3.4), shape ``(..., 4, 4)``.

    Either three broadcastable components or a single ``(..., 3)`` vector.
    """
    if y is None and z is None:
        p = number_array(x)
        if p.shape[-1:] != (3,):
            raise ArgumentError("trans(p) needs p of shape (..., 3)")
        return homogeneous(None, p)
    if y is None or z is None:
        raise ArgumentError("trans needs x, y and z (or one (..., 3) vector)")
    x, y, z = broadcast(number_array(x), number_array(y), number_array(z))
    return homogeneous(None, np.stack([x, y, z], axis=-1))


_AXES = {"x": 0, "y": 1, "z": 2}


def rot_matrix(axis: str, angle) -> np.ndarray:
    """3x3 rotation of ``angle`` (rad) about the coordinate axis ``'x'``, ``'y'`` or ``'z'``.

    Shape ``angle.shape + (3, 3)`` (Khalil & Dombre §2.3.5)::

        rot x: [[1, 0, 0], [0, C, -S], [0, S, C]]
        rot y: [[C, 0, S], [0, 1, 0], [-S, 0, C]]
        rot z: [[C, -S, 0], [S, C, 0], [0, 0, 1]]
    """
    try:
        k = _AXES[str(axis).lower()]
    except KeyError:
        raise ArgumentError(f"axis must be 'x', 'y' or 'z', got {axis!r}") from None
    a = number_array(angle)
    c, s = np.cos(a), np.sin(a)
    R = np.zeros(a.shape + (3, 3))
    i, j = (k + 1) % 3, (k + 2) % 3
    R[..., k, k] = 1.0
    R[..., i, i] = c
    R[..., j, j] = c
    R[..., i, j] = -s
    R[..., j, i] = s
    return R


def rot(axis: str, angle) -> np.ndarray:
    """Rot(axis, angle): homogeneous ``(..., 4, 4)`` version of :func:`rot_matrix`."""
    return homogeneous(rot_matrix(axis, angle))


def inverse_transform(T) -> np.ndarray:
    """Inverse of a homogeneous transform: ``[[R^T, -R^T P], [0, 1]]`` (Khalil & Dombre §2.3.6)."""
    T = number_array(T)
    if T.shape[-2:] != (4, 4):
        raise ArgumentError(f"expected (..., 4, 4), got shape {T.shape}")
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    return homogeneous(Rt, -np.einsum("...ij,...j->...i", Rt, T[..., :3, 3]))


def _unit(u, name="u") -> np.ndarray:
    u = number_array(u)
    if u.shape[-1:] != (3,):
        raise ArgumentError(f"{name} must have shape (..., 3), got {u.shape}")
    n = np.linalg.norm(u, axis=-1, keepdims=True)
    if np.any(n == 0):
        raise ArgumentError(f"{name} has a zero vector: the rotation axis is undefined")
    return u / n


def rot_axis(u, theta) -> np.ndarray:
    """rot(u, theta): 3x3 rotation of ``theta`` about the axis ``u`` through the origin.

    Rodrigues' formula (Khalil & Dombre [2.30]-[2.31])::

        rot(u, theta) = u u^T (1 - C) + I3 C + û S

    ``u`` (..., 3) is normalised first (a zero vector raises ``ValueError``);
    ``theta`` (...) broadcasts against it.  ``1 - C`` is evaluated as
    ``2 sin^2(theta/2)`` for accuracy at small angles.
    """
    u = _unit(u)
    t = number_array(theta)[..., None]
    u, t = np.broadcast_arrays(u, t)
    c, s, v = np.cos(t[..., 0]), np.sin(t[..., 0]), 2.0 * np.sin(0.5 * t[..., 0]) ** 2
    x, y, z = u[..., 0], u[..., 1], u[..., 2]
    return matrix_of([
        x * x * v + c, x * y * v - z * s, x * z * v + y * s,
        x * y * v + z * s, y * y * v + c, y * z * v - x * s,
        x * z * v - y * s, y * z * v + x * s, z * z * v + c], 3, 3)


def rot_axis_transform(u, theta) -> np.ndarray:
    """Rot(u, theta) as a homogeneous ``(..., 4, 4)`` transform (pure rotation)."""
    return homogeneous(rot_axis(u, theta))


class AngleAxis(NamedTuple):
    """Result of :func:`angle_axis`.

    theta    : (...)    angle in [0, pi]
    u        : (..., 3) unit axis
    singular : (...)    bool, True where theta <= tol (near identity: the axis is
               ill defined; at the exact identity it is set to z = (0, 0, 1))
    """
    theta: np.ndarray
    u: np.ndarray
    singular: np.ndarray


@keyword_options()
def angle_axis(R, *, tol: float = SINGULAR_TOL) -> AngleAxis:
    """Equivalent angle and axis of a rotation (Khalil & Dombre §2.3.8): the inverse of rot(u, theta).

    Returns ``AngleAxis(theta, u, singular)`` with ``theta`` in [0, pi] and
    ``rot_axis(u, theta) == R``:

    * ``C = (s_x + n_y + a_z - 1) / 2`` and ``S = |w| / 2`` with
      ``w = (n_z - a_y, a_x - s_z, s_y - n_x) = 2 S u`` ([2.34]-[2.36]);
      ``theta = atan2(S, C)`` is accurate on the whole range.
    * ``C >= 0``: ``u = w / |w|`` ([2.35]).
    * ``C < 0`` (near theta = pi the skew part vanishes): ``u`` is taken from the
      symmetric part ``(R + R^T)/2 - C I = (1 - C) u u^T`` — its column with the
      largest diagonal term, normalised ([2.38]) — and its sign from ``w``
      ([2.39]).  At theta = pi exactly (w = 0) both u and -u are solutions; the
      one whose largest component is positive is returned.
    * ``singular`` flags ``theta <= tol`` (near identity: the axis is ill
      defined).  theta is still returned as computed and u from w (so theta u
      stays accurate and the round trip exact); where w = 0 exactly (identity)
      ``u = (0, 0, 1)`` and theta = 0.

    Never returns NaN for a rotation matrix (a (..., 4, 4) transform is accepted too).
    """
    R = rotation_part(R)
    w = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                  R[..., 1, 0] - R[..., 0, 1]], axis=-1)
    nw = np.linalg.norm(w, axis=-1)
    C = 0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0)
    theta = np.arctan2(0.5 * nw, C)
    # skew-part axis (good when C >= 0)
    u_skew = w / np.where(nw > 0, nw, 1.0)[..., None]
    # symmetric-part axis (good when C < 0)
    B = 0.5 * (R + np.swapaxes(R, -1, -2)) - C[..., None, None] * np.eye(3)
    k = np.argmax(np.diagonal(B, axis1=-2, axis2=-1), axis=-1)
    v = np.take_along_axis(B, k[..., None, None], axis=-1)[..., 0]
    nv = np.linalg.norm(v, axis=-1)
    u_sym = v / np.where(nv > 0, nv, 1.0)[..., None]
    sign = np.where(np.einsum("...i,...i->...", u_sym, w) < 0, -1.0, 1.0)
    u_sym = u_sym * sign[..., None]
    u = np.where((C < 0)[..., None], u_sym, u_skew)
    # identity: no axis information at all -> z (deterministic)
    u = np.where(((C >= 0) & (nw == 0))[..., None], np.array([0.0, 0.0, 1.0]), u)
    return AngleAxis(theta, u, theta <= tol)


def rotvec_to_matrix(r) -> np.ndarray:
    """Rotation ``rot(r/|r|, |r|)`` from a rotation vector ``r = theta u`` (..., 3).

    The zero vector gives the identity.
    """
    r = vector_array(r, 3, "the rotation vector r")
    t = np.linalg.norm(r, axis=-1)
    u = np.where((t > 0)[..., None], r / np.where(t > 0, t, 1.0)[..., None],
                 np.array([0.0, 0.0, 1.0]))
    return rot_axis(u, t)


@keyword_options()
def matrix_to_rotvec(R, *, tol: float = SINGULAR_TOL) -> np.ndarray:
    """Rotation vector ``theta u`` (..., 3) with theta in [0, pi] (see :func:`angle_axis`)."""
    a = angle_axis(R, tol=tol)
    return a.theta[..., None] * a.u


__all__ = ["trans", "rot", "rot_matrix", "rot_axis", "rot_axis_transform", "homogeneous",
           "rotation_part", "inverse_transform", "angle_axis", "AngleAxis", "rotvec_to_matrix",
           "matrix_to_rotvec"]
