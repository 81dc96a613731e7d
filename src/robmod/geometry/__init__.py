"""Geometric models (Khalil & Dombre ch. 3-4): elementary transforms, the DGM (``dgm``,
``dgm_model``), the IGM (``igm``, ``igm_model``, one result type ``IGMResult``), serial chains
and loops, the inverse robot, orientation sets, screws."""
from .chain import serial_chain
from .direct import dgm, dgm_model, dgm_algorithm, frame_origins
from .floating import neutral, integrate, difference, velocity_from_derivatives
from .igm_result import IGMResult
from .inverse import igm_model, igm, IGMSolution, IGMStep
from .robot_inversion import inverse_robot, inverse_joint_values
from .loops import (loop_closure, loop_closure_model, loop_closure_algorithm, loop_residual,
                    solve_loops)
# SO(3), SE(3): the leaf package robmod.spatial, re-exported for users
from ..spatial import (AngleSolutions, euler_zxz_to_matrix, matrix_to_euler_zxz,
                       euler_zyz_to_matrix, matrix_to_euler_zyz, rpy_to_matrix, matrix_to_rpy,
                       quaternion_to_matrix, matrix_to_quaternion, quaternion_multiply,
                       quaternion_conjugate, angle_axis_to_matrix, matrix_to_angle_axis,
                       pose_error, rotation_error, trans, rot, rot_matrix, rot_axis,
                       rot_axis_transform, homogeneous, rotation_part, inverse_transform,
                       angle_axis, AngleAxis, rotvec_to_matrix, matrix_to_rotvec, skew, unskew,
                       screw_transform, screw_transform_inverse, transform_screw,
                       wrench_transform, transform_wrench, delta_transform, differential_screw,
                       frame_error, apply_frame_error)
from .transforms import kk_transform, frame_transform, frame_transforms

__all__ = [
    # chain
    "serial_chain",
    # direct
    "dgm", "dgm_model", "dgm_algorithm", "frame_origins",
    # floating
    "neutral", "integrate", "difference", "velocity_from_derivatives",
    # igm_result
    "IGMResult",
    # inverse
    "igm_model", "igm", "IGMSolution", "IGMStep",
    # robot_inversion
    "inverse_robot", "inverse_joint_values",
    # loops
    "loop_closure", "loop_closure_model", "loop_closure_algorithm", "loop_residual",
    "solve_loops",
    # robmod.spatial (re-exported)
    "AngleSolutions", "euler_zxz_to_matrix", "matrix_to_euler_zxz", "euler_zyz_to_matrix",
    "matrix_to_euler_zyz", "rpy_to_matrix", "matrix_to_rpy", "quaternion_to_matrix",
    "matrix_to_quaternion", "quaternion_multiply", "quaternion_conjugate", "angle_axis_to_matrix",
    "matrix_to_angle_axis",
    "pose_error", "rotation_error",
    "trans", "rot", "rot_matrix", "rot_axis", "rot_axis_transform", "homogeneous", "rotation_part",
    "inverse_transform", "angle_axis", "AngleAxis", "rotvec_to_matrix", "matrix_to_rotvec",
    "skew", "unskew", "screw_transform", "screw_transform_inverse", "transform_screw",
    "wrench_transform", "transform_wrench", "delta_transform", "differential_screw", "frame_error",
    "apply_frame_error",
    # transforms
    "kk_transform", "frame_transform", "frame_transforms",
]
