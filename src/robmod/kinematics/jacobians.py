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
                                     require_numeric, robot_argument, robot_arrays)
from ..description.base import is_world, moving_base
from ..description.robot import PRISMATIC
from ..errors import ArgumentError
from ..geometry.direct import (common_ancestor, chain_path, dgm_algorithm, frame_matrix,
                               resolve_tool)
from ..geometry.floating import BaseState, robot_inputs
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
        raise ArgumentError(f"robot {robot.name!r} has no frame {j}")
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
    """iJ_j (or iJ_E) as a nested list of the context's scalars (elements ``J{r}{c}``).

    Rows: linear velocity of O_j (O_E) then angular velocity, both in frame i (a frame, or
    ``"world"``); columns: joints 1..NJ (zero for joints not on the chain of j), after the six
    of the base's twist (V0, W0 in frame 0) for a mobile or floating base::

        [V_E; w_j] = [[I, -hat(0P_E)], [0, I]] [V0; W0] + 0J_E qd_joints      (in frame 0)

    (the velocity of O_E gets W0 x 0P_E from the base's rotation), turned into frame i.
    """
    moving, world = moving_base(robot), is_world(robot, i)
    if not (moving or world):
        columns, *_ = jacobian_parts(ctx, robot, j, i, tool)
        return _rows(ctx, robot, columns, "J")
    columns, _, P, _, _ = jacobian_parts(ctx, robot, j, 0, tool)
    rows = _rows(ctx, robot, columns, None)
    if moving:
        p = P[0]
        hat = [[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]]
        head = [[1 if r == c else 0 for c in range(3)] + [-hat[r][c] for c in range(3)]
                for r in range(3)]
        head += [[0, 0, 0] + [1 if r == c else 0 for c in range(3)] for r in range(3)]
        rows = [head[r] + rows[r] for r in range(6)]
    if world:        # wR0: the base's rotation, or Z's
        R = BaseState.of(ctx).rotation(ctx) if moving else \
            [row[:3] for row in htm_from_matrix(robot.Z, ctx)]
    elif robot.frame_number(i) != 0:
        U = dgm_algorithm(ctx, robot, j=robot.frame_number(i))
        R = [[U[0][r], U[1][r], U[2][r]] for r in range(3)]          # iR0 = (0Ri)^T
    else:
        R = None
    if R is not None:
        cols = range(len(rows[0]))
        rows = [[dot(R[r], [rows[3 * b + k][c] for k in range(3)]) for c in cols]
                for b in range(2) for r in range(3)]
    return [[ctx.var(x, f"J{r + 1}{c + 1}") for c, x in enumerate(row)]
            for r, row in enumerate(rows)]


def _rows(ctx, robot, columns, name):
    """6 x NJ rows of the columns ``{joint k: 6 scalars}`` (zero off the chain), each element
    named ``{name}{r}{k}`` (unnamed: None)."""
    nj = robot.n_joints
    rows = [[0] * nj for _ in range(6)]
    for k, col in columns.items():
        if k > nj:
            continue
        for r in range(6):
            rows[r][k - 1] = col[r] if name is None else ctx.var(col[r], f"{name}{r + 1}{k}")
    return rows


def joint_columns(robot, rows, head=0):
    """The plain API's columns of ``rows`` (nested lists of context scalars: ``head`` columns,
    then one per frame 1..NJ): the ``head`` ones, then one per joint variable
    (``robot.joints``), a dependent (mimic) joint's column added to its leader's, m times
    (J E, E = d q_frames / d q)."""
    followers = {}
    for k, (a, m, _) in robot.mimic.items():
        if k <= robot.n_joints:
            followers.setdefault(a, []).append((k, m))
    out = []
    for row in rows:
        new = list(row[:head])
        for j in robot.joints:
            new.append(add(row[head + j - 1], *[mul(m, row[head + k - 1])
                                                 for k, m in followers.get(j, ())]))
        out.append(new)
    return out


_JACOBIAN_KEY, _JACOBIAN_OPTS = ("jacobian", None, 0, None), (None, 0, None)


@keyword_options(j=None, i=0, tool=None)
def jacobian(robot, q, **options) -> np.ndarray:
    """Numeric iJ_j at the configuration ``q`` (:func:`~robmod.geometry.dgm`'s): array
    (..., 6, n_v).

    One column per joint variable (``robot.joints`` order; fixed frames take none, a mimic
    joint's adds to its leader's), after the six of the base's twist for a mobile or floating
    base (n_v = 6 + n_q: the velocity qd = [V0, W0, joint rates]).  ``j`` the end frame
    (default the last link), ``i`` the frame of the velocities (default 0; ``"world"``),
    ``tool`` a tool frame E on j (as :func:`~robmod.geometry.dgm`).
    """
    if not options:
        return fastpath.evaluate(robot, _JACOBIAN_KEY, _JACOBIAN_SPEC, _JACOBIAN_OPTS, q)
    o = checked_options(jacobian, options)
    j, i, tool = o["j"], o["i"], o["tool"]
    key = ("jacobian", j, i, None if tool is None else repr(tool))
    return fastpath.evaluate(robot, key, _JACOBIAN_SPEC, (j, i, tool), q)


def _head(robot):
    return 6 if moving_base(robot) else 0


def _jacobian_numpy(robot, opts, q):
    j, i, tool = opts
    require_numeric(robot, "the Jacobian", scope="geometry")
    (q,) = robot_arrays(robot, q=q)
    ctx = NumericContext(robot, q=q)
    rows = joint_columns(robot, jacobian_algorithm(ctx, robot, j=j, i=i, tool=tool),
                         _head(robot))
    return stack(rows, q.shape[:-1])


def _fast_jacobian_model(robot, opts):
    """The customized iJ_j with the plain function's 6 x n_v output (for the fast path)."""
    j, i, tool = opts

    def algorithm(ctx):
        rows = jacobian_algorithm(ctx, robot, j=j, i=i, tool=tool)
        return [Output.matrix("J", joint_columns(robot, rows, _head(robot)))]

    return customize(f"{robot.name}_jacobian_fast", algorithm, robot,
                     inputs=robot_inputs(robot, ("q",)))


_JACOBIAN_SPEC = fastpath.Spec(_fast_jacobian_model, lambda robot, q: robot_arrays(robot, q=q),
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
    rows = joint_columns(robot, _rows(ctx, robot, columns, None))
    return stack(T, batch), stack(rows, batch)


@keyword_options(j=None, i=0, tool=None)
def jacobian_model(robot, **options):
    """Customized symbolic iJ_j: a :class:`~robmod.symbolic.model.CustomModel` (output 6 x NJ);
    the frames as :func:`jacobian`."""
    o = checked_options(jacobian_model, options)
    robot_argument(robot)
    j, i, tool = o["j"], o["i"], o["tool"]
    tool_obj, jj = resolve_frame(robot, j, tool)
    end = "E" if tool_obj is not None else str(jj)
    start = "W" if is_world(robot, i) else i

    def algorithm(ctx):
        rows = jacobian_algorithm(ctx, robot, j=jj, i=i, tool=tool_obj)
        return [Output.matrix(f"{start}J{end}", rows,
                              [f"J{r + 1}{c + 1}" for r in range(6) for c in range(len(rows[0]))])]

    return customize(f"{robot.name}_jacobian", algorithm, robot,
                     inputs=robot_inputs(robot, ("q",)),
                     title=f"Kinematic Jacobian {start}J{end} of {robot.name}")


__all__ = ["jacobian", "jacobian_model", "jacobian_algorithm", "pose_and_jacobian"]
