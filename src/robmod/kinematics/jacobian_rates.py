"""Derivatives of the kinematic Jacobian iJ_j: ∂J/∂q and J̇ (Khalil & Dombre §5.10).

The Jacobian's algorithm (:func:`~robmod.kinematics.jacobian_algorithm`: the DGM's backward
recursion of the positions kP_E, the rotations iA_k) is run on dual numbers
(:mod:`robmod.symbolic.dual`):

* ``jacobian_derivatives``: one direction per joint variable, ``∂(iJ_j)/∂q_k``, an array
  (..., 6, n_q, n_q) whose ``[..., r, c, k]`` is ``∂J_rc/∂q_k`` (the Hessian of the DGM);
* ``jacobian_dot``: one direction, time, the seeds being the joint velocities: ``J̇ =
  Σ_k ∂J/∂q_k q̇_k`` (..., 6, n_q), the time derivative of the function ``jacobian(robot,
  q, j=, i=)``.  For i = 0, ``J̇ q̇`` is :func:`~robmod.kinematics.jdot_qdot` (the second-order
  model (5.47), computed without J̇); for a moving frame i it is d/dt(iJ_j), not
  iR_0 0J̇_j.

Both are customized models (the Jacobian's intermediate variables with their derivative
variables ``DP03E1_q2``, ...) and plain functions on the fast path.  A mobile or floating
base: the Jacobian's six base columns first, the derivatives with respect to the base's pose
on the tangent space (``TB1..TB6``: the base frame moved in itself,
:func:`~robmod.geometry.floating.base_seeds`), J̇ along its twist too.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (checked_options, finite_output, keyword_options,
                                     require_numeric, robot_arrays)
from ..description.base import moving_base
from ..geometry.floating import base_seeds, robot_inputs
from ..symbolic import fastpath
from ..symbolic.algebra import add, mul, stack
from ..symbolic.context import NumericContext
from ..symbolic.dual import DualContext, tangents_of
from ..symbolic.model import Output, customize
from .jacobians import jacobian_algorithm, joint_columns, resolve_frame

_T = "t"    # the direction of time


def _head(robot):
    return 6 if moving_base(robot) else 0


def _directions(robot):
    """The directions of the robot's velocity coordinates: the base's pose on the tangent
    space ``TB1..TB6`` (a mobile or floating base), then the joint variables ``qk``."""
    return [f"TB{k}" for k in range(1, 7)][:_head(robot)] + [str(robot.frame(k).q)
                                                            for k in robot.joints]


def _seeded(ctx, robot, time=False):
    """The DualContext of the joint variables and the base's pose: unit tangents in their own
    directions, or (``time``) one direction, the time, along the velocities."""
    memo = {}
    qd = [ctx.joint(k, "qd") for k in robot.joints] if time else None
    seeds = {(k, "q"): {_T: qd[c]} if time else {str(robot.frame(k).q): 1}
             for c, k in enumerate(robot.joints)}
    if moving_base(robot):
        base = base_seeds(DualContext(ctx, {}, memo=memo))
        if time:       # d/dt along the base's twist: the sum of its tangents, times V0, W0
            twist = ctx.base("qd")
            base = {key: [{_T: add(*[mul(t.get(f"TB{k + 1}", 0), twist[k]) for k in range(6)])}
                          for t in entries] for key, entries in base.items()}
        seeds |= base
    return DualContext(ctx, seeds, memo=memo,
                       name=(lambda n, w: f"D{n}") if time else None)


@keyword_options()
def jacobian_derivatives_algorithm(ctx, robot, *, j=None, i=0, tool=None):
    """``∂J/∂q`` as nested lists ``[r][c][k]`` (6 x n_v x n_v) of the context's scalars: the
    derivative of element (r, c) of iJ_j with respect to the velocity coordinate k (a base's
    pose on the tangent space; frames as :func:`~robmod.kinematics.jacobian_algorithm`)."""
    d = _seeded(ctx, robot)
    J = joint_columns(robot, jacobian_algorithm(d, robot, j=j, i=i, tool=tool), _head(robot))
    names = _directions(robot)
    return [[[tangents_of(x).get(w, 0) for w in names] for x in row] for row in J]


@keyword_options()
def jacobian_dot_algorithm(ctx, robot, *, j=None, i=0, tool=None):
    """``J̇`` (6 x n_v nested lists): iJ_j differentiated along the robot's velocity (the
    statements ``D{name}`` are the time derivatives of the Jacobian's)."""
    d = _seeded(ctx, robot, time=True)
    J = joint_columns(robot, jacobian_algorithm(d, robot, j=j, i=i, tool=tool), _head(robot))
    return [[tangents_of(x).get(_T, 0) for x in row] for row in J]


def _end(robot, j, tool):
    tool_obj, jj = resolve_frame(robot, j, tool)
    return tool_obj, jj, ("E" if tool_obj is not None else str(jj))


@keyword_options()
def jacobian_derivatives_model(robot, *, j=None, i=0, tool=None):
    """Customized ``∂(iJ_j)/∂q``: input q, output ``dJ_dq`` (6, n_v, n_v), elements
    ``DJ{r}{c}_{direction}``; the frames as :func:`~robmod.kinematics.jacobian`."""
    tool_obj, jj, end = _end(robot, j, tool)
    cols = _directions(robot)
    n = len(cols)

    def algorithm(ctx):
        D = jacobian_derivatives_algorithm(ctx, robot, j=jj, i=i, tool=tool_obj)
        names = tuple(f"DJ{r + 1}{c + 1}_{w}" for r in range(6) for c in range(n) for w in cols)
        return [Output("dJ_dq", (6, n, n), names,
                       tuple(_sym(x) for row in D for col in row for x in col))]

    return customize(f"{robot.name}_jacobian_derivatives", algorithm, robot,
                     inputs=robot_inputs(robot, ("q",)),
                     title=f"Derivatives of the Jacobian {i}J{end} of {robot.name}")


@keyword_options()
def jacobian_dot_model(robot, *, j=None, i=0, tool=None):
    """Customized ``J̇`` of iJ_j: inputs q, qd, output ``Jdot`` (6, n_q), elements
    ``JD{r}{c}``; the frames as :func:`~robmod.kinematics.jacobian`."""
    tool_obj, jj, end = _end(robot, j, tool)

    def algorithm(ctx):
        rows = jacobian_dot_algorithm(ctx, robot, j=jj, i=i, tool=tool_obj)
        return [Output.matrix("Jdot", rows, [f"JD{r + 1}{c + 1}" for r in range(6)
                                             for c in range(len(rows[0]))])]

    return customize(f"{robot.name}_jacobian_dot", algorithm, robot,
                     inputs=robot_inputs(robot, ("q", "qd")),
                     title=f"Time derivative of the Jacobian {i}J{end} of {robot.name}")


def _sym(x):
    import sympy as sp

    return sp.sympify(x)  # safe: expressions built by robmod algorithms


def _key(name, opts):
    j, i, tool = opts
    return (name, j, i, None if tool is None else repr(tool))


_OPTS = (None, 0, None)


@keyword_options(j=None, i=0, tool=None)
def jacobian_derivatives(robot, q, **options) -> np.ndarray:
    """``∂(iJ_j)/∂q`` at the robot's q: (..., 6, n_v, n_v), ``[..., r, c, k] = ∂J_rc/∂q_k``
    (n_v = n_q, or 6 + n_q for a mobile or floating base: its pose on the tangent space); the
    frames as :func:`~robmod.kinematics.jacobian`."""
    opts = _OPTS
    if options:
        o = checked_options(jacobian_derivatives, options)
        opts = (o["j"], o["i"], o["tool"])
    return fastpath.evaluate(robot, _key("jacobian_derivatives", opts), _DJ_SPEC, opts, q)


@keyword_options(j=None, i=0, tool=None)
def jacobian_dot(robot, q, qd, **options) -> np.ndarray:
    """``J̇`` of iJ_j at the robot's q, qd: (..., 6, n_v) (for i = 0, ``J̇ q̇`` is
    :func:`~robmod.kinematics.jdot_qdot`); the frames as :func:`~robmod.kinematics.jacobian`."""
    opts = _OPTS
    if options:
        o = checked_options(jacobian_dot, options)
        opts = (o["j"], o["i"], o["tool"])
    return fastpath.evaluate(robot, _key("jacobian_dot", opts), _JD_SPEC, opts, q, qd)


def _resolved(robot, opts):
    j, i, tool = opts
    tool_obj, jj = resolve_frame(robot, j, tool)
    return jj, i, tool_obj


def _dj_numpy(robot, opts, q):
    require_numeric(robot, "jacobian_derivatives", scope="geometry")
    (q,) = robot_arrays(robot, q=q)
    j, i, tool = _resolved(robot, opts)
    D = jacobian_derivatives_algorithm(NumericContext(robot, q=q), robot, j=j, i=i, tool=tool)
    n = len(_directions(robot))
    out = stack([[x for row in D for col in row for x in col]], q.shape[:-1])[..., 0, :]
    return finite_output("jacobian_derivatives", out.reshape(q.shape[:-1] + (6, n, n)), q=q)


def _jd_numpy(robot, opts, q, qd):
    require_numeric(robot, "jacobian_dot", scope="geometry")
    q, qd = robot_arrays(robot, q=q, qd=qd)
    j, i, tool = _resolved(robot, opts)
    rows = jacobian_dot_algorithm(NumericContext(robot, q=q, qd=qd), robot, j=j, i=i, tool=tool)
    return finite_output("jacobian_dot", stack(rows, q.shape[:-1]), q=q, qd=qd)


def _fast(make):
    def build(robot, opts):
        j, i, tool = _resolved(robot, opts)
        return make(robot, j=j, i=i, tool=tool)
    return build


_DJ_SPEC = fastpath.Spec(_fast(jacobian_derivatives_model),
                         lambda robot, q: robot_arrays(robot, q=q), _dj_numpy)
_JD_SPEC = fastpath.Spec(_fast(jacobian_dot_model),
                         lambda robot, q, qd: robot_arrays(robot, q=q, qd=qd), _jd_numpy)

__all__ = ["jacobian_derivatives", "jacobian_derivatives_model", "jacobian_derivatives_algorithm",
           "jacobian_dot", "jacobian_dot_model", "jacobian_dot_algorithm"]
