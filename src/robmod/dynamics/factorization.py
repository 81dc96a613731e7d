"""Linear systems of the dynamic models: the inertia matrix's L^T D L factorization over
context scalars (the customized direct models, Khalil & Dombre §7.6.1: no fill-in for a tree
whose joints are numbered from the base) and a batched Cholesky solve (the numeric ones)."""
from __future__ import annotations

import numpy as np

from ..errors import RobmodError
from ..symbolic.algebra import add, mul, numeric_constant


def ltdl_solve(ctx, A, b, order, names=("DI", "L", "AD", "Y", "QDP"), singular=None):
    """Solve A x = b, A = L^T D L (L unit lower triangular), over context scalars.

    ``A``: ``{(i, j): scalar}`` lower triangle (missing: 0) over the frames ``order``
    (parents before children); ``b``: ``{j: scalar}``; ``names``: of the statements (D^-1,
    L, the updated A, y, x), followed by the labels of ``order``.  Returns ``{j: x_j}``.
    ``singular(j)``: the error raised for a pivot known to be 0 at build time (default: a
    RobmodError naming the entry).
    """
    H, Dinv = ltdl_factor(ctx, A, order, names[:3], singular)
    y = ltdl_back(ctx, H, b, order, names[3])
    return ltdl_forward(ctx, H, Dinv, y, order, names[4])


def _zero(x):
    c = numeric_constant(x)
    return c is not None and c == 0


def ltdl_factor(ctx, A, order, names=("DI", "L", "AD"), singular=None):
    """(H, D^-1): A = L^T D L over context scalars (module :func:`ltdl_solve`); ``H[k][i]``
    (i < k) holds L, ``D^-1`` the inverse pivots (lists over ``order``)."""
    di, ln, ad = names
    n = len(order)
    H = [[A.get((order[r], order[c]), 0) for c in range(r + 1)] for r in range(n)]
    Dinv = [None] * n
    for k in reversed(range(n)):
        if _zero(H[k][k]):
            raise (singular(order[k]) if singular is not None else RobmodError(
                f"the system is singular: its pivot {order[k]} is zero at every configuration"))
        Dinv[k] = ctx.var(1 / H[k][k], f"{di}{order[k]}")
        for i in reversed(range(k)):  # ancestors first replaced last (Featherstone's LTDL)
            if _zero(H[k][i]):
                continue
            a = ctx.var(mul(H[k][i], Dinv[k]), f"{ln}{order[k]}{order[i]}")
            for j in range(i + 1):
                if not _zero(H[k][j]):
                    H[i][j] = ctx.var(add(H[i][j], -mul(a, H[k][j])),
                                      f"{ad}{order[i]}{order[j]}")
            H[k][i] = a
    return H, Dinv


def ltdl_back(ctx, H, b, order, name="Y"):
    """y = L^-T b (``b``: ``{label: scalar}``, missing: 0) as a list over ``order``."""
    n = len(order)
    y = [None] * n
    for i in reversed(range(n)):
        y[i] = ctx.var(add(b.get(order[i], 0), *[-mul(H[k][i], y[k]) for k in range(i + 1, n)]),
                       f"{name}{order[i]}")
    return y


def ltdl_forward(ctx, H, Dinv, y, order, name="QDP"):
    """x = L^-1 D^-1 y as ``{label: x}`` (so that L^T D L x = b for y = L^-T b)."""
    n = len(order)
    x = [None] * n
    for i in range(n):
        z = mul(y[i], Dinv[i])
        x[i] = ctx.var(add(z, *[-mul(H[i][j], x[j]) for j in range(i)]), f"{name}{order[i]}")
    return dict(zip(order, x))


def cholesky_solve(A, b):
    """Solve A x = b for stacks of SPD matrices A (..., n, n), b (..., n)."""
    L = np.linalg.cholesky(A)
    n = A.shape[-1]
    b = np.broadcast_to(b, A.shape[:-1]).copy()
    y = np.empty_like(b)
    for i in range(n):
        y[..., i] = (b[..., i] - np.einsum("...k,...k->...", L[..., i, :i], y[..., :i])) \
            / L[..., i, i]
    x = np.empty_like(b)
    for i in reversed(range(n)):
        x[..., i] = (y[..., i] - np.einsum("...k,...k->...", L[..., i + 1:, i],
                                           x[..., i + 1:])) / L[..., i, i]
    return x


__all__ = []
