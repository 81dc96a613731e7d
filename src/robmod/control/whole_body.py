"""A whole-body controller of a floating robot with contacts: task-space PD on the base and
the swing feet, and the contact forces by a quadratic program.

At each sample, with the robot's M, h, the feet's Jacobians J and J̇qd (one compiled model), the
QP over the accelerations and the stance feet's forces x = (qdd, f) (Herzog et al. 2016;
Wensing & Orin 2013) is

    min  w_b |qdd_base - a_b|^2 + w_f sum |J_i qdd + J̇_i qd - a_i|^2 (swing feet)
         + w_p |qdd_joints - a_p|^2 + w_l |f|^2
    s.t. (M qdd + h)_base = J_s,base^T f              (the base holds no torque)
         J_s qdd + J̇_s qd = -k_c J_s qd               (the stance feet do not move)
         f in the friction pyramids, f_n >= f_min;  |(M qdd + h - J_s^T f)_joints| <= tau_max

and the torques are tau = (M qdd + h - J_s^T f)_joints: the inverse dynamics with contacts
(:mod:`robmod.dynamics.contact_qp`) of the accelerations the tasks ask, within the limits of
the contacts and the motors.  The tasks are PD laws in the world frame: the base's position
and orientation toward the desired (a height, a velocity to follow, level, no yaw), the swing
feet along the gait's paths (:mod:`.gait`), the joints toward a posture (a weak task that
makes the problem well posed).  A sole is given as its vertices (point contacts).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..description.arguments import finite_array, keyword_options
from ..description.base import moving_base
from ..description.contacts import contact_list
from ..dynamics.contact_qp import friction_pyramid, solve_qp
from ..dynamics.contact_problem import whole_body_terms
from ..errors import ArgumentError
from ..kinematics.contacts import checked_contacts
from ..spatial import angle_axis
from .base import Controller, DEFAULT_DT, sample_time
from .gait import Stand
from .whole_body_kernel import as_rows, qp_kernel

__all__ = ["WholeBodyController"]


def _log(R):
    """The rotation vector theta u of R (3,) (Khalil & Dombre [2.34]-[2.36]; the exact
    :func:`~robmod.spatial.angle_axis` beyond 90 degrees)."""
    w = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    if c < 0:
        a = angle_axis(R, tol=0.0)
        return a.theta * a.u
    s = 0.5 * np.sqrt(w @ w)
    theta = np.arctan2(s, c)
    return w * (0.5 if s < 1e-12 else theta / (2 * s))


def _cross(a, b):
    """a x b of two vectors (3,)."""
    a0, a1, a2 = a.tolist()
    b0, b1, b2 = b.tolist()
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def _rotation(Q):
    """The rotation matrix of the quaternion Q (4,) (scalar first; normalized), as
    :func:`~robmod.spatial.quaternion_to_matrix` without its checks (one state per sample)."""
    q0, q1, q2, q3 = (Q / np.sqrt(Q @ Q)).tolist()
    return np.array([
        [1 - 2 * (q2 * q2 + q3 * q3), 2 * (q1 * q2 - q0 * q3), 2 * (q1 * q3 + q0 * q2)],
        [2 * (q1 * q2 + q0 * q3), 1 - 2 * (q1 * q1 + q3 * q3), 2 * (q2 * q3 - q0 * q1)],
        [2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1), 1 - 2 * (q1 * q1 + q2 * q2)]])


class _QPArrays(NamedTuple):
    """The arrays of the QP of one set of stance feet (module doc): cost H, g; equalities
    A x = b; inequalities lower <= C x <= upper."""

    H: np.ndarray
    g: np.ndarray
    A: np.ndarray
    b: np.ndarray
    C: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    solver: dict        # solve_qp's cache: ProxQP's solver of this set, warm
    idx: np.ndarray     # the stance feet
    srows: np.ndarray   # their rows of J
    tasks: np.ndarray   # the base's and the posture's part of H (diagonal)
    reduced: tuple      # the C kernel's work arrays and the QP in y (x = x0 + Z y)


def _eliminated(P, kernel):
    """(x0, Z, and the QP in y: Hr, gr, Cr, lower, upper) of the QP P with its equalities
    eliminated, x = x0 + Z y (Z a basis of the equalities' null space, x0 their solution of
    least norm: the same optimum in 6 + n - 6 = n unknowns whatever the stance); None when
    the equalities are rank deficient."""
    if kernel is not None:
        W, beta, HZ, Z, x0, *rest = P.reduced
        return (x0, Z, *rest) if kernel.reduce(P[:7], P.reduced) else None
    me = len(P.b)
    Q, R = np.linalg.qr(P.A.T, mode="complete")
    if np.abs(np.diag(R)).min() < 1e-10 * np.abs(P.A).max():
        return None
    x0 = Q[:, :me] @ np.linalg.solve(R[:me].T, P.b)
    Z = Q[:, me:]
    c = P.C @ x0
    return x0, Z, Z.T @ P.H @ Z, Z.T @ (P.H @ x0 + P.g), P.C @ Z, P.lower - c, P.upper - c


def _solve(P, kernel):
    """The solution x = (qdd, f) of the QP P: ProxQP on its n unknowns left once the
    equalities are eliminated (the full QP when they are rank deficient)."""
    red = _eliminated(P, kernel)
    if red is None:
        return solve_qp(P.H, P.g, P.A, P.b, P.C, P.lower, P.upper, cache=P.solver)
    x0, Z, *qp = red
    return x0 + Z @ solve_qp(qp[0], qp[1], None, None, *qp[2:], cache=P.solver)


class WholeBodyController(Controller):
    """The whole-body controller of a floating ``robot`` standing or walking on the point
    contacts ``feet`` (module doc).  ``gait``: which feet stand when (:class:`~robmod.control.
    Stand` by default, :class:`~robmod.control.Trot`); ``q_ref``: the posture (7 + n_q: its
    joints, and the base's height and position to hold; default the configuration at the
    first call); ``velocity``: the base's desired horizontal velocity (3,) in the world;
    gains ``base_gains`` (K_p, K_d) of the base's position and orientation, ``foot_gains`` of
    the swing feet, ``posture_gains`` of the joints; ``tau_max`` (default the robot's
    ``taumax`` where it has them); ``mu`` the friction coefficient assumed (default the
    feet's); a foot that the gait stands but is still ``touch_height`` above the ground keeps
    coming down at ``touchdown_speed`` (a late touchdown) and holds no force until it lands.
    Called as a torque law ``tau = controller(t, q, qd)`` or by
    :func:`~robmod.control.simulate` (a digital controller of period ``dt``; it follows no
    reference: its tasks are its own)."""

    follows_reference = False

    @keyword_options()
    def __init__(self, robot, feet, *, gait=None, q_ref=None, velocity=(0.0, 0.0, 0.0),
                 base_gains=(400.0, 40.0), foot_gains=(300.0, 35.0),
                 posture_gains=(50.0, 10.0),
                 weights=(100.0, 1.0, 1e-2, 1e-5), tau_max=None, mu=None,
                 min_normal_force: float = 0.0, contact_damping: float = 0.0,
                 touch_height: float = 0.002, touchdown_speed: float = 0.3,
                 dt: float = DEFAULT_DT):
        if not moving_base(robot):
            raise ArgumentError("WholeBodyController: the robot must have a floating base "
                                f"(read it with base='floating'); {robot.name!r} has a "
                                f"{robot.base_kind} base")
        self.robot, self.n, self.dt = robot, robot.n_q, sample_time(dt)
        self.feet = checked_contacts(robot, contact_list(feet, "feet"), "feet")
        if any(c.size != 3 for c in self.feet):
            raise ArgumentError("WholeBodyController: feet must be point contacts (a sole: its "
                                "vertices, ContactSurface.points())")
        self.gait = gait if gait is not None else Stand(len(self.feet))
        self.q_ref = None if q_ref is None else finite_array("q_ref", q_ref)
        self.velocity = np.asarray(finite_array("velocity", velocity), float).reshape(3)
        self.base_gains, self.foot_gains, self.posture_gains = (
            tuple(float(x) for x in g) for g in (base_gains, foot_gains, posture_gains))
        self.weights = tuple(float(w) for w in weights)
        self.mu = np.array([c.friction if mu is None else float(mu) for c in self.feet])
        self.tau_max = tau_max
        self.min_normal_force = float(min_normal_force)
        self.contact_damping = float(contact_damping)
        self.touch_height = float(touch_height)
        self.touchdown_speed = float(touchdown_speed)
        self.reset()

    def reset(self):
        """Forget the run's state (the reference captured at the first call, the swings)."""
        self._start = None
        self._lift = {}           # the feet in the air: (where they left, where they land)
        self._shapes = {}
        self.forces = np.zeros((len(self.feet), 3))

    def _limits(self):
        from ..dynamics.layout import joint_limit_vector

        lim = self.tau_max if self.tau_max is not None else joint_limit_vector(self.robot,
                                                                              "taumax")
        return None if lim is None else np.broadcast_to(np.asarray(lim, float),
                                                         (self.robot.n_q,))

    def _base_targets(self, t, q):
        """(p_des, v_des, R_des) of the base at t."""
        p0, R0 = self._start
        return p0 + self.velocity * t, self.velocity, R0

    def __call__(self, t, q, qd, ref=None, z=None):
        return self.output(t, q, qd)

    def output(self, t, q, qd, ref=None, z=None):
        """The joint torques (n_q,) at time t and the state (q, qd) (one sample)."""
        robot, n = self.robot, self.robot.n_q
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        if self._start is None:
            ref_q = q if self.q_ref is None else self.q_ref
            Rr = _rotation(ref_q[3:7])
            yaw = np.arctan2(Rr[1, 0], Rr[0, 0])
            c, s = np.cos(yaw), np.sin(yaw)
            self._start = (ref_q[:3].copy(), np.array([[c, -s, 0.0], [s, c, 0.0],
                                                       [0.0, 0.0, 1.0]]))
            self._posture = ref_q[7:].copy()
            lim = self._limits()
            self._lim = None if lim is None else np.ascontiguousarray(lim)
        nv = 6 + n
        M, h, J, drift, X = whole_body_terms(robot, q, qd, self.feet)   # one compiled call
        stance = self.gait.stance(t).copy()
        wb, wf, wp, _ = self.weights
        rows, paths = self._feet_tasks(t, q, qd, X, stance)
        P = self._structure(stance)
        idx, srows = P.idx, P.srows
        kpp, kdp = self.posture_gains
        kernel = qp_kernel()
        a_base = None if kernel is None else kernel.base_task(q, qd, *self._base_targets(t, q),
                                                              *self.base_gains)
        if a_base is None:              # the NumPy path (or a rotation error beyond 90 deg)
            a_base = self._base_task(t, q, qd, _rotation(q[3:7]))
        a_posture = kpp * (self._posture - q[7:]) - kdp * qd[6:]
        if kernel is not None:          # the QP's arrays in one C call
            kernel.fill(M, h, J, drift, qd, srows, as_rows(rows), paths, X, a_base, a_posture,
                        wb, wf, wp, *self.foot_gains, self.contact_damping, self._lim, P[:7])
        else:
            self._fill(P, M, h, J, drift, qd, rows, self._targets(rows, paths, qd, J, drift, X),
                       a_base, a_posture)
        x = _solve(P, kernel)
        self.forces = np.zeros((len(self.feet), 3))
        self.forces[idx] = x[nv:].reshape(-1, 3)
        if kernel is not None:
            return kernel.torques(M, h, J, srows, x)
        return M[6:] @ x[:nv] + h[6:] - J[srows, 6:].T @ x[nv:]

    def _fill(self, P, M, h, J, drift, qd, rows, targets, a_base, a_posture):
        """The QP's arrays P of this sample (the NumPy path of :mod:`.whole_body_kernel`):
        the tasks' least squares sum w |A qdd - b|^2 as H = sum w A^T A, g = -sum w A^T b
        (the base's and the posture's rows are those of the identity: P.H's diagonal), the
        equalities, the torque limits."""
        nv, ns = 6 + self.n, len(P.idx)
        wb, wf, wp, _ = self.weights
        H, g = P.H[:nv, :nv], P.g[:nv]
        H[...] = P.tasks
        g[:6] = -wb * a_base
        g[6:] = -wp * a_posture
        if rows:
            A = J.reshape(-1, 3, nv)[rows].reshape(-1, nv)
            b = targets.ravel()
            H += wf * (A.T @ A)
            g -= wf * (A.T @ b)
        Js = J[P.srows]
        P.A[:6, :nv] = M[:6]
        P.A[:6, nv:] = -Js[:, :6].T
        P.b[:6] = -h[:6]
        P.A[6:, :nv] = Js
        P.b[6:] = -drift[P.srows] - self.contact_damping * (Js @ qd)
        if self._lim is not None:       # the torques M_j qdd + h_j - J_j^T f within limits
            P.C[5 * ns:, :nv] = M[6:]
            P.C[5 * ns:, nv:] = -Js[:, 6:].T
            P.lower[5 * ns:] = -self._lim - h[6:]
            P.upper[5 * ns:] = self._lim - h[6:]

    def _base_task(self, t, q, qd, R):
        """The base's desired acceleration (6,): a PD in the world toward the desired pose,
        then in the base's own coordinates (VD0, WP0)."""
        kp, kd = self.base_gains
        p_des, v_des, R_des = self._base_targets(t, q)
        V, W = qd[:3], qd[3:6]
        a_w = kp * (p_des - q[:3]) + kd * (v_des - R @ V)
        al_w = kp * _log(R_des @ R.T) - kd * (R @ W)
        out = np.empty(6)
        out[:3] = R.T @ a_w - _cross(W, V)
        out[3:] = R.T @ al_w
        return out

    def _feet_tasks(self, t, q, qd, X, stance):
        """The swing feet (their numbers, a list) and their paths (k, 9): the desired
        position, velocity and acceleration of each; a foot late to touch down is taken out
        of ``stance``."""
        rows, paths = [], []
        lifted, gait = self._lift, self.gait
        path = getattr(gait, "_path", None)
        for i, down in enumerate(stance.tolist()):
            if down:
                if i in lifted:
                    z = float(X[i, 2])
                    if z > self.touch_height:
                        # a late touchdown: the gait stands the foot but it is still in the
                        # air: it keeps coming down (at touchdown_speed) and holds no force
                        stance[i] = False
                        rows.append(i)
                        land = lifted[i][1]
                        paths.append([land[0], land[1], z, 0.0, 0.0, -self.touchdown_speed,
                                      0.0, 0.0, 0.0])
                    else:
                        del lifted[i]
                continue
            phase = gait.swing_phase(t, i)
            if i not in lifted:               # lift-off: from here to Raibert's foothold
                R = _rotation(q[3:7])
                hip = q[:3] + R @ self._hip(i) + self.velocity * (phase[1] if phase else 0.0)
                land = gait.landing(hip, R @ qd[:3], self.velocity) \
                    if hasattr(gait, "landing") else X[i]
                lifted[i] = (X[i].tolist(), np.asarray(land, float).tolist())
            if phase is not None:
                rows.append(i)
                paths.append(path(*lifted[i], *phase) if path is not None else
                             np.concatenate(gait.swing(*lifted[i], *phase)))
        return rows, np.array(paths).reshape(-1, 9)

    def _targets(self, rows, paths, qd, J, drift, X):
        """The swing feet's desired accelerations (k, 3) on their paths (k, 9): the paths'
        acceleration and a PD on position and velocity, less J̇qd (the NumPy path of the C
        kernel's fill)."""
        if not rows:
            return np.zeros((0, 3))
        kpf, kdf = self.foot_gains
        p, v, a = paths[:, :3], paths[:, 3:6], paths[:, 6:]
        Jv = J.reshape(-1, 3, J.shape[-1])[rows] @ qd      # the feet's velocities (k, 3)
        return a + kpf * (p - X[rows]) + kdf * (v - Jv) - drift.reshape(-1, 3)[rows]

    def _structure(self, stance):
        """The QP's arrays for this set of stance feet, made once (their constant parts: the
        friction pyramids, the zeros, the base's and the posture's weights) and refilled at
        every sample."""
        key = stance.tobytes()
        P = self._shapes.get(key)
        if P is None:
            idx = np.flatnonzero(stance)
            nv, ns = 6 + self.n, len(idx)
            nx = nv + 3 * ns
            C, lo, up = friction_pyramid(self.mu[idx], np.tile([0.0, 0.0, 1.0], (ns, 1)),
                                         min_normal_force=self.min_normal_force)
            nin = len(C) + (0 if self._lim is None else self.n)
            wb, _, wp, wl = self.weights
            me, nr = 6 + 3 * ns, nx - 6 - 3 * ns
            P = _QPArrays(np.zeros((nx, nx)), np.zeros(nx), np.zeros((me, nx)), np.zeros(me),
                          np.zeros((nin, nx)), np.zeros(nin), np.zeros(nin), {}, idx,
                          (3 * idx[:, None] + np.arange(3)).ravel(),
                          np.diag(np.r_[np.full(6, wb), np.full(self.n, wp)]),
                          tuple(np.zeros(s) for s in ((me, nx), me, (nx, nr), (nx, nr), nx,
                                                      (nr, nr), nr, (nin, nr), nin, nin)))
            P.H[nv:, nv:] = wl * np.eye(3 * ns)
            P.C[:len(C), nv:] = C
            P.lower[:len(C)], P.upper[:len(C)] = lo, up
            self._shapes[key] = P
        return P

    def _hip(self, i):
        """The foot's nominal position in the base frame (where it stood at the start)."""
        if not hasattr(self, "_hips"):
            from ..kinematics.contacts import contact_poses

            ref = np.r_[0, 0, 0, 1, 0, 0, 0, self._posture]
            self._hips = contact_poses(self.robot, ref, self.feet)[:, :3, 3]
            self._hips[:, 2] = 0.0
        return self._hips[i]
