"""Screws, wrenches, differential transformations and frame errors (Khalil & Dombre §2.4-§2.6, §6.6).

NumPy-only, batched over leading dimensions (``(..., 4, 4)`` transforms,
``(..., 3)`` vectors, ``(..., 6)`` screws, ``(..., 6, 6)`` screw matrices).

Ordering conventions (Khalil):

* kinematic screw (twist) ``V = (V, omega)``: linear velocity of the frame
  origin first, then the angular velocity ([2.41]);
* differential screw ``(dP, delta)``: differential translation of the origin,
  then the differential rotation vector ``delta = u dtheta`` (§2.5);
* wrench ``F = (f, m)``: force, then the moment about the frame origin
  (the "permuted" order of [2.63]; Khalil's [2.59]-[2.60] put m first, then
  the wrench transforms like a twist: ``(m, f)`` with ``screw_transform``).

Naming: for a homogeneous transform ``T = iTj`` (frame j expressed in frame i,
``R = iRj``, ``P = iPj``):

* ``screw_transform(T)`` is the 6x6 ``iTj`` of screws, mapping a screw at Oj in
  Rj to the same screw field at Oi in Ri::

      iTj = [[R, P^ R], [0, R]]  ( = [[iRj, -iRj jP^i], [0, iRj]], [2.49] )

* ``screw_transform_inverse(T)`` is ``jTi`` written as in [2.47]::

      jTi = [[R^T, -R^T P^], [0, R^T]]

  Products follow the transforms: ``screw_transform(T1 @ T2) =
  screw_transform(T1) @ screw_transform(T2)`` ([2.48]).
"""
from __future__ import annotations

import numpy as np

from ..arguments import broadcast, keyword_options, number_array, vector_array
from ..errors import ArgumentError
from .rotations import angle_axis, homogeneous, rotvec_to_matrix


def skew(v) -> np.ndarray:
    """Skew-symmetric matrix ``v^`` (..., 3, 3) of v (..., 3): ``skew(v) @ w == cross(v, w)``."""
    v = number_array(v)
    if v.shape[-1:] != (3,):
        raise ArgumentError(f"expected (..., 3), got {v.shape}")
    S = np.zeros(v.shape[:-1] + (3, 3))
    S[..., 0, 1], S[..., 0, 2] = -v[..., 2], v[..., 1]
    S[..., 1, 0], S[..., 1, 2] = v[..., 2], -v[..., 0]
    S[..., 2, 0], S[..., 2, 1] = -v[..., 1], v[..., 0]
    return S


def unskew(S) -> np.ndarray:
    """Vector (..., 3) of the skew-symmetric part of S (..., 3, 3): ``unskew(skew(v)) == v``.

    ``unskew(S) = ((S32 - S23), (S13 - S31), (S21 - S12)) / 2``.
    """
    S = number_array(S)
    if S.shape[-2:] != (3, 3):
        raise ArgumentError(f"expected (..., 3, 3), got {S.shape}")
    return 0.5 * np.stack([S[..., 2, 1] - S[..., 1, 2], S[..., 0, 2] - S[..., 2, 0],
                           S[..., 1, 0] - S[..., 0, 1]], axis=-1)


def _RP(T):
    T = number_array(T)
    if T.shape[-2:] != (4, 4):
        raise ArgumentError(f"expected (..., 4, 4) transforms, got {T.shape}")
    return T[..., :3, :3], T[..., :3, 3]


def _blocks(A, B, C, D) -> np.ndarray:
    A, B, C, D = broadcast(A, B, C, D)
    top = np.concatenate([A, B], axis=-1)
    bottom = np.concatenate([C, D], axis=-1)
    return np.concatenate([top, bottom], axis=-2)


def _batch(R, v):
    """R (..., 3, 3) and v (..., k) broadcast over their batch dimensions."""
    batch = broadcast(np.empty(R.shape[:-2]), np.empty(v.shape[:-1]))[0].shape
    return np.broadcast_to(R, batch + (3, 3)), np.broadcast_to(v, batch + v.shape[-1:])


def screw_transform(T) -> np.ndarray:
    """6x6 screw transformation ``iTj = [[R, P^ R], [0, R]]`` of ``T = iTj`` ([2.49]).

    ``iV_i = iTj @ jV_j`` for twists ``(V, omega)`` (velocity of the origin, angular
    velocity) and differential screws ``(dP, delta)``: ``V_i = V_j + omega x OjOi``
    ([2.43]), everything projected from Rj onto Ri.
    """
    R, P = _RP(T)
    return _blocks(R, skew(P) @ R, np.zeros_like(R), R)


def screw_transform_inverse(T) -> np.ndarray:
    """Khalil's [2.47] ``jTi = [[jRi, -jRi iP^j], [0, jRi]]`` from ``T = iTj``.

    Maps a screw at Oi in Ri to Oj in Rj; equals ``screw_transform(inverse_transform(T))``
    and the inverse of ``screw_transform(T)``.
    """
    R, P = _RP(T)
    Rt = np.swapaxes(R, -1, -2)
    return _blocks(Rt, -Rt @ skew(P), np.zeros_like(R), Rt)


def transform_screw(T, V) -> np.ndarray:
    """``iV_i = iTj jV_j``: twist/differential screw (..., 6) at Oj in Rj -> at Oi in Ri."""
    R, P = _RP(T)
    V = vector_array(V, 6, "the screw V")
    R, V = _batch(R, V)
    w = np.einsum("...ij,...j->...i", R, V[..., 3:])
    v = np.einsum("...ij,...j->...i", R, V[..., :3]) + np.cross(P, w)
    return np.concatenate([v, w], axis=-1)


def wrench_transform(T) -> np.ndarray:
    """6x6 matrix mapping a wrench ``(jf_j, jm_j)`` at Oj in Rj to ``(if_i, im_i)`` at Oi in Ri.

    ``if_i = R jf_j``, ``im_i = R jm_j + P x (R jf_j)`` for ``T = iTj``, i.e.
    ``[[R, 0], [P^ R, R]] = screw_transform_inverse(T)^T`` — the dual of the screw
    transform ([2.61]-[2.63]): the virtual power ``V . F`` is frame invariant.
    """
    R, P = _RP(T)
    return _blocks(R, np.zeros_like(R), skew(P) @ R, R)


def transform_wrench(T, F) -> np.ndarray:
    """Wrench (..., 6) ``(f, m)`` at Oj in Rj -> at Oi in Ri, for ``T = iTj``."""
    R, P = _RP(T)
    F = vector_array(F, 6, "the wrench F")
    R, F = _batch(R, F)
    f = np.einsum("...ij,...j->...i", R, F[..., :3])
    m = np.einsum("...ij,...j->...i", R, F[..., 3:]) + np.cross(P, f)
    return np.concatenate([f, m], axis=-1)


def delta_transform(dP, delta) -> np.ndarray:
    """Differential transformation matrix Delta ([2.57]), shape (..., 4, 4)::

        Delta = [[delta^, dP], [0, 0]]  (first order of Trans(dP) Rot(u, dtheta) - I4)

    ``dT = iDelta T`` (premultiplication, Delta in the reference frame, [2.55])
    or ``dT = T jDelta`` (postmultiplication, Delta in the moving frame, [2.56]).
    """
    dP, delta = broadcast(vector_array(dP, 3, "dP"), vector_array(delta, 3, "delta"))
    D = np.zeros(dP.shape[:-1] + (4, 4))
    D[..., :3, :3] = skew(delta)
    D[..., :3, 3] = dP
    return D


@keyword_options()
def differential_screw(T, dT, *, frame: str = "base") -> np.ndarray:
    """Differential screw ``(dP, delta)`` (..., 6) of a small variation dT of T.

    ``frame='base'``: ``Delta = dT T^-1`` ([2.55]) — the screw at the origin Oi of
    the reference frame, in Ri: ``dP = dP_j - delta x P`` where ``dP_j`` is the
    displacement of the moving origin Oj (a body point coinciding with Oi moves
    by dP).  ``frame='local'``: ``Delta = T^-1 dT`` ([2.56]) — at Oj, in Rj.
    delta is the vector of the skew-symmetric part of Delta's rotation block
    (the symmetric part is second order; T must be a rigid transform), and the
    two results are related exactly by [2.58]:
    ``local = screw_transform_inverse(T) @ base``.
    Note: the error of :func:`frame_error` (``frame='base'``) is the screw at Oj
    in Ri, ``(dP_j, delta) = (dP + delta x P, delta)``, as used with 0Jn.
    """
    R, P = _RP(T)
    dT = number_array(dT)
    dR, dp = dT[..., :3, :3], dT[..., :3, 3]
    Rt = np.swapaxes(R, -1, -2)
    if frame == "base":
        W = dR @ Rt
        d = dp - np.cross(unskew(W), P)
    elif frame == "local":
        W = Rt @ dR
        d = np.einsum("...ij,...j->...i", Rt, dp)
    else:
        raise ArgumentError("frame must be 'base' or 'local'")
    return np.concatenate([d, unskew(W)], axis=-1)


@keyword_options()
def frame_error(Tc, Td, *, kind: str = "angle_axis", frame: str = "base") -> np.ndarray:
    """Location error dX = (dXp, dXr) (..., 6) from the current Tc to the desired Td.

    As in the numerical IGM (Khalil & Dombre §6.6), with ``R = Rd Rc^T = rot(u, theta)``
    (``frame='base'``, all in the reference frame)::

        dXp = Pd - Pc
        dXr = theta u            (kind='angle_axis', theta in [0, pi], exact)
        dXr = u sin(theta)       (kind='sin': = (sc x sd + nc x nd + ac x ad) / 2,
                                  smooth, first order equal; loses the sense
                                  of large errors beyond pi/2)

    i.e. the displacement of the origin On and the rotation, in the reference
    frame: for a small error this is the differential screw *at On* projected
    on R0 (what the Jacobian 0Jn maps dq to), not Khalil's 0Delta screw at O0.
    ``frame='local'``: the same in the current frame Rc: ``R = Rc^T Rd``,
    ``dXp = Rc^T (Pd - Pc)`` (= ``differential_screw(Tc, dT, 'local')`` to first
    order).  :func:`apply_frame_error` inverts the ``'angle_axis'`` kind exactly.
    """
    Rc, Pc = _RP(Tc)
    Rd, Pd = _RP(Td)
    Rct = np.swapaxes(Rc, -1, -2)
    dp = Pd - Pc
    if frame == "base":
        Re = Rd @ Rct
    elif frame == "local":
        Re = Rct @ Rd
        dp = np.einsum("...ij,...j->...i", Rct, dp)
    else:
        raise ArgumentError("frame must be 'base' or 'local'")
    if kind == "angle_axis":
        a = angle_axis(Re, tol=0.0)
        dr = a.theta[..., None] * a.u
    elif kind == "sin":
        dr = unskew(Re)
    else:
        raise ArgumentError("kind must be 'angle_axis' or 'sin'")
    dp, dr = np.broadcast_arrays(dp, dr)
    return np.concatenate([dp, dr], axis=-1)


@keyword_options()
def apply_frame_error(Tc, dX, *, frame: str = "base") -> np.ndarray:
    """The location reached from Tc by the error dX = (dXp, theta u) (..., 6).

    ``frame='base'``: ``P = Pc + dXp``, ``R = rot(u, theta) Rc``;
    ``frame='local'``: ``T = Tc [[rot(u, theta), dXp], [0, 1]]``.
    Inverse of :func:`frame_error` with ``kind='angle_axis'``.
    """
    Rc, Pc = _RP(Tc)
    dX = vector_array(dX, 6, "dX")
    Re = rotvec_to_matrix(dX[..., 3:])
    if frame == "base":
        return homogeneous(Re @ Rc, Pc + dX[..., :3])
    if frame == "local":
        return number_array(Tc) @ homogeneous(Re, dX[..., :3])
    raise ArgumentError("frame must be 'base' or 'local'")


__all__ = ["skew", "unskew", "screw_transform", "screw_transform_inverse", "transform_screw",
           "wrench_transform", "transform_wrench", "delta_transform", "differential_screw",
           "frame_error", "apply_frame_error"]
