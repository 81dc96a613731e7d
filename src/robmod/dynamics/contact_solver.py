"""The unilateral contact problem with Coulomb friction, and its solver.

At a time step of the simulation (:mod:`.time_stepping`) the contacts' velocities after the
step are affine in the impulses Lambda of the contacts (Moreau 1988; Stewart & Trinkle 1996;
Featherstone 2008, ch. 11)::

    v = G Lambda + c,      G = J M^-1 J^T (the Delassus operator), c = J (qd + dt a_free)

with each contact's three rows in its own frame (two tangents, then the normal n of the
surface it touches).  Coulomb's law for every contact i is the nonlinear complementarity
problem (NCP)::

    Lambda_i in K_i = {|Lambda_t| <= mu_i Lambda_n}           the friction cone
    0 <= Lambda_n  _|_  v_n >= 0                              no penetration, no pull
    v_t = 0 (sticking) or Lambda_t = -mu Lambda_n v_t / |v_t| (sliding, maximal dissipation)

The solver is projected Gauss-Seidel (PGS) on the Delassus operator, per contact: the normal
impulse from its row (projected on Lambda_n >= 0), then the tangential one by a step of the
size of the 2x2 tangential block's largest eigenvalue (projected on the disk of radius mu
Lambda_n: a fixed point on the edge slides against the friction), contact after contact, the
others' impulses fixed, until the velocities stop changing (Jean & Moreau 1992; Pinocchio 4's
``PGSConstraintSolver``; Le Lidec et al. 2024, who compare it with ADMM).  Why this one:

* it solves the NCP itself with the exact (not linearized) cone: no spurious separation
  while sliding, as the convex relaxation of Anitescu and MuJoCo (Todorov 2014) gives (a
  sliding box hovers by mu |v_t| dt per step), and a box at rest stays exactly at rest;
* each sweep costs O(m^2) on a dense G and nothing to factor: G may be singular (a sole's
  four corners on the ground: 12 rows of rank 6), where a factorization would need a
  regularization;
* warm-started with the previous step's impulses, a standing or walking robot at 1 kHz needs
  a few sweeps (the contacts change little between steps).  Its weakness, slow convergence
  on very ill-conditioned G (large mass ratios), is that of every first-order method; the
  result reports its residual.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..description.arguments import finite_array, keyword_options
from ..errors import ArgumentError
from .contact_kernel import pgs_kernel

__all__ = ["solve_contacts", "ContactSolution"]


class ContactSolution(NamedTuple):
    """``impulses`` (k, 3) (tangents then normal, per contact), ``velocity`` (k, 3) after the
    step, ``iterations`` (sweeps), ``residual`` (the largest violation of the NCP, in
    velocity units: penetration, complementarity, the friction's direction)."""

    impulses: np.ndarray
    velocity: np.ndarray
    iterations: int
    residual: float


def ncp_residual(Lam, v, mu) -> float:
    """The largest violation of Coulomb's NCP of impulses ``Lam`` (k, 3) and velocities ``v``
    (k, 3) (tangents then normal): a negative normal velocity, a normal velocity where the
    contact pushes, a sliding velocity that the friction does not oppose at full force."""
    if Lam.size == 0:
        return 0.0
    n, vn = Lam[:, 2], v[:, 2]
    scale = np.maximum(np.abs(n), 1e-300)
    comp = np.abs(np.minimum(vn, 0.0)).max()
    comp = max(comp, np.max(np.where(n > 1e-12 * scale.max(), np.abs(vn), 0.0)))
    vt = np.linalg.norm(v[:, :2], axis=1)
    # sliding: Lambda_t = -mu Lambda_n v_t / |v_t|; the residual, in velocity units, is |v_t|
    # times the misalignment
    lt = Lam[:, :2]
    want = -mu * n
    mis = np.linalg.norm(lt * vt[:, None] - want[:, None] * v[:, :2], axis=1) / np.maximum(
        np.abs(want) + np.linalg.norm(lt, axis=1), 1e-300)
    return float(max(comp, np.max(np.where(vt > 0, mis, 0.0))))


@keyword_options()
def solve_contacts(G, c, mu, *, impulses=None, tol: float = 1e-10,
                   max_iter: int = 500) -> ContactSolution:
    """Coulomb's contact problem v = G Lambda + c (module doc) by projected Gauss-Seidel:
    ``G`` (3k, 3k) the Delassus operator in the contact frames (tangent, tangent, normal per
    contact), ``c`` (3k,) the free velocities, ``mu`` (k,) the friction coefficients;
    ``impulses`` (k, 3): a warm start (default 0); stops when a sweep changes the velocities
    by less than ``tol`` (relative to the largest) or after ``max_iter`` sweeps."""
    G = finite_array("G", G, shape_text="a square (3k, 3k) matrix")
    c = finite_array("c", c, shape_text="a vector of 3k values")
    mu = np.atleast_1d(finite_array("mu", mu, shape_text="k friction coefficients"))
    k = mu.shape[0]
    if G.shape != (3 * k, 3 * k) or c.shape != (3 * k,) or mu.ndim != 1 or np.any(mu < 0):
        raise ArgumentError(f"solve_contacts: G must be (3k, 3k), c (3k,) and mu (k,) >= 0 "
                            f"for k contacts, got shapes {G.shape}, {c.shape}, {mu.shape}")
    Lam = np.zeros((k, 3)) if impulses is None else np.array(
        finite_array("impulses", impulses), dtype=float).reshape(k, 3)
    if k == 0:
        return ContactSolution(Lam, np.zeros((0, 3)), 0, 0.0)
    Lam[:, 2] = np.maximum(Lam[:, 2], 0.0)
    r = np.linalg.norm(Lam[:, :2], axis=1)
    over = r > mu * Lam[:, 2]
    Lam[over, :2] *= (mu[over] * Lam[over, 2] / r[over])[:, None]
    flat = Lam.reshape(-1)
    v = G @ flat + c
    blocks = [G[3 * i:3 * i + 3, 3 * i:3 * i + 3] for i in range(k)]
    cols = [G[:, 3 * i:3 * i + 3] for i in range(k)]
    # the tangential step: 1 / (the largest eigenvalue of the 2x2 tangential block), a
    # scalar, so that a fixed point on the cone's edge slides against the friction
    # (Lambda_t parallel to -v_t: maximal dissipation, Coulomb's law itself)
    step_t = []
    for B in blocks:
        a, b, d = B[0, 0], 0.5 * (B[0, 1] + B[1, 0]), B[1, 1]
        lam = 0.5 * (a + d) + np.hypot(0.5 * (a - d), b)
        step_t.append(1.0 / lam if lam > 0 else 0.0)
    kernel = pgs_kernel()
    if kernel is not None:          # the same sweeps in C
        flat, v, it = kernel(G, c, mu, flat, np.array(step_t), float(tol), int(max_iter))
        V = v.reshape(k, 3)
        return ContactSolution(flat.reshape(k, 3), V, it, ncp_residual(flat.reshape(k, 3), V,
                                                                        mu))
    scale = max(np.abs(c).max(), 1e-12)
    it = 0
    for it in range(1, max_iter + 1):
        change = 0.0
        for i in range(k):
            B, old = blocks[i], flat[3 * i:3 * i + 3].copy()
            vi = v[3 * i:3 * i + 3]
            new = old.copy()
            if B[2, 2] > 0:
                new[2] = max(0.0, old[2] - vi[2] / B[2, 2])
            # the tangential velocity with the new normal impulse, then its 2x2 solve
            vt = vi[:2] + B[:2, 2] * (new[2] - old[2])
            lim = mu[i] * new[2]
            if lim <= 0:
                new[:2] = 0.0
            else:
                t = old[:2] - step_t[i] * vt
                nt = np.hypot(t[0], t[1])
                new[:2] = t if nt <= lim else t * (lim / nt)
            d = new - old
            if d.any():
                flat[3 * i:3 * i + 3] = new
                dv = cols[i] @ d
                v += dv
                change = max(change, np.abs(dv).max())
        if change <= tol * scale:
            break
    V = v.reshape(k, 3)
    return ContactSolution(flat.reshape(k, 3).copy(), V, it, ncp_residual(
        flat.reshape(k, 3), V, mu))
