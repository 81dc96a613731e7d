"""Dynamic models: Newton-Euler IDM, inertia matrix, Coriolis and gravity, direct dynamics, elastic joints."""
from .newton_euler import ccg_model, idm, idm_model, ne_algorithm

__all__ = ["idm", "idm_model", "ccg_model", "ne_algorithm"]

# Lagrange form, inertia matrix, direct dynamics, elastic joints (dynamic-models issue, part 1)
from .direct import ddm, ddm_model, simulate, state_derivative  # noqa: E402
from .elastic import elastic_ddm, elastic_ddm_model, elastic_idm, elastic_idm_model  # noqa: E402
from .inertia import inertia_matrix, inertia_matrix_model  # noqa: E402
from .lagrange import (coriolis_matrix, coriolis_model, energy_model, gravity_model,  # noqa: E402
                       gravity_torques, kinetic_energy, potential_energy,
                       quadratic_velocity_matrix, quadratic_velocity_model)

__all__ += ["ddm", "ddm_model", "simulate", "state_derivative", "elastic_ddm",
            "elastic_ddm_model", "elastic_idm", "elastic_idm_model", "inertia_matrix",
            "inertia_matrix_model", "coriolis_matrix", "coriolis_model",
            "energy_model", "gravity_model", "gravity_torques", "kinetic_energy",
            "potential_energy", "quadratic_velocity_matrix", "quadratic_velocity_model"]

# Siciliano's rotor model: rotor j on link a(j), gyroscopic coupling (Siciliano et al. §7.1.2)
from .rotors import (Rotor, coriolis_matrix_with_rotors, idm_with_rotors,  # noqa: E402
                     idm_with_rotors_model, inertia_matrix_with_rotors, rotor_coriolis_matrix,
                     rotor_inertia_matrix, rotor_kinetic_energy, rotor_model, rotor_torques)

__all__ += ["Rotor", "coriolis_matrix_with_rotors", "idm_with_rotors", "idm_with_rotors_model",
            "inertia_matrix_with_rotors", "rotor_coriolis_matrix", "rotor_inertia_matrix",
            "rotor_kinetic_energy", "rotor_model", "rotor_torques"]

# closed loops: dynamics of the actuated joints by projection of the equivalent tree
from .closed_loop import (acceleration_bias, close_loops, closed_loop_ddm,  # noqa: E402
                          closed_loop_energy, closed_loop_gravity, closed_loop_idm,
                          closed_loop_inertia_matrix, closed_loop_simulate, closed_loop_state,
                          closed_loop_symbolic, equivalent_tree, loop_jacobian,
                          passive_velocity_map)

__all__ += ["acceleration_bias", "close_loops", "closed_loop_ddm", "closed_loop_energy",
            "closed_loop_gravity", "closed_loop_idm", "closed_loop_inertia_matrix",
            "closed_loop_simulate", "closed_loop_state", "closed_loop_symbolic",
            "equivalent_tree", "loop_jacobian", "passive_velocity_map"]

# operational space (Siciliano et al. §7.8-7.9) and dynamic scaling of trajectories (§7.7)
from .operational_space import (DynamicEllipsoid, OperationalSpace,  # noqa: E402
                                dynamic_ellipsoid, dynamic_manipulability_ellipsoid,
                                operational_space)
from .time_scaling import ScaledTrajectory, scale_to_limits, scaled_torques  # noqa: E402

__all__ += ["DynamicEllipsoid", "OperationalSpace", "dynamic_ellipsoid",
            "dynamic_manipulability_ellipsoid",
            "operational_space", "ScaledTrajectory", "scale_to_limits", "scaled_torques"]
from .warmup import warmup  # noqa: E402

__all__ += ["warmup"]
