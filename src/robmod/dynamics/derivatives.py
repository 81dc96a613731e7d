"""Derivatives of the inverse and direct dynamic models, by forward differentiation of the
recursions (the quantities of Carpentier & Mansard 2018, Pinocchio's
``computeRNEADerivatives`` / ``computeABADerivatives``).

The Newton-Euler IDM (Khalil & Dombre (7.51)-(7.61)) and the recursive direct model (§7.6.2)
are run in a :class:`~robmod.symbolic.dual.DualContext`: each joint variable carries its
tangent, each intermediate variable of the recursion (WI, W, WP, U, VP, F, No, E, N, ...)
gets its derivative variables ``DWI12_q1``, ... next to it.  Run on a symbolic context this
is the customized derivative model (only the non-zero terms, the recursion's structure, its
operation count); on a numeric one, the batched NumPy derivatives; compiled, the fast path of
the plain functions.

* IDM: ``dtau_dq``, ``dtau_dqd`` by the dual IDM; ``dtau_dqdd = A(q)`` by the composite
  links (Khalil & Dombre [7.64]: the cheaper recursion for the same quantity), in the same
  model (the frame matrices shared).
* DDM (``method="idm"``, the default): the direct model A^-1 (Γ - H) with the torques as
  directions (Khalil & Dombre [7.62]-[7.64], A by the composite links, the L^T D L solve)
  gives q̈ and ``dqdd_dtau = A^-1`` in one pass; then, at (q, q̇, q̈),
  ``dqdd_dx = -A^-1 dtau_dx`` for x = q, q̇ (differentiating ``IDM(q, q̇, DDM(q, q̇, tau)) =
  tau``).  ``method="recursive"``: the recursive direct model itself run on duals (every
  direction through the articulated-body recursion; a cross-check).

Mimic joints (q_j = m q_i + c, :mod:`robmod.description.mimic`): only the joint variables are
seeded (a dependent joint's tangent is m times its leader's), the torques are those of the
joint variables, Γ_i + Σ m Γ_j (virtual work), so the derivatives are E^T (∂Γ/∂x) E with E =
∂q_frames/∂q, and ∂Γ/∂q̈ the inertia matrix E^T A E; the direct model's A^-1 comes from the
L^T D L solve of (E^T A E) q̈ = Γ - E^T H ([7.62]-[7.64]), the recursive direct model having no
place for the coupling (``method="recursive"`` refuses such a robot).

A mobile or floating base (:mod:`robmod.description.base`): the matrices are over the
robot's velocity coordinates, the base's six first, the derivatives with respect to its pose
taken in the tangent space (the base frame moved in itself, q (+) delta = q exp(delta):
:func:`~robmod.geometry.floating.base_seeds`), as Pinocchio's ``computeRNEADerivatives`` and
``computeABADerivatives`` with a free-flyer give them: ``dtau_dq``, ``dtau_dqd`` (6 + n)^2,
``dtau_dqdd`` the (6 + n)^2 inertia matrix; ``dqdd_dtau`` the inverse inertia matrix, the
derivative with respect to the generalized forces (the wrench on the base, then the joint
torques; a mobile base's acceleration being given, its rows and columns are zero).

Matrices are indexed by :func:`~robmod.dynamics.layout.labels` (rows: the torques or
accelerations, columns: the variables), which is ``robot.joints`` (after the base's six) for
the plain functions.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from ..description.arguments import (checked_options, finite_output, keyword_options,
                                     require_numeric, robot_argument, robot_arrays,
                                     switched_off, switches_set, tree_arrays)
from ..description.base import moving_base
from ..description.mimic import frame_matrix_E
from ..description.robot import MOBILE_BASE
from ..errors import ArgumentError
from ..geometry.floating import base_seeds
from ..symbolic import fastpath
from ..symbolic.algebra import add, mul, numeric_constant
from ..symbolic.dual import DualContext, direction, dual, seeds, tangent_matrix, value_of
from ..symbolic.model import Output, customize
from .direct import DDM_SWITCHES, ddm_algorithm, singular_inertia_error
from .inertia import inertia_matrix_algorithm
from .layout import (BASE_LABELS, Proxy, coordinates, dofs, labels, model_inputs,
                     numeric_context, reduce_mimic, reduce_mimic_matrix)
from .ltdl import ddm_inverse_algorithm
from .newton_euler import SWITCHES, idm_algorithm


class IDMDerivatives(NamedTuple):
    """The derivatives of the joint torques (each (..., n_q, n_q), row i: torque i)."""

    dtau_dq: np.ndarray
    dtau_dqd: np.ndarray
    dtau_dqdd: np.ndarray


class DDMDerivatives(NamedTuple):
    """The derivatives of the joint accelerations (each (..., n_q, n_q), row i: qdd_i)."""

    dqdd_dq: np.ndarray
    dqdd_dqd: np.ndarray
    dqdd_dtau: np.ndarray


_new = tuple.__new__     # a NamedTuple without its Python-level __new__ (single calls)


def _zeros(n):
    return [[0] * n for _ in range(n)]


def _symmetric(lower, order):
    return [[lower.get((i, k), lower.get((k, i), 0)) for k in order] for i in order]


def _torques(robot, gam):
    """{velocity coordinate i: generalized force} from the tree's torques (frames 1..NL, after
    a moving base's six): Γ_i + Σ m Γ_j over the joints j mimicking i
    (:func:`~robmod.dynamics.layout.reduce_mimic`)."""
    head = 6 if moving_base(robot) else 0
    g = dict(zip(BASE_LABELS, gam[:head])) | {j: gam[head + j - 1] for j in dofs(robot)}
    return reduce_mimic(robot, g) if robot.mimic else g


def _seeded(ctx, robot, groups, memo):
    """The DualContext of the joint variables' and the base's ``groups`` (the base's pose in
    the tangent space: :func:`~robmod.geometry.floating.base_seeds`), statements in ``memo``."""
    sd = seeds(labels(robot), groups)
    if moving_base(robot) and "q" in groups:
        sd |= base_seeds(DualContext(ctx, {}, memo=memo))
    return DualContext(ctx, sd, memo=memo)


# -- the IDM --------------------------------------------------------------------------------

@keyword_options()
def idm_derivatives_algorithm(ctx, robot, *, gravity=True, rotor=True, friction=True,
                              wrench=True, velocity=True, base_motion=True, acceleration=True):
    """(dtau_dq, dtau_dqd, dtau_dqdd) as nested lists over the velocity coordinates
    (:func:`~robmod.dynamics.layout.labels`; switches: those of
    :func:`~robmod.dynamics.idm_algorithm`; a switched-off input has a zero derivative)."""
    order = labels(robot)
    groups = ("q", "qd") if velocity else ("q",)
    d = _seeded(ctx, robot, groups, {})
    gam = _torques(robot, idm_algorithm(d, robot, gravity=gravity, rotor=rotor,
                                        friction=friction, wrench=wrench, velocity=velocity,
                                        base_motion=base_motion, acceleration=acceleration))
    rows = [gam[j] for j in order]
    dq = tangent_matrix(rows, order, "q")
    dqd = tangent_matrix(rows, order, "qd") if velocity else _zeros(len(order))
    if acceleration:    # A by the composite links, sharing the frame matrices
        plain = DualContext(ctx, {}, memo=d.memo)
        A = inertia_matrix_algorithm(plain, robot, rotor=rotor)
        if robot.mimic:     # E^T A E
            A = reduce_mimic_matrix(plain, robot, A)
        dqdd = _symmetric(A, order)
    else:
        dqdd = _zeros(len(order))
    return dq, dqd, dqdd


def _names(prefix, order, group):
    return tuple(f"D{prefix}{i}_{direction(group, k)}" for i in order for k in order)


def _outputs(mats, prefix, order, groups, names):
    return [Output(name, (len(order), len(order)), _names(prefix, order, g),
                   tuple(_sym(x) for row in m for x in row))
            for m, g, name in zip(mats, groups, names)]


def _sym(x):
    import sympy as sp

    return sp.sympify(x)  # safe: expressions built by robmod algorithms


@keyword_options()
def idm_derivatives_model(robot, *, gravity=True, rotor=True, friction=True, wrench=True,
                          velocity=True, base_motion=True, acceleration=True):
    """Customized derivatives of the IDM: inputs q, qd, qdd; outputs ``dtau_dq``,
    ``dtau_dqd``, ``dtau_dqdd`` (n x n over the joint variables); the switches of
    :func:`~robmod.dynamics.idm_model`."""
    return _idm_derivatives_model(robot, switched_off(
        idm_derivatives_model, gravity=gravity, rotor=rotor, friction=friction, wrench=wrench,
        velocity=velocity, base_motion=base_motion, acceleration=acceleration))


def _idm_derivatives_model(robot, switches):
    order = labels(robot)

    def algorithm(ctx):
        mats = idm_derivatives_algorithm(ctx, robot, **switches)
        return _outputs(mats, "GAM", order, ("q", "qd", "qdd"),
                        ("dtau_dq", "dtau_dqd", "dtau_dqdd"))

    return customize(f"{robot.name}_idm_derivatives", algorithm, robot,
                     inputs=model_inputs(robot, ("q", "qd", "qdd")),
                     title=f"Derivatives of the inverse dynamic model of {robot.name} "
                           "(forward differentiation of Newton-Euler)")


@keyword_options(**SWITCHES)
def idm_derivatives(robot, q, qd, qdd, **switches) -> IDMDerivatives:
    """``(dtau_dq, dtau_dqd, dtau_dqdd)`` of the IDM at q, qd, qdd (..., n_q), each
    (..., n_q, n_q) (``dtau_dqdd`` is the inertia matrix A(q)); the switches of
    :func:`~robmod.dynamics.idm`.  Compiled on the fast path like :func:`idm`."""
    key = _IDM_D
    if switches:
        switches = switches_set(idm_derivatives, checked_options(idm_derivatives, switches))
        if switches:
            key = ("idm_derivatives", tuple(sorted(switches.items())))
    D = fastpath.evaluate(robot, key, _IDM_D_SPEC, switches, q, qd, qdd)
    if type(D) is tuple:    # one configuration, compiled: its three arrays (the common case)
        return _new(IDMDerivatives, D)
    return _split(IDMDerivatives, D)


_IDM_D = ("idm_derivatives",)


def _fast_idm_derivatives(robot, switches):
    return _stacked(_idm_derivatives_model(robot, switches))


def _stacked(model):
    """The model with its three n x n outputs as one (3, n, n) output: a batch's array split
    into views; one configuration's three matrices as three arrays from the compiled call
    (``parts``)."""
    n = model.outputs[0].shape[0]
    out = Output("D", (3, n, n), tuple(x for o in model.outputs for x in o.names),
                 tuple(x for o in model.outputs for x in o.exprs), parts=True)
    return replace(model, outputs=(out,))


def _split(cls, D):
    """The named tuple ``cls`` of a (..., 3, n, n) result (batches, the NumPy path)."""
    return cls(D[..., 0, :, :], D[..., 1, :, :], D[..., 2, :, :])


def _idm_derivatives_numpy(robot, switches, q, qd, qdd):
    require_numeric(robot, "idm_derivatives", scope="floating" if moving_base(robot) else
                    "geometry")
    q, qd, qdd = robot_arrays(robot, q=q, qd=qd, qdd=qdd)
    ctx = numeric_context(robot, q=q, qd=qd, qdd=qdd)
    mats = idm_derivatives_algorithm(ctx, robot, **switches)
    out = _reduced(robot, mats, q.shape[:-1])
    return finite_output("idm_derivatives", out, q=q, qd=qd, qdd=qdd)


def _reduced(robot, mats, batch):
    """(..., len(mats), n_q, n_q): each matrix over the joint variables placed in the plain
    API's joint vectors (E^T M E with E the selection of :func:`coordinates` among
    ``robot.joints``: the cut joints of a closed loop's tree take zeros)."""
    order = labels(robot)
    out = np.zeros(batch + (len(mats), len(order), len(order)))
    for m, mat in enumerate(mats):
        for r, row in enumerate(mat):
            for c, x in enumerate(row):
                if not _is_zero(x):
                    out[..., m, r, c] = x
    if order[6 if moving_base(robot) else 0:] == tuple(robot.joints):
        return out
    E = frame_matrix_E(robot, order)
    return np.einsum("ri,...mrc,cj->...mij", E, out, E)


def _is_zero(x) -> bool:
    c = numeric_constant(x)
    return c is not None and c == 0


_IDM_D_SPEC = fastpath.Spec(
    _fast_idm_derivatives, lambda robot, q, qd, qdd: robot_arrays(robot, q=q, qd=qd, qdd=qdd),
    _idm_derivatives_numpy)


# -- the DDM --------------------------------------------------------------------------------

_DDM_METHODS = ("idm", "recursive")


@keyword_options()
def ddm_derivatives_algorithm(ctx, robot, tau, *, method="idm", gravity=True, rotor=True,
                              friction=True, wrench=True, velocity=True, base_motion=True):
    """(qdd, dqdd_dq, dqdd_dqd, dqdd_dtau): ``qdd`` {j: scalar}, the matrices as nested lists
    over the joint variables (:func:`~robmod.dynamics.layout.coordinates`); ``tau`` {j:
    scalar} as :func:`~robmod.dynamics.ddm_algorithm` takes it; ``method`` ``"idm"`` (-A^-1
    dtau/dx at the qdd of A^-1 (Gamma - H), A^-1 by the L^T D L solve) or
    ``"recursive"`` (the recursive DDM on duals, not for mimic joints); the switches of
    :func:`~robmod.dynamics.ddm`."""
    _check_method("ddm_derivatives", method, robot)
    sw = dict(gravity=gravity, rotor=rotor, friction=friction, wrench=wrench,
              velocity=velocity, base_motion=base_motion)
    order = labels(robot)
    n = len(order)
    if method == "recursive":
        groups = ("q", "qd") if velocity else ("q",)
        d = DualContext(ctx, seeds(order, groups))
        qdd = ddm_algorithm(d, robot, {j: _seeded_tau(tau[j], j) for j in order}, **sw)
        rows = [qdd[j] for j in order]
        dq = tangent_matrix(rows, order, "q")
        dqd = tangent_matrix(rows, order, "qd") if velocity else _zeros(n)
        return ({j: value_of(qdd[j]) for j in order}, dq, dqd, tangent_matrix(rows, order,
                                                                               "tau"))
    # qdd and A^-1 from the direct model with the torques as directions: the L^T D L solve
    # of A qdd = Gamma - H ([7.62]-[7.64]; with mimic joints (E^T A E) qdd = Gamma - E^T H),
    # A by the composite links: each direction costs one solve with the factors (about 2 n^2
    # operations), where the recursive algorithm carries it through every link (Panda: 15 %
    # fewer operations in all)
    memo = {}
    d = DualContext(ctx, {}, memo=memo)
    floating = moving_base(robot) and robot.base_kind != MOBILE_BASE
    seeded = {j: _seeded_tau(tau[j] if j in tau else 0, j) for j in order
              if floating or j not in BASE_LABELS}    # a wrench on a floating base, of 0
    qdd = ddm_inverse_algorithm(
        d, robot, seeded, singular=lambda j: singular_inertia_error(robot, None, joint=j), **sw)
    rows = [qdd[j] for j in order]
    minv = tangent_matrix(rows, order, "tau")
    acc = {j: value_of(qdd[j]) for j in order}

    def frame_qdd(j):       # a mimic joint's acceleration: m times its leader's
        if j == "base":
            return [acc[b] for b in BASE_LABELS]
        if j in robot.mimic:
            i, m, _ = robot.mimic[j]
            return mul(m, acc[i])
        return acc.get(j, 0)

    # dtau/dx at (q, qd, qdd), then dqdd/dx = -A^-1 dtau/dx
    groups = ("q", "qd") if velocity else ("q",)
    di = _seeded(Proxy(ctx, qdd=frame_qdd), robot, groups, memo)
    gam = _torques(robot, idm_algorithm(di, robot, **sw))
    gam = [gam[j] for j in order]
    out = []
    for g in groups:
        dt = tangent_matrix(gam, order, g)
        out.append([[ctx.var(-add(*[mul(minv[i][k], dt[k][c]) for k in range(n)]),
                             f"DQDP{order[i]}_{direction(g, order[c])}")
                     for c in range(n)] for i in range(n)])
    if not velocity:
        out.append(_zeros(n))
    return acc, out[0], out[1], minv


def _seeded_tau(t, j):
    return dual(t, {direction("tau", j): 1})


def _check_method(what, method, robot):
    if method not in _DDM_METHODS:
        raise ArgumentError(f"{what}: method must be 'idm' or 'recursive', got {method!r}")
    if method == "recursive" and (robot.mimic or moving_base(robot)):
        raise ArgumentError(f"{what}: robot {robot.name!r} has mimic joints or a "
                            f"{robot.base_kind} base, which the recursive direct model on duals "
                            "does not take: use method='idm' (the default)")


@keyword_options()
def ddm_derivatives_model(robot, *, method="idm", gravity=True, rotor=True, friction=True,
                          wrench=True, velocity=True, base_motion=True):
    """Customized derivatives of the direct dynamic model: inputs q, qd, GAM (tau); outputs
    ``dqdd_dq``, ``dqdd_dqd``, ``dqdd_dtau`` (n x n over the joint variables); ``method`` and
    the switches of :func:`ddm_derivatives_algorithm`."""
    _check_method("ddm_derivatives_model", method, robot_argument(robot))
    return _ddm_derivatives_model(robot, method, switched_off(
        ddm_derivatives_model, gravity=gravity, rotor=rotor, friction=friction, wrench=wrench,
        velocity=velocity, base_motion=base_motion))


def _ddm_derivatives_model(robot, method, switches, given=True):
    """``given``: a mobile base's acceleration is an input (else 0)."""
    import sympy as sp

    order = labels(robot)
    mobile = robot.base_kind == MOBILE_BASE
    inputs = model_inputs(robot, ("q", "qd", "tau"))
    if mobile and given:      # its given acceleration
        inputs["qdd"] = model_inputs(robot, ("qdd",))["qdd"][:6]

    def algorithm(ctx):
        if mobile and not given:
            ctx = Proxy(ctx, qdd=0)
        tau = {j: sp.Symbol(f"GAM{j}") for j in coordinates(robot)}
        _, *mats = ddm_derivatives_algorithm(ctx, robot, tau, method=method, **switches)
        return _outputs(mats, "QDP", order, ("q", "qd", "tau"),
                        ("dqdd_dq", "dqdd_dqd", "dqdd_dtau"))

    return customize(f"{robot.name}_ddm_derivatives_{method}", algorithm, robot,
                     inputs=inputs,
                     title=f"Derivatives of the direct dynamic model of {robot.name} "
                           f"({'-A^-1 dtau/dx' if method == 'idm' else 'recursive, on duals'})")


@keyword_options(method="idm", base_acceleration=None, **DDM_SWITCHES)
def ddm_derivatives(robot, q, qd, tau, **options) -> DDMDerivatives:
    """``(dqdd_dq, dqdd_dqd, dqdd_dtau)`` of the direct model at the robot's q, qd and the
    joint torques tau (..., n_q), each (..., n_v, n_v) (n_v: ``n_q``, or ``6 + n_q`` for a
    mobile or floating base; ``dqdd_dtau`` is A(q)^-1, over the generalized forces);
    ``method``, ``base_acceleration`` (a mobile base's, as :func:`~robmod.dynamics.ddm`'s) and
    the switches of :func:`ddm_derivatives_algorithm`.  Compiled on the fast path like
    :func:`ddm`."""
    key, method, switches, xs = _DDM_D, "idm", {}, (q, qd, tau)
    if options:
        opts = checked_options(ddm_derivatives, options)
        method, a0 = opts.pop("method"), opts.pop("base_acceleration")
        _check_method("ddm_derivatives", method, robot_argument(robot))
        if a0 is not None and robot.base_kind != MOBILE_BASE:
            raise ArgumentError(f"ddm_derivatives: base_acceleration is the given acceleration "
                                f"of a mobile base; robot {robot.name!r} has a "
                                f"{robot.base_kind} base")
        switches = switches_set(ddm_derivatives, opts)
        key = ("ddm_derivatives", method, tuple(sorted(switches.items())), a0 is not None)
        if a0 is not None:
            xs = (q, qd, tau, a0)
    D = fastpath.evaluate(robot, key, _DDM_D_SPEC, (method, switches, len(xs) > 3), *xs)
    if type(D) is tuple:
        return _new(DDMDerivatives, D)
    return _split(DDMDerivatives, D)


_DDM_D = ("ddm_derivatives", "idm", (), False)


def _fast_ddm_derivatives(robot, opts):
    return _stacked(_ddm_derivatives_model(robot, *opts))


def _ddm_derivatives_numpy(robot, opts, q, qd, tau, a0=None):
    method, switches, _ = opts
    require_numeric(robot, "ddm_derivatives", scope="floating" if moving_base(robot) else
                    "geometry")
    arrays = tree_arrays(robot, a0, q=q, qd=qd, tau=tau)
    q, qd, tau = arrays[:3]
    qdd = None
    if robot.base_kind == MOBILE_BASE:
        base = arrays[3] if len(arrays) > 3 else np.zeros(q.shape[:-1] + (6,))
        qdd = np.concatenate([base, np.zeros(q.shape[:-1] + (robot.n_q,))], axis=-1)
    ctx = numeric_context(robot, q=q, qd=qd, qdd=qdd)
    t = {j: tau[..., robot.joint_index[j]] for j in coordinates(robot)}
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        _, *mats = ddm_derivatives_algorithm(ctx, robot, t, method=method, **switches)
    out = _reduced(robot, mats, q.shape[:-1])
    if not np.all(np.isfinite(out)):
        raise singular_inertia_error(robot, q, switches.get("rotor", True))
    return finite_output("ddm_derivatives", out, q=q, qd=qd, tau=tau)


_DDM_D_SPEC = fastpath.Spec(
    _fast_ddm_derivatives,
    lambda robot, q, qd, tau, a0=None: tree_arrays(robot, a0, q=q, qd=qd, tau=tau),
    _ddm_derivatives_numpy)


__all__ = ["IDMDerivatives", "DDMDerivatives", "idm_derivatives", "idm_derivatives_model",
           "idm_derivatives_algorithm", "ddm_derivatives", "ddm_derivatives_model",
           "ddm_derivatives_algorithm"]
