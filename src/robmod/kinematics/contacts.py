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

A floating base: J takes the base's six columns (:func:`~robmod.kinematics.jacobian` in frame
0, then turned to the world by wR0), and J̇qd is [5.47] started from the base's motion, in the
world (:func:`~robmod.kinematics.jdot_qdot` with ``i="world"``).  No recursion is written
here: the Jacobian and the second-order model are the robot's.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from ..description.arguments import (keyword_options, require_numeric, robot_argument,
                                     robot_arrays)
from ..description.base import WORLD, moving_base
from ..description.contacts import ContactPoint, ContactSurface, contact_list
from ..description.robot import Tool
from ..errors import ArgumentError, RobmodError
from ..geometry.direct import dgm_algorithm
from ..geometry.floating import BaseState, robot_inputs
from ..symbolic import fastpath
from ..symbolic.algebra import add, cross, dot, mul, stack
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .jacobians import jacobian_algorithm, jacobian_parts
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
    if moving_base(robot):
        return list(range(6)) + [5 + j for j in robot.joints]
    return [j - 1 for j in robot.joints]


def _velocity(ctx, robot):
    """The velocity vector qd as context scalars (frame-indexed like the Jacobians)."""
    nj = robot.n_joints
    joints = set(robot.joints)
    qd = [ctx.joint(j, "qd") if j in joints else 0 for j in range(1, nj + 1)]
    return (list(BaseState.of(ctx).twist) + qd) if moving_base(robot) else qd


def _frame_terms(ctx, robot, contact, k, drift):
    """(6 Jacobian rows in the world frame, frame-indexed columns; J̇qd (6) or None; the
    world position of the contact's reference point) of the contact on its frame."""
    j, tool = _tool(robot, contact, k)
    if not moving_base(robot):
        columns, _, P, _, _ = jacobian_parts(ctx, robot, j, 0, tool)
        rows = [[0] * robot.n_joints for _ in range(6)]
        for col, vals in columns.items():
            if col <= robot.n_joints:
                for r in range(6):
                    rows[r][col - 1] = vals[r]
        acc = jdot_qdot_algorithm(ctx, robot, j=j, i=0, tool=tool) if drift else None
        return rows, acc, list(P[0])
    base = BaseState.of(ctx)
    rows0 = jacobian_algorithm(ctx, robot, j=j, i=0, tool=tool)     # frame 0, base first
    R = base.rotation(ctx)
    rows = [[dot(R[r], [rows0[3 * b + s][c] for s in range(3)]) for c in range(len(rows0[0]))]
            for b in range(2) for r in range(3)]
    # the point in frame 0 from the base's columns of its linear rows, -hat(p)
    p0 = [-rows0[2][4], -rows0[0][5], -rows0[1][3]]
    pos = [add(dot(R[r], p0), base.position[r]) for r in range(3)]
    acc = jdot_qdot_algorithm(ctx, robot, j=j, i=WORLD, tool=tool) if drift else None
    return rows, acc, pos


def _terms(ctx, robot, contacts, drift):
    """(rows of J over the velocity entries, J̇qd rows or None, the reference points' world
    positions) of all the contacts."""
    cols = _columns(robot)
    J, A, X = [], [], []
    for k, c in enumerate(contacts):
        rows, acc, pos = _frame_terms(ctx, robot, c, k, drift)
        X.append([ctx.var(x, f"PC{k}{r + 1}") for r, x in enumerate(pos)])
        take = 3 if isinstance(c, ContactPoint) else 6
        name = f"JC{k}"
        J += [[ctx.var(rows[r][col], f"{name}{r + 1}{n + 1}") for n, col in enumerate(cols)]
              for r in range(take)]
        if drift:
            if take == 6:       # the spatial acceleration: less w x v_c
                qd = _velocity(ctx, robot)
                vel = [ctx.var(dot(rows[r], qd), f"VW{k}{r + 1}") for r in range(6)]
                wxv = cross(vel[3:], vel[:3])
                acc = [add(acc[r], -wxv[r]) for r in range(3)] + list(acc[3:])
            A += [ctx.var(acc[r], f"JPQP{k}{r + 1}") for r in range(take)]
    return J, (A if drift else None), X


@keyword_options()
def contact_jacobian_algorithm(ctx, robot, contacts):
    """The contact Jacobian as nested lists of context scalars (rows: 3 per point contact, 6
    per surface contact; columns: the velocity entries, a floating base's six first; the
    base's values from ``ctx``)."""
    return _terms(ctx, robot, contacts, False)[0]


@keyword_options()
def contact_jdot_qdot_algorithm(ctx, robot, contacts):
    """J̇qd of the contacts as a list of context scalars (one per row of the Jacobian): the
    points' classical accelerations at qdd = 0, the surfaces' spatial ones (module doc)."""
    return _terms(ctx, robot, contacts, True)[1]


def contact_terms(ctx, robot, contacts):
    """(J, J̇qd, the reference points' world positions) of the contacts in one pass (the
    constrained dynamics' models)."""
    return _terms(ctx, robot, contacts, True)


def _inputs(robot, groups):
    return robot_inputs(robot, groups)


def _model(robot, contacts, drift, name=None):
    def algorithm(ctx):
        J, A, _ = _terms(ctx, robot, contacts, drift)
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
    return robot_arrays(robot, **arrays)


def _numpy(robot, contacts, drift, q, qd=None):
    arrays = _arrays(robot, q=q) if qd is None else _arrays(robot, q=q, qd=qd)
    q = arrays[0]
    qd = arrays[1] if len(arrays) > 1 else None
    J, A, _ = _terms(NumericContext(robot, q=q, qd=qd), robot, contacts, drift)
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
    ctx = NumericContext(robot, q=q)
    out = []
    for k, c in enumerate(contacts):
        j, tool = _tool(robot, c, k)
        U = dgm_algorithm(ctx, robot, j=j, tool=tool, i=WORLD if moving_base(robot) else 0)
        out.append(stack([list(r) for r in U] + [[0, 0, 0, 1]], q.shape[:-1]))
    return np.stack(out, axis=-3)


def _kinematics_model(robot, contacts):
    def algorithm(ctx):
        J, A, X = _terms(ctx, robot, contacts, True)
        return [Output.vector("CK", [x for row in J for x in row] + list(A)
                              + [x for p in X for x in p])]

    return customize(f"{robot.name}_contact_kinematics_fast", algorithm, robot,
                     inputs=_inputs(robot, ("q", "qd")))


def _kinematics_numpy(robot, contacts, q, qd):
    q, qd = _arrays(robot, q=q, qd=qd)
    J, A, X = _terms(NumericContext(robot, q=q, qd=qd), robot, contacts, True)
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
