"""Elementary transforms of the Khalil-Kleinfinger notation (Khalil & Dombre [3.2] and tree form).

Written once for any scalar type: the functions take SymPy expressions (and
return SymPy entries, trivial products already folded by SymPy) or NumPy
arrays with any leading batch shape (and return arrays of shape ``(..., 4, 4)``
through :func:`_stack`).
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from ..description.arguments import finite_array, joint_array, keyword_options, robot_argument
from ..description.kk_matrix import kk_transform, kk_transform_sc, sincos  # noqa: F401
from ..errors import DescriptionError


def _is_symbolic(*xs) -> bool:
    return any(isinstance(x, sp.Basic) for x in xs)


def _stack(nested) -> np.ndarray:
    """Nested lists of numbers/arrays -> array of shape ``(..., rows, cols)``."""
    rows = len(nested)
    cols = len(nested[0])
    flat = [np.asarray(x, dtype=float) for row in nested for x in row]
    flat = np.broadcast_arrays(*flat)
    out = np.stack(flat, axis=-1)
    return out.reshape(out.shape[:-1] + (rows, cols))


def _const_sc(expr, robot_name, j, field):
    """Exact sine and cosine of a constant angle, as floats."""
    try:
        return float(sp.sin(expr)), float(sp.cos(expr))
    except TypeError:
        raise DescriptionError(
            f"robot {robot_name!r}: {field} has symbols {sorted(map(str, expr.free_symbols))}; "
            "substitute numeric values first (Robot.numeric())", frame=j, field=field) from None


def _const(expr, robot_name, j, field):
    try:
        return float(expr)
    except TypeError:
        raise DescriptionError(
            f"robot {robot_name!r}: {field} has symbols {sorted(map(str, expr.free_symbols))}; "
            "substitute numeric values first (Robot.numeric())", frame=j, field=field) from None


def frame_transform(robot, j: int, q=None):
    """a(j)T_j of ``robot``.

    * ``q is None``: symbolic, a SymPy ImmutableMatrix in the joint variable ``qj``;
    * ``q`` a SymPy expression: symbolic with that value of the joint variable;
    * ``q`` numeric (scalar or array of any shape, the value of joint j): an array
      ``q.shape + (4, 4)``; the robot's parameters must be numeric.
    """
    f = robot_argument(robot).frame(j)
    if q is None or isinstance(q, sp.Basic):
        return sp.ImmutableMatrix(
            kk_transform(f.gamma, f.b, f.alpha, f.d, f.theta_total(q), f.r_total(q)))
    q = finite_array("q", q, shape_text="the value of joint j (number or array)")
    sg, cg = _const_sc(f.gamma, robot.name, j, "gamma")
    sa, ca = _const_sc(f.alpha, robot.name, j, "alpha")
    b = _const(f.b, robot.name, j, "b")
    d = _const(f.d, robot.name, j, "d")
    if f.sigma == 0:
        st, ct = np.sin(q + _const(f.theta, robot.name, j, "theta")), None
        ct = np.cos(q + _const(f.theta, robot.name, j, "theta"))
        r = np.full_like(q, _const(f.r, robot.name, j, "r"))
    else:
        st, ct = _const_sc(f.theta, robot.name, j, "theta")
        st, ct = np.full_like(q, st), np.full_like(q, ct)
        r = q + _const(f.r, robot.name, j, "r") if f.sigma == 1 else np.full_like(
            q, _const(f.r, robot.name, j, "r"))
    return _stack(kk_transform_sc(sg, cg, b, sa, ca, d, st, ct, r))


def transform_to_numpy(matrix) -> np.ndarray:
    """A constant SymPy 4x4 (base Z, tool E) as a float array."""
    try:
        return np.array(matrix.evalf(), dtype=float)
    except TypeError:
        raise DescriptionError(
            f"matrix has symbols {sorted(map(str, matrix.free_symbols))}; "
            "substitute numeric values first") from None


@keyword_options()
def frame_transforms(robot, q=None):
    """All a(j)T_j, j = 1..NF, as a list (symbolic, or numeric for q of shape (..., NJ))."""
    if q is None:
        return [frame_transform(robot, j) for j in range(1, robot.n_frames + 1)]
    q = joint_array(robot, "q", q)
    index = robot.joint_index
    out = []
    for j in range(1, robot.n_frames + 1):
        qj = q[..., index[j]] if j in index else np.zeros(q.shape[:-1])
        out.append(frame_transform(robot, j, qj))
    return out


__all__ = ["kk_transform", "frame_transform", "frame_transforms"]
