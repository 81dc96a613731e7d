"""Shared pieces of the dynamic models, over context scalars (symbolic or numeric).

Screws follow Khalil's ordering (Khalil & Dombre [7.20]-[7.23]): a twist is ``V = [v; w]``,
a wrench ``F = [f; m]``, the spatial inertia of link j about O_j in frame j is
([7.21])::

    jI_j = [[M_j I3, -hat(MS_j)], [hat(MS_j), J_Oj]]

and ``jS_a(j) = [[R, -R hat(P)], [0, R]]`` with ``R = jR_a(j)``, ``P = a(j)P_j``
([7.23a]).  The frame matrix gives ``a(j)R_j = R^T`` and ``P``: twists go down
the tree with ``R^T``, wrenches go up with ``R``.

Vectors of joint quantities are indexed like :func:`~robmod.dynamics.idm`:
one entry per frame 1..NJ (entries of fixed frames unused).  Matrices (A, C,
...) are indexed by :func:`dofs`, the moving joints of the tree structure.
"""
from __future__ import annotations

import numpy as np

from ..description.robot import FIXED, PRISMATIC, joint_acceleration, joint_variable, \
    joint_velocity
from ..geometry.direct import frame_matrix
from ..symbolic.algebra import add, cross, mul
from ..kinematics.recursion import named, rot, rot_t  # noqa: F401  (one definition)
from ..symbolic.context import NumericContext


def dofs(robot) -> tuple[int, ...]:
    """Frames carrying the joint coordinates of the tree structure (rows of A)."""
    return tuple(f.j for f in robot.frames[: robot.n_links] if f.sigma != FIXED)


def coordinates(robot) -> tuple[int, ...]:
    """The joint coordinates of the customized models: :func:`dofs` without the mimic joints
    (a dependent joint q_j = m q_i + c has none of its own; see :mod:`robmod.description.mimic`)."""
    return tuple(j for j in dofs(robot) if j not in robot.mimic)


def _mimic_groups(robot) -> dict:
    """{independent joint i: [(i, 1), (j, m), ...]}: the joints that move with q_i, dq_j/dq_i."""
    groups = {i: [(i, 1)] for i in coordinates(robot)}
    for j, (i, m, _) in sorted(robot.mimic.items()):
        groups[i].append((j, m))
    return groups


def reduce_mimic(robot, values: dict) -> dict:
    """{frame: generalized force} of the tree's joints -> {coordinate i: Γ_i + Σ m Γ_j} over the
    joints j mimicking i (virtual work; context scalars)."""
    out = {}
    for i, group in _mimic_groups(robot).items():
        out[i] = add(*[mul(m, values[j]) for j, m in group if values.get(j) is not None])
    return out


def reduce_mimic_matrix(ctx, robot, A: dict, name: str = "AE") -> dict:
    """Lower triangle ``{(i, k): scalar}`` of A over :func:`dofs` -> that of Eᵀ A E over
    :func:`coordinates` (E = ∂q_frames/∂q): entries Σ m_r m_s A_rs over the joints r, s moving
    with q_i, q_k; each one that needs an operation named ``{name}{i}_{k}``."""
    pos = {j: k for k, j in enumerate(dofs(robot))}
    groups = _mimic_groups(robot)

    def get(r, s):
        return A.get((r, s) if pos[r] >= pos[s] else (s, r), 0)

    order = coordinates(robot)
    out = {}
    for a, i in enumerate(order):
        for k in order[: a + 1]:
            v = add(*[mul(mr * ms, get(r, s)) for r, mr in groups[i] for s, ms in groups[k]])
            out[i, k] = ctx.var(v, f"{name}{i}_{k}")
    return out


def plain_layout(robot) -> bool:
    """True when the customized models' joint order (:func:`dofs`) is the plain API's
    (``robot.joints``): a tree whose every joint moves a link (the fast path applies)."""
    return not robot.n_loops and dofs(robot) == tuple(robot.joints)


def joint_limit_vector(robot, field: str) -> np.ndarray | None:
    """The ``field`` limit (qmin, qmax, qdmax, qddmax, taumax) of every joint (in
    :func:`dofs` order), or None if one is missing."""
    vals = []
    for j in dofs(robot):
        v = getattr(robot.link(j).limits, field)
        if v is None:
            return None
        vals.append(float(v))
    return np.array(vals)


def model_inputs(robot, groups=("q", "qd", "qdd")) -> dict:
    """Input groups of a customized model, as :func:`~robmod.dynamics.idm_model` names them."""
    import sympy as sp

    fns = {"q": joint_variable, "qd": joint_velocity, "qdd": joint_acceleration,
           "tau": lambda j: sp.Symbol(f"GAM{j}")}
    return {g: tuple(fns[g](j) for j in coordinates(robot)) for g in groups}


class Proxy:
    """A context whose joint groups are replaced (e.g. ``qd`` and ``qdd`` set to zero)."""

    def __init__(self, ctx, **groups):
        self._ctx = ctx
        self._groups = groups

    def joint(self, j, group="q"):
        if group in self._groups:
            g = self._groups[group]
            return g(j) if callable(g) else g
        return self._ctx.joint(j, group)

    def __getattr__(self, name):
        return getattr(self._ctx, name)


def geometry(ctx, robot):
    """``{j: (R, P)}``: a(j)R_j (rows) and a(j)P_j for the frames of the tree."""
    out = {}
    for f in robot.frames[: robot.n_links]:
        T = frame_matrix(ctx, robot, f.j)
        out[f.j] = ([row[:3] for row in T], [row[3] for row in T])
    return out


def axis_index(sigma) -> int:
    """Index of the joint screw a_j in a 6-vector: 2 (v_z) if prismatic, 5 (w_z) if revolute."""
    return 2 if sigma == PRISMATIC else 5


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


def numeric_context(robot, q=None, qd=None, qdd=None):
    return NumericContext(robot, q=q, qd=qd, qdd=qdd)


def friction_torque(ctx, link, qd):
    """[7.26]: FC sign(qd) + FV qd + (FST - FC) sign(qd) exp(-|qd| BST) (0 when absent)."""
    from ..symbolic.algebra import numeric_constant

    def nonzero(x):
        c = numeric_constant(x)
        return c is None or c != 0

    p = ctx.param
    fc, fv = p(link.FC), p(link.FV)
    terms = []
    if nonzero(fc) or nonzero(link.FST):
        sgn = ctx.fn("sign", qd)
        terms.append(mul(fc, sgn))
        fst, bst = p(link.FST), p(link.BST)
        if nonzero(fst):
            decay = ctx.fn("exp", -mul(ctx.fn("abs", qd), bst))
            terms.append(mul(mul(add(fst, -fc), sgn), decay))
    terms.append(mul(fv, qd))
    return add(*terms)


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


def joint_vector(robot, vals, shape):
    """Values given per frame (1..NL, None for fixed frames) as a joint vector (..., n_q)
    (a mimic joint's value projected on the joint it follows)."""
    from ..description.mimic import reduce_vector

    return reduce_vector(robot, dict(enumerate(vals, start=1)), shape)


__all__ = []
