"""Rigid bodies in the dynamic models, over context scalars (symbolic or numeric): inertias and
their transfers between frames, wrenches and twists moved along the tree.

Screws follow Khalil's ordering (Khalil & Dombre [7.20]-[7.23]): a twist is ``V = [v; w]``,
a wrench ``F = [f; m]``, the spatial inertia of link j about O_j in frame j is
([7.21])::

    jI_j = [[M_j I3, -hat(MS_j)], [hat(MS_j), J_Oj]]

and ``jS_a(j) = [[R, -R hat(P)], [0, R]]`` with ``R = jR_a(j)``, ``P = a(j)P_j``
([7.23a]).  The frame matrix gives ``a(j)R_j = R^T`` and ``P``: twists go down
the tree with ``R^T``, wrenches go up with ``R``.
"""
from __future__ import annotations

from ..kinematics.recursion import named, rot, rot_t
from ..symbolic.algebra import add, cross, mul


# -- rigid-body inertias (M, MS, J): the 10 standard parameters ----------------------------

def link_inertia(ctx, link):
    """(M, MS, J) of a link, as context scalars (J: 3x3 nested list, symmetric)."""
    p = ctx.param
    J = [[p(link.XX), p(link.XY), p(link.XZ)], [p(link.XY), p(link.YY), p(link.YZ)],
         [p(link.XZ), p(link.YZ), p(link.ZZ)]]
    return p(link.M), [p(link.MX), p(link.MY), p(link.MZ)], J


def _sym_rotate(ctx, R, S, name):
    """R S R^T for a symmetric 3x3 S (6 distinct elements named ``name{r}{c}``)."""
    X = [[add(*[mul(R[r][k], S[k][c]) for k in range(3)]) for c in range(3)] for r in range(3)]
    X = [[ctx.var(X[r][c], f"{name}X{r + 1}{c + 1}") for c in range(3)] for r in range(3)]
    out = [[None] * 3 for _ in range(3)]
    for r in range(3):
        for c in range(r, 3):
            v = ctx.var(add(*[mul(X[r][k], R[c][k]) for k in range(3)]), f"{name}{r + 1}{c + 1}")
            out[r][c] = out[c][r] = v
    return out


def transfer_inertia(ctx, R, P, body, name):
    """The inertia (M, MS, J) of a body given in frame k, expressed about O_a in frame a.

    ``R = aR_k``, ``P = aP_k``: ``MS' = R MS + M P`` and
    ``J' = R J R^T + M (|P|^2 I - P P^T) + 2 (P.s) I - (P s^T + s P^T)``, ``s = R MS``.
    """
    M, MS, J = body
    s = named(ctx, rot(R, MS), f"{name}S", "")
    ms = [ctx.var(add(s[r], mul(M, P[r])), f"{name}MS{r + 1}") for r in range(3)]
    JR = _sym_rotate(ctx, R, J, f"{name}J")
    mp = [ctx.var(mul(M, P[r]), f"{name}MP{r + 1}") for r in range(3)]
    # M (|P|^2 I - P P^T) + 2 (P.s) I - (P s^T + s P^T), written with u = M P + 2 s
    u = [ctx.var(add(mp[r], mul(2, s[r])), f"{name}U{r + 1}") for r in range(3)]
    out = [[None] * 3 for _ in range(3)]
    for r in range(3):
        for c in range(r, 3):
            if r == c:
                a, b = (r + 1) % 3, (r + 2) % 3
                extra = add(mul(P[a], u[a]), mul(P[b], u[b]))
            else:
                extra = -add(mul(P[r], add(mp[c], s[c])), mul(s[r], P[c]))
            v = ctx.var(add(JR[r][c], extra), f"{name}{r + 1}{c + 1}")
            out[r][c] = out[c][r] = v
    return M, ms, out


def spatial_matrix(body):
    """jI_j as a 6x6 nested list ([7.21])."""
    M, MS, J = body
    x, y, z = MS
    hat = [[0, -z, y], [z, 0, -x], [-y, x, 0]]
    top = [[M if r == c else 0 for c in range(3)] + [mul(-1, hat[r][c]) for c in range(3)]
           for r in range(3)]
    bottom = [[hat[r][c] for c in range(3)] + [J[r][c] for c in range(3)] for r in range(3)]
    return top + bottom


def wrench_up(ctx, R, P, F, name, j):
    """a(j)S_j^T F: a wrench at O_j in frame j moved to O_a(j) in frame a(j)."""
    f = named(ctx, rot(R, F[:3]), f"{name}F", j)
    m = rot(R, F[3:])
    pxf = cross(P, f)
    m = [ctx.var(add(m[r], pxf[r]), f"{name}M{r + 1}{j}") for r in range(3)]
    return f + m


def twist_down(ctx, R, P, V, name, j):
    """jS_a(j) V: a twist (or acceleration) at O_a(j) in frame a(j) moved to O_j in frame j."""
    v, w = V[:3], V[3:]
    wxp = cross(w, P)
    vs = [ctx.var(add(v[r], wxp[r]), f"{name}S{r + 1}{j}") for r in range(3)]
    return named(ctx, rot_t(R, vs), f"{name}V", j) + named(ctx, rot_t(R, w), f"{name}W", j)


def sym6(ctx, M, name):
    """Name the 21 distinct elements of a symmetric 6x6 nested list (mirrored)."""
    out = [[None] * 6 for _ in range(6)]
    for r in range(6):
        for c in range(r, 6):
            out[r][c] = out[c][r] = ctx.var(M[r][c], f"{name}{r + 1}{c + 1}")
    return out


def inertia_up(ctx, R, P, K, name):
    """a(j)S_j^T K jS_a(j) for a symmetric 6x6 K given at O_j in frame j ([7.75]).

    Blocks rotated by R = a(j)R_j, then moved by P = a(j)P_j with
    ``Z = A hat(P)``, ``C = B - Z``, ``Y = hat(P) B``:
    ``[[A, C], [C^T, D + Y + Y^T - hat(P) Z]]``.
    """
    A = _sym_rotate(ctx, R, [row[:3] for row in K[:3]], f"{name}A")
    D = _sym_rotate(ctx, R, [row[3:] for row in K[3:]], f"{name}D")
    B0 = [row[3:] for row in K[:3]]
    X = [[ctx.var(add(*[mul(R[r][k], B0[k][c]) for k in range(3)]), f"{name}BX{r + 1}{c + 1}")
          for c in range(3)] for r in range(3)]
    B = [[ctx.var(add(*[mul(X[r][k], R[c][k]) for k in range(3)]), f"{name}B{r + 1}{c + 1}")
          for c in range(3)] for r in range(3)]
    x, y, z = P
    hat = [[0, -z, y], [z, 0, -x], [-y, x, 0]]

    def mm(U, V):
        return [[add(*[mul(U[r][k], V[k][c]) for k in range(3)]) for c in range(3)]
                for r in range(3)]

    Z = [[ctx.var(v, f"{name}Z{r + 1}{c + 1}") for c, v in enumerate(row)]
         for r, row in enumerate(mm(A, hat))]
    C = [[add(B[r][c], -Z[r][c]) for c in range(3)] for r in range(3)]
    Y = [[ctx.var(v, f"{name}Y{r + 1}{c + 1}") for c, v in enumerate(row)]
         for r, row in enumerate(mm(hat, B))]
    out = [[0] * 6 for _ in range(6)]
    for r in range(3):
        for c in range(3):
            out[r][c] = A[r][c]
            out[r][c + 3] = C[r][c]
            out[c + 3][r] = C[r][c]
            if c >= r:
                w = add(*[mul(hat[r][k], Z[k][c]) for k in range(3)])
                out[r + 3][c + 3] = add(D[r][c], Y[r][c], Y[c][r], -w)
    for r in range(3):
        for c in range(r):
            out[r + 3][c + 3] = out[c + 3][r + 3]
    return out


__all__ = []
