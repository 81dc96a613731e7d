"""Identification: base (minimum) dynamic parameters, identification models, least squares.

* :func:`base_parameters` -- symbolic base parameters (Gautier-Khalil direct method);
* :func:`numeric_base`, :func:`compare` -- numeric base parameters (QR of a stacked
  regressor) and the check against the symbolic set;
* :mod:`.regressor` -- Gamma = Phi(q, qd, qdd) chi (standard or base), energy model;
* :func:`identify` -- weighted least squares from torque data.
"""
from .base_numeric import compare, numeric_base
from .base_symbolic import BaseParameter, BaseParameters, EliminatedParameter, base_parameters
from .least_squares import identify, prepare_data
from .regressors import (base_idm_model, energy_identification_rows, energy_regressor, regressor,
                        regressor_function, regressor_model, standard_names, standard_vector)

__all__ = ["BaseParameter", "BaseParameters", "EliminatedParameter", "base_parameters",
           "numeric_base", "compare", "identify", "prepare_data", "regressor",
           "regressor_model", "regressor_function", "base_idm_model", "energy_regressor",
           "energy_identification_rows", "standard_names", "standard_vector"]

# the pipeline from measured logs (data, processing, estimator, exciting trajectories)
from .data import MeasuredData, clean, load_log, resample  # noqa: E402
from .estimator import (DynamicIdentification, PayloadEstimate, Validation,  # noqa: E402
                        check_rank, cross_validate, identify_payload)  # noqa: E402
from .excitation import FourierTrajectory, exciting_trajectory  # noqa: E402
from .processing import Processed, butter_lowpass, choose_cutoff, process  # noqa: E402

__all__ += ["MeasuredData", "load_log", "clean", "resample", "DynamicIdentification",
            "Validation", "check_rank", "cross_validate", "FourierTrajectory",
            "PayloadEstimate", "identify_payload",
            "exciting_trajectory", "Processed",
            "process", "butter_lowpass", "choose_cutoff"]
