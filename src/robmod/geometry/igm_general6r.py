"""Exact inverse geometric model of a general 6R robot (Raghavan & Roth 1990/1993, Manocha & Canny 1994).

Khalil & Dombre, ch. 4 (general case of the IGM) points to the dialytic
elimination of Raghavan & Roth for the general 6R robot.  Implementation (every step numeric,
no symbolic expansion):

1. The chain is written ``0T6 = C1 R(q1) C2 R(q2) ... C6 R(q6) C7`` with
   ``R(q) = Rot(z, q)`` and constant transforms ``C_k`` (``a(k)T_k`` at q_k = 0,
   fixed frames and the tool merged in), so that with ``M = C1^-1 0T6 C7^-1``::

       L(q3, q4, q5) [z, O] = Rot(z, -q2) C2^-1 Rot(z, -q1) M [z, O],
       L = C3 R(q3) C4 R(q4) C5 R(q5) C6,

   z and O being the axis and a point of joint 6 (R(q6) leaves them fixed).
2. The 14 Raghavan-Roth quantities of both sides, with p the point and l the
   axis: ``p, l, p.p, p.l, p x l, (p.p) l - 2 (p.l) p``.  Each is multilinear in
   (1, cos, sin) of every angle of its side, so the left side is exactly a
   combination of the 27 products over q3, q4, q5 and the right side of the 9
   over q1, q2; the coefficients are obtained by exact trigonometric
   interpolation on 3 equispaced angles per variable (27 and 9 evaluations).
3. ``P(q3) X45 = Q Y12``: Q (14 x 8, constant) is eliminated by its left null
   space (6 x 14), leaving 6 equations in the 9 products ``X45`` of
   (1, c4, s4) and (1, c5, s5), with coefficients linear in (1, c3, s3).
4. Half-angle tangents ``x_k = tan((q_k - o_k)/2)`` (fixed offsets o_k keep
   solutions away from x = infinity), multiplied by the (1 + x_k^2): 6
   equations in the 9 monomials ``x4^a x5^b`` (a, b <= 2), quadratic in x3.
   Multiplied also by x4 (dialytic elimination): 12 equations, 12 monomials
   ``x4^a x5^b`` (a <= 3, b <= 2): ``(A x3^2 + B x3 + C) v = 0``.
5. ``det(A x3^2 + B x3 + C) = 0`` (degree 24 = 16 + the spurious factor
   (1 + x3^2)^4) is solved as a 24 x 24 generalized eigenvalue problem
   (companion linearization, ``scipy.linalg.eig``); real eigenvalues give q3.
6. Back-substitution: x4, x5 from the null vector of the 12 x 12 matrix (ratios
   of its monomials, least squares), q1, q2 from the 14 equations
   (least squares for Y12), q6 from the rotation ``R(q6) = (0T5 C6)^-1 M``.
7. Newton polish with the kinematic Jacobian of the chain (:mod:`.chain_refine`) until ``||dX|| < 1e-14`` (at most
   ``newton_iter`` steps); candidates whose pose error stays above ``tol``
   are discarded; solutions deduplicated modulo 2 pi.

The loop ``R(q1) C2 R(q2) ... C6 R(q6) M^-1 = I`` can be opened at any of the 6
joints and read in both directions (inverse robot, Khalil & Dombre ch. 4): 12
formulations, each eliminating a different angle last.  They are ranked by
the conditioning of their pencil (smallest relative singular value of Q and
of the 12 x 12 matrix at probe points; special geometries such as
intersecting or parallel axes make some pencils singular).  The best is
used; if its roots are not clean (odd count, or a root whose
back-substitution misses the target by more than 1e-6 before polishing), a
second set of offsets and then the next formulations are added (at most
``max_formulations``), the candidates of all being polished and merged.  If
every formulation is singular (e.g. four concurrent axes: infinitely many
solutions) a RobmodError is raised: use the numeric IGM there.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..description.arguments import pose_array
from ..description.robot import FIXED, PRISMATIC
from ..errors import RobmodError
from .chain_refine import refine, rz
from .igm_result import IGMResult
from .transforms import frame_transform, transform_to_numpy

_METHOD = ("Raghavan-Roth: 14 equations, dialytic elimination to a 12x12 matrix quadratic in "
          "tan(theta3/2), 24x24 generalized eigenvalue problem (scipy.linalg.eig), "
          "back-substitution, Newton polish")

_T = 2 * np.pi * np.arange(3) / 3  # interpolation angles
_F = np.stack([np.ones(3), np.cos(_T), np.sin(_T)], axis=1)  # rows: samples, cols: (1, c, s)
_FINV = np.linalg.inv(_F)
# (1 + x^2) * (1, cos, sin) in powers x^0, x^1, x^2 (x = tan(t/2))
_H = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, -1.0], [0.0, 2.0, 0.0]])
_OFFSETS = ((0.3141, -0.2718, 0.5772), (1.4142, 0.7071, -1.7320), (-2.2360, 2.6457, 1.1180))


def _inv(T):
    out = np.zeros_like(T)
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    out[..., :3, :3] = Rt
    out[..., :3, 3] = -(Rt @ T[..., :3, 3:])[..., 0]
    out[..., 3, 3] = 1.0
    return out


def chain_constants(robot, tool=None):
    """(joints, [C1..C7]) with 0T6 = C1 R(q1) C2 ... C6 R(q6) C7 (numeric 4x4)."""
    if robot.n_loops:
        raise RobmodError("igm_general6r: closed-loop robots are not supported")
    if tool is not None and not hasattr(tool, "T"):
        from .direct import find_tool

        tool = find_tool(robot, tool)
    end = tool.frame if tool is not None else robot.n_links
    joints, consts = [], [np.eye(4)]
    for k in robot.chain(end):
        f = robot.frame(k)
        if f.sigma == PRISMATIC:
            raise RobmodError(f"igm_general6r: joint {k} is prismatic; a 6R robot is needed")
        consts[-1] = consts[-1] @ frame_transform(robot, k, 0.0)
        if f.sigma != FIXED:
            joints.append(k)
            consts.append(np.eye(4))
    if len(joints) != 6:
        raise RobmodError(f"igm_general6r: the chain of frame {end} has {len(joints)} "
                          "revolute joints, 6 are needed")
    if tool is not None:
        consts[-1] = consts[-1] @ transform_to_numpy(tool.T)
    return joints, consts


def _rr14(T):
    """The 14 Raghavan-Roth quantities of the point T[:3, 3] and axis T[:3, 2], batched."""
    p, l = T[..., :3, 3], T[..., :3, 2]
    pp = np.sum(p * p, -1, keepdims=True)
    pl = np.sum(p * l, -1, keepdims=True)
    return np.concatenate([p, l, pp, pl, np.cross(p, l), pp * l - 2 * pl * p], axis=-1)


def _fit(values, n):
    """Coefficients over (1, c, s)^n from values on the 3^n grid: (3,)*n + (14,) -> same shape."""
    out = values
    for axis in range(n):
        out = np.moveaxis(np.tensordot(_FINV, out, axes=([1], [axis])), 0, axis)
    return out


def _pencil(C, M, off):
    """(A, B, Cm, P, Q, Rc) of the 12x12 pencil and the 14 equations (offsets ``off`` on q3..q5)."""
    g = np.meshgrid(_T, _T, _T, indexing="ij")
    Lm = (C[2] @ rz(g[0] + off[0]) @ C[3] @ rz(g[1] + off[1]) @ C[4]
          @ rz(g[2] + off[2]) @ C[5])
    Lc = _fit(_rr14(Lm), 3)  # (3, 3, 3, 14): q3, q4, q5
    g1, g2 = np.meshgrid(_T, _T, indexing="ij")
    Rm = rz(-g2) @ _inv(C[1]) @ rz(-g1) @ M
    Rc = _fit(_rr14(Rm), 2)  # (3, 3, 14): q1, q2
    Lc = Lc.copy()
    Lc[0, 0, 0] -= Rc[0, 0]  # the constant of the right side goes left
    Q = Rc.reshape(9, 14)[1:].T  # 14 x 8
    U, s, _ = np.linalg.svd(Q)
    N = U[:, 8:].T  # 6 x 14, N Q = 0
    S = np.einsum("ek,abck->eabc", N, Lc)  # 6 equations x (1,c3,s3) x (1,c4,s4) x (1,c5,s5)
    E = np.einsum("eabc,ai,bj,ck->eijk", S, _H, _H, _H)  # powers of x3, x4, x5
    mats = np.zeros((3, 12, 4, 3))
    mats[:, :6, :3, :] = np.moveaxis(E, 1, 0)
    mats[:, 6:, 1:, :] = np.moveaxis(E, 1, 0)
    mats = mats.reshape(3, 12, 12)
    return mats[2], mats[1], mats[0], Lc, Q, s


def _roots(A, B, C, imag_tol):
    """Real x with det(A x^2 + B x + C) = 0 (finite eigenvalues of the companion pencil)."""
    n = len(A)
    Z, I = np.zeros((n, n)), np.eye(n)
    L = np.block([[Z, I], [-C, -B]])
    R = np.block([[I, Z], [Z, A]])
    w = sla.eig(L, R, right=False, homogeneous_eigvals=True)
    alpha, beta = w[0], w[1]
    scale = np.abs(alpha) + np.abs(beta)
    finite = np.abs(beta) > 1e-12 * scale
    x = alpha[finite] / beta[finite]
    real = np.abs(x.imag) <= imag_tol * (1 + np.abs(x))
    return np.sort(x[real].real), len(x)


def _ratio(v, axis):
    """x with v[1:] ~ x v[:-1] along ``axis`` (least squares)."""
    a = np.moveaxis(v, axis, 0)
    return float(np.sum(a[:-1] * a[1:]) / np.sum(a[:-1] ** 2))


def _candidates(C, M, off, imag_tol):
    """Candidate angles (n, 6) and the number of eigenvalues, for offsets ``off``."""
    A, B, Cm, Lc, Q, sq = _pencil(C, M, off)
    if sq[-1] < 1e-10 * sq[0]:
        return None, 0
    xs, n_eig = _roots(A, B, Cm, imag_tol)
    out = []
    for x3 in xs:
        _, _, Vt = np.linalg.svd(A * x3 * x3 + B * x3 + Cm)
        v = Vt[-1].reshape(4, 3)
        x4, x5 = _ratio(v, 0), _ratio(v, 1)
        t = [2 * np.arctan(x) for x in (x3, x4, x5)]
        q3, q4, q5 = (t[k] + off[k] for k in range(3))
        phi = [np.array([1.0, np.cos(u), np.sin(u)]) for u in t]
        rhs = np.einsum("abck,a,b,c->k", Lc, *phi)
        y = np.linalg.lstsq(Q, rhs, rcond=None)[0]  # (c2, s2, c1, c1c2, c1s2, s1, s1c2, s1s2)
        q1, q2 = np.arctan2(y[5], y[2]), np.arctan2(y[1], y[0])
        T5 = (rz(q1) @ C[1] @ rz(q2) @ C[2] @ rz(q3) @ C[3] @ rz(q4) @ C[4] @ rz(q5)
              @ C[5])
        R6 = (_inv(T5) @ M)[:3, :3]
        q6 = np.arctan2(R6[1, 0], R6[0, 0])
        out.append([q1, q2, q3, q4, q5, q6])
    return np.array(out).reshape(-1, 6), n_eig


def _formulations(Cs, M):
    """The 12 ways to write the loop: 6 cyclic shifts of the joints x 2 directions.

    Loop: R(q1) C2 R(q2) C3 ... C6 R(q6) D = I with D = M^-1.  A shift s starts at
    joint s+1: R(a1) K_s ... R(a6) = K_(s-1)^-1; the inverse loop uses -q6..-q1.
    Returns (quality, name, links, target, perm, sign) with a = sign * q[perm]:
    quality is the smallest relative singular value of the pencil at two probe
    points (0: singular formulation).
    """
    D = _inv(M)
    fwd = [Cs[1], Cs[2], Cs[3], Cs[4], Cs[5], D]
    bwd = [_inv(Cs[5]), _inv(Cs[4]), _inv(Cs[3]), _inv(Cs[2]), _inv(Cs[1]), _inv(D)]
    out = []
    for sign, K, order in ((1.0, fwd, [0, 1, 2, 3, 4, 5]), (-1.0, bwd, [5, 4, 3, 2, 1, 0])):
        for s in range(6):
            links = [K[(s + i) % 6] for i in range(5)]
            target = _inv(K[(s - 1) % 6])
            perm = np.array([order[(s + i) % 6] for i in range(6)])
            chain = [np.eye(4)] + links + [np.eye(4)]
            A, B, Cm, _, _, sq = _pencil(chain, target, _OFFSETS[0])
            quality = sq[-1] / sq[0]
            for x in (0.37, -1.9):
                sv = np.linalg.svd(A * x * x + B * x + Cm, compute_uv=False)
                quality = min(quality, sv[-1] / sv[0])
            name = f"{'inverse ' if sign < 0 else ''}shift {s}"
            out.append((quality, name, links, target, perm, sign))
    return out


def _fk(C, q):
    T = C[0]
    for k in range(6):
        T = T @ rz(q[..., k]) @ C[k + 1]
    return T


def _polish(robot, joints, C, T, Q, newton_iter):
    """Newton iterations on the chain (geometry-level Jacobian), batched over candidates."""
    q, err, it = refine(C, T, Q, newton_iter)
    full = np.zeros((len(Q), robot.n_joints))
    full[:, np.array(joints) - 1] = q
    return full, err, it


def igm_general6r(robot, T, *, tool=None, tol=1e-10, imag_tol=1e-6, newton_iter=20,
                  dedup_tol=1e-7, max_formulations=4):
    """All real solutions of 0T6 (or 0TE with ``tool``) = T for a 6R robot: an
    :class:`IGMResult`.

    ``q``: (n_sol, NJ) solutions (revolute angles in (-pi, pi]), sorted, all valid;
    ``info``: dict with ``method``, ``formulations`` (the (loop formulation, angle
    offsets, pencil quality) used, in order), ``n_eigenvalues`` (finite
    eigenvalues of the last pencil), ``n_real_roots`` (real tan(theta/2)
    candidates, all formulations), ``newton_iter`` and ``max_error`` (largest
    pose error of the solutions returned).
    """
    if tool is not None and not hasattr(tool, "T"):
        from .direct import find_tool

        tool = find_tool(robot, tool)
    joints, C = chain_constants(robot, tool)
    T = pose_array("T", T, batch=False)
    # scale lengths to the order of 1 (the 14 equations mix powers of length)
    scale = max(max(np.linalg.norm(c[:3, 3]) for c in C), np.linalg.norm(T[:3, 3]), 1e-12)
    Cs = [c.copy() for c in C]
    for c in Cs:
        c[:3, 3] /= scale
    Ts = T.copy()
    Ts[:3, 3] /= scale
    M = _inv(Cs[0]) @ Ts @ _inv(Cs[6])
    info = {"method": _METHOD, "formulations": [], "n_real_roots": 0, "n_eigenvalues": 0}
    cands = []
    ranked = sorted(_formulations(Cs, M), key=lambda f: -f[0])
    for quality, name, links, target, perm, sign in ranked[:max_formulations]:
        if quality < 1e-10:
            break  # this and the following formulations are singular
        chain = [np.eye(4)] + links + [np.eye(4)]
        clean = False
        for off in _OFFSETS[:2]:
            qc, n_eig = _candidates(chain, target, off, imag_tol)
            if qc is None:
                break
            info["formulations"].append((name, off, float(quality)))
            info["n_eigenvalues"] = n_eig
            info["n_real_roots"] += len(qc)
            q = np.empty_like(qc)
            q[:, perm] = sign * qc
            cands.append(q)
            # clean: an even number of roots, every one giving a pose close to the target
            res = np.abs(_fk(chain, qc) - target).max((-1, -2)) if len(qc) else np.zeros(0)
            clean = len(qc) % 2 == 0 and bool(np.all(res < 1e-6))
            if clean:
                break
        if clean:
            break
    if not cands:
        raise RobmodError("igm_general6r: the 12x12 pencil is singular in every formulation "
                          "(special 6R geometry, possibly with infinitely many solutions); "
                          "use the closed-form or the numeric IGM")
    qc = np.concatenate(cands)
    full, err, it = _polish(robot, joints, C, T, qc, newton_iter)
    info["newton_iter"] = it
    good = err < tol
    idx = np.array(joints) - 1
    sols = full[good]
    sols[:, idx] = np.pi - np.mod(np.pi - sols[:, idx], 2 * np.pi)
    keep = []
    for k, qk in enumerate(sols):
        if not any(np.all(np.abs(np.angle(np.exp(1j * (qk[idx] - sols[m, idx])))) < dedup_tol)
                   for m in keep):
            keep.append(k)
    sols = sols[keep]
    if len(sols):
        sols = sols[np.lexsort(sols[:, ::-1].T)]
    info["max_error"] = float(err[good].max()) if good.any() else None
    return IGMResult(sols, np.ones(len(sols), bool), "general6r", info=info)


__all__ = []
