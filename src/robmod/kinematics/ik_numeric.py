"""Numeric inverse geometric model (Khalil & Dombre §6.6): damped least squares with restarts.

For a desired location ``0T_E^d`` (frame j or tool E, relative to frame 0, or
to the world frame with ``i="world"``) and a current configuration ``q^c``:

1. ``0T_E^c = DGM(q^c)``;
2. pose error in frame 0: ``dXp = P^d - P^c`` and ``dXr = theta u`` with
   ``rot(u, theta) = R^d (R^c)^T`` (Khalil & Dombre §6.6, §2.3.8; computed through the
   unit quaternion, accurate for every angle up to pi);
3. stop when ``||dXp|| < tol`` and ``||dXr|| < tol``;
4. step limits: ``dXp <- Sp dXp/||dXp||`` if ``||dXp|| > Sp``, idem ``dXr`` with
   ``Sr`` (0.2 m and 0.2 rad by default, Khalil & Dombre §6.6), to stay in the domain of
   the first-order model;
5. damped least squares ``dq = J^T (J J^T + lambda^2 I)^-1 dX`` with
   ``J = 0J_E(q^c)`` (columns of the joints on the chain of j; the minimum-norm
   step for redundant robots) and ``lambda = damping * min(1, ||dX||)``: damped
   far from the solution and near singularities, a pure Newton step close to it;
6. ``q^c <- q^c + dq``, clamped into the joint limits (``joint_limits=True``),
   revolute joints without limits wrapped into (-pi, pi].

Every target is iterated from ``n_restarts`` seeds (``q0`` first when given,
then random ones drawn uniformly in the joint domain: ``[qmin, qmax]`` when
the robot gives numeric limits, else ``[-pi, pi]`` for a revolute joint and
``prismatic_range`` (default [-1, 1] m) for a prismatic one).  All targets x
restarts are iterated together as one NumPy batch; finished lanes leave it.
A lane stops when it converges, when its error has not decreased by 0.1 % for
``patience`` iterations (a local minimum of the error: the target is out of
reach from there), or at ``max_iter``.

Status of a target: ``'converged'`` (at least one solution), ``'unreachable'``
(every restart stopped at a local minimum of the error: the criterion of Khalil & Dombre
§6.6, "no convergence for many random initial values"), ``'max_iter'`` (no solution
and some restart was still progressing).  Solutions are deduplicated modulo 2
pi for revolute joints (``dedup_tol`` on every joint).
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from ..description.arguments import joint_array, keyword_options, pose_array
from ..description.base import world_target
from ..description.robot import PRISMATIC, REVOLUTE
from ..errors import RobmodError
from ..geometry.direct import dgm
from ..geometry.igm_result import IGMResult
from ..spatial.pose_errors import pose_error
from ..geometry.transforms import transform_to_numpy
from .jacobians import resolve_frame, pose_and_jacobian

_CONVERGED, _UNREACHABLE, _MAX_ITER = "converged", "unreachable", "max_iter"


def _num(x):
    if x is None:
        return None
    try:
        return float(sp.sympify(x))  # safe: a robot parameter (number or SymPy expression)
    except (TypeError, ValueError):
        return None


def joint_domain(robot, joints, joint_limits=True, prismatic_range=(-1.0, 1.0)):
    """(seed_lo, seed_hi, clamp_lo, clamp_hi, wrap) arrays for the given joints."""
    slo, shi, clo, chi, wrap = [], [], [], [], []
    for k in joints:
        lim = robot.link(k).limits if k <= robot.n_links else None
        qmin = _num(lim.qmin) if lim is not None else None
        qmax = _num(lim.qmax) if lim is not None else None
        rev = robot.frame(k).sigma == REVOLUTE
        dlo, dhi = (-np.pi, np.pi) if rev else prismatic_range
        slo.append(dlo if qmin is None else qmin)
        shi.append(dhi if qmax is None else qmax)
        clo.append(qmin if joint_limits and qmin is not None else -np.inf)
        chi.append(qmax if joint_limits and qmax is not None else np.inf)
        wrap.append(rev and not (joint_limits and (qmin is not None or qmax is not None)))
    return tuple(np.array(x, dtype=float) for x in (slo, shi, clo, chi)) + (np.array(wrap),)


def _wrap(x):
    """Into (-pi, pi]."""
    return np.pi - np.mod(np.pi - x, 2 * np.pi)


def _dls_step(J, dx, lam2, q, lo, hi, passes=3):
    """Damped least-squares step with the joints that would leave their limits held there.

    Joints hitting a limit are moved onto it and removed from the Jacobian; the
    step of the others is recomputed for the remaining error (a few passes).
    """
    L, m, n = J.shape
    free = np.ones((L, n), dtype=bool)
    fixed = np.zeros((L, n))
    eye = np.eye(m) if n >= m else np.eye(n)
    for _ in range(passes):
        Jf = J * free[:, None, :]
        rhs = dx - (J @ fixed[..., None])[..., 0]
        JT = np.swapaxes(Jf, -1, -2)
        if n >= m:
            step = (JT @ np.linalg.solve(Jf @ JT + lam2[:, None, None] * eye,
                                         rhs[..., None]))[..., 0]
        else:
            step = np.linalg.solve(JT @ Jf + lam2[:, None, None] * eye,
                                   (JT @ rhs[..., None]))[..., 0]
        dq = np.where(free, step, fixed)
        hit = free & ((q + dq < lo) | (q + dq > hi))
        if not hit.any():
            return dq
        fixed = np.where(hit, np.clip(q + dq, lo, hi) - q, fixed)
        free &= ~hit
    return np.clip(q + dq, lo, hi) - q


def _solve_lanes(robot, j, tool, Td, Q, active, clo, chi, wrap, tol, max_iter, Sp, Sr,
                 damping, patience):
    """Iterate all lanes; returns (Q, error, stalled, iterations)."""
    L = len(Q)
    best = np.full(L, np.inf)
    since = np.zeros(L, dtype=int)
    stalled = np.zeros(L, dtype=bool)
    iters = np.zeros(L, dtype=int)
    live = np.arange(L)
    for it in range(max_iter + 1):
        if live.size == 0:
            break
        q = Q[live]
        T, J = pose_and_jacobian(robot, q, j=j, tool=tool)
        dp, dr = pose_error(Td[live], T)
        npos, nrot = np.linalg.norm(dp, axis=-1), np.linalg.norm(dr, axis=-1)
        e = np.maximum(npos, nrot)
        done = e < tol
        improved = e < best[live] * (1 - 1e-3)
        best[live] = np.minimum(best[live], e)
        since[live] = np.where(improved, 0, since[live] + 1)
        stuck = ~done & (since[live] > patience)
        stalled[live[stuck]] = True
        finished = done | stuck
        if it == max_iter:
            break
        # one more (Newton) step for the lanes that have just converged: polishes to round-off
        step = ~stuck
        lanes = live[step]
        if lanes.size:
            dp, dr, npos, nrot = dp[step], dr[step], npos[step], nrot[step]
            dp = dp * np.minimum(1.0, Sp / np.maximum(npos, 1e-300))[:, None]
            dr = dr * np.minimum(1.0, Sr / np.maximum(nrot, 1e-300))[:, None]
            dx = np.concatenate([dp, dr], axis=-1)
            Ja = J[step][:, :, active]
            lam2 = (damping * np.minimum(1.0, np.linalg.norm(dx, axis=-1))) ** 2 + 1e-14
            qa = Q[lanes][:, active]
            qa = qa + _dls_step(Ja, dx, lam2, qa, clo, chi)
            qa = np.where(wrap, _wrap(qa), qa)
            Q[np.ix_(lanes, active)] = qa
            iters[lanes] += 1
        live = live[~finished]
    # final check of every lane at its last configuration
    T = dgm(robot, Q, j=j, tool=tool)
    dp, dr = pose_error(Td, T)
    err = np.maximum(np.linalg.norm(dp, axis=-1), np.linalg.norm(dr, axis=-1))
    return Q, err, stalled, iters


def _dedupe(Q, ok, active, is_rev, tol):
    """Mask of the lanes to keep: converged and distinct from every earlier converged lane."""
    qa = Q[..., active]  # (N, R, na)
    diff = qa[:, :, None, :] - qa[:, None, :, :]
    diff = np.where(is_rev, np.abs(_wrap(diff)), np.abs(diff))
    same = np.all(diff < tol, axis=-1)  # (N, R, R)
    R = Q.shape[1]
    earlier = np.tril(np.ones((R, R), dtype=bool), -1)
    dup = np.any(same & earlier & ok[:, None, :], axis=-1)
    return ok & ~dup


@keyword_options()
def igm_numeric(robot, T, q0=None, *, tool=None, j=None, i=0, n_restarts=16,
                tol=1e-10, max_iter=200, step_limits=(0.2, 0.2), damping=0.05,
                joint_limits=True, rng=None, batch=True, prismatic_range=(-1.0, 1.0),
                patience=30, dedup_tol=1e-6):
    """All the solutions found for iT_E = ``T`` (4x4, or (..., 4, 4) for many targets; ``i``:
    0, the default, or ``"world"``).

    Returns an :class:`~robmod.geometry.IGMResult` (``method="numeric"``), which unpacks as
    ``q, valid``: q (..., n_solutions, n_q) the distinct solutions of each target, sorted,
    padded with NaN rows (``valid`` False) to the largest number found over the batch (joints
    off the chain of j keep their seed value); ``status``, ``error``, ``n_converged`` and
    ``iterations`` over the batch shape (...).  ``q0``: first seed, (n_q,) or one per
    target; ``batch=False`` iterates the targets one after the other (less memory).
    See the module documentation for the algorithm and the statuses.
    """
    tool, j = resolve_frame(robot, j, tool)
    Td = pose_array("T", T, rotation_tol=1e-6)
    shape = Td.shape[:-2]
    Td = Td.reshape(-1, 4, 4)
    if world_target("igm_numeric", robot, i):
        Z = transform_to_numpy(robot.Z)
        Td = np.linalg.solve(Z, Td)
    N = len(Td)
    nj = robot.n_q  # joint vectors: one entry per joint variable (Robot.joint_index)
    if q0 is not None:
        q0 = joint_array(robot, "q0", q0)
    active_frames = [k for k in robot.chain(j) if k in robot.joint_index]
    active = np.array([robot.joint_index[k] for k in active_frames], dtype=int)
    if active.size == 0:
        raise RobmodError(f"frame {j} of robot {robot.name!r} is not moved by any joint")
    if not batch and N > 1:
        out = []
        for t in range(N):
            qt = None if q0 is None else np.asarray(q0, float).reshape(-1, nj)[
                t if np.size(q0) > nj else 0]
            out.append(igm_numeric(robot, Td[t], qt, tool=tool, j=j, n_restarts=n_restarts,
                                   tol=tol, max_iter=max_iter, step_limits=step_limits,
                                   damping=damping, joint_limits=joint_limits, rng=rng,
                                   prismatic_range=prismatic_range, patience=patience,
                                   dedup_tol=dedup_tol))
        return _result(shape, nj, [r.q[r.valid] for r in out], [str(r.status) for r in out],
                       [r.error for r in out], [r.n_converged for r in out],
                       [r.iterations for r in out])
    rng = np.random.default_rng(rng)
    slo, shi, clo, chi, wrap = joint_domain(robot, np.array(active_frames, dtype=int), joint_limits,
                                               prismatic_range)
    R = max(int(n_restarts), 1)
    Q = np.zeros((N, R, nj))
    Q[..., active] = rng.uniform(slo, shi, (N, R, active.size))
    if q0 is not None:
        q0 = np.broadcast_to(np.asarray(q0, dtype=float), (N, nj))
        Q[:, 0, :] = q0
        Q[:, 1:, :] = np.where(np.isin(np.arange(nj), active), Q[:, 1:, :], q0[:, None, :])
        Q[:, 0, active] = np.clip(Q[:, 0, active], clo, chi)
    Sp, Sr = step_limits
    Qf, err, stalled, iters = _solve_lanes(
        robot, j, tool, np.repeat(Td, R, axis=0), Q.reshape(N * R, nj), active, clo, chi, wrap,
        tol, max_iter, Sp, Sr, damping, patience)
    Qf, err = Qf.reshape(N, R, nj), err.reshape(N, R)
    stalled, iters = stalled.reshape(N, R), iters.reshape(N, R)
    ok = err < tol
    is_rev = np.array([robot.frame(k).sigma != PRISMATIC for k in active_frames])
    keep = _dedupe(Qf, ok, active, is_rev, dedup_tol)
    sols, status = [], []
    for t in range(N):  # packaging only: the iteration above is one batch
        st = Qf[t][keep[t]]
        sols.append(st[np.lexsort(st[:, ::-1].T)] if len(st) else st)
        if ok[t].any():
            status.append(_CONVERGED)
        elif stalled[t].all():
            status.append(_UNREACHABLE)
        else:
            status.append(_MAX_ITER)
    return _result(shape, nj, sols, status, err.min(axis=1), ok.sum(axis=1), iters.max(axis=1))


def _result(shape, nj, sols, status, error, n_converged, iterations) -> IGMResult:
    """The solutions of N targets padded into one :class:`IGMResult` of batch ``shape``."""
    n = max((len(s) for s in sols), default=0)
    q = np.full((len(sols), n, nj), np.nan)
    valid = np.zeros((len(sols), n), dtype=bool)
    for t, s in enumerate(sols):
        q[t, :len(s)] = s
        valid[t, :len(s)] = True

    def per_target(x, dtype):
        return np.asarray(x, dtype=dtype).reshape(shape)[()]

    return IGMResult(q.reshape(shape + (n, nj)), valid.reshape(shape + (n,)), "numeric",
                     status=per_target(status, str), error=per_target(error, float),
                     n_converged=per_target(n_converged, int),
                     iterations=per_target(iterations, int))


__all__ = ["igm_numeric"]
