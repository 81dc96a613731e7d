"""Inertia matrix A(q) of a tree-structured robot (Khalil & Dombre [7.5], [7.64]; composite links).

The composite-link method (:mod:`.composite`, written once over a context: the customized model
of the books' Appendix 8 and the numeric batched model).  A mobile or floating base is the
first body of the recursion: the matrix is (6 + n)^2 over its velocity [V0, W0, joint rates]
(Pinocchio's ``crba`` with a free-flyer), the composite inertia IC_0 of the whole robot about
O_0 its base block, the composite wrenches IC_j a_j moved to O_0 its base rows (Featherstone's
CRBA with a floating base).

The NE-columns variant of [7.64] (column i = NE torques with qdd = u_i, qd = 0,
g = 0, no friction nor external wrench, rotor inertia with ``rotor``) is
``inertia_matrix(robot, q, method="ne")`` (a cross-check).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (checked_options, finite_output, keyword_options,
                                     require_numeric, tree_arrays)
from ..description.base import moving_base, velocity_size
from ..errors import ArgumentError
from ..symbolic import fastpath
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .bodies import spatial_matrix
from .composite import composite_columns
from .newton_euler import idm
from .layout import BASE_LABELS, labels, model_inputs, reduce_mimic_matrix


@keyword_options()
def inertia_matrix_algorithm(ctx, robot, *, rotor=True):
    """Lower triangle of A: ``{(i, j): scalar}`` for the labels i >= j of
    the robot's velocity coordinates (the base's six, ``"b1".."b6"``, then the
    joint frames: composite links; ``rotor``: the rotor inertias IA on the diagonal)."""
    if not moving_base(robot):
        return composite_columns(ctx, robot, rotor=rotor)[0]
    A, B, comp = composite_columns(ctx, robot, rotor=rotor, root=True)
    I0 = spatial_matrix(comp[0])
    out = {}
    for r in range(6):
        for c in range(r + 1):
            out[BASE_LABELS[r], BASE_LABELS[c]] = I0[r][c]
    for j, col in B.items():
        for r in range(6):
            out[j, BASE_LABELS[r]] = col[r]
    out.update(A)
    return out


def _reduced(ctx, robot, rotor=True):
    """``(labels, lower triangle)`` of the inertia matrix over the robot's velocity
    coordinates (:func:`~robmod.dynamics.layout.labels`: mimic joints folded, Eᵀ A E)."""
    A = inertia_matrix_algorithm(ctx, robot, rotor=rotor)
    if robot.mimic:
        A = reduce_mimic_matrix(ctx, robot, A)
    return labels(robot), A


def _full(order, A):
    """The symmetric matrix (nested lists) of the lower triangle ``A`` over ``order``."""
    pos = {j: k for k, j in enumerate(order)}
    return [[A.get((i, j) if pos[i] >= pos[j] else (j, i), 0) for j in order] for i in order]


_A = ("A", True)


@keyword_options(method="composite", rotor=True)
def inertia_matrix(robot, q, **options) -> np.ndarray:
    """A(q) at the robot's configuration q (batched): (..., n_q, n_q), or (..., 6 + n_q,
    6 + n_q) over the velocity [V0, W0, joint rates] of a mobile or floating base (independent
    of the base's pose; Pinocchio's ``crba``).

    ``method``: ``"composite"`` (composite links, the default, compiled when hot) or ``"ne"``
    (column by column with the Newton-Euler IDM, (7.64): a cross-check); ``rotor``: the rotor
    inertias IA on the diagonal, with either method.
    """
    if not options:
        return fastpath.evaluate(robot, _A, _INERTIA_SPEC, True, q)
    opts = checked_options(inertia_matrix, options)
    method, rotor = opts["method"], opts["rotor"]
    if method == "ne":
        return _inertia_matrix_ne(robot, q, rotor)
    if method != "composite":
        raise ArgumentError(f"inertia_matrix: method must be 'composite' or 'ne', got {method!r}")
    return fastpath.evaluate(robot, ("A", rotor), _INERTIA_SPEC, rotor, q)


def _check_q(robot, q):
    return tree_arrays(robot, q=q)


def _inertia_numpy(robot, rotor, q):
    (q,) = _check_q(robot, q)
    require_numeric(robot, "inertia_matrix", scope="floating" if moving_base(robot) else
                    "geometry")
    order, A = _reduced(NumericContext(robot, q=q), robot, rotor)
    out = np.zeros(q.shape[:-1] + (len(order), len(order)))
    for r, row in enumerate(_full(order, A)):
        for c, x in enumerate(row):
            out[..., r, c] = x
    return finite_output("inertia_matrix", out, q=q)


def _fast_inertia_model(robot, rotor):
    """The customized A(q) as a full matrix output (for the fast path)."""
    def algorithm(ctx):
        return [Output.matrix("A", _full(*_reduced(ctx, robot, rotor)))]

    return customize(f"{robot.name}_inertia_full", algorithm, robot,
                     inputs=model_inputs(robot, ("q",)))


_INERTIA_SPEC = fastpath.Spec(_fast_inertia_model, _check_q, _inertia_numpy)


@keyword_options()
def inertia_matrix_model(robot, *, rotor: bool = True):
    """Customized inertia matrix: outputs the lower triangle ``A{i}{j}`` (i >= j) over the
    joint variables (mimic joints: Eᵀ A E, see :mod:`robmod.description.mimic`), after the
    base's ``AB11``.. ``AB66`` (its block) and ``A{j}B{r}`` (its rows) for a mobile or floating
    base."""
    order = labels(robot)
    pairs = [(order[r], order[c]) for r in range(len(order)) for c in range(r + 1)]

    def algorithm(ctx):
        A = _reduced(ctx, robot, rotor)[1]
        return [Output.vector("A", [A.get(p, 0) for p in pairs],
                              [f"A{i}{j}".replace("b", "B") for i, j in pairs])]

    kind = f" with a {robot.base_kind} base" if moving_base(robot) else ""
    return customize(f"{robot.name}_inertia", algorithm, robot, inputs=model_inputs(robot, ("q",)),
                     title=f"Inertia matrix of {robot.name}{kind} (composite links)")


def _lower_to_full(values, n):
    """(..., n(n+1)/2) lower triangle (row by row) -> (..., n, n) symmetric."""
    values = np.asarray(values)
    out = np.empty(values.shape[:-1] + (n, n))
    k = 0
    for r in range(n):
        for c in range(r + 1):
            out[..., r, c] = out[..., c, r] = values[..., k]
            k += 1
    return out


def _inertia_matrix_ne(robot, q, rotor) -> np.ndarray:
    """A(q) column by column with the NE inverse model ([7.64]; rotor inertia IA with
    ``rotor``): column k the generalized forces at the unit acceleration k, at rest, without
    gravity, friction nor external wrench."""
    (q,) = _check_q(robot, q)
    n = velocity_size(robot)
    qq = np.broadcast_to(q[..., None, :], q.shape[:-1] + (n, q.shape[-1]))
    off = {} if moving_base(robot) else {"base_motion": False}
    tau = idm(robot, qq, np.zeros(n), np.eye(n), gravity=False, friction=False, wrench=False,
              velocity=False, rotor=rotor, **off)  # (..., column, row)
    return np.swapaxes(tau, -1, -2)


__all__ = ["inertia_matrix", "inertia_matrix_model", "inertia_matrix_algorithm"]
