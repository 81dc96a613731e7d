"""Identification: base (minimum) dynamic parameters, identification models, least squares.

* :func:`base_parameters` -- symbolic base parameters (Gautier-Khalil direct method);
* :func:`numeric_base`, :func:`compare` -- numeric base parameters (rank of a stacked
  regressor) and the check against the symbolic set;
* :mod:`.regressors` -- Gamma = Phi(q, qd, qdd) chi (standard or base), energy model;
  :mod:`.regressor_rates` -- its derivatives;
* :class:`IdentificationModel` -- the model identification uses: the parameter set (every
  standard parameter of every moving link by default), base parameters, known side, prior;
* :class:`DynamicIdentification` -- the estimator from measured logs (:func:`load_log`):
  filtering with a cut-off chosen by cross-validation (none for a log filtered before), the
  model's structure and the estimate handed over chosen by held-out prediction (physically
  consistent with a prior, essential parameters without), least squares beside it,
  validation, the excitation's diagnosis; :func:`consistent_fit` -- physically consistent
  parameters;
* :func:`identify` -- the same least squares on samples already differentiated.
"""
from .base_numeric import numeric_base, NumericBase, compare, Comparison
from .base_symbolic import base_parameters, BaseParameters, BaseParameter, EliminatedParameter
from .consistency import consistent_fit, ConsistentEstimate
from .cutoff import choose_cutoff, CutoffChoice
from .data import MeasuredData, clean, join_logs, resample
from .estimator import DynamicIdentification, cross_validate
from .excitation import FourierTrajectory, exciting_trajectory
from .least_squares import identify
from .logfile import load_log
from .model import IdentificationModel, identification_model
from .parameters import parameter_set
from .payload import PayloadEstimate, identify_payload
from .processing import process, Processed, butter_lowpass, band_edge
from .regressors import (regressor, regressor_model, regressor_function, regressor_algorithm,
                         base_idm_model, energy_regressor, energy_identification_rows,
                         standard_names, standard_vector)
from .regressor_rates import (RegressorDerivatives, regressor_derivatives,
                              regressor_derivatives_model, regressor_derivatives_algorithm)
from .report import Excitation
from .selection import StructureChoice, EstimateChoice
from .solver import Identification, check_rank
from .validation import Validation

__all__ = [
    # base_numeric
    "numeric_base", "NumericBase", "compare", "Comparison",
    # base_symbolic
    "base_parameters", "BaseParameters", "BaseParameter", "EliminatedParameter",
    # consistency
    "consistent_fit", "ConsistentEstimate",
    # cutoff
    "choose_cutoff", "CutoffChoice",
    # data
    "MeasuredData", "clean", "resample", "join_logs",
    # estimator
    "DynamicIdentification", "cross_validate",
    # excitation
    "FourierTrajectory", "exciting_trajectory",
    # least_squares
    "identify",
    # logfile
    "load_log",
    # model
    "IdentificationModel", "identification_model",
    # parameters
    "parameter_set",
    # payload
    "PayloadEstimate", "identify_payload",
    # processing
    "process", "Processed", "butter_lowpass", "band_edge",
    # regressors
    "regressor", "regressor_model", "regressor_function", "regressor_algorithm", "base_idm_model",
    "energy_regressor", "energy_identification_rows", "standard_names", "standard_vector",
    # regressor_rates
    "RegressorDerivatives", "regressor_derivatives", "regressor_derivatives_model",
    "regressor_derivatives_algorithm",
    # report
    "Excitation",
    # selection
    "StructureChoice", "EstimateChoice",
    # solver
    "Identification", "check_rank",
    # validation
    "Validation",
]
