"""Small linear algebra over scalars of any context (SymPy expressions or NumPy arrays).

Vectors are lists of 3 scalars, rotation matrices lists of 3 rows, homogeneous
transforms 3x4 lists of rows (the last row 0 0 0 1 is implicit).  Products by
the constants 0, 1 and -1 are skipped when they are known at build time, so
the symbolic models do not contain them and the numeric path does not compute
them.  Every element that needs an operation goes through ``ctx.var`` with the
name given, so the symbolic context names it (``name + row + column``).
"""
from __future__ import annotations

import numbers

import numpy as np
import sympy as sp


def numeric_constant(x):
    """The constant value of x if known at build time, else None."""
    t = type(x)
    if t is int or t is float:
        return x
    if t is np.ndarray:         # the numeric path's arrays, first of the common cases
        return None
    if isinstance(x, sp.Basic):
        return x if x.is_Number else None
    if isinstance(x, numbers.Number):
        return x
    return None


def mul(a, b):
    ca, cb = numeric_constant(a), numeric_constant(b)
    if ca is not None:
        if ca == 0:
            return 0
        if ca == 1:
            return b
        if ca == -1:
            return -b
    if cb is not None:
        if cb == 0:
            return 0
        if cb == 1:
            return a
        if cb == -1:
            return -a
    if ca is not None and type(b) is sp.Symbol and isinstance(ca, sp.Number):
        return _number_times_symbol(ca, b)
    if cb is not None and type(a) is sp.Symbol and isinstance(cb, sp.Number):
        return _number_times_symbol(cb, a)
    return a * b


def _number_times_symbol(c, x):
    """c * x built in its canonical form (the number first) without SymPy's product, which
    creates a new Float for the coefficient and deduces its assumptions -- most of the time
    of the customized models of robots with numeric parameters (a tree of 30 joints makes
    thousands of such products)."""
    if c.is_zero:   # a Float 0.0 (a file's zero): in SymPy >= 1.13 Float(0.0) == 0 is False
        return 0
    return sp.Mul(c, x, evaluate=False)


def add(*terms):
    out = 0
    for t in terms:
        c = numeric_constant(t)
        if c is not None and c == 0:
            continue
        oc = numeric_constant(out)
        out = t if (oc is not None and oc == 0) else out + t
    return out


def dot(a, b):
    """sum a_k b_k"""
    return add(*[mul(x, y) for x, y in zip(a, b)])


def cross(a, b):
    return [add(mul(a[1], b[2]), -mul(a[2], b[1])),
            add(mul(a[2], b[0]), -mul(a[0], b[2])),
            add(mul(a[0], b[1]), -mul(a[1], b[0]))]


def _name_vec(ctx, v, name, suffixes=("1", "2", "3")):
    return [ctx.var(x, f"{name}{s}") for x, s in zip(v, suffixes)]


def name_mat(ctx, m, name):
    return [[ctx.var(x, f"{name}{r + 1}{c + 1}") for c, x in enumerate(row)]
            for r, row in enumerate(m)]


def _mat_vec(R, v):
    return [dot(row, v) for row in R]


def _matT_vec(R, v):
    return [dot([R[0][k], R[1][k], R[2][k]], v) for k in range(3)]


def htm_mul(ctx, A, B, name):
    """A B for 3x4 homogeneous transforms; each element named ``name{r}{c}``."""
    out = []
    for r in range(3):
        row = []
        for c in range(4):
            col = [B[0][c], B[1][c], B[2][c]]
            v = dot(A[r][:3], col)
            if c == 3:
                v = add(v, A[r][3])
            row.append(ctx.var(v, f"{name}{r + 1}{c + 1}"))
        out.append(row)
    return out


def htm_inv(ctx, A, name):
    """Inverse of a 3x4 homogeneous transform: [R^T, -R^T P]."""
    Rt = [[A[k][r] for k in range(3)] for r in range(3)]
    P = [A[0][3], A[1][3], A[2][3]]
    out = []
    for r in range(3):
        p = -dot(Rt[r], P)
        out.append(Rt[r] + [ctx.var(p, f"{name}{r + 1}4")])
    return out


def htm_identity():
    return [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]


def htm_from_matrix(M, ctx=None):
    """A 3x4 nested list from a 4x4 SymPy matrix (constant entries, as ``ctx`` scalars)."""
    conv = ctx.param if ctx is not None else (lambda x: x)
    return [[conv(M[r, c]) for c in range(4)] for r in range(3)]


def stack(nested, batch_shape=None) -> np.ndarray:
    """Nested lists of numbers/arrays -> float array of shape ``(..., rows, cols)``."""
    rows = len(nested)
    cols = len(nested[0])
    flat = [np.asarray(x, dtype=float) for row in nested for x in row]
    if batch_shape is not None:
        flat.append(np.zeros(batch_shape))
    flat = np.broadcast_arrays(*flat)
    if batch_shape is not None:
        flat = flat[:-1]
    out = np.stack(flat, axis=-1)
    return out.reshape(out.shape[:-1] + (rows, cols))


__all__ = []
