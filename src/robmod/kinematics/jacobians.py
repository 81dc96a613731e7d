"""Kinematic Jacobian iJ_j (Khalil & Dombre ch. 5, Khalil's iJn), written once for every context.

The Jacobian maps the joint velocities to the linear velocity of the origin
O_j of frame j (or of the tool frame E) and the angular velocity of frame j,
both *expressed in frame i*::

    [iV_j; iw_j] = iJ_j qd

Column k, for each joint k on the chain of frame j (zero columns for the
other joints, closed-loop cut joints included only when they are on the
chain)::

    revolute:   [ iA_k (z x kP_E) ; iA_k z ]  =  [ -kPy_E * i s_k + kPx_E * i n_k ; i a_k ]
    prismatic:  [ i a_k ; 0 ]

``kP_E`` (position of O_E in frame k) comes from the backward recursion of
the DGM (``U_k = kT_E``, Khalil & Dombre Example 3.3), position column only:
``kP_E = kA_c cP_E + kP_c`` for the child c of k on the chain.  The rotations
``iA_k`` are propagated from frame i along the tree: forward below the
common ancestor of i and j (``iA_k = iA_a(k) a(k)A_k``), backward above it
(``iA_a(k) = iA_k (a(k)A_k)^T``).  Expressing the Jacobian in an
intermediate frame (e.g. 3J6 for the RX-90) gives the simplest expressions
(Khalil & Dombre Example 6.1).

Statement names in the customized model: ``T{i}{k}{r}{c}`` for the elements
of iA_k, ``P{k}{E}{r}`` for kP_E, ``J{r}{c}`` for the Jacobian.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (checked_options, joint_array, keyword_options,
                                     require_numeric, robot_argument)
from ..description.robot import PRISMATIC
from ..errors import RobmodError
from ..geometry.direct import common_ancestor, chain_path, frame_matrix, resolve_tool
from ..symbolic.algebra import add, dot, htm_from_matrix, mul, stack
from ..symbolic import fastpath
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize

_IDENTITY3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


def resolve_frame(robot, j, tool):
    """(tool object or None, frame j) with the same checks as the DGM (frame 0: the base,
    whose Jacobian has no joint column: a floating base's takes the base's six)."""
    tool, j = resolve_tool(robot, j, tool)
    if not 0 <= j <= robot.n_frames:
        raise RobmodError(f"robot {robot.name!r} has no frame {j}")
    return tool, j


def _rot_mul(ctx, A, B, name, transpose_b=False):
    """A B (or A B^T) for 3x3 rotations, elements named ``name{r}{c}``."""
    out = []
    for r in range(3):
        row = []
        for c in range(3):
            col = B[c] if transpose_b else [B[0][c], B[1][c], B[2][c]]
            row.append(ctx.var(dot(A[r], col), f"{name}{r + 1}{c + 1}"))
        out.append(row)
    return out


def jacobian_parts(ctx, robot, j=None, i=0, tool=None):
    """The pieces of iJ_j: ``(columns, A, P, tool, j)``.

    ``columns``: {joint k: 6 scalars} for the joints on the chain of j;
    ``A``: {frame k: iA_k (3x3)} for the frames of the chain (and i);
    ``P``: {frame k: kP_E (3 scalars)} for k in (0,) + chain.
    """
    tool, j = resolve_frame(robot, j, tool)
    i = robot.frame_number(i)
    end = "E" if tool is not None else str(j)
    chain = (0,) + robot.chain(j)
    frames = {}  # a(k)T_k as 3x4, built once

    def fm(k):
        if k not in frames:
            frames[k] = frame_matrix(ctx, robot, k)
        return frames[k]

    # positions kP_E, backward from j (the DGM's U_k = kT_E, position column only)
    if tool is not None:
        T = htm_from_matrix(tool.T, ctx)
        P = {j: [T[r][3] for r in range(3)]}
    else:
        P = {j: [0, 0, 0]}
    for k in reversed(chain[1:]):
        M = fm(k)
        a = robot.frame(k).ant
        P[a] = [ctx.var(add(dot(M[r][:3], P[k]), M[r][3]), f"P{a}{end}{r + 1}")
                for r in range(3)]

    # rotations iA_k: from frame i to the common ancestor c, then along j's chain
    c = common_ancestor(robot, i, j)
    Ac = _IDENTITY3  # cA_i, forward along the path c -> i
    for k in chain_path(robot, c, i):
        Rk = [row[:3] for row in fm(k)]
        Ac = Rk if Ac is _IDENTITY3 else _rot_mul(ctx, Ac, Rk, f"T{c}{k}")
    A = {c: _IDENTITY3 if Ac is _IDENTITY3 else [[Ac[r][cc] for r in range(3)] for cc in range(3)]}
    pos = chain.index(c)
    needed = [k for k in chain[1:] if robot.frame(k).is_joint]
    top = min((chain.index(k) for k in needed), default=pos)
    for k in chain[pos + 1:]:  # below c: iA_k = iA_a(k) a(k)A_k
        a = robot.frame(k).ant
        Rk = [row[:3] for row in fm(k)]
        A[k] = Rk if A[a] is _IDENTITY3 else _rot_mul(ctx, A[a], Rk, f"T{i}{k}")
    for idx in range(pos, top, -1):  # above c: iA_a(k) = iA_k (a(k)A_k)^T
        k, a = chain[idx], chain[idx - 1]
        Rk = [row[:3] for row in fm(k)]
        A[a] = ([[Rk[cc][r] for cc in range(3)] for r in range(3)] if A[k] is _IDENTITY3
                else _rot_mul(ctx, A[k], Rk, f"T{i}{a}", transpose_b=True))

    columns = {}
    for k in needed:
        Ak = A[k]
        z = [Ak[r][2] for r in range(3)]
        if robot.frame(k).sigma == PRISMATIC:
            columns[k] = z + [0, 0, 0]
        else:
            px, py = P[k][0], P[k][1]
            lin = [add(-mul(py, Ak[r][0]), mul(px, Ak[r][1])) for r in range(3)]
            columns[k] = lin + z
    return columns, A, P, tool, j


@keyword_options()
def jacobian_algorithm(ctx, robot, *, j=None, i=0, tool=None):
    """iJ_j (or iJ_E) as a 6 x NJ nested list of the context's scalars (elements ``J{r}{c}``).

    Rows: linear velocity of O_j (O_E) then angular velocity, both in frame i;
    columns: joints 1..NJ (zero for joints not on the chain of j).
    """
    columns, *_ = jacobian_parts(ctx, robot, j, i, tool)
    nj = robot.n_joints
    rows = [[0] * nj for _ in range(6)]
    for k, col in columns.items():
        if k > nj:
            continue
        for r in range(6):
            rows[r][k - 1] = ctx.var(col[r], f"J{r + 1}{k}")
    return rows


def _joint_columns(robot) -> list[int]:
    """Columns of a 6 x NJ frame-indexed matrix that hold joint variables (fixed ones dropped)."""
    return [j - 1 for j in robot.joints]


_JACOBIAN_KEY, _JACOBIAN_OPTS = ("jacobian", None, 0, None), (None, 0, None)


@keyword_options(j=None, i=0, tool=None)
def jacobian(robot, q, *legacy, **options) -> np.ndarray:
    """Numeric iJ_j at ``q`` of shape (..., n_q): array (..., 6, n_q).

    One column per joint variable (``robot.joints`` order); fixed frames take none.  ``j``
    the end frame (default the last link), ``i`` the frame of the velocities, ``tool`` a tool
    frame E on j (as :func:`~robmod.geometry.dgm`).
    """
    if not (legacy or options):
        return fastpath.evaluate(robot, _JACOBIAN_KEY, _JACOBIAN_SPEC, _JACOBIAN_OPTS, q)
    o = checked_options(jacobian, options, legacy)
    j, i, tool = o["j"], o["i"], o["tool"]
    key = ("jacobian", j, i, None if tool is None else repr(tool))
    return fastpath.evaluate(robot, key, _JACOBIAN_SPEC, (j, i, tool), q)


def _jacobian_numpy(robot, opts, q):
    j, i, tool = opts
    require_numeric(robot, "the Jacobian", scope="geometry")
    q = joint_array(robot, "q", q)
    ctx = NumericContext(robot, q=q)
    J = stack(jacobian_algorithm(ctx, robot, j=j, i=i, tool=tool), q.shape[:-1])
    out = J[..., _joint_columns(robot)]
    for k, (a, m, _) in robot.mimic.items():      # a dependent joint: J_a + m J_k
        if k - 1 < J.shape[-1]:
            out[..., robot.joint_index[a]] += m * J[..., k - 1]
    return out


def _fast_jacobian_model(robot, opts):
    """The customized iJ_j with the plain function's 6 x n_q output (for the fast path)."""
    j, i, tool = opts
    if robot.mimic:
        return None           # the NumPy path adds the mimic joints' columns
    cols = _joint_columns(robot)

    def algorithm(ctx):
        rows = jacobian_algorithm(ctx, robot, j=j, i=i, tool=tool)
        return [Output.matrix("J", [[r[c] for c in cols] for r in rows])]

    return customize(f"{robot.name}_jacobian_fast", algorithm, robot,
                     inputs={"q": tuple(robot.frame(k).q for k in robot.joints)})


_JACOBIAN_SPEC = fastpath.Spec(_fast_jacobian_model, lambda robot, q: [joint_array(robot, "q", q)],
                               _jacobian_numpy)


@keyword_options()
def pose_and_jacobian(robot, q, *, j=None, tool=None):
    """(0T_j or 0T_E (..., 4, 4), 0J_j (..., 6, n_q)) in one pass (used by the numeric IGM)."""
    q = joint_array(robot, "q", q)
    ctx = NumericContext(robot, q=q)
    columns, A, P, tool, j = jacobian_parts(ctx, robot, j, 0, tool)
    batch = q.shape[:-1]
    R = A[j]
    if tool is not None:
        RE = [row[:3] for row in htm_from_matrix(tool.T, ctx)]
        R = [[dot(R[r], [RE[0][c], RE[1][c], RE[2][c]]) for c in range(3)] for r in range(3)]
    T = [R[r] + [P[0][r]] for r in range(3)] + [[0, 0, 0, 1]]
    nj = robot.n_joints
    rows = [[0] * nj for _ in range(6)]
    for k, col in columns.items():
        if k <= nj:
            for r in range(6):
                rows[r][k - 1] = col[r]
    return stack(T, batch), stack(rows, batch)[..., _joint_columns(robot)]


@keyword_options(j=None, i=0, tool=None)
def jacobian_model(robot, *legacy, **options):
    """Customized symbolic iJ_j: a :class:`~robmod.symbolic.model.CustomModel` (output 6 x NJ);
    the frames as :func:`jacobian`."""
    o = checked_options(jacobian_model, options, legacy)
    robot_argument(robot)
    j, i, tool = o["j"], o["i"], o["tool"]
    tool_obj, jj = resolve_frame(robot, j, tool)
    end = "E" if tool_obj is not None else str(jj)
    q = tuple(robot.frame(k).q for k in robot.joints)

    def algorithm(ctx):
        rows = jacobian_algorithm(ctx, robot, j=jj, i=i, tool=tool_obj)
        return [Output.matrix(f"{i}J{end}", rows,
                              [f"J{r + 1}{c + 1}" for r in range(6) for c in range(len(rows[0]))])]

    return customize(f"{robot.name}_jacobian", algorithm, robot, inputs={"q": q},
                     title=f"Kinematic Jacobian {i}J{end} of {robot.name}")


__all__ = ["jacobian", "jacobian_model", "jacobian_algorithm", "pose_and_jacobian"]
