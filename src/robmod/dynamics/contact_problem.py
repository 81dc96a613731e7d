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

from ..description.arguments import keyword_options, require_numeric, robot_arrays
from ..description.base import moving_base
from ..geometry.floating import BaseState, robot_inputs
from ..kinematics.contacts import (checked_contacts, contact_kinematics, contact_rows,
                                  contact_terms)
from ..symbolic import fastpath
from ..symbolic.algebra import add, dot, mul
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .factorization import ltdl_back, ltdl_factor, ltdl_forward
from .inertia import inertia_matrix, inertia_matrix_algorithm
from .layout import dofs, labels
from .newton_euler import idm, idm_algorithm

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

    def __init__(self, ctx, robot, contacts, tau):
        A = inertia_matrix_algorithm(ctx, robot)
        gam = idm_algorithm(ctx, robot, acceleration=False)      # h: the IDM at qdd = 0
        if moving_base(robot):
            labels = sorted({k[0] for k in A if isinstance(k[0], str)})      # b1..b6
            rhs = {lab: -gam[r] for r, lab in enumerate(labels)}
            gam = gam[6:]
        else:
            labels, rhs = [], {}
        self.order = order = tuple(labels) + dofs(robot)
        for j in dofs(robot):
            rhs[j] = ctx.var(add(tau[j], -gam[j - 1]), f"GH{j}")
        self.J, self.drift, self.positions = contact_terms(ctx, robot, contacts)
        self.H, self.Dinv = ltdl_factor(ctx, A, order)
        self.y0 = ltdl_back(ctx, self.H, rhs, order, "Y0")
        self.Y = [ltdl_back(ctx, self.H, dict(zip(order, row)), order, f"YC{r + 1}_")
                  for r, row in enumerate(self.J)]
        self.ctx, self.robot = ctx, robot

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
        qd = _velocity_scalars(self.ctx, self.robot)
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


def _velocity_scalars(ctx, robot):
    """qd as context scalars in the velocity order (a floating base's twist first)."""
    head = list(BaseState.of(ctx).twist) if moving_base(robot) else []
    return head + [ctx.joint(j, "qd") for j in robot.joints]


@keyword_options()
def delassus_algorithm(ctx, robot, contacts, tau):
    """The contact problem's terms over context scalars: (G lower triangle ``{(r, c)}``,
    J qd, J a_free, J̇qd, a_free, M^-1 J^T (one list per contact row), the contacts' world
    positions (one list of 3 per contact)); ``tau``: ``{j: Gamma_j}`` the joint torques (a
    floating base's pose and twist: ``ctx``'s)."""
    t = Terms(ctx, robot, contacts, tau)
    return (t.delassus(), t.velocity(), t.free_contact(), list(t.drift), t.accelerations(),
            t.minv_jt(), t.positions)


def model_inputs(robot):
    """The input groups q, qd, tau of the contact models (a floating base's pose and twist
    first)."""
    return robot_inputs(robot, ("q", "qd", "tau"))


def symbolic_torques(robot):
    return {j: sp.Symbol(f"GAM{j}") for j in dofs(robot)}


def _flat(G, Jv, Ja, drift, a, MJ, X):
    m = len(Jv)
    return ([G[max(r, c), min(r, c)] for r in range(m) for c in range(m)] + list(Jv)
            + list(Ja) + list(drift) + list(a) + [x for col in MJ for x in col]
            + [x for p in X for x in p])


def _model(robot, contacts, name=None):
    def algorithm(ctx):
        out = delassus_algorithm(ctx, robot, contacts, symbolic_torques(robot))
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


def checked_arrays(robot, q, qd, tau=None):
    """q, qd, tau checked (tau None: a robot without joints, whose models take none)."""
    require_numeric(robot, "the contact dynamics", scope="dynamics")
    if tau is None:
        tau = np.zeros(0)
    return robot_arrays(robot, ("tau",), q=q, qd=qd, tau=tau)


def _numpy(robot, contacts, q, qd, tau=None):
    q, qd, tau = checked_arrays(robot, q, qd, tau)
    taus = {j: tau[..., k] for k, j in enumerate(robot.joints)}
    terms = delassus_algorithm(NumericContext(robot, q=q, qd=qd), robot, contacts, taus)
    shape = np.broadcast_shapes(q.shape[:-1], qd.shape[:-1], tau.shape[:-1])

    def arr(xs):
        return np.stack([np.broadcast_to(np.asarray(x, float), shape) for x in xs], axis=-1) \
            if xs else np.zeros(shape + (0,))

    return arr(_flat(*terms))


def _split(robot, contacts, flat) -> ContactProblem:
    """The :class:`ContactProblem` of the model's flat output."""
    m, nv = contact_rows(contacts), robot.n_q + (6 if moving_base(robot) else 0)
    k = m * m
    G = flat[..., :k].reshape(flat.shape[:-1] + (m, m))
    Jv, Ja, drift = (flat[..., k + i * m:k + (i + 1) * m] for i in range(3))
    k += 3 * m
    a = flat[..., k:k + nv]
    k += nv
    MJ = np.swapaxes(flat[..., k:k + m * nv].reshape(flat.shape[:-1] + (m, nv)), -1, -2)
    X = flat[..., k + m * nv:].reshape(flat.shape[:-1] + (len(contacts), 3))
    return ContactProblem(G, Jv, Ja, drift, a, MJ, X)


_SPEC = fastpath.Spec(lambda robot, contacts: _model(robot, contacts,
                                                     f"{robot.name}_delassus_fast"),
                      lambda robot, *xs: checked_arrays(robot, *xs), _numpy)


def _whole_body_model(robot, contacts):
    """The customized model of what a whole-body controller reads at every sample: M (full,
    row by row), h = the IDM at qdd = 0, the contacts' J, J̇qd and positions."""
    def algorithm(ctx):
        A = inertia_matrix_algorithm(ctx, robot)
        order = labels(robot)
        M = [A.get((i, j), 0) if r >= c else A.get((j, i), 0)
             for r, i in enumerate(order) for c, j in enumerate(order)]
        h = [x for x in idm_algorithm(ctx, robot, acceleration=False) if x is not None]
        J, drift, X = contact_terms(ctx, robot, contacts)
        return [Output.vector("WB", M + h + [x for row in J for x in row] + list(drift)
                              + [x for p in X for x in p])]

    return customize(f"{robot.name}_whole_body_fast", algorithm, robot,
                     inputs=robot_inputs(robot, ("q", "qd")))


def _whole_body_numpy(robot, contacts, q, qd):
    M = inertia_matrix(robot, q)
    h = idm(robot, q, qd, np.zeros(np.shape(qd)))
    J, drift, X = contact_kinematics(robot, q, qd, contacts)
    batch = M.shape[:-2]
    return np.concatenate([M.reshape(batch + (-1,)), h, J.reshape(batch + (-1,)), drift,
                           X.reshape(batch + (-1,))], axis=-1)


_WB_SPEC = fastpath.Spec(_whole_body_model,
                         lambda robot, q, qd: robot_arrays(robot, q=q, qd=qd),
                         _whole_body_numpy)


def whole_body_terms(robot, q, qd, contacts):
    """(M, h, J, J̇qd, the contacts' positions (k, 3)) at one state (q, qd) of a floating or
    fixed robot with the point or surface ``contacts``, in one compiled call: what
    :class:`~robmod.control.WholeBodyController` reads at every sample (the same values as
    :func:`~robmod.dynamics.inertia_matrix`, :func:`~robmod.dynamics.idm` at qdd = 0 and
    :func:`~robmod.kinematics.contact_kinematics`)."""
    contacts = checked_contacts(robot, contacts)
    flat = fastpath.evaluate(robot, ("whole_body", contacts), _WB_SPEC, contacts, q, qd)
    nv = robot.n_q + (6 if moving_base(robot) else 0)
    m = contact_rows(contacts)
    k = nv * nv
    M = flat[..., :k].reshape(flat.shape[:-1] + (nv, nv))
    h = flat[..., k:k + nv]
    k += nv
    J = flat[..., k:k + m * nv].reshape(flat.shape[:-1] + (m, nv))
    k += m * nv
    return M, h, J, flat[..., k:k + m], flat[..., k + m:].reshape(flat.shape[:-1] + (-1, 3))


def delassus_flat(robot, q, qd, tau, contacts):
    """The Delassus model's flat output (:func:`delassus_model`'s ``DEL``) at (q, qd, tau) for
    the checked ``contacts`` (the compiled contact step reads it as it is)."""
    xs = (q, qd, tau) if robot.n_q else (q, qd)      # no joint: the models take no tau
    return fastpath.evaluate(robot, ("delassus", contacts), _SPEC, contacts, *xs)


def delassus(robot, q, qd, tau, contacts) -> ContactProblem:
    """The contact problem's terms (:class:`ContactProblem`) at q, qd under the joint torques
    tau (a floating robot: q (..., 7 + n_q), qd (..., 6 + n_q), tau (..., n_q)) for the
    ``contacts`` (rows as :func:`~robmod.kinematics.contact_jacobian`): the robot's compiled
    model when the fast path has it."""
    contacts = checked_contacts(robot, contacts)
    return _split(robot, contacts, delassus_flat(robot, q, qd, tau, contacts))
