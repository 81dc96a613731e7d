"""The direct dynamic model as A^-1 (Gamma - H), symbolically (Khalil & Dombre [7.62]-[7.64]).

H is the Newton-Euler inverse model at qdd = 0, A the composite-link inertia matrix; the system
is solved with ``A = L^T D L`` taken from the last joint back to the first (Featherstone's LTDL:
no fill-in for a tree, L has the sparsity of A).  With mimic joints the system is that of the
joint variables, (Eᵀ A E) qdd = Gamma - Eᵀ H (:mod:`robmod.description.mimic`).  Used by
:func:`~robmod.dynamics.ddm_model` with ``method="inverse"``, the default for robots with
mimic joints.
"""
from __future__ import annotations

from ..symbolic.algebra import add, mul, numeric_constant
from .inertia import inertia_matrix_algorithm
from .newton_euler import idm_algorithm
from .layout import Proxy, coordinates, dofs, reduce_mimic, reduce_mimic_matrix


def _ltdl_solve(ctx, A, b, order, singular):
    """Solve A x = b, A = L^T D L (L unit lower triangular), over context scalars.

    ``A``: ``{(i, j): scalar}`` lower triangle (missing: 0) over the frames ``order``
    (parents before children); ``b``: ``{j: scalar}``.  Returns ``{j: x_j}``.
    ``singular(j)``: the error raised for a pivot known to be 0 at build time.
    """
    def zero(x):
        c = numeric_constant(x)
        return c is not None and c == 0

    n = len(order)
    H = [[A.get((order[r], order[c]), 0) for c in range(r + 1)] for r in range(n)]
    Dinv = [None] * n
    for k in reversed(range(n)):
        if zero(H[k][k]):
            raise singular(order[k])
        Dinv[k] = ctx.var(1 / H[k][k], f"DI{order[k]}")
        for i in reversed(range(k)):  # ancestors first replaced last (Featherstone's LTDL)
            if zero(H[k][i]):
                continue
            a = ctx.var(mul(H[k][i], Dinv[k]), f"L{order[k]}{order[i]}")
            for j in range(i + 1):
                if not zero(H[k][j]):
                    H[i][j] = ctx.var(add(H[i][j], -mul(a, H[k][j])),
                                      f"AD{order[i]}{order[j]}")
            H[k][i] = a
    y = [None] * n
    for i in reversed(range(n)):
        y[i] = ctx.var(add(b[order[i]], *[-mul(H[k][i], y[k]) for k in range(i + 1, n)]),
                       f"Y{order[i]}")
    x = [None] * n
    for i in range(n):
        z = mul(y[i], Dinv[i])
        x[i] = ctx.var(add(z, *[-mul(H[i][j], x[j]) for j in range(i)]), f"QDP{order[i]}")
    return dict(zip(order, x))


def ddm_inverse_algorithm(ctx, robot, tau, *, singular, **switches):
    """qdd = A^-1 (Gamma - H) over a context ([7.62]-[7.64]); with mimic joints
    (Eᵀ A E) qdd = Gamma - Eᵀ H over the joint variables.  ``singular(j)``: the error for a
    pivot that is zero at every configuration."""
    h = idm_algorithm(Proxy(ctx, qdd=0), robot, **switches)
    A = inertia_matrix_algorithm(ctx, robot, rotor=switches.get("rotor", True))
    h = {j: h[j - 1] for j in dofs(robot)}
    if robot.mimic:
        h, A = reduce_mimic(robot, h), reduce_mimic_matrix(ctx, robot, A)
    order = coordinates(robot)
    b = {j: ctx.var(add(tau[j], -h[j]), f"GH{j}") for j in order}
    return _ltdl_solve(ctx, A, b, order, singular)


__all__ = []
