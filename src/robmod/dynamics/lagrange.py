"""Lagrange form of the dynamic model: Gamma = A qdd + C qd + Q (+ friction) (Khalil & Dombre [7.1]-[7.35]).

* ``Q(q)``: gravity torques, the NE model with qd = qdd = 0 ([7.8]);
* ``C(q, qd)``: Coriolis and centrifugal matrix from the Christoffel symbols
  [7.7] ``c_i,jk = 1/2 (dA_ij/dq_k + dA_ik/dq_j - dA_jk/dq_i)``,
  ``C_ij = sum_k c_i,jk qd_k``.  Symbolically the derivatives are taken by
  :func:`~robmod.symbolic.differentiation.derivative` on the customized inertia
  matrix (statement by statement).  Numerically (batched) the same C comes from
  the NE model: the velocity torques ``h(v) = sum_jk c_i,jk v_j v_k`` are a
  quadratic form with the (symmetric in j, k) Christoffel symbols as
  coefficients, so ``C e_j = B(e_j, qd) = (h(e_j + qd) - h(e_j) - h(qd)) / 2``
  exactly (polarization), all columns in one batched NE call;
* ``Gamma(q)`` of Siciliano et al. (7.117): ``C(q, qd) qd = Gamma(q) [qd qd]`` with
  ``[qd qd] = [qd1^2, qd1 qd2, ..., qd(n-1) qdn, qdn^2]``: column (j, j) is
  ``c_.,jj``, column (j, k), j < k, is ``2 c_.,jk``;
* kinetic energy ``E = sum_j 1/2 V_j^T I_j V_j + 1/2 IA_j qd_j^2`` ([7.16]-[7.18],
  [7.29]) and potential energy ``U = -sum_j g^T (M_j 0P_j + 0R_j MS_j)`` ([7.25]),
  for a fixed base (W0 = V0 = 0); a mobile or floating base's link 0 added, with its twist,
  the energies in the world frame.

Gravity and the energies take every base kind (the robot's configuration); the Coriolis
matrices, the friction and velocity torques are written for a fixed base (its joints).

Vectors are (..., NJ) like :func:`~robmod.dynamics.idm`; matrices are over
:func:`~robmod.dynamics.layout.dofs`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np
import sympy as sp
from sympy.core.parameters import distribute

from ..description.arguments import (check_arrays, finite_output, keyword_options,
                                     require_numeric, tree_arrays)
from ..description.base import moving_base
from ..errors import ArgumentError
from ..description.robot import FIXED
from ..geometry.floating import BaseState
from ..symbolic import fastpath
from ..symbolic.cache import cached
from ..symbolic.algebra import add, cross, dot, htm_identity, htm_mul, mul
from ..symbolic.context import NumericContext, SymbolicContext
from ..symbolic.differentiation import derivative
from ..symbolic.model import Output, customize
from .inertia import inertia_matrix_model
from .base_motion import WRENCH_NAMES
from .newton_euler import idm_algorithm
from ..kinematics.recursion import forward, gravity_in_frame0
from .friction import friction_torque
from .layout import (Proxy, coordinates, dofs, geometry, joint_vector, model_inputs,
                     numeric_context, reduce_mimic)

_QUIET = dict(gravity=False, rotor=False, friction=False, wrench=False, base_motion=False)


# -- gravity --------------------------------------------------------------------------------

def gravity_torques_algorithm(ctx, robot):
    """Q_j (list over frames 1..NL, None for fixed frames; after the base's six, the wrench
    holding a mobile or floating base, for one): NE at qd = qdd = 0, gravity only."""
    off = {} if moving_base(robot) else {"base_motion": False}
    return idm_algorithm(Proxy(ctx, qd=0, qdd=0), robot, rotor=False, friction=False,
                         wrench=False, velocity=False, **off)


def gravity_torques(robot, q) -> np.ndarray:
    """Q(q) at the robot's configuration q: (..., n_q), after the base's six for a mobile or
    floating robot (the wrench that holds it)."""
    return fastpath.evaluate(robot, ("Q",), _GRAVITY_SPEC, None, q)


def _gravity_arrays(robot, q):
    return tree_arrays(robot, q=q)


def _gravity_numpy(robot, _, q):
    (q,) = _gravity_arrays(robot, q)
    require_numeric(robot, "gravity_torques", scope="floating" if moving_base(robot) else
                    "dynamics")
    return joint_vector(robot, gravity_torques_algorithm(NumericContext(robot, q=q), robot),
                        q.shape)


_GRAVITY_SPEC = fastpath.Spec(lambda robot, _: gravity_torques_model(robot), _gravity_arrays,
                              _gravity_numpy)


@keyword_options()
def gravity_torques_model(robot):
    """Customized gravity torques Q1..Qn (after the base's wrench E10..N30 for a mobile or
    floating robot)."""
    heads = WRENCH_NAMES if moving_base(robot) else ()

    def algorithm(ctx):
        vals = gravity_torques_algorithm(ctx, robot)
        head, vals = vals[:len(heads)], vals[len(heads):]
        red = reduce_mimic(robot, dict(enumerate(vals, start=1)))
        order = coordinates(robot)
        return [Output.vector("Q", list(head) + [red[j] for j in order],
                              list(heads) + [f"Q{j}" for j in order])]

    return customize(f"{robot.name}_gravity", algorithm, robot, inputs=model_inputs(robot, ("q",)),
                     title=f"Gravity torques of {robot.name}")


def friction_torques(robot, qd) -> np.ndarray:
    """The friction torques [7.26], shape (..., NJ)."""
    shape, (qd,) = check_arrays(robot, qd, names=("qd",))
    ctx = numeric_context(robot, qd=qd)
    out = np.zeros(shape)
    for j in dofs(robot):
        k = robot.joint_index[j]
        out[..., k] = friction_torque(ctx, robot.link(j), qd[..., k])
    return out


# -- Coriolis and centrifugal terms ---------------------------------------------------------

def velocity_torques(robot, q, qd) -> np.ndarray:
    """h = C(q, qd) qd, shape (..., NJ): NE with qdd = 0, no gravity, friction, wrench, rotor."""
    shape, (q, qd) = check_arrays(robot, q, qd, names=("q", "qd"))
    ctx = numeric_context(robot, q=q, qd=qd)
    out = joint_vector(robot, idm_algorithm(Proxy(ctx, qdd=0), robot, **_QUIET), shape)
    return finite_output("velocity_torques", out, q=q, qd=qd)


@keyword_options()
def coriolis_matrix(robot, q, qd, *, method: str = "ne") -> np.ndarray:
    """C(q, qd) of [7.7], shape (..., n, n).

    ``method='ne'``: polarization of the NE velocity torques (batched NumPy);
    ``'christoffel'``: the compiled customized model :func:`coriolis_matrix_model`.
    """
    if method not in ("ne", "christoffel"):
        raise ArgumentError(f"coriolis_matrix: method must be 'ne' or 'christoffel', got "
                            f"{method!r}")
    shape, (q, qd) = check_arrays(robot, q, qd, names=("q", "qd"))
    order = dofs(robot)
    idx = [robot.joint_index[j] for j in order]
    n, nj = len(order), robot.n_q
    if method == "christoffel":
        f = _compiled_christoffel(robot, "coriolis")
        return f(np.ascontiguousarray(q[..., idx]), np.ascontiguousarray(qd[..., idx]))
    E = np.zeros((n, nj))
    E[np.arange(n), idx] = 1.0
    v = np.concatenate([qd[..., None, :] + E, np.broadcast_to(E, shape[:-1] + (n, nj)),
                        qd[..., None, :]], axis=-2)
    h = velocity_torques(robot, q[..., None, :], v)[..., idx]  # (..., 2n+1, n)
    C = 0.5 * (h[..., :n, :] - h[..., n:2 * n, :] - h[..., 2 * n:, :])  # (..., column, row)
    return np.swapaxes(C, -1, -2)


def quadratic_velocity_matrix(robot, q) -> np.ndarray:
    """Gamma(q) of Siciliano et al. (7.117), shape (..., n, n(n+1)/2): C(q, qd) qd = Gamma [qd qd]."""
    shape, (q,) = check_arrays(robot, q, names=("q",))
    order = dofs(robot)
    idx = [robot.joint_index[j] for j in order]
    n, nj = len(order), robot.n_q
    pairs = [(a, b) for a in range(n) for b in range(a, n)]
    V = np.zeros((len(pairs), nj))
    for k, (a, b) in enumerate(pairs):
        V[k, idx[a]] += 1.0
        V[k, idx[b]] += 1.0
    h = velocity_torques(robot, np.broadcast_to(q[..., None, :], shape[:-1] + V.shape), V)
    h = h[..., idx]  # (..., pair, i)
    diag = {a: h[..., pairs.index((a, a)), :] / 4.0 for a in range(n)}  # h(2 e_a) = 4 c_aa
    cols = []
    for k, (a, b) in enumerate(pairs):
        cols.append(diag[a] if a == b else h[..., k, :] - diag[a] - diag[b])
    return np.stack(cols, axis=-1)


def _velocity_products(qd):
    """[qd qd] = [qd1^2, qd1 qd2, ..., qdn^2] (..., n(n+1)/2) of Siciliano et al. (7.117)."""
    qd = np.asarray(qd, dtype=float)
    n = qd.shape[-1]
    return np.stack([qd[..., a] * qd[..., b] for a in range(n) for b in range(a, n)], axis=-1)


def _christoffel_symbols(ctx, dA, order):
    """``{(i, j, k): c_i,jk}`` (j <= k) from ``dA[(r, c)][k]`` = dA_rc/dq_k (lower triangle)."""
    def d(r, c, k):
        key = (r, c) if (r, c) in dA else (c, r)
        return dA.get(key, {}).get(k, 0)

    ch = {}
    for i in order:
        for a, j in enumerate(order):
            for k in order[a:]:
                val = add(d(i, j, k), d(i, k, j), -d(j, k, i))
                ch[i, j, k] = ctx.var(mul(sp.Rational(1, 2), val), f"CH{i}{j}{k}")
    return ch


@keyword_options()
def coriolis_matrix_algorithm(ctx, robot, dA):
    """C(q, qd) as an n x n nested list over :func:`~robmod.dynamics.layout.dofs`, elements
    ``C{i}{j} = sum_k c_i,jk qd_k`` from the Christoffel symbols [7.7] of the derivatives of
    the inertia matrix ``dA[(i, j)][k]`` = dA_ij/dq_k (lower triangle, missing: 0), over
    context scalars (the customized model takes dA from the customized A, statement by
    statement)."""
    order = dofs(robot)
    ch = _christoffel_symbols(ctx, dA, order)
    qd = {k: ctx.joint(k, "qd") for k in order}
    pos = {k: n for n, k in enumerate(order)}
    return [[ctx.var(add(*[mul(ch[(i, j, k) if pos[j] <= pos[k] else (i, k, j)], qd[k])
                           for k in order]), f"C{i}{j}") for j in order] for i in order]


@keyword_options()
def quadratic_velocity_matrix_algorithm(ctx, robot, dA):
    """Gamma(q) of Siciliano et al. (7.117) as n rows of n(n+1)/2 context scalars, column
    (j, k), j <= k, ``c_.,jj`` or ``2 c_.,jk`` (elements ``GQ{i}{j}{k}``), from the derivatives
    of the inertia matrix as :func:`coriolis_matrix_algorithm` takes them."""
    order = dofs(robot)
    ch = _christoffel_symbols(ctx, dA, order)
    rows = []
    for i in order:
        row = []
        for a, j in enumerate(order):
            for k in order[a:]:
                c = ch[i, j, k]
                row.append(c if j == k else ctx.var(mul(2, c), f"GQ{i}{j}{k}"))
        rows.append(row)
    return rows


def _christoffel_model(robot, what: str):
    base = inertia_matrix_model(robot)
    qs = model_inputs(robot, ("q", "qd"))
    order = dofs(robot)
    dm = derivative(base, qs["q"], keep_outputs=False)
    dA = {}
    pairs = [(order[r], order[c]) for r in range(len(order)) for c in range(r + 1)]
    for out, qk in zip(dm.outputs, order):
        for (r, c), e in zip(pairs, out.exprs):
            if e != 0:
                dA.setdefault((r, c), {})[qk] = e
    ctx = SymbolicContext(robot)
    ctx.reserve(*(str(l) for l, _ in dm.statements))
    ctx.reserve(*(str(s) for g in dm.inputs.values() for s in g), *qs["qd"])
    n = len(order)
    with distribute(False):
        if what == "coriolis":
            vals = coriolis_matrix_algorithm(ctx, robot, dA)
            names = [f"C{i}{j}" for i in order for j in order]
            out = Output("C", (n, n), tuple(names),
                         tuple(sp.sympify(v) for r in vals for v in r))  # safe: robmod exprs
            inputs = {"q": qs["q"], "qd": qs["qd"]}
        else:
            rows = quadratic_velocity_matrix_algorithm(ctx, robot, dA)
            names = [f"GQ{i}{j}{k}" for i in order for a, j in enumerate(order)
                     for k in order[a:]]
            out = Output("GQ", (n, n * (n + 1) // 2), tuple(names),
                         tuple(sp.sympify(v) for r in rows for v in r))  # safe: robmod exprs
            inputs = {"q": qs["q"]}
    if "params" in dm.inputs:
        inputs["params"] = dm.inputs["params"]
    model = replace(dm, name=f"{robot.name}_{what}", inputs=inputs,
                    statements=tuple(dm.statements) + tuple(ctx.statements), outputs=(out,),
                    title=f"{what} of {robot.name} from the Christoffel symbols [7.7]")
    return model.pruned()


def coriolis_matrix_model(robot):
    """Customized C(q, qd) (outputs C{i}{j}) from Christoffel symbols of the customized A."""
    return _christoffel_model(robot, "coriolis")


def quadratic_velocity_matrix_model(robot):
    """Customized Gamma(q) of Siciliano et al. (7.117) (outputs GQ{i}{j}{k}, j <= k)."""
    return _christoffel_model(robot, "quadratic")


def _compiled_christoffel(robot, what):
    """The compiled Christoffel model ``what`` of ``robot`` (the one cache, by content)."""
    return cached(("christoffel", robot.content_key, what),
                  lambda: _christoffel_model(robot, what).compile())


# -- energies -------------------------------------------------------------------------------

class Energy(NamedTuple):
    """Kinetic and potential energy (each of the batch shape): ``E, U = energy(...)``."""

    kinetic: np.ndarray
    potential: np.ndarray

    @property
    def total(self) -> np.ndarray:
        return self.kinetic + self.potential


@keyword_options()
def energy_algorithm(ctx, robot, *, kinetic=True, potential=True, rotor=True):
    """(E, U) over context scalars: the kinetic energy [7.16]-[7.18] (with the rotors'
    ``1/2 IA qd^2`` with ``rotor``) and the potential energy [7.25]; ``kinetic`` /
    ``potential`` False give 0 for that one.  A mobile or floating base: link 0 too, its
    twist and pose read from ``ctx`` (the energies in the world frame)."""
    p = ctx.param
    frames = robot.frames[: robot.n_links]
    base = BaseState.of(ctx) if moving_base(robot) else None
    if kinetic:   # w_j, V_j of (7.17)-(7.18): the forward recursion of link kinematics
        start = None if base is None else (base.W, [0, 0, 0], [0, 0, 0], base.V)
        kin = forward(ctx, robot, acceleration=False, base_motion=False, gravity=False,
                      linear=False, angular_acceleration=False, linear_velocity=True,
                      start=start)
        geo = {j: (kin.R[j], kin.P[j]) for j in kin.R}
    else:
        geo = geometry(ctx, robot)
    T = {0: htm_identity() if base is None else base.transform(ctx)}
    e_terms, u_terms = [], []
    # [7.25] with gravity in frame 0 (a fixed base: 0g); a mobile or floating base's positions
    # are the world's (T0 its pose), and so is its gravity
    g = None if not potential else [p(x) for x in robot.gravity] if base is not None else \
        gravity_in_frame0(ctx, robot)
    bodies = [(0, None, robot.base_link)] if base is not None else []
    for j, f, link in bodies + [(f.j, f, robot.link(f.j)) for f in frames]:
        MS = [p(link.MX), p(link.MY), p(link.MZ)]
        M = p(link.M)
        if kinetic:
            w, v = kin.W[j], kin.V[j]
            J = [[p(link.XX), p(link.XY), p(link.XZ)], [p(link.XY), p(link.YY), p(link.YZ)],
                 [p(link.XZ), p(link.YZ), p(link.ZZ)]]
            jw = [dot(J[r], w) for r in range(3)]
            two_e = add(dot(w, jw), mul(M, dot(v, v)), mul(2, dot(MS, cross(v, w))))  # [7.16]
            if rotor and f is not None and f.sigma != FIXED:
                qd = ctx.joint(j, "qd")
                two_e = add(two_e, mul(p(link.IA), mul(qd, qd)))
            e_terms.append(ctx.var(two_e, f"E2{j}"))
        if potential:
            if f is not None:
                R, P = geo[j]
                T[j] = htm_mul(ctx, T[f.ant], [list(R[r]) + [P[r]] for r in range(3)], f"TE{j}")
            pos = [add(mul(M, T[j][r][3]), *[mul(T[j][r][c], MS[c]) for c in range(3)])
                   for r in range(3)]
            u_terms.append(ctx.var(-dot(g, pos), f"U{j}"))  # [7.25]
    E = ctx.var(mul(sp.Rational(1, 2), add(*e_terms)), "E") if e_terms else 0
    U = ctx.var(add(*u_terms), "U") if u_terms else 0
    return E, U


def _energies(robot, q, qd=None, **options):
    """(E, U) of the robot's arrays (the batch shape)."""
    arrays = [q] if qd is None else [q, qd]
    checked = tree_arrays(robot, **dict(zip(("q", "qd"), arrays)))
    require_numeric(robot, "energy", scope="floating" if moving_base(robot) else "dynamics")
    q = checked[0]
    ctx = NumericContext(robot, **dict(zip(("q", "qd"), checked)))
    return [np.broadcast_to(np.asarray(x, dtype=float) * 1.0, q.shape[:-1]).copy()
            for x in energy_algorithm(ctx, robot, **options)]


@keyword_options()
def energy(robot, q, qd, *, rotor: bool = True) -> Energy:
    """Kinetic and potential energy at the robot's q, qd: :class:`Energy` of arrays of the
    batch shape (:func:`energy_algorithm`)."""
    return Energy(*_energies(robot, q, qd, rotor=rotor))


@keyword_options()
def kinetic_energy(robot, q, qd, *, rotor: bool = True) -> np.ndarray:
    """The kinetic energy alone (:func:`energy`), shape (...)."""
    return _energies(robot, q, qd, potential=False, rotor=rotor)[0]


def potential_energy(robot, q) -> np.ndarray:
    """The potential energy alone (:func:`energy`), shape (...)."""
    return _energies(robot, q, kinetic=False)[1]


@keyword_options()
def energy_model(robot):
    """Customized kinetic and potential energies (outputs E, U)."""
    def algorithm(ctx):
        E, U = energy_algorithm(ctx, robot)
        return [Output.vector("EU", [E, U], ["E", "U"])]

    return customize(f"{robot.name}_energy", algorithm, robot,
                     inputs=model_inputs(robot, ("q", "qd")),
                     title=f"Kinetic and potential energy of {robot.name}")


__all__ = ["gravity_torques", "gravity_torques_model", "gravity_torques_algorithm",
           "friction_torques", "velocity_torques", "coriolis_matrix", "coriolis_matrix_model",
           "coriolis_matrix_algorithm", "quadratic_velocity_matrix",
           "quadratic_velocity_matrix_model", "quadratic_velocity_matrix_algorithm", "Energy",
           "energy", "kinetic_energy", "potential_energy", "energy_model", "energy_algorithm"]
