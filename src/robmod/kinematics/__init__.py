"""Kinematic models: Jacobian iJ_j, numeric inverse geometric model (Khalil & Dombre §6.6)."""
from .ik_numeric import igm_numeric, pose_error, rotation_error
from .jacobians import jacobian, jacobian_algorithm, jacobian_model, pose_and_jacobian

__all__ = ["jacobian", "jacobian_algorithm", "jacobian_model", "pose_and_jacobian",
           "igm_numeric", "pose_error", "rotation_error"]

# second-order model [5.44]-[5.47] and task-coordinate Jacobians [5.48]-[5.70]
from .second_order import (acceleration, jdot_qdot, jdot_qdot_algorithm,  # noqa: E402
                           jdot_qdot_model, second_order_algorithm)
from .task_jacobian import (omega_inverse, omega_matrix, representation_singular,  # noqa: E402
                            task_coordinates, task_jacobian, task_jacobian_algorithm,
                            task_jacobian_model)

__all__ += ["jdot_qdot", "jdot_qdot_algorithm", "jdot_qdot_model", "acceleration",
            "second_order_algorithm", "omega_matrix", "omega_inverse", "representation_singular",
            "task_coordinates", "task_jacobian", "task_jacobian_algorithm", "task_jacobian_model"]

# analysis (SVD, ellipsoids, singularities), statics, inverse kinematic models (ch. 6)
from .analysis import (Ellipsoid, JacobianSVD, SymbolicSingularities,  # noqa: E402
                       condition_number, force_ellipsoid, is_singular, jacobian_svd,
                       manipulability, min_singular_value, rank, singular_values,
                       singularities_symbolic, task_space_dimension, velocity_bounds,
                       velocity_ellipsoid, velocity_polytope)
from .statics import (joint_torques, transport_wrench, virtual_powers,  # noqa: E402
                      wrench_from_torques, wrench_transport_matrix)
from .ikm import (DampedLeastSquares, ExtendedJacobian, JointLimitCriterion,  # noqa: E402
                  ManipulabilityCriterion, NullSpaceOptimization, PseudoInverse, TaskPriority,
                  WeightedPseudoInverse, damping_factor, dls_inverse, greville_pinv, ikm_dls,
                  ikm_extended, ikm_null_space, ikm_pinv, ikm_task_priority, ikm_weighted,
                  null_space_projector, numerical_gradient, pinv, weighted_pinv)
from .resolved_rate import ResolvedRateResult, planar3r, resolved_rate  # noqa: E402

__all__ += ["Ellipsoid", "JacobianSVD", "SymbolicSingularities", "condition_number",
            "force_ellipsoid", "is_singular", "jacobian_svd", "manipulability",
            "min_singular_value", "rank", "singular_values", "singularities_symbolic",
            "task_space_dimension", "velocity_bounds", "velocity_ellipsoid", "velocity_polytope",
            "joint_torques", "transport_wrench", "virtual_powers", "wrench_from_torques",
            "wrench_transport_matrix", "DampedLeastSquares", "ExtendedJacobian",
            "JointLimitCriterion", "ManipulabilityCriterion", "NullSpaceOptimization",
            "PseudoInverse", "TaskPriority", "WeightedPseudoInverse", "damping_factor",
            "dls_inverse", "greville_pinv", "ikm_dls", "ikm_extended", "ikm_null_space",
            "ikm_pinv", "ikm_task_priority", "ikm_weighted", "null_space_projector",
            "numerical_gradient", "pinv", "weighted_pinv", "ResolvedRateResult", "planar3r",
            "resolved_rate"]

# analytic block-triangular IKM (Khalil & Dombre Example 6.1) and minimum task description (Khalil & Dombre §6.7);
# the joint factories (revolute, prismatic, spherical, ...) stay in .task_description
from .ikm_analytic import (BlockIKM, block_ikm, ikm_block, ikm_block_algorithm,  # noqa: E402
                           ikm_block_model)
from .task_description import (TABLE_6_2, PointContact, TaskSolution, VirtualJoint,  # noqa: E402
                               reduced_jacobian, solve_task, task_residual, virtual_joint)

__all__ += ["BlockIKM", "block_ikm", "ikm_block", "ikm_block_algorithm", "ikm_block_model",
            "TABLE_6_2", "PointContact", "TaskSolution", "VirtualJoint", "reduced_jacobian",
            "solve_task", "task_residual", "virtual_joint"]
from .drawing import draw_robot, frame_origins  # noqa: E402

__all__ += ["draw_robot", "frame_origins"]
