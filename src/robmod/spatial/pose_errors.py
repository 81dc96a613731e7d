"""Pose error between two frames (rotation as theta u), batched.

Used by the numeric IGM (Khalil & Dombre, ch. 5: the error dX of the iterative
inverse geometric model, rotation error u sin(theta) made exact as theta u) and by
the refinement of the polynomial IGMs of this layer.
"""
from __future__ import annotations

import numpy as np

from ..arguments import number_array
from ..errors import ArgumentError
from .rotations import rotation_part


def rotation_error(Rd, R):
    """theta u with rot(u, theta) = Rd R^T, batched (..., 3, 3) -> (..., 3)."""
    Rd, R = rotation_part(Rd), rotation_part(R)
    E = Rd @ np.swapaxes(R, -1, -2)
    e00, e11, e22 = E[..., 0, 0], E[..., 1, 1], E[..., 2, 2]
    # the four squared quaternion components (times 4); use the largest (Shepperd)
    sq = np.stack([1 + e00 + e11 + e22, 1 + e00 - e11 - e22,
                   1 - e00 + e11 - e22, 1 - e00 - e11 + e22], axis=-1)
    k = np.argmax(sq, axis=-1)
    d = np.sqrt(np.maximum(np.take_along_axis(sq, k[..., None], -1)[..., 0], 1e-300))
    a = E[..., 2, 1] - E[..., 1, 2]
    b = E[..., 0, 2] - E[..., 2, 0]
    c = E[..., 1, 0] - E[..., 0, 1]
    xy = E[..., 0, 1] + E[..., 1, 0]
    xz = E[..., 0, 2] + E[..., 2, 0]
    yz = E[..., 1, 2] + E[..., 2, 1]
    cand = np.stack([np.stack([d * d, a, b, c], -1),     # 4w * (w, x, y, z)
                     np.stack([a, d * d, xy, xz], -1),   # 4x * (w, x, y, z)
                     np.stack([b, xy, d * d, yz], -1),
                     np.stack([c, xz, yz, d * d], -1)], -2)
    quat = np.take_along_axis(cand, k[..., None, None], -2)[..., 0, :] / (2 * d[..., None])
    quat = np.where(quat[..., :1] < 0, -quat, quat)
    w, v = quat[..., 0], quat[..., 1:]
    nv = np.linalg.norm(v, axis=-1)
    safe = np.where(nv > 1e-12, nv, 1.0)
    factor = np.where(nv > 1e-12, 2 * np.arctan2(nv, w) / safe, 2.0 / np.maximum(w, 1e-300))
    return v * factor[..., None]


def pose_error(Td, T):
    """(dXp, dXr) between desired Td and current T, batched (..., 4, 4) -> two (..., 3)."""
    Td, T = _transform(Td, "Td"), _transform(T, "T")
    return Td[..., :3, 3] - T[..., :3, 3], rotation_error(Td[..., :3, :3], T[..., :3, :3])


def _transform(T, name):
    T = number_array(T, name)
    if T.shape[-2:] not in ((4, 4), (3, 4)):
        raise ArgumentError(f"{name} must be (..., 4, 4) transforms, got shape {T.shape}")
    return T


__all__ = ["pose_error", "rotation_error"]
