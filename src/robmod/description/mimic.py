"""Dependent (mimic) joints: q_j = m q_i + c (a gripper's second finger, coupled joints).

A mimic joint keeps its frame and its axis (sigma 0 or 1) but has no entry of its own in joint
vectors: ``robot.joints`` and ``robot.n_q`` count the independent joints only.  Its position,
velocity and acceleration follow the joint it mimics (q̇_j = m q̇_i, q̈_j = m q̈_i); the models
account for it by the chain rule -- the contexts give its joint variable as m q_i + c, a
Jacobian column becomes J_i + m J_j, a torque Γ_i + m Γ_j (virtual work), the inertia matrix
Eᵀ A E with E = ∂q_frames/∂q.  URDF's ``<mimic joint= multiplier= offset=>`` is read this way.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import DescriptionError


def check_mimic(robot) -> None:
    """Each mimic frame is a joint mimicking an independent joint, with finite m != 0, c."""
    for j, (i, m, c) in robot.mimic.items():
        what = f"robot {robot.name!r}: mimic joint {j}"
        if not (1 <= j <= robot.n_joints and robot.frame(j).is_joint):
            raise DescriptionError(f"{what}: frame {j} is not a joint frame")
        if not (1 <= i <= robot.n_joints and robot.frame(i).is_joint) or i in robot.mimic:
            raise DescriptionError(f"{what}: it must follow an independent joint, not frame {i}")
        if not (math.isfinite(m) and m != 0 and math.isfinite(c)):
            raise DescriptionError(f"{what}: multiplier {m} and offset {c} must be finite, "
                                   "multiplier non-zero")


def frame_matrix_E(robot, frames) -> np.ndarray:
    """E (len(frames), n_q): d q_frame / d q for the joint frames ``frames``."""
    E = np.zeros((len(frames), robot.n_q))
    index = robot.joint_index
    for r, j in enumerate(frames):
        if j in index:
            E[r, index[j]] = 1.0
        elif j in robot.mimic:
            i, m, _ = robot.mimic[j]
            E[r, index[i]] = m
    return E


def reduce_vector(robot, values: dict, shape) -> np.ndarray:
    """Joint torques (or any generalized force) of the joint frames ``values`` {j: array}
    projected on the independent joints: Γ_i + Σ m Γ_j over the joints mimicking i."""
    out = np.zeros(shape)
    index = robot.joint_index
    for j, v in values.items():
        if v is None:
            continue
        if j in index:
            out[..., index[j]] += v
        elif j in robot.mimic:
            i, m, _ = robot.mimic[j]
            out[..., index[i]] += m * v
    return out


def refuse(robot, what: str) -> None:
    """A clear error for the models that do not take mimic joints yet."""
    if robot.mimic:
        names = ", ".join(str(j) for j in robot.mimic)
        raise DescriptionError(
            f"{what}: robot {robot.name!r} has mimic joints (frames {names}), which this model "
            "does not take yet; the plain numeric functions (dgm, jacobian, idm, "
            "inertia_matrix, gravity_torques, ddm) do")


__all__ = []
