"""Inverse dynamics with contacts: the joint torques and the contact forces that give a
desired motion, the forces inside the friction cones and the torques inside their limits.

A robot in contact (a floating one above all) has more unknowns than equations of motion::

    M qdd + h = S^T tau + J^T lambda          (6 + n equations; tau: n, lambda: 3 per point)

The base's six rows hold no torque: J_b^T lambda = (M qdd + h)_b -- the contact forces must
give the whole robot's rate of momentum (Newton-Euler of the whole, the centroidal dynamics of
Orin, Goswami & Lee 2013), then tau = (M qdd + h - J^T lambda)_joints.  Of the forces that do,
the quadratic program takes those of least norm (weights ``force_weight``) inside the friction
cones, linearized as the pyramid inscribed in each cone (|f_t1|, |f_t2| <= mu f_n / sqrt(2):
Herzog et al. 2016, Wensing & Orin 2013), with f_n >= ``min_normal_force``, and the torques
inside ``tau_max``.  The QP is solved by ProxQP (proxsuite: Bambade et al. 2022, the dense
solver for small problems), the ``contacts`` extra of robmod.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..description.arguments import finite_array, keyword_options
from ..description.base import moving_base
from ..description.contacts import tangent_basis
from ..errors import ArgumentError, RobmodError
from ..kinematics.contacts import checked_contacts, contact_jacobian, contact_rows

__all__ = ["contact_idm", "ContactIDM", "friction_pyramid"]


class ContactIDM(NamedTuple):
    """``tau`` (n_q) the joint torques, ``forces`` (m) the contact forces (world frame, rows
    as :func:`~robmod.kinematics.contact_jacobian`), ``base_wrench`` (6; a floating robot's:
    what the contacts fail to give the base, zero when the motion is feasible)."""

    tau: np.ndarray
    forces: np.ndarray
    base_wrench: np.ndarray


def _proxsuite():
    """The proxsuite package, or a RobmodError naming robmod's extra."""
    try:
        import proxsuite
    except ImportError:
        raise RobmodError("the contact QPs need proxsuite: pip install 'robmod[contacts]' (or "
                          "pip install proxsuite)") from None
    return proxsuite


def _daqp():
    """The daqp package, or None."""
    try:
        import daqp
    except ImportError:
        return None
    return daqp


def solve_qp(H, g, A=None, b=None, C=None, lower=None, upper=None, *, eps=1e-9, cache=None):
    """argmin 1/2 x^T H x + g^T x subject to A x = b and lower <= C x <= upper, by ProxQP
    (dense); a RobmodError when it fails (infeasible constraints).  ``cache``: a dict that
    keeps the solver of each problem size between calls (a controller's), warm-started from
    its last solution.  A QP with inequalities only (H positive definite) is solved by DAQP
    when it is installed (Arnstrom, Bemporad & Axehill 2022: a dual active-set method, whose
    optimum is exact to rounding and which takes some ten microseconds on the whole-body
    controller's, ProxQP some fifty)."""
    daqp = None if A is not None or C is None else _daqp()
    if daqp is not None:
        x, _, flag, _ = daqp.solve(np.ascontiguousarray(H), np.ascontiguousarray(g),
                                   np.ascontiguousarray(C), np.minimum(upper, 1e30),
                                   np.maximum(lower, -1e30))
        if flag != 1:
            raise RobmodError(f"the contact QP has no solution (DAQP's exit flag {flag}): the "
                              "motion asked needs forces outside the friction cones or torques "
                              "beyond their limits")
        return x
    proxsuite = _proxsuite()
    n = H.shape[0]
    neq = 0 if A is None else A.shape[0]
    nin = 0 if C is None else C.shape[0]
    qp = None if cache is None else cache.get((n, neq, nin))
    if qp is None:
        qp = proxsuite.proxqp.dense.QP(n, neq, nin)
        qp.settings.eps_abs = eps
        qp.settings.verbose = False
        qp.init(H, g, A, b, C, lower, upper)
        if cache is not None:
            cache[n, neq, nin] = qp
    else:
        # the same problem a sample later: the scaling (Ruiz's equilibration) of the first
        # one kept, the last solution the start (set after a first solve: ProxQP 0.8 crashes
        # on a warm start that has no previous result)
        qp.settings.initial_guess = proxsuite.proxqp.InitialGuess.WARM_START_WITH_PREVIOUS_RESULT
        qp.update(H, g, A, b, C, lower, upper, update_preconditioner=False)
    qp.solve()
    status = qp.results.info.status
    if status != proxsuite.proxqp.QPSolverOutput.PROXQP_SOLVED:
        if cache is not None:
            cache.pop((n, neq, nin), None)
        raise RobmodError(f"the contact QP has no solution ({status.name}): the motion asked "
                          "needs forces outside the friction cones or torques beyond their "
                          "limits")
    return np.array(qp.results.x)


@keyword_options()
def friction_pyramid(mu, normals, *, min_normal_force=0.0):
    """(C (5k, 3k), lower (5k,), upper (5k,)): lower <= C f <= upper for the forces f (3 per
    contact, world frame) inside the pyramids inscribed in the friction cones of
    coefficients ``mu`` (k,) around the unit ``normals`` (k, 3): |f.t_i| <= mu f.n /
    sqrt(2) (four rows) and f.n >= ``min_normal_force``."""
    mu = np.atleast_1d(finite_array("mu", mu))
    normals = finite_array("normals", normals)
    k = len(mu)
    if mu.ndim != 1 or np.any(mu < 0) or normals.shape != (k, 3) or np.any(
            np.linalg.norm(normals, axis=-1) < 1e-12):
        raise ArgumentError(f"friction_pyramid: mu must be k >= 0 coefficients and normals "
                            f"(k, 3) non-zero vectors, got shapes {mu.shape}, {normals.shape}")
    if normals.shape[0] != k:
        raise ArgumentError(f"friction_pyramid: {k} friction coefficients but "
                            f"{normals.shape[0]} normals")
    C = np.zeros((5 * k, 3 * k))
    lower = np.zeros(5 * k)
    upper = np.full(5 * k, np.inf)
    for i in range(k):
        R = tangent_basis(normals[i])
        t1, t2, n = R[:, 0], R[:, 1], R[:, 2]
        m = mu[i] / np.sqrt(2.0)
        rows = [m * n - t1, m * n + t1, m * n - t2, m * n + t2, n]
        C[5 * i:5 * i + 5, 3 * i:3 * i + 3] = rows
        lower[5 * i + 4] = min_normal_force
    return C, lower, upper


def _point_rows(contacts):
    """(friction coefficient per point, True for the contacts that are points)."""
    if any(c.size != 3 for c in contacts):
        raise ArgumentError("contact_idm: the friction cones are those of point contacts; give "
                            "a sole as its vertices (ContactSurface.points())")
    return np.array([c.friction for c in contacts])


@keyword_options()
def contact_idm(robot, q, qd, qdd, contacts, *, forces=None, tau_max=None, normals=None,
                force_weight: float = 1.0, min_normal_force: float = 0.0) -> ContactIDM:
    """The joint torques and contact forces of a desired motion qdd (a floating robot: q
    (7 + n_q), qd and qdd (6 + n_q)) with the point ``contacts`` (module doc): a
    :class:`ContactIDM`.  ``forces`` (m,): given (world frame), then tau = (M qdd + h - J^T
    f)_joints and the base wrench left (Pinocchio's ``rnea`` less the contact forces);
    otherwise the QP's forces of least norm in the friction pyramids around ``normals`` (k, 3;
    default the world's z) with the torques within ``tau_max`` (n_q,; default the robot's
    ``taumax`` when it has them, else none)."""
    from .newton_euler import idm

    contacts = checked_contacts(robot, contacts)
    floating = moving_base(robot)
    tau_full = idm(robot, q, qd, qdd)
    if tau_full.ndim != 1:
        raise ArgumentError("contact_idm: one configuration at a time (q, qd, qdd of one "
                            "sample)")
    J = contact_jacobian(robot, q, contacts)
    b = 6 if floating else 0
    if forces is not None:
        f = finite_array("forces", forces)
        if f.shape != (contact_rows(contacts),):
            raise ArgumentError(f"contact_idm: forces must have {contact_rows(contacts)} "
                                f"values (one per contact row), got shape {f.shape}")
        rest = tau_full - J.T @ f
        return ContactIDM(rest[b:], f, rest[:b] if floating else np.zeros(0))
    mu = _point_rows(contacts)
    k = len(contacts)
    normals = np.tile([0.0, 0.0, 1.0], (k, 1)) if normals is None else finite_array(
        "normals", normals).reshape(k, 3)
    C, lower, upper = friction_pyramid(mu, normals, min_normal_force=min_normal_force)
    limit = _torque_limit(robot, tau_max)
    if limit is not None:        # tau = tau_full_j - J_j^T f within +-limit
        Jj = J[:, b:].T
        C = np.vstack([C, -Jj])
        lower = np.r_[lower, -limit - tau_full[b:]]
        upper = np.r_[upper, limit - tau_full[b:]]
    m = 3 * k
    H = force_weight * np.eye(m)
    A = J[:, :b].T if floating else None
    f = solve_qp(H, np.zeros(m), A, tau_full[:b] if floating else None, C, lower, upper)
    rest = tau_full - J.T @ f
    return ContactIDM(rest[b:], f, rest[:b] if floating else np.zeros(0))


def _torque_limit(robot, tau_max):
    if tau_max is not None:
        lim = finite_array("tau_max", tau_max)
        if lim.shape not in ((), (robot.n_q,)) or np.any(lim <= 0):
            raise ArgumentError(f"contact_idm: tau_max must be {robot.n_q} positive limits, got "
                                f"{tau_max!r}")
        return np.broadcast_to(lim, (robot.n_q,))
    from .layout import joint_limit_vector

    return joint_limit_vector(robot, "taumax")

