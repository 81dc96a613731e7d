"""Dynamics with bilateral (closed) contacts: constrained forward dynamics and impacts.

Constrained forward dynamics (Featherstone 2008, §8.1-8.3: the KKT system of the equations of
motion and the contact constraints; its operational-space form, :mod:`.contact_problem`)::

    [M  J^T] [ qdd   ]   [S^T tau - h]
    [J   0 ] [-lambda] = [a_c - J̇qd  ]       G lambda = a_c - J̇qd - J a_free,
                                            qdd = a_free + M^-1 J^T lambda

a_c is the contacts' desired acceleration: zero for an ideal contact, and with Baumgarte's
stabilization (Baumgarte 1972; Featherstone §8.3) a_c = -K_d J qd - K_p e, e the position
error of the contacts from their anchors, so that the constraint's drift decays instead of
growing.  lambda are the forces (and moments, 6D) the world exerts on the robot at the
contacts, in the world frame: Pinocchio's ``constraintDynamics`` and ``lambda_c`` with
``LOCAL_WORLD_ALIGNED`` contacts.  Redundant contacts (a foot's four corners held, the same
constraint twice) make G singular: the forces are then those of least norm (the limit of the
proximal method of Carpentier, Budhiraja & Mansard (2021), (G + mu I) lambda_k+1 = b + mu
lambda_k, from 0), by G's pseudo-inverse; constraints that no motion satisfies at once get
the forces of least residual.

Impacts (Featherstone 2008, §11.6): at a collision the velocities jump; with the impulses
Lambda of the world, M (qd+ - qd-) = J^T Lambda and J qd+ = -e J qd- (e: the restitution
coefficient, 0 for a plastic impact): G Lambda = -(1 + e) J qd-.  A plastic impact dissipates
kinetic energy (Carnot's theorem), an elastic one (e = 1) keeps it.

This module's customized model computes M, h, J, J̇qd, the LTDL factors of M, G and the
solve of G lambda in one compiled call (robmod's closed loops, :mod:`.closed_loop`, solve
the cousin problem by projection on the actuated joints instead: the same J and J̇qd, from
the loop's two frames).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import sympy as sp

from ..description.arguments import checked_options, finite_array, keyword_options
from ..description.base import moving_base
from ..errors import ArgumentError, RobmodError
from ..kinematics.contacts import checked_contacts, contact_poses, contact_rows
from ..symbolic import fastpath
from ..symbolic.algebra import add, mul
from ..symbolic.model import Output, customize
from .contact_problem import (Terms, checked_arrays, delassus, model_inputs,
                              symbolic_torques)
from .factorization import ltdl_back, ltdl_factor, ltdl_forward

__all__ = ["constrained_ddm", "constrained_ddm_model", "constrained_ddm_algorithm",
           "ConstrainedDynamics", "impact", "Impact", "least_norm_solve"]


#: the ratio of G's largest to smallest pivot beyond which the contacts are redundant (the
#: forces of least norm are taken)
_SINGULAR = 1e-10


class ConstrainedDynamics(NamedTuple):
    """``qdd`` (..., nv) and the contact ``forces`` (..., m): the world's forces (moments) on
    the robot, in the world frame, rows as :func:`~robmod.kinematics.contact_jacobian`."""

    qdd: np.ndarray
    forces: np.ndarray


class Impact(NamedTuple):
    """``qd`` (..., nv): the velocities after the impact; ``impulses`` (..., m)."""

    qd: np.ndarray
    impulses: np.ndarray


@keyword_options()
def constrained_ddm_algorithm(ctx, robot, contacts, tau, *, reference=None, pivots=False):
    """(qdd, lambda) over context scalars: lists over the velocity entries and the contact
    rows; ``tau``: ``{j: Gamma_j}``; ``reference`` (a list, one per row, or None for zeros):
    the contacts' desired acceleration a_c - the Baumgarte term -K_d J qd computed here from
    ``reference[0]`` = K_d when it has m + 1 entries (then a_c = ref[1:] - K_d J qd);
    ``pivots``: also the inverse pivots of G's L^T D L (a third list: G's conditioning)."""
    t = Terms(ctx, robot, contacts, tau)
    m = len(t.J)
    G = t.delassus()
    Ja = t.free_contact()
    if reference is not None and len(reference) == m + 1:
        kd, ref = reference[0], list(reference[1:])
        Jv = t.velocity()
        ref = [add(r, -mul(kd, v)) for r, v in zip(ref, Jv)]
    else:
        ref = list(reference) if reference is not None else [0] * m
    labels = tuple(f"c{r + 1}" for r in range(m))
    b = {lab: ctx.var(add(ref[r], -t.drift[r], -Ja[r]), f"BC{r + 1}")
         for r, lab in enumerate(labels)}
    H, Dinv = ltdl_factor(ctx, {(labels[r], labels[c]): v for (r, c), v in G.items()}, labels,
                          ("GD", "GL", "GA"), singular=lambda lab: RobmodError(
                              f"the contacts' constraint {lab} cannot be satisfied: a row of "
                              "the contact Jacobian is zero at every configuration"))
    lam = ltdl_forward(ctx, H, Dinv, ltdl_back(ctx, H, b, labels, "GY"), labels, "LAM")
    lam = [lam[lab] for lab in labels]
    if pivots:
        return t.accelerations(lam), lam, Dinv
    return t.accelerations(lam), lam


def _reference_symbols(m):
    return (sp.Symbol("KD"),) + tuple(sp.Symbol(f"AC{r + 1}") for r in range(m))


def _model(robot, contacts, name=None):
    m = contact_rows(contacts)
    inputs = dict(model_inputs(robot), ref=_reference_symbols(m))

    def algorithm(ctx):
        qdd, lam, dinv = constrained_ddm_algorithm(ctx, robot, contacts,
                                                   symbolic_torques(robot),
                                                   reference=list(inputs["ref"]), pivots=True)
        return [Output.vector("QDPL", list(qdd) + list(lam) + list(dinv))]

    return customize(name or f"{robot.name}_constrained_ddm", algorithm, robot, inputs=inputs,
                     title=f"Constrained direct dynamics of {robot.name} ({m} contact rows, "
                           "KKT in operational-space form)")


def constrained_ddm_model(robot, contacts):
    """Customized constrained direct dynamic model: inputs q, qd, tau and ``ref`` (K_d, then
    the contacts' desired accelerations AC1..ACm); output [qdd; lambda; the inverse pivots of
    G] (``QDPL``)."""
    return _model(robot, checked_contacts(robot, contacts))


@keyword_options()
def least_norm_solve(G, b, *, rcond=1e-10):
    """lambda (..., m) of G lambda = b (G (..., m, m) symmetric positive semi-definite): the
    solution of least norm when G is singular (redundant contacts: the limit of the proximal
    iterations of Carpentier et al. 2021 from lambda = 0), of least residual when b is not in
    its range (incompatible constraints); eigenvalues below ``rcond`` times the largest are
    taken as zero."""
    G = finite_array("G", G, shape_text="a stack of square matrices (..., m, m)")
    b = finite_array("b", b, shape_text="a stack of vectors (..., m)")
    if G.ndim < 2 or G.shape[-1] != G.shape[-2] or b.ndim < 1 or b.shape[-1] != G.shape[-1]:
        raise ArgumentError(f"least_norm_solve: G must be square matrices (..., m, m) and b "
                            f"vectors (..., m), got shapes {G.shape} and {b.shape}")
    try:
        np.broadcast_shapes(G.shape[:-2], b.shape[:-1])
    except ValueError:
        raise ArgumentError(f"least_norm_solve: the batch shapes of G {G.shape[:-2]} and b "
                            f"{b.shape[:-1]} do not broadcast") from None
    if G.shape[-1] == 0:
        return np.zeros(np.broadcast_shapes(G.shape[:-2], b.shape[:-1]) + (0,))
    return np.einsum("...ij,...j->...i", np.linalg.pinv(G, rcond=rcond, hermitian=True), b)


def _numpy(robot, contacts, q, qd, *rest):
    tau, ref = rest if len(rest) == 2 else (None, rest[0])
    P = delassus(robot, q, qd, tau, contacts)
    kd, a_c = ref[..., :1], ref[..., 1:]
    b = a_c - kd * P.Jv - P.drift - P.Ja
    lam = least_norm_solve(P.G, b)
    qdd = P.a_free + np.einsum("...ij,...j->...i", P.minv_jt, lam)
    return np.concatenate([qdd, lam, np.ones_like(lam)], axis=-1)


def _check(robot, q, qd, *rest):
    tau, ref = rest if len(rest) == 2 else (None, rest[0])
    q, qd, tau = checked_arrays(robot, q, qd, tau)
    ref = finite_array("reference", ref)
    shape = np.broadcast_shapes(q.shape[:-1], qd.shape[:-1], tau.shape[:-1], ref.shape[:-1])
    out = [np.broadcast_to(x, shape + x.shape[-1:]) for x in (q, qd, tau, ref)]
    return out if len(rest) == 2 else out[:2] + out[3:]


def _build(robot, contacts):
    return _model(robot, contacts, f"{robot.name}_constrained_ddm_fast")


_SPEC = fastpath.Spec(_build, _check, _numpy)


def _anchor_errors(robot, q, contacts, anchors):
    """e (..., m): the contacts' errors from their anchors (world poses (k, 4, 4)): p -
    p_anchor, and for a surface the rotation vector of R R_a^T (world frame)."""
    from ..spatial import frame_error

    T = contact_poses(robot, q, contacts)
    A = finite_array("anchors", anchors, shape_text=f"({len(contacts)}, 4, 4) world poses")
    if A.shape[-3:] != (len(contacts), 4, 4):
        raise ArgumentError(f"constrained_ddm: anchors must be the {len(contacts)} contacts' "
                            f"world poses, shape ({len(contacts)}, 4, 4), got {A.shape}")
    err = frame_error(A, T)            # (..., k, 6): from the anchor to the contact
    return np.concatenate([err[..., k, :c.size] for k, c in enumerate(contacts)], axis=-1)


class _Prepared:
    """What a call of :func:`constrained_ddm` on a robot and a tuple of contacts needs, once."""

    __slots__ = ("contacts", "key", "m", "nv", "ref", "no_tau")

    def __init__(self, robot, contacts):
        self.contacts = checked_contacts(robot, contacts)
        self.key = ("constrained_ddm", self.contacts)
        self.m = contact_rows(self.contacts)
        self.nv = robot.n_q + (6 if moving_base(robot) else 0)
        self.ref = np.zeros(self.m + 1)
        self.no_tau = robot.n_q == 0          # no joint: the models take no tau


def _prepared(robot, contacts):
    try:
        cache = robot.__dict__.setdefault("_constrained", {})
        prep = cache.get(contacts)
    except (AttributeError, TypeError):       # not a robot, or a list of contacts
        return _Prepared(robot, contacts)
    if prep is None:
        prep = cache[contacts] = _Prepared(robot, contacts)
    return prep


def _solve(robot, prep, q, qd, tau, ref):
    xs = (q, qd, ref) if prep.no_tau else (q, qd, tau, ref)
    flat = fastpath.evaluate(robot, prep.key, _SPEC, prep.contacts, *xs)
    nv, m = prep.nv, prep.m
    dinv = flat[..., nv + m:]
    if flat.ndim == 1:
        piv = dinv.tolist()
        good = not piv or (min(piv) > max(piv) * _SINGULAR)
    else:
        good = np.all(np.isfinite(flat)) and not np.any(
            np.max(dinv, axis=-1) * _SINGULAR >= np.min(dinv, axis=-1))
    if not good:                       # redundant contacts: the forces of least norm
        flat = _numpy(robot, prep.contacts, *_check(robot, *xs))
    return ConstrainedDynamics(flat[..., :nv], flat[..., nv:nv + m])


@keyword_options(baumgarte=(0.0, 0.0), anchors=None, acceleration=None)
def constrained_ddm(robot, q, qd, tau, contacts, **options) -> ConstrainedDynamics:
    """The accelerations and contact forces of a robot held by bilateral ``contacts``
    (:class:`~robmod.description.ContactPoint`: 3 rows, :class:`~robmod.description.
    ContactSurface`: 6) at q, qd under the joint torques tau (a floating robot: q (..., 7 +
    n_q), qd (..., 6 + n_q), tau (..., n_q)): a :class:`ConstrainedDynamics` (qdd, forces).
    ``baumgarte=(K_p, K_d)``: the stabilization a_c = -K_d J qd - K_p e, e the contacts'
    errors from their ``anchors`` (world poses (k, 4, 4), e.g. :func:`~robmod.kinematics.
    contact_poses` where they were closed; none: no position term); ``acceleration``: a
    desired contact acceleration (..., m) added to a_c."""
    if not options:                    # the plain call: one compiled model, no option
        prep = _prepared(robot, contacts)
        return _solve(robot, prep, q, qd, tau, prep.ref)
    o = checked_options(constrained_ddm, options)
    prep = _prepared(robot, contacts)
    m = prep.m
    try:
        kp, kd = (float(x) for x in o["baumgarte"])
    except (TypeError, ValueError):
        raise ArgumentError(f"constrained_ddm: baumgarte must be two gains (K_p, K_d), got "
                            f"{o['baumgarte']!r}") from None
    if not (np.isfinite(kp) and np.isfinite(kd) and kp >= 0 and kd >= 0):
        raise ArgumentError(f"constrained_ddm: the Baumgarte gains must be finite and >= 0, "
                            f"got {o['baumgarte']!r}")
    ref = np.zeros(m + 1)
    ref[0] = kd
    acceleration = o["acceleration"]
    if acceleration is not None:
        acc = finite_array("acceleration", acceleration)
        if acc.shape[-1:] != (m,):
            raise ArgumentError(f"constrained_ddm: acceleration must have {m} values (one per "
                                "contact row)")
        ref = ref + np.concatenate([np.zeros(acc.shape[:-1] + (1,)), acc], axis=-1)
    if o["anchors"] is not None and kp:
        e = _anchor_errors(robot, q, prep.contacts, o["anchors"])
        ref = ref - np.concatenate([np.zeros(e.shape[:-1] + (1,)), kp * e], axis=-1)
    return _solve(robot, prep, q, qd, tau, ref)


@keyword_options()
def impact(robot, q, qd, contacts, *, restitution=0.0) -> Impact:
    """The velocities after an impact on ``contacts`` at q, with the velocities qd before
    (Featherstone 2008, §11.6): M (qd+ - qd-) = J^T Lambda, J qd+ = -e J qd-, e =
    ``restitution`` in [0, 1]; an :class:`Impact` (qd, impulses)."""
    contacts = checked_contacts(robot, contacts)
    e = float(restitution) if isinstance(restitution, (int, float)) else np.nan
    if not 0 <= e <= 1:
        raise ArgumentError(f"impact: restitution must be a number in [0, 1], got "
                            f"{restitution!r}")
    v = np.asarray(qd, dtype=float)
    P = delassus(robot, q, v, np.zeros(np.shape(v)[:-1] + (robot.n_q,)), contacts)
    lam = least_norm_solve(P.G, -(1 + e) * P.Jv)
    return Impact(v + np.einsum("...ij,...j->...i", P.minv_jt, lam), lam)
