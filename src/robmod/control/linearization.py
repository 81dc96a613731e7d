"""The robot's dynamics linearized on its analytical derivatives (no finite differences of the
plant): the state matrices of ẋ = f(x, Γ), x = (q, q̇), and the Jacobian of a closed loop.

With the derivatives of the direct model (:func:`~robmod.dynamics.ddm_derivatives`, the
recursions differentiated forward; a closed-loop robot's :func:`~robmod.dynamics.
closed_loop_ddm_derivatives` on its actuated joints)::

    A = [[0, I], [∂q̈/∂q, ∂q̈/∂q̇]],      B = [[0], [∂q̈/∂Γ]] = [[0], [A(q)^-1]]

and, sampled with a zero-order hold of period dt, ``A_d = e^{A dt}``, ``B_d = ∫_0^dt e^{A s} ds
B`` (one matrix exponential of [[A, B], [0, 0]] dt).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (finite_array, keyword_options, positive_scalar,
                                     robot_argument)
from ..description.base import moving_base
from ..dynamics.derivatives import ddm_derivatives
from ..errors import ArgumentError
from .plant import Dynamics


def plant_derivatives(dyn, q, qd, tau):
    """(∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂Γ) of a plant's direct model at the joints' state (q, qd)
    (:meth:`Dynamics.derivatives`: a tree's; the actuated joints of a closed-loop robot, its
    loops closed in the plant's assembly mode; a floating robot's joints, its base free with
    no momentum), each (..., n, n)."""
    return dyn.derivatives(q, qd, tau)


def state_blocks(F):
    """(A, B) of the continuous state matrices from the direct model's derivatives ``F``."""
    n = F.dqdd_dq.shape[-1]
    batch = F.dqdd_dq.shape[:-2]
    A = np.zeros(batch + (2 * n, 2 * n))
    A[..., :n, n:] = np.eye(n)
    A[..., n:, :n] = F.dqdd_dq
    A[..., n:, n:] = F.dqdd_dqd
    B = np.zeros(batch + (2 * n, n))
    B[..., n:, :] = F.dqdd_dtau
    return A, B


def discretized(A, B, dt: float):
    """(A_d, B_d): the zero-order-hold sampling of ẋ = A x + B u with period dt (batched)."""
    n, m = A.shape[-1], B.shape[-1]
    M = np.zeros(A.shape[:-2] + (n + m, n + m))
    M[..., :n, :n] = A * dt
    M[..., :n, n:] = B * dt
    E = _expm(M)
    return E[..., :n, :n], E[..., :n, n:]


def _expm(M):
    """e^M of a batch of matrices: Taylor to order 14 of M / 2^s (norm <= 1/2), squared s
    times (truncation below 1e-16 relative; one batched product per term, where SciPy's expm
    takes a Padé solve per matrix)."""
    norm = np.abs(M).sum(axis=-2).max() if M.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm / 0.5)))) if norm > 0.5 else 0
    X = M / 2.0 ** s
    E = np.broadcast_to(np.eye(M.shape[-1]), M.shape).copy()
    for k in range(14, 0, -1):          # Horner: I + X/1 (I + X/2 (I + ...))
        E = np.eye(M.shape[-1]) + (X @ E) / k
    for _ in range(s):
        E = E @ E
    return E


@keyword_options()
def state_matrices(robot, q, qd, tau, *, dt: float = 0.0):
    """(A, B) of the robot's dynamics linearized at (q, q̇, Γ) (each (..., n) for the joint
    variables of a tree, mimic joints or not, the actuated joints of a closed loop, the joints
    of a floating robot with its base free and no momentum, :class:`~robmod.control.
    FloatingDynamics`): ẋ ≈ A δx + B δΓ with x = (q, q̇), or with ``dt > 0`` their
    zero-order-hold sampling x_{k+1} = A_d x_k + B_d Γ_k."""
    dt = positive_scalar("dt", dt, allow_zero=True)
    robot = robot_argument(robot)
    if robot.n_loops or moving_base(robot):
        dyn = Dynamics.of(robot, "robot")
        what = "actuated joint" if robot.n_loops else "joint"
        arrays = [finite_array(k, x, shape_text=f"(..., {dyn.n}) {what} values")
                  for k, x in (("q", q), ("qd", qd), ("tau", tau))]
        if any(x.shape[-1:] != (dyn.n,) for x in arrays):
            why = "" if robot.n_loops else (
                f" (the {robot.base_kind} base free, with no momentum: its pose and momentum "
                "are not states a joint torque controls)")
            raise ArgumentError(f"state_matrices: q, qd, tau must be (..., {dyn.n}) values of "
                                f"the {what}s of {robot.name!r}{why}, got shapes "
                                f"{', '.join(str(x.shape) for x in arrays)}")
        F = plant_derivatives(dyn, *arrays)
    else:                                       # the arrays checked by ddm_derivatives
        F = ddm_derivatives(robot, q, qd, tau)
    A, B = state_blocks(F)
    return discretized(A, B, dt) if dt > 0 else (A, B)


def closed_loop_matrix(plant, controller, ref, x0, eps: float = 1e-6) -> np.ndarray:
    """The Jacobian of the continuous closed loop ẋ = (q̇, DDM(q, q̇, Γ(q, q̇, z)), ż) at x0 =
    (q, q̇, z): the plant by its analytical derivatives, the controller's law by its
    ``law_derivatives`` when it gives them (not None), else by central differences (step
    ``eps``)."""
    n = plant.n
    q, qd, z = x0[:n], x0[n:2 * n], x0[2 * n:]
    m = z.size
    tau = np.asarray(controller.output(0.0, *plant.state_of_joints(q, qd), ref, z), dtype=float)
    F = plant_derivatives(plant, q, qd, tau)
    law = getattr(controller, "law_derivatives", None)
    parts = law(0.0, q, qd, ref, z) if law is not None else None
    if parts is None:       # no derivatives of its own: central differences
        parts = _law_by_differences(plant, controller, ref, q, qd, z, eps)
    Gq, Gqd, Gz, Zq, Zqd, Zz = parts
    A = np.zeros((2 * n + m, 2 * n + m))
    A[:n, n:2 * n] = np.eye(n)
    A[n:2 * n, :n] = F.dqdd_dq + F.dqdd_dtau @ Gq
    A[n:2 * n, n:2 * n] = F.dqdd_dqd + F.dqdd_dtau @ Gqd
    if m:
        A[n:2 * n, 2 * n:] = F.dqdd_dtau @ Gz
        A[2 * n:, :n], A[2 * n:, n:2 * n], A[2 * n:, 2 * n:] = Zq, Zqd, Zz
    return A


def _law_by_differences(plant, controller, ref, q, qd, z, eps):
    """(∂Γ/∂q, ∂Γ/∂q̇, ∂Γ/∂z, ∂ż/∂q, ∂ż/∂q̇, ∂ż/∂z) of a controller by central differences
    with respect to the joints' state (a floating robot's base following, no momentum)."""
    n, m = q.size, z.size
    x0 = np.concatenate([q, qd, z])

    def law(x):
        a, b, c = x[:n], x[n:2 * n], x[2 * n:]
        a, b = plant.state_of_joints(a, b)
        tau = np.asarray(controller.output(0.0, a, b, ref, c), dtype=float)
        dz = np.asarray(controller.update(0.0, a, b, ref, c), dtype=float) if m else c
        return np.concatenate([tau, dz])

    J = np.empty((n + m, x0.size))
    for k in range(x0.size):
        dx = np.zeros_like(x0)
        dx[k] = eps * max(1.0, abs(x0[k]))
        J[:, k] = (law(x0 + dx) - law(x0 - dx)) / (2 * dx[k])
    G, Z = J[:n], J[n:]
    return G[:, :n], G[:, n:2 * n], G[:, 2 * n:], Z[:, :n], Z[:, n:2 * n], Z[:, 2 * n:]


__all__ = ["state_matrices"]
