"""Identification: base (minimum) dynamic parameters, identification models, least squares.

* :func:`base_parameters` -- symbolic base parameters (Gautier-Khalil direct method);
* :func:`numeric_base`, :func:`compare` -- numeric base parameters (QR of a stacked
  regressor) and the check against the symbolic set;
* :mod:`.regressors` -- Gamma = Phi(q, qd, qdd) chi (standard or base), energy model;
* :func:`identify` -- weighted least squares from torque data.
"""
from .base_numeric import numeric_base, NumericBase, compare, Comparison
from .base_symbolic import base_parameters, BaseParameters, BaseParameter, EliminatedParameter
from .consistency import consistent_fit, ConsistentEstimate
from .data import MeasuredData, load_log, clean, resample
from .estimator import (DynamicIdentification, Validation, check_rank, cross_validate,
                        PayloadEstimate, identify_payload)
from .excitation import FourierTrajectory, exciting_trajectory
from .least_squares import identify, Identification, prepare_data
from .processing import process, Processed, butter_lowpass, choose_cutoff
from .regressors import (regressor, regressor_model, regressor_function, regressor_algorithm,
                         base_idm_model, energy_regressor, energy_identification_rows,
                         standard_names, standard_vector)

__all__ = [
    # base_numeric
    "numeric_base", "NumericBase", "compare", "Comparison",
    # base_symbolic
    "base_parameters", "BaseParameters", "BaseParameter", "EliminatedParameter",
    # consistency
    "consistent_fit", "ConsistentEstimate",
    # data
    "MeasuredData", "load_log", "clean", "resample",
    # estimator
    "DynamicIdentification", "Validation", "check_rank", "cross_validate", "PayloadEstimate",
    "identify_payload",
    # excitation
    "FourierTrajectory", "exciting_trajectory",
    # least_squares
    "identify", "Identification", "prepare_data",
    # processing
    "process", "Processed", "butter_lowpass", "choose_cutoff",
    # regressors
    "regressor", "regressor_model", "regressor_function", "regressor_algorithm", "base_idm_model",
    "energy_regressor", "energy_identification_rows", "standard_names", "standard_vector",
]
