"""Derivatives of the identification model Φ(q, q̇, q̈) (Khalil & Dombre §7.5.3):
``∂Φ/∂q``, ``∂Φ/∂q̇``, ``∂Φ/∂q̈``, for gradients of excitation criteria (the condition number of
the stacked Φ along a trajectory) and of identification residuals.

:func:`~robmod.identification.regressor_algorithm` run on dual numbers
(:mod:`robmod.symbolic.dual`): one direction per joint variable of q, q̇, q̈; since Γ = Φ χ,
``∂Γ/∂x = ∂Φ/∂x χ`` (checked in the tests against :func:`~robmod.dynamics.idm_derivatives`).
Arrays (..., n_q, p, n_q): ``[..., i, c, k] = ∂Φ_ic/∂x_k``.  With mimic joints the rows and
the directions are the joint variables' (Φ_i + Σ m Φ_j; a dependent joint's tangent m times its
leader's), as :func:`~robmod.identification.regressor` gives them.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from ..description.arguments import finite_output, joint_arrays, keyword_options, require_numeric
from ..description.robot import joint_acceleration, joint_variable, joint_velocity
from ..dynamics.layout import coordinates
from ..symbolic import fastpath
from ..symbolic.context import NumericContext
from ..symbolic.dual import DualContext, direction, seeds, tangents_of
from ..symbolic.model import Output, customize
from .regressors import regressor_algorithm, standard_names

_GROUPS = ("q", "qd", "qdd")


class RegressorDerivatives(NamedTuple):
    """∂Φ/∂q, ∂Φ/∂q̇, ∂Φ/∂q̈, each (..., n_q, p, n_q)."""

    dphi_dq: np.ndarray
    dphi_dqd: np.ndarray
    dphi_dqdd: np.ndarray


def _names(robot, params):
    """The names of Φ's columns (``params``: None, a base-parameter set or names)."""
    if params is None:
        return standard_names(robot)
    return tuple(getattr(params, "standard_names", params))


def _joints(robot):
    return list(coordinates(robot))


@keyword_options()
def regressor_derivatives_algorithm(ctx, robot, *, params=None):
    """Three nested lists ``[i][c][k]`` (rows: the joint variables of the tree, columns: the
    parameters ``params`` as :func:`~robmod.identification.regressor_algorithm` takes them,
    last: the joint variables of q, q̇, q̈)."""
    joints = _joints(robot)
    d = DualContext(ctx, seeds(joints, _GROUPS))
    rows, _ = regressor_algorithm(d, robot, params=params)
    return tuple([[[tangents_of(x).get(direction(g, k), 0) for k in joints] for x in row]
                  for row in rows] for g in _GROUPS)


@keyword_options()
def regressor_derivatives_model(robot, *, params=None):
    """Customized ∂Φ/∂q, ∂Φ/∂q̇, ∂Φ/∂q̈: inputs q, qd, qdd; outputs ``dphi_dq``,
    ``dphi_dqd``, ``dphi_dqdd`` of shape (n, p, n), elements ``DPHI{i}_{param}_{variable}``."""
    joints = _joints(robot)
    names = _names(robot, params)
    inputs = {"q": tuple(joint_variable(j) for j in joints),
              "qd": tuple(joint_velocity(j) for j in joints),
              "qdd": tuple(joint_acceleration(j) for j in joints)}

    def algorithm(ctx):
        import sympy as sp

        mats = regressor_derivatives_algorithm(ctx, robot, params=params)
        shape = (len(joints), len(names), len(joints))
        out = []
        for g, m in zip(_GROUPS, mats):
            el = tuple(f"DPHI{i}_{c}_{direction(g, k)}" for i in joints for c in names
                       for k in joints)
            out.append(Output(f"dphi_d{g}", shape, el,
                              tuple(sp.sympify(x)  # safe: robmod expressions
                                    for row in m for col in row for x in col)))
        return out

    return customize(f"{robot.name}_regressor_derivatives", algorithm, robot, inputs=inputs,
                     title=f"Derivatives of the identification model of {robot.name} "
                           f"(columns {', '.join(names)})")


@keyword_options()
def regressor_derivatives(robot, q, qd, qdd, *, params=None) -> RegressorDerivatives:
    """``(dphi_dq, dphi_dqd, dphi_dqdd)`` at q, qd, qdd (..., n_q), each (..., n_q, p, n_q);
    ``params`` as :func:`~robmod.identification.regressor` (default: every standard
    parameter present).  Compiled on the fast path like :func:`regressor`."""
    key = ("regressor_derivatives", None if params is None else _names(robot, params))
    D = fastpath.evaluate(robot, key, _SPEC, params, q, qd, qdd)
    return RegressorDerivatives(D[..., 0, :, :, :], D[..., 1, :, :, :], D[..., 2, :, :, :])


def _numpy(robot, params, q, qd, qdd):
    require_numeric(robot, "regressor_derivatives", scope="geometry")
    q, qd, qdd = joint_arrays(robot, q=q, qd=qd, qdd=qdd)
    mats = regressor_derivatives_algorithm(NumericContext(robot, q=q, qd=qd, qdd=qdd), robot,
                                           params=params)
    n = len(mats[0])
    p = len(mats[0][0]) if n else 0
    out = np.zeros(q.shape[:-1] + (3, n, p, n))
    for g, m in enumerate(mats):
        for i, row in enumerate(m):
            for c, col in enumerate(row):
                for k, x in enumerate(col):
                    if not (isinstance(x, (int, float)) and x == 0):
                        out[..., g, i, c, k] = x
    return finite_output("regressor_derivatives", out, q=q, qd=qd, qdd=qdd)


def _fast(robot, params):
    if robot.mimic:     # as the regressor's: the NumPy path
        return None
    model = regressor_derivatives_model(robot, params=params)
    n, p, _ = model.outputs[0].shape
    out = Output("D", (3, n, p, n), tuple(x for o in model.outputs for x in o.names),
                 tuple(x for o in model.outputs for x in o.exprs))
    return replace(model, outputs=(out,))


_SPEC = fastpath.Spec(_fast, lambda robot, q, qd, qdd: joint_arrays(robot, q=q, qd=qd, qdd=qdd),
                      _numpy)

__all__ = ["RegressorDerivatives", "regressor_derivatives", "regressor_derivatives_model",
           "regressor_derivatives_algorithm"]
