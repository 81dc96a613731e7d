"""Point-to-point motion in task space: a straight line with a rotation about a fixed axis
(Khalil & Dombre §8.4).

From the initial location T^i = (R^i, P^i) to the final one T^f = (R^f, P^f) of the tool frame:

* the orientation turns by alpha about an axis u fixed in the tool frame,
  rot(u, alpha) = R^i^T R^f (8.50), with C alpha = (tr M - 1)/2,
  S alpha = 1/2 ||(M32 - M23, M13 - M31, M21 - M12)||, u = that vector / (2 S alpha) (8.51);
  near alpha = pi u comes from the symmetric part of M (Khalil & Dombre §2.3.8); alpha = 0: no
  rotation (u is then arbitrary, (0, 0, 1));
* the tool centre point moves on the line P(t) = P^i + r(t) (P^f - P^i) (8.53) and the
  orientation is R(t) = R^i rot(u, r(t) alpha) (8.54); its angular velocity in frame 0 is
  omega = R^i u rd alpha (8.57).  With ``axis="base"`` the axis u0 = R^i u is fixed in frame 0
  and R(t) = rot(u0, r(t) alpha) R^i ((8.56); the same rotations, written in frame 0);
* the two variables D = ||P^f - P^i|| and alpha are timed together by one law of
  :func:`~robmod.trajectory.laws.point_to_point` with the task-space limits (linear speed and
  acceleration, angular speed and acceleration): ``point_to_point([0, 0], [D, alpha], law,
  qd_max=[v_max, w_max], qdd_max=[a_max, wd_max])`` gives the synchronised r(t) (§8.3).

Joint values: one branch of the inverse geometric model, the solution nearest the start
configuration ``q_start`` at r = 0 and then, at each sample of a dense grid in r, the solution
nearest the extrapolation of the previous ones (``method="igm"``, the analytic IGM of
:mod:`robmod.geometry.inverse`); or Newton corrections on the inverse kinematic model
(``method="ikm"``, for robots without an analytic IGM).  Joint velocities and accelerations:
qd = J^-1 xd and qdd = J^-1 (xdd - Jdot qd) (the second-order model, Khalil & Dombre (5.46)),
written with the path derivatives q' = J^-1 xi, q'' = -J^-1 (Jdot qd)(q, q') of
:mod:`.task_path`; the jerk is rddd q' + 3 rd rdd q'' + rd^3 q''' with q''' by a central
difference of q'' along the path (relative accuracy about 1e-7).

Checks on the dense grid (``n_check`` values of r) before anything is returned: a pose without
IGM solution (outside the workspace), a singular configuration (smallest singular value of
0J_E below ``singular_tol``), a forced branch change (the nearest solution further than
``branch_tol`` from the continuation of the branch), a joint beyond its limits: a
:class:`~robmod.errors.RobmodError` names the first one with its time (in the task-space
timing) and the tool position.  Joint velocity and acceleration limits (the robot's qdmax,
qddmax by default) are checked on a dense time grid; when exceeded the whole motion is slowed
by the smallest uniform time scaling k that fits (qd scales as 1/k, qdd as 1/k^2), recorded in
``stretch``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..description.arguments import pose_array
from ..errors import ArgumentError, RobmodError
from ..geometry.direct import dgm
from ..description.arguments import keyword_options, number_array
from ..spatial.rotations import angle_axis, rotation_part
from ..kinematics import igm_numeric
from .base import Trajectory, joint_vector, limit_vector, robot_limits
from .laws import LAWS, PointToPoint, point_to_point
from .task_path import (JointSolver, LineGeometry, first_problem, track_igm, track_ikm)


def _as_transform(T, name: str) -> np.ndarray:
    """A finite 4x4 homogeneous transform (a 3x4 is completed)."""
    return pose_array(name, T, batch=False, rotation_tol=1e-6)


@keyword_options()
def fixed_axis_rotation(R_start, R_end, *, axis: str = "tool"):
    """(alpha, u) with rot(u, alpha) = R^i^T R^f (Khalil & Dombre (8.50)-(8.51)), alpha in
    [0, pi]; ``axis="base"``: rot(u0, alpha) = R^f R^i^T (the axis in frame 0, (8.56)).
    Near pi the axis comes from the symmetric part; alpha = 0 gives u = (0, 0, 1)."""
    Ri, Rf = rotation_part(R_start), rotation_part(R_end)
    if axis not in ("tool", "base"):
        raise RobmodError(f"axis must be 'tool' (fixed in the tool frame, (8.54)) or 'base' "
                          f"(fixed in frame 0, (8.56)), got {axis!r}")
    M = Ri.T @ Rf if axis == "tool" else Rf @ Ri.T
    a = angle_axis(M, tol=0.0)
    return float(a.theta), np.asarray(a.u, dtype=float)


@dataclass(frozen=True, eq=False)
class TaskLine(Trajectory):
    """A task-space line (see the module's description).  ``sample(t)`` gives joint values;
    ``pose(t)`` and ``twist(t)`` the tool frame's location and velocity (v, omega) in frame 0;
    ``path_parameter(t)`` gives r and its derivatives."""

    robot: object
    T_start: np.ndarray
    T_end: np.ndarray
    alpha: float
    u: np.ndarray                 # axis in the tool frame (axis="tool") or frame 0 ("base")
    axis: str
    profile: PointToPoint         # (D, alpha) synchronised, stretched
    solver: JointSolver = field(repr=False)
    r_ref: np.ndarray = field(repr=False)
    q_ref: np.ndarray = field(repr=False)
    qp_ref: np.ndarray = field(repr=False)
    method: str = "igm"
    stretch: float = 1.0          # duration / that of the task-space law (joint limits)
    limits: tuple | None = None   # joint (qd_max, qdd_max) used (None where unknown)
    task_limits: tuple | None = None   # ((v_max, w_max), (a_max, wd_max))
    branch_tol: float = 0.1

    @property
    def n(self) -> int:
        return self.q_ref.shape[1]

    @property
    def duration(self) -> float:
        return self.profile.duration

    @property
    def phases(self) -> tuple:
        return self.profile.phases

    @property
    def distance(self) -> float:
        return float(np.linalg.norm(self.T_end[:3, 3] - self.T_start[:3, 3]))

    @property
    def q_start(self) -> np.ndarray:
        return self.q_ref[0].copy()

    @property
    def q_end(self) -> np.ndarray:
        return self.q_ref[-1].copy()

    @cached_property
    def _spline(self):
        from scipy.interpolate import CubicHermiteSpline

        return CubicHermiteSpline(self.r_ref, self.q_ref, self.qp_ref, axis=0)

    def path_parameter(self, t):
        """(r, rd, rdd, rddd) at the times t (any shape), held before 0 and after the end."""
        t = np.asarray(t, dtype=float)
        s = self.profile.sample(t)
        D = self.profile.D
        k = int(np.argmax(np.abs(D)))
        if D[k] == 0:
            r = np.ones_like(t) if self.duration == 0 else np.clip(t / self.duration, 0, 1)
            z = np.zeros_like(t)
            return r, z, z, z
        return tuple(x[..., k] / D[k] for x in s)

    def pose(self, t) -> np.ndarray:
        """0T_E(t) (t.shape + (4, 4)) on the line."""
        return self.solver.geom.pose(self.path_parameter(t)[0])

    def twist(self, t) -> np.ndarray:
        """(v, omega) (t.shape + (6,)) in frame 0: rd (P^f - P^i, alpha R^i u) (8.57)."""
        return self.path_parameter(t)[1][..., None] * self.solver.geom.xi

    def joints_at(self, r) -> np.ndarray:
        """q on the branch followed at the path parameters r (any shape, in [0, 1])."""
        r = np.clip(np.asarray(r, dtype=float), 0.0, 1.0)
        flat = r.ravel()
        q, dist = self.solver.solve(flat, self._spline(flat))
        bad = ~(dist <= self.branch_tol)
        if bad.any():
            raise RobmodError(f"task-space line: no solution on the branch followed at "
                              f"r = {flat[bad][0]:.6g}")
        return q.reshape(r.shape + (self.n,))

    def deviation(self, t, q=None):
        """(position error (T,), orientation error (T,)) of the tool frame the joints reach
        (their DGM, ``q`` sampled at ``t``, default the trajectory's) from the planned line:
        ||P(q(t)) - P(t)|| and the angle of R(t)^T R(q(t))."""
        t = np.asarray(t, dtype=float)
        planned = self.pose(t)
        reached = self.solver.dgm(self.sample(t).q if q is None else q)
        dp = np.linalg.norm(reached[..., :3, 3] - planned[..., :3, 3], axis=-1)
        R = np.swapaxes(planned[..., :3, :3], -1, -2) @ reached[..., :3, :3]
        return dp, angle_axis(R, tol=0.0).theta

    def _sample(self, t):
        r, rd, rdd, rj = self.path_parameter(t)
        q = self.joints_at(r)
        qp, qpp, qppp = self.solver.rates(q, third=True)
        rd, rdd, rj = rd[:, None], rdd[:, None], rj[:, None]
        return (q, rd * qp, rdd * qp + rd ** 2 * qpp,
                rj * qp + 3 * rd * rdd * qpp + rd ** 3 * qppp)


def _task_profile(D, alpha, law, duration, task_limits):
    lim = None if task_limits is None else dict(qd_max=task_limits[0], qdd_max=task_limits[1])
    try:
        return point_to_point([0.0, 0.0], [D, alpha], law, duration=duration, **(lim or {}))
    except RobmodError as e:
        raise RobmodError(f"task-space line (distance {D:.6g} m, angle {alpha:.6g} rad): "
                          f"{e}".replace("qd_max", "v_max, w_max")
                          .replace("qdd_max", "a_max, wd_max")) from None


def _time_of(profile: PointToPoint, r: float) -> float:
    """The first time at which the law reaches r (bisection; r(t) is nondecreasing)."""
    T = profile.duration
    D = profile.D
    k = int(np.argmax(np.abs(D)))
    if T == 0 or D[k] == 0:
        return r * T
    lo, hi = 0.0, T
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if profile.sample(mid).q[k] / D[k] < r:
            lo = mid
        else:
            hi = mid
    return hi


def _task_limits(v_max, a_max, w_max, wd_max):
    given = {"v_max": v_max, "a_max": a_max, "w_max": w_max, "wd_max": wd_max}
    if all(v is None for v in given.values()):
        return None
    missing = [k for k, v in given.items() if v is None]
    if missing:
        raise RobmodError(f"task-space limits: give all of v_max, a_max, w_max, wd_max (missing "
                          f"{', '.join(missing)}), or none and a duration")
    vals = {k: limit_vector(v, 1, k)[0] for k, v in given.items()}
    return (np.array([vals["v_max"], vals["w_max"]]), np.array([vals["a_max"], vals["wd_max"]]))


@keyword_options()
def task_line(robot, start, end, law: str = "quintic", *, duration=None, v_max=None,
              a_max=None, w_max=None, wd_max=None, q_start=None, axis: str = "tool",
              method: str = "igm", tool=None, qd_max=None, qdd_max=None,
              singular_tol: float = 1e-3, branch_tol: float = 0.1,
              n_check: int = 2001) -> TaskLine:
    """A straight line of the tool frame from ``start`` to ``end`` with a rotation about a fixed
    axis (Khalil & Dombre §8.4; see the module's description).

    ``start``: 0T_E^i (4x4), or the initial joint values q^i (then T^i = DGM(q^i) and the motion
    starts on q^i's branch); ``end``: 0T_E^f.  ``law``: one of :data:`LAWS`, timed by the
    task-space limits ``v_max`` (m/s), ``a_max`` (m/s^2), ``w_max`` (rad/s), ``wd_max``
    (rad/s^2) (all four), and/or a ``duration``.  ``q_start``: the branch starts at the IGM
    solution nearest it (default q^i, else the zero configuration).  ``axis``: "tool" (8.54)
    or "base" (8.56).  ``method``: "igm" (analytic IGM) or "ikm" (Newton on the inverse
    kinematic model).  ``qd_max``, ``qdd_max``: joint limits (default: the robot's), met by
    uniform time scaling (``stretch``, also applied to a given ``duration``).  Raises :class:`RobmodError` at the first unreachable,
    singular (smallest singular value of J < ``singular_tol``), branch-changing or
    joint-limit-violating point of the line.
    """
    if law not in LAWS:
        raise ArgumentError(f"law must be one of {', '.join(LAWS)}, got {law!r}")
    if method not in ("igm", "ikm"):
        raise RobmodError(f"method must be 'igm' (analytic IGM) or 'ikm' (inverse kinematic "
                          f"model), got {method!r}")
    if axis not in ("tool", "base"):
        raise RobmodError(f"axis must be 'tool' (fixed in the tool frame, (8.54)) or 'base' "
                          f"(fixed in frame 0, (8.56)), got {axis!r}")
    n = len(robot.joints)
    if n != 6:
        raise RobmodError(f"task_line needs a robot with 6 joints (a square Jacobian); "
                          f"{robot.name!r} has {n}")
    if not (isinstance(n_check, (int, np.integer)) and n_check >= 11):
        raise RobmodError(f"n_check must be an integer >= 11, got {n_check!r}")
    for name, v in (("singular_tol", singular_tol), ("branch_tol", branch_tol)):
        if not (np.isfinite(v) and v > 0):
            raise RobmodError(f"{name} must be a positive number, got {v!r}")
    start = number_array(start, "start")     # joint values (n,) or a transform (4, 4)
    if start.shape == (n,):
        q_i = joint_vector(start, n, "start")
        T_i = dgm(robot, q_i, tool=tool)
        q_start = q_i if q_start is None else q_start
    else:
        T_i = _as_transform(start, "start")
    T_f = _as_transform(end, "end")
    q_start = None if q_start is None else joint_vector(q_start, n, "q_start")
    alpha, u = fixed_axis_rotation(T_i, T_f, axis="tool")
    geom = LineGeometry(T_i[:3, 3].copy(), T_f[:3, 3] - T_i[:3, 3], T_i[:3, :3].copy(), u,
                        alpha, axis)
    tlim = _task_limits(v_max, a_max, w_max, wd_max)
    profile = _task_profile(float(np.linalg.norm(geom.dP)), alpha, law, duration, tlim)
    solver = JointSolver(robot, tool, method, geom)

    # the branch followed, on a dense grid of r, and the first problem along it
    if q_start is None:
        if method == "igm":
            q_start = np.zeros(n)
        else:
            found = igm_numeric(robot, T_i, tool=tool, rng=0).solutions()
            if not len(found):
                raise RobmodError("task-space line: the start pose is unreachable (no solution "
                                  "of the numeric IGM); give q_start")
            q_start = found[0]
    r = np.linspace(0.0, 1.0, int(n_check))
    track = track_igm if method == "igm" else track_ikm
    q, problem = track(solver, r, q_start, branch_tol)
    problem = first_problem(solver, r, q, problem, singular_tol)
    if problem is not None:
        t = _time_of(profile, problem.r)
        P = geom.pose(np.array(problem.r))[:3, 3]
        raise RobmodError(f"task-space line: {problem.kind} at t = {t:.6g} s of "
                          f"{profile.duration:.6g} s "
                          f"(r = {problem.r:.6g}, tool position {np.round(P, 6).tolist()}): "
                          f"{problem.detail}")
    qp = solver.rates(q)[0]
    traj = TaskLine(robot, T_i, T_f, alpha, u if axis == "tool" else geom.u0, axis, profile,
                    solver, r, q, qp, method, 1.0, None, tlim, branch_tol)
    return _fit_joint_limits(traj, robot, qd_max, qdd_max, duration, law, n_check)


def _fit_joint_limits(traj: TaskLine, robot, qd_max, qdd_max, duration, law, n_check):
    """Check the joint velocity/acceleration limits on a dense time grid and slow the motion
    uniformly when they are exceeded."""
    n = traj.n
    if qd_max is None or qdd_max is None:
        rv, ra = robot_limits(robot, n)
        qd_max = rv if qd_max is None else qd_max
        qdd_max = ra if qdd_max is None else qdd_max
    kv = None if qd_max is None else limit_vector(qd_max, n, "qd_max")
    ka = None if qdd_max is None else limit_vector(qdd_max, n, "qdd_max")
    limits = (kv, ka) if kv is not None or ka is not None else None
    k = 1.0
    T0 = traj.duration
    if limits is not None and T0 > 0:
        t = np.unique(np.concatenate([np.linspace(0.0, T0, n_check),
                                      [tt for _, tt in traj.phases]]))
        t = np.append(t[t < T0], T0 * (1 - 1e-12))   # the one-sided values at the end
        r, rd, rdd, _ = traj.path_parameter(t)
        qp, qpp, _ = traj.solver.rates(traj.joints_at(r))
        qd = rd[:, None] * qp
        qdd = rdd[:, None] * qp + rd[:, None] ** 2 * qpp
        if kv is not None:
            k = max(k, float(np.max(np.abs(qd) / kv)))
        if ka is not None:
            k = max(k, float(np.sqrt(np.max(np.abs(qdd) / ka))))
    profile = traj.profile
    if k > 1.0:
        k *= 1 + 1e-9
        D, alpha = traj.profile.D
        profile = _task_profile(D, alpha, law, T0 * k, traj.task_limits)
    return TaskLine(traj.robot, traj.T_start, traj.T_end, traj.alpha, traj.u, traj.axis, profile,
                    traj.solver, traj.r_ref, traj.q_ref, traj.qp_ref, traj.method, k, limits,
                    traj.task_limits, traj.branch_tol)


__all__ = ["TaskLine", "task_line", "fixed_axis_rotation"]
