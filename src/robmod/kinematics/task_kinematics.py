"""Kinematic model in task coordinates (Khalil & Dombre §5.11, [5.48]-[5.70]).

The location of frame j (or of the tool frame E) relative to frame 0 is
described by ``X = [Xp; Xr]``: ``Xp = 0P_j`` (Cartesian, ``Omega_p = I3``) and
an orientation set ``Xr``.  Its time derivative is ([5.50]-[5.52])::

    Xdot = Omega [0V_j; 0w_j],   Omega = diag(I3, Omega_r),   J_x = Omega 0J_j

with ``0w_j`` the angular velocity in frame 0.  Representations (names accepted
by every function; ``m`` = rows of ``Omega_r``):

============  ====  ==========================================  =======================
name          m     Xr                                          Omega_r, inverse
============  ====  ==========================================  =======================
"cosines"     9     [s; n; a] (columns of 0R_j), X has 12 rows  [5.57] ``[-s^; -n^; -a^]``;
                                                                left inverse [5.59]
                                                                ``1/2 [s^ n^ a^]``
"zxz"         3     Khalil's Euler angles (phi, theta, psi),    [5.63]; inverse [5.61]
                    R = rot(z,phi) rot(x,theta) rot(z,psi)
"rpy"         3     Khalil's roll-pitch-yaw (phi, theta, psi),  [5.65]; inverse [5.64]
                    R = rot(z,phi) rot(y,theta) rot(x,psi)
"quaternion"  4     (Q0, Q1, Q2, Q3), scalar first              [5.69] ``Omega_Q``; left
                                                                inverse [5.70] ``4 Omega_Q^T``
============  ====  ==========================================  =======================

with ``x^`` the skew matrix of [2.32] (``x^ y = x cross y``).  ``Omega_r`` of
the Euler and RPY angles is singular where ``sin(theta) = 0`` (zxz), resp.
``cos(theta) = 0`` (rpy) — the representation singularities of Khalil & Dombre
§3.6; there the functions raise :class:`~robmod.errors.RobmodError` (or, with
``on_singular="nan"``, return NaN rows for the flagged configurations).  The
inverse maps (angle rates -> w) exist everywhere.  The quaternion and cosine maps
are never singular (``Omega_Q^T Omega_Q = I3/4``, ``Omega_CD^T Omega_CD = 2 I3``).

The angles are those of the first branch of the orientation module
(:mod:`robmod.spatial.orientation`: theta in [0, pi] for zxz, in
[-pi/2, pi/2] for rpy; quaternions with Q0 >= 0).  ``Omega_r`` is written once
over context scalars (sines and cosines of the angles, or the quaternion, or
the columns of R), so it serves the numeric functions and the customized
symbolic model.  In the symbolic model the coordinates are read off 0R_j
without branches: rpy ``cos(theta) = sqrt(r11^2 + r21^2)``, zxz
``sin(theta) = sqrt(r13^2 + r23^2)``, quaternion ``Q0 = sqrt(1 + tr R)/2``
(valid for rotations of less than a half turn, Q0 > 0).

Customized model statements: ``JX{r}{c}`` for J_x (``JX{r}_{c}`` beyond 9 rows or
columns), ``OM{r}{c}`` for Omega_r, ``CTH``/``STH``, ``SPHI``, ``CPHI``, ``H0..H3`` for the
coordinates read off R.  RX-90, 0J6 in task coordinates (multiplications/additions, Jacobian
included): rpy 99/43, zxz 87/37, quaternion 123/65, cosines 137/57.

Public API:

* ``omega_matrix(representation, x=None, *, angles=None, R=None, tol=1e-9,
  on_singular="raise")`` -> ``(..., 3 + m, 6)``; ``x`` is a rotation (``(..., 3, 3)`` or
  ``(..., 4, 4)``) or the coordinates (``(..., 3)`` angles, ``(..., 4)`` quaternion);
  pass ``angles=``/``R=`` to remove the ambiguity of a batch of 3 (or 4) vectors;
* ``omega_inverse(representation, x=None, *, angles=None, R=None)`` -> ``(..., 6, 3 + m)``,
  the inverse [5.53] or left inverse [5.54]-[5.55];
* ``representation_singular(representation, x=None, *, angles=None, R=None, tol=1e-9)``
  -> boolean mask;
* ``task_coordinates(robot, q, *, representation="rpy", j=None, tool=None)`` ->
  ``(..., 3 + m)``;
* ``task_jacobian(robot, q, *, representation="rpy", j=None, tool=None, tol=1e-9,
  on_singular="raise")`` -> ``J_x`` ``(..., 3 + m, NJ)``;
* ``task_jacobian_algorithm(ctx, robot, *, representation="rpy", j=None, tool=None,
  coordinates=False)`` and ``task_jacobian_model(robot, *, representation="rpy", j=None,
  tool=None, coordinates=False)`` (customized model, outputs ``Jx`` and optionally ``X``).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import joint_array, keyword_options
from ..errors import ArgumentError, RobmodError
from ..spatial.orientation import matrix_to_euler_zxz, matrix_to_quaternion, matrix_to_rpy
from ..spatial.rotations import rotation_part
from ..symbolic.algebra import add, dot, htm_from_matrix, mul, stack
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .jacobians import resolve_frame, jacobian_parts, pose_and_jacobian

#: rows of Omega_r for each representation
_ROWS = {"rpy": 3, "zxz": 3, "quaternion": 4, "cosines": 9}
_ALIASES = {"euler": "zxz", "euler_zxz": "zxz", "quat": "quaternion", "quaternions": "quaternion",
            "direction_cosines": "cosines", "cd": "cosines"}
_DEFAULT_TOL = 1e-9


def _representation_name(representation: str) -> str:
    """The canonical name of a representation (aliases: euler, quat, direction_cosines)."""
    key = str(representation).lower()
    key = _ALIASES.get(key, key)
    if key not in _ROWS:
        raise ArgumentError(f"unknown orientation representation {representation!r}; "
                          f"use one of {', '.join(_ROWS)}")
    return key


def _skew(v):
    """v^ as a nested 3x3 list ([2.32])."""
    return [[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]]


# ------------------------------------------------------------------ Omega_r over scalars

def _omega_r_algorithm(ctx, representation, c):
    """Omega_r (m x 3 nested list) from the coordinates ``c`` (context scalars).

    ``c``: rpy / zxz ``{"sphi", "cphi", "sth", "cth"}`` (optionally ``"ik"``, the already
    computed 1/cos(theta), resp. 1/sin(theta)); quaternion ``{"Q": [Q0..Q3]}`` (optionally
    ``"H"`` = Q/2); cosines ``{"s", "n", "a"}`` (3-vectors).
    """
    rep = _representation_name(representation)
    if rep == "cosines":  # [5.57]: d(x)/dt = w x x = -x^ w
        return [[-e for e in row] for v in (c["s"], c["n"], c["a"]) for row in _skew(v)]
    if rep == "quaternion":  # [5.69]
        if "H" in c:  # the half quaternion Q/2, precomputed
            h0, h1, h2, h3 = c["H"]
        else:
            h0, h1, h2, h3 = (x / 2 for x in c["Q"])
        return [[-h1, -h2, -h3], [h0, h3, -h2], [-h3, h0, h1], [h2, -h1, h0]]
    sp_, cp, st, ct = c["sphi"], c["cphi"], c["sth"], c["cth"]
    if rep == "rpy":  # [5.65]: singular where cos(theta) = 0
        k = c["ik"] if "ik" in c else ctx.var(1 / ct, "ICTH")
        t = ctx.var(mul(st, k), "TTH")
        return [[ctx.var(mul(cp, t), "OM11"), ctx.var(mul(sp_, t), "OM12"), 1],
                [-sp_, cp, 0],
                [ctx.var(mul(cp, k), "OM31"), ctx.var(mul(sp_, k), "OM32"), 0]]
    # zxz, [5.63]: singular where sin(theta) = 0
    k = c["ik"] if "ik" in c else ctx.var(1 / st, "ISTH")
    t = ctx.var(mul(ct, k), "COTTH")
    return [[ctx.var(-mul(sp_, t), "OM11"), ctx.var(mul(cp, t), "OM12"), 1],
            [cp, sp_, 0],
            [ctx.var(mul(sp_, k), "OM31"), ctx.var(-mul(cp, k), "OM32"), 0]]


def _omega_r_inverse_algorithm(ctx, representation, c):
    """The inverse ([5.61], [5.64]) or left inverse ([5.59], [5.70]) of Omega_r (3 x m)."""
    rep = _representation_name(representation)
    if rep == "cosines":
        blocks = [_skew(c[k]) for k in ("s", "n", "a")]
        return [[x / 2 for b in blocks for x in b[r]] for r in range(3)]
    if rep == "quaternion":  # 4 Omega_Q^T / |Q|^2 (|Q| = 1 for a unit quaternion)
        q0, q1, q2, q3 = c["Q"]
        k = c.get("scale", 2)
        return [[mul(k, x) for x in row] for row in
                ([-q1, q0, -q3, q2], [-q2, q3, q0, -q1], [-q3, -q2, q1, q0])]
    sp_, cp, st, ct = c["sphi"], c["cphi"], c["sth"], c["cth"]
    if rep == "rpy":  # w = z0 phid + y' thetad + x'' psid
        return [[0, -sp_, mul(cp, ct)], [0, cp, mul(sp_, ct)], [1, 0, -st]]
    return [[0, cp, mul(sp_, st)], [0, sp_, -mul(cp, st)], [1, 0, ct]]  # zxz


# ------------------------------------------------------------------ numeric front end

def _coords_numeric(rep, x, angles, R):
    """(coordinate dict of NumPy arrays, batch shape) from angles, a quaternion or R."""
    if x is not None:
        if angles is not None or R is not None:
            raise RobmodError("pass the coordinates either positionally or by keyword")
        a = np.asarray(x, dtype=float)
        if a.ndim >= 2 and a.shape[-2:] in ((3, 3), (4, 4)):
            R = a
        else:
            angles = a
    if R is not None:
        R = rotation_part(R)
        if rep == "cosines":
            return {k: [R[..., r, col] for r in range(3)]
                    for col, k in enumerate("sna")}, R.shape[:-2]
        if rep == "quaternion":
            angles = matrix_to_quaternion(R)
        else:
            angles = (matrix_to_rpy(R) if rep == "rpy" else matrix_to_euler_zxz(R)).first
    if angles is None:
        raise RobmodError("omega needs a rotation (R=) or the coordinates (angles=)")
    a = np.asarray(angles, dtype=float)
    if rep == "cosines":
        raise RobmodError("the direction-cosine Omega needs the rotation matrix (R=)")
    if rep == "quaternion":
        if a.shape[-1:] != (4,):
            raise RobmodError(f"quaternions have shape (..., 4), got {a.shape}")
        n2 = np.sum(a * a, axis=-1)
        if np.any(n2 == 0):
            raise RobmodError("zero quaternion")
        return {"Q": [a[..., k] for k in range(4)], "scale": 2.0 / n2}, a.shape[:-1]
    if a.shape[-1:] != (3,):
        raise RobmodError(f"{rep} angles have shape (..., 3), got {a.shape}")
    return {"sphi": np.sin(a[..., 0]), "cphi": np.cos(a[..., 0]),
            "sth": np.sin(a[..., 1]), "cth": np.cos(a[..., 1])}, a.shape[:-1]


def _singular(rep, c, tol):
    if rep == "rpy":
        return np.abs(c["cth"]) <= tol
    if rep == "zxz":
        return np.abs(c["sth"]) <= tol
    return None


@keyword_options()
def representation_singular(representation, x=None, *, angles=None, R=None,
                            tol: float = _DEFAULT_TOL) -> np.ndarray:
    """Mask of the representation singularities (always False for quaternions and cosines)."""
    rep = _representation_name(representation)
    c, batch = _coords_numeric(rep, x, angles, R)
    s = _singular(rep, c, tol)
    return np.zeros(batch, dtype=bool) if s is None else np.asarray(s)


def _omega_r_numeric(rep, c, batch, tol, on_singular):
    if on_singular not in ("raise", "nan"):
        raise RobmodError("on_singular must be 'raise' or 'nan'")
    sing = _singular(rep, c, tol)
    if sing is not None and np.any(sing):
        if on_singular == "raise":
            what = "cos(theta) = 0" if rep == "rpy" else "sin(theta) = 0"
            raise RobmodError(f"{rep} representation singularity ({what}) in "
                              f"{int(np.sum(sing))} configuration(s): Omega_r is not defined; "
                              "use quaternions or direction cosines there")
        c = dict(c)
        guard = "cth" if rep == "rpy" else "sth"
        c[guard] = np.where(sing, 1.0, c[guard])
    with np.errstate(divide="ignore", invalid="ignore"):
        om = stack(_omega_r_algorithm(NumericContext(), rep, c), batch)
    if sing is not None and np.any(sing):
        om = np.where(np.asarray(sing)[..., None, None], np.nan, om)
    return om


@keyword_options()
def omega_matrix(representation, x=None, *, angles=None, R=None, tol: float = _DEFAULT_TOL,
                 on_singular: str = "raise") -> np.ndarray:
    """Omega = diag(I3, Omega_r) ([5.50]): (..., 3 + m, 6), maps [V; w] to Xdot."""
    rep = _representation_name(representation)
    c, batch = _coords_numeric(rep, x, angles, R)
    om = _omega_r_numeric(rep, c, batch, tol, on_singular)
    m = _ROWS[rep]
    out = np.zeros(om.shape[:-2] + (3 + m, 6))
    out[..., :3, :3] = np.eye(3)
    out[..., 3:, 3:] = om
    return out


@keyword_options()
def omega_inverse(representation, x=None, *, angles=None, R=None) -> np.ndarray:
    """diag(I3, Omega_r^-1) ([5.53]) or the left inverse ([5.54]-[5.55]): (..., 6, 3 + m)."""
    rep = _representation_name(representation)
    c, batch = _coords_numeric(rep, x, angles, R)
    inv = stack(_omega_r_inverse_algorithm(NumericContext(), rep, c), batch)
    m = _ROWS[rep]
    out = np.zeros(inv.shape[:-2] + (6, 3 + m))
    out[..., :3, :3] = np.eye(3)
    out[..., 3:, 3:] = inv
    return out


def _orientation(rep, R):
    if rep == "cosines":
        return np.concatenate([R[..., :, 0], R[..., :, 1], R[..., :, 2]], axis=-1)
    if rep == "quaternion":
        return matrix_to_quaternion(R)
    return (matrix_to_rpy(R) if rep == "rpy" else matrix_to_euler_zxz(R)).first


@keyword_options()
def task_coordinates(robot, q, *, representation="rpy", j=None, tool=None) -> np.ndarray:
    """X = [0P_j; Xr] (..., 3 + m) at q (angles and quaternions: first branch, Q0 >= 0)."""
    from ..geometry.direct import dgm

    rep = _representation_name(representation)
    T = dgm(robot, q, j=j, tool=tool)
    return np.concatenate([T[..., :3, 3], _orientation(rep, T[..., :3, :3])], axis=-1)


@keyword_options()
def task_jacobian(robot, q, *, representation="rpy", j=None, tool=None,
                  tol: float = _DEFAULT_TOL, on_singular: str = "raise") -> np.ndarray:
    """J_x = Omega 0J_j ([5.51]-[5.52]): (..., 3 + m, NJ), with Xdot = J_x qd."""
    rep = _representation_name(representation)
    q = joint_array(robot, "q", q)
    T, J = pose_and_jacobian(robot, q, j=j, tool=tool)
    c, batch = _coords_numeric(rep, None, None, T[..., :3, :3])
    om = _omega_r_numeric(rep, c, batch, tol, on_singular)
    return np.concatenate([J[..., :3, :], om @ J[..., 3:, :]], axis=-2)


# ------------------------------------------------------------------ customized model

def _coords_from_R(ctx, rep, R):
    """Coordinates of the first branch read off R (context scalars), and the angles' X."""
    col = [[R[r][k] for r in range(3)] for k in range(3)]
    if rep == "cosines":
        return {"s": col[0], "n": col[1], "a": col[2]}, col[0] + col[1] + col[2]
    sqrt, atan2 = (lambda x: ctx.fn("sqrt", x)), (lambda y, x: ctx.fn("atan2", y, x))
    if rep == "quaternion":
        tr = add(1, R[0][0], R[1][1], R[2][2])
        h0 = ctx.var(sqrt(tr) / 4, "H0")  # H = Q/2, Q0 = sqrt(1 + tr R)/2
        k = ctx.var(1 / mul(16, h0), "IH0")
        H = [h0] + [ctx.var(mul(k, add(R[a][b], -R[b][a])), f"H{n}")
                    for n, (a, b) in enumerate(((2, 1), (0, 2), (1, 0)), start=1)]
        Q = [ctx.var(mul(2, h), f"Q{n}") for n, h in enumerate(H)]
        return {"Q": Q, "H": H}, Q
    if rep == "rpy":  # R = rot(z,phi) rot(y,theta) rot(x,psi), cos(theta) >= 0
        ct = ctx.var(sqrt(add(mul(R[0][0], R[0][0]), mul(R[1][0], R[1][0]))), "CTH")
        st = -R[2][0]
        k = ctx.var(1 / ct, "ICTH")
        cp, sp_ = ctx.var(mul(R[0][0], k), "CPHI"), ctx.var(mul(R[1][0], k), "SPHI")
        angles = [atan2(R[1][0], R[0][0]), atan2(st, ct), atan2(R[2][1], R[2][2])]
    else:  # zxz: R = rot(z,phi) rot(x,theta) rot(z,psi), sin(theta) >= 0
        st = ctx.var(sqrt(add(mul(R[0][2], R[0][2]), mul(R[1][2], R[1][2]))), "STH")
        ct = R[2][2]
        k = ctx.var(1 / st, "ISTH")
        sp_, cp = ctx.var(mul(R[0][2], k), "SPHI"), ctx.var(-mul(R[1][2], k), "CPHI")
        angles = [atan2(R[0][2], -R[1][2]), atan2(st, ct), atan2(R[2][0], R[2][1])]
    c = {"sphi": sp_, "cphi": cp, "sth": st, "cth": ct, "ik": k}
    return c, [ctx.var(a, n) for a, n in zip(angles, ("PHI", "THETA", "PSI"))]


def _jx_name(r, c, rows, cols):
    """Name of element (r, c) (0-based) of J_x: ``JX{r}{c}``, ``JX{r}_{c}`` beyond 9."""
    sep = "_" if max(rows, cols) > 9 else ""
    return f"JX{r + 1}{sep}{c + 1}"


@keyword_options()
def task_jacobian_algorithm(ctx, robot, *, representation="rpy", j=None, tool=None,
                            coordinates=False):
    """J_x ((3 + m) x NJ nested list) and, if ``coordinates``, X (3 + m scalars) from 0R_j."""
    rep = _representation_name(representation)
    columns, A, P, tool, j = jacobian_parts(ctx, robot, j, 0, tool)
    R = A[j]
    if tool is not None:
        RE = [row[:3] for row in htm_from_matrix(tool.T, ctx)]
        R = [[ctx.var(dot(R[r], [RE[0][c], RE[1][c], RE[2][c]]), f"T0E{r + 1}{c + 1}")
              for c in range(3)] for r in range(3)]
    c, xr = _coords_from_R(ctx, rep, R)
    om = _omega_r_algorithm(ctx, rep, c)
    nj = robot.n_joints
    rows = [[0] * nj for _ in range(3 + _ROWS[rep])]
    for k, col in columns.items():
        if k > nj:
            continue
        for r in range(3):
            rows[r][k - 1] = ctx.var(col[r], _jx_name(r, k - 1, len(rows), nj))
        for r, orow in enumerate(om):
            rows[3 + r][k - 1] = ctx.var(dot(orow, col[3:]), _jx_name(3 + r, k - 1, len(rows), nj))
    if not coordinates:
        return rows, None
    return rows, list(P[0]) + list(xr)


@keyword_options()
def task_jacobian_model(robot, *, representation="rpy", j=None, tool=None, coordinates=False):
    """Customized symbolic J_x (output ``Jx``; with ``coordinates`` also ``X``)."""
    rep = _representation_name(representation)
    tool_obj, jj = resolve_frame(robot, j, tool)
    end = "E" if tool_obj is not None else str(jj)
    q = tuple(robot.frame(k).q for k in robot.joints)

    def algorithm(ctx):
        rows, X = task_jacobian_algorithm(ctx, robot, representation=rep, j=jj, tool=tool_obj,
                                          coordinates=coordinates)
        names = [_jx_name(r, c, len(rows), len(rows[0])) for r in range(len(rows))
                 for c in range(len(rows[0]))]
        out = [Output.matrix("Jx", rows, names)]
        if X is not None:
            out.append(Output.vector("X", X))
        return out

    return customize(f"{robot.name}_task_jacobian_{rep}", algorithm, robot, inputs={"q": q},
                     title=f"Task-coordinate Jacobian ({rep}) of frame {end} of {robot.name}")


__all__ = ["task_jacobian", "task_jacobian_model", "task_jacobian_algorithm", "task_coordinates",
           "omega_matrix", "omega_inverse", "representation_singular"]
