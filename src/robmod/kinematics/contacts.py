"""The contact Jacobian and its J̇q̇: the frame Jacobian and the second-order model of the
contact points, stacked (Featherstone 2008, §8.1 and ch. 11; Khalil & Dombre (5.x), [5.47]).

For each contact (:mod:`robmod.description.contacts`), in the world frame (frame 0 of a fixed
base), the rows of ``J`` such that the contact's velocity is ``J qd``:

* a point contact p (3 rows): the linear velocity of p -- the frame Jacobian of frame j with
  the point as a tool (its linear rows);
* a surface contact (6 rows): the linear velocity of the sole's centre c and the angular
  velocity of frame j (the twist of frame j reduced at c, Pinocchio's ``CONTACT_6D`` in
  ``LOCAL_WORLD_ALIGNED``).

Differentiating ``J qd`` gives the contact's acceleration ``J qdd + J̇qd``; ``J̇qd`` is the
second-order model [5.47] at qdd = 0 with the point as a tool (the classical acceleration of p
relative to the world, and the angular acceleration).  The 6D constraint is written on the
frame's twist, whose derivative is the *spatial* acceleration: its linear rows are the
classical acceleration of c less w x v_c (Featherstone 2008, §2.11).

A floating base: J takes the base's six columns (:func:`~robmod.kinematics.floating_jacobian`
in frame 0, then turned to the world by wR0), and J̇qd is the fixed-base [5.47] (the motion
relative to frame 0, a_r and alpha_r) plus the base's own terms, all in frame 0 (W0, V0: the
base twist; v_p = J0 qd the point's velocity in frame 0, v_r its part from the joints)::

    a_p = W0 x v_p + W0 x v_r + a_r,      alpha = W0 x w_j + alpha_r

(the derivative of R0 (V0 + W0 x p + v_r) at VD0 = WP0 = 0), then turned by wR0.  No
recursion is written here: the Jacobian and the second-order model are the robot's.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from ..description.arguments import (floating_arrays, keyword_options, joint_array, joint_arrays,
                                     require_numeric, robot_argument)
from ..description.base import is_floating
from ..description.contacts import ContactPoint, ContactSurface, contact_list
from ..description.robot import Tool, joint_variable, joint_velocity
from ..errors import ArgumentError, RobmodError
from ..geometry.direct import dgm_algorithm
from ..geometry.floating import BaseState, floating_context, floating_inputs
from ..symbolic import fastpath
from ..symbolic.algebra import add, cross, dot, mul, stack
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .floating import floating_jacobian_algorithm
from .jacobians import jacobian_parts
from .second_order import jdot_qdot_algorithm

__all__ = ["contact_jacobian", "contact_jacobian_model", "contact_jacobian_algorithm",
           "contact_jdot_qdot", "contact_jdot_qdot_model", "contact_jdot_qdot_algorithm",
           "contact_poses"]


def contact_rows(contacts) -> int:
    """The number of constraint rows of ``contacts`` (3 per point, 6 per surface)."""
    return sum(c.size for c in contacts)


def _tool(robot, contact, k):
    """(frame number, the tool frame at the contact's reference point)."""
    try:
        j = robot.frame_number(contact.frame)
    except RobmodError as e:
        raise ArgumentError(f"contact {contact.name!r}: {e.message}") from None
    if not 1 <= j <= robot.n_frames:
        raise ArgumentError(f"contact {contact.name!r}: robot {robot.name!r} has no frame "
                            f"{contact.frame!r} to carry it (frames 1 to {robot.n_frames})")
    p = contact.point if isinstance(contact, ContactPoint) else contact.center
    T = sp.ImmutableMatrix([[1, 0, 0, p[0]], [0, 1, 0, p[1]], [0, 0, 1, p[2]], [0, 0, 0, 1]])
    return j, Tool(f"contact{k}", j, T)


def checked_contacts(robot, contacts, what: str = "contacts") -> tuple:
    """The contacts as a tuple, on a robot whose base is fixed or floating (a mobile base's
    world moves: refused by name), on existing frames (checked once per robot and contacts)."""
    if isinstance(contacts, list):
        contacts = tuple(contacts)
    try:
        seen = robot.__dict__.setdefault("_contacts_checked", {})
        if contacts in seen:
            return seen[contacts]
    except (AttributeError, TypeError):      # not a robot, or contacts not hashable
        seen = None
    robot_argument(robot)
    out = contact_list(contacts, what)
    if robot.base_kind == "mobile":
        raise ArgumentError(f"{what}: robot {robot.name!r} has a mobile base, whose motion is "
                            "given: contacts with its environment take a fixed or floating base")
    if robot.mimic or robot.n_loops:
        raise ArgumentError(f"{what}: robot {robot.name!r} has "
                            f"{'mimic joints' if robot.mimic else 'closed loops'}; the contact "
                            "models take trees of independent joints")
    for k, c in enumerate(out):
        _tool(robot, c, k)
    if seen is not None:
        seen[contacts] = out
    return out


def _columns(robot):
    """The columns of the frame-indexed Jacobians that are velocity entries."""
    if is_floating(robot):
        return list(range(6)) + [5 + j for j in robot.joints]
    return [j - 1 for j in robot.joints]


def _velocity(ctx, robot, base):
    """The velocity vector qd as context scalars (frame-indexed like the Jacobians)."""
    nj = robot.n_joints
    joints = set(robot.joints)
    qd = [ctx.joint(j, "qd") if j in joints else 0 for j in range(1, nj + 1)]
    return (list(base.twist) + qd) if base is not None else qd


def _frame_terms(ctx, robot, contact, k, base, drift):
    """(6 Jacobian rows in the world frame, frame-indexed columns; J̇qd (6) or None; the
    world position of the contact's reference point) of the contact on its frame."""
    j, tool = _tool(robot, contact, k)
    if base is None:
        columns, _, P, _, _ = jacobian_parts(ctx, robot, j, 0, tool)
        rows = [[0] * robot.n_joints for _ in range(6)]
        for col, vals in columns.items():
            if col <= robot.n_joints:
                for r in range(6):
                    rows[r][col - 1] = vals[r]
        acc = jdot_qdot_algorithm(ctx, robot, j=j, i=0, tool=tool) if drift else None
        return rows, acc, list(P[0])
    rows0 = floating_jacobian_algorithm(ctx, robot, base, j=j, i=0, tool=tool)
    R = base.rotation(ctx)
    rows = [[dot(R[r], [rows0[3 * b + s][c] for s in range(3)]) for c in range(len(rows0[0]))]
            for b in range(2) for r in range(3)]
    # the point in frame 0 from the base's columns of its linear rows, -hat(p)
    p0 = [-rows0[2][4], -rows0[0][5], -rows0[1][3]]
    pos = [add(dot(R[r], p0), base.position[r]) for r in range(3)]
    if not drift:
        return rows, None, pos
    qd = _velocity(ctx, robot, base)
    v = [ctx.var(dot(rows0[r], qd), f"VC{k}{r + 1}") for r in range(6)]    # frame 0
    V0, W0 = base.V, base.W
    # the joints' part: v_r = v_p - V0 - W0 x p (p = 0P_p); 2 W0 x v_r
    # + W0 x (W0 x p) + W0 x V0 = W0 x v_p + W0 x v_r
    wp = [dot(rows0[r][3:6], W0) for r in range(3)]      # the base columns: -hat(p) W0
    vr = [add(v[r], -V0[r], -wp[r]) for r in range(3)]
    rel = jdot_qdot_algorithm(ctx, robot, j=j, i=0, tool=tool)
    a1, a2, a3 = cross(W0, v[:3]), cross(W0, vr), cross(W0, v[3:])
    acc0 = [ctx.var(add(a1[r], a2[r], rel[r]), f"AC{k}{r + 1}") for r in range(3)] \
        + [ctx.var(add(a3[r], rel[3 + r]), f"AC{k}{r + 4}") for r in range(3)]
    acc = [dot(R[r], acc0[3 * b:3 * b + 3]) for b in range(2) for r in range(3)]
    return rows, acc, pos


def _terms(ctx, robot, contacts, base, drift):
    """(rows of J over the velocity entries, J̇qd rows or None, the reference points' world
    positions) of all the contacts."""
    cols = _columns(robot)
    J, A, X = [], [], []
    for k, c in enumerate(contacts):
        rows, acc, pos = _frame_terms(ctx, robot, c, k, base, drift)
        X.append([ctx.var(x, f"PC{k}{r + 1}") for r, x in enumerate(pos)])
        take = 3 if isinstance(c, ContactPoint) else 6
        name = f"JC{k}"
        J += [[ctx.var(rows[r][col], f"{name}{r + 1}{n + 1}") for n, col in enumerate(cols)]
              for r in range(take)]
        if drift:
            if take == 6:       # the spatial acceleration: less w x v_c
                qd = _velocity(ctx, robot, base)
                vel = [ctx.var(dot(rows[r], qd), f"VW{k}{r + 1}") for r in range(6)]
                wxv = cross(vel[3:], vel[:3])
                acc = [add(acc[r], -wxv[r]) for r in range(3)] + list(acc[3:])
            A += [ctx.var(acc[r], f"JPQP{k}{r + 1}") for r in range(take)]
    return J, (A if drift else None), X


@keyword_options()
def contact_jacobian_algorithm(ctx, robot, contacts, *, base=None):
    """The contact Jacobian as nested lists of context scalars (rows: 3 per point contact, 6
    per surface contact; columns: the velocity entries, a floating base's six first); ``base``:
    the :class:`~robmod.geometry.BaseState` of a floating robot."""
    return _terms(ctx, robot, contacts, base, False)[0]


@keyword_options()
def contact_jdot_qdot_algorithm(ctx, robot, contacts, *, base=None):
    """J̇qd of the contacts as a list of context scalars (one per row of the Jacobian): the
    points' classical accelerations at qdd = 0, the surfaces' spatial ones (module doc)."""
    return _terms(ctx, robot, contacts, base, True)[1]


def contact_terms(ctx, robot, contacts, base=None):
    """(J, J̇qd, the reference points' world positions) of the contacts in one pass (the
    constrained dynamics' models)."""
    return _terms(ctx, robot, contacts, base, True)


def _inputs(robot, groups):
    if is_floating(robot):
        return floating_inputs(robot, groups)
    table = {"q": joint_variable, "qd": joint_velocity}
    return {g: tuple(table[g](j) for j in robot.joints) for g in groups}


def _symbolic_base(robot, twist):
    return BaseState.symbols(twist, False) if is_floating(robot) else None


def _model(robot, contacts, drift, name=None):
    def algorithm(ctx):
        J, A, _ = _terms(ctx, robot, contacts, _symbolic_base(robot, drift), drift)
        return [Output.vector("JPQP", A)] if drift else [Output.matrix("JC", J)]

    what = "J̇qd" if drift else "Jacobian"
    return customize(name or f"{robot.name}_contact_{'jdot_qdot' if drift else 'jacobian'}",
                     algorithm, robot, inputs=_inputs(robot, ("q", "qd") if drift else ("q",)),
                     title=f"Contact {what} of {robot.name} ({len(contacts)} contacts, "
                           f"{contact_rows(contacts)} rows)")


def contact_jacobian_model(robot, contacts):
    """Customized symbolic contact Jacobian (inputs: q, a floating base's PB1..QB3 first;
    output ``JC``, rows as :func:`contact_jacobian`)."""
    require_numeric(robot, "the contact models", scope="geometry")
    return _model(robot, checked_contacts(robot, contacts), False)


def contact_jdot_qdot_model(robot, contacts):
    """Customized symbolic J̇qd of the contacts (inputs q, qd; output ``JPQP``)."""
    require_numeric(robot, "the contact models", scope="geometry")
    return _model(robot, checked_contacts(robot, contacts), True)


def _arrays(robot, **arrays):
    require_numeric(robot, "the contact models", scope="geometry")
    if is_floating(robot):
        return floating_arrays(robot, **arrays)
    return joint_arrays(robot, **arrays) if len(arrays) > 1 else [
        joint_array(robot, *next(iter(arrays.items())))]


def _numpy(robot, contacts, drift, q, qd=None):
    arrays = _arrays(robot, q=q) if qd is None else _arrays(robot, q=q, qd=qd)
    q = arrays[0]
    qd = arrays[1] if len(arrays) > 1 else None
    if is_floating(robot):
        ctx, base = floating_context(robot, q, qd)
    else:
        ctx, base = NumericContext(robot, q=q, qd=qd), None
    J, A, _ = _terms(ctx, robot, contacts, base, drift)
    batch = q.shape[:-1]
    return stack([A], batch)[..., 0, :] if drift else stack(J, batch)


def _spec(drift):
    def build(robot, contacts):
        return _model(robot, contacts, drift, f"{robot.name}_contact_"
                      f"{'jdot_qdot' if drift else 'jacobian'}_fast")

    def check(robot, *xs):
        return _arrays(robot, **dict(zip(("q", "qd"), xs)))

    return fastpath.Spec(build, check, lambda robot, contacts, *xs: _numpy(robot, contacts,
                                                                          drift, *xs))


_J_SPEC, _A_SPEC = _spec(False), _spec(True)


def contact_jacobian(robot, q, contacts) -> np.ndarray:
    """The contact Jacobian (..., m, nv) at q: rows 3 per point contact (its velocity), 6 per
    surface contact (the sole centre's velocity and the frame's angular velocity), in the world
    frame; nv = n_q (+ 6 for a floating base, whose q is (..., 7 + n_q))."""
    contacts = checked_contacts(robot, contacts)
    return fastpath.evaluate(robot, ("contact_jacobian", contacts), _J_SPEC, contacts, q)


def contact_jdot_qdot(robot, q, qd, contacts) -> np.ndarray:
    """J̇qd (..., m) of the contacts at (q, qd): the acceleration of the contacts at qdd = 0,
    rows as :func:`contact_jacobian` (classical for points, spatial for surfaces)."""
    contacts = checked_contacts(robot, contacts)
    return fastpath.evaluate(robot, ("contact_jdot_qdot", contacts), _A_SPEC, contacts, q, qd)


def contact_poses(robot, q, contacts) -> np.ndarray:
    """The world poses (..., k, 4, 4) of the contacts' reference points: frame j's orientation
    at the point (a surface's centre)."""
    contacts = checked_contacts(robot, contacts)
    (q,) = _arrays(robot, q=q)
    if is_floating(robot):
        from ..geometry.floating import floating_dgm_algorithm

        ctx, base = floating_context(robot, q)
    else:
        ctx, base = NumericContext(robot, q=q), None
    out = []
    for k, c in enumerate(contacts):
        j, tool = _tool(robot, c, k)
        U = (floating_dgm_algorithm(ctx, robot, base, j=j, tool=tool) if base is not None
             else dgm_algorithm(ctx, robot, j=j, tool=tool))
        out.append(stack([list(r) for r in U] + [[0, 0, 0, 1]], q.shape[:-1]))
    return np.stack(out, axis=-3)


def _kinematics_model(robot, contacts):
    def algorithm(ctx):
        J, A, X = _terms(ctx, robot, contacts, _symbolic_base(robot, True), True)
        return [Output.vector("CK", [x for row in J for x in row] + list(A)
                              + [x for p in X for x in p])]

    return customize(f"{robot.name}_contact_kinematics_fast", algorithm, robot,
                     inputs=_inputs(robot, ("q", "qd")))


def _kinematics_numpy(robot, contacts, q, qd):
    q, qd = _arrays(robot, q=q, qd=qd)
    ctx, base = (floating_context(robot, q, qd) if is_floating(robot)
                 else (NumericContext(robot, q=q, qd=qd), None))
    J, A, X = _terms(ctx, robot, contacts, base, True)
    flat = [x for row in J for x in row] + list(A) + [x for p in X for x in p]
    shape = np.broadcast_shapes(q.shape[:-1], qd.shape[:-1])
    return np.stack([np.broadcast_to(np.asarray(x, float), shape) for x in flat], axis=-1)


_K_SPEC = fastpath.Spec(_kinematics_model, lambda robot, q, qd: _arrays(robot, q=q, qd=qd),
                        _kinematics_numpy)


def contact_kinematics(robot, q, qd, contacts):
    """(J (..., m, nv), J̇qd (..., m), the reference points' world positions (..., k, 3)) of
    the contacts at (q, qd), in one compiled call (the whole-body controller's)."""
    contacts = checked_contacts(robot, contacts)
    flat = fastpath.evaluate(robot, ("contact_kinematics", contacts), _K_SPEC, contacts, q, qd)
    m, k = contact_rows(contacts), len(contacts)
    nv = len(_columns(robot))
    batch = flat.shape[:-1]
    return (flat[..., :m * nv].reshape(batch + (m, nv)), flat[..., m * nv:m * nv + m],
            flat[..., m * nv + m:].reshape(batch + (k, 3)))
