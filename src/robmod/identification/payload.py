"""A payload's inertial parameters from a second log, the robot's own model being known."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ArgumentError, RobmodError
from ..description.robot import INERTIAL
from .data import MeasuredData
from .model import stack
from .processing import process
from .regressors import regressor_function
from .solver import solve


@dataclass(frozen=True)
class PayloadEstimate:
    """The 10 inertial parameters of a payload fixed to the terminal link (Khalil's standard
    parameters XX..M, in the terminal frame), their standard deviations, mass and centre."""

    names: tuple
    values: np.ndarray
    std: np.ndarray

    @property
    def mass(self) -> float:
        return float(self.values[-1])

    @property
    def centre_of_mass(self) -> np.ndarray:
        return self.values[6:9] / self.values[-1]


def identify_payload(est, data: MeasuredData) -> PayloadEstimate:
    """The payload's inertial parameters from a log recorded with the payload, the robot's own
    model being ``est`` (a fitted :class:`~.estimator.DynamicIdentification`, without the
    payload): the torques the robot model does not explain are linear in the payload's 10
    parameters, the columns of the terminal link's standard parameters in the regressor (the
    payload is a rigid body added to link n); ordinary least squares."""
    if not callable(getattr(est, "_fitted", None)):
        raise ArgumentError(f"identify_payload: est must be a fitted DynamicIdentification, got "
                            f"{type(est).__name__}")
    est._fitted()
    num = est.num_
    j = num.frames[num.n_links - 1].j
    names = tuple(f"{k}{j}" for k in INERTIAL)
    phi = regressor_function(num, params=names)
    p = process(data, cutoff=est.processed_.cutoff, decimate=1,
                use_measured_velocity=est.use_measured_velocity)
    if p.tau is None:
        raise RobmodError("the payload log needs torques")
    residual = p.tau - est.predict(p.q, p.qd, p.qdd)
    res = solve(stack(phi(p.q, p.qd, p.qdd)), residual.T.reshape(-1), est.n_joints_,
                method="ols", names=names)
    return PayloadEstimate(names, res.beta, res.std)


__all__ = ["PayloadEstimate", "identify_payload"]
