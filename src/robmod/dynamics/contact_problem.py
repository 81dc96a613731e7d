"""The contact problem's terms: the Delassus operator G = J M^-1 J^T and the free motion.

Every contact algorithm of robmod -- the constrained forward dynamics, the impulses at an
impact, the unilateral contact solver of the simulation -- is a problem on the contact forces
lambda (or impulses) alone once these are known (Featherstone 2008, §8.1 and ch. 11; the
"operational-space" form of the KKT system [M J^T; J 0]):

    M qdd + h = S^T tau + J^T lambda          (lambda: the forces of the world on the robot)
    a_free = M^-1 (S^T tau - h)                the motion without contact
    J qdd + J̇qd = J a_free + J̇qd + G lambda   the contacts' acceleration, affine in lambda

M = L^T D L is factored once, from the last joint back to the base (Featherstone's LTDL, no
fill-in for a tree: :mod:`.factorization`), and with Y = L^-T J^T: G = Y^T D^-1 Y, J a_free =
Y^T D^-1 L^-T (S^T tau - h), M^-1 J^T = L^-1 D^-1 Y.  Written over context scalars, the same
algorithm is the customized model (compiled: one C call gives every term) and the NumPy one.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import sympy as sp

from ..description.arguments import (floating_arrays, joint_arrays, keyword_options,
                                     require_numeric)
from ..description.base import is_floating
from ..geometry.floating import BaseState, floating_context, floating_inputs
from ..kinematics.contacts import checked_contacts, contact_rows, contact_terms
from ..symbolic import fastpath
from ..symbolic.algebra import add, dot, mul
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from ..description.robot import joint_variable, joint_velocity
from .factorization import ltdl_back, ltdl_factor, ltdl_forward
from .floating import floating_idm_algorithm, floating_inertia_matrix_algorithm
from .inertia import inertia_matrix_algorithm
from .layout import Proxy, dofs, plain_layout
from .newton_euler import idm_algorithm

__all__ = ["delassus", "delassus_model", "delassus_algorithm", "ContactProblem"]


class ContactProblem(NamedTuple):
    """The terms of the contact problem at (q, qd, tau) (arrays with the batch first): ``G``
    the Delassus operator J M^-1 J^T (..., m, m); ``Jv`` = J qd, the contacts' velocity
    (..., m); ``Ja`` = J a_free (..., m); ``drift`` = J̇qd (..., m); ``a_free`` the
    acceleration without contact forces (..., nv); ``minv_jt`` = M^-1 J^T (..., nv, m)."""

    G: np.ndarray
    Jv: np.ndarray
    Ja: np.ndarray
    drift: np.ndarray
    a_free: np.ndarray
    minv_jt: np.ndarray
    positions: np.ndarray


class Terms:
    """The factored problem over context scalars: ``order`` (the labels of M's rows, the
    base's first), ``H``, ``Dinv`` (M = L^T D L), ``y0`` = L^-T (S^T tau - h), ``Y`` (one list
    over ``order`` per contact row) = L^-T J^T, the rows ``J`` and ``drift`` = J̇qd."""

    def __init__(self, ctx, robot, contacts, tau, base):
        floating = base is not None
        zero = Proxy(ctx, qdd=0)
        if floating:
            A = floating_inertia_matrix_algorithm(ctx, robot)
            head, gam = floating_idm_algorithm(zero, robot, BaseState(
                base.position, base.quaternion, base.twist))
            labels = sorted({k[0] for k in A if isinstance(k[0], str)})
            rhs = {lab: -head[r] for r, lab in enumerate(labels)}
        else:
            A = inertia_matrix_algorithm(ctx, robot)
            gam = idm_algorithm(zero, robot)
            labels, rhs = [], {}
        self.order = order = tuple(labels) + dofs(robot)
        for j in dofs(robot):
            rhs[j] = ctx.var(add(tau[j], -gam[j - 1]), f"GH{j}")
        self.J, self.drift, self.positions = contact_terms(ctx, robot, contacts, base)
        self.H, self.Dinv = ltdl_factor(ctx, A, order)
        self.y0 = ltdl_back(ctx, self.H, rhs, order, "Y0")
        self.Y = [ltdl_back(ctx, self.H, dict(zip(order, row)), order, f"YC{r + 1}_")
                  for r, row in enumerate(self.J)]
        self.ctx, self.base, self.robot = ctx, base, robot

    def scaled(self, y):
        """D^-1 y (a list over ``order``)."""
        return [mul(a, b) for a, b in zip(self.Dinv, y)]

    def delassus(self):
        """G = Y^T D^-1 Y, lower triangle as ``{(r, c): scalar}``."""
        ctx, m = self.ctx, len(self.Y)
        DY = [self.scaled(y) for y in self.Y]
        return {(r, c): ctx.var(dot(DY[r], self.Y[c]), f"GC{r + 1}_{c + 1}")
                for r in range(m) for c in range(r + 1)}

    def free_contact(self):
        """J a_free = Y^T D^-1 y0 (one scalar per contact row)."""
        d0 = self.scaled(self.y0)
        return [self.ctx.var(dot(y, d0), f"JA{r + 1}") for r, y in enumerate(self.Y)]

    def velocity(self):
        """J qd (one scalar per row)."""
        qd = _velocity_scalars(self.ctx, self.robot, self.base)
        return [self.ctx.var(dot(row, qd), f"JV{r + 1}") for r, row in enumerate(self.J)]

    def accelerations(self, extra=None, name="QDP"):
        """L^-1 D^-1 (y0 + Y x): the acceleration under the contact forces x (a list of
        scalars, one per row; None: the free acceleration), in ``order``."""
        y = self.y0 if extra is None else [
            self.ctx.var(add(self.y0[i], *[mul(Yr[i], x) for Yr, x in zip(self.Y, extra)]),
                         f"YL{self.order[i]}") for i in range(len(self.order))]
        x = ltdl_forward(self.ctx, self.H, self.Dinv, y, self.order, name)
        return [x[k] for k in self.order]

    def minv_jt(self):
        """M^-1 J^T: one list over ``order`` per contact row."""
        return [[v for v in ltdl_forward(self.ctx, self.H, self.Dinv, y, self.order,
                                         f"MJ{r + 1}_").values()] for r, y in enumerate(self.Y)]


def _velocity_scalars(ctx, robot, base):
    """qd as context scalars in the velocity order (a floating base's twist first)."""
    return (list(base.twist) if base is not None else []) + [ctx.joint(j, "qd")
                                                             for j in robot.joints]


@keyword_options()
def delassus_algorithm(ctx, robot, contacts, tau, *, base=None):
    """The contact problem's terms over context scalars: (G lower triangle ``{(r, c)}``,
    J qd, J a_free, J̇qd, a_free, M^-1 J^T (one list per contact row), the contacts' world
    positions (one list of 3 per contact)); ``tau``: ``{j: Gamma_j}`` the joint torques,
    ``base``: a floating robot's BaseState (with its twist)."""
    t = Terms(ctx, robot, contacts, tau, base)
    return (t.delassus(), t.velocity(), t.free_contact(), list(t.drift), t.accelerations(),
            t.minv_jt(), t.positions)


def model_inputs(robot):
    """The input groups q, qd, tau of the contact models (a floating base's pose and twist
    first)."""
    if is_floating(robot):
        return floating_inputs(robot, ("q", "qd", "tau"))
    return {"q": tuple(joint_variable(j) for j in robot.joints),
            "qd": tuple(joint_velocity(j) for j in robot.joints),
            "tau": tuple(sp.Symbol(f"GAM{j}") for j in robot.joints)}


def symbolic_torques(robot):
    return {j: sp.Symbol(f"GAM{j}") for j in dofs(robot)}


def symbolic_base(robot):
    return BaseState.symbols(True, False) if is_floating(robot) else None


def _flat(G, Jv, Ja, drift, a, MJ, X):
    m = len(Jv)
    return ([G[max(r, c), min(r, c)] for r in range(m) for c in range(m)] + list(Jv)
            + list(Ja) + list(drift) + list(a) + [x for col in MJ for x in col]
            + [x for p in X for x in p])


def _model(robot, contacts, name=None):
    def algorithm(ctx):
        out = delassus_algorithm(ctx, robot, contacts, symbolic_torques(robot),
                                 base=symbolic_base(robot))
        return [Output.vector("DEL", _flat(*out))]

    return customize(name or f"{robot.name}_delassus", algorithm, robot,
                     inputs=model_inputs(robot),
                     title=f"Delassus operator and free motion of {robot.name} "
                           f"({contact_rows(contacts)} contact rows)")


def delassus_model(robot, contacts):
    """Customized model of the contact problem's terms (inputs q, qd, tau; one output
    ``DEL``: G row by row, J qd, J a_free, J̇qd, a_free, M^-1 J^T column by column, the
    contacts' positions)."""
    require_numeric(robot, "the contact models", scope="dynamics")
    return _model(robot, checked_contacts(robot, contacts))


def _numeric_context(robot, q, qd):
    """(context, base) of checked arrays."""
    if is_floating(robot):
        return floating_context(robot, q, qd)
    return NumericContext(robot, q=q, qd=qd), None


def checked_arrays(robot, q, qd, tau=None):
    """q, qd, tau checked (tau None: a robot without joints, whose models take none)."""
    require_numeric(robot, "the contact dynamics", scope="dynamics")
    if tau is None:
        tau = np.zeros(0)
    if is_floating(robot):
        return floating_arrays(robot, ("tau",), q=q, qd=qd, tau=tau)
    return joint_arrays(robot, q=q, qd=qd, tau=tau)


def _numpy(robot, contacts, q, qd, tau=None):
    q, qd, tau = checked_arrays(robot, q, qd, tau)
    ctx, base = _numeric_context(robot, q, qd)
    taus = {j: tau[..., k] for k, j in enumerate(robot.joints)}
    terms = delassus_algorithm(ctx, robot, contacts, taus, base=base)
    shape = np.broadcast_shapes(q.shape[:-1], qd.shape[:-1], tau.shape[:-1])

    def arr(xs):
        return np.stack([np.broadcast_to(np.asarray(x, float), shape) for x in xs], axis=-1) \
            if xs else np.zeros(shape + (0,))

    return arr(_flat(*terms))


def _split(robot, contacts, flat) -> ContactProblem:
    """The :class:`ContactProblem` of the model's flat output."""
    m, nv = contact_rows(contacts), robot.n_q + (6 if is_floating(robot) else 0)
    k = m * m
    G = flat[..., :k].reshape(flat.shape[:-1] + (m, m))
    Jv, Ja, drift = (flat[..., k + i * m:k + (i + 1) * m] for i in range(3))
    k += 3 * m
    a = flat[..., k:k + nv]
    k += nv
    MJ = np.swapaxes(flat[..., k:k + m * nv].reshape(flat.shape[:-1] + (m, nv)), -1, -2)
    X = flat[..., k + m * nv:].reshape(flat.shape[:-1] + (len(contacts), 3))
    return ContactProblem(G, Jv, Ja, drift, a, MJ, X)


_SPEC = fastpath.Spec(lambda robot, contacts: _model(robot, contacts, f"{robot.name}_delassus_"
                                                     "fast") if plain_layout(robot) else None,
                      lambda robot, *xs: checked_arrays(robot, *xs), _numpy)


def delassus(robot, q, qd, tau, contacts) -> ContactProblem:
    """The contact problem's terms (:class:`ContactProblem`) at q, qd under the joint torques
    tau (a floating robot: q (..., 7 + n_q), qd (..., 6 + n_q), tau (..., n_q)) for the
    ``contacts`` (rows as :func:`~robmod.kinematics.contact_jacobian`): the robot's compiled
    model when the fast path has it."""
    contacts = checked_contacts(robot, contacts)
    xs = (q, qd, tau) if robot.n_q else (q, qd)      # no joint: the models take no tau
    flat = fastpath.evaluate(robot, ("delassus", contacts), _SPEC, contacts, *xs)
    return _split(robot, contacts, flat)
