"""SO(3) and SE(3) on floats, below every layer (as Pinocchio's ``spatial/``): rotations and
homogeneous transforms (Khalil & Dombre §2.3), orientation sets — Euler angles, roll-pitch-yaw,
quaternions, angle and axis (§3.6; Siciliano et al. §2.4) —, screws, wrenches, differential
transformations and location errors (§2.4-§2.6, §6.6).

NumPy only, batched over leading dimensions; nothing here knows a robot.  The description
layer (URDF angles, the KK parameters of a transform) and every layer above use these;
:mod:`robmod.geometry` re-exports them for users (``robmod.geometry.rot_axis`` is
``robmod.spatial.rot_axis``).
"""
from .orientation import (AngleSolutions, euler_zxz_to_matrix, matrix_to_euler_zxz,
                          euler_zyz_to_matrix, matrix_to_euler_zyz, rpy_to_matrix, matrix_to_rpy,
                          quaternion_to_matrix, matrix_to_quaternion, quaternion_multiply,
                          quaternion_conjugate, angle_axis_to_matrix, matrix_to_angle_axis)
from .pose_errors import pose_error, rotation_error
from .rotations import (trans, rot, rot_matrix, rot_axis, rot_axis_transform, homogeneous,
                        rotation_part, inverse_transform, angle_axis, AngleAxis, rotvec_to_matrix,
                        matrix_to_rotvec)
from .screws import (skew, unskew, screw_transform, screw_transform_inverse, transform_screw,
                     wrench_transform, transform_wrench, delta_transform, differential_screw,
                     frame_error, apply_frame_error)

__all__ = [
    # orientation
    "AngleSolutions", "euler_zxz_to_matrix", "matrix_to_euler_zxz", "euler_zyz_to_matrix",
    "matrix_to_euler_zyz", "rpy_to_matrix", "matrix_to_rpy", "quaternion_to_matrix",
    "matrix_to_quaternion", "quaternion_multiply", "quaternion_conjugate", "angle_axis_to_matrix",
    "matrix_to_angle_axis",
    # pose_errors
    "pose_error", "rotation_error",
    # rotations
    "trans", "rot", "rot_matrix", "rot_axis", "rot_axis_transform", "homogeneous", "rotation_part",
    "inverse_transform", "angle_axis", "AngleAxis", "rotvec_to_matrix", "matrix_to_rotvec",
    # screws
    "skew", "unskew", "screw_transform", "screw_transform_inverse", "transform_screw",
    "wrench_transform", "transform_wrench", "delta_transform", "differential_screw", "frame_error",
    "apply_frame_error",
]
