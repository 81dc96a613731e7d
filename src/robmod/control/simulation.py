"""Closed-loop simulation: the robot's direct dynamics under a sampled controller.

The plant is the robot's compiled direct dynamic model (Khalil & Dombre §7.6.2 or [7.62]) with
its own parameters (rotor inertia, friction (7.26)); the controller has its own model (model
mismatch is a different robot given to the controller).  A closed-loop robot's state is that of
its actuated joints, the passive ones solved from the loops at every evaluation
(:mod:`robmod.control.closed_plant`).  A singular inertia matrix stops the run with a
RobmodError naming the joint.  Between two samples of a digital
controller the torque is held (zero-order hold) and the plant is integrated by fixed-step RK4
(``substeps`` steps per sample) or by a SciPy adaptive method; a continuous controller
(``dt = 0``) is evaluated at every RK4 stage with its state integrated with the plant's.

Realism options: actuator saturation (the robot's ``taumax`` or given), measurement noise and
encoder quantization of q and qd, a measurement delay of whole samples.  Many runs at once: a
batch of initial states (..., 2n) and/or gains with leading dimensions.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import finite_array, keyword_options
from ..dynamics.simulation import SimulationResult
from ..errors import ArgumentError, RobmodError
from .base import Controller
from .compiled_loop import run_compiled
from .plant import Dynamics
from ..kinematics.motion import Sample
from .reference import Reference

#: |qd| beyond this (rad/s or m/s) is taken as a blow-up
_DIVERGENCE = 1e6


def _desired_table(ref: Reference, t: np.ndarray):
    """The reference on the whole grid at once when it is vectorized, else sample by sample."""
    try:
        d = ref(t)
    except (RobmodError, ValueError, TypeError, IndexError):
        d = None
    if d is not None and d.q.ndim >= 2 and d.q.shape[0] == len(t):
        return d.q, d.qd, d.qdd
    if d is not None and d.q.ndim == 1 and not callable(ref.source):  # a set point
        return tuple(np.broadcast_to(x, (len(t),) + x.shape) for x in (d.q, d.qd, d.qdd))
    rows = [ref(float(tt)) for tt in t]
    return (np.stack([r.q for r in rows]), np.stack([r.qd for r in rows]),
            np.stack([r.qdd for r in rows]))


def _diverged(t, q, qd, plant=None, q_before=None):
    if np.abs(qd).max() < _DIVERGENCE:  # False for NaN too
        return
    singular = getattr(plant, "singular_error", None)
    if singular is not None and q_before is not None:   # a singular inertia matrix at the
        err = singular(q_before)                         # state before the blow-up
        if err is not None:
            raise err
    bad = ~(np.isfinite(q) & np.isfinite(qd) & (np.abs(qd) < _DIVERGENCE))
    if np.any(bad):
        idx = np.argwhere(bad)[0]
        j = int(idx[-1]) + 1
        run = f" (run {tuple(int(i) for i in idx[:-1])})" if len(idx) > 1 else ""
        raise RobmodError(f"the simulation diverged at t = {t:.6g} s on joint {j}{run}: "
                          f"q = {np.asarray(q)[tuple(idx)]:.3g}, qd = {np.asarray(qd)[tuple(idx)]:.3g}."
                          " Gains too high for the sample period or the integration step "
                          "(reduce them, raise substeps or lower dt), or the model is wrong")


@keyword_options()
def simulate(robot, controller: Controller, reference, duration: float, *, x0=None,
             substeps: int = 1, step: float | None = None, saturation=True, noise=None,
             quantization=None, delay: int = 0, seed: int = 0,
             record_every: int = 1) -> SimulationResult:
    """Simulate ``controller`` on ``robot`` following ``reference`` for ``duration`` seconds.

    ``x0``: initial state (q, qd) (..., 2n); default the reference at t = 0.  The controller's
    period ``controller.dt`` sets the samples; ``substeps`` RK4 steps per sample.  For a
    continuous controller (dt = 0) ``step`` is the RK4 step (default 1e-3 s).
    ``saturation``: True (the robot's taumax when known), False, or n torque limits.
    ``noise``: standard deviations (sigma_q, sigma_qd) of white measurement noise;
    ``quantization``: (resolution of q, resolution of qd) (encoder counts); ``delay``: samples.
    ``record_every``: keep every k-th sample in the result (t[::k], from t = 0; the law still
    runs and the plant is still integrated at every sample, the results are those samples of
    the full run): a sweep keeps what it needs -- 1,000 runs of 10 s at 1 kHz are 1.7 GB of
    q, qd and tau with k = 1.
    """
    plant = Dynamics.of(robot, "plant")
    n = plant.n
    if getattr(controller, "n", n) != n:
        raise RobmodError(f"the controller is for {controller.n} joints, the robot has {n}")
    ref = reference if isinstance(reference, Reference) else Reference(reference, n)
    duration = float(duration)
    if not np.isfinite(duration) or duration <= 0:
        raise RobmodError(f"duration must be a positive time in s, got {duration}")
    substeps = int(substeps)
    if substeps < 1:
        raise RobmodError(f"substeps must be >= 1, got {substeps}")
    dt = controller.dt
    continuous = dt == 0
    if continuous:
        dt = 1e-3 if step is None else float(step)
        if noise is not None or quantization is not None or delay:
            raise RobmodError("noise, quantization and delay need a digital controller (dt > 0)")
    if not np.isfinite(dt) or dt <= 0:
        raise RobmodError(f"step must be a positive time, got {dt}")
    steps = int(round(duration / dt))
    if steps < 1 or steps > 10 ** 8:
        raise RobmodError(f"duration / dt = {duration / dt:g} samples: expected 1 to 1e8")
    every = _record_every(record_every, steps)
    t = np.arange(steps + 1) * dt
    q_des, qd_des, qdd_des = _desired_table(ref, t)
    if x0 is None:
        x0 = np.concatenate([q_des[0], qd_des[0]])
    x0 = finite_array("x0", x0, shape_text=f"a state (q, qd) of 2n = {2 * n} values")
    if x0.shape[-1:] != (2 * n,) or not np.all(np.isfinite(x0)):
        raise RobmodError(f"x0 must hold 2n = {2 * n} finite values (q then qd), got shape "
                          f"{x0.shape}")
    tau_lim = _saturation(plant, saturation, n)
    batch = np.broadcast_shapes(x0.shape[:-1], *[np.shape(g)[:-1] for g in
                                                  _gains(controller)])
    q = np.array(np.broadcast_to(x0[..., :n], batch + (n,)))
    qd = np.array(np.broadcast_to(x0[..., n:], batch + (n,)))
    z = controller.initial_state(batch)
    # -- robmod's own controllers on a tree robot: the whole loop in C (same results) --
    fast = run_compiled(plant, controller, t, (q_des, qd_des, qdd_des), q, qd, z, tau_lim, dt=dt,
                        continuous=continuous, substeps=substeps, noise=noise,
                        quantization=quantization, delay=delay, seed=seed,
                        table=lambda tt: _desired_table(ref, tt), record_every=every)
    kept = slice(None, None, every)
    if fast is not None:
        return SimulationResult(t[kept], *fast[:3], plant.robot,
                                reference=Sample(q_des[kept], qd_des[kept], qdd_des[kept]),
                                controller=controller, controller_state=fast[3],
                                tau_limit=tau_lim)
    # -- else the loop in Python --
    rng = np.random.default_rng(seed)
    Q = np.empty((steps // every + 1,) + q.shape)
    QD = np.empty_like(Q)
    TAU = np.empty_like(Q)
    Q[0], QD[0] = q, qd
    ddm = plant.ddm
    h = dt / substeps
    past = []
    for k in range(steps + 1):
        d = Sample(q_des[k], qd_des[k], qdd_des[k])
        if continuous:
            tau = _clip(controller.output(t[k], q, qd, d, z), tau_lim)
        else:
            qm, qdm = _measure(q, qd, noise, quantization, rng)
            if delay:
                past.append((qm, qdm))
                qm, qdm = past[max(0, len(past) - 1 - delay)]
                if len(past) > delay + 1:
                    past.pop(0)
            tau = _clip(controller.output(t[k], qm, qdm, d, z), tau_lim)
            if z.shape[-1]:
                z = z + dt * controller.update(t[k], qm, qdm, d, z)
        if k % every == 0:
            TAU[k // every] = tau
        if k == steps:
            break
        q_before = q
        if continuous:
            q, qd, z = _rk4_closed(controller, ddm, t[k], dt, q, qd, z, ref, tau_lim)
        else:
            for _ in range(substeps):
                q, qd = _rk4_step(ddm, h, q, qd, tau)
        _diverged(t[k + 1], q, qd, plant, q_before)
        if (k + 1) % every == 0:
            Q[(k + 1) // every], QD[(k + 1) // every] = q, qd
    return SimulationResult(t[kept], Q, QD, TAU, plant.robot,
                            reference=Sample(q_des[kept], qd_des[kept], qdd_des[kept]),
                            controller=controller, controller_state=z, tau_limit=tau_lim)


def _record_every(value, steps: int) -> int:
    """``record_every`` checked: a whole number of samples from 1 to ``steps``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or not 1 <= value <= steps:
        raise ArgumentError(f"record_every must be a whole number of samples from 1 to "
                            f"{steps} (the run's samples), got {value!r}")
    return int(value)


def _gains(controller):
    return [g for g in (getattr(controller, k, None) for k in ("kp", "kd", "ki", "lam"))
            if isinstance(g, np.ndarray)]


def _saturation(plant, saturation, n):
    if saturation is False or saturation is None:
        return None
    if saturation is True:
        return plant.limits("taumax")
    lim = np.asarray(saturation, dtype=float)
    lim = np.full(n, float(lim)) if lim.ndim == 0 else lim
    if lim.shape != (n,) or np.any(~np.isfinite(lim)) or np.any(lim <= 0):
        raise RobmodError(f"saturation: expected True, False or {n} positive torque limits")
    return lim


def _clip(tau, lim):
    tau = np.asarray(tau, dtype=float)
    return tau if lim is None else np.clip(tau, -lim, lim)


def _measure(q, qd, noise, quantization, rng):
    if noise is not None:
        sq, sqd = noise
        q = q + rng.normal(0.0, sq, q.shape) if sq else q
        qd = qd + rng.normal(0.0, sqd, qd.shape) if sqd else qd
    if quantization is not None:
        rq, rqd = quantization
        q = np.round(q / rq) * rq if rq else q
        qd = np.round(qd / rqd) * rqd if rqd else qd
    return q, qd


def _rk4_step(ddm, h, q, qd, tau):
    """One RK4 step of q' = qd, qd' = DDM(q, qd, tau) with tau held."""
    a1 = ddm(q, qd, tau)
    q2, v2 = q + 0.5 * h * qd, qd + 0.5 * h * a1
    a2 = ddm(q2, v2, tau)
    q3, v3 = q + 0.5 * h * v2, qd + 0.5 * h * a2
    a3 = ddm(q3, v3, tau)
    q4, v4 = q + h * v3, qd + h * a3
    a4 = ddm(q4, v4, tau)
    return (q + h / 6 * (qd + 2 * v2 + 2 * v3 + v4),
            qd + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4))


def _rk4_closed(ctrl, ddm, t, h, q, qd, z, ref, lim):
    """One RK4 step of the plant and the controller's state with the law evaluated at every
    stage (a continuous-time controller)."""
    def f(tt, q, qd, z):
        d = ref(tt)
        tau = _clip(ctrl.output(tt, q, qd, d, z), lim)
        dz = ctrl.update(tt, q, qd, d, z) if z.shape[-1] else z
        return qd, ddm(q, qd, tau), dz

    k1 = f(t, q, qd, z)
    k2 = f(t + h / 2, *(x + h / 2 * k for x, k in zip((q, qd, z), k1)))
    k3 = f(t + h / 2, *(x + h / 2 * k for x, k in zip((q, qd, z), k2)))
    k4 = f(t + h, *(x + h * k for x, k in zip((q, qd, z), k3)))
    return tuple(x + h / 6 * (a + 2 * b + 2 * c + d)
                 for x, a, b, c, d in zip((q, qd, z), k1, k2, k3, k4))


__all__ = ["simulate"]
