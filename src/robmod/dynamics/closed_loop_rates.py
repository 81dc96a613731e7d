"""Derivatives of the dynamic models of the actuated joints of a closed-loop robot (the
models of :mod:`robmod.dynamics.closed_loop`; Pinocchio has no counterpart).

With q(q_a) on the constraint manifold, ``W = ∂q/∂q_a`` (:func:`passive_velocity_map`),
``q̇ = W q̇_a``, ``q̈ = W q̈_a + w(q, q̇)`` and ``Γ_a = W^T Γ_tree(q, q̇, q̈)``, the chain rule
along the manifold (δq = W δq_a) gives, with G the loop constraints (``G W = 0``, ``W_a = I``)
and b = Ġ q̇ (``G_p w_p = -b``)::

    δW_p = -G_p^+ (δG W),          δw_p = -G_p^+ (δb + δG w)
    δΓ_a = δW^T Γ_tree + W^T (∂Γ/∂q δq + ∂Γ/∂q̇ δq̇ + A δq̈)

(G_p^+ the pseudo-inverse of the passive columns: the systems are consistent, differentiated
from identities that hold on the manifold).  δG comes from :func:`~robmod.kinematics.
jacobian_derivatives` of the two frames of each cut, δb from the second-order model
:func:`~robmod.kinematics.jdot_qdot_algorithm` on dual numbers, the tree's derivatives from
:func:`~robmod.dynamics.idm_derivatives`.  The direct model's follow by
``∂q̈_a/∂x = -B_a^-1 ∂Γ_a/∂x`` at the actuated accelerations it gives, ``∂q̈_a/∂Γ_a = B_a^-1``.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import finite_array, keyword_options, switched_off
from ..errors import ArgumentError
from ..kinematics.jacobian_rates import jacobian_derivatives
from ..kinematics.second_order import jdot_qdot_algorithm
from ..symbolic.context import NumericContext
from ..symbolic.dual import DualContext, tangents_of
from .closed_loop import (acceleration_bias, closed_loop_ddm, closed_loop_state,
                          equivalent_tree, loop_constraints)
from .derivatives import DDMDerivatives, IDMDerivatives, idm_derivatives
from .newton_euler import idm


def _bias_derivatives(robot, q, qd):
    """(∂b/∂q, ∂b/∂q̇) (..., 6B, NJ) of b = Ġ q̇, the second-order model on duals."""
    n = robot.n_q
    seeds = {}
    for k, j in enumerate(robot.joints):
        seeds[j, "q"] = {k: 1}
        seeds[j, "qd"] = {n + k: 1}
    ctx = DualContext(NumericContext(robot, q=q, qd=qd), seeds)
    batch = np.broadcast_shapes(q.shape, qd.shape)[:-1]
    blocks = []
    for k, kb in robot.loop_pairs:
        a = jdot_qdot_algorithm(ctx, robot, j=k)
        b = jdot_qdot_algorithm(ctx, robot, j=kb)
        block = np.zeros(batch + (6, 2 * n))
        for r in range(6):
            for side, x in ((1, a[r]), (-1, b[r])):
                for w, t in tangents_of(x).items():
                    block[..., r, w] += side * np.asarray(t)
        blocks.append(block)
    out = np.concatenate(blocks, axis=-2)
    return out[..., :n], out[..., n:]


def _constraint_derivatives(robot, q):
    """∂G/∂q (..., 6B, NJ, NJ) of the loop constraints G = [0J_k - 0J_(k+B)]."""
    blocks = [jacobian_derivatives(robot, q, j=k) - jacobian_derivatives(robot, q, j=kb)
              for k, kb in robot.loop_pairs]
    return np.concatenate(blocks, axis=-3)


def _idx(robot, js):
    return np.array([robot.joint_index[j] for j in js], dtype=int)


def _mv(M, v):
    return np.einsum("...ij,...j->...i", M, v)


def _derivatives(robot, q, qd, qdd, W, qda, qdda, switches, velocity, acceleration):
    act = tuple(robot.actuated)
    pas = tuple(j for j in robot.joints if robot.frame(j).mu == 0)
    ip = _idx(robot, pas)
    tree = equivalent_tree(robot)
    nt = tree.n_q       # the tree's joints come first, the cut joints after
    G = loop_constraints(robot, q)
    Gp_pinv = np.linalg.pinv(G[..., :, ip])
    dG = _constraint_derivatives(robot, q)
    db_dq, db_dqd = _bias_derivatives(robot, q, qd)
    w = acceleration_bias(robot, q, qd)
    D = idm_derivatives(tree, q[..., :nt], qd[..., :nt], qdd[..., :nt], **switches)
    gam = idm(tree, q[..., :nt], qd[..., :nt], qdd[..., :nt], **switches)
    Wt = W[..., :nt, :]
    na = len(act)

    def passive(v):         # a full vector whose passive entries solve G_p x_p = -v
        x = np.zeros(v.shape[:-1] + (robot.n_q,))
        x[..., ip] = -_mv(Gp_pinv, v)
        return x

    def tree_change(dq, dqd, dqdd):
        return (_mv(D.dtau_dq, dq[..., :nt]) + _mv(D.dtau_dqd, dqd[..., :nt])
                + _mv(D.dtau_dqdd, dqdd[..., :nt]))

    cols_q, cols_qd = [], []
    for k in range(na):
        dq = W[..., :, k]
        dGk = np.einsum("...rcm,...m->...rc", dG, dq)
        dW = np.zeros_like(W)
        dW[..., ip, :] = -np.einsum("...pr,...rc,...ca->...pa", Gp_pinv, dGk, W)
        dqd = _mv(dW, qda)
        dw = passive(_mv(db_dq, dq) + _mv(db_dqd, dqd) + _mv(dGk, w))
        dqdd = _mv(dW, qdda) + dw
        cols_q.append(np.einsum("...ja,...j->...a", dW[..., :nt, :], gam)
                      + np.einsum("...ja,...j->...a", Wt, tree_change(dq, dqd, dqdd)))
        dqd = W[..., :, k]
        dqdd = passive(_mv(db_dqd, dqd))
        cols_qd.append(np.einsum("...ja,...j->...a", Wt,
                                 tree_change(0 * dqd, dqd, dqdd)))
    dtau_dq = np.stack(cols_q, axis=-1)
    dtau_dqd = np.stack(cols_qd, axis=-1) if velocity else np.zeros_like(dtau_dq)
    B = np.einsum("...ia,...ij,...jb->...ab", Wt, D.dtau_dqdd, Wt)
    return IDMDerivatives(dtau_dq, dtau_dqd, B if acceleration else np.zeros_like(B))


@keyword_options()
def closed_loop_idm_derivatives(robot, qa, qda, qdda, *, q_guess=None, gravity=True,
                                rotor=True, friction=True, wrench=True, velocity=True,
                                base_motion=True, acceleration=True) -> IDMDerivatives:
    """``(dtau_dq, dtau_dqd, dtau_dqdd)`` of :func:`~robmod.dynamics.closed_loop_idm` with
    respect to the actuated joints' qa, qda, qdda (each (..., Na, Na); the last is B_a); the
    options of :func:`~robmod.dynamics.closed_loop_idm`."""
    switches = switched_off(closed_loop_idm_derivatives, gravity=gravity, rotor=rotor,
                            friction=friction, wrench=wrench, base_motion=base_motion)
    if not velocity:
        qda = np.zeros_like(finite_array("qda", qda))
    if not acceleration:
        qdda = np.zeros_like(finite_array("qdda", qdda))
    q, qd, qdd, W = closed_loop_state(robot, qa, qda, qdda, q_guess=q_guess)
    qda, qdda = np.asarray(qda, dtype=float), np.asarray(qdda, dtype=float)
    return _derivatives(robot, q, qd, qdd, W, qda, qdda, switches, velocity, acceleration)


@keyword_options()
def closed_loop_ddm_derivatives(robot, qa, qda, tau_a, *, q_guess=None, gravity=True,
                                rotor=True, friction=True, wrench=True, velocity=True,
                                base_motion=True) -> DDMDerivatives:
    """``(dqdd_dq, dqdd_dqd, dqdd_dtau)`` of :func:`~robmod.dynamics.closed_loop_ddm` with
    respect to qa, qda, tau_a (each (..., Na, Na); the last is B_a^-1); its options."""
    switches = dict(gravity=gravity, rotor=rotor, friction=friction, wrench=wrench,
                    base_motion=base_motion)
    tau_a = finite_array("tau_a", tau_a)
    qdda = closed_loop_ddm(robot, qa, qda, tau_a, q_guess=q_guess, velocity=velocity,
                           **switches)
    D = closed_loop_idm_derivatives(robot, qa, qda, qdda, q_guess=q_guess, velocity=velocity,
                                    **switches)
    if D.dtau_dqdd.shape[-1] != tau_a.shape[-1]:
        raise ArgumentError(f"argument tau_a must have {D.dtau_dqdd.shape[-1]} actuated torques "
                            f"in its last dimension, got shape {tau_a.shape}")
    Binv = np.linalg.inv(D.dtau_dqdd)
    return DDMDerivatives(-Binv @ D.dtau_dq, -Binv @ D.dtau_dqd, Binv)


__all__ = ["closed_loop_idm_derivatives", "closed_loop_ddm_derivatives"]
