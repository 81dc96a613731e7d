"""Dynamic models (Khalil & Dombre ch. 7; Siciliano et al. ch. 7): the Newton-Euler IDM, the
inertia matrix, Lagrange terms (gravity, Coriolis, energies), direct dynamics, their
derivatives, closed loops, elastic joints, rotors, Siciliano's conventions, operational space,
dynamic time scaling, floating and mobile bases (link 0, centre of mass, centroidal momentum),
simulation (one result type, ``SimulationResult``), ``warmup``."""
from .centroidal import (center_of_mass, center_of_mass_model, center_of_mass_algorithm,
                         center_of_mass_jacobian, center_of_mass_jacobian_model,
                         center_of_mass_jacobian_algorithm, centroidal_momentum_matrix,
                         centroidal_momentum_matrix_model, centroidal_momentum_matrix_algorithm,
                         centroidal_momentum)
from .constrained import (constrained_ddm, constrained_ddm_model, constrained_ddm_algorithm,
                          ConstrainedDynamics, impact, Impact, least_norm_solve)
from .contact_problem import delassus, delassus_model, delassus_algorithm, ContactProblem
from .contact_solver import solve_contacts, ContactSolution
from .contact_qp import contact_idm, ContactIDM, friction_pyramid
from .time_stepping import contact_step, ContactStep, unilateral_points, ContactStepper
from .scene import SceneStepper
from .closed_loop import (equivalent_tree, loop_constraints, loop_jacobian, passive_velocity_map,
                          constraint_bias, acceleration_bias, close_loops, closed_loop_state,
                          closed_loop_idm, closed_loop_inertia_matrix, closed_loop_gravity_torques,
                          closed_loop_ddm, closed_loop_energy, closed_loop_symbolic)
from .closed_loop_rates import closed_loop_idm_derivatives, closed_loop_ddm_derivatives
from .derivatives import (IDMDerivatives, DDMDerivatives, idm_derivatives, idm_derivatives_model,
                          idm_derivatives_algorithm, ddm_derivatives, ddm_derivatives_model,
                          ddm_derivatives_algorithm)
from .direct import ddm, ddm_model, ddm_algorithm, state_derivative
from .elastic import (ElasticInverse, elastic_idm, elastic_ddm, elastic_idm_model,
                      elastic_ddm_model, elastic_idm_algorithm, elastic_ddm_algorithm,
                      elastic_state_derivative)
from .inertia import inertia_matrix, inertia_matrix_model, inertia_matrix_algorithm
from .lagrange import (gravity_torques, gravity_torques_model, gravity_torques_algorithm,
                       friction_torques, velocity_torques, coriolis_matrix, coriolis_matrix_model,
                       coriolis_matrix_algorithm, quadratic_velocity_matrix,
                       quadratic_velocity_matrix_model, quadratic_velocity_matrix_algorithm,
                       Energy, energy, kinetic_energy, potential_energy, energy_model,
                       energy_algorithm)
from .newton_euler import idm, idm_model, idm_algorithm, ccg, ccg_model, ccg_algorithm
from .operational import (OperationalSpace, operational_space, DynamicEllipsoid,
                          dynamic_manipulability_ellipsoid, dynamic_ellipsoid,
                          manipulability_ellipsoid)
from .rotors import (Rotor, rotor_torques, rotor_kinetic_energy, rotor_inertia_matrix,
                     rotor_coriolis_matrix, idm_with_rotors, inertia_matrix_with_rotors,
                     coriolis_matrix_with_rotors, rotor_torques_model, rotor_torques_algorithm,
                     idm_with_rotors_model, idm_with_rotors_algorithm)
from .simulation import SimulationResult, TrackingMetrics, tracking_metrics
from .siciliano import (SicilianoArm, SicilianoLink, SicilianoMotor, from_siciliano, to_siciliano,
                        tensor_parameters)
from .time_scaling import ScaledTrajectory, scaled_torques, scale_to_limits
from .compilation import warmup


__all__ = [
    # centroidal
    "center_of_mass", "center_of_mass_model", "center_of_mass_algorithm",
    "center_of_mass_jacobian", "center_of_mass_jacobian_model",
    "center_of_mass_jacobian_algorithm", "centroidal_momentum_matrix",
    "centroidal_momentum_matrix_model", "centroidal_momentum_matrix_algorithm",
    "centroidal_momentum",
    # constrained, contact_problem (contacts)
    "constrained_ddm", "constrained_ddm_model", "constrained_ddm_algorithm", "ConstrainedDynamics",
    "impact", "Impact", "least_norm_solve", "delassus", "delassus_model", "delassus_algorithm",
    "ContactProblem", "solve_contacts", "ContactSolution", "contact_step", "ContactStep",
    "unilateral_points", "ContactStepper", "SceneStepper", "contact_idm", "ContactIDM",
    "friction_pyramid",
    # closed_loop
    "equivalent_tree", "loop_constraints", "loop_jacobian", "passive_velocity_map",
    "constraint_bias", "acceleration_bias", "close_loops", "closed_loop_state", "closed_loop_idm",
    "closed_loop_inertia_matrix", "closed_loop_gravity_torques", "closed_loop_ddm",
    "closed_loop_energy", "closed_loop_symbolic",
    # closed_loop_rates
    "closed_loop_idm_derivatives", "closed_loop_ddm_derivatives",
    # derivatives
    "IDMDerivatives", "DDMDerivatives", "idm_derivatives", "idm_derivatives_model",
    "idm_derivatives_algorithm", "ddm_derivatives", "ddm_derivatives_model",
    "ddm_derivatives_algorithm",
    # direct
    "ddm", "ddm_model", "ddm_algorithm", "state_derivative",
    # elastic
    "ElasticInverse", "elastic_idm", "elastic_ddm", "elastic_idm_model", "elastic_ddm_model",
    "elastic_idm_algorithm", "elastic_ddm_algorithm", "elastic_state_derivative",
    # inertia
    "inertia_matrix", "inertia_matrix_model", "inertia_matrix_algorithm",
    # lagrange
    "gravity_torques", "gravity_torques_model", "gravity_torques_algorithm", "friction_torques",
    "velocity_torques", "coriolis_matrix", "coriolis_matrix_model", "coriolis_matrix_algorithm",
    "quadratic_velocity_matrix", "quadratic_velocity_matrix_model",
    "quadratic_velocity_matrix_algorithm", "Energy", "energy", "kinetic_energy",
    "potential_energy", "energy_model", "energy_algorithm",
    # newton_euler
    "idm", "idm_model", "idm_algorithm", "ccg", "ccg_model", "ccg_algorithm",
    # operational
    "OperationalSpace", "operational_space", "DynamicEllipsoid",
    "dynamic_manipulability_ellipsoid", "dynamic_ellipsoid", "manipulability_ellipsoid",
    # rotors
    "Rotor", "rotor_torques", "rotor_kinetic_energy", "rotor_inertia_matrix",
    "rotor_coriolis_matrix", "idm_with_rotors", "inertia_matrix_with_rotors",
    "coriolis_matrix_with_rotors", "rotor_torques_model", "rotor_torques_algorithm",
    "idm_with_rotors_model", "idm_with_rotors_algorithm",
    # simulation
    "SimulationResult", "TrackingMetrics", "tracking_metrics",
    # siciliano
    "SicilianoArm", "SicilianoLink", "SicilianoMotor", "from_siciliano", "to_siciliano",
    "tensor_parameters",
    # time_scaling
    "ScaledTrajectory", "scaled_torques", "scale_to_limits",
    # compilation
    "warmup",
]
