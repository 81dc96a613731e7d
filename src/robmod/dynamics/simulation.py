"""Simulation: the direct dynamic model integrated in time, and the one result of every
simulation of robmod.

:func:`simulate` integrates (9.65), x = [q, qd], under a torque law ``tau_fn(t, x)``.  Every
simulator returns a :class:`SimulationResult` — this one, the closed-loop robots'
(:func:`~robmod.dynamics.closed_loop_simulate`) and the controlled runs of
:func:`robmod.control.simulate` —: the times t, the joint positions q and velocities qd, the
torques tau applied, the robot, and, for a run that follows a desired motion, that motion
(a :class:`~robmod.kinematics.Sample`), the controller and its final state, the torque limits.
Tracking metrics (RMS, maximum and final error, settling time, overshoot) compare a run with
its desired motion.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..description.arguments import (finite_array, keyword_options, positive_scalar,
                                     require_numeric, switched_off)
from ..errors import ArgumentError, RobmodError
from ..kinematics.motion import Sample
from .direct import METHODS, state_derivative


@dataclass(frozen=True)
class TrackingMetrics:
    """Per-joint tracking metrics of a run (arrays (..., n))."""

    rms: np.ndarray
    max: np.ndarray
    final: np.ndarray
    settling_time: np.ndarray
    overshoot: np.ndarray

    def __str__(self):
        rows = ["joint      rms error      max error    final error   settling (s)  overshoot"]
        for j in range(np.shape(self.rms)[-1]):
            rows.append(f"{j + 1:5d} {np.ravel(self.rms[..., j])[0]:14.3e} "
                        f"{np.ravel(self.max[..., j])[0]:14.3e} "
                        f"{np.ravel(self.final[..., j])[0]:14.3e} "
                        f"{np.ravel(self.settling_time[..., j])[0]:14.4g} "
                        f"{100 * np.ravel(self.overshoot[..., j])[0]:9.2f} %")
        return "\n".join(rows)


@keyword_options()
def tracking_metrics(t, q, q_des, *, band: float = 0.02) -> TrackingMetrics:
    """RMS, maximum and final |error|; settling time (last time |e| leaves ``band`` times its
    initial value, or times the step q_des(end) - q(0) for a set-point change) and overshoot
    (largest motion past the final desired value, relative to the step)."""
    t = finite_array("t", t, shape_text="a 1-D array of times")
    q = finite_array("q", q, shape_text="joint values (T, ..., n)")
    q_des = finite_array("q_des", q_des, shape_text="desired joint values (T, ..., n)")
    if t.ndim != 1 or q.shape[:1] != t.shape or q_des.shape[:1] != t.shape or t.size == 0:
        raise ArgumentError(f"tracking_metrics: t (T,), q and q_des (T, ..., n) must have the "
                            f"same number of samples, got {t.shape}, {q.shape}, {q_des.shape}")
    band = positive_scalar("band", band)
    e = q_des - q
    rms = np.sqrt(np.mean(e ** 2, axis=0))
    emax = np.max(np.abs(e), axis=0)
    step = q_des[-1] - q[0]
    scale = np.maximum(np.abs(step), np.abs(e[0]))
    scale = np.where(scale > 0, scale, 1.0)
    outside = np.abs(e) > band * scale
    last = np.where(outside.any(axis=0),
                    (len(t) - 1) - np.argmax(outside[::-1], axis=0), -1)
    settle = np.where(last < 0, 0.0, t[np.minimum(last + 1, len(t) - 1)])
    past = (q - q_des[-1]) * np.sign(np.where(step == 0, 1.0, step))
    overshoot = np.where(np.abs(step) > 0, np.max(past, axis=0) / np.abs(np.where(
        step == 0, 1.0, step)), 0.0)
    return TrackingMetrics(rms, emax, np.abs(e[-1]), settle, np.maximum(overshoot, 0.0))


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """The result of every simulation: ``t`` (T,), ``q``, ``qd`` (T, ..., n_q), ``tau`` the
    torques applied (T, ..., n; a closed loop's: of its actuated joints), the ``robot``; for a
    run that follows a desired motion, that motion at t (``reference``, a
    :class:`~robmod.kinematics.Sample`, also as ``q_des``, ``qd_des``, ``qdd_des``), the
    ``controller`` (or torque law) and its final state, the torque limits applied.

    ``x`` is the state [q, qd] (T, ..., 2 n_q) (``np.asarray(result)`` too, the array
    :func:`simulate` returned in earlier releases); the result unpacks as ``q, qd = result``
    (the pair :func:`~robmod.dynamics.closed_loop_simulate` returned)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray | None = None
    robot: object = None
    reference: Sample | None = None
    controller: object = None
    controller_state: np.ndarray | None = None
    tau_limit: np.ndarray | None = None

    @property
    def x(self) -> np.ndarray:
        """The states [q, qd] (T, ..., 2 n_q)."""
        return np.concatenate([self.q, self.qd], axis=-1)

    def __array__(self, dtype=None, copy=None):
        x = self.x
        return x if dtype is None else x.astype(dtype)

    def __iter__(self):
        return iter((self.q, self.qd))

    def __len__(self):
        return 2

    @property
    def q_des(self) -> np.ndarray | None:
        """The desired positions (T, n) (None without a desired motion)."""
        return None if self.reference is None else self.reference.q

    @property
    def qd_des(self) -> np.ndarray | None:
        return None if self.reference is None else self.reference.qd

    @property
    def qdd_des(self) -> np.ndarray | None:
        return None if self.reference is None else self.reference.qdd

    def _desired(self) -> np.ndarray:
        if self.reference is None:
            raise RobmodError("this run followed no desired motion (a torque law of its own): "
                              "it has no tracking error")
        qdes = self.q_des
        return qdes.reshape(qdes.shape[:1] + (1,) * (self.q.ndim - 2) + qdes.shape[-1:])

    @property
    def error(self) -> np.ndarray:
        """e = q_des - q (T, ..., n)."""
        return self._desired() - self.q

    @keyword_options()
    def metrics(self, *, band: float = 0.02) -> TrackingMetrics:
        """The :class:`TrackingMetrics` of the run against its desired motion."""
        return tracking_metrics(self.t, self.q, np.broadcast_to(self._desired(), self.q.shape),
                                band=band)

    def to_csv(self, path) -> None:
        """t, q1..qn, qd1..qdn, then tau1..taun and qdes1..qdesn when known (one run)."""
        if self.q.ndim != 2:
            raise RobmodError("to_csv writes one run: index the batch first")
        cols = [("q", self.q), ("qd", self.qd), ("tau", self.tau), ("qdes", self.q_des)]
        cols = [(k, np.asarray(v)) for k, v in cols if v is not None]
        head = ["t"] + [f"{k}{j}" for k, v in cols for j in range(1, v.shape[1] + 1)]
        data = np.column_stack([self.t] + [v for _, v in cols])
        np.savetxt(path, data, delimiter=",", header=",".join(head), comments="")

    def plot(self, path=None, *, joints=None, ax=None):
        """:func:`robmod.plot.simulation_plot` of this run (q against q_des, the tracking
        errors and the torques against their limits)."""
        from ..plot.simulation import simulation_plot   # delegation declared in pyproject.toml

        return simulation_plot(self, path, joints=joints, ax=ax)


@keyword_options()
def simulate(robot, tau_fn, x0, t, *, method: str = "rk4", substeps: int = 1,
             ddm_method: str = "recursive", bound: float = 1e6, gravity=True, rotor=True,
             friction=True, wrench=True, velocity=True, base_motion=True) -> SimulationResult:
    """The motion under torques ``tau_fn(t, x)`` (..., n_q) from the state ``x0`` = [q, qd]
    (..., 2 n_q), on the grid ``t``: a :class:`SimulationResult` (q, qd (len(t), ..., n_q),
    the torques at the grid's times, ``x`` the states (len(t), ..., 2 n_q)).

    ``method='rk4'``: fixed-step Runge-Kutta 4 on the grid t (``substeps`` per interval),
    batched over leading dimensions of x0; otherwise a ``scipy.integrate.solve_ivp`` method
    (``'RK45'``, ``'DOP853'``, ...) on one state.  A simulation that blows up (a state or a
    torque not finite, or a state beyond ``bound`` in absolute value, e.g. a too stiff PD law
    for the step) stops with a RobmodError giving the time and the joint.  ``ddm_method`` and
    the switches are those of :func:`ddm`.
    """
    switches = switched_off(simulate, gravity=gravity, rotor=rotor, friction=friction,
                            wrench=wrench, velocity=velocity, base_motion=base_motion)
    if ddm_method not in METHODS:
        raise ArgumentError(f"simulate: ddm_method must be one of {', '.join(METHODS)}, got "
                            f"{ddm_method!r}")
    require_numeric(robot, "simulate", scope="geometry")
    nj = robot.n_q
    t = finite_array("t", t, shape_text="an increasing 1-D array of times")
    if t.ndim != 1 or t.size == 0 or np.any(np.diff(t) <= 0):
        raise RobmodError(f"argument t must be a non-empty increasing 1-D array of times, "
                          f"got shape {t.shape}")
    x = finite_array("x0", x0, shape_text=f"a state [q, qd] of shape (..., {2 * nj})")
    if x.ndim == 0 or x.shape[-1] != 2 * nj:
        raise RobmodError(f"argument x0 must be a state [q, qd] of shape (..., {2 * nj}), "
                          f"got shape {x.shape}")
    if not isinstance(substeps, (int, np.integer)) or substeps < 1:
        raise RobmodError(f"argument substeps must be an integer >= 1, got {substeps!r}")
    bound = positive_scalar("bound", bound)

    def torque(tt, xx):
        try:
            return finite_array("tau", tau_fn(tt, xx), shape_text=f"{nj} joint torques")
        except RobmodError as e:
            raise RobmodError(f"simulate: at t = {tt:.6g} the torque law gave a bad value: "
                              f"{e.message}") from None

    def f(tt, xx, tau=None):
        _check_state(robot, tt, xx, bound)
        tau = torque(tt, xx) if tau is None else tau
        return state_derivative(robot, xx, tau, method=ddm_method, **switches)

    def result(states, taus):
        states = np.asarray(states)
        return SimulationResult(t, states[..., :nj], states[..., nj:], np.asarray(taus), robot,
                                controller=tau_fn)

    if method != "rk4":
        from scipy.integrate import solve_ivp

        if x.ndim != 1:
            raise RobmodError(f"simulate: method {method!r} integrates one state (x0 of shape "
                              f"({2 * nj},)), got shape {x.shape}; use method='rk4' for a batch")
        sol = solve_ivp(f, (t[0], t[-1]), x, method=method, t_eval=t, rtol=1e-10, atol=1e-12)
        if not sol.success:
            raise RobmodError(f"simulate: the integrator {method} failed at t = "
                              f"{sol.t[-1] if sol.t.size else t[0]:.6g}: {sol.message}")
        states = sol.y.T
        return result(states, [torque(tt, xx) for tt, xx in zip(t, states)])
    out = np.empty((len(t),) + x.shape)
    taus = []
    out[0] = x
    for k in range(len(t) - 1):
        h = (t[k + 1] - t[k]) / substeps
        tt = t[k]
        for s in range(substeps):
            _check_state(robot, tt, x, bound)
            tau = torque(tt, x)
            k1 = f(tt, x, tau)
            if s == 0:
                taus.append(np.broadcast_to(tau, k1.shape[:-1] + (nj,)))
            k2 = f(tt + h / 2, x + h / 2 * k1)
            k3 = f(tt + h / 2, x + h / 2 * k2)
            k4 = f(tt + h, x + h * k3)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            tt += h
        _check_state(robot, tt, x, bound)
        out[k + 1] = x
    tau = torque(t[-1], x)
    taus.append(np.broadcast_to(tau, f(t[-1], x, tau).shape[:-1] + (nj,)))
    return result(out, taus)


def _check_state(robot, tt, x, bound):
    """Raise if the state x (..., 2 n_q) at time tt is not finite or beyond ``bound``."""
    bad = ~np.isfinite(x) | (np.abs(np.nan_to_num(x, nan=np.inf)) > bound)
    if not np.any(bad):
        return
    c = int(np.argwhere(bad)[0][-1])
    nj = robot.n_q
    what = "position" if c < nj else "velocity"
    j = robot.joints[c % nj]
    value = np.asarray(x)[np.unravel_index(int(np.flatnonzero(bad)[0]), x.shape)]
    raise RobmodError(
        f"simulate: the simulation blew up at t = {tt:.6g}: joint {j} {what} is {value:.3g} "
        f"(bound {bound:.3g}); the torque law may be too stiff for the step (reduce the step "
        "or raise substeps)")


__all__ = ["SimulationResult", "TrackingMetrics", "tracking_metrics", "simulate"]
