"""Reachability analysis of a discretised path (TOPP-RA, Pham & Pham 2018).

On a grid s_0 < ... < s_N the state is x_i = ṡ_i² and the control u_i = s̈_i, constant on
[s_i, s_i+1], so that x_i+1 = x_i + 2 Δ_i u_i (Δ_i = s_i+1 - s_i).  At each grid point the
limits are p two-sided linear constraints in (u, x) (collocation) and a bound on x::

    lo_ik <= a_ik u + b_ik x <= hi_ik   (k = 1..p),      0 <= x <= xmax_i

* the *static* set X_i: the x for which some u satisfies the constraints at s_i (the
  projection of a polygon, by Fourier-Motzkin elimination of u over all pairs of rows);
* the *controllable* sets K_i = [x_lo, x_hi], backward from K_N = {x_end}: the x at s_i
  from which some admissible u leads into K_i+1.  With y = x + 2 Δ u (the next state) a
  row reads a y + (2 Δ b - a) x in [2 Δ lo, 2 Δ hi]; each one-sided row, taken at its most
  favourable end of K_i+1 (y = K_lo or K_hi by the sign of a), bounds x on one side, and
  K_i is X_i cut by these 2p half-lines (the pairs of the elimination of y);
* the forward pass: from x_0, the greatest u_i admissible at (s_i, x_i) that keeps x_i+1
  in K_i+1 (greedy; time-optimal on the grid, Pham & Pham 2018).

Each step is a two-variable linear programme solved in closed form: the coefficients of
every half-line are computed for all grid points at once (NumPy), the sequential passes
then cost one small matrix-vector product and one reduction per grid point.
"""
from __future__ import annotations

import numpy as np

from ..errors import RobmodError

#: cap on x where nothing bounds it (a point where the path does not move): keeps the
#: arithmetic finite (a velocity of 1e15 per unit of s)
_XCAP = 1e30


class Infeasible(RobmodError):
    """No admissible motion.  ``kind``: 'static' (no velocity at all is admissible at grid
    point ``stage``, e.g. gravity alone beyond a torque limit), 'dynamic' (the controllable
    set at ``stage`` is empty), 'end' (the end state is not admissible), 'start' (the start
    state is not controllable: ``K`` holds the controllable sets); ``rows`` the constraints
    in conflict (indices)."""

    def __init__(self, message, kind, stage, rows=(), K=None):
        super().__init__(message)
        self.kind, self.stage, self.rows, self.K = kind, stage, tuple(rows), K


def _tolerance(*xs) -> float:
    return 1e-9 * max([1e-12] + [abs(x) for x in xs if np.isfinite(x)])


def _static_sets(a, b, lo, hi, xmax):
    """(X_lo, X_hi, ok) of every grid point: the projection on x of the constraints,
    ``ok`` False where it is empty.  Arrays (N+1, p) and (N+1,)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        move = a != 0
        # rows with a != 0: m_L - beta x <= u <= m_U - beta x
        beta = np.where(move, b / np.where(move, a, 1.0), 0.0)
        m_up = np.where(move, np.where(a > 0, hi, lo) / np.where(move, a, 1.0), np.inf)
        m_low = np.where(move, np.where(a > 0, lo, hi) / np.where(move, a, 1.0), -np.inf)
        # pairs (lower row l, upper row k): (beta_k - beta_l) x <= m_U,k - m_L,l
        coef = beta[:, None, :] - beta[:, :, None]            # [i, l, k]
        rhs = m_up[:, None, :] - m_low[:, :, None]
        ratio = rhs / coef
        upper = np.where(coef > 0, ratio, np.inf).min(axis=(1, 2), initial=np.inf)
        lower = np.where(coef < 0, ratio, -np.inf).max(axis=(1, 2), initial=-np.inf)
        ok = ~np.any((coef == 0) & (rhs < 0), axis=(1, 2))
        # rows with a = 0: lo <= b x <= hi bounds x alone
        fixed = ~move
        xb_hi = np.where(b > 0, hi / b, lo / b)
        xb_lo = np.where(b > 0, lo / b, hi / b)
        upper = np.minimum(upper, np.where(fixed & (b != 0), xb_hi, np.inf).min(axis=1,
                                                                              initial=np.inf))
        lower = np.maximum(lower, np.where(fixed & (b != 0), xb_lo, -np.inf).max(axis=1,
                                                                                initial=-np.inf))
        ok &= ~np.any(fixed & (b == 0) & ((lo > 0) | (hi < 0)), axis=1)
    x_hi = np.minimum(np.minimum(upper, xmax), _XCAP)
    x_lo = np.maximum(lower, 0.0)
    ok &= x_lo <= x_hi + 1e-9 * np.maximum(np.abs(x_hi), 1e-12)
    return x_lo, np.maximum(x_hi, x_lo), ok


def _at_rest_conflict(a, b, lo, hi) -> tuple:
    """The rows that cannot hold together at x = 0 (at rest) at one grid point: one row
    that no acceleration affects, or the pair (lower bound on u, upper bound on u)."""
    for k in range(len(a)):
        if a[k] == 0 and not (lo[k] <= 0 <= hi[k]):
            return (k,)
    with np.errstate(divide="ignore", invalid="ignore"):
        u_up = np.where(a != 0, np.where(a > 0, hi, lo) / a, np.inf)
        u_low = np.where(a != 0, np.where(a > 0, lo, hi) / a, -np.inf)
    return (int(np.argmax(u_low)), int(np.argmin(u_up)))


def _backward_coefficients(a, b, lo, hi, delta):
    """G (N, 2, p, 3): at stage i < N, row r, the bound on x given K_i+1 = [K_lo, K_hi] is
    G[i, 0, r] . (1, K_lo, K_hi) from above and -G[i, 1, r] . (1, K_lo, K_hi) from below."""
    a, b, lo, hi = a[:-1], b[:-1], lo[:-1], hi[:-1]
    d = delta[:, None]
    e = 2 * d * b - a
    # e = 0: the row does not depend on x; a tiny e of the same sign convention keeps the
    # feasibility test (the bound goes to -inf or +inf as it should)
    tiny = 1e-13 * (np.abs(a) + 2 * d * np.abs(b))
    e = np.where(e == 0, tiny, e)
    ap, am = np.maximum(a, 0.0) / e, np.minimum(a, 0.0) / e
    H, L = 2 * d * hi / e, 2 * d * lo / e
    pos = e > 0
    G = np.empty(a.shape[:1] + (2,) + a.shape[1:] + (3,))
    # upper bound on x: e > 0: H - ap K_lo - am K_hi; e < 0: L - am K_lo - ap K_hi
    G[:, 0, :, 0] = np.where(pos, H, L)
    G[:, 0, :, 1] = -np.where(pos, ap, am)
    G[:, 0, :, 2] = -np.where(pos, am, ap)
    # lower bound on x (stored negated so that one min gives both):
    # e > 0: L - am K_lo - ap K_hi; e < 0: H - ap K_lo - am K_hi
    G[:, 1, :, 0] = -np.where(pos, L, H)
    G[:, 1, :, 1] = np.where(pos, am, ap)
    G[:, 1, :, 2] = np.where(pos, ap, am)
    still = a == 0                 # rows the control does not enter: in X_i already
    G[:, 0][still] = (np.inf, 0.0, 0.0)
    G[:, 1][still] = (np.inf, 0.0, 0.0)
    return G


def _forward_coefficients(a, b, lo, hi):
    """F (N, p, 2): the greatest admissible u at stage i and state x is min_r F[i, r] .
    (1, -x)."""
    a, b, lo, hi = a[:-1], b[:-1], lo[:-1], hi[:-1]
    move = a != 0
    safe = np.where(move, a, 1.0)
    F = np.empty(a.shape + (2,))
    F[..., 0] = np.where(move, np.where(a > 0, hi, lo) / safe, np.inf)
    F[..., 1] = np.where(move, b / safe, 0.0)
    return F


def _controllable_sets(G, x_lo, x_hi, x_end):
    """K (N+1, 2) backward from K_N = {x_end}; raises :class:`Infeasible` at the first
    (from the end) grid point whose controllable set is empty."""
    N = G.shape[0]
    K = np.empty((N + 1, 2))
    K[N] = x_end
    lo_s, hi_s = x_lo.tolist(), x_hi.tolist()
    klo = khi = float(x_end)
    v = np.empty(3)
    v[0] = 1.0
    for i in range(N - 1, -1, -1):
        v[1], v[2] = klo, khi
        m_up, m_low = (G[i] @ v).min(axis=1).tolist()
        up = min(hi_s[i], m_up)
        low = max(lo_s[i], -m_low)
        if low > up:
            if low - up > _tolerance(low, up):
                w = G[i] @ v
                rows = (int(np.argmin(w[0])), int(np.argmin(w[1])))
                raise Infeasible(f"empty controllable set at grid point {i}", "dynamic", i,
                                 rows)
            low = up
        K[i] = low, up
        klo, khi = low, up
    return K


def _forward_pass(F, K, delta, x_start):
    """(x (N+1,), u (N,)): the greedy time-optimal states and controls from x_start."""
    N = F.shape[0]
    if not (K[0, 0] - _tolerance(K[0, 0]) <= x_start <= K[0, 1] + _tolerance(K[0, 1])):
        raise Infeasible(f"start state {x_start} outside the controllable set "
                         f"[{K[0, 0]}, {K[0, 1]}]", "start", 0, K=K)
    xs = np.empty(N + 1)
    us = np.empty(N)
    x = min(max(float(x_start), K[0, 0]), K[0, 1])
    xs[0] = x
    klo, khi = K[1:, 0].tolist(), K[1:, 1].tolist()
    dl = delta.tolist()
    v = np.empty(2)
    v[0] = 1.0
    for i in range(N):
        v[1] = -x
        u = float((F[i] @ v).min())
        d2 = 2 * dl[i]
        nxt = min(x + d2 * u, khi[i])
        nxt = max(nxt, klo[i], 0.0)
        us[i] = (nxt - x) / d2
        xs[i + 1] = x = nxt
    return xs, us


def solve(a, b, lo, hi, xmax, delta, x_start, x_end, compiled: bool = True):
    """(x (N+1,), u (N,), K (N+1, 2)): the time-optimal states and controls from x_start to
    x_end, by the compiled kernel (:mod:`~robmod.trajectory.kernel`) when available and
    ``compiled``, else by the NumPy passes above; raises :class:`Infeasible`."""
    from .kernel import solve as compiled_solve

    res = compiled_solve(a, b, lo, hi, xmax, delta, x_start, x_end) if compiled else None
    if res is None:
        x_lo, x_hi, ok = _static_sets(a, b, lo, hi, xmax)
    else:
        status, X, ok, K, xs, us, info = res
        x_lo, x_hi = X[:, 0], X[:, 1]
    if not np.all(ok):
        i = int(np.flatnonzero(~ok)[0])
        raise Infeasible(f"no admissible velocity at grid point {i}", "static", i,
                         _at_rest_conflict(a[i], b[i], lo[i], hi[i]))
    if not (x_lo[-1] <= x_end <= x_hi[-1] * (1 + 1e-9)):
        raise Infeasible("end state not admissible", "end", len(x_lo) - 1,
                         K=np.column_stack([x_lo, x_hi]))
    if res is None:
        K = _controllable_sets(_backward_coefficients(a, b, lo, hi, delta), x_lo, x_hi, x_end)
        xs, us = _forward_pass(_forward_coefficients(a, b, lo, hi), K, delta, x_start)
        return xs, us, K
    if status == 2:
        raise Infeasible(f"empty controllable set at grid point {info[2]}", "dynamic",
                         int(info[2]), (int(info[0]), int(info[1])))
    if status == 4:
        raise Infeasible("start state outside the controllable set", "start", 0, K=K)
    return xs, us, K


__all__ = []
