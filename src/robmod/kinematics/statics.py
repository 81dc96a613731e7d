"""Static model and velocity-force duality (Khalil & Dombre §5.9).

A wrench ``f_en = (f, m)`` ([5.40]-[5.41]; force first, then the moment about
the origin O_n of the end frame, or O_E of a tool) exerted by the end-effector
on the environment is balanced by the joint torques (forces for prismatic
joints)::

    Gamma = J^T f_en                                   [5.43]

from the virtual work ``Gamma^T dq* = f_en^T (dP_n*, delta_n*)`` ([5.42]), with
the Jacobian whose rows are expressed in the frame where the wrench
components are given: 0Jn for a wrench in frame 0, nJn for a wrench in the
end frame (``i='end'``), iJn for frame i.  The same Jacobian maps velocities
and wrenches, so the power is invariant (``qd . Gamma = (J qd) . f``) and the
subspaces of :class:`~robmod.kinematics.analysis.JacobianSVD` read both ways
(§5.9.3): N(J^T) (``range_complement``) holds the wrenches borne by the
structure (Gamma = 0), R(J^T) (``row_space``) the torques that balance some
wrench, N(J) (``null_space``) the torques no wrench can balance.

Wrenches are moved between frames with :func:`robmod.spatial.screws.transform_wrench`.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import finite_vector, jacobian_array, keyword_options
from ..geometry.direct import dgm
from ..spatial.screws import transform_wrench, wrench_transform


def joint_torques(J, f) -> np.ndarray:
    """Gamma = J^T f ([5.43]), batched: J (..., m, n), f (..., m) -> (..., n).

    For a robot, ``J = task_rows_jacobian(robot, q, j=..., tool=..., i=0 | 'end' | k)``:
    ``i`` is the frame whose axes carry the components of f (moment about O_j or O_E in every
    case).
    """
    J = jacobian_array(J)
    f = finite_vector("f", f, J.shape[-2], "wrench components")
    return np.einsum("...ki,...k->...i", J, f)


def wrench_from_torques(J, tau) -> np.ndarray:
    """Least-squares (minimum-norm) wrench f with J^T f = Gamma (``tau``): ``(J^T)^+ Gamma``.

    Exact when Gamma is in R(J^T); the component of f in N(J^T) is not
    observable from the joint torques (Khalil & Dombre §5.9.3).
    """
    J = jacobian_array(J)
    tau = finite_vector("tau", tau, J.shape[-1], "joint torques")
    return np.einsum("...ik,...k->...i", np.linalg.pinv(np.swapaxes(J, -1, -2)), tau)


@keyword_options()
def wrench_transport_matrix(robot, q, *, j=None, i=0, tool=None) -> np.ndarray:
    """6x6 matrix (..., 6, 6) taking a wrench at O_j in R_j (O_E in R_E) to O_i in R_i.

    ``[[R, 0], [P^ R, R]]`` for ``iT_j = [R, P]``
    (:func:`~robmod.spatial.screws.wrench_transform`).
    """
    return wrench_transform(dgm(robot, q, j=j, i=i, tool=tool))


@keyword_options()
def transport_wrench(robot, q, F, *, j=None, i=0, tool=None) -> np.ndarray:
    """The wrench F = (f, m) (..., 6) at O_j in R_j (O_E in R_E) expressed at O_i in R_i.

    ``if = R jf``, ``im = R jm + P x (R jf)`` with ``iT_j = [R, P]`` (Khalil & Dombre §2.6).
    """
    return transform_wrench(dgm(robot, q, j=j, i=i, tool=tool), finite_vector("F", F, 6))


def virtual_powers(J, qd, f):
    """(qd . Gamma, Xd . f) with Gamma = J^T f and Xd = J qd: equal (velocity-force duality)."""
    J = jacobian_array(J)
    qd = finite_vector("qd", qd, J.shape[-1], "joint velocities")
    tau = joint_torques(J, f)
    xd = np.einsum("...ki,...i->...k", J, qd)
    return np.sum(qd * tau, axis=-1), np.sum(xd * np.asarray(f, float), axis=-1)


__all__ = ["joint_torques", "wrench_from_torques", "wrench_transport_matrix", "transport_wrench",
           "virtual_powers"]
