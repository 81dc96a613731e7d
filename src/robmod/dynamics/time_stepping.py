"""A time step with unilateral contacts and Coulomb friction (time stepping).

Contacts make the velocities jump (impacts) and switch on and off: an ODE solver that
integrates accelerations would have to find every switching time.  Time stepping (Moreau
1988; Stewart & Trinkle 1996; Anitescu & Potra 1997; MuJoCo, Bullet and Pinocchio's
simulators) integrates the velocities instead, with impulses: over a step dt, from (q, qd),

    qd+ = qd + dt a_free + M^-1 J^T Lambda       (a_free: the motion without contact)
    q+  = q (+) dt qd+                           (the exponential of SE(3) for a floating base)

where Lambda, the contacts' impulses (forces times dt), solves Coulomb's problem on the
contacts' velocities after the step, v = J qd+ = G Lambda + J (qd + dt a_free)
(:mod:`.contact_solver`): no penetration, no pull, no slip inside the friction cone, sliding
against friction on its edge.  An impact is the same step: the normal velocity goes to zero
(a plastic impact, which dissipates energy).  The method is of first order but does not
gain energy at contacts and is stable at 1 kHz for legged robots.

Which points touch: each contact point (a sole's vertices) is tested against every obstacle of
the environment (:mod:`robmod.description.contacts`); a point closer than ``margin`` is a
contact this step, in the frame of the obstacle's normal n there.  Its normal velocity after
the step must bring it at most to the surface (v_n >= -d / dt for a distance d >= 0: it
lands exactly, with no penetration however fast it comes), and a penetration d < 0 (from
rounding or a start below the surface) is taken back at the rate ``stabilization`` x d / dt
per step (Baumgarte's idea at the velocity level).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..description.arguments import finite_array, keyword_options, positive_scalar
from ..description.base import moving_base
from ..description.contacts import Plane, contact_list, tangent_basis
from ..errors import ArgumentError, RobmodError
from ..geometry.floating import configuration_step
from ..kinematics.contacts import checked_contacts
from .contact_problem import delassus, delassus_flat
from .contact_kernel import frame_kernel, plane_kernel
from .contact_solver import ContactSolution, ncp_residual, solve_contacts

__all__ = ["contact_step", "ContactStep", "unilateral_points", "ContactStepper"]


class ContactStep(NamedTuple):
    """The state after a step: ``q``, ``qd``; ``forces`` (k, 3): the world's force on each
    contact point in the world frame (mean over the step, zero off contact); ``active`` (k,)
    the points in contact; ``iterations`` and ``residual`` of the contact solver."""

    q: np.ndarray
    qd: np.ndarray
    forces: np.ndarray
    active: np.ndarray
    iterations: int
    residual: float


def unilateral_points(contacts) -> tuple:
    """The contact points of the unilateral model of ``contacts`` (a sole: its vertices)."""
    return tuple(p for c in contact_list(contacts) for p in c.points())


def _environment(environment) -> tuple:
    """The obstacles given (one, or a sequence) as a tuple, else an ArgumentError."""
    env = (environment,) if hasattr(environment, "distance") else tuple(environment)
    if not env or not all(hasattr(o, "distance") for o in env):
        raise ArgumentError("environment must be an obstacle (Plane, Box) or a sequence of "
                            f"them, got {environment!r}")
    return env


def nearest_surface(environment, points):
    """(distances (k,), normals (k, 3)) of the points (k, 3) to the nearest obstacle."""
    best_d, best_n = None, None
    for obstacle in environment:
        d, n = obstacle.distance(points)
        if best_d is None:
            best_d, best_n = d, np.array(n)
        else:
            closer = d < best_d
            best_d = np.where(closer, d, best_d)
            best_n = np.where(closer[:, None], n, best_n)
    return best_d, best_n


@keyword_options()
def contact_step(robot, q, qd, tau, contacts, *, dt=1e-3, environment=(Plane(),),
                 margin: float = 2e-3, stabilization: float = 0.2, warm_start=None,
                 tol: float = 1e-10, max_iter: int = 500) -> ContactStep:
    """One step of ``dt`` (default 1 ms) of a robot under the joint torques tau (held over
    the step) with unilateral ``contacts`` (points and soles, :mod:`robmod.description.
    contacts`) against the ``environment`` (obstacles; the ground z = 0 by default): a
    :class:`ContactStep` (module doc).  ``warm_start`` (k, 3): the previous step's forces (the
    solver starts from them); ``tol``, ``max_iter``: those of
    :func:`~robmod.dynamics.solve_contacts`."""
    dt = positive_scalar("dt", dt)
    margin = positive_scalar("margin", margin, allow_zero=True)
    points = unilateral_points(contacts)
    warm = None if warm_start is None else np.asarray(warm_start, dtype=float).reshape(
        len(points), 3)
    return _step(robot, q, qd, tau, points, np.array([p.friction for p in points]), dt,
                 _environment(environment), margin, stabilization, warm, tol, max_iter, True,
                 moving_base(robot))


def _step(robot, q, qd, tau, points, mu, dt, env, margin, stabilization, warm, tol, max_iter,
          report, floating):
    """:func:`contact_step` of checked arguments (``mu`` the points' friction coefficients,
    ``floating`` whether the base moves); ``report``: the solver's residual too (else 0)."""
    kernel = None if report or len(env) != 1 or type(env[0]) is not Plane else plane_kernel()
    if kernel is not None:      # one plane: the whole step in C from the Delassus model
        flat = delassus_flat(robot, q, qd, tau, points)
        if flat.ndim == 1:
            q1, v, f, active, it = kernel(
                flat, q, qd, env[0].normal, env[0].point, mu,
                np.zeros(3 * len(points)) if warm is None else warm, int(floating), float(dt),
                float(margin), float(stabilization), float(tol), int(max_iter))
            return ContactStep(q1, v, f.reshape(-1, 3), active, it, 0.0)
    P = delassus(robot, q, qd, tau, points)
    k = len(points)
    qd = np.asarray(qd, dtype=float)
    if len(env) == 1 and type(env[0]) is Plane:      # the ground: one normal for all
        normal = np.array(env[0].normal)
        d = (P.positions - env[0].point) @ normal
        n = np.broadcast_to(normal, P.positions.shape)
    else:
        d, n = nearest_surface(env, P.positions)
    active = d < margin
    forces = np.zeros((k, 3))
    if not active.any():
        v = qd + dt * P.a_free
        return ContactStep(advance(robot, q, v, dt, floating), v, forces, active, 0, 0.0)
    if active.all():
        idx = rows = slice(None)
    else:
        idx = np.flatnonzero(active)
        rows = (3 * idx[:, None] + np.arange(3)).ravel()
    lam, sol = frame_impulses(P.G[rows][:, rows], P.Jv[rows] + dt * P.Ja[rows], d[idx],
                              n[idx], mu[idx], dt, stabilization,
                              None if warm is None else warm[idx], tol, max_iter, report)
    v = qd + dt * P.a_free + P.minv_jt[:, rows] @ lam
    forces[idx] = lam.reshape(-1, 3) / dt
    return ContactStep(advance(robot, q, v, dt, floating), v, forces, active,
                       sol.iterations, sol.residual)


_FRAMES: dict = {}


def _frames(normals):
    """The contacts' frames (K, 3, 3) (:func:`~robmod.description.contacts.tangent_basis`)
    of unit ``normals`` (K, 3), kept for the normals seen last (a ground's are always the
    same)."""
    key = normals.tobytes()
    R = _FRAMES.get(key)
    if R is None:
        if len(_FRAMES) > 256:
            _FRAMES.clear()
        R = _FRAMES[key] = np.stack([tangent_basis(x) for x in normals])
    return R


def frame_impulses(G, c, d, normals, mu, dt, stabilization, warm, tol, max_iter,
                   report=True):
    """(the impulses (3K,) in the world frame, the :class:`ContactSolution`) of K active
    contacts whose velocities after the step are v = G Lambda + c (world frame, 3 rows each)
    at distances ``d`` (K,) from surfaces of unit ``normals`` (K, 3): Coulomb's problem in
    each contact's frame (tangents, normal), a point landing at most on the surface and a
    penetration taken back at ``stabilization`` x d / dt; ``warm``: the previous forces (K, 3)
    in the world frame, or None; ``report``: the solution's residual (else 0)."""
    frames = _frames(np.ascontiguousarray(normals, dtype=float))
    K = len(frames)
    kernel = frame_kernel()
    if kernel is not None:           # the whole of it in one C call
        lam_w, lam, v, it = kernel(G, c, frames, d, mu, np.zeros(3 * K) if warm is None
                                   else warm, float(dt), float(stabilization), float(tol),
                                   int(max_iter))
        lam, v = lam.reshape(K, 3), v.reshape(K, 3)
        return lam_w, ContactSolution(lam, v, it, ncp_residual(lam, v, mu) if report else 0.0)
    B = np.zeros((3 * K, 3 * K))
    for a, R in enumerate(frames):
        B[3 * a:3 * a + 3, 3 * a:3 * a + 3] = R
    G = B.T @ G @ B
    c = B.T @ c
    c[2::3] += np.where(d > 0, d, stabilization * d) / dt
    if warm is not None:            # the previous forces (world frame) in today's frames
        warm = np.stack([R.T @ f for R, f in zip(frames, warm * dt)])
    sol = solve_contacts(G, c, mu, impulses=warm, tol=tol, max_iter=max_iter)
    return B @ sol.impulses.reshape(-1), sol


def advance(robot, q, v, dt, floating=None):
    """q (+) dt v: the exponential of SE(3) for a floating base (q checked by the model);
    ``floating``: whether the robot's base moves (when the caller knows it)."""
    q = np.asarray(q, dtype=float)
    floating = moving_base(robot) if floating is None else floating
    return configuration_step(q, dt * v) if floating else q + dt * v


class ContactStepper:
    """The contacts of a simulation (:func:`robmod.control.simulate` with ``contacts=``): its
    :meth:`step` advances (q, qd) by dt under held torques (:func:`contact_step`), keeping the
    last forces for the next step's warm start and for the record."""

    @keyword_options()
    def __init__(self, robot, contacts, *, environment=(Plane(),), margin: float = 2e-3,
                 stabilization: float = 0.2):
        self.robot = robot
        self.points = checked_contacts(robot, unilateral_points(contacts))
        self.environment = _environment(environment)
        self.margin = positive_scalar("margin", margin, allow_zero=True)
        self.stabilization = positive_scalar("stabilization", stabilization, allow_zero=True)
        self.forces = np.zeros((len(self.points), 3))
        self.mu = np.array([p.friction for p in self.points])
        self._floating = moving_base(robot)

    def step(self, q, qd, tau, dt):
        """(q, qd) after dt (one run: q of one state)."""
        if np.ndim(q) != 1:
            raise ArgumentError("simulate with contacts runs one state at a time (x0 of one "
                                f"state), got a batch of shape {np.shape(q)[:-1]}")
        s = _step(self.robot, q, qd, tau, self.points, self.mu, dt, self.environment,
                  self.margin, self.stabilization, self.forces, 1e-10, 500, False,
                  self._floating)
        self.forces = s.forces
        return s.q, s.qd
