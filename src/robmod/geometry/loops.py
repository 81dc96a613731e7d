"""Closed loops: the DGM of the equivalent tree plus the loop-closure equations.

A closed-loop robot is described by its equivalent tree (links 1..NL) and, for
each loop, a cut joint k (NL < k <= NJ, carried by link a(k)) and a closing
frame k + B (sigma = 2, fixed on the link on the other side).  The loop is
closed when frames k and k + B coincide:

    kT(k+B)(q) = I                                     (loop-closure equations)

``kT(k+B)`` goes through the common ancestor of the two frames, so the
equations involve only the joints of the loop.  :func:`solve_loops` finds the
passive joint values for given active ones (Gauss-Newton with a
finite-difference Jacobian, batched).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import joint_array, keyword_options, require_numeric
from ..errors import ArgumentError, RobmodError
from ..symbolic.algebra import stack
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .direct import dgm, dgm_algorithm


def _loops(robot):
    if not robot.n_loops:
        raise ArgumentError(f"robot {robot.name!r} has no closed loop")
    return robot.loop_pairs


@keyword_options()
def loop_closure_algorithm(ctx, robot):
    """kT(k+B) (3 x 4 nested lists of context scalars), one per loop (k, k + B) of
    ``robot.loop_pairs``: the identity when the loop is closed."""
    return [dgm_algorithm(ctx, robot, j=kb, i=k) for k, kb in _loops(robot)]


def loop_closure(robot, q) -> np.ndarray:
    """Numeric kT(k+B) of every loop at q (..., NJ): array (..., B, 4, 4), the identity when
    closed (:func:`loop_residual` gives the pose errors)."""
    require_numeric(robot, "loop_closure", scope="geometry")
    q = joint_array(robot, "q", q)
    Ts = loop_closure_algorithm(NumericContext(robot, q=q), robot)
    return np.stack([stack([list(r) for r in U] + [[0, 0, 0, 1]], q.shape[:-1]) for U in Ts],
                    axis=-3)


@keyword_options()
def loop_closure_model(robot):
    """Customized symbolic kT(k+B) for every loop (outputs ``L{k}``): identity when closed."""
    pairs = _loops(robot)
    q = tuple(robot.frame(k).q for k in robot.joints)

    def algorithm(ctx):
        outs = []
        for (k, kb), U in zip(pairs, loop_closure_algorithm(ctx, robot)):
            names = [f"L{k}{r + 1}{c + 1}" for r in range(3) for c in range(4)]
            outs.append(Output.matrix(f"{k}T{kb}", U, names))
        return outs

    return customize(f"{robot.name}_loops", algorithm, robot, inputs={"q": q},
                     title=f"Loop-closure equations of {robot.name}: kT(k+B) = I")


def _pose_error(T):
    """(position, orientation) error of T from the identity: (..., 6)."""
    p = T[..., :3, 3]
    R = T[..., :3, :3]
    w = 0.5 * np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                        R[..., 1, 0] - R[..., 0, 1]], axis=-1)
    return np.concatenate([p, w], axis=-1)


def loop_residual(robot, q) -> np.ndarray:
    """Loop-closure residuals at q (..., NJ): array (..., B, 6), zero when every loop is closed."""
    q = joint_array(robot, "q", q)
    res = [_pose_error(dgm(robot, q, j=kb, i=k)) for k, kb in robot.loop_pairs]
    return np.stack(res, axis=-2) if res else np.zeros(q.shape[:-1] + (0, 6))


@keyword_options()
def solve_loops(robot, q, *, passive=None, tol=1e-12, max_iter=50):
    """Passive joint values closing every loop, the others fixed at their values in ``q``.

    ``passive``: frame indices solved for (default: the joints with mu = 0).
    Returns (q, converged) with q of the same shape as the input.
    """
    q = np.array(joint_array(robot, "q", q))
    if passive is None:
        passive = [j for j in robot.joints if robot.frame(j).mu == 0]
    idx = np.array([robot.joint_index[j] for j in passive], dtype=int)
    if idx.size == 0:
        raise RobmodError("no passive joint to solve the loops for")
    batch = q.shape[:-1]
    h = 1e-7
    for _ in range(max_iter):
        r = loop_residual(robot, q).reshape(batch + (-1,))
        if np.all(np.abs(r) < tol):
            break
        J = np.empty(batch + (r.shape[-1], idx.size))
        for c, i in enumerate(idx):
            qp = q.copy()
            qp[..., i] += h
            qm = q.copy()
            qm[..., i] -= h
            J[..., c] = (loop_residual(robot, qp).reshape(r.shape)
                         - loop_residual(robot, qm).reshape(r.shape)) / (2 * h)
        step = np.linalg.lstsq(J, -r[..., None], rcond=None)[0][..., 0] if not batch else \
            np.linalg.pinv(J) @ (-r[..., None])
        step = step.reshape(batch + (idx.size,))
        q[..., idx] += np.clip(step, -0.5, 0.5)
    r = loop_residual(robot, q).reshape(batch + (-1,))
    return q, np.all(np.abs(r) < 1e-9, axis=-1)


__all__ = ["loop_closure", "loop_closure_model", "loop_closure_algorithm", "loop_residual",
           "solve_loops"]
