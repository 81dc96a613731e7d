"""The dynamics of the actuated joints of a closed-loop robot, compiled for control and
simulation (Siciliano et al. §7.3.3; Khalil-Kleinfinger loops, :mod:`robmod.dynamics.closed_loop`).

The state of the plant is (q_a, qd_a), the actuated joints (mu = 1).  At every call the passive
joints are solved from the loop-closure equations by Newton's method started from the previous
closed configuration (so the assembly mode chosen at the start is kept and the loops never drift),
with the relative twist of each cut frame and its closing frame, G = [0J_k - 0J_(k+B)], as the
Jacobian.  The independent rows of G give qd = W qd_a and qdd = W qdd_a + w, and the projection
of the equivalent tree's compiled models by virtual work gives::

    Gamma_a = W^T Gamma_tree(q, qd, qdd),    B_a = W^T A_tree W,    qdd_a = B_a^-1 (Gamma_a - h_a)

The loop kinematics (the two frames' DGM and Jacobian, and Gdot qd) are one customized model of
the robot, compiled once like the tree's IDM and inertia matrix.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import keyword_options
from ..description.robot import joint_velocity
from ..dynamics.closed_loop import equivalent_tree
from ..dynamics.closed_loop_rates import closed_loop_ddm_derivatives
from ..dynamics.inertia import inertia_matrix
from ..dynamics.layout import dofs
from ..errors import RobmodError
from ..geometry.direct import dgm_algorithm
from ..kinematics.jacobians import jacobian_algorithm
from ..kinematics.second_order import jdot_qdot_algorithm
from ..symbolic.algebra import add
from ..symbolic.model import Output, customize
from .plant import PLANT_KINDS, Dynamics, numeric_only, start_configuration

#: relative singular-value threshold of the rank of the loop constraints
_RANK_TOL = 1e-9
#: loop-closure tolerance (m, rad) and Newton iterations
_CLOSE_TOL, _CLOSE_ITER = 1e-12, 30
#: a change of the actuated joints (rad or m) beyond which the loops are closed again from the
#: start guess rather than from the last configuration (a new run, not the next step of one)
_JUMP = 0.5


def _loop_models(robot):
    """(geometry, bias) customized models: 0T_k, 0T_(k+B) and G = 0J_k - 0J_(k+B) at q; and
    Gdot qd = 0Jdot_k qd - 0Jdot_(k+B) qd at (q, qd), for every loop (k, k + B)."""
    joints = robot.joints
    q = tuple(robot.frame(k).q for k in joints)
    qd = tuple(joint_velocity(k) for k in joints)

    def geometry(ctx):
        outs = []
        for k, kb in robot.loop_pairs:
            for f in (k, kb):
                outs.append(Output.matrix(f"T{f}", dgm_algorithm(ctx, robot, j=f)))
            Jk, Jb = jacobian_algorithm(ctx, robot, j=k), jacobian_algorithm(ctx, robot, j=kb)
            outs.append(Output.matrix(f"G{k}", [[add(a, -b) for a, b in zip(ra, rb)]
                                                for ra, rb in zip(Jk, Jb)]))
        return outs

    def bias(ctx):
        outs = []
        for k, kb in robot.loop_pairs:
            a, b = jdot_qdot_algorithm(ctx, robot, j=k), jdot_qdot_algorithm(ctx, robot, j=kb)
            outs.append(Output.vector(f"GDQ{k}", [add(x, -y) for x, y in zip(a, b)]))
        return outs

    return (customize(f"{robot.name}_loop_geometry", geometry, robot, inputs={"q": q},
                      title=f"Loop frames and constraint Jacobian of {robot.name}"),
            customize(f"{robot.name}_loop_bias", bias, robot, inputs={"q": q, "qd": qd},
                      title=f"Loop constraint bias Gdot qd of {robot.name}"))


class ClosedLoopDynamics:
    """Compiled IDM, DDM and gravity torques of the *actuated* joints of a numeric closed-loop
    robot (vectors of ``n`` = number of actuated joints, :attr:`joints`), the same interface as
    :class:`~robmod.control.plant.Dynamics`.

    The assembly mode: the loops are first closed from ``q_guess`` (NJ values), by default
    the middle of the joint range of each passive joint that has one (``qmin``, ``qmax`` in
    the robot file), else 0; the revolute passive joints are then kept within pi of it.  Later
    calls start from the last closed configuration (the steps of a simulation), or again from
    ``q_guess`` when the actuated joints jumped by more than 0.5 (a new run)."""

    @keyword_options()
    def __init__(self, robot, what: str = "robot", *, q_guess=None):
        self.robot = numeric_only(robot, what)
        r = self.robot
        self.joints = tuple(r.actuated)
        self.passive = tuple(j for j in r.joints if r.frame(j).mu == 0)
        self.n = self.nq = self.nv = len(self.joints)
        if not self.n:
            raise RobmodError(f"robot {r.name!r} has no actuated joint (mu = 1)")
        self._ia = np.array([r.joint_index[j] for j in self.joints])
        self._ip = np.array([r.joint_index[j] for j in self.passive])
        self.tree = Dynamics(equivalent_tree(r), what)
        self._it = np.array([r.joint_index[j] for j in dofs(self.tree.robot)])
        self._geom = self._bias = None
        center = np.zeros(r.n_q)
        for j in self.passive:
            lim = r.link(j).limits if j <= r.n_links else None
            if lim is not None and lim.qmin is not None and lim.qmax is not None:
                center[r.joint_index[j]] = 0.5 * (float(lim.qmin) + float(lim.qmax))
        self._start = center if q_guess is None else np.asarray(q_guess, dtype=float)
        if self._start.shape != (r.n_q,):
            raise RobmodError(f"q_guess: expected {r.n_q} joint values, got shape "
                              f"{self._start.shape}")
        self._wrap = np.array([r.joint_index[j] for j in self.passive
                               if r.frame(j).sigma == 0], dtype=int)
        self._guess = None
        self.has_coulomb = self.tree.has_coulomb

    def __getstate__(self):
        return {"robot": self.robot, "guess": self._start}

    def __setstate__(self, state):
        self.__init__(state["robot"], q_guess=state["guess"])

    def limits(self, field: str):
        """The ``field`` limit of each actuated joint, or None if one is missing."""
        vals = [getattr(self.robot.link(j).limits, field) for j in self.joints]
        return None if any(v is None for v in vals) else np.array([float(v) for v in vals])

    floating = False

    def start_configuration(self) -> np.ndarray:
        """As :meth:`Dynamics.start_configuration`, for the actuated joints."""
        return start_configuration(self)

    def initial_state(self, qa, qda):
        """The state of the plant: the actuated joints' (qa, qda)."""
        return qa, qda

    def state_of_joints(self, qa, qda):
        return qa, qda

    def derivatives(self, qa, qda, tau):
        """(dqdd_dq, dqdd_dqd, dqdd_dtau) of the actuated joints (the loops closed in the
        plant's assembly mode): :func:`~robmod.dynamics.closed_loop_ddm_derivatives`."""
        guess = self.close(qa)[0]
        return closed_loop_ddm_derivatives(self.robot, qa, qda, tau, q_guess=guess)

    def closed_state(self, q, qd):
        """The state (qa, qda) of a closed configuration of every joint (q, qd) (..., NJ),
        whose assembly mode the next closures keep."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        self._guess = np.array(q)
        return q[..., self._ia], qd[..., self._ia]

    # -- loop kinematics ------------------------------------------------------------------
    def _models(self):
        if self._geom is None:
            geom, bias = _loop_models(self.robot)
            self._geom, self._bias = geom.compile(), bias.compile()
        return self._geom, self._bias

    def _geometry(self, q):
        """(residual (..., 6B), G (..., 6B, NJ)) at q (..., NJ)."""
        out = self._models()[0](q)
        out = out if isinstance(out, (list, tuple)) else [out]
        res, G = [], []
        for b in range(len(self.robot.loop_pairs)):
            Tk, Tb, Gk = out[3 * b: 3 * b + 3]
            Rk, Rb = Tk[..., :3, :3], Tb[..., :3, :3]
            E = Rk @ np.swapaxes(Rb, -1, -2)          # R_k R_(k+B)^T = I when closed
            v = 0.5 * np.stack([E[..., 2, 1] - E[..., 1, 2], E[..., 0, 2] - E[..., 2, 0],
                                E[..., 1, 0] - E[..., 0, 1]], axis=-1)
            s = np.linalg.norm(v, axis=-1, keepdims=True)    # sin of the angle
            c = 0.5 * (np.trace(E, axis1=-2, axis2=-1)[..., None] - 1)
            angle = np.arctan2(s, c)                          # theta u: the rotation vector
            w = v * np.where(s > 1e-12, angle / np.maximum(s, 1e-300), 1.0)
            res.append(np.concatenate([Tk[..., :3, 3] - Tb[..., :3, 3], w], axis=-1))
            G.append(Gk)
        return np.concatenate(res, axis=-1), np.concatenate(G, axis=-2)

    def close(self, qa):
        """Every joint value q (..., NJ) closing the loops for the actuated values qa."""
        qa = np.asarray(qa, dtype=float)
        shape = qa.shape[:-1] + (self.robot.n_q,)
        guess = self._guess      # the last closed configuration, unless q_a jumped (a new run)
        if guess is None or guess.shape != shape or \
                np.abs(guess[..., self._ia] - qa).max() > _JUMP:
            q = np.array(np.broadcast_to(self._start, shape))
        else:
            q = guess.copy()
        q[..., self._ia] = qa
        r, G = self._geometry(q)
        for _ in range(_CLOSE_ITER):
            if np.all(np.abs(r) < _CLOSE_TOL):
                break
            step = (np.linalg.pinv(G[..., self._ip]) @ (-r[..., None]))[..., 0]
            norm = np.linalg.norm(r, axis=-1)
            alpha = np.ones(norm.shape + (1,))
            for _ in range(20):          # backtracking: the residual must decrease
                trial = q.copy()
                trial[..., self._ip] += alpha * step
                r_new, G_new = self._geometry(trial)
                worse = np.linalg.norm(r_new, axis=-1) > norm * (1 - 1e-4 * alpha[..., 0])
                if not np.any(worse & (norm > _CLOSE_TOL)):
                    break
                alpha = np.where(worse[..., None], alpha / 2, alpha)
            q, r, G = trial, r_new, G_new
        if not np.all(np.abs(r) < 1e-9):
            raise RobmodError(
                f"the loops of {self.robot.name!r} could not be closed at q_a = "
                f"{np.round(qa, 6).tolist()} (residual {np.abs(r).max():.2e}): a singular "
                "or unreachable configuration of the actuated joints")
        w = self._wrap                   # revolute passive joints: within pi of the start
        c = self._start[w]
        q[..., w] = c + np.mod(q[..., w] - c + np.pi, 2 * np.pi) - np.pi
        self._guess = q
        return q, G

    def _state(self, qa, qda):
        """(q, qd, W, U_r, G_p) of every joint at the actuated state."""
        q, G = self.close(qa)
        U, s, Vt = np.linalg.svd(G)
        ranks = np.sum(s > _RANK_TOL * np.maximum(s[..., :1], 1e-300), axis=-1)
        rank = int(np.max(ranks))
        if np.any(ranks != rank) or rank != len(self.passive):
            raise RobmodError(
                f"{self.robot.name!r}: the loop constraints have rank {rank} for "
                f"{len(self.passive)} passive joints at q_a = {np.round(qa, 6).tolist()}: the "
                "actuated joints do not determine the passive ones there (a singular "
                "configuration of the loop)")
        Ur, Gr = U[..., :rank], s[..., :rank, None] * Vt[..., :rank, :]
        Gp, Ga = Gr[..., self._ip], Gr[..., self._ia]
        W = np.zeros(q.shape + (self.n,))
        W[..., self._ia, np.arange(self.n)] = 1.0
        W[..., self._ip, :] = -np.linalg.solve(Gp, Ga)
        qd = np.einsum("...ja,...a->...j", W, qda)
        return q, qd, W, Ur, Gp

    def _w(self, q, qd, Ur, Gp):
        """The acceleration bias w (qdd = W qdd_a + w) at a closed state."""
        b = self._models()[1](q, qd)
        b = np.concatenate(b if isinstance(b, (list, tuple)) else [b], axis=-1)
        w = np.zeros(q.shape)
        rhs = np.einsum("...ir,...i->...r", Ur, b)[..., None]
        w[..., self._ip] = -np.linalg.solve(Gp, rhs)[..., 0]
        return w

    def _project(self, W, gam_tree):
        return np.einsum("...ja,...j->...a", W[..., self._it, :], gam_tree)

    # -- the models --------------------------------------------------------------------------
    def idm_compensated(self, qa, qda, qdda, qda_des, *, coulomb="desired", width=1e-2):
        """Gamma_a = W^T Gamma_tree(q, qd, W qdd_a + w), Coulomb terms as
        :meth:`Dynamics.idm_compensated` (the desired tree velocity is W qd_a^d)."""
        qa, qda, qdda = np.broadcast_arrays(*(np.asarray(x, dtype=float)
                                              for x in (qa, qda, qdda)))
        q, qd, W, Ur, Gp = self._state(qa, qda)
        qdd = np.einsum("...ja,...a->...j", W, qdda) + self._w(q, qd, Ur, Gp)
        it = self._it
        v = np.einsum("...ja,...a->...j", W[..., it, :], np.broadcast_to(qda_des, qda.shape))
        gam = self.tree.idm_compensated(q[..., it], qd[..., it], qdd[..., it], v,
                                        coulomb=coulomb, width=width)
        return self._project(W, gam)

    def idm(self, qa, qda, qdda):
        return self.idm_compensated(qa, qda, qdda, qda, coulomb="measured")

    def ddm(self, qa, qda, tau):
        q, qd, W, Ur, Gp = self._state(np.asarray(qa, float), np.asarray(qda, float))
        it = self._it
        w = self._w(q, qd, Ur, Gp)
        h = self._project(W, self.tree.idm(q[..., it], qd[..., it], w[..., it]))
        Wd = W[..., it, :]
        B = np.einsum("...ia,...ij,...jb->...ab", Wd, inertia_matrix(self.tree.robot, q[..., it]),
                      Wd)
        try:
            out = np.linalg.solve(B, (np.asarray(tau, float) - h)[..., None])[..., 0]
        except np.linalg.LinAlgError:
            out = None
        if out is None or not np.all(np.isfinite(out)):
            raise RobmodError(f"ddm: the inertia matrix of the actuated joints of "
                              f"{self.robot.name!r} is singular at q_a = "
                              f"{np.round(qa, 6).tolist()}")
        return out

    def gravity(self, qa):
        qa = np.asarray(qa, dtype=float)
        q, _, W, _, _ = self._state(qa, np.zeros_like(qa))
        return self._project(W, self.tree.gravity(q[..., self._it]))

    def coriolis_times(self, qa, qda, v):
        """C(q, qd) v by polarization of the velocity torques h(qd) = W^T Gamma_tree(q, W qd,
        w(qd)) (quadratic in qd), as :meth:`Dynamics.coriolis_times`."""
        def h(x):
            q, qd, W, Ur, Gp = self._state(qa, x)
            w = self._w(q, qd, Ur, Gp)
            it = self._it
            return self._project(W, self.tree._velocity_model()(q[..., it], qd[..., it],
                                                                w[..., it]))
        return 0.5 * (h(qda + v) - h(qda) - h(v))


PLANT_KINDS["closed"] = ClosedLoopDynamics

__all__ = ["ClosedLoopDynamics"]
