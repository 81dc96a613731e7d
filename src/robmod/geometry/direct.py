"""Direct geometric model (Khalil & Dombre §3.3-3.5), written once for every context.

``0T_n = 0T_1 1T_2 ... n-1T_n`` is multiplied from the last matrix back to the
base (Khalil & Dombre Example 3.3): the intermediate matrices ``U_j = jT_n`` serve the
inverse geometric model and the product costs fewer operations.  Consecutive
revolute joints with parallel axes (alpha = 0) are merged into one matrix using
the sum of their angles ([3.5]-[3.6]: ``C23 = cos(th2 + th3)``).  Elements are
named ``Tijrs`` (element (r, s) of iTj) in the customized model.

For a tree, ``iTj`` goes through the common ancestor k: ``(kTi)^-1 kTj``.
World frame ``Z = fT0`` and tool frames ``E = nTE`` are optional.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from ..description.arguments import (checked_options, keyword_options, require_numeric,
                                     robot_argument, robot_arrays)
from ..description.base import is_world, moving_base
from ..description.robot import PRISMATIC, REVOLUTE
from ..errors import ArgumentError, UnknownNameError
from ..symbolic.algebra import add, htm_from_matrix, htm_inv, htm_mul, mul, name_mat, stack
from ..symbolic import fastpath
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .floating import BaseState, robot_inputs


def _tag(js) -> str:
    return "".join(str(j) for j in js)


def _coordinate(ctx, frame, column, sigma):
    """theta_j or r_j as a context scalar: q_j + offset if it is the joint's variable."""
    off = ctx.param(getattr(frame, column))
    if frame.sigma != sigma:
        return off
    q = ctx.joint(frame.j)
    return q if _is_zero(off) else q + off


def _joint_angle(ctx, frame):
    """theta_j as a scalar of the context (q_j + offset for a revolute joint)."""
    return _coordinate(ctx, frame, "theta", REVOLUTE)


def _joint_r(ctx, frame):
    """r_j as a scalar of the context (q_j + offset for a prismatic joint)."""
    return _coordinate(ctx, frame, "r", PRISMATIC)


def _is_zero(x):
    return (isinstance(x, (int, float)) and x == 0) or (isinstance(x, sp.Basic) and x == 0)


def _pre(ctx, frame):
    """Rot(z,gamma) Trans(z,b) Rot(x,alpha) Trans(x,d): sines and cosines and lengths."""
    sg, cg = ctx.sincos(ctx.param(frame.gamma), f"G{frame.j}")
    sa, ca = ctx.sincos(ctx.param(frame.alpha), f"A{frame.j}")
    return sg, cg, ctx.param(frame.b), sa, ca, ctx.param(frame.d)


def _kk(sg, cg, b, sa, ca, d, st, ct, r):
    """Rot(z,g) Trans(z,b) Rot(x,a) Trans(x,d) [Rot(z,t) with translation (px, py, r)] as 3x4.

    ``st, ct`` is the final rotation about z; ``r`` may be a 3-vector (px, py, pz)
    of the translation that follows Rot(x,a) Trans(x,d) (used for merged frames).
    """
    px, py, pz = r if isinstance(r, (list, tuple)) else (0, 0, r)
    # Rot(x, a): rows [1,0,0],[0,ca,-sa],[0,sa,ca]; applied to Rot(z,t) and (px,py,pz) + (d,0,0)
    rx = [[ct, -st, 0, add(px, d)],
          [mul(ca, st), mul(ca, ct), -sa, add(mul(ca, py), -mul(sa, pz))],
          [mul(sa, st), mul(sa, ct), ca, add(mul(sa, py), mul(ca, pz))]]
    # Rot(z, g) Trans(z, b)
    out = [[add(mul(cg, rx[0][c]), -mul(sg, rx[1][c])) for c in range(4)],
           [add(mul(sg, rx[0][c]), mul(cg, rx[1][c])) for c in range(4)],
           [rx[2][c] for c in range(4)]]
    out[2][3] = add(out[2][3], b)
    return out


def frame_matrix(ctx, robot, j):
    """a(j)T_j as a 3x4 nested list of the context's scalars (elements named Tajrs)."""
    f = robot.frame(j)
    st, ct = ctx.sincos(_joint_angle(ctx, f), str(j))
    m = _kk(*_pre(ctx, f), st, ct, _joint_r(ctx, f))
    return name_mat(ctx, m, f"T{f.ant}{j}")


def _mergeable(robot, a, b) -> bool:
    """Frames a -> b (b's antecedent a) are revolute with parallel axes."""
    fa, fb = robot.frame(a), robot.frame(b)
    return (fb.ant == a and fa.sigma == REVOLUTE and fb.sigma == REVOLUTE
            and fb.alpha == 0)


def groups(robot, chain, merge=True):
    """Split a chain of frames into groups of consecutive parallel revolute joints."""
    out = []
    for j in chain:
        if merge and out and _mergeable(robot, out[-1][-1], j):
            out[-1].append(j)
        else:
            out.append([j])
    return out


def _group_matrix(ctx, robot, group):
    """a(j)T_k of a group j..k of parallel revolute frames, with the summed angle."""
    if len(group) == 1:
        return frame_matrix(ctx, robot, group[0])
    first = robot.frame(group[0])
    angle = _joint_angle(ctx, first)
    joints = [group[0]]
    px = py = 0
    pz = _joint_r(ctx, first)
    for j in group[1:]:
        f = robot.frame(j)
        gamma = ctx.param(f.gamma)
        if not _is_zero(gamma):
            angle = angle + gamma
        s, c = ctx.sincos(angle, _tag(joints))
        d = ctx.param(f.d)
        px, py = add(px, mul(d, c)), add(py, mul(d, s))
        pz = add(pz, ctx.param(f.b), _joint_r(ctx, f))
        angle = angle + _joint_angle(ctx, f)
        joints.append(j)
    st, ct = ctx.sincos(angle, _tag(joints))
    m = _kk(*_pre(ctx, first), st, ct, [px, py, pz])
    return name_mat(ctx, m, f"T{first.ant}{group[-1]}")


def common_ancestor(robot, i, j):
    ci = set((0,) + robot.chain(i)) if i else {0}
    for k in reversed((0,) + robot.chain(j)):
        if k in ci:
            return k
    return 0


def chain_path(robot, k, j):
    """Frames from (excluding) ancestor k down to j."""
    chain = (0,) + robot.chain(j) if j else (0,)
    return list(chain[chain.index(k) + 1:])


def _down(ctx, robot, k, j, tool, merge):
    """kTj (times the tool matrix), multiplied from the last matrix back to k."""
    path = chain_path(robot, k, j)
    gs = groups(robot, path, merge)
    last = j
    if tool is not None:
        U = htm_from_matrix(tool.T, ctx)
        last = f"E"
    else:
        U = None
    for g in reversed(gs):
        M = _group_matrix(ctx, robot, g)
        start = robot.frame(g[0]).ant
        U = M if U is None else htm_mul(ctx, M, U, f"T{start}{last}")
    return U


def resolve_tool(robot, j=None, tool=None):
    """(tool object or None, end frame j): a tool given by name is looked up; j defaults to
    the tool's frame, else to the last link."""
    if tool is not None and not hasattr(tool, "T"):
        tool = find_tool(robot, tool)
    if j is None:
        j = tool.frame if tool is not None else robot.n_links
    j = robot.frame_number(j)     # a number, or a frame name (e.g. a URDF link)
    if tool is not None and tool.frame != j:
        raise ArgumentError(f"tool {tool.name!r} is on frame {tool.frame}, not {j}")
    return tool, j


@keyword_options()
def dgm_algorithm(ctx, robot, *, j=None, i=0, tool=None, merge=True):
    """iTj (or iTE with a tool) as a 3x4 nested list of the context's scalars; ``i="world"``:
    the world frame (a fixed base: Z 0Tj, Z = fT0 the robot's constant placement; a mobile or
    floating base: wT0 0Tj, wT0 the base's pose in ``ctx``)."""
    tool, j = resolve_tool(robot, j, tool)
    world = is_world(robot, i)
    i = 0 if world else robot.frame_number(i)
    for x in (i, j):
        if not 0 <= x <= robot.n_frames:
            raise ArgumentError(f"robot {robot.name!r} has no frame {x}")
    k = common_ancestor(robot, i, j)
    U = _down(ctx, robot, k, j, tool, merge)
    if U is None:
        U = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
    if i != k:
        Ti = _down(ctx, robot, k, i, None, merge)
        U = htm_mul(ctx, htm_inv(ctx, Ti, f"T{i}{k}"), U, f"T{i}{j}")
    if world and moving_base(robot):
        U = htm_mul(ctx, BaseState.of(ctx).transform(ctx), U, "TW")
    elif world:
        U = htm_mul(ctx, htm_from_matrix(robot.Z, ctx), U, "Tf")
    return U


def find_tool(robot, name):
    for t in robot.tools:
        if t.name == name:
            return t
    raise UnknownNameError(f"robot {robot.name!r} has no tool {name!r}; tools: "
                      f"{', '.join(t.name for t in robot.tools) or 'none'}")


@keyword_options(j=None, i=0, tool=None)
def dgm(robot, q, **options) -> np.ndarray:
    """Numeric iTj at the configuration ``q``: array (..., 4, 4).

    ``q`` is the robot's configuration (:mod:`robmod.description.base`): one entry per joint
    variable (``robot.joints`` order, fixed frames excluded), (..., n_q), after the base's
    position and quaternion for a mobile or floating base, (..., 7 + n_q); ``j`` the end frame
    (default the last link; a number or a frame name), ``i`` the frame the pose is expressed in
    (default 0; ``"world"``: the world frame), ``tool`` a tool frame E on j.
    """
    if not options:
        return fastpath.evaluate(robot, _DGM_KEY, _DGM_SPEC, _DGM_OPTS, q)
    o = checked_options(dgm, options)
    j, i, tool = o["j"], o["i"], o["tool"]
    if j is None and i == 0 and tool is None:
        return fastpath.evaluate(robot, _DGM_KEY, _DGM_SPEC, _DGM_OPTS, q)
    key = ("dgm", j, i, None if tool is None else repr(tool))
    return fastpath.evaluate(robot, key, _DGM_SPEC, (j, i, tool), q)


_DGM_KEY, _DGM_OPTS = ("dgm", None, 0, None), (None, 0, None)


def _dgm_numpy(robot, opts, q):
    j, i, tool = opts
    require_numeric(robot, "dgm", scope="geometry")
    (q,) = robot_arrays(robot, q=q)
    ctx = NumericContext(robot, q=q)
    U = dgm_algorithm(ctx, robot, j=j, i=i, tool=tool)
    U = [list(r) for r in U] + [[0, 0, 0, 1]]
    return stack(U, q.shape[:-1])


def _fast_dgm_model(robot, opts):
    """The customized iTj with the plain function's 4 x 4 output (for the fast path)."""
    j, i, tool = opts

    def algorithm(ctx):
        U = dgm_algorithm(ctx, robot, j=j, i=i, tool=tool)
        return [Output.matrix("T", [list(r) for r in U] + [[0, 0, 0, 1]])]

    return customize(f"{robot.name}_dgm_fast", algorithm, robot,
                     inputs=robot_inputs(robot, ("q",)))


_DGM_SPEC = fastpath.Spec(_fast_dgm_model, lambda robot, q: robot_arrays(robot, q=q),
                          _dgm_numpy)


@keyword_options(j=None, i=0, tool=None, columns="snap", merge=True)
def dgm_model(robot, **options):
    """Customized symbolic iTj: a :class:`~robmod.symbolic.model.CustomModel`.

    The frames as :func:`dgm`; ``columns`` chooses the outputs among s, n, a, P (``"nap"``:
    Khalil & Dombre Example 3.4 b); ``merge``: fold the elementary transforms of consecutive
    frames first (the books' customized DGM).
    """
    o = checked_options(dgm_model, options)
    robot_argument(robot)
    j, i, tool, columns, merge = (o[k] for k in ("j", "i", "tool", "columns", "merge"))
    jj = j if j is not None else (tool if isinstance(tool, int) else None)
    cols = [c for c, ch in enumerate("snap") if ch in columns.lower()]
    if not cols:
        raise ArgumentError("columns must name some of s, n, a, p")

    def algorithm(ctx):
        U = dgm_algorithm(ctx, robot, j=jj, i=i, tool=tool, merge=merge)
        end = "E" if tool is not None else (jj if jj is not None else robot.n_links)
        start = _start(robot, i)
        names = [f"T{start}{end}{r + 1}{c + 1}" for r in range(3) for c in cols]
        rows = [[U[r][c] for c in cols] for r in range(3)]
        return [Output.matrix(f"{start}T{end}", rows, names)]

    end = "E" if tool is not None else (jj if jj is not None else robot.n_links)
    return customize(f"{robot.name}_dgm", algorithm, robot, inputs=robot_inputs(robot, ("q",)),
                     title=f"Direct geometric model {_start(robot, i)}T{end} of {robot.name}")


def _start(robot, i):
    """The name of the frame ``i`` in a model's names: W for the world (wTj)."""
    return "W" if is_world(robot, i) else i


def frame_origins(robot, q) -> dict:
    """{frame j: 0T_j (..., 4, 4)} of every frame (0: the identity) and {tool name: 0T_E} at
    the configurations q (..., nq) of the robot (the DGM of every frame and tool in frame 0,
    batched: to draw the robot, to animate it)."""
    (q,) = robot_arrays(robot, q=q)
    poses = {0: np.broadcast_to(np.eye(4), q.shape[:-1] + (4, 4)).copy()}
    for f in robot.frames:
        poses[f.j] = dgm(robot, q, j=f.j)
    for t in robot.tools:
        poses[t.name] = dgm(robot, q, tool=t.name)
    return poses


__all__ = ["dgm", "dgm_model", "dgm_algorithm", "frame_origins"]
