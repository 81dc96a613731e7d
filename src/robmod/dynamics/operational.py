"""Operational space dynamic model and dynamic manipulability ellipsoid (Siciliano et al. §7.8-7.9).

With J the Jacobian of the task (rows of the geometric Jacobian of a frame or a
tool: linear velocity of its origin and angular velocity, in frame 0), B the
inertia matrix, C qd the Coriolis/centrifugal torques and g the gravity
torques (friction left out, as the book does), the end-effector dynamics are::

    B_A(q) xdd + C_A(q, qd) xd + g_A(q) = F                          (7.133)-(7.139)
    B_A = (J B^-1 J^T)^-1
    C_A xd = B_A J B^-1 C qd - B_A Jdot qd
    g_A = B_A J B^-1 g

and the joint torques that produce the task force F, with any torque Gamma0 acting
in the null space of the task (redundant robots)::

    Gamma = J^T F + (I - J^T Jbar^T) Gamma0,   Jbar = B^-1 J^T B_A   (7.140)-(7.141)

``Jbar`` is the *dynamically consistent* generalized inverse of J: the torques
``(I - J^T Jbar^T) Gamma0`` produce no task acceleration.  For a non-redundant
robot ``Gamma = J^T F`` is the joint-space model itself.

The dynamic manipulability ellipsoid (7.148) is the set of task accelerations
reachable from rest (qd = 0) with unit-norm torques::

    (xdd + J B^-1 g)^T (J^+)^T B^T B J^+ (xdd + J B^-1 g) = 1

its centre ``-J B^-1 g`` is moved by gravity.  Everything is numeric and
batched over leading dimensions of q.

Yoshikawa's dynamic manipulability ellipsoid (Yoshikawa 1985) takes every unit-norm torque
rather than those of the minimum-norm joint accelerations: at rest and without gravity
``xdd = J B^-1 tau``, so ``xdd^T (J B^-1 B^-T J^T)^-1 xdd <= 1``, the axes and lengths of the
SVD of ``J B^-1`` (:func:`dynamic_ellipsoid`; the same ellipsoid as (7.148) without gravity
when J is square, a larger one for a redundant task).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..description.arguments import joint_array, keyword_options
from ..errors import ArgumentError, RobmodError
from ..kinematics.analysis import Ellipsoid, velocity_ellipsoid
from ..kinematics.ellipsoids import ELLIPSOID_KINDS, end_frame, translational_ellipsoid
from ..kinematics.jacobians import jacobian
from ..kinematics.second_order import jdot_qdot
from .inertia import inertia_matrix
from .lagrange import gravity_torques
from .newton_euler import idm


def _rows(rows):
    return tuple(range(6)) if rows is None else tuple(int(r) for r in rows)


def _task_jacobian(robot, q, j, tool, rows):
    return jacobian(robot, q, j=j, i=0, tool=tool)[..., _rows(rows), :]


def _velocity_torques(robot, q, qd):
    """C(q, qd) qd: Newton-Euler at qdd = 0 without gravity, friction, rotor acceleration."""
    return idm(robot, q, qd, np.zeros_like(qd), gravity=False, friction=False, wrench=False)


@dataclass
class OperationalSpace:
    """The operational-space model at q, qd (arrays batched over the leading dimensions)."""

    J: np.ndarray          # (..., m, n) task Jacobian
    B: np.ndarray          # (..., n, n) joint-space inertia matrix
    Lambda: np.ndarray     # (..., m, m) B_A
    mu: np.ndarray         # (..., m)    C_A xd
    p: np.ndarray          # (..., m)    g_A
    Jbar: np.ndarray       # (..., n, m) dynamically consistent inverse B^-1 J^T B_A
    N: np.ndarray          # (..., n, n) torque null-space projector I - J^T Jbar^T
    jdot_qdot: np.ndarray  # (..., m)

    def torques(self, F, tau0=None) -> np.ndarray:
        """Gamma = J^T F + N Gamma0 (7.140); ``tau0``: Gamma0, the torques projected in the
        null space of the task."""
        tau = np.einsum("...mi,...m->...i", self.J, np.asarray(F, dtype=float))
        if tau0 is not None:
            tau = tau + np.einsum("...ij,...j->...i", self.N, np.asarray(tau0, dtype=float))
        return tau

    def task_acceleration(self, F) -> np.ndarray:
        """xdd = B_A^-1 (F - C_A xd - g_A) (the model solved for the task acceleration)."""
        rhs = np.asarray(F, dtype=float) - self.mu - self.p
        return np.linalg.solve(self.Lambda, rhs[..., None])[..., 0]


@keyword_options()
def operational_space(robot, q, qd=None, *, j=None, tool=None, rows=None,
                      rotor: bool = True) -> OperationalSpace:
    """B_A, C_A xd, g_A, Jbar and the null-space projector for frame j (or a tool).

    ``rows`` selects task components among (vx, vy, vz, wx, wy, wz) (e.g. ``(0, 1, 2)``
    for a position task); the task Jacobian must have full row rank.
    """
    q = joint_array(robot, "q", q)
    qd = np.zeros_like(q) if qd is None else joint_array(robot, "qd", qd)
    J = _task_jacobian(robot, q, j, tool, rows)
    B = inertia_matrix(robot, q, rotor=rotor)
    BiJt = np.linalg.solve(B, np.swapaxes(J, -1, -2))            # B^-1 J^T  (n x m)
    M = J @ BiJt                                                  # J B^-1 J^T
    s = np.linalg.svd(M, compute_uv=False)
    if np.any(s[..., -1] <= 1e-12 * np.maximum(s[..., 0], 1e-300)):
        raise RobmodError("the task Jacobian is singular (rank deficient) here: B_A is not "
                          "defined; choose fewer task rows or another configuration")
    Lam = np.linalg.inv(M)
    Lam = 0.5 * (Lam + np.swapaxes(Lam, -1, -2))
    jd = jdot_qdot(robot, q, qd, j=j, tool=tool)[..., _rows(rows)]
    c = _velocity_torques(robot, q, qd)
    g = gravity_torques(robot, q)
    Bi_c = np.linalg.solve(B, c[..., None])[..., 0]
    Bi_g = np.linalg.solve(B, g[..., None])[..., 0]
    mu = np.einsum("...ab,...b->...a", Lam, np.einsum("...mi,...i->...m", J, Bi_c) - jd)
    p = np.einsum("...ab,...b->...a", Lam, np.einsum("...mi,...i->...m", J, Bi_g))
    Jbar = BiJt @ Lam
    n = q.shape[-1]
    N = np.eye(n) - np.swapaxes(J, -1, -2) @ np.swapaxes(Jbar, -1, -2)
    return OperationalSpace(J, B, Lam, mu, p, Jbar, N, jd)


@dataclass
class DynamicEllipsoid:
    """(xdd - centre)^T Q (xdd - centre) = 1: principal axes (columns), semi-axis lengths."""

    centre: np.ndarray     # (..., m)  -J B^-1 g (zero without gravity)
    axes: np.ndarray       # (..., m, m)
    lengths: np.ndarray    # (..., m)
    Q: np.ndarray          # (..., m, m) the core (J^+)^T B^T B J^+

    def level(self, xdd) -> np.ndarray:
        d = np.asarray(xdd, dtype=float) - self.centre
        return np.einsum("...a,...ab,...b->...", d, self.Q, d)


@keyword_options()
def dynamic_manipulability_ellipsoid(robot, q, *, j=None, tool=None, rows=None,
                                     gravity: bool = True, rotor: bool = True
                                     ) -> DynamicEllipsoid:
    """The dynamic manipulability ellipsoid (7.148) at q (robot at rest, unit torque norm).

    The torques of minimum-norm joint accelerations ``tau = B J^+ xdd + g`` with
    ``|tau| = 1``; the semi-axes are the singular values of ``J B^-1`` restricted to the
    range of J (for a square J: of ``J B^-1``), their directions the left singular
    vectors.
    """
    q = joint_array(robot, "q", q)
    J = _task_jacobian(robot, q, j, tool, rows)
    B = inertia_matrix(robot, q, rotor=rotor)
    sv = np.linalg.svd(J, compute_uv=False)
    if np.any(sv[..., -1] <= 1e-9 * sv[..., 0]):
        raise RobmodError("the task Jacobian is singular here: the ellipsoid is degenerate")
    Jp = np.linalg.pinv(J)                                        # n x m
    BJp = B @ Jp
    Q = np.swapaxes(BJp, -1, -2) @ BJp
    w, V = np.linalg.eigh(Q)
    centre = np.zeros(J.shape[:-1])
    if gravity:
        g = gravity_torques(robot, q)
        centre = -np.einsum("...mi,...i->...m", J, np.linalg.solve(B, g[..., None])[..., 0])
    return DynamicEllipsoid(centre, V, 1.0 / np.sqrt(w), Q)


@keyword_options()
def dynamic_ellipsoid(robot, q, *, j=None, tool=None, rows=(0, 1, 2),
                      rotor: bool = True) -> Ellipsoid:
    """Yoshikawa's dynamic manipulability ellipsoid at q: the task accelerations
    ``xdd = J B^-1 tau`` of the unit-norm torques at rest, gravity left out,
    ``xdd^T (J B^-1 B^-T J^T)^-1 xdd <= 1`` — the :class:`~robmod.kinematics.analysis.Ellipsoid`
    of axes U_i and lengths sigma_i of ``J B^-1`` (translational rows by default).

    For a square, regular J its axes are those of :func:`dynamic_manipulability_ellipsoid`
    without gravity; for a task of fewer rows than joints the two differ: (7.148) maps the
    minimum-norm torques of the accelerations (``tau = B J^+ xdd``), Yoshikawa's maps every
    unit torque (``xdd = J B^-1 tau``).  Needs numeric inertial parameters and a regular
    inertia matrix (every joint moving some inertia); a RobmodError says what is missing
    otherwise."""
    q = joint_array(robot, "q", q)
    try:
        B = inertia_matrix(robot, q, rotor=rotor)
    except RobmodError as e:
        raise RobmodError(f"the dynamic ellipsoid needs numeric inertial parameters: {e}") \
            from None
    s = np.linalg.svd(B, compute_uv=False)
    if np.any(s[..., -1] <= 1e-12 * np.maximum(s[..., 0], 1e-300)):
        raise RobmodError(f"the dynamic ellipsoid needs a regular inertia matrix; robot "
                          f"{robot.name!r} has a joint that moves no inertia here (a link "
                          f"without mass, inertia nor rotor inertia IA)")
    J = _task_jacobian(robot, q, j, tool, rows)
    JBi = np.swapaxes(np.linalg.solve(np.swapaxes(B, -1, -2), np.swapaxes(J, -1, -2)), -1, -2)
    return velocity_ellipsoid(JBi)


@keyword_options()
def manipulability_ellipsoid(robot, q, *, kind: str = "velocity", j=None, tool=None) -> Ellipsoid:
    """The translational ``kind`` ellipsoid of the origin of frame j (or of ``tool``; default
    the first tool on the last link, else the last link) at q (Khalil & Dombre §5.9;
    Siciliano et al. §3.9, §7.9):

    * ``"velocity"``: Xd^T (J J^T)^-1 Xd <= 1 (Khalil & Dombre (5.37)) — axes U_i, lengths
      sigma_i of the translational rows J of 0J_n;
    * ``"force"``: f^T J J^T f <= 1 (§5.9.3) — the same axes, lengths 1 / sigma_i;
    * ``"dynamic"``: xdd^T (J A^-1 A^-T J^T)^-1 xdd <= 1 (Yoshikawa 1985;
      :func:`dynamic_ellipsoid`) — the axes and singular values of J A^-1.
    """
    tool, j = end_frame(robot, j, tool)
    if kind == "dynamic":
        return dynamic_ellipsoid(robot, q, j=j, tool=tool, rows=(0, 1, 2))
    if kind not in ELLIPSOID_KINDS:
        raise ArgumentError(f"kind must be one of {', '.join(ELLIPSOID_KINDS)}, got {kind!r}")
    return translational_ellipsoid(robot, q, kind, j, tool)


__all__ = ["OperationalSpace", "operational_space", "DynamicEllipsoid",
           "dynamic_manipulability_ellipsoid", "dynamic_ellipsoid", "manipulability_ellipsoid"]
