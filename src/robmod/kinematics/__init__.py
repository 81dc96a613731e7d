"""Kinematic models: Jacobian iJ_j, numeric inverse geometric model (seed 001 §6.6)."""
from .ik_numeric import IGMResult, igm_numeric, pose_error, rotation_error
from .jacobian import jacobian, jacobian_algorithm, jacobian_model, pose_and_jacobian

__all__ = ["jacobian", "jacobian_algorithm", "jacobian_model", "pose_and_jacobian",
           "igm_numeric", "IGMResult", "pose_error", "rotation_error"]
