"""Robots with elastic joints (Khalil & Dombre §7.3.8, [7.34]-[7.35]).

A joint j is elastic when its link has a stiffness ``K`` (``Link.K``); q_M is
the rotor position referred to the joint side.  With ``tau_L`` the torque the
springs exert on the links::

    A q'' + C q' + Q + friction(q') = tau_L,    tau_L,j = K_j (qM_j - q_j)       [7.35a]
    IA qM'' + Fvm qM' + Fcm sign(qM') - K (q - qM) = Gamma                       [7.35b]

The rotor inertia IA of an elastic joint is on the motor side only; rigid
joints (K None) keep the rigid model (IA on the link side, tau_L = Gamma).  The
joint friction FC, FV of the robot acts on the link side ([7.35a]); the motor
friction ``fvm``, ``fcm`` (arrays over the joints) is optional.

* Inverse model: the link motion (q and its derivatives qd, qdd, qddd, qdddd, up to order 4)
  gives
  ``tau_L`` = the rigid NE model of the links, then ``qM = q + tau_L / K``
  and, differentiating twice in time, ``qM'`` and ``qM''`` and Gamma by
  [7.35b].  The time derivatives of tau_L are computed by running the NE
  algorithm on *jets* ``(x, x', x'')`` (forward-mode differentiation in time);
  the jets hold context scalars, so the same code gives the numeric batched
  model and the customized symbolic one.
* Direct model: ``q'' = DDM_links(q, q', tau_L)`` (recursive algorithm of
  §7.6.2) and ``qM'' = (Gamma - Fm - tau_L) / IA``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np
import sympy as sp

from ..description.arguments import check_arrays, finite_array, keyword_options
from ..errors import ArgumentError, RobmodError
from ..symbolic.algebra import numeric_constant, add, mul
from ..symbolic.model import Output, customize
from .direct import ddm_algorithm
from .newton_euler import idm_algorithm
from .layout import dofs, model_inputs, numeric_context

class ElasticInverse(NamedTuple):
    """The inverse model of a robot with elastic joints (each (..., NJ)): the motor torques
    ``tau`` (Gamma of [7.35b]), the rotor motion ``qm``, ``qmd``, ``qmdd`` and the torques of
    the springs on the links ``tau_link``."""

    tau: np.ndarray
    qm: np.ndarray
    qmd: np.ndarray
    qmdd: np.ndarray
    tau_link: np.ndarray


def _elastic_joints(robot) -> tuple[int, ...]:
    return tuple(j for j in dofs(robot) if robot.link(j).K is not None)


def _link_robot(robot):
    """The rigid link model: rotor inertia of elastic joints removed (it is on the motor side)."""
    el = set(_elastic_joints(robot))
    links = tuple(replace(l, IA=sp.Integer(0)) if l.j in el else l for l in robot.links)
    return replace(robot, links=links)


class _Jet:
    """(x, x', x''): a scalar and its first two time derivatives (context scalars)."""

    __array_ufunc__ = None  # NumPy defers to the reflected operators
    __slots__ = ("c",)

    def __init__(self, c0, c1=0, c2=0):
        self.c = (c0, c1, c2)

    def __add__(self, o):
        if isinstance(o, _Jet):
            return _Jet(*[add(a, b) for a, b in zip(self.c, o.c)])
        return _Jet(add(self.c[0], o), self.c[1], self.c[2])

    __radd__ = __add__

    def __neg__(self):
        return _Jet(*[-a if numeric_constant(a) != 0 else 0 for a in self.c])

    def __sub__(self, o):
        return self + (-o)

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        a0, a1, a2 = self.c
        if isinstance(o, _Jet):
            b0, b1, b2 = o.c
            return _Jet(mul(a0, b0), add(mul(a0, b1), mul(a1, b0)),
                       add(mul(a0, b2), mul(2, mul(a1, b1)), mul(a2, b0)))
        return _Jet(mul(o, a0), mul(o, a1), mul(o, a2))

    __rmul__ = __mul__


class _JetContext:
    """A context whose joint variables are jets; scalars stay those of ``base``."""

    def __init__(self, base, joints):
        self._base = base
        self._joints = joints  # {(j, group): Jet}
        self.symbolic = base.symbolic
        self.robot = base.robot

    def joint(self, j, group="q"):
        return self._joints[j, group]

    def var(self, x, name):
        if isinstance(x, _Jet):
            return _Jet(*[self._base.var(c, n) for c, n in zip(x.c, (name, f"{name}_d",
                                                                    f"{name}_dd"))])
        return self._base.var(x, name)

    def param(self, x):
        return self._base.param(x)

    def const(self, x):
        return self._base.const(x)

    def reserve(self, *names):
        self._base.reserve(*names)

    def fn(self, name, *args):
        x = args[0]
        if not isinstance(x, _Jet):
            return self._base.fn(name, *args)
        a0, a1, a2 = x.c
        if name == "sign":
            return _Jet(self._base.fn("sign", a0))
        if name == "abs":
            return _Jet(self._base.fn("sign", a0)) * x
        if name == "exp":
            e = self._base.fn("exp", a0)
            return _Jet(e, mul(e, a1), mul(e, add(a2, mul(a1, a1))))
        raise RobmodError(f"jet of {name} not implemented")

    def sincos(self, angle, tag):
        if not isinstance(angle, _Jet):
            return self._base.sincos(angle, tag)
        a0, a1, a2 = angle.c
        s, c = self._base.sincos(a0, tag)
        a11 = mul(a1, a1)
        return (_Jet(s, mul(c, a1), add(mul(c, a2), -mul(s, a11))),
                _Jet(c, -mul(s, a1), add(-mul(s, a2), -mul(c, a11))))


def _jet(x):
    return x if isinstance(x, _Jet) else _Jet(x)


@keyword_options()
def elastic_idm_algorithm(ctx, robot, q, qd, qdd, qddd, qdddd, *, fvm=None, fcm=None):
    """``(Gamma, qM, qM', qM'', tau_L)`` as dicts over the joints; inputs: the link motion q
    and its first four time derivatives, dicts of scalars over the joints."""
    order = dofs(robot)
    joints = {}
    for j in order:
        joints[j, "q"] = _Jet(q[j], qd[j], qdd[j])
        joints[j, "qd"] = _Jet(qd[j], qdd[j], qddd[j])
        joints[j, "qdd"] = _Jet(qdd[j], qddd[j], qdddd[j])
    jctx = _JetContext(ctx, joints)
    tau = idm_algorithm(jctx, _link_robot(robot))
    el = set(_elastic_joints(robot))
    gam, qm, qmd, qmdd, tl = {}, {}, {}, {}, {}
    p = ctx.param
    for j in order:
        t = _jet(tau[j - 1])
        tl[j] = t.c[0]
        if j not in el:
            gam[j] = t.c[0]
            qm[j], qmd[j], qmdd[j] = q[j], qd[j], qdd[j]
            continue
        link = robot.link(j)
        kinv = ctx.var(1 / p(link.K), f"KI{j}")
        qm[j] = ctx.var(add(q[j], mul(t.c[0], kinv)), f"QM{j}")
        qmd[j] = ctx.var(add(qd[j], mul(t.c[1], kinv)), f"QMP{j}")
        qmdd[j] = ctx.var(add(qdd[j], mul(t.c[2], kinv)), f"QMDP{j}")
        g = [mul(p(link.IA), qmdd[j]), t.c[0]]
        if fvm is not None:
            g.append(mul(fvm[j], qmd[j]))
        if fcm is not None:
            g.append(mul(fcm[j], ctx.fn("sign", qmd[j])))
        gam[j] = ctx.var(add(*g), f"GAM{j}")
    return gam, qm, qmd, qmdd, tl


@keyword_options()
def elastic_ddm_algorithm(ctx, robot, qm, qmd, tau, *, fvm=None, fcm=None):
    """``(q'', qM'')`` as dicts over the joints (qM'' of rigid joints: q'') from the rotor
    state qm, qmd and the motor torques ``tau`` (dicts over the joints); q, qd from the
    context."""
    el = set(_elastic_joints(robot))
    p = ctx.param
    tl = {}
    for j in dofs(robot):
        if j in el:
            tl[j] = ctx.var(mul(p(robot.link(j).K), add(qm[j], -ctx.joint(j, "q"))), f"TL{j}")
        else:
            tl[j] = tau[j]
    qdd = ddm_algorithm(ctx, _link_robot(robot), tl)
    qmdd = {}
    for j in dofs(robot):
        if j not in el:
            qmdd[j] = qdd[j]
            continue
        t = [tau[j], -tl[j]]
        if fvm is not None:
            t.append(-mul(fvm[j], qmd[j]))
        if fcm is not None:
            t.append(-mul(fcm[j], ctx.fn("sign", qmd[j])))
        qmdd[j] = ctx.var(mul(add(*t), 1 / p(robot.link(j).IA)), f"QMDP{j}")
    return qdd, qmdd


def _per_joint(robot, x):
    index = robot.joint_index
    return None if x is None else {j: float(np.asarray(x)[index[j]]) for j in dofs(robot)}


@keyword_options()
def elastic_idm(robot, q, qd, qdd, qddd, qdddd, *, fvm=None, fcm=None) -> ElasticInverse:
    """Inverse model: Gamma and the rotor motion (all (..., NJ)) from the link motion q and its
    time derivatives qd, qdd, qddd (jerk), qdddd (snap).  ``fvm``, ``fcm``: motor viscous and
    Coulomb friction (one value per joint)."""
    shape, arrs = check_arrays(robot, q, qd, qdd, qddd, qdddd,
                               names=("q", "qd", "qdd", "qddd", "qdddd"))
    ctx = numeric_context(robot, q=arrs[0])
    d = [{j: a[..., robot.joint_index[j]] for j in dofs(robot)} for a in arrs]
    res = elastic_idm_algorithm(ctx, robot, *d, fvm=_per_joint(robot, fvm),
                                fcm=_per_joint(robot, fcm))
    outs = []
    for r in res:
        out = np.zeros(shape)
        for j, v in r.items():
            out[..., robot.joint_index[j]] = v
        outs.append(out)
    return ElasticInverse(*outs)


@keyword_options()
def elastic_ddm(robot, q, qd, qm, qmd, tau, *, fvm=None, fcm=None):
    """Direct model: (q'', qM'') (each (..., NJ)) from the link state q, qd, the rotor state
    qm, qmd and the motor torques ``tau``."""
    shape, (q, qd, qm, qmd, tau) = check_arrays(robot, q, qd, qm, qmd, tau,
                                               names=("q", "qd", "qm", "qmd", "tau"))
    ctx = numeric_context(robot, q=q, qd=qd)
    sel = [{j: a[..., robot.joint_index[j]] for j in dofs(robot)} for a in (qm, qmd, tau)]
    qdd, qmdd = elastic_ddm_algorithm(ctx, robot, *sel, fvm=_per_joint(robot, fvm),
                                      fcm=_per_joint(robot, fcm))
    outs = []
    for r in (qdd, qmdd):
        out = np.zeros(shape)
        for j, v in r.items():
            out[..., robot.joint_index[j]] = v
        outs.append(out)
    return tuple(outs)


@keyword_options()
def elastic_state_derivative(robot, x, tau, *, fvm=None, fcm=None):
    """x = [q, q', qM, qM'] (..., 4 NJ) -> x' ([7.35] in state form) under the motor torques
    ``tau``."""
    nj = robot.n_q
    x = finite_array("x", x, shape_text=f"a state [q, qd, qM, qMd] of shape (..., {4 * nj})")
    if x.ndim == 0 or x.shape[-1] != 4 * nj:
        raise ArgumentError(f"argument x must be a state [q, qd, qM, qMd] of shape "
                          f"(..., {4 * nj}), got shape {x.shape}")
    q, qd, qm, qmd = (x[..., k * nj:(k + 1) * nj] for k in range(4))
    qdd, qmdd = elastic_ddm(robot, q, qd, qm, qmd, tau, fvm=fvm, fcm=fcm)
    return np.concatenate([np.broadcast_to(qd, qdd.shape), qdd,
                           np.broadcast_to(qmd, qdd.shape), qmdd], axis=-1)


def _syms(robot, fmt):
    return {j: sp.Symbol(fmt.format(j)) for j in dofs(robot)}


@keyword_options()
def elastic_idm_model(robot):
    """Customized inverse model: inputs q, qd, qdd, qddd (QD3_j), qdddd (QD4_j); outputs GAM,
    QM."""
    inputs = model_inputs(robot, ("q", "qd", "qdd"))
    s3, s4 = _syms(robot, "QD3_{}"), _syms(robot, "QD4_{}")
    order = dofs(robot)
    inputs.update(qddd=tuple(s3[j] for j in order), qdddd=tuple(s4[j] for j in order))

    def algorithm(ctx):
        d = [dict(zip(order, inputs[g])) for g in ("q", "qd", "qdd")]
        gam, qm, *_ = elastic_idm_algorithm(ctx, robot, *d, s3, s4)
        return [Output.vector("GAM", [gam[j] for j in order], [f"GAM{j}" for j in order]),
                Output.vector("QM", [qm[j] for j in order], [f"QM{j}" for j in order])]

    return customize(f"{robot.name}_elastic_idm", algorithm, robot, inputs=inputs,
                     title=f"Inverse dynamic model of {robot.name} with elastic joints")


@keyword_options()
def elastic_ddm_model(robot):
    """Customized direct model: inputs q, qd, qm (QM_j), qmd (QMP_j), GAM; outputs QDP, QMDP."""
    inputs = model_inputs(robot, ("q", "qd"))
    order = dofs(robot)
    sm, smd, sg = _syms(robot, "QM_{}"), _syms(robot, "QMP_{}"), _syms(robot, "GAM{}")
    inputs.update(qm=tuple(sm[j] for j in order), qmd=tuple(smd[j] for j in order),
                  tau=tuple(sg[j] for j in order))

    def algorithm(ctx):
        qdd, qmdd = elastic_ddm_algorithm(ctx, robot, sm, smd, sg)
        return [Output.vector("QDP", [qdd[j] for j in order], [f"QDP{j}" for j in order]),
                Output.vector("QMDP", [qmdd[j] for j in order], [f"QMDP{j}" for j in order])]

    return customize(f"{robot.name}_elastic_ddm", algorithm, robot, inputs=inputs,
                     title=f"Direct dynamic model of {robot.name} with elastic joints")


__all__ = ["ElasticInverse", "elastic_idm", "elastic_ddm", "elastic_idm_model",
           "elastic_ddm_model", "elastic_idm_algorithm", "elastic_ddm_algorithm",
           "elastic_state_derivative"]
