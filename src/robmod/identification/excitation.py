"""Exciting trajectories for identification: finite Fourier series (Swevers et al. 1997).

Each joint follows a periodic motion of base pulsation w_f = 2 pi f_f with L harmonics::

    q_j(t) = q0_j + sum_l [ a_jl / (w_f l) sin(w_f l t) - b_jl / (w_f l) cos(w_f l t) ]

whose velocity and acceleration are analytic; the period makes averaging and filtering easy.
The coefficients are chosen to minimize the condition number of the base observation matrix
of the identification model (:class:`~.model.IdentificationModel`: every parameter of every
moving link, as the estimator identifies them) along the motion (Gautier & Khalil 1992; Swevers et al. 1997), within the joint position,
velocity and acceleration limits, by SciPy's SLSQP from several random starts.  The result is a motion like every
trajectory of robmod (:class:`~robmod.kinematics.Motion`): ``sample(t)`` gives a
:class:`~robmod.kinematics.Sample` (q, qd, qdd, qddd), ``to_csv`` the time table a robot
controller can play.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..description.arguments import finite_array, keyword_options, positive_scalar
from ..errors import ArgumentError, RobmodError
from ..dynamics.newton_euler import idm
from ..kinematics.motion import Sample
from .model import identification_model


@dataclass(frozen=True)
class FourierTrajectory:
    """q_j(t) = q0_j + sum_l a_jl/(w l) sin(w l t) - b_jl/(w l) cos(w l t), w = 2 pi f."""

    q0: np.ndarray          # (n,)
    a: np.ndarray           # (n, L)
    b: np.ndarray           # (n, L)
    frequency: float        # f_f, Hz
    duration: float = 0.0   # default: one period

    def __post_init__(self):
        q0 = finite_array("q0", self.q0, shape_text="the n joints' centres (n,)")
        a = finite_array("a", self.a, shape_text="coefficients (n, L)")
        b = finite_array("b", self.b, shape_text="coefficients (n, L)")
        if q0.ndim != 1 or a.ndim != 2 or a.shape != b.shape or a.shape[0] != q0.size:
            raise ArgumentError(f"FourierTrajectory: q0 (n,), a and b (n, L), got shapes "
                                f"{q0.shape}, {a.shape}, {b.shape}")
        object.__setattr__(self, "q0", q0)
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)
        frequency = positive_scalar("frequency", self.frequency)
        object.__setattr__(self, "frequency", frequency)
        object.__setattr__(self, "duration",
                           positive_scalar("duration", self.duration, allow_zero=True))
        if self.duration == 0.0:
            object.__setattr__(self, "duration", 1.0 / self.frequency)

    @property
    def period(self) -> float:
        return 1.0 / self.frequency

    @property
    def n(self) -> int:
        return len(self.q0)

    def sample(self, t) -> Sample:
        """q, qd, qdd, qddd, each (..., n) for times t (...)."""
        t = np.asarray(t, dtype=float)[..., None, None]
        w = 2 * np.pi * self.frequency
        L = self.a.shape[1]
        wl = w * np.arange(1, L + 1)
        s, c = np.sin(wl * t), np.cos(wl * t)
        q = self.q0 + ((self.a * s - self.b * c) / wl).sum(-1)
        qd = (self.a * c + self.b * s).sum(-1)
        qdd = (wl * (-self.a * s + self.b * c)).sum(-1)
        qddd = (wl ** 2 * (-self.a * c - self.b * s)).sum(-1)
        return Sample(q, qd, qdd, qddd)

    __call__ = sample

    def times(self, rate: float) -> np.ndarray:
        return np.arange(int(round(self.duration * rate)) + 1) / rate

    def to_csv(self, path, rate: float = 1000.0) -> None:
        """The time table t, q1..qn, qd1..qdn, qdd1..qddn at ``rate`` Hz."""
        t = self.times(rate)
        q, qd, qdd, _ = self.sample(t)
        n = q.shape[1]
        head = ["t"] + [f"{k}{j}" for k in ("q", "qd", "qdd") for j in range(1, n + 1)]
        np.savetxt(path, np.column_stack([t, q, qd, qdd]), delimiter=",",
                   header=",".join(head), comments="")

    def extremes(self, rate: float = 200.0):
        """(q min, q max, max |qd|, max |qdd|) per joint over one period."""
        q, qd, qdd, _ = self.sample(np.arange(int(rate / self.frequency)) / rate)
        return q.min(0), q.max(0), np.abs(qd).max(0), np.abs(qdd).max(0)


@keyword_options()
def exciting_trajectory(robot, *, harmonics: int = 5, frequency: float = 0.1,
                        q_center=None, q_range=None, qd_max=None, qdd_max=None,
                        tau_max=None, workspace=None, samples: int = 150, starts: int = 3,
                        seed: int = 0,
                        maxiter: int = 60) -> FourierTrajectory:
    """The Fourier trajectory that minimizes cond(W) of the base model within the limits.

    Limits default to the robot's (qmin/qmax, qdmax, qddmax) or to +-pi/2 about zero,
    2 rad/s, 10 rad/s^2.  ``tau_max`` (per joint, or True for the robot's taumax) adds the
    torques of the robot's inverse dynamic model (a prior model with numeric inertial
    parameters) to the constraints.  ``workspace``: a function of the terminal frame's
    origin positions (..., 3) in the base frame returning margins that must stay >= 0 (e.g.
    ``lambda p: p[..., 2] - 0.1`` keeps the tool 10 cm above the base plane).
    """
    from scipy.optimize import minimize

    est = identification_model(robot, offsets=False)
    n = est.n_joints
    lim = _limits(est.robot, n, q_center, q_range, qd_max, qdd_max)
    lo, hi, vmax, amax = lim
    center = (lo + hi) / 2
    t = np.arange(samples) / (samples * frequency)
    L = harmonics
    w = 2 * np.pi * frequency * np.arange(1, L + 1)

    def unpack(x):
        return x[: n * L].reshape(n, L), x[n * L:].reshape(n, L)

    def traj(x):
        a, b = unpack(x)
        return FourierTrajectory(center, a, b, frequency)

    def cost(x):
        q, qd, qdd, _ = traj(x).sample(t)
        W = est.regressor(q, qd, qdd)
        Ws = np.transpose(W, (1, 0, 2)).reshape(-1, W.shape[-1])
        norms = np.linalg.norm(Ws, axis=0)
        if np.any(norms == 0):
            return 1e12
        s = np.linalg.svd(Ws / norms, compute_uv=False)
        return float(np.log(s[0] / max(s[-1], 1e-300)))

    torque = _torque_limit(robot, n, tau_max)
    position = None
    if workspace is not None:
        from ..geometry.direct import dgm_model

        position = dgm_model(est.robot, columns="p").compile()

    def margins(x):
        q, qd, qdd, _ = traj(x).sample(t)
        out = [(hi - q).ravel(), (q - lo).ravel(), (vmax - np.abs(qd)).ravel(),
               (amax - np.abs(qdd)).ravel()]
        if torque is not None:
            model, tmax = torque
            out.append((tmax - np.abs(idm(model, q, qd, qdd))).ravel())
        if position is not None:
            out.append(np.ravel(workspace(position(q).reshape(len(q), 3))))
        return np.concatenate(out)

    rng = np.random.default_rng(seed)
    best = None
    for _ in range(starts):
        # random start scaled inside the limits
        scale = np.minimum(vmax / (2 * L), amax / (2 * L * w[-1]))[:, None]
        x0 = np.concatenate([(rng.uniform(-1, 1, (n, L)) * scale).ravel(),
                             (rng.uniform(-1, 1, (n, L)) * scale).ravel()])
        res = minimize(cost, x0, method="SLSQP", constraints=[{"type": "ineq", "fun": margins}],
                       options={"maxiter": maxiter, "ftol": 1e-4})
        if np.all(margins(res.x) >= -1e-9) and (best is None or res.fun < best[0]):
            best = (res.fun, res.x)
    if best is None:
        raise RobmodError("no exciting trajectory within the limits was found: widen the "
                          "limits or lower the frequency")
    return traj(best[1])


def _torque_limit(robot, n, tau_max):
    """(numeric model, limits) for the torque constraints, or None."""
    if tau_max is None or tau_max is False:
        return None
    from ..description.arguments import require_numeric
    from ..dynamics.layout import dofs

    model = require_numeric(robot.numeric(), "the torque limits of an exciting trajectory")
    if tau_max is True:
        vals = [model.link(j).limits.taumax for j in dofs(model)]
        if any(v is None for v in vals):
            raise RobmodError("tau_max=True needs the robot's taumax limits")
        tau_max = [float(v) for v in vals]
    tmax = np.broadcast_to(np.asarray(tau_max, float), (n,))
    if np.any(~np.isfinite(tmax)) or np.any(tmax <= 0):
        raise RobmodError(f"tau_max must be positive, got {tmax.tolist()}")
    return model, tmax


def _limits(robot, n, q_center, q_range, qd_max, qdd_max):
    from ..dynamics.layout import dofs

    def lim(field, default):
        vals = [getattr(robot.link(j).limits, field) for j in dofs(robot)]
        if any(v is None for v in vals):
            return np.full(n, default)
        return np.array([float(v) for v in vals])

    lo, hi = lim("qmin", -np.pi / 2), lim("qmax", np.pi / 2)
    if q_center is not None or q_range is not None:
        c = np.broadcast_to(np.asarray(0.0 if q_center is None else q_center, float), (n,))
        r = np.broadcast_to(np.asarray(np.pi / 2 if q_range is None else q_range, float), (n,))
        lo, hi = c - r, c + r
    else:  # keep a margin inside the robot's range
        m = 0.1 * (hi - lo)
        lo, hi = lo + m, hi - m
    vmax = np.broadcast_to(np.asarray(qd_max, float), (n,)) if qd_max is not None else \
        0.8 * lim("qdmax", 2.0)
    amax = np.broadcast_to(np.asarray(qdd_max, float), (n,)) if qdd_max is not None else \
        0.8 * lim("qddmax", 10.0)
    for name, v in (("q range", hi - lo), ("qd_max", vmax), ("qdd_max", amax)):
        if np.any(~np.isfinite(v)) or np.any(v <= 0):
            raise RobmodError(f"{name} must be positive and finite, got {np.asarray(v).tolist()}")
    return lo, hi, vmax, amax


__all__ = ["FourierTrajectory", "exciting_trajectory"]
