"""IGM of a 6R robot with a spherical wrist and general first three joints (Pieper).

Khalil & Dombre, ch. 4 (inverse geometric model of robots with a spherical wrist,
general case; Pieper 1968; Craig, *Introduction to Robotics*, sec. 4.7): the
wrist centre W (the common point of axes 4, 5, 6) depends on q1, q2, q3 only.
With the chain written ``0TE = C1 R(q1) C2 R(q2) C3 R(q3) C4 R(q4) ... C7``
(:func:`robmod.geometry.igm_general6r.chain_constants`), u = C1^-1 W (target)
and v(q2, q3) = C2 R(q2) C3 R(q3) w (w: W in the frame after R(q3)), the
equation R(q1) v = u gives two equations free of q1:

    |v|^2 = |u|^2,     v_z = u_z.

With y(q3) = C3 R(q3) w (its x, y components as the complex number Y) and
Z = Y exp(i q2), both read ``Re(K_k conj(Z)) = -c_k(q3)``: K_k constant
(from C2), c_k of degree 1 in (cos q3, sin q3).  When the 2 x 2 system is
regular, Z is of degree 1 in (cos q3, sin q3) and ``|Z|^2 = |Y|^2`` is of
degree 2: a polynomial of degree 4 in tan(q3/2) (up to 4 arm solutions), and
q2 = arg(Z) - arg(Y).  When it is singular (Craig's special cases d2 = 0 or
sin(alpha2) = 0), a combination of the two equations is free of q2 and of
degree 1 in (cos q3, sin q3): a quadratic; q2 then follows from the other
equation (type 2, two values).  q1 = angle(u) - angle(v);
the wrist angles: R(q4) A5 R(q5) A6 z = N z gives q5 (type 2, two values), then
q4 and q6 (atan2).  Up to 4 x 2 = 8 solutions, each refined by Newton on the DGM
(:func:`robmod.geometry.chain_refine.refine`) and kept when it reaches the target.

Singular: W on axis 1 (q1 undetermined), W on axis 2 (q2 undetermined), axes 4
and 6 aligned (only q4 + q6 determined).  Numeric (NumPy) only: the roots of the
quartic come from ``numpy.roots``.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import pose_array
from ..errors import RobmodError
from .chain_refine import chain_fk, refine, rz
from .igm_general6r import chain_constants
from .igm_result import IGMResult

_METHOD = ("Pieper: wrist centre from |v|^2 and v_z (two equations in q2, q3), elimination of "
          "q2 to a quartic in tan(q3/2) (numpy.roots), q1 by atan2, spherical wrist (type 2 + "
          "atan2), Newton refinement on the DGM")
N_BRANCHES = 8
_CONTINUUM = ("igm_pieper: the arm equation vanishes for every q3 at this target (a continuum "
              "of solutions); use robmod.kinematics.igm_numeric")
_OFFSETS = (0.3141, -1.2718, 2.0772)  # tan((q3 - o)/2): keeps roots away from infinity


def _inv(T):
    out = np.eye(4)
    out[:3, :3] = T[:3, :3].T
    out[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return out


def _scale(C):
    return max(1.0, max(np.linalg.norm(c[:3, 3]) for c in C))


def _wrist_centre(C, tol=1e-9):
    """(w4, wE): the common point of axes 4, 5, 6 in the frame of joint 4 and in frame E.

    ``None`` when the last three axes are not concurrent (or axis 5 is parallel to
    axis 4 or 6: not a spherical wrist).
    """
    L = _scale(C)
    F5 = C[4]                      # frame of joint 5 in the frame of joint 4 (q4 = 0)
    F6 = C[4] @ C[5]               # joint 6 (q4 = q5 = 0)
    z4, o4 = np.array([0.0, 0.0, 1.0]), np.zeros(3)
    z5, o5 = F5[:3, 2], F5[:3, 3]
    z6, o6 = F6[:3, 2], F6[:3, 3]
    if np.linalg.norm(np.cross(z4, z5)) < 1e-9 or np.linalg.norm(np.cross(z5, z6)) < 1e-9:
        return None
    # closest points of axes 4 and 5: o4 + s z4 = o5 + t z5 (least squares)
    A = np.stack([z4, -z5], 1)
    s, t = np.linalg.lstsq(A, o5 - o4, rcond=None)[0]
    p = o4 + s * z4
    for o, z in ((o5, z5), (o6, z6)):
        d = p - o
        if np.linalg.norm(d - (d @ z) * z) > tol * L:
            return None
    wE = _inv(F6 @ C[6]) @ np.append(p, 1.0)
    return p, wE[:3]


def has_spherical_wrist(robot, tool=None) -> bool:
    """True for a 6R robot whose last three axes meet at one point."""
    try:
        _, C = chain_constants(robot, tool)
    except RobmodError:
        return False
    return _wrist_centre(C) is not None


def _trig_fit(f, deg, off):
    """Coefficients (1, cos t, sin t, cos 2t, sin 2t)[:2 deg + 1] of f(off + t) (exact fit)."""
    n = 2 * deg + 1
    t = 2 * np.pi * np.arange(n) / n
    basis = [np.ones(n)]
    for k in range(1, deg + 1):
        basis += [np.cos(k * t), np.sin(k * t)]
    vals = np.array([f(off + tk) for tk in t])
    return np.linalg.solve(np.stack(basis, 1), vals)


def _half_tangent_roots(coef, ref):
    """Real t with sum coef * (1, cos t, sin t, cos 2t, sin 2t) = 0, via x = tan(t/2).

    None when the function vanishes identically (all coefficients below 1e-12 ref)."""
    coef = np.concatenate([coef, np.zeros(5 - len(coef))])
    f0, f1, f2, f3, f4 = coef
    # times (1 + x^2)^2, powers x^4 .. x^0
    p = (f0 * np.array([1, 0, 2, 0, 1]) + f1 * np.array([-1, 0, 0, 0, 1])
         + f2 * np.array([0, 2, 0, 2, 0]) + f3 * np.array([1, 0, -6, 0, 1])
         + f4 * np.array([0, -4, 0, 4, 0]))
    big = np.abs(p).max()
    if big <= 1e-12 * ref:
        return None
    p = np.trim_zeros(np.where(np.abs(p) < 1e-14 * big, 0.0, p), "f")
    if len(p) < 2:
        return np.zeros(0)
    x = np.roots(p)
    x = x[np.abs(x.imag) <= 1e-7 * (1 + np.abs(x))].real
    return 2 * np.arctan(x)


def _type2(X, Y, Z):
    """Both solutions of X c + Y s = Z (NaN when none); r^2 = X^2 + Y^2."""
    r = np.hypot(X, Y)
    if r < 1e-12:
        return [np.nan, np.nan]
    ratio = Z / r
    if abs(ratio) > 1 + 1e-9:
        return [np.nan, np.nan]
    phi, a = np.arctan2(Y, X), np.arccos(np.clip(ratio, -1.0, 1.0))
    return [phi + a, phi - a]


class _Arm:
    """The two position equations a_k c2 + b_k s2 + c_k = 0 as functions of q3."""

    def __init__(self, C, w, u):
        self.t2, self.A2 = C[1][:3, 3], C[1][:3, :3]
        self.C3, self.w = C[2], np.append(w, 1.0)
        g, h = self.A2.T @ self.t2, self.A2.T @ np.array([0.0, 0.0, 1.0])
        self.g, self.h, self.u = g, h, u

    def y(self, q3):
        return (self.C3 @ rz(q3) @ self.w)[:3]

    def coeffs(self, q3):
        """((a1, b1, c1), (a2, b2, c2)) at q3."""
        y, g, h, u = self.y(q3), self.g, self.h, self.u
        e1 = (2 * (g[0] * y[0] + g[1] * y[1]), 2 * (g[1] * y[0] - g[0] * y[1]),
              2 * g[2] * y[2] + self.t2 @ self.t2 + y @ y - u @ u)
        e2 = (h[0] * y[0] + h[1] * y[1], h[1] * y[0] - h[0] * y[1],
              self.t2[2] + h[2] * y[2] - u[2])
        return np.array([e1, e2])


def _arm_solutions(C, w, u):
    """(q2, q3) candidates (up to 4), and whether the geometry is degenerate."""
    arm = _Arm(C, w, u)
    K1, K2 = 2 * complex(arm.g[0], arm.g[1]), complex(arm.h[0], arm.h[1])
    L = _scale(C)
    cross = (K1.conjugate() * K2).imag
    out = []
    if abs(cross) > 1e-9 * max(abs(K1) * abs(K2), 1e-300) and min(abs(K1), abs(K2)) > 1e-12 * L:
        # Z = Y exp(i q2): Re(K_k conj(Z)) = -c_k is linear in Z, and |Z| = |Y|
        Minv = np.linalg.inv(np.array([[K1.real, K1.imag], [K2.real, K2.imag]]))

        def z_of(q3):
            y = arm.y(q3)
            Z = Minv @ -arm.coeffs(q3)[:, 2]
            return Z, y

        def quartic(q3):
            Z, y = z_of(q3)
            return Z @ Z - y[0] ** 2 - y[1] ** 2

        roots, off = _roots_of(quartic, 2, L)
        for t in roots:
            q3 = t + off
            Z, y = z_of(q3)
            out.append((np.arctan2(Z[1], Z[0]) - np.arctan2(y[1], y[0]), q3))
        return out
    # a real combination mu1 E1 + mu2 E2 free of q2 (its (a, b) = (mu1 K1 + mu2 K2) conj(Y) = 0)
    M = np.array([[K1.real, K2.real], [K1.imag, K2.imag]])
    mu = np.linalg.svd(M)[2][-1]
    k = 0 if abs(K1) >= abs(K2) else 1
    if max(abs(K1), abs(K2)) < 1e-12 * L:
        raise RobmodError("igm_pieper: axis 2 passes through every wrist centre position "
                          "(q2 undetermined)")

    def combo(q3):
        return mu @ arm.coeffs(q3)[:, 2]

    roots, off = _roots_of(combo, 1, L)
    for t in roots:
        q3 = t + off
        a, b, c = arm.coeffs(q3)[k]
        out += [(q2, q3) for q2 in _type2(a, b, -c)]
    return out


def _wrist(C, N, sing_tol):
    """The two (q4, q5, q6, singular) for ``R(q4) C5 R(q5) C6 R(q6) = N`` (rotations)."""
    A5, A6 = C[4][:3, :3], C[5][:3, :3]
    n, m = A6[:, 2], N[:, 2]
    k = A5.T[:, 2]  # A5^T z
    X = k[0] * n[0] + k[1] * n[1]
    Y = k[1] * n[0] - k[0] * n[1]
    out = []
    for q5 in _type2(X, Y, m[2] - k[2] * n[2]):
        if not np.isfinite(q5):
            out.append((np.nan, np.nan, np.nan, False))
            continue
        a = A5 @ rz(q5)[:3, :3] @ n
        # axes 4 and 6 aligned: only q4 + q6 is determined (q4 = 0 is returned)
        sing = bool(np.hypot(a[0], a[1]) < sing_tol)
        q4 = 0.0 if sing else np.arctan2(m[1], m[0]) - np.arctan2(a[1], a[0])
        M = (rz(q4)[:3, :3] @ A5 @ rz(q5)[:3, :3] @ A6).T @ N
        out.append((q4, q5, np.arctan2(M[1, 0], M[0, 0]), sing))
    return out


def _pieper_candidates(C, w4, wE, T, sing_tol=1e-9):
    """``(q, singular)``: up to 8 unrefined candidates (8, 6) (NaN rows: no solution on that
    branch) and whether each is singular (W on axis 1 or 2, axes 4 and 6 aligned)."""
    L = _scale(C)
    W = T @ np.append(wE, 1.0)
    u = (_inv(C[0]) @ W)[:3]
    w = (C[3] @ np.append(w4, 1.0))[:3]
    out = np.full((N_BRANCHES, 6), np.nan)
    sing = np.zeros(N_BRANCHES, bool)
    for i, (q2, q3) in enumerate(_arm_solutions(C, w, u)[:4]):
        if not np.isfinite(q2):
            continue
        y = (C[2] @ rz(q3) @ np.append(w, 1.0))[:3]
        v = (C[1] @ rz(q2) @ np.append(y, 1.0))[:3]
        arm_sing = min(np.hypot(v[0], v[1]), np.hypot(y[0], y[1])) < sing_tol * L
        q1 = np.arctan2(u[1], u[0]) - np.arctan2(v[1], v[0])
        F4 = chain_fk(C[:4], np.array([q1, q2, q3]))[0]
        N = (_inv(F4) @ T @ _inv(C[6]))[:3, :3]
        for j, (q4, q5, q6, ws) in enumerate(_wrist(C, N, sing_tol)):
            out[2 * i + j] = (q1, q2, q3, q4, q5, q6)
            sing[2 * i + j] = arm_sing or ws
    return out, sing


def igm_pieper(robot, T, *, tool=None, tol=1e-10, newton_iter=10, sing_tol=1e-9):
    """All solutions of 0T6 (or 0TE with ``tool``) = T: an :class:`IGMResult`, q (8, NJ).

    Branch 2 i + j: root i of the arm polynomial (quartic in tan(q3/2), or a
    quadratic in the special cases), wrist solution j.  A branch is valid when its
    refined DGM reaches T to ``tol`` (position relative to the robot's size); q is
    NaN on the branches without a solution.  Raises :class:`RobmodError` if the
    robot is not 6R with a spherical wrist.
    ``singular``: the wrist centre is on axis 1 (q1 undetermined) or axis 2 (q2
    undetermined), or axes 4 and 6 are aligned (only q4 + q6 determined; q4 = 0 is
    returned); ``residual``: the largest pose error component after refinement.
    """

    if tool is not None and not hasattr(tool, "T"):
        from .direct import find_tool

        tool = find_tool(robot, tool)
    joints, C = chain_constants(robot, tool)
    wc = _wrist_centre(C)
    if wc is None:
        raise RobmodError(f"igm_pieper: the last three axes of {robot.name!r} are not concurrent "
                          "(no spherical wrist); use igm_general6r")
    T = pose_array("T", T, batch=False)
    cand, sing = _pieper_candidates(C, *wc, T, sing_tol)
    ok = np.all(np.isfinite(cand), -1)
    q = np.full((N_BRANCHES, robot.n_joints), np.nan)
    valid = np.zeros(N_BRANCHES, bool)
    resid = np.full(N_BRANCHES, np.inf)
    if ok.any():
        qr, err, _ = refine(C, T, cand[ok], newton_iter)
        scale = 1.0 + _scale(C) + np.linalg.norm(T[:3, 3])
        qr = np.pi - np.mod(np.pi - qr, 2 * np.pi)
        # a refined branch must stay near its candidate (no jump to another branch)
        near = np.abs(np.angle(np.exp(1j * (qr - cand[ok])))).max(-1) < 1e-3
        rows = np.flatnonzero(ok)
        sub = np.zeros((len(rows), robot.n_joints))
        sub[:, np.array(joints) - 1] = qr
        q[rows] = sub
        valid[rows] = (err < tol * scale) & (near | sing[ok])
        resid[rows] = err
    q[~valid] = np.nan
    return IGMResult(q, valid, "pieper", singular=sing & valid, residual=resid)


def _roots_of(fn, degree, L):
    """(roots in tan((q3 - off)/2), off) of a trigonometric polynomial of ``degree`` in q3,
    the offset chosen so that no root sits at q3 - off = pi (the half-tangent's pole)."""
    for off in _OFFSETS:
        roots = _half_tangent_roots(_trig_fit(fn, degree, off), L * L)
        if roots is not None:
            return roots, off
    raise RobmodError(_CONTINUUM)


__all__ = []
