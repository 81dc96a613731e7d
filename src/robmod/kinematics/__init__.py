"""Kinematic models: Jacobian iJ_j, numeric inverse geometric model (seed 001 §6.6)."""
from .ik_numeric import IGMResult, igm_numeric, pose_error, rotation_error
from .jacobian import jacobian, jacobian_algorithm, jacobian_model, pose_and_jacobian

__all__ = ["jacobian", "jacobian_algorithm", "jacobian_model", "pose_and_jacobian",
           "igm_numeric", "IGMResult", "pose_error", "rotation_error"]

# second-order model [5.44]-[5.47] and task-coordinate Jacobians [5.48]-[5.70]
from .second_order import (acceleration, jdot_qdot, jdot_qdot_algorithm,  # noqa: E402
                           jdot_qdot_model, second_order_algorithm)
from .task_jacobian import (omega_inverse, omega_matrix, representation_singular,  # noqa: E402
                            task_coordinates, task_jacobian, task_jacobian_algorithm,
                            task_jacobian_model)

__all__ += ["jdot_qdot", "jdot_qdot_algorithm", "jdot_qdot_model", "acceleration",
            "second_order_algorithm", "omega_matrix", "omega_inverse", "representation_singular",
            "task_coordinates", "task_jacobian", "task_jacobian_algorithm", "task_jacobian_model"]
