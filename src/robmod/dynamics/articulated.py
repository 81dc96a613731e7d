"""The recursive direct dynamic model, O(n) (Khalil & Dombre §7.6.2, [7.67]-[7.79], with the
sign of [7.88] corrected; Featherstone's articulated-body algorithm), over a context:

    forward, j = 1..n:   w_j, gamma_j [7.68], beta_j [7.70], I*_j = I_j, beta*_j = beta_j
    backward, j = n..1:  H_j = a^T I* a + IA_j [7.71];  h = I* a;  u = h / H_j
                         K_j = I* - u h^T [7.72]
                         nu_j = tau_j + a^T beta* - h^T gamma_j
                         alpha_j = I* gamma_j - beta* + u nu_j   (= [7.73])
                         beta*_a(j) -= S^T alpha_j [7.74];  I*_a(j) += S^T K_j S [7.75]
    forward, j = 1..n:   Vd_a,j = jS_a(j) Vd_a(j) [7.76]
                         qdd_j = nu_j / H_j - u^T Vd_a,j  (= [7.77])
                         Vd_j = Vd_a,j + a qdd_j + gamma_j [7.78]

with tau_j = Gamma_j - friction [7.82], Vd_0 = [VP0 - g; WP0].  A floating base is link 0 of
the recursion: its articulated inertia I*_0 and bias beta*_0 give its acceleration,
I*_0 Vd_0 = beta*_0 (Featherstone 2008, §9.3; SYMORO's floating direct model).
"""
from __future__ import annotations

import numpy as np

from ..description.robot import FIXED, PRISMATIC, REVOLUTE
from ..errors import RobmodError
from ..kinematics.recursion import forward, gravity_in_frame0, named, rot_t
from ..symbolic.algebra import add, cross, mul
from .bodies import inertia_up, link_inertia, spatial_matrix, sym6, twist_down, wrench_up
from .factorization import ltdl_solve
from .friction import friction_torque
from .inertia import inertia_matrix
from .layout import BASE_LABELS, axis_index, geometry, labels


# -- (b) recursive O(n) algorithm ---------------------------------------------------------

def _dv(ctx, w, j):
    """hat(w)^2 as a symmetric 3x3 (products DV, Khalil's notation)."""
    d = {}
    for i in range(3):
        for k in range(i, 3):
            d[i, k] = ctx.var(mul(w[i], w[k]), f"DV{i + 1}{k + 1}{j}")
    m = [[None] * 3 for _ in range(3)]
    for r in range(3):
        a, b = (r + 1) % 3, (r + 2) % 3
        m[r][r] = ctx.var(-add(d[a, a], d[b, b]), f"DD{r + 1}{j}")
        for c in range(r + 1, 3):
            m[r][c] = m[c][r] = d[r, c]
    return m


def _matvec(M, v):
    return [add(*[mul(M[r][c], v[c]) for c in range(3)]) for r in range(3)]


def articulated(ctx, robot, tau, *, gravity=True, rotor=True, friction=True, wrench=True,
                velocity=True, base_motion=True, start=None):
    """The recursions of :func:`~robmod.dynamics.ddm_algorithm`: (``{j: qdd_j}``, Vd_0 =
    [VP0 - g; WP0]).

    ``start``: a mobile or floating base, ``(W0, Vd0)`` in frame 0: its angular velocity and,
    mobile, its acceleration [VP0 - g; WP0] (context scalars); ``Vd0`` None: a floating
    base, whose acceleration is solved from link 0's articulated inertia (Featherstone 2008,
    §9.3; SYMORO's floating direct model) -- the wrench on link 0 is its external one only.
    """
    p = ctx.param
    n = robot.n_links
    frames = robot.frames[:n]
    geo = geometry(ctx, robot)
    zero3 = [0, 0, 0]
    kin = forward(ctx, robot, frames, velocity=velocity, acceleration=False,
                  base_motion=base_motion, gravity=False, linear=False,
                  angular_acceleration=False,
                  start=None if start is None else (start[0], zero3, zero3))   # w_j: (7.51)-(7.52)
    W = kin.W
    DV = {0: _dv(ctx, W[0], 0)}
    gam, Ist, bst = {}, {}, {}
    root = start is not None and start[1] is None
    if root:       # link 0, the floating base: its inertia and its velocity terms
        Ist[0], bst[0] = _body(ctx, robot.base_link, W[0], DV[0], 0, wrench)
    # first forward recursion: w_j, gamma_j, beta_j
    for f in frames:
        j, a = f.j, f.ant
        R, P = geo[j]
        qd = ctx.joint(j, "qd") if (velocity and f.sigma != FIXED) else 0
        WI = kin.WI[j]
        lin = rot_t(R, _matvec(DV[a], P))
        wxa = [mul(WI[1], qd), -mul(WI[0], qd), 0]  # WI x qd a_j
        if f.sigma == PRISMATIC:
            lin = [add(lin[r], mul(2, wxa[r])) for r in range(3)]
            ang = zero3
        elif f.sigma == REVOLUTE:
            ang = wxa
        else:
            ang = zero3
        gam[j] = named(ctx, lin + ang, "GA", j)
        DV[j] = _dv(ctx, W[j], j)
        Ist[j], bst[j] = _body(ctx, robot.link(j), W[j], DV[j], j, wrench)
    # backward recursion
    Hinv, U, NU = {}, {}, {}
    for f in reversed(frames):
        j, a = f.j, f.ant
        I, b, g = Ist[j], bst[j], gam[j]
        Ig = [add(*[mul(I[r][c], g[c]) for c in range(6)]) for r in range(6)]
        if f.sigma == FIXED:
            K = I
            alpha = [add(Ig[r], -b[r]) for r in range(6)]
        else:
            ia = axis_index(f.sigma)
            h = [I[r][ia] for r in range(6)]
            H = h[ia]
            if rotor:
                H = add(H, p(robot.link(j).IA))
            if _is_num(H) and float(H) == 0:    # zero at every configuration
                raise singular_inertia_error(robot, None, joint=j)
            Hinv[j] = ctx.var(1 / ctx.var(H, f"H{j}") if not _is_num(H) else 1 / H, f"HI{j}")
            U[j] = [ctx.var(mul(h[r], Hinv[j]), f"UA{r + 1}{j}") for r in range(6)]
            t = tau[j]
            if friction and velocity:
                fr = friction_torque(ctx, robot.link(j), ctx.joint(j, "qd"))
                t = add(t, -fr)
            NU[j] = ctx.var(add(t, b[ia], -add(*[mul(h[r], g[r]) for r in range(6)])),
                            f"NU{j}")
            K = [[add(I[r][c], -mul(U[j][r], h[c])) for c in range(6)] for r in range(6)]
            alpha = [add(Ig[r], -b[r], mul(U[j][r], NU[j])) for r in range(6)]
        if a == 0 and not root:
            continue
        K = sym6(ctx, K, f"KK{j}_")
        alpha = named(ctx, alpha, "AL", j)
        R, P = geo[j]
        up = wrench_up(ctx, R, P, alpha, "AU", j)
        bst[a] = named(ctx, [add(bst[a][r], -up[r]) for r in range(6)], "BE", a)
        KS = inertia_up(ctx, R, P, K, f"KS{j}_")
        Ist[a] = sym6(ctx, [[add(Ist[a][r][c], KS[r][c]) for c in range(6)] for r in range(6)],
                      f"IS{a}_")
    # second forward recursion
    if root:       # I*_0 Vd_0 = beta*_0: no wrench on the base but its external one
        order = [f"0{k + 1}" for k in range(6)]
        Vd0 = ltdl_solve(ctx, {(order[r], order[c]): Ist[0][r][c] for r in range(6)
                               for c in range(r + 1)}, dict(zip(order, bst[0])), order,
                         names=("DB", "LB", "IB", "YB", "VD"))
        Vd = {0: [Vd0[k] for k in order]}
    elif start is not None:
        Vd = {0: list(start[1])}
    else:
        vp0 = [p(x) for x in robot.VP0] if base_motion else zero3
        if gravity:
            vp0 = [add(v, -gv) for v, gv in zip(vp0, gravity_in_frame0(ctx, robot))]
        wp0 = [p(x) for x in robot.WP0] if base_motion else zero3
        Vd = {0: vp0 + wp0}
    qdd = {}
    for f in frames:
        j, a = f.j, f.ant
        R, P = geo[j]
        Vaj = twist_down(ctx, R, P, Vd[a], "VA", j)
        if f.sigma == FIXED:
            Vd[j] = named(ctx, [add(Vaj[r], gam[j][r]) for r in range(6)], "VD", j)
            continue
        ia = axis_index(f.sigma)
        qdd[j] = ctx.var(add(mul(NU[j], Hinv[j]), -add(*[mul(U[j][r], Vaj[r]) for r in range(6)])),
                         f"QDP{j}")
        v = [add(Vaj[r], gam[j][r]) for r in range(6)]
        v[ia] = add(v[ia], qdd[j])
        Vd[j] = named(ctx, v, "VD", j)
    return qdd, Vd[0]


def _body(ctx, link, w, dv, j, wrench):
    """(jI_j, beta_j): the spatial inertia of a link and its velocity and external terms
    -(FE + [hat(w)^2 MS; w x (J w)]) ([7.70])."""
    body = link_inertia(ctx, link)
    M, MS, J = body
    ww = _matvec(dv, MS)
    jw = named(ctx, _matvec(J, w), "JW", j)
    wjw = cross(w, jw)
    fe = [ctx.param(x) for x in link.wrench()] if wrench else [0] * 6
    beta = named(ctx, [add(-fe[r], -ww[r]) for r in range(3)]
                 + [add(-fe[r + 3], -wjw[r]) for r in range(3)], "BE", j)
    return spatial_matrix(body), beta


def _is_num(x):
    from ..symbolic.algebra import numeric_constant

    return numeric_constant(x) is not None


def _singular_joint(robot, A, rtol: float = 1e-12):
    """Frame of the first joint (from the end of the chain) where A = L^T D L has a pivot
    D_j <= rtol * max(diag A) (Khalil & Dombre, eq. (9.44)), or None if A is regular."""
    order = labels(robot)
    A = np.array(A, dtype=float)
    scale = max(float(np.max(np.abs(np.diagonal(A)))), 1.0)
    for k in reversed(range(len(order))):
        if not A[k, k] > rtol * scale:
            return order[k]
        A[:k, k] /= A[k, k]
        A[:k, :k] -= np.outer(A[:k, k], A[k, :k])
        A[k, :k] = A[:k, k]
    return None


def singular_inertia_error(robot, q, rotor: bool = True, *, joint=None):
    """The RobmodError for a direct model that could not be solved at q (..., n_q) (or whose
    pivot of ``joint`` is zero at every configuration, ``q`` None)."""
    def error(j, at=""):
        if j in BASE_LABELS:
            return RobmodError(
                f"ddm: the inertia matrix of {robot.name!r} is singular at its base{at}: the "
                f"robot, link 0 included, has no mass or no inertia about an axis, so the "
                f"{robot.base_kind} base's acceleration is undetermined; give link 0 (or the "
                f"links) a mass and an inertia (robot.with_base(..., M=..., XX=...))")
        return RobmodError(
            f"ddm: the inertia matrix of {robot.name!r} is singular at joint {j}{at}: the links "
            f"joint {j} moves have no inertia about its axis (massless links, or point masses "
            f"on the axis) and it has no rotor inertia (IA{j} = 0), so its acceleration is "
            f"undetermined; give those links an inertia about the axis or set IA{j} > 0")

    if joint is not None:
        return error(joint)
    n = len(labels(robot))
    A = inertia_matrix(robot, q, rotor=rotor).reshape((-1, n, n))
    for k, Ak in enumerate(A):
        j = _singular_joint(robot, Ak)
        if j is not None:
            return error(j, "" if A.shape[0] == 1 else f" (sample {k} of the batch)")
    return RobmodError("ddm: the direct model gave non-finite accelerations: the inputs are "
                       "too large (overflow) or the inertia matrix is ill-conditioned at q")


__all__ = []
