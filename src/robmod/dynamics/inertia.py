"""Inertia matrix A(q) of a tree-structured robot (Khalil & Dombre [7.5], [7.64]; composite links).

Composite-link method (written once over a context, the customized model of
the books' Appendix 8 and the numeric batched model):

1. backward, j = n..1: the composite inertia of the subtree of link j, about
   O_j in frame j, ``IC_j = I_j + sum_k a(k)=j  S_k^T IC_k S_k`` with the
   transfer ``MS' = R MS + M P``, ``J' = R J R^T + M (|P|^2 I - P P^T) + 2 (P.s) I
   - (P s^T + s P^T)``, ``s = R MS`` (R = jR_k, P = jP_k);
2. for each joint j: the wrench needed to accelerate the subtree with
   ``qdd_j = 1``, ``F = IC_j a_j`` (a column of IC_j), gives
   ``A_jj = a_j^T F + IA_j``; moved to each ancestor i (``F <- iS_k^T F``) it
   gives ``A_ij = a_i^T F``.  Elements of joints on different branches are 0.

The NE-columns variant of [7.64] (column i = NE torques with qdd = u_i, qd = 0,
g = 0, no friction nor external wrench, rotor inertia with ``rotor``) is
``inertia_matrix(robot, q, method="ne")`` (a cross-check).
"""
from __future__ import annotations

import numpy as np

from ..deprecation import renamed
from ..description.arguments import (check_arrays, checked_options, finite_output,
                                     keyword_options)
from ..description.mimic import frame_matrix_E
from ..errors import ArgumentError
from ..description.robot import FIXED, PRISMATIC
from ..symbolic import fastpath
from ..symbolic.algebra import add, mul
from ..symbolic.model import Output, customize
from .newton_euler import idm
from ..kinematics.recursion import rot
from .bodies import link_inertia, transfer_inertia, wrench_up
from .layout import (axis_index, coordinates, dofs, geometry, model_inputs, numeric_context,
                     plain_layout, reduce_mimic_matrix)


def _composite_inertias(ctx, robot, geo=None):
    """``{j: (M, MS, J)}``: inertia of the subtree of link j about O_j, in frame j."""
    geo = geo or geometry(ctx, robot)
    n = robot.n_links
    frames = robot.frames[:n]
    comp = {}
    for f in reversed(frames):
        j = f.j
        M, MS, J = link_inertia(ctx, robot.link(j))
        terms_m, terms_s = [M], [[x] for x in MS]
        terms_j = [[[J[r][c]] for c in range(3)] for r in range(3)]
        for k in (g.j for g in frames if g.ant == j):
            R, P = geo[k]
            cm, cs, cj = transfer_inertia(ctx, R, P, comp[k], f"JT{k}")
            terms_m.append(cm)
            for r in range(3):
                terms_s[r].append(cs[r])
                for c in range(3):
                    terms_j[r][c].append(cj[r][c])
        if len(terms_m) == 1:
            comp[j] = (M, MS, J)
            continue
        Mc = ctx.var(add(*terms_m), f"MC{j}")
        MSc = [ctx.var(add(*terms_s[r]), f"MSC{r + 1}{j}") for r in range(3)]
        Jc = [[None] * 3 for _ in range(3)]
        for r in range(3):
            for c in range(r, 3):
                Jc[r][c] = Jc[c][r] = ctx.var(add(*terms_j[r][c]), f"JC{r + 1}{c + 1}{j}")
        comp[j] = (Mc, MSc, Jc)
    return comp


def _unit_wrench(body, sigma):
    """IC a_j: the wrench giving a unit acceleration of joint j to its subtree (at rest)."""
    M, MS, J = body
    if sigma == PRISMATIC:
        return [0, 0, M, MS[1], -MS[0], 0]
    return [-MS[1], MS[0], 0, J[0][2], J[1][2], J[2][2]]


@keyword_options()
def inertia_matrix_algorithm(ctx, robot, *, rotor=True):
    """Lower triangle of A: ``{(i, j): scalar}`` for frames i >= j of :func:`dofs`
    (composite links; ``rotor``: the rotor inertias IA on the diagonal)."""
    geo = geometry(ctx, robot)
    comp = _composite_inertias(ctx, robot, geo)
    order = dofs(robot)
    A = {}
    for j in order:
        f = robot.frame(j)
        F = _unit_wrench(comp[j], f.sigma)
        diag = F[axis_index(f.sigma)]
        if rotor:
            diag = add(diag, ctx.param(robot.link(j).IA))
        A[j, j] = ctx.var(diag, f"A{j}{j}")
        k = j
        while robot.frame(k).ant != 0:
            R, P = geo[k]
            if robot.frame(robot.frame(k).ant).ant == 0 and robot.frame(k).ant in order:
                # last step: only the component along the root joint's axis is needed
                a = robot.frame(k).ant
                ia = axis_index(robot.frame(a).sigma)
                if ia == 2:
                    val = rot(R, F[:3])[2]
                else:
                    f_up = rot(R, F[:3])
                    m_up = rot(R, F[3:])
                    val = add(m_up[2], mul(P[0], f_up[1]), -mul(P[1], f_up[0]))
                A[j, a] = ctx.var(val, f"A{j}{a}")
                break
            F = wrench_up(ctx, R, P, F, f"K{j}", robot.frame(k).ant)
            k = robot.frame(k).ant
            if robot.frame(k).sigma != FIXED:
                A[j, k] = ctx.var(F[axis_index(robot.frame(k).sigma)], f"A{j}{k}")
    return A


def _lower(robot):
    order = coordinates(robot)
    return [(order[r], order[c]) for r in range(len(order)) for c in range(r + 1)]


_A = ("A", True)


@keyword_options(method="composite", rotor=True)
def inertia_matrix(robot, q, **options) -> np.ndarray:
    """A(q), shape (..., n_q, n_q); q of shape (..., n_q) (batched).

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


def _inertia_numpy(robot, rotor, q):
    shape, (q,) = check_arrays(robot, q, names=("q",))
    ctx = numeric_context(robot, q=q)
    A = _fill(robot, inertia_matrix_algorithm(ctx, robot, rotor=rotor), shape[:-1])
    if robot.mimic:      # dependent joints: E^T A E, E = d q_frames / d q
        E = frame_matrix_E(robot, dofs(robot))
        A = np.einsum("ri,...rs,sj->...ij", E, A, E)
    return finite_output("inertia_matrix", A, q=q)


def _fast_inertia_model(robot, rotor):
    """The customized A(q) as a full n x n output (for the fast path)."""
    if not plain_layout(robot):
        return None
    order = dofs(robot)

    def algorithm(ctx):
        A = inertia_matrix_algorithm(ctx, robot, rotor=rotor)
        return [Output.matrix("A", [[A.get((max(i, j, key=order.index), min(i, j,
                                     key=order.index)), 0) for j in order] for i in order])]

    return customize(f"{robot.name}_inertia_full", algorithm, robot,
                     inputs=model_inputs(robot, ("q",)))


def _check_q(robot, q):
    return check_arrays(robot, q, names=("q",))[1]


_INERTIA_SPEC = fastpath.Spec(lambda robot, rotor: _fast_inertia_model(robot, rotor), _check_q,
                              _inertia_numpy)


def _fill(robot, A, batch):
    order = dofs(robot)
    n = len(order)
    out = np.zeros(batch + (n, n))
    for r, i in enumerate(order):
        for c, j in enumerate(order[: r + 1]):
            v = A.get((i, j), 0)
            out[..., r, c] = v
            out[..., c, r] = v
    return out


@keyword_options()
def inertia_matrix_model(robot, *, rotor: bool = True):
    """Customized inertia matrix: outputs the lower triangle ``A{i}{j}`` (i >= j) over the
    joint variables (mimic joints: Eᵀ A E, see :mod:`robmod.description.mimic`)."""
    pairs = _lower(robot)

    def algorithm(ctx):
        A = inertia_matrix_algorithm(ctx, robot, rotor=rotor)
        if robot.mimic:
            A = reduce_mimic_matrix(ctx, robot, A)
        return [Output.vector("A", [A.get(p, 0) for p in pairs],
                              [f"A{i}{j}" for i, j in pairs])]

    return customize(f"{robot.name}_inertia", algorithm, robot, inputs=model_inputs(robot, ("q",)),
                     title=f"Inertia matrix of {robot.name} (composite links)")


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
    ``rotor``)."""
    shape, (q,) = check_arrays(robot, q, names=("q",))
    order = dofs(robot)
    n = len(order)
    nj = robot.n_q
    E = np.zeros((n, nj))
    for c, j in enumerate(order):
        E[c, robot.joint_index[j]] = 1.0
    qq = np.broadcast_to(q[..., None, :], shape[:-1] + (n, nj))
    tau = idm(robot, qq, np.zeros(nj), E, gravity=False, friction=False, wrench=False,
              velocity=False, base_motion=False, rotor=rotor)  # (..., column, joint)
    idx = [robot.joint_index[j] for j in order]
    return np.swapaxes(tau[..., idx], -1, -2)


def _inertia_algorithm(ctx, robot, rotor=True):
    return inertia_matrix_algorithm(ctx, robot, rotor=rotor)


inertia_algorithm = renamed(_inertia_algorithm, "inertia_algorithm",
                            "inertia_matrix_algorithm(ctx, robot, rotor=...)")

__all__ = ["inertia_matrix", "inertia_matrix_model", "inertia_matrix_algorithm"]
