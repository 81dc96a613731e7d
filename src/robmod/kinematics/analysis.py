"""Velocity transmission between joint and task space (Khalil & Dombre §5.8, §6.4).

Everything here works on a Jacobian array ``J`` of shape (..., m, n) (any
leading batch shape): for a robot, compute it first with
:func:`task_rows_jacobian` ``(robot, q, j=..., i=..., tool=..., rows=...)`` (the task
components kept among the 6 rows ``(V, omega)`` of iJ_j, e.g. ``rows=(0, 1)`` for a planar
position task) or :func:`~robmod.kinematics.jacobian`.

* SVD ``J = U Sigma V^T`` ([5.27]-[5.28]) and the four fundamental subspaces
  ([5.30]-[5.31], Fig. 5.13): :class:`JacobianSVD`;
* rank, generic rank (dimension of the task space), singular configurations
  (smallest singular value below a tolerance, Khalil & Dombre §6.4);
* manipulability ``w = sqrt(det(J J^T))`` ([5.38], square root restored) and
  ``|det J|`` for a square J ([5.39]);
* velocity ellipsoid ``Xd^T (J J^T)^-1 Xd <= 1`` ([5.37]) and force ellipsoid
  ``f^T J J^T f <= 1`` (§5.9.3): the same axes U_i, lengths sigma_i and
  1/sigma_i;
* bounds of the task velocity for a box of joint velocities ([5.32]-[5.35])
  and the vertices of the velocity polytope;
* symbolic singularities: the factors of det(J) (det(J J^T) for a redundant
  robot) in the sines and cosines of the joint variables.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ..description.arguments import finite_array, jacobian_array, joint_array
from ..errors import ArgumentError, RobmodError
from ..geometry.direct import dgm
from .jacobians import resolve_frame, jacobian, jacobian_model
from ..description.arguments import keyword_options


# -- the Jacobian of a task ----------------------------------------------------------------------
@keyword_options()
def task_rows_jacobian(robot, q, *, j=None, i=0, tool=None, rows=None) -> np.ndarray:
    """iJ_j (or iJ_E) at q, restricted to the task ``rows`` (indices into Vx Vy Vz wx wy wz).

    ``i='end'`` expresses the velocities in the end frame itself (nJn, or the
    tool frame E): ``diag(R^T, R^T) 0J_E`` with ``R = 0R_E``.
    """
    if isinstance(i, str):
        if i != "end":
            raise RobmodError(f"i must be a frame number or 'end', got {i!r}")
        R = np.swapaxes(dgm(robot, q, j=j, tool=tool)[..., :3, :3], -1, -2)
        J = jacobian(robot, q, j=j, tool=tool)
        J = np.concatenate([R @ J[..., :3, :], R @ J[..., 3:, :]], axis=-2)
    else:
        J = jacobian(robot, q, j=j, i=i, tool=tool)
    return J if rows is None else J[..., list(rows), :]


def _default_tol(s, shape):
    """numpy's matrix_rank tolerance: sigma_max * max(m, n) * eps."""
    smax = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    return smax * max(shape[-2:]) * np.finfo(float).eps


def _tol(s, shape, tol):
    return _default_tol(s, shape) if tol is None else np.asarray(tol, dtype=float)[..., None]


# -- SVD and subspaces ----------------------------------------------------------------------------
@dataclass(frozen=True)
class JacobianSVD:
    """``J = U diag(sigma) V^T`` ([5.27]), singular values in decreasing order.

    ``U`` (..., m, m): output (left) singular vectors, eigenvectors of J J^T;
    ``V`` (..., n, n): input (right) singular vectors, eigenvectors of J^T J;
    ``sigma`` (..., min(m, n)): velocity transmission ratios ([5.31]:
    ``sigma_i V_i^T qd = U_i^T Xd``); ``rank``: number of sigma_i above ``tol``.

    The subspaces (one Jacobian only, i.e. no batch dimension; Khalil & Dombre Fig. 5.13
    and §5.9.3):

    * ``range_space``  U_1..U_r: the achievable task velocities R(J);
    * ``range_complement`` U_r+1..U_m: the degenerate directions R(J)^perp
      = N(J^T) — wrenches borne by the structure without joint torque;
    * ``row_space`` V_1..V_r: the joint velocities that move the end-effector,
      R(J^T) — the joint torques that balance some wrench;
    * ``null_space`` V_r+1..V_n: the self-motions N(J) (Xd = 0) — the joint
      torques no wrench can balance.
    """

    U: np.ndarray
    sigma: np.ndarray
    V: np.ndarray
    rank: np.ndarray
    tol: np.ndarray = field(repr=False)

    def _single(self):
        if self.U.ndim != 2:
            raise RobmodError("subspaces are defined for one Jacobian: index the batch first")
        return int(self.rank)

    @property
    def range_space(self) -> np.ndarray:
        return self.U[:, :self._single()]

    @property
    def range_complement(self) -> np.ndarray:
        return self.U[:, self._single():]

    @property
    def row_space(self) -> np.ndarray:
        return self.V[:, :self._single()]

    @property
    def null_space(self) -> np.ndarray:
        return self.V[:, self._single():]

    def __getitem__(self, idx) -> "JacobianSVD":
        """One Jacobian (or a sub-batch) of a batched decomposition."""
        return JacobianSVD(self.U[idx], self.sigma[idx], self.V[idx], self.rank[idx],
                           self.tol[idx])


@keyword_options()
def jacobian_svd(J, *, tol=None) -> JacobianSVD:
    """SVD of J with the rank at ``tol`` (default sigma_max * max(m, n) * eps)."""
    J = jacobian_array(J)
    U, s, Vt = np.linalg.svd(J, full_matrices=True)
    t = _tol(s, J.shape, tol)
    r = np.sum(s > t, axis=-1)
    return JacobianSVD(U, s, np.swapaxes(Vt, -1, -2), np.asarray(r), np.asarray(t[..., 0]))


def singular_values(J) -> np.ndarray:
    """sigma_1 >= ... >= sigma_min(m,n), shape (..., min(m, n))."""
    return np.linalg.svd(jacobian_array(J), compute_uv=False)


@keyword_options()
def rank(J, *, tol=None) -> np.ndarray:
    """Rank of J (number of singular values above ``tol``)."""
    J = jacobian_array(J)
    s = np.linalg.svd(J, compute_uv=False)
    return np.sum(s > _tol(s, J.shape, tol), axis=-1)


def min_singular_value(J) -> np.ndarray:
    """sigma_min, the distance to the nearest singular Jacobian (Khalil & Dombre §6.4)."""
    return singular_values(J)[..., -1]


def condition_number(J) -> np.ndarray:
    """sigma_1 / sigma_min (inf at a singularity)."""
    s = singular_values(J)
    with np.errstate(divide="ignore"):
        return np.where(s[..., -1] > 0, s[..., 0] / np.where(s[..., -1] > 0, s[..., -1], 1),
                        np.inf)


@keyword_options()
def is_singular(J, *, tol=1e-6) -> np.ndarray:
    """True where sigma_min < tol: J has lost rank (rank < min(m, n))."""
    return min_singular_value(J) < tol


@keyword_options()
def task_space_dimension(robot, *, j=None, i=0, tool=None, rows=None, n_samples=16, tol=1e-8,
                         rng=0) -> int:
    """Generic rank of the task Jacobian: the number M of independent task coordinates.

    The maximal rank over ``n_samples`` random configurations (revolute joints
    in [-pi, pi], prismatic ones in [-1, 1]); a robot is redundant for the task
    when NJ on the chain > M.
    """
    rng = np.random.default_rng(rng)
    q = rng.uniform(-np.pi, np.pi, (n_samples, robot.n_q))
    prism = np.array([robot.frame(k).sigma == 1 for k in robot.joints])
    q[:, prism] /= np.pi
    J = task_rows_jacobian(robot, q, j=j, i=i, tool=tool, rows=rows)
    return int(rank(J, tol=tol).max())


# -- manipulability and ellipsoids ----------------------------------------------------------------
def manipulability(J) -> np.ndarray:
    """w = sqrt(det(J J^T)) ([5.38]) = product of the singular values (0 when m > n).

    For a square J, w = |det J| ([5.39]).
    """
    J = jacobian_array(J)
    m, n = J.shape[-2:]
    if m > n:
        return np.zeros(J.shape[:-2])
    return np.prod(np.linalg.svd(J, compute_uv=False), axis=-1)


@dataclass(frozen=True)
class Ellipsoid:
    """Ellipsoid ``{sum_i c_i lengths_i axes_i : ||c|| <= 1}`` in task space.

    ``axes`` (..., m, m): principal directions as columns (U_1..U_m);
    ``lengths`` (..., m): semi-axis lengths (0 along degenerate directions of the
    velocity ellipsoid, inf along those of the force ellipsoid).
    """

    axes: np.ndarray
    lengths: np.ndarray

    def level(self, x) -> np.ndarray:
        """``sum_i (U_i^T x / length_i)^2``: 1 on the surface, < 1 inside (inf off a flat one)."""
        c = np.einsum("...ki,...k->...i", self.axes, np.asarray(x, dtype=float))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(c == 0, 0.0, (c / self.lengths) ** 2)
        return t.sum(axis=-1)

    def points(self, c) -> np.ndarray:
        """Points ``U diag(lengths) c`` for unit vectors c (..., m) (finite lengths only)."""
        return np.einsum("...ki,...i->...k", self.axes, self.lengths * np.asarray(c, float))

    @property
    def volume_measure(self) -> np.ndarray:
        """Product of the semi-axes (for the velocity ellipsoid: the manipulability w)."""
        return np.prod(self.lengths, axis=-1)


def _padded_sigma(J):
    U, s, _ = np.linalg.svd(J)
    m = J.shape[-2]
    pad = np.zeros(s.shape[:-1] + (m - s.shape[-1],))
    return U, np.concatenate([s, pad], axis=-1)


def velocity_ellipsoid(J) -> Ellipsoid:
    """Image of the unit sphere qd^T qd <= 1 ([5.36]-[5.37]): axes U_i, lengths sigma_i."""
    U, s = _padded_sigma(jacobian_array(J))
    return Ellipsoid(U, s)


def force_ellipsoid(J) -> Ellipsoid:
    """Wrenches with ||Gamma|| = ||J^T f|| <= 1 (§5.9.3): axes U_i, lengths 1/sigma_i."""
    U, s = _padded_sigma(jacobian_array(J))
    with np.errstate(divide="ignore"):
        return Ellipsoid(U, np.where(s > 0, 1.0 / np.where(s > 0, s, 1.0), np.inf))


# -- joint velocity box -> task velocities --------------------------------------------------------
def velocity_bounds(J, qd_max) -> np.ndarray:
    """Xd_max (..., m) for |qd_i| <= qd_max_i ([5.32]-[5.35]): Xd_max_k = sum_i |J_ki| qd_max_i.

    Each bound is reached at the corner ``qd_i = qd_max_i sign(J_ki)``; the
    minimum is ``-Xd_max`` (the box is symmetric).
    """
    J = jacobian_array(J)
    qd_max = finite_array("qd_max", qd_max, shape_text=f"{J.shape[-1]} joint speed limits")
    if qd_max.ndim > 1 or qd_max.size not in (1, J.shape[-1]):
        raise ArgumentError(f"qd_max must be a number or {J.shape[-1]} joint speed limits, got "
                            f"shape {qd_max.shape}")
    return np.abs(J) @ np.broadcast_to(qd_max, J.shape[-1:])


@keyword_options()
def velocity_polytope(J, qd_max, *, tol=1e-10, max_joints=16) -> np.ndarray:
    """Vertices (k, m) of the task-velocity polytope J {|qd_i| <= qd_max_i} (one Jacobian).

    The images of the 2^n corners of the joint box, reduced to their convex
    hull (computed in the range space of J when the polytope is flat).
    """
    from scipy.spatial import ConvexHull

    J = jacobian_array(J)
    if J.ndim != 2:
        raise RobmodError("velocity_polytope takes one Jacobian (m, n)")
    n = J.shape[1]
    if n > max_joints:
        raise RobmodError(f"{2 ** n} corners: too many joints ({n} > {max_joints})")
    qd_max = np.broadcast_to(np.asarray(qd_max, dtype=float), (n,))
    corners = np.array(list(itertools.product((-1.0, 1.0), repeat=n))) * qd_max
    X = corners @ J.T
    d = jacobian_svd(J, tol=tol)
    r = int(d.rank)
    if r == 0:
        return np.zeros((1, J.shape[0]))
    B = d.U[:, :r]
    Y = X @ B
    if r == 1:
        idx = [int(np.argmin(Y[:, 0])), int(np.argmax(Y[:, 0]))]
    else:
        idx = ConvexHull(Y).vertices
    return np.unique(np.round(X[idx], 14), axis=0)


# -- symbolic singularities -----------------------------------------------------------------------
@dataclass(frozen=True)
class SymbolicSingularities:
    """Factored singularity condition of a task Jacobian.

    ``jacobian``: the task Jacobian in the symbols ``S{k}, C{k}`` (sines and
    cosines named as in the customized models) and the robot's parameters;
    ``determinant``: det(J) (square), det(J J^T) (m < n) or det(J^T J) (m > n),
    reduced modulo ``S^2 + C^2 = 1`` (degree <= 1 in every cosine);
    ``constant``: the factor free of joint variables; ``factors``: the
    configuration factors with their multiplicities (det = constant * prod
    f^k): each ``f = 0`` is a singular surface; ``trig``: ``{S1: sin(q1), ...}``.
    """

    jacobian: sp.Matrix
    determinant: sp.Expr
    constant: sp.Expr
    factors: tuple
    trig: dict
    kind: str
    robot: object = None  # gives the joint-vector layout of ``evaluate``'s q

    def conditions(self) -> list:
        """The factors as expressions of the joint variables (sin/cos restored)."""
        return [f.xreplace(self.trig) for f, _ in self.factors]

    def evaluate(self, q, values=None) -> np.ndarray:
        """Numeric determinant at q (..., NJ); ``values``: parameter values (a mapping)."""
        expr = self.determinant.xreplace(self.trig)
        if values:
            expr = expr.xreplace({sp.Symbol(str(k)): v for k, v in dict(values).items()})
        qs = sorted((s for s in expr.free_symbols if str(s).startswith("q")),
                    key=lambda s: int(str(s)[1:]))
        left = expr.free_symbols - set(qs)
        if left:
            raise RobmodError(f"no values for {sorted(map(str, left))}")
        q = joint_array(self.robot, "q", q) if self.robot is not None else finite_array("q", q)
        index = self.robot.joint_index if self.robot is not None else None
        f = sp.lambdify(qs, expr, "numpy")
        pos = [index[int(str(s)[1:])] if index else int(str(s)[1:]) - 1 for s in qs]
        return np.broadcast_to(f(*[q[..., k] for k in pos]), q.shape[:-1])


def expanded_outputs(model):
    """Outputs of a customized model with every non-trig intermediate substituted."""
    subs, trig, sin_of, cos_of = {}, {}, {}, {}
    for lhs, rhs in model.statements:
        if isinstance(rhs, (sp.sin, sp.cos)):
            trig[lhs] = rhs
            (sin_of if isinstance(rhs, sp.sin) else cos_of)[rhs.args[0]] = lhs
        else:
            subs[lhs] = rhs.xreplace(subs)
    pairs = [(s, cos_of[a]) for a, s in sin_of.items() if a in cos_of]
    return [e.xreplace(subs) for e in model.outputs[0].exprs], trig, pairs


def reduce_pythagoras(expr, pairs):
    """Normal form modulo S^2 + C^2 - 1 (remainder in each cosine; unique, degree <= 1 in C)."""
    expr = sp.expand(expr)
    for s, c in pairs:
        if expr.has(c):
            expr = sp.expand(sp.rem(expr, c**2 + s**2 - 1, c))
    return expr


def _trig_divisor(f, pairs):
    """(d, f / d) when f = d h on the unit circle for d = C_k or S_k, else None.

    f (a normal form) vanishes wherever C_k = 0 (S_k = +-1) iff C_k divides it
    modulo the relation; then C_k f = (1 - S_k^2) h and h = reduce(C_k f) / (1 - S_k^2)
    exactly (normal forms are unique); idem S_k f = S_k^2 h.
    """
    for s, c in pairs:
        if f in (s, c) or not (f.has(s) or f.has(c)):
            continue
        for d, o, den in ((c, s, 1 - s**2), (s, c, s**2)):
            if all(sp.expand(f.xreplace({d: 0, o: v})) == 0 for v in (1, -1)):
                h, r = sp.div(reduce_pythagoras(d * f, pairs), sp.expand(den), s)
                if sp.expand(r) == 0:
                    return d, sp.expand(h)
    return None


def factorize_singular(expr, pairs, qsyms):
    """(constant, ((factor, multiplicity), ...)) of a normal form, trig factors split off."""
    constant, found, stack = sp.Integer(1), {}, [(expr, 1)]
    while stack:
        g, k = stack.pop()
        c, fl = sp.factor_list(g)
        constant *= c**k
        for f, m in fl:
            mult = k * m
            if not f.free_symbols & qsyms:
                constant *= f**mult
                continue
            red = reduce_pythagoras(f, pairs)
            if red != sp.expand(f):
                stack.append((red, mult))
                continue
            if f.could_extract_minus_sign():
                f, constant = -f, constant * (-1) ** mult
            split = _trig_divisor(f, pairs)
            if split is None:
                found[f] = found.get(f, 0) + mult
            else:
                found[split[0]] = found.get(split[0], 0) + mult
                stack.append((split[1], mult))
    factors = sorted(found.items(), key=lambda fk: (sp.count_ops(fk[0]), str(fk[0])))
    return constant, tuple(factors)


@keyword_options()
def singularities_symbolic(robot, *, j=None, i=None, tool=None,
                           rows=None) -> SymbolicSingularities:
    """Singular configurations of iJ_j from the factored determinant (Khalil & Dombre §6.4).

    ``i`` defaults to the frame halfway along the chain of j (e.g. 3J6 for a
    6-joint robot), where the elements are simplest (Khalil & Dombre Example 6.1); the
    determinant does not depend on i (the change of frame has determinant 1).
    ``rows``: task components kept (default: the rows not identically zero);
    the columns of the joints off the chain are dropped.  A square task
    Jacobian gives det(J); a redundant one det(J J^T) (= w^2, [5.38]).
    Cost: well under a second for the 6R library arms except the UR5 (~9 s);
    det(J J^T) of a 7R arm (6 x 7) is out of reach, use the numeric tools.
    """
    tool_obj, jj = resolve_frame(robot, j, tool)
    chain = [k for k in robot.chain(jj) if robot.frame(k).is_joint and k <= robot.n_joints]
    if i is None:
        i = robot.chain(jj)[len(robot.chain(jj)) // 2 - 1] if len(robot.chain(jj)) > 1 else 0
    model = jacobian_model(robot, j=jj, i=i, tool=tool_obj)
    exprs, trig, pairs = expanded_outputs(model)
    J = sp.Matrix(6, robot.n_joints, exprs)
    if J.has(sp.Float):  # numeric parameters: exact rationals, so that terms cancel exactly
        J = J.applyfunc(lambda e: sp.nsimplify(e, rational=True))
    cols = [k - 1 for k in chain]
    if rows is None:
        rows = [r for r in range(6) if any(sp.expand(J[r, c]) != 0 for c in cols)]
    J = J.extract(list(rows), cols)
    m, n = J.shape
    if m == n:
        A, kind = J, "det(J)"
    elif m < n:
        A, kind = J * J.T, "det(J J^T)"
    else:
        A, kind = J.T * J, "det(J^T J)"
    det = reduce_pythagoras(A.det(method="berkowitz"), pairs)
    qsyms = set(trig) | {robot.frame(k).q for k in chain}
    constant, factors = factorize_singular(det, pairs, qsyms)
    return SymbolicSingularities(J, det, constant, factors, trig, kind, robot)


__all__ = ["task_rows_jacobian", "JacobianSVD", "jacobian_svd", "singular_values", "rank",
           "min_singular_value", "condition_number", "is_singular", "task_space_dimension",
           "manipulability", "Ellipsoid", "velocity_ellipsoid", "force_ellipsoid",
           "velocity_bounds", "velocity_polytope", "SymbolicSingularities",
           "singularities_symbolic"]
