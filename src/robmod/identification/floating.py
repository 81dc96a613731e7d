"""Identification of a floating robot from its base's equations (Ayusawa, Venture & Nakamura
2014).

The inverse model of a floating robot (:func:`~robmod.dynamics.floating_idm`) is linear in
the standard parameters of its links and of link 0, the base::

    [f_0; Gamma] = Y(q, qd, qdd) chi          (6 + n rows: the base's wrench, the torques)

The six rows of the base are the Newton-Euler equations of the whole robot: no joint torque
enters them, yet every inertial parameter that moves the robot does (a link's inertia changes
the motion, hence the momentum, of the whole), so the base's equations alone identify every
identifiable inertial parameter: the same base parameters as all 6 + n equations
(:func:`~robmod.identification.numeric_base` with ``equations="base"`` has their rank; the
tests check it).  A legged robot's base wrench is the contact wrench its force sensors measure
(zero in flight); a robot in space has none: the equations are then homogeneous and the
parameters known up to a common factor -- one known parameter (a mass) fixes it.  Friction and
rotor inertias act between links only: the joint torques (``equations="all"``) identify them.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (checked_options, finite_output, floating_arrays,
                                     keyword_options, require_numeric, robot_argument)
from ..dynamics.floating import base_start
from ..dynamics.layout import coordinates
from ..geometry.floating import BaseState, floating_context, floating_inputs
from ..symbolic import fastpath
from ..symbolic.model import Output, customize
from .regressors import columns_of, regressor_algorithm


@keyword_options()
def floating_regressor_algorithm(ctx, robot, base, *, params=None, gravity=True):
    """Y as nested lists: the six rows of the base's wrench, then one per joint variable; one
    column per parameter (``base``: a :class:`~robmod.geometry.BaseState` with its twist and
    acceleration; ``params``: see :func:`floating_regressor`)."""
    start, _ = base_start(ctx, robot, base, gravity=gravity)
    rows, _ = regressor_algorithm(ctx, robot, params=params, gravity=gravity, base=start)
    return rows


@keyword_options(params=None)
def floating_regressor(robot, q, qd, qdd, **options) -> np.ndarray:
    """Y (..., 6 + n_q, p) of a floating robot at q (..., 7 + n_q), qd and qdd (..., 6 +
    n_q): ``floating_idm = Y chi`` for the standard parameters ``params`` (names, or a
    BaseParameters; default: those the description holds, link 0's included)."""
    params = checked_options(floating_regressor, options)["params"] if options else None
    key = ("floating_regressor", columns_of(robot_argument(robot), params)[1])
    return fastpath.evaluate(robot, key, _SPEC, params, q, qd, qdd)


def _numpy(robot, params, q, qd, qdd):
    require_numeric(robot, "the floating regressor", scope="geometry")
    q, qd, qdd = floating_arrays(robot, q=q, qd=qd, qdd=qdd)
    ctx, base = floating_context(robot, q, qd, qdd)
    rows = floating_regressor_algorithm(ctx, robot, base, params=params)
    p = len(rows[0]) if rows else 0
    out = np.zeros(q.shape[:-1] + (len(rows), p))
    for r, row in enumerate(rows):
        for c, x in enumerate(row):
            if not (isinstance(x, (int, float)) and x == 0):
                out[..., r, c] = x
    return finite_output("floating_regressor", out, q=q, qd=qd, qdd=qdd)


@keyword_options()
def floating_regressor_model(robot, *, params=None, name="floating_regressor"):
    """Customized Y of a floating robot (output PHI, (6 + n_q) x p; ``params``: see
    :func:`floating_regressor`), the model named ``{robot}_{name}``."""
    _, names = columns_of(robot, params)

    def algorithm(ctx):
        rows = floating_regressor_algorithm(ctx, robot, BaseState.symbols(), params=params)
        labels = [f"B{k}" for k in range(1, 7)] + [str(j) for j in coordinates(robot)]
        return [Output.matrix("PHI", rows, [f"PHI{i}_{c}" for i in labels for c in names])]

    return customize(f"{robot.name}_{name}", algorithm, robot,
                     inputs=floating_inputs(robot, ("q", "qd", "qdd")),
                     title=f"Identification model with the floating base of {robot.name} "
                           f"(columns {', '.join(names)})")


_SPEC = fastpath.Spec(
    lambda robot, params: None if robot.mimic or robot.n_loops else floating_regressor_model(
        robot, params=params, name="floating_regressor_fast"),
    lambda robot, q, qd, qdd: floating_arrays(robot, q=q, qd=qd, qdd=qdd), _numpy)


__all__ = ["floating_regressor", "floating_regressor_model", "floating_regressor_algorithm"]
