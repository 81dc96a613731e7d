"""Kinematic models (Khalil & Dombre ch. 5-6): Jacobians iJ_j, the forward link recursion,
J̇q̇, J̇ and ∂J/∂q, task-coordinate Jacobians, analysis (SVD, ellipsoids, singularities),
statics, inverse kinematic models, task description, the numeric inverse geometric model
(§6.6); what a joint motion is (``Sample``, ``Motion``)."""
from .contacts import (contact_jacobian, contact_jacobian_model, contact_jacobian_algorithm,
                       contact_jdot_qdot, contact_jdot_qdot_model, contact_jdot_qdot_algorithm,
                       contact_poses)
from .analysis import (task_rows_jacobian, JacobianSVD, jacobian_svd, singular_values, rank,
                       min_singular_value, condition_number, is_singular, task_space_dimension,
                       manipulability, Ellipsoid, velocity_ellipsoid, force_ellipsoid,
                       velocity_bounds, velocity_polytope, SymbolicSingularities,
                       singularities_symbolic)
from .ellipsoids import ELLIPSOID_KINDS
from .ik_numeric import igm_numeric
from .ikm import (pinv, null_space_projector, ikm_pinv, damping_factor, dls_inverse, ikm_dls,
                  weighted_pinv, ikm_weighted, ikm_null_space, numerical_gradient,
                  JointLimitCriterion, ManipulabilityCriterion, ikm_task_priority, ikm_extended,
                  greville_pinv, PseudoInverse, DampedLeastSquares, WeightedPseudoInverse,
                  NullSpaceOptimization, TaskPriority, ExtendedJacobian)
from .ikm_analytic import BlockIKM
from .block_inverse import ikm_block, ikm_block_model, ikm_block_algorithm
from .motion import Sample, Motion
from .jacobians import jacobian, jacobian_model, jacobian_algorithm, pose_and_jacobian
from .jacobian_rates import (jacobian_derivatives, jacobian_derivatives_model,
                             jacobian_derivatives_algorithm, jacobian_dot, jacobian_dot_model,
                             jacobian_dot_algorithm)
from .recursion import forward, LinkKinematics, u_matrix
from .resolved_motion import resolved_rate, ResolvedRateResult
from .second_order import (jdot_qdot, jdot_qdot_model, jdot_qdot_algorithm, acceleration,
                           acceleration_model, acceleration_algorithm)
from .workspace import (INDICES, PLANES, manipulability_index, ManipulabilityMap,
                        manipulability_map, WorkspaceSlice, workspace_slice)
from .statics import (joint_torques, wrench_from_torques, wrench_transport_matrix,
                      transport_wrench, virtual_powers)
from .task_description import (TABLE_6_2, PointContact, VirtualJoint, virtual_joint,
                               reduced_jacobian, task_residual, TaskSolution, solve_task)
from .task_kinematics import (task_jacobian, task_jacobian_model, task_jacobian_algorithm,
                            task_coordinates, omega_matrix, omega_inverse, representation_singular)


__all__ = [
    # analysis
    "task_rows_jacobian", "JacobianSVD", "jacobian_svd", "singular_values", "rank",
    "min_singular_value", "condition_number", "is_singular", "task_space_dimension",
    "manipulability", "Ellipsoid", "velocity_ellipsoid", "force_ellipsoid", "velocity_bounds",
    "velocity_polytope", "SymbolicSingularities", "singularities_symbolic",
    # contacts
    "contact_jacobian", "contact_jacobian_model", "contact_jacobian_algorithm", "contact_jdot_qdot",
    "contact_jdot_qdot_model", "contact_jdot_qdot_algorithm", "contact_poses",
    # ellipsoids
    "ELLIPSOID_KINDS",
    # ik_numeric
    "igm_numeric",
    # ikm
    "pinv", "null_space_projector", "ikm_pinv", "damping_factor", "dls_inverse", "ikm_dls",
    "weighted_pinv", "ikm_weighted", "ikm_null_space", "numerical_gradient", "JointLimitCriterion",
    "ManipulabilityCriterion", "ikm_task_priority", "ikm_extended", "greville_pinv",
    "PseudoInverse", "DampedLeastSquares", "WeightedPseudoInverse", "NullSpaceOptimization",
    "TaskPriority", "ExtendedJacobian",
    # ikm_analytic, block_inverse
    "BlockIKM", "ikm_block", "ikm_block_model", "ikm_block_algorithm",
    # motion
    "Sample", "Motion",
    # jacobians
    "jacobian", "jacobian_model", "jacobian_algorithm", "pose_and_jacobian",
    # jacobian_rates
    "jacobian_derivatives", "jacobian_derivatives_model", "jacobian_derivatives_algorithm",
    "jacobian_dot", "jacobian_dot_model", "jacobian_dot_algorithm",
    # recursion
    "forward", "LinkKinematics", "u_matrix",
    # resolved_motion
    "resolved_rate", "ResolvedRateResult",
    # second_order
    "jdot_qdot", "jdot_qdot_model", "jdot_qdot_algorithm", "acceleration", "acceleration_model",
    "acceleration_algorithm",
    # statics
    "joint_torques", "wrench_from_torques", "wrench_transport_matrix", "transport_wrench",
    "virtual_powers",
    # task_description
    "TABLE_6_2", "PointContact", "VirtualJoint", "virtual_joint", "reduced_jacobian",
    "task_residual", "TaskSolution", "solve_task",
    # workspace
    "INDICES", "PLANES", "manipulability_index", "ManipulabilityMap", "manipulability_map",
    "WorkspaceSlice", "workspace_slice",
    # task_kinematics
    "task_jacobian", "task_jacobian_model", "task_jacobian_algorithm", "task_coordinates",
    "omega_matrix", "omega_inverse", "representation_singular",
]
