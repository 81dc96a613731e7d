"""Second-order kinematic model (Khalil & Dombre §5.10, [5.44]-[5.47]), written once for every context.

Differentiating the kinematic model ``[iV_j; iw_j] = iJ_j qd`` gives [5.44]-[5.46]::

    [dV_j/dt; dw_j/dt] = J qdd + Jdot qd

where ``dV_j/dt`` is the *classical* linear acceleration of the origin O_j
(the time derivative, in the fixed frame 0, of the velocity of the point O_j;
not the spatial acceleration of screw theory) and ``dw_j/dt`` the angular
acceleration of frame j, both relative to frame 0.  Instead of differentiating
J, the vector ``Jdot qd`` is obtained from the forward recursion [5.47] with
``qdd = 0`` (Khalil & Dombre end of §5.10), j running along the chain of frame j
(``a = a(j)`` its antecedent, serial and tree structures; fixed frames,
sigma = 2, are rigid links)::

    WI_j = jR_a w_a                                                  (w_a in frame a)
    w_j  = WI_j + sigma_bar_j qd_j a_j                                 [5.23]
    WP_j = jR_a WP_a + sigma_bar_j (qdd_j a_j + WI_j x qd_j a_j)       [5.47]
    U_a  = hat(WP_a) + hat(w_a) hat(w_a)
    VP_j = jR_a (VP_a + U_a aP_j) + sigma_j (qdd_j a_j + 2 WI_j x qd_j a_j)

starting from w_0 = WP_0 = VP_0 = 0 (fixed base, no gravity), with
``a_j = [0, 0, 1]``.  For a tool frame E on frame j, ``VP_E = VP_j + U_j jP_E``
and the angular acceleration is that of frame j.  The two vectors are then
expressed in frame i by rotating them back along the chain of j down to the
common ancestor of i and j, and forward along the chain of i
(one 3x3 product per frame and vector; no matrix product is built).  When the
result is rotated back anyway, the last frame's accelerations are computed
directly in its antecedent's frame (``WP = WP_a + w_a x qd_j z_j``,
``VP = VSP_j`` for a revolute joint), which saves two rotations: the customized
RX-90 model 0Jdot6 qd costs 100 multiplications and 54 additions (and does not
need S6, C6).

Note on frame i: the result is ``iR_0 (0Jdot_j qd)``, the acceleration
relative to frame 0 *expressed* in frame i; it is not ``d/dt(iJ_j) qd`` when
frame i moves.

Public API:

* ``acceleration_algorithm(ctx, robot, *, j=None, i=0, tool=None)`` — the 6 scalars
  ``[VP; WP]`` = J qdd + Jdot qd over a context; ``acceleration(robot, q, qd, qdd, *, j, i,
  tool)`` -> ``(..., 6)``, batched; ``acceleration_model(robot, *, j, i, tool)``;
* ``jdot_qdot_algorithm(ctx, robot, *, j=None, i=0, tool=None)`` — ``Jdot qd`` (the same
  recursion at qdd = 0);
* ``jdot_qdot(robot, q, qd, *, j=None, i=0, tool=None)`` -> ``(..., 6)``, batched;
* ``jdot_qdot_model(robot, *, j=None, i=0, tool=None)`` — the customized symbolic
  model (inputs q and QP; statements ``WI``, ``W``, ``WP``, ``DV``, ``U``,
  ``VSP``, ``VP`` as in the customized Newton-Euler model, outputs
  ``JPQP1..JPQP6``).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (checked_options, finite_output, keyword_options,
                                     require_numeric, robot_argument, robot_arrays)
from ..description.base import is_world, moving_base
from ..description.robot import FIXED, REVOLUTE
from ..errors import ArgumentError
from ..geometry.direct import common_ancestor, chain_path, frame_matrix, resolve_tool
from ..geometry.floating import BaseState, robot_inputs
from ..symbolic import fastpath
from ..symbolic.algebra import add, cross, dot, htm_from_matrix, mul, stack
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .recursion import base_start, forward, named, rot, rot_t

_ZERO3 = [0, 0, 0]


def _resolve(robot, j, i, tool):
    tool, j = resolve_tool(robot, j, tool)
    if not 1 <= j <= robot.n_frames:
        raise ArgumentError(f"robot {robot.name!r} has no frame {j}")
    if not is_world(robot, i):
        robot.frame_number(i)
    return tool, j


def _second_order(ctx, robot, j, i, tool, qdd):
    """``[VP; WP]`` of frame j (or tool E) relative to frame 0 (to the world for a mobile or
    floating base, its motion the recursion's start), expressed in frame i ([5.47]).

    With ``qdd=False`` the joint accelerations are zero and the result is ``Jdot qd``;
    with ``qdd=True`` it is ``J qdd + Jdot qd`` ([5.46]).  Returns 6 context scalars.
    """
    tool, j = _resolve(robot, j, i, tool)
    world = is_world(robot, i)
    i = 0 if world else robot.frame_number(i)
    base = BaseState.of(ctx) if moving_base(robot) else None
    start = None if base is None else base_start(ctx, robot, base, gravity=False,
                                                 acceleration=qdd)
    chain = robot.chain(j)
    nj = robot.n_joints
    c = common_ancestor(robot, i, j)
    # the last frame directly in its antecedent's frame when it is rotated back anyway
    shortcut = tool is None and c != j
    frames = [robot.frame(k) for k in (chain[:-1] if shortcut else chain)]
    kin = forward(ctx, robot, frames, acceleration=qdd, base_motion=False, gravity=False,
                  moving=lambda f: f.sigma != FIXED and f.j <= nj, start=start)
    R, W, WP, VP = kin.R, kin.W, kin.WP, kin.VP
    if shortcut:
        f = robot.frame(j)
        a = f.ant
        T = frame_matrix(ctx, robot, j)
        R[j] = [row[:3] for row in T]
        P = [row[3] for row in T]
        moving = f.sigma != FIXED and j <= nj
        qd = ctx.joint(j, "qd") if moving else 0
        qa = ctx.joint(j, "qdd") if (moving and qdd) else 0
        Ua = kin.U(a)
        vsp = named(ctx, [add(VP[a][r], dot(Ua[r], P)) for r in range(3)], "VSP", j)
        # in frame a: WI x qd a_j = w_a x qd z_j, with z_j = third column of aR_j
        z = [R[j][r][2] for r in range(3)]
        wxz = [mul(x, qd) for x in cross(W[a], z)] if moving else _ZERO3
        rev = f.sigma == REVOLUTE
        wp = named(ctx, [add(WP[a][r], wxz[r] if rev else 0, mul(qa, z[r]) if rev else 0)
                          for r in range(3)], "WPF", a)
        vp = vsp if rev else named(ctx, [add(vsp[r], mul(2, wxz[r]), mul(qa, z[r]))
                                           for r in range(3)], "VPF", a)
    if not shortcut:
        vp, wp = VP[j], WP[j]
    if tool is not None:
        PE = [row[3] for row in htm_from_matrix(tool.T, ctx)]
        Uj = kin.U(j)
        vp = named(ctx, [add(vp[r], dot(Uj[r], PE)) for r in range(3)], "VP", "E")
    # express in frame i: back along the chain of j to the common ancestor c, then down to i
    back = list(chain[chain.index(c) + 1:] if c else chain)
    if shortcut:
        back = back[:-1]
    for k in reversed(back):
        a = robot.frame(k).ant
        vp = named(ctx, rot(R[k], vp), "VPF", a)
        wp = named(ctx, rot(R[k], wp), "WPF", a)
    for k in chain_path(robot, c, i):
        Rk = R[k] if k in R else [row[:3] for row in frame_matrix(ctx, robot, k)]
        vp = named(ctx, rot_t(Rk, vp), "VPF", k)
        wp = named(ctx, rot_t(Rk, wp), "WPF", k)
    if world:       # wR0: the base's rotation, or Z's
        R0 = base.rotation(ctx) if base is not None else \
            [row[:3] for row in htm_from_matrix(robot.Z, ctx)]
        vp, wp = named(ctx, rot(R0, vp), "VPF", "W"), named(ctx, rot(R0, wp), "WPF", "W")
    return list(vp) + list(wp)


@keyword_options()
def acceleration_algorithm(ctx, robot, *, j=None, i=0, tool=None):
    """``J qdd + Jdot qd`` of frame j (or tool E), expressed in frame i: 6 context scalars
    ``[VP; WP]``, the classical linear acceleration of O_j (O_E) and the angular acceleration
    of frame j relative to frame 0 ([5.46]-[5.47])."""
    return _second_order(ctx, robot, j, i, tool, qdd=True)


@keyword_options()
def jdot_qdot_algorithm(ctx, robot, *, j=None, i=0, tool=None):
    """``Jdot qd`` of frame j (or tool E), expressed in frame i: 6 context scalars.

    Rows: classical linear acceleration of O_j (O_E) then angular acceleration of
    frame j, computed by [5.47] with ``qdd = 0`` (Khalil & Dombre end of §5.10).
    """
    return _second_order(ctx, robot, j, i, tool, qdd=False)


def _arrays(robot, *arrays):
    require_numeric(robot, "the second-order kinematics", scope="geometry")
    arrays = robot_arrays(robot, **dict(zip(("q", "qd", "qdd"), arrays)))
    return arrays, arrays[0].shape[:-1]


_JDOT_KEY, _JDOT_OPTS = ("jdot_qdot", None, 0, None), (None, 0, None)


@keyword_options(j=None, i=0, tool=None)
def jdot_qdot(robot, q, qd, **options) -> np.ndarray:
    """Numeric ``Jdot qd`` (..., 6) at the robot's q, qd (broadcast together; a mobile or
    floating base's twist in qd); the robot's compiled :func:`jdot_qdot_model` when the fast
    path has it.  The frames as :func:`~robmod.kinematics.jacobian`."""
    if not options:
        return fastpath.evaluate(robot, _JDOT_KEY, _JDOT_SPEC, _JDOT_OPTS, q, qd)
    o = checked_options(jdot_qdot, options)
    j, i, tool = o["j"], o["i"], o["tool"]
    key = ("jdot_qdot", j, i, None if tool is None else repr(tool))
    return fastpath.evaluate(robot, key, _JDOT_SPEC, (j, i, tool), q, qd)


def _jdot_qdot_numpy(robot, opts, q, qd):
    j, i, tool = opts
    (q, qd), batch = _arrays(robot, q, qd)
    ctx = NumericContext(robot, q=q, qd=qd)
    out = stack([_second_order(ctx, robot, j, i, tool, False)], batch)[..., 0, :]
    return finite_output("jdot_qdot", out, q=q, qd=qd)


_JDOT_SPEC = fastpath.Spec(lambda robot, opts: _model(robot, *opts, False),
                           lambda robot, q, qd: robot_arrays(robot, q=q, qd=qd), _jdot_qdot_numpy)


@keyword_options(j=None, i=0, tool=None)
def acceleration(robot, q, qd, qdd, **options) -> np.ndarray:
    """Numeric ``J qdd + Jdot qd`` (..., 6) at the robot's q, qd, qdd: classical linear and
    angular accelerations ([5.46]); the frames as :func:`~robmod.kinematics.jacobian`."""
    o = checked_options(acceleration, options)
    (q, qd, qdd), batch = _arrays(robot, q, qd, qdd)
    ctx = NumericContext(robot, q=q, qd=qd, qdd=qdd)
    out = stack([_second_order(ctx, robot, o["j"], o["i"], o["tool"], True)],
                batch)[..., 0, :]
    return finite_output("acceleration", out, q=q, qd=qd, qdd=qdd)


@keyword_options(j=None, i=0, tool=None)
def jdot_qdot_model(robot, **options):
    """Customized symbolic ``iJdot_j qd``: a :class:`~robmod.symbolic.model.CustomModel`.

    Inputs: ``q`` and ``qd`` (``QPk``); output ``JPQP`` with elements ``JPQP1..JPQP6``; the
    frames as :func:`~robmod.kinematics.jacobian`.
    """
    o = checked_options(jdot_qdot_model, options)
    robot_argument(robot)
    return _model(robot, o["j"], o["i"], o["tool"], False)


@keyword_options()
def acceleration_model(robot, *, j=None, i=0, tool=None):
    """Customized symbolic ``J qdd + Jdot qd`` (inputs q, qd, qdd; output ``ACC`` with
    elements ``ACC1..ACC6``)."""
    return _model(robot, j, i, tool, True)


def _model(robot, j, i, tool, qdd):
    tool_obj, jj = _resolve(robot, j, i, tool)
    end = "E" if tool_obj is not None else str(jj)
    out = "ACC" if qdd else "JPQP"

    def algorithm(ctx):
        vals = _second_order(ctx, robot, jj, i, tool_obj, qdd)
        return [Output.vector(out, vals, [f"{out}{r + 1}" for r in range(6)])]

    inputs = robot_inputs(robot, ("q", "qd", "qdd") if qdd else ("q", "qd"))
    if qdd:
        title = f"Acceleration {i}J{end} qdd + {i}Jdot{end} qd of {robot.name} ([5.46])"
    else:
        title = f"Second-order term {i}Jdot{end} qd of {robot.name} ([5.47], qdd = 0)"
    return customize(f"{robot.name}_{'acceleration' if qdd else 'jdot_qdot'}", algorithm, robot,
                     inputs=inputs, title=title)


__all__ = ["jdot_qdot", "jdot_qdot_model", "jdot_qdot_algorithm", "acceleration",
           "acceleration_model", "acceleration_algorithm"]
