"""Dynamic model of the actuated joints of a closed-loop robot, by projection of the
equivalent tree's model (Siciliano et al. §7.3.3, parallelogram arm; Khalil-Kleinfinger loops).

The robot is described by its equivalent tree (links 1..NL, joints 1..NL) and, for
each loop, a cut joint k (NL < k <= NJ) and a closing frame k + B that coincides
with frame k when the loop is closed (:mod:`robmod.geometry.loops`).  The joints
split into the actuated ones (mu = 1, vector q_a) and the passive ones (mu = 0,
cut joints included, vector q_p).

Velocity constraints.  Frames k and k + B coincide, so their twists relative to
the base are equal: with 0J_k, 0J_(k+B) the Jacobians of the two frames
(:func:`robmod.kinematics.jacobians`, linear velocity of the origin then angular
velocity, both in frame 0)::

    G(q) qd = 0,      G = [0J_k - 0J_(k+B)]  (6B x NJ, one block per loop).

For a planar loop only 3 of the 6 rows of a block are independent, in general r
of the 6B rows are.  The independent combinations are taken from the singular
value decomposition ``G = U S V^T``: ``G_r = U_r^T G = S_r V_r^T`` (r x NJ), r the
numerical rank (:func:`loop_jacobian`).  With ``G_r = [G_a  G_p]``::

    qd_p = -G_p^-1 G_a qd_a,       qd = W qd_a,   W = [I; -G_p^-1 G_a]

(rows ordered by joint index, :func:`passive_velocity_map`; Siciliano et al. (3.121)
and (2.64), the Jacobian of the passive joints with respect to the active ones).

Acceleration constraints.  Differentiating, ``G qdd + Gdot qd = 0`` where
``Gdot qd = 0Jdot_k qd - 0Jdot_(k+B) qd`` is the difference of the classical
accelerations of the two frames at qdd = 0 (second-order model [5.47],
:func:`robmod.kinematics.jdot_qdot`), hence (:func:`acceleration_bias`)::

    qdd = W qdd_a + w,   w_a = 0,   w_p = -G_p^-1 U_r^T (Gdot qd).

Dynamics.  By virtual work (the cut joints carry no torque, the passive joints no
actuator), the actuated torques are the projection of the tree torques::

    Gamma_a = W^T Gamma_tree(q, qd, qdd)                 (tree IDM, Newton-Euler)
    B_a = W^T A_tree W,    g_a = W^T Q_tree,    h_a = W^T (Gamma_tree at qdd = W 0 + w)
    qdd_a = B_a^-1 (Gamma_a - h_a)                       (direct dynamics)

For the parallelogram arm this gives Siciliano et al. b_a11, b_a12, b_a22 (with the
misprints of b_a22 corrected, see ``robots/parallelogram.yaml``) and g_a.
:func:`closed_loop_symbolic` derives B_a and g_a as SymPy expressions from a
closed-form solution of the loops (W = d q / d q_a).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import sympy as sp

from ..description.arguments import (finite_array, joint_array,
                                     keyword_options, switched_off)
from ..errors import ArgumentError, RobmodError
from ..geometry.loops import loop_residual, solve_loops
from ..kinematics.jacobians import jacobian
from ..kinematics.second_order import jdot_qdot
from ..symbolic.context import SymbolicContext
from .inertia import inertia_matrix, inertia_matrix_algorithm
from .lagrange import Energy, energy, gravity_torques, gravity_torques_algorithm
from .newton_euler import idm
from .layout import dofs

#: relative singular-value threshold of the rank decision on the loop constraints
_RANK_TOL = 1e-9


# -- structure ------------------------------------------------------------------------------

@keyword_options()
def equivalent_tree(robot):
    """The equivalent tree structure (frames 1..NL, no loop) of a closed-loop robot."""
    n = robot.n_links
    return replace(robot, frames=robot.frames[:n],
                   tools=tuple(t for t in robot.tools if t.frame <= n))


def _joint_split(robot) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(actuated, passive) joint indices: mu = 1 and mu = 0 joints (cut joints included)."""
    if not robot.n_loops:
        raise ArgumentError(f"robot {robot.name!r} has no closed loop")
    act = tuple(robot.actuated)
    pas = tuple(j for j in robot.joints if robot.frame(j).mu == 0)
    if not act:
        raise RobmodError(f"robot {robot.name!r} has no actuated joint (mu = 1)")
    return act, pas


def _idx(robot, js):
    """Positions of the joint frames ``js`` in a joint vector (see ``Robot.joint_index``)."""
    return np.array([robot.joint_index[j] for j in js], dtype=int)


# -- velocity level -------------------------------------------------------------------------

def loop_constraints(robot, q) -> np.ndarray:
    """G(q) (..., 6B, NJ): relative twist of frames k and k + B (in frame 0) per loop."""
    q = joint_array(robot, "q", q)
    blocks = [jacobian(robot, q, j=k) - jacobian(robot, q, j=kb) for k, kb in robot.loop_pairs]
    return np.concatenate(blocks, axis=-2)


def _reduced(robot, q, tol=_RANK_TOL):
    """(U_r (..., 6B, r), G_r (..., r, NJ)): independent combinations of the constraints."""
    G = loop_constraints(robot, q)
    U, s, Vt = np.linalg.svd(G)
    smax = s[..., :1]
    ranks = np.sum(s > tol * np.maximum(smax, 1e-300), axis=-1)
    r = int(np.max(ranks)) if ranks.size else 0
    if ranks.size and np.any(ranks != r):
        raise RobmodError(f"the loop constraints of {robot.name!r} change rank within the "
                          f"batch ({sorted(set(ranks.ravel().tolist()))})")
    return U[..., :, :r], s[..., :r, None] * Vt[..., :r, :]


@keyword_options()
def loop_jacobian(robot, q, *, tol: float = _RANK_TOL) -> np.ndarray:
    """Independent rows of the velocity constraints, ``G_r = U_r^T G`` (..., r, NJ).

    ``G_r qd = 0`` for every admissible velocity; r is the numerical rank of G
    (3 per planar loop, 6 per spatial loop in general).
    """
    return _reduced(robot, q, tol)[1]


def _partition(robot, q, tol=_RANK_TOL):
    act, pas = _joint_split(robot)
    Ur, Gr = _reduced(robot, q, tol)
    if Gr.shape[-2] != len(pas):
        raise RobmodError(
            f"the loops of {robot.name!r} give {Gr.shape[-2]} independent constraints for "
            f"{len(pas)} passive joints {pas}: the actuated joints {act} do not determine "
            "the passive ones (check mu, or a singular configuration)")
    Gp = Gr[..., _idx(robot, pas)]
    Ga = Gr[..., _idx(robot, act)]
    sv = np.linalg.svd(Gp, compute_uv=False)
    if np.any(sv[..., -1] <= tol * sv[..., 0]):
        raise RobmodError(f"{robot.name!r}: the passive joints are not determined by the "
                          "actuated ones at this configuration (singular G_p)")
    return act, pas, Ur, Gp, Ga


@keyword_options()
def passive_velocity_map(robot, q, *, tol: float = _RANK_TOL) -> np.ndarray:
    """W (..., NJ, Na) with qd = W qd_a at a closed configuration q (..., NJ).

    Rows: joints 1..NJ (identity rows for the actuated joints, ``-G_p^-1 G_a`` for the
    passive ones, zero rows for fixed frames); columns: ``robot.actuated``.
    """
    q = joint_array(robot, "q", q)
    act, pas, _, Gp, Ga = _partition(robot, q, tol)
    W = np.zeros(q.shape[:-1] + (robot.n_q, len(act)))
    W[..., _idx(robot, act), np.arange(len(act))] = 1.0
    W[..., _idx(robot, pas), :] = -np.linalg.solve(Gp, Ga)
    return W


def constraint_bias(robot, q, qd) -> np.ndarray:
    """Gdot qd (..., 6B): difference of the accelerations of frames k and k+B at qdd = 0."""
    q = joint_array(robot, "q", q)
    blocks = [jdot_qdot(robot, q, qd, j=k) - jdot_qdot(robot, q, qd, j=kb)
              for k, kb in robot.loop_pairs]
    return np.concatenate(blocks, axis=-1)


@keyword_options()
def acceleration_bias(robot, q, qd, *, tol: float = _RANK_TOL) -> np.ndarray:
    """w (..., NJ) with qdd = W qdd_a + w (qd admissible: G qd = 0); w_a = 0."""
    q = joint_array(robot, "q", q)
    act, pas, Ur, Gp, _ = _partition(robot, q, tol)
    b = np.einsum("...ir,...i->...r", Ur, constraint_bias(robot, q, qd))
    w = np.zeros(np.broadcast_shapes(q.shape, np.shape(qd)))
    w[..., _idx(robot, pas)] = -np.linalg.solve(Gp, b[..., None])[..., 0]
    return w


# -- closing the loops --------------------------------------------------------------------

@keyword_options()
def close_loops(robot, qa, *, q_guess=None, tol: float = 1e-14) -> np.ndarray:
    """Every joint value q (..., NJ) for the actuated values qa (..., Na).

    The passive joints are solved by :func:`robmod.geometry.loops.solve_loops` from
    ``q_guess`` (..., NJ; default zeros), which selects the assembly mode.
    """
    act, pas = _joint_split(robot)
    qa = np.asarray(qa, dtype=float)
    if qa.shape[-1:] != (len(act),):
        raise RobmodError(f"qa must have {len(act)} values (joints {act}), got shape {qa.shape}")
    if q_guess is None:
        q = np.zeros(qa.shape[:-1] + (robot.n_q,))
    else:
        q = np.array(np.broadcast_to(q_guess, qa.shape[:-1] + (robot.n_q,)), dtype=float)
    q[..., _idx(robot, act)] = qa
    q, ok = solve_loops(robot, q, passive=list(pas), tol=tol)
    if not np.all(ok):
        res = np.abs(loop_residual(robot, q)).max()
        raise RobmodError(f"the loops of {robot.name!r} could not be closed (residual {res:.2e});"
                          " give a better q_guess or check that qa is reachable")
    return q


@keyword_options()
def closed_loop_state(robot, qa, qda, qdda=None, *, q_guess=None):
    """(q, qd, qdd, W) of every joint (..., NJ) from the actuated state (qdd None if qdda is)."""
    q = close_loops(robot, qa, q_guess=q_guess)
    W = passive_velocity_map(robot, q)
    qd = np.einsum("...ja,...a->...j", W, np.asarray(qda, dtype=float))
    qdd = None
    if qdda is not None:
        qdd = (np.einsum("...ja,...a->...j", W, np.asarray(qdda, dtype=float))
               + acceleration_bias(robot, q, qd))
    return q, qd, qdd, W


def _tree_torques(robot, q, qd, qdd, switches):
    """Gamma of the equivalent tree (..., NJ), zero for the cut joints."""
    tree = equivalent_tree(robot)
    n = tree.n_q  # the tree's joints come first in the joint vector, the cut joints after
    gam = idm(tree, q[..., :n], qd[..., :n], qdd[..., :n], **switches)
    out = np.zeros(gam.shape[:-1] + (robot.n_q,))
    out[..., :n] = gam
    return out


def _project(W, v):
    return np.einsum("...ja,...j->...a", W, v)


@keyword_options()
def closed_loop_idm(robot, qa, qda, qdda, *, q_guess=None, gravity=True, rotor=True,
                    friction=True, wrench=True, velocity=True, base_motion=True,
                    acceleration=True) -> np.ndarray:
    """Actuated torques Gamma_a = W^T Gamma_tree(q, qd, qdd) (..., Na).

    The passive joints are solved first (:func:`close_loops`), then
    ``qd = W qd_a``, ``qdd = W qdd_a + w`` and the Newton-Euler IDM of the tree
    (switches as :func:`robmod.dynamics.idm`) is projected by virtual work.
    """
    switches = switched_off(closed_loop_idm, gravity=gravity, rotor=rotor, friction=friction,
                            wrench=wrench, base_motion=base_motion)
    # velocity / acceleration off: the actuated joints' (the passive ones follow)
    motion = switched_off(closed_loop_idm, velocity=velocity, acceleration=acceleration)
    if "velocity" in motion:
        qda = np.zeros_like(finite_array("qda", qda))
    if "acceleration" in motion:
        qdda = np.zeros_like(finite_array("qdda", qdda))
    q, qd, qdd, W = closed_loop_state(robot, qa, qda, qdda, q_guess=q_guess)
    return _project(W, _tree_torques(robot, q, qd, qdd, switches))


def _dof_rows(robot, W):
    tree = equivalent_tree(robot)
    return W[..., _idx(robot, dofs(tree)), :]


@keyword_options()
def closed_loop_inertia_matrix(robot, qa, *, q_guess=None, rotor: bool = True) -> np.ndarray:
    """B_a = W^T A_tree W (..., Na, Na) (Siciliano et al. §7.3.3)."""
    q = close_loops(robot, qa, q_guess=q_guess)
    W = passive_velocity_map(robot, q)
    Wd = _dof_rows(robot, W)
    A = inertia_matrix(equivalent_tree(robot), q[..., :len(robot.q)], rotor=rotor)
    return np.einsum("...ia,...ij,...jb->...ab", Wd, A, Wd)


@keyword_options()
def closed_loop_gravity_torques(robot, qa, *, q_guess=None) -> np.ndarray:
    """g_a = W^T Q_tree (..., Na) (Siciliano et al. §7.3.3)."""
    q = close_loops(robot, qa, q_guess=q_guess)
    W = passive_velocity_map(robot, q)
    Q = np.zeros(q.shape)
    Q[..., :len(robot.q)] = gravity_torques(equivalent_tree(robot), q[..., :len(robot.q)])
    return _project(W, Q)


@keyword_options()
def closed_loop_ddm(robot, qa, qda, tau_a, *, q_guess=None, gravity=True, rotor=True,
                    friction=True, wrench=True, velocity=True, base_motion=True) -> np.ndarray:
    """Direct dynamics of the actuated joints: qdd_a = B_a^-1 (Gamma_a - h_a) (..., Na).

    ``tau_a``: the actuated torques Gamma_a (..., Na); ``h_a`` = W^T Gamma_tree(q, qd, w)
    (Coriolis, centrifugal, gravity, friction and the loop's acceleration bias); the switches
    of :func:`robmod.dynamics.ddm`.
    """
    switches = switched_off(closed_loop_ddm, gravity=gravity, rotor=rotor, friction=friction,
                            wrench=wrench, base_motion=base_motion)
    if switched_off(closed_loop_ddm, velocity=velocity):     # the actuated joints at rest
        qda = np.zeros_like(finite_array("qda", qda))
    q, qd, _, W = closed_loop_state(robot, qa, qda, None, q_guess=q_guess)
    w = acceleration_bias(robot, q, qd)
    h = _project(W, _tree_torques(robot, q, qd, w, switches))
    Wd = _dof_rows(robot, W)
    A = inertia_matrix(equivalent_tree(robot), q[..., :len(robot.q)], rotor=rotor)
    B = np.einsum("...ia,...ij,...jb->...ab", Wd, A, Wd)
    tau_a = finite_array("tau_a", tau_a, shape_text=f"{W.shape[-1]} actuated torques")
    if tau_a.shape[-1:] != (W.shape[-1],):
        raise ArgumentError(f"argument tau_a must have {W.shape[-1]} actuated torques in its "
                            f"last dimension, got shape {tau_a.shape}")
    return np.linalg.solve(B, (tau_a - h)[..., None])[..., 0]


@keyword_options()
def closed_loop_energy(robot, q, qd) -> Energy:
    """Kinetic and potential energy (:class:`~robmod.dynamics.Energy`) of the closed-loop robot
    at a closed state (..., NJ)."""
    tree = equivalent_tree(robot)
    n = tree.n_q  # the tree's joints come first in the joint vector
    q, qd = joint_array(robot, "q", q), joint_array(robot, "qd", qd)
    return energy(tree, q[..., :n], qd[..., :n])


# -- symbolic -------------------------------------------------------------------------------

class _Expressions(SymbolicContext):
    """A symbolic context that keeps whole expressions (no intermediate variables)."""

    def __init__(self, robot=None):
        super().__init__(robot, trig_names=False)

    def var(self, expr, name: str):
        return expr


@keyword_options()
def closed_loop_symbolic(robot, solution, *, simplify: bool = True):
    """(B_a, g_a) as SymPy matrices from a closed-form solution of the loops.

    ``solution`` maps every passive joint variable (symbol ``qj`` or name) of the
    tree joints 1..NL to an expression of the actuated variables (cut joints may be
    omitted: they carry no inertia).  Then ``W = d q / d q_a`` exactly and
    ``B_a = W^T A W``, ``g_a = W^T Q`` with A, Q the tree's symbolic models.
    """
    from ..description.expr import symbol

    act, pas = _joint_split(robot)
    sol = {(symbol(k) if isinstance(k, str) else k): sp.sympify(v)  # safe: caller's SymPy
           for k, v in solution.items()}                           # expressions or numbers
    tree = equivalent_tree(robot)
    order = dofs(tree)
    qa = [robot.frame(j).q for j in act]
    missing = [j for j in order if j in pas and robot.frame(j).q not in sol]
    if missing:
        raise RobmodError(f"closed_loop_symbolic: no solution given for passive joints {missing}")
    qfun = [sol.get(robot.frame(j).q, robot.frame(j).q) for j in order]
    W = sp.Matrix([[sp.diff(x, a) for a in qa] for x in qfun])
    ctx = _Expressions(tree)
    Alow = inertia_matrix_algorithm(ctx, tree)
    n = len(order)
    A = sp.zeros(n, n)
    for r, i in enumerate(order):
        for c, j in enumerate(order[: r + 1]):
            A[r, c] = A[c, r] = sp.sympify(Alow.get((i, j), 0))  # safe: robmod expressions
    Q = gravity_torques_algorithm(_Expressions(tree), tree)
    Qv = sp.Matrix([sp.sympify(Q[j - 1] if Q[j - 1] is not None else 0)  # safe: robmod exprs
                    for j in order])
    B = (W.T * A * W).xreplace(sol)
    g = (W.T * Qv).xreplace(sol)
    if simplify:
        B = B.applyfunc(lambda e: sp.simplify(sp.expand_trig(e)))
        g = g.applyfunc(lambda e: sp.simplify(sp.expand_trig(e)))
    return sp.ImmutableMatrix(B), sp.ImmutableMatrix(g)



__all__ = ["equivalent_tree", "loop_constraints", "loop_jacobian", "passive_velocity_map",
           "constraint_bias", "acceleration_bias", "close_loops", "closed_loop_state",
           "closed_loop_idm", "closed_loop_inertia_matrix", "closed_loop_gravity_torques",
           "closed_loop_ddm", "closed_loop_energy", "closed_loop_symbolic"]
