"""Newton refinement of IGM candidates of a revolute chain ``C1 R(q1) C2 ... R(qn) C(n+1)``.

The polynomial IGMs (Pieper's quartic, the general-6R eigenvalue method) give
candidates accurate to about 1e-8; a few Newton steps on the pose error
(Khalil & Dombre, ch. 5: iterative IGM with the kinematic Jacobian,
``dq = J^+ dX``) bring them to machine precision.  Everything here is geometry
level: the Jacobian of a revolute chain is built from the frames of the chain
(column k: ``[z_k x (P - O_k); z_k]``, Khalil & Dombre ch. 5).
"""
from __future__ import annotations

import numpy as np

from ..spatial.pose_errors import pose_error


def rz(q):
    """Rot(z, q) as 4x4, batched over q."""
    q = np.asarray(q, dtype=float)
    c, s = np.cos(q), np.sin(q)
    out = np.zeros(q.shape + (4, 4))
    out[..., 0, 0], out[..., 0, 1], out[..., 1, 0], out[..., 1, 1] = c, -s, s, c
    out[..., 2, 2] = out[..., 3, 3] = 1.0
    return out


def chain_fk(C, q):
    """End pose of the chain and the frames of the joints (after R(q_k)), batched over q."""
    q = np.asarray(q, dtype=float)
    T = np.broadcast_to(C[0], q.shape[:-1] + (4, 4))
    frames = []
    for k in range(q.shape[-1]):
        T = T @ rz(q[..., k])
        frames.append(T)
        T = T @ C[k + 1]
    return T, frames


def _chain_jacobian(C, q):
    """(T, J): end pose and the 6 x n kinematic Jacobian (base frame, at the end point)."""
    T, frames = chain_fk(C, q)
    P = T[..., :3, 3]
    cols = []
    for F in frames:
        z, o = F[..., :3, 2], F[..., :3, 3]
        cols.append(np.concatenate([np.cross(z, P - o), z], -1))
    return T, np.stack(cols, -1)


def refine(C, T, Q, iterations=20, stop=1e-14):
    """Newton on the pose error from candidates Q (m, n): ``(Q, error, iterations)``.

    ``error`` is the largest component of (dXp, theta u) at the end (per candidate).
    """
    Q = np.array(Q, dtype=float).reshape(-1, len(C) - 1)
    err = np.full(len(Q), np.inf)
    it = 0
    for it in range(iterations + 1):
        Tc, J = _chain_jacobian(C, Q)
        dp, dr = pose_error(T, Tc)
        dx = np.concatenate([dp, dr], -1)
        err = np.abs(dx).max(-1) if len(Q) else err
        if it == iterations or np.all(err < stop):
            break
        active = err >= stop
        step = np.linalg.pinv(J[active], rcond=1e-13) @ dx[active][..., None]
        Q[active] += step[..., 0]
    return Q, err, it


__all__ = []
