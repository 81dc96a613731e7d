"""Resolved-rate following of a task-space path (Khalil & Dombre §6.4-§6.5, Figs 6.1-6.4).

At each sample t_k of the time grid the joint velocities come from an inverse
kinematic model (any solver ``solver(J, xd, q) -> qd`` of
:mod:`robmod.kinematics.ikm`) applied to the desired task velocity plus a
closed-loop correction of the task error::

    e_k = (Pd - P, theta u)[rows]         (position error, rotation error rot(u, theta) = Rd R^T)
    qd_k = solver(J(q_k)[rows], Xd_d(t_k) + K e_k, q_k)
    q_k+1 = q_k + (t_k+1 - t_k) qd_k      (explicit Euler, fixed steps)

Everything is expressed in frame 0: ``J = 0J_E`` (linear velocity of O_E,
angular velocity), the error as in the numerical IGM (Khalil & Dombre §6.6).

The path is a function ``path(t) -> (Xd, Vd)``: ``Xd`` a 4x4 (or 3x4) desired
location 0T_E, or a 3-vector desired position (position-only task); ``Vd`` the
desired velocity, either the 6 components (v, omega) or only the task rows.
``rows`` (default: all 6 for a location, (0, 1, 2) for a position) selects the
task components, e.g. ``(0, 1)`` for a planar positioning task.

The three-link planar robot of Khalil & Dombre's Figs 6.3-6.4 is
:func:`robmod.description.planar3r` (a robot factory of the robot library).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..description.arguments import joint_array, keyword_options
from ..errors import RobmodError
from ..spatial.pose_errors import rotation_error
from .ikm import PseudoInverse
from .jacobians import pose_and_jacobian


@dataclass(frozen=True)
class ResolvedRateResult:
    """Joint trajectory and tracking errors of a resolved-rate run.

    ``t`` (N+1,); ``q`` (N+1, NJ); ``qd`` (N, NJ) joint velocities applied on
    [t_k, t_k+1]; ``error`` (N+1, m) task error at every sample; ``rows``.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    error: np.ndarray
    rows: tuple

    @property
    def position_error(self) -> np.ndarray:
        """||error|| over the position rows (N+1,)."""
        idx = [k for k, r in enumerate(self.rows) if r < 3]
        return np.linalg.norm(self.error[:, idx], axis=-1)

    @property
    def orientation_error(self) -> np.ndarray:
        """||theta u|| over the orientation rows (N+1,) (0 for a position task)."""
        idx = [k for k, r in enumerate(self.rows) if r >= 3]
        return np.linalg.norm(self.error[:, idx], axis=-1)

    @property
    def joint_speed(self) -> np.ndarray:
        """||qd_k|| (N,)."""
        return np.linalg.norm(self.qd, axis=-1)


def _target(Xd):
    """(Pd, Rd or None) from a location or a position."""
    Xd = np.asarray(Xd, dtype=float)
    if Xd.shape == (3,):
        return Xd, None
    if Xd.shape in ((4, 4), (3, 4)):
        return Xd[:3, 3], Xd[:3, :3]
    raise RobmodError(f"the path must give a 4x4 location or a 3-vector position, got {Xd.shape}")


def _task_error(T, Pd, Rd):
    ep = Pd - T[:3, 3]
    er = np.zeros(3) if Rd is None else rotation_error(Rd, T[:3, :3])
    return np.concatenate([ep, er])


@keyword_options()
def resolved_rate(robot, q0, path: Callable, t, solver=None, *, j=None, tool=None, rows=None,
                  gain=0.0) -> ResolvedRateResult:
    """Follow ``path`` over the time grid ``t`` from ``q0`` (see the module documentation).

    ``solver``: an IKM callable ``(J, xd, q) -> qd`` (default
    :class:`~robmod.kinematics.ikm.PseudoInverse`); ``gain``: the error gain K
    (a scalar or one per task row; 0 = open loop, the drift of the Euler
    integration and of the IKM is then not corrected).
    """
    solver = PseudoInverse() if solver is None else solver
    q = joint_array(robot, "q0", q0).copy()
    if q.ndim != 1:
        raise RobmodError("resolved_rate follows one path from one q0 of shape (NJ,)")
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 2 or np.any(np.diff(t) <= 0):
        raise RobmodError("t must be an increasing 1-D time grid with at least two samples")
    Pd, Rd = _target(path(t[0])[0])
    if rows is None:
        rows = tuple(range(6)) if Rd is not None else (0, 1, 2)
    rows = tuple(int(r) for r in rows)
    gain = np.broadcast_to(np.asarray(gain, dtype=float), (len(rows),))
    N = t.size - 1
    Q = np.zeros((N + 1, q.size))
    QD = np.zeros((N, q.size))
    E = np.zeros((N + 1, len(rows)))
    for k in range(N + 1):
        Xd, Vd = path(t[k])
        Pd, Rd = _target(Xd)
        T, J = pose_and_jacobian(robot, q, j=j, tool=tool)
        e = _task_error(T, Pd, Rd)[list(rows)]
        Q[k], E[k] = q, e
        if k == N:
            break
        Vd = np.asarray(Vd, dtype=float)
        if Vd.shape == (6,) and len(rows) != 6:
            Vd = Vd[list(rows)]
        if Vd.shape != (len(rows),):
            raise RobmodError(f"the path velocity must have 6 or {len(rows)} values, "
                              f"got {Vd.shape}")
        qd = np.asarray(solver(J[list(rows)], Vd + gain * e, q), dtype=float)
        QD[k] = qd
        q = q + (t[k + 1] - t[k]) * qd
    return ResolvedRateResult(t, Q, QD, E, rows)




__all__ = ["resolved_rate", "ResolvedRateResult"]
