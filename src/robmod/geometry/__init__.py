"""Geometric models (Khalil & Dombre ch. 3-4): elementary transforms, the DGM (``dgm``,
``dgm_model``), the IGM (``igm``, ``igm_model``), orientation sets, screws."""
from .direct import dgm, dgm_model
from .igm_result import IGMResult
from .pose_error import pose_error, rotation_error
from .orientation import (AngleSolutions, angle_axis_to_matrix, euler_zxz_to_matrix,
                          euler_zyz_to_matrix, matrix_to_angle_axis, matrix_to_euler_zxz,
                          matrix_to_euler_zyz, matrix_to_quaternion, matrix_to_rpy,
                          quaternion_conjugate, quaternion_multiply, quaternion_to_matrix,
                          rpy_to_matrix)
from .rotations import (AngleAxis, angle_axis, homogeneous, inverse_transform,
                        matrix_to_rotvec, rot, rot_axis, rot_axis_transform, rot_matrix,
                        rotation_part, rotvec_to_matrix, trans)
from .screws import (apply_frame_error, delta_transform, differential_screw, frame_error,
                     screw_transform, screw_transform_inverse, skew, transform_screw,
                     transform_wrench, unskew, wrench_transform)
from .transforms import frame_transform, frame_transforms, kk_transform

__all__ = [
    "dgm", "dgm_model", "igm", "igm_model", "IGMSolution", "IGMResult", "pose_error",
    "rotation_error",
    "kk_transform", "frame_transform", "frame_transforms",
    # rotations.py
    "trans", "rot", "rot_matrix", "rot_axis", "rot_axis_transform", "homogeneous",
    "rotation_part", "inverse_transform", "angle_axis", "AngleAxis", "rotvec_to_matrix",
    "matrix_to_rotvec",
    # orientation.py
    "AngleSolutions", "euler_zxz_to_matrix", "matrix_to_euler_zxz", "euler_zyz_to_matrix",
    "matrix_to_euler_zyz", "rpy_to_matrix", "matrix_to_rpy", "quaternion_to_matrix",
    "matrix_to_quaternion", "quaternion_multiply", "quaternion_conjugate",
    "angle_axis_to_matrix", "matrix_to_angle_axis",
    # screws.py
    "skew", "unskew", "screw_transform", "screw_transform_inverse", "transform_screw",
    "wrench_transform", "transform_wrench", "delta_transform", "differential_screw",
    "frame_error", "apply_frame_error",
]
from .inverse import IGMSolution, igm, igm_model  # noqa: E402,F401  analytic IGM (Paul)
