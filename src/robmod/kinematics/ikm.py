"""Inverse kinematic models: regular, singular and redundant cases (Khalil & Dombre §6.3-§6.5, App. 4).

All functions take a Jacobian ``J`` (..., m, n) and task velocities ``xd``
(..., m) with any leading batch shape and return joint velocities (..., n).

* pseudo-inverse solution ``qd = J+ xd + (I - J+ J) z`` ([6.11], [6.31], [A4.13]):
  minimum ||qd|| among the exact solutions, least-squares when xd is not in
  R(J);
* damped least squares ``qd = (J^T J + lambda^2 I)^-1 J^T xd
  = J^T (J J^T + lambda^2 I)^-1 xd`` ([6.13]-[6.17]) with a fixed damping
  (Wampler), the manipulability rule [6.20] (Nakamura) or the smallest
  singular value rule [6.21] (Maciejewski-Klein, square root restored);
* weighted pseudo-inverse ``J_E+ = E^-1 J^T (J E^-1 J^T)^-1``, minimum
  ``qd^T E qd`` ([6.28]-[6.30]);
* optimization in the null space ``qd = J+ xd + alpha (I - J+ J) grad(phi)``
  ([6.32]) with the joint-limit criteria [6.34]-[6.39] and the manipulability
  [6.40]; alpha < 0 minimizes phi, alpha > 0 maximizes it;
* task priority ([6.41]-[6.48], Nakamura) for two tasks;
* extended Jacobian ([6.23]-[6.26]): ``[J; Jh] qd = [xd; xcd]``;
* Greville's recursive pseudo-inverse (App. 4, [A4.18]-[A4.23]) in exact
  arithmetic (SymPy rationals), reproducing Example A4.1.

The solver objects at the end (:class:`PseudoInverse`, ...) wrap these as
callables ``solver(J, xd, q) -> qd`` for resolved-rate control
(:mod:`robmod.kinematics.resolved_motion`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import sympy as sp

from ..errors import ArgumentError, RobmodError
from .analysis import manipulability, task_rows_jacobian
from ..description.arguments import (finite_array, finite_vector, jacobian_array,
                                     keyword_options)


def _mv(A, x):
    return np.einsum("...ij,...j->...i", A, x)


def _J(J):
    return jacobian_array(J)


def _xd(J, xd, what="xd"):
    return finite_vector(what, xd, J.shape[-2], "values (rows of J)")


# -- pseudo-inverse ------------------------------------------------------------------------------
@keyword_options()
def pinv(J, *, rtol=None) -> np.ndarray:
    """Moore-Penrose pseudo-inverse J+ (..., n, m) ([A4.12]), singular values below
    ``rtol * sigma_max`` treated as zero (default ``max(m, n) * eps``)."""
    J = _J(J)
    if rtol is None:
        rtol = max(J.shape[-2:]) * np.finfo(float).eps
    return np.linalg.pinv(J, rtol=rtol)


@keyword_options()
def null_space_projector(J, Jp=None, *, rtol=None) -> np.ndarray:
    """I_n - J+ J (..., n, n): orthogonal projector onto N(J) ([A4.7], [6.31])."""
    J = _J(J)
    Jp = pinv(J, rtol=rtol) if Jp is None else Jp
    return np.eye(J.shape[-1]) - Jp @ J


@keyword_options()
def ikm_pinv(J, xd, z=None, *, rtol=None) -> np.ndarray:
    """qd = J+ xd + (I - J+ J) z ([6.11], [6.31]); z = None: the minimum-norm solution."""
    J = _J(J)
    Jp = pinv(J, rtol=rtol)
    qd = _mv(Jp, _xd(J, xd))
    if z is not None:
        qd = qd + _mv(np.eye(J.shape[-1]) - Jp @ J, np.asarray(z, dtype=float))
    return qd


# -- damped least squares ------------------------------------------------------------------------
_FIXED, _MANIPULABILITY, _SINGULAR_VALUE = "fixed", "manipulability", "singular_value"


@keyword_options()
def damping_factor(J, *, rule: str = _SINGULAR_VALUE, lam=0.003, w0=None, eps=None) -> np.ndarray:
    """Damping lambda (...,) of the damped least squares (Khalil & Dombre §6.4.2).

    * ``'fixed'``: ``lambda = lam`` (Wampler's 0.003 by default);
    * ``'manipulability'`` [6.20]: ``lambda = lam (1 - w/w0)^2`` if ``w < w0``,
      else 0, with w = sqrt(det(J J^T)) ([5.38]);
    * ``'singular_value'`` [6.21]: ``lambda = sqrt(eps^2 - sigma_min^2)`` if
      ``sigma_min <= eps``, else 0 (the gain sigma/(sigma^2 + lambda^2) then
      never exceeds 1/eps); ``eps`` defaults to 0.05 (in the units of J).
    """
    J = _J(J)
    batch = J.shape[:-2]
    if rule == _FIXED:
        return np.broadcast_to(np.asarray(lam, dtype=float), batch)
    if rule == _MANIPULABILITY:
        if w0 is None:
            raise RobmodError("the manipulability rule [6.20] needs the threshold w0")
        w = manipulability(J)
        return np.where(w < w0, lam * (1 - w / w0) ** 2, 0.0)
    if rule == _SINGULAR_VALUE:
        eps = 0.05 if eps is None else eps
        smin = np.linalg.svd(J, compute_uv=False)[..., -1]
        return np.sqrt(np.maximum(eps**2 - smin**2, 0.0))
    raise RobmodError(f"unknown damping rule {rule!r} (fixed, manipulability, singular_value)")


def dls_inverse(J, lam) -> np.ndarray:
    """Damped pseudo-inverse (..., n, m): ``sum_i sigma_i / (sigma_i^2 + lambda^2) V_i U_i^T``
    ([6.17]); equal to ``(J^T J + lambda^2 I)^-1 J^T`` ([6.15]) and ``J^T (J J^T + lambda^2 I)^-1``
    ([6.16]), and to J+ for lambda = 0 (singular values at round-off level dropped)."""
    J = _J(J)
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    lam2 = np.asarray(lam, dtype=float)[..., None] ** 2
    den = s**2 + lam2
    tiny = s <= max(J.shape[-2:]) * np.finfo(float).eps * s[..., :1]
    g = np.where(tiny & (lam2 == 0), 0.0, s / np.where(den > 0, den, 1.0))
    return np.swapaxes(Vt, -1, -2) @ (g[..., :, None] * np.swapaxes(U, -1, -2))


@keyword_options()
def ikm_dls(J, xd, *, rule: str = _SINGULAR_VALUE, lam=0.003, w0=None, eps=None) -> np.ndarray:
    """Damped least-squares qd: minimum of ||xd - J qd||^2 + lambda^2 ||qd||^2 ([6.13])."""
    J = _J(J)
    lamb = damping_factor(J, rule=rule, lam=lam, w0=w0, eps=eps)
    return _mv(dls_inverse(J, lamb), _xd(J, xd))


# -- weighted pseudo-inverse ---------------------------------------------------------------------
def weighted_pinv(J, E) -> np.ndarray:
    """J_E+ = E^-1 J^T (J E^-1 J^T)^-1 ([6.30]) for J of full row rank, E symmetric positive
    definite (..., n, n) (e.g. the inertia matrix: minimum kinetic energy)."""
    J = _J(J)
    E = np.asarray(E, dtype=float)
    batch = np.broadcast_shapes(E.shape[:-2], J.shape[:-2])
    J = np.broadcast_to(J, batch + J.shape[-2:])
    X = np.linalg.solve(np.broadcast_to(E, batch + E.shape[-2:]), np.swapaxes(J, -1, -2))
    A = J @ X  # J E^-1 J^T
    return np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(X, -1, -2)), -1, -2)


def ikm_weighted(J, xd, E) -> np.ndarray:
    """qd = J_E+ xd ([6.29]): the solution of J qd = xd with the least qd^T E qd ([6.28])."""
    J = _J(J)
    return _mv(weighted_pinv(J, E), _xd(J, xd))


# -- null-space optimization ----------------------------------------------------------------------
@keyword_options()
def ikm_null_space(J, xd, grad, alpha, *, rtol=None) -> np.ndarray:
    """qd = J+ xd + alpha (I - J+ J) grad ([6.32]); alpha < 0 decreases phi, > 0 increases it."""
    grad = finite_array("grad", grad, shape_text="the gradient of the criterion (..., n)")
    alpha = finite_array("alpha", alpha, shape_text="a number (the step on the gradient)")
    return ikm_pinv(J, xd, alpha * grad, rtol=rtol)


@keyword_options()
def numerical_gradient(phi: Callable, q, *, h: float = 1e-6) -> np.ndarray:
    """Central-difference gradient (..., n) of a batched scalar function phi: (..., n) -> (...)."""
    if not callable(phi):
        raise ArgumentError(f"phi must be a function of q, got {type(phi).__name__}")
    q = finite_array("q", q, shape_text="joint values (..., n)")
    if q.ndim == 0:
        raise ArgumentError("q must be joint values (..., n), got a number")
    n = q.shape[-1]
    steps = h * np.eye(n)
    qq = np.concatenate([q[..., None, :] + steps, q[..., None, :] - steps], axis=-2)
    v = np.asarray(phi(qq))
    return (v[..., :n] - v[..., n:]) / (2 * h)


@dataclass(frozen=True)
class JointLimitCriterion:
    """Distance to the joint limits ([6.34]-[6.39]), to be minimized (alpha < 0).

    With ``qmoy = (qmax + qmin)/2`` [6.34], ``dq = qmax - qmin`` [6.35] and
    ``y = (q - qmoy)/dq``: ``p = 2`` gives the quadratic criterion
    ``phi = sum y_i^2`` [6.36] (gradient ``2 (q_i - qmoy_i)/dq_i^2``, [6.37]);
    ``p > 2`` the p-norm ``phi = (sum |y_i|^p)^(1/p)`` [6.39] (normalized by dq
    as in [6.38]; p = 6 is Khalil & Dombre's approximation of max |y_i| [6.38]).
    ``qmoy`` may be overridden (Khalil & Dombre's note: move it off a singular configuration).
    """

    qmin: Any
    qmax: Any
    p: float = 2
    qmoy: Any = None

    @classmethod
    def from_robot(cls, robot, p: float = 2) -> "JointLimitCriterion":
        """From the numeric limits of the robot's joints (every joint needs qmin and qmax)."""
        lo, hi = [], []
        for k in robot.joints:
            lim = robot.link(k).limits if k <= robot.n_links else None
            try:
                lo.append(float(lim.qmin))
                hi.append(float(lim.qmax))
            except (AttributeError, TypeError) as exc:
                raise RobmodError(f"joint {k} of {robot.name!r} has no numeric limits") from exc
        return cls(np.array(lo), np.array(hi), p)

    def _y(self, q):
        lo, hi = np.asarray(self.qmin, float), np.asarray(self.qmax, float)
        mid = (hi + lo) / 2 if self.qmoy is None else np.asarray(self.qmoy, float)
        return (np.asarray(q, dtype=float) - mid) / (hi - lo), hi - lo

    def value(self, q) -> np.ndarray:
        y, _ = self._y(q)
        if self.p == 2:
            return np.sum(y**2, axis=-1)
        return np.sum(np.abs(y) ** self.p, axis=-1) ** (1.0 / self.p)

    def gradient(self, q) -> np.ndarray:
        y, dq = self._y(q)
        if self.p == 2:
            return 2 * y / dq
        norm = np.sum(np.abs(y) ** self.p, axis=-1, keepdims=True) ** (1.0 / self.p)
        safe = np.where(norm > 0, norm, 1.0)
        return np.abs(y) ** (self.p - 1) * np.sign(y) / safe ** (self.p - 1) / dq


@dataclass(frozen=True)
class ManipulabilityCriterion:
    """phi(q) = sqrt(det(J J^T)) ([6.40]) of a task Jacobian, to be maximized (alpha > 0).

    The gradient is a central difference of w (one batched Jacobian call).
    """

    robot: Any
    j: Any = None
    i: Any = 0
    tool: Any = None
    rows: Any = None
    h: float = 1e-6

    def value(self, q) -> np.ndarray:
        J = task_rows_jacobian(self.robot, q, j=self.j, i=self.i, tool=self.tool,
                               rows=self.rows)
        return manipulability(J)

    def gradient(self, q) -> np.ndarray:
        return numerical_gradient(self.value, q, h=self.h)


# -- task priority and extended Jacobian ---------------------------------------------------------
@keyword_options()
def ikm_task_priority(J1, xd1, J2, xd2, z2=None, *, rtol=None, tol3=1e-10,
                      lam3=0.0) -> np.ndarray:
    """Two tasks with priority (Nakamura, [6.45]-[6.48])::

        qd = J1+ xd1 + (I - J1+ J1) { J3+ [xd2 - J2 J1+ xd1] + (I - J3+ J3) z2 },
        J3 = J2 (I - J1+ J1)

    Task 1 is met exactly when xd1 is in R(J1); task 2 in the least-squares
    sense among the solutions of task 1.  The singular values of J3 below
    ``tol3 * sigma_max(J2)`` are zero (J3 carries the round-off of the
    projector in the directions of R(J1^T): relative to sigma_max(J3) they
    could pass for rank and break task 1).  ``lam3 > 0`` uses a damped inverse
    of J3 instead (algorithmic singularities, where J3 loses rank and J2 not).
    """
    J1, J2 = _J(J1), _J(J2)
    n = J1.shape[-1]
    J1p = pinv(J1, rtol=rtol)
    P1 = np.eye(n) - J1p @ J1
    J3 = J2 @ P1
    if lam3 == 0:
        s2 = np.linalg.svd(J2, compute_uv=False)[..., 0]
        s3 = np.linalg.svd(J3, compute_uv=False)[..., 0]
        J3p = np.linalg.pinv(J3, rtol=np.where(s3 > 0, tol3 * s2 / np.where(s3 > 0, s3, 1), 1))
    else:
        J3p = dls_inverse(J3, lam3)
    q1 = _mv(J1p, _xd(J1, xd1, "xd1"))
    inner = _mv(J3p, _xd(J2, xd2, "xd2") - _mv(J2, q1))
    if z2 is not None:
        inner = inner + _mv(np.eye(n) - J3p @ J3, np.asarray(z2, dtype=float))
    return q1 + _mv(P1, inner)


def ikm_extended(J, xd, Jh, xcd) -> np.ndarray:
    """Extended Jacobian ([6.23]-[6.25]): solve ``[J; Jh] qd = [xd; xcd]`` with Jh = dh/dq
    ((n - m) x n) and xcd = d h(q)/dt; fails at the artificial singularities of Ja."""
    J, Jh = _J(J), _J(Jh)
    batch = np.broadcast_shapes(J.shape[:-2], Jh.shape[:-2])
    Ja = np.concatenate([np.broadcast_to(J, batch + J.shape[-2:]),
                         np.broadcast_to(Jh, batch + Jh.shape[-2:])], axis=-2)
    if Ja.shape[-1] != Ja.shape[-2]:
        raise RobmodError(f"the extended Jacobian must be square, got {Ja.shape[-2:]}")
    rhs = np.concatenate([_xd(J, xd), _xd(Jh, xcd, "xcd")], axis=-1)
    try:
        return np.linalg.solve(Ja, rhs[..., None])[..., 0]
    except np.linalg.LinAlgError as exc:
        raise RobmodError("the extended Jacobian is singular (artificial singularity)") from exc


# -- Greville's recursive pseudo-inverse (App. 4) -------------------------------------------------
@keyword_options()
def greville_pinv(W, *, steps: list | None = None) -> sp.Matrix:
    """Exact pseudo-inverse by Greville's column recursion ([A4.18]-[A4.23]).

    ``W`` is converted to a SymPy matrix (numbers become exact rationals);
    for k = 2..n, with ``W_k = [W_k-1 : w_k]``::

        d_k = W_k-1+ w_k,  c_k = w_k - W_k-1 d_k,
        b_k = c_k+ = (c_k^T c_k)^-1 c_k^T                  if c_k != 0
            = (1 + d_k^T d_k)^-1 d_k^T W_k-1+              if c_k = 0
        W_k+ = [W_k-1+ - d_k b_k ; b_k]

    starting from ``W_1+ = (w_1^T w_1)^-1 w_1^T`` (0^T for w_1 = 0).  ``steps``
    (a list) receives ``(k, d_k, c_k, b_k)`` (k from 1) for inspection.
    No rank decision is needed, which is why it is kept for exact arithmetic;
    numerically, :func:`pinv` (SVD) is used.
    """
    try:
        W = sp.Matrix(W).applyfunc(sp.nsimplify)
    except (TypeError, ValueError, sp.SympifyError) as e:
        raise ArgumentError(f"greville_pinv takes a matrix (rows of numbers or expressions), "
                            f"got {type(W).__name__}: {e}") from None
    if W.rows == 0 or W.cols == 0:
        raise ArgumentError(f"greville_pinv takes a non-empty matrix, got shape {W.shape}")
    w1 = W[:, 0]
    n1 = (w1.T * w1)[0]
    Wp = sp.zeros(1, W.rows) if n1 == 0 else w1.T / n1
    for k in range(1, W.cols):
        wk = W[:, k]
        d = Wp * wk
        c = (wk - W[:, :k] * d).applyfunc(sp.simplify)
        if any(x != 0 for x in c):
            b = c.T / (c.T * c)[0]
        else:
            b = d.T * Wp / (1 + (d.T * d)[0])
        if steps is not None:
            steps.append((k + 1, d, c, b))
        Wp = (Wp - d * b).col_join(b).applyfunc(sp.simplify)
    return Wp


# -- solvers for resolved-rate control: solver(J, xd, q) -> qd ------------------------------------
@dataclass(frozen=True)
class PseudoInverse:
    """qd = J+ xd ([6.11], [6.27])."""

    rtol: Any = None

    def __call__(self, J, xd, q):
        return ikm_pinv(J, xd, rtol=self.rtol)


@dataclass(frozen=True)
class DampedLeastSquares:
    """Damped least squares with a damping rule of :func:`damping_factor`."""

    rule: str = _SINGULAR_VALUE
    lam: float = 0.003
    w0: Any = None
    eps: Any = None

    def __call__(self, J, xd, q):
        return ikm_dls(J, xd, rule=self.rule, lam=self.lam, w0=self.w0, eps=self.eps)


@dataclass(frozen=True)
class WeightedPseudoInverse:
    """qd = J_E+ xd ([6.29]); ``E`` a matrix or a function of q (e.g. the inertia matrix)."""

    E: Any

    def __call__(self, J, xd, q):
        E = self.E(q) if callable(self.E) else self.E
        return ikm_weighted(J, xd, E)


@dataclass(frozen=True)
class NullSpaceOptimization:
    """qd = J+ xd + alpha (I - J+ J) grad(phi)(q) ([6.32]).

    ``criterion``: an object with ``gradient(q)`` (:class:`JointLimitCriterion`,
    :class:`ManipulabilityCriterion`) or a function q -> gradient.
    """

    criterion: Any
    alpha: float

    def __call__(self, J, xd, q):
        g = self.criterion.gradient(q) if hasattr(self.criterion, "gradient") else \
            self.criterion(q)
        return ikm_null_space(J, xd, g, self.alpha)


@dataclass(frozen=True)
class TaskPriority:
    """The resolved-rate task is task 1; ``secondary(q) -> (J2, xd2)`` gives task 2 ([6.48])."""

    secondary: Callable
    lam3: float = 0.0

    def __call__(self, J, xd, q):
        J2, xd2 = self.secondary(q)
        return ikm_task_priority(J, xd, J2, xd2, lam3=self.lam3)


@dataclass(frozen=True)
class ExtendedJacobian:
    """``constraint(q) -> (Jh, xcd)`` completes the task into a square system ([6.25])."""

    constraint: Callable

    def __call__(self, J, xd, q):
        Jh, xcd = self.constraint(q)
        return ikm_extended(J, xd, Jh, xcd)


__all__ = ["pinv", "null_space_projector", "ikm_pinv", "damping_factor", "dls_inverse", "ikm_dls",
           "weighted_pinv", "ikm_weighted", "ikm_null_space", "numerical_gradient",
           "JointLimitCriterion", "ManipulabilityCriterion", "ikm_task_priority", "ikm_extended",
           "greville_pinv", "PseudoInverse", "DampedLeastSquares", "WeightedPseudoInverse",
           "NullSpaceOptimization", "TaskPriority", "ExtendedJacobian"]
