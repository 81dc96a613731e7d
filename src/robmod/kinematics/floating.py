"""The kinematic Jacobian of a floating robot, the base's six columns included.

With the velocity of a floating robot ``qd = [V0, W0, qd_1..qd_n]`` (the twist of frame 0 in
frame 0, :mod:`robmod.description.base`), the twist of frame j (or of a tool frame E) is::

    [V_E; w_j] = [[I, -hat(0P_E)], [0, I]] [V0; W0] + 0J_E qd_joints      (in frame 0)

(the velocity of O_E gets W0 x 0P_E from the base's rotation; Khalil & Dombre (5.x) for the
joint columns), then expressed in the frame asked: the world (default), frame 0, or any frame i
(the blocks turned by iR0).  Pinocchio's ``getFrameJacobian`` with ``LOCAL_WORLD_ALIGNED`` is
the world one, ``LOCAL`` the one in frame j itself.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import checked_options, floating_arrays, keyword_options
from ..geometry.direct import dgm_algorithm
from ..geometry.floating import BaseState, floating_context, floating_inputs
from ..symbolic import fastpath
from ..symbolic.algebra import dot, stack
from ..symbolic.model import Output, customize
from .jacobians import jacobian_parts


@keyword_options()
def floating_jacobian_algorithm(ctx, robot, base, *, j=None, i=None, tool=None):
    """The Jacobian of frame j (or tool E) of a floating robot, 6 x (6 + NJ) nested list:
    the base's twist columns, then joints 1..NJ (zero off the chain); rows: linear velocity of
    O_j then angular velocity, in the world frame (``i=None``) or in frame ``i``."""
    columns, _, P, _, _ = jacobian_parts(ctx, robot, j, 0, tool)
    p = P[0]
    hat = [[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]]
    rows = [[1 if r == c else 0 for c in range(3)] + [-hat[r][c] for c in range(3)]
            for r in range(3)]
    rows += [[0, 0, 0] + [1 if r == c else 0 for c in range(3)] for r in range(3)]
    nj = robot.n_joints
    for r in range(6):
        rows[r] += [0] * nj
    for k, col in columns.items():
        if k <= nj:
            for r in range(6):
                rows[r][5 + k] = col[r]
    if i is None:
        R = base.rotation(ctx)
    elif robot.frame_number(i) == 0:
        R = None
    else:
        U = dgm_algorithm(ctx, robot, j=robot.frame_number(i))
        R = [[U[0][r], U[1][r], U[2][r]] for r in range(3)]          # iR0 = (0Ri)^T
    if R is not None:
        cols = range(len(rows[0]))
        rows = [[dot(R[r], [rows[3 * b + k][c] for k in range(3)]) for c in cols]
                for b in range(2) for r in range(3)]
    return [[ctx.var(x, f"JF{r + 1}{c + 1}") for c, x in enumerate(row)]
            for r, row in enumerate(rows)]


def _columns(robot):
    return list(range(6)) + [5 + j for j in robot.joints]


@keyword_options(j=None, i=None, tool=None)
def floating_jacobian(robot, q, **options) -> np.ndarray:
    """The Jacobian (..., 6, 6 + n_q) of frame j of a floating robot at q (..., 7 + n_q):
    the twist of frame j (velocity of O_j, angular velocity) from qd = [V0, W0, joint
    velocities]; ``i``: the frame of the result, None for the world (default); ``j``,
    ``tool``: the frame as :func:`~robmod.kinematics.jacobian`."""
    opts = (None, None, None)
    if options:
        o = checked_options(floating_jacobian, options)
        opts = (o["j"], o["i"], o["tool"])
    key = ("floating_jacobian",) + tuple(None if x is None else repr(x) for x in opts)
    return fastpath.evaluate(robot, key, _SPEC, opts, q)


def _numpy(robot, opts, q):
    (q,) = floating_arrays(robot, q=q)
    ctx, base = floating_context(robot, q)
    J = stack(floating_jacobian_algorithm(ctx, robot, base, j=opts[0], i=opts[1],
                                          tool=opts[2]), q.shape[:-1])
    out = J[..., _columns(robot)]
    for k, (a, m, _) in robot.mimic.items():      # a dependent joint: J_a + m J_k
        if k <= robot.n_joints:
            out[..., 6 + robot.joint_index[a]] += m * J[..., 5 + k]
    return out


def _fast_model(robot, opts):
    if robot.mimic or robot.n_loops:
        return None
    cols = _columns(robot)

    def algorithm(ctx):
        rows = floating_jacobian_algorithm(ctx, robot, BaseState.symbols(False, False),
                                           j=opts[0], i=opts[1], tool=opts[2])
        return [Output.matrix("J", [[r[c] for c in cols] for r in rows])]

    return customize(f"{robot.name}_floating_jacobian_fast", algorithm, robot,
                     inputs=floating_inputs(robot))


_SPEC = fastpath.Spec(_fast_model, lambda robot, q: floating_arrays(robot, q=q), _numpy)


@keyword_options()
def floating_jacobian_model(robot, *, j=None, i=None, tool=None):
    """Customized symbolic Jacobian of a floating robot (6 x (6 + NJ); inputs: the base pose
    PB1..PB3, QB0..QB3 and the joint variables); the frames as :func:`floating_jacobian`."""
    def algorithm(ctx):
        rows = floating_jacobian_algorithm(ctx, robot, BaseState.symbols(False, False), j=j,
                                           i=i, tool=tool)
        return [Output.matrix("JF", rows)]

    where = "the world frame" if i is None else f"frame {i}"
    return customize(f"{robot.name}_floating_jacobian", algorithm, robot,
                     inputs=floating_inputs(robot),
                     title=f"Jacobian with the floating base of {robot.name}, in {where}")


__all__ = ["floating_jacobian", "floating_jacobian_model", "floating_jacobian_algorithm"]
