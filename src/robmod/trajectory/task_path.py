"""The joint path of a task-space line (Khalil & Dombre §8.4), as a function of r in [0, 1].

The task-space line depends on time only through the interpolation function r(t):

    P(r) = P^i + r (P^f - P^i)                       (8.53)
    R(r) = R^i rot(u, r alpha)                       (8.54)   (axis fixed in the tool frame)
    R(r) = rot(u0, r alpha) R^i,  u0 = R^i u         (8.56)   (axis fixed in frame 0)

so that its derivative in r is the constant twist xi = (P^f - P^i, alpha R^i u) (in frame 0,
(8.57)).  The joint path q(r) of one branch of the inverse geometric model then satisfies

    q'   = J^-1 xi,        q''  = -J^-1 (Jdot qd)(q, q'),     q''' = d q''/dr

(primes: derivatives in r; the second-order model of Khalil & Dombre (5.46)-(5.47) with a
constant task velocity) and the joint motion in time follows by the chain rule:

    qd = rd q',   qdd = rdd q' + rd^2 q'',   jerk = rddd q' + 3 rd rdd q'' + rd^3 q'''.

q''' is the directional derivative of q''(q) along q', by a central difference (step 1e-4 rad
on the joints): relative accuracy about 1e-7.

:class:`JointSolver` gives q(r) for the robot: ``method="igm"`` keeps, among all the
solutions of the analytic IGM (:func:`robmod.geometry.inverse.igm`), the one closest to a guess
(revolute joints shifted by multiples of 2 pi to lie near it); ``method="ikm"`` corrects the
guess by Newton iterations on the inverse kinematic model, dq = J^-1 (dX_p, theta u)
(Khalil & Dombre §6.6) - for robots without an analytic IGM.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..description.robot import REVOLUTE
from ..errors import RobmodError
from ..geometry.direct import dgm
from ..geometry.inverse import igm
from ..spatial.pose_errors import pose_error
from ..spatial.rotations import rot_axis
from ..kinematics import jacobian, jdot_qdot, pose_and_jacobian


@dataclass(frozen=True)
class LineGeometry:
    """P(r), R(r) of (8.53)-(8.56); ``u`` is the axis in the tool frame, ``axis`` the frame in
    which the axis stays fixed ("tool": (8.54), "base": (8.56))."""

    P0: np.ndarray
    dP: np.ndarray
    R0: np.ndarray
    u: np.ndarray
    alpha: float
    axis: str = "tool"

    @property
    def u0(self) -> np.ndarray:
        """The axis in frame 0, R^i u."""
        return self.R0 @ self.u

    @property
    def xi(self) -> np.ndarray:
        """d(P, orientation)/dr: (P^f - P^i, alpha R^i u), frame 0 (8.57)."""
        return np.concatenate([self.dP, self.alpha * self.u0])

    def pose(self, r) -> np.ndarray:
        r = np.asarray(r, dtype=float)
        T = np.zeros(r.shape + (4, 4))
        T[..., :3, 3] = self.P0 + r[..., None] * self.dP
        if self.axis == "tool":
            T[..., :3, :3] = self.R0 @ rot_axis(self.u, r * self.alpha)
        else:
            T[..., :3, :3] = rot_axis(self.u0, r * self.alpha) @ self.R0
        T[..., 3, 3] = 1.0
        return T


def _numeric_limit(v):
    if v is None:
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


class JointSolver:
    """q(r) and its derivatives in r for one robot, tool and method (see the module)."""

    def __init__(self, robot, tool, method, geometry: LineGeometry):
        self.robot, self.tool, self.method, self.geom = robot, tool, method, geometry
        joints = robot.joints
        self.revolute = np.array([robot.frame(j).sigma == REVOLUTE for j in joints])
        lims = [robot.link(j).limits if j <= robot.n_links else None for j in joints]
        self.qmin = np.array([-np.inf if lim is None or _numeric_limit(lim.qmin) is None
                              else _numeric_limit(lim.qmin) for lim in lims])
        self.qmax = np.array([np.inf if lim is None or _numeric_limit(lim.qmax) is None
                              else _numeric_limit(lim.qmax) for lim in lims])

    # -- positions --------------------------------------------------------------------------

    def dgm(self, q):
        return dgm(self.robot, q, tool=self.tool)

    def all_solutions(self, T):
        """(Q (..., B, n), valid (..., B)) of the analytic IGM."""
        Q, valid = igm(self.robot, T, tool=self.tool)
        valid = valid & np.all(np.isfinite(Q), axis=-1)
        return np.where(valid[..., None], Q, 0.0), valid

    def nearest(self, Q, valid, guess):
        """Among the valid branches Q (N, B, n), the one nearest ``guess`` (N, n), revolute
        joints shifted by 2 pi k; returns (q (N, n), distance max|q - guess| (N,), inf where
        no branch is valid)."""
        d = Q - guess[:, None, :]
        k = np.where(self.revolute, np.round(d / (2 * np.pi)), 0.0)
        Qa = Q - 2 * np.pi * k
        dist = np.where(valid, np.abs(Qa - guess[:, None, :]).max(axis=-1), np.inf)
        b = np.argmin(dist, axis=-1)
        idx = np.arange(len(guess))
        return Qa[idx, b], dist[idx, b]

    def newton(self, T, guess, iterations=8, tol=1e-12):
        """Newton iterations dq = J^-1 (dX_p, theta u) from ``guess`` towards the poses T;
        returns (q, distance from the guess, converged)."""
        q = guess.copy()
        err = np.full(len(q), np.inf)
        for _ in range(iterations):
            Tq, J = pose_and_jacobian(self.robot, q, tool=self.tool)
            dp, dr = pose_error(T, Tq)
            e = np.concatenate([dp, dr], axis=-1)
            err = np.abs(e).max(axis=-1)
            if np.all(err < tol):
                break
            try:
                step = np.linalg.solve(J, e[..., None])[..., 0]
            except np.linalg.LinAlgError:
                step = np.zeros_like(q)
                break
            q = q + np.where((err >= tol)[:, None], step, 0.0)
        Tq = self.dgm(q)
        dp, dr = pose_error(T, Tq)
        err = np.maximum(np.abs(dp).max(axis=-1), np.abs(dr).max(axis=-1))
        ok = np.isfinite(err) & (err < 1e-10)
        dist = np.where(ok, np.abs(q - guess).max(axis=-1), np.inf)
        return q, dist

    def solve(self, r, guess):
        """q at the path parameters r (N,) on the branch through ``guess`` (N, n)."""
        T = self.geom.pose(r)
        if self.method == "igm":
            Q, valid = self.all_solutions(T)
            return self.nearest(Q, valid, guess)
        return self.newton(T, guess)

    # -- derivatives in r ----------------------------------------------------------------------

    def _first_second(self, q):
        J = jacobian(self.robot, q, tool=self.tool)
        xi = np.broadcast_to(self.geom.xi, q.shape[:-1] + (6,))
        qp = np.linalg.solve(J, xi[..., None])[..., 0]
        qpp = -np.linalg.solve(J, jdot_qdot(self.robot, q, qp, tool=self.tool)[..., None])[..., 0]
        return qp, qpp

    def rates(self, q, third=False):
        """(q', q'', q''' or None) at q (N, n) on the path."""
        try:
            qp, qpp = self._first_second(q)
            qppp = None
            if third:
                scale = np.abs(qp).max(axis=-1, keepdims=True)
                h = 1e-4 / np.where(scale > 1e-12, scale, 1.0)
                both = np.concatenate([q + h * qp, q - h * qp])
                _, b = self._first_second(both)
                qppp = (b[:len(q)] - b[len(q):]) / (2 * h)
        except np.linalg.LinAlgError:
            raise RobmodError("task-space line: the Jacobian is singular at a sampled "
                              "configuration") from None
        return qp, qpp, qppp

    def singular_values(self, q):
        return np.linalg.svd(jacobian(self.robot, q, tool=self.tool), compute_uv=False)


@dataclass(frozen=True)
class _PathProblem:
    """The first point of the path where it cannot be followed."""

    r: float
    kind: str
    detail: str


def track_igm(solver: JointSolver, r, q_start, branch_tol):
    """q on the grid r (increasing, r[0] = 0) by the analytic IGM, each sample the solution
    nearest the extrapolation of the previous ones; returns (q, problem or None)."""
    Q, valid = solver.all_solutions(solver.geom.pose(r))
    q = np.zeros((len(r), q_start.size))
    q0, d0 = solver.nearest(Q[:1], valid[:1], q_start[None])
    if not np.isfinite(d0[0]):
        return q[:0], _PathProblem(0.0, "unreachable pose", "the start pose has no IGM solution")
    q[0] = q0[0]
    qp0 = solver.rates(q[:1])[0][0]
    for k in range(1, len(r)):
        dr = r[k] - r[k - 1]
        if k == 1:
            pred = q[0] + dr * qp0
        else:
            pred = q[k - 1] + (q[k - 1] - q[k - 2]) * (dr / (r[k - 1] - r[k - 2]))
        qk, dk = solver.nearest(Q[k:k + 1], valid[k:k + 1], pred[None])
        if not valid[k].any():
            return q[:k], _PathProblem(r[k], "unreachable pose", "no solution of the IGM (outside "
                                      "the workspace)")
        if dk[0] > branch_tol:
            return q[:k], _PathProblem(r[k], "branch change", f"the nearest IGM solution is "
                                      f"{dk[0]:.3g} from the continuation of the branch "
                                      "followed (through or near a singularity)")
        q[k] = qk[0]
    return q, None


def track_ikm(solver: JointSolver, r, q_start, branch_tol, coarse=41):
    """q on the grid r by the inverse kinematic model: Taylor predictions q + dr q' + dr^2/2 q''
    corrected by Newton iterations, steps of 1/(coarse - 1) in r (halved where the correction
    fails, down to the grid's spacing), then the grid from cubic Hermite guesses corrected the
    same way (one batch)."""
    from scipy.interpolate import CubicHermiteSpline

    q0, d0 = solver.newton(solver.geom.pose(np.zeros(1)), q_start[None])
    if not np.isfinite(d0[0]):
        return q_start[None, :0], _PathProblem(0.0, "unreachable pose", "no convergence of the "
                                              "inverse kinematic model at the start pose")
    dr0 = 1.0 / (coarse - 1)
    dr_min = max(float(np.min(np.diff(r))), 1e-9)
    rc, qc = [0.0], [q0[0]]
    qp, qpp, _ = solver.rates(q0)
    qpc, dr, problem = [qp[0]], dr0, None
    while rc[-1] < 1.0:
        dr = min(dr, 1.0 - rc[-1])
        pred = qc[-1] + dr * qp[0] + 0.5 * dr ** 2 * qpp[0]
        qk, dk = solver.newton(solver.geom.pose(np.array([rc[-1] + dr])), pred[None])
        if np.isfinite(dk[0]) and dk[0] <= branch_tol:
            try:
                qp, qpp, _ = solver.rates(qk)
            except RobmodError:
                problem = _PathProblem(rc[-1] + dr, "singular configuration",
                                      "the Jacobian is singular")
                break
            rc.append(min(rc[-1] + dr, 1.0))
            qc.append(qk[0])
            qpc.append(qp[0])
            dr = min(2 * dr, dr0)
        elif dr <= dr_min:
            problem = _PathProblem(rc[-1] + dr, "unreachable pose" if not np.isfinite(dk[0]) else
                                  "branch change", "no convergence of the inverse kinematic model "
                                  "(outside the workspace or through a singularity)")
            break
        else:
            dr /= 2
    rc, qc, qpc = np.array(rc), np.array(qc), np.array(qpc)
    inside = r <= rc[-1]
    guess = (CubicHermiteSpline(rc, qc, qpc, axis=0)(r[inside]) if len(rc) > 1 else
             qc[:1].repeat(inside.sum(), axis=0))
    q, dist = solver.solve(r[inside], guess)
    wrong = np.flatnonzero(~(dist <= branch_tol))
    if wrong.size:
        k = wrong[0]
        return q[:k], _PathProblem(r[k], "branch change", "the inverse kinematic model leaves the "
                                  "branch followed (near a singularity)")
    return q, problem


def first_problem(solver: JointSolver, r, q, problem, singular_tol):
    """The earliest problem along the tracked samples q (r[:len(q)]): a singular Jacobian,
    a joint beyond its limits, or the tracking ``problem``."""
    m = len(q)
    found = [problem] if problem is not None else []
    if m:
        s = solver.singular_values(q)[..., -1]
        k = np.flatnonzero(s < singular_tol)
        if k.size:
            found.append(_PathProblem(r[k[0]], "singular configuration", "the smallest singular "
                                     f"value of J is {s[k[0]]:.3g} < {singular_tol:g} (a singular "
                                     f"configuration, q = {np.round(q[k[0]], 4).tolist()})"))
        out = (q < solver.qmin - 1e-12) | (q > solver.qmax + 1e-12)
        k = np.flatnonzero(out.any(axis=-1))
        if k.size:
            j = int(np.flatnonzero(out[k[0]])[0])
            found.append(_PathProblem(r[k[0]], "joint limit", f"q{j + 1} = {q[k[0], j]:.6g} is "
                                     f"outside its limits [{solver.qmin[j]:g}, "
                                     f"{solver.qmax[j]:g}]"))
    return min(found, key=lambda p: p.r) if found else None


__all__ = []
