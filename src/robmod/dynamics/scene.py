"""Time stepping of a :class:`~robmod.description.Scene`: several robots in contact with one
another and with the fixed environment (a gripper holding a box).

The step is the one robot's (:mod:`.time_stepping`) over the scene's contacts.  Each robot r
gives its contact problem's terms (:mod:`.contact_problem`) for its contact points (3 rows
each) and for the frames that carry its solids (6 rows each: the frame origin's velocity and
the angular velocity), in its own frame 0; a contact c -- a point of robot a at x on a fixed
obstacle or on a solid of robot b -- has the velocity

    v_c = E_a,c v_a - E_b,c v_b,        E_a,c = R_a (the point's rows),
                                        E_b,c = [R_b, -hat(x - o) R_b] (the solid frame's)

(R the rotation of the robot's frame 0 in the world, o the solid frame's origin; both bodies'
velocities at the same point x, so that the impulses keep the scene's angular momentum): with
E_r stacking the contacts' maps on robot r's rows (the B side with its minus sign), the
velocities after the step are v = G Lambda + c with

    G = sum_r E_r G_r E_r^T,     c = sum_r E_r J_r (qd_r + dt a_free,r)

-- the Delassus operator of a contact between two bodies adds both bodies' terms -- and the
impulses Lambda (the world's, or robot b's, on robot a; robot b takes -Lambda) solve Coulomb's
problem as for one robot (:func:`~robmod.dynamics.solve_contacts`); then qd_r+ = qd_r + dt
a_free,r + M_r^-1 J_r^T E_r^T Lambda.  Every contact point is tested against the fixed
obstacles and against the other robots' solids; the nearest surface within ``margin`` is its
contact of the step.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import keyword_options, positive_scalar, require_numeric
from ..description.base import moving_base
from ..description.contacts import ContactSurface
from ..description.scene import Scene
from ..errors import ArgumentError
from ..kinematics.contacts import checked_contacts, contact_poses
from ..spatial import skew
from .contact_problem import delassus
from .time_stepping import advance, frame_impulses, nearest_surface, unilateral_points

__all__ = ["SceneStepper"]


def _placement(robot):
    """(R, p) of the robot's frame 0 in the world: Z for a fixed base, the identity for a
    floating one (its configuration holds its pose in the world)."""
    if moving_base(robot):
        return np.eye(3), np.zeros(3)
    Z = np.array(robot.Z, dtype=float)
    return Z[:3, :3], Z[:3, 3]


class _Body:
    """One robot of the scene: its contact points, its solids' frames (6D rows at their
    origins) and its placement."""

    def __init__(self, robot, contacts, solids, r):
        require_numeric(robot, "a scene's robots", scope="dynamics")
        self.robot = robot
        self.points = unilateral_points(contacts) if contacts else ()
        self.solids = solids
        self.frames = tuple(ContactSurface.rectangle(s.frame, 1e-3, 1e-3, name=f"solid{k}")
                            for k, s in enumerate(solids))
        self.rows = checked_contacts(robot, self.points + self.frames, f"scene robot {r}")
        self.R, self.p = _placement(robot)
        self.boxes = [(s.shape, np.array(s.shape.center), np.array(s.shape.rotation))
                      for s in solids]


class SceneStepper:
    """The contacts of a scene's simulation (:func:`robmod.control.simulate` of a
    :class:`~robmod.description.Scene`): :meth:`step` advances the scene's (q, qd) by dt under
    held torques (module doc); ``forces`` (K, 3): the last step's forces on every robot's
    contact points in order (world frame, on the point's robot)."""

    @keyword_options()
    def __init__(self, scene, *, margin: float = 2e-3, stabilization: float = 0.2,
                 tol: float = 1e-10, max_iter: int = 500):
        if not isinstance(scene, Scene):
            raise ArgumentError(f"SceneStepper: scene must be a Scene, got "
                                f"{type(scene).__name__}")
        self.scene = scene
        self.bodies = [_Body(r, c, s, k) for k, (r, c, s) in
                       enumerate(zip(scene.robots, scene.contacts, scene.solids))]
        self.margin = positive_scalar("margin", margin, allow_zero=True)
        self.stabilization = positive_scalar("stabilization", stabilization, allow_zero=True)
        self.tol, self.max_iter = float(tol), int(max_iter)
        self.forces = np.zeros((sum(len(b.points) for b in self.bodies), 3))

    def _surfaces(self, a, X, poses):
        """(distances, normals, which) of robot a's points X (k, 3) (world) to the nearest
        surface: a fixed obstacle (which = None) or a solid (robot b, solid s)."""
        if self.scene.environment:
            d, n = nearest_surface(self.scene.environment, X)
        else:
            d, n = np.full(len(X), np.inf), np.zeros((len(X), 3))
        which = [None] * len(X)
        for b, body in enumerate(self.bodies):
            if b == a:
                continue
            for s, (box, _, _) in enumerate(body.boxes):
                T = poses[b][s]
                local = (X - T[:3, 3]) @ T[:3, :3]          # in the solid frame's coordinates
                ds, ns = box.distance(local)
                closer = ds < d
                d = np.where(closer, ds, d)
                n = np.where(closer[:, None], ns @ T[:3, :3].T, n)
                for i in np.flatnonzero(closer):
                    which[i] = (b, s)
        return d, n, which

    def step(self, q, qd, tau, dt):
        """(q, qd) of the scene after dt (one state)."""
        scene = self.scene
        if np.ndim(q) != 1:
            raise ArgumentError("simulate of a scene runs one state at a time (x0 of one "
                                f"state), got a batch of shape {np.shape(q)[:-1]}")
        qs, qds, taus = scene.split(q), scene.split(qd), scene.split(tau)
        terms, poses = [], []
        for body, qr, qdr, tr in zip(self.bodies, qs, qds, taus):
            P = delassus(body.robot, qr, qdr, tr, body.rows)
            terms.append(P)
            T = contact_poses(body.robot, qr, body.frames) if body.frames else np.zeros(
                (0, 4, 4))
            Z = np.eye(4)
            Z[:3, :3], Z[:3, 3] = body.R, body.p
            poses.append(Z @ T)
        # the active contacts: (robot a, point i, distance, normal, which)
        active = []
        for a, (body, P) in enumerate(zip(self.bodies, terms)):
            k = len(body.points)
            if not k:
                continue
            X = P.positions[:k] @ body.R.T + body.p
            d, n, which = self._surfaces(a, X, poses)
            active += [(a, i, d[i], n[i], which[i], X[i]) for i in np.flatnonzero(d < self.margin)]
        offsets = np.cumsum([0] + [len(b.points) for b in self.bodies])
        K = len(active)
        forces = np.zeros_like(self.forces)
        E = [np.zeros((3 * K, len(P.Jv))) for P in terms]
        for c, (a, i, d, n, which, x) in enumerate(active):
            E[a][3 * c:3 * c + 3, 3 * i:3 * i + 3] = self.bodies[a].R
            if which is not None:
                b, s = which
                body = self.bodies[b]
                col = 3 * len(body.points) + 6 * s
                o = poses[b][s][:3, 3]
                E[b][3 * c:3 * c + 3, col:col + 3] = -body.R
                E[b][3 * c:3 * c + 3, col + 3:col + 6] = skew(x - o) @ body.R
        G = sum(Er @ P.G @ Er.T for Er, P in zip(E, terms))
        c = sum(Er @ (P.Jv + dt * P.Ja) for Er, P in zip(E, terms))
        lam = np.zeros(3 * K)
        if K:
            warm = np.array([self.forces[offsets[a] + i] for a, i, *_ in active])
            mu = np.array([self.bodies[a].points[i].friction for a, i, *_ in active])
            lam, _ = frame_impulses(G, c, np.array([x[2] for x in active]),
                                    np.array([x[3] for x in active]), mu, dt,
                                    self.stabilization, warm, self.tol, self.max_iter)
            for c_, (a, i, *_) in enumerate(active):
                forces[offsets[a] + i] = lam[3 * c_:3 * c_ + 3] / dt
        self.forces = forces
        q_next, qd_next = [], []
        for body, Er, P, qr, qdr in zip(self.bodies, E, terms, qs, qds):
            v = qdr + dt * P.a_free + P.minv_jt @ (Er.T @ lam)
            q_next.append(advance(body.robot, qr, v, dt))
            qd_next.append(v)
        return np.concatenate(q_next), np.concatenate(qd_next)
