"""The one result of robmod's simulations, and its tracking metrics.

:func:`robmod.control.simulate` (the one simulator: every robot, every torque law, integrated
by :mod:`.integration`) returns a :class:`SimulationResult`: the times t, the robot's
configurations q and velocities qd (a floating robot's: 7 + n and 6 + n values, the base's
first), the torques tau applied, the robot, and, for a run that follows a desired motion,
that motion (a :class:`~robmod.kinematics.Sample` of the joints), the torque law and its final
state, the torque limits.  Tracking metrics (RMS, maximum and final error, settling time,
overshoot) compare a run's joints with their desired motion.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..description.arguments import finite_array, keyword_options, positive_scalar
from ..description.base import BASE_Q, BASE_V, moving_base
from ..description.scene import Scene
from ..errors import ArgumentError, RobmodError
from ..kinematics.motion import Sample


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
    """The result of every simulation (:func:`robmod.control.simulate`): ``t`` (T,), ``q``,
    ``qd`` (T, ..., n_q; a floating robot's 7 + n_q and 6 + n_q, the base's first; a closed
    loop's: its actuated joints), ``tau`` the joint torques applied (T, ..., n), the
    ``robot``; for a run that follows a desired motion, that motion of the joints at t
    (``reference``, a :class:`~robmod.kinematics.Sample`, also as ``q_des``, ``qd_des``,
    ``qdd_des``), the ``controller`` (the torque law) and its final state, the torque limits
    applied.

    ``x`` is the state [q, qd] (T, ..., nq + nv) (``np.asarray(result)`` too); the result
    unpacks as ``q, qd = result``; ``joint_q``, ``joint_qd`` are the joints' values (a floating
    robot's without its base)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray | None = None
    robot: object = None
    reference: Sample | None = None
    controller: object = None
    controller_state: np.ndarray | None = None
    tau_limit: np.ndarray | None = None
    contact_forces: np.ndarray | None = None     # (T, k, 3): simulate(..., contacts=...)

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
    def floating(self) -> bool:
        """Whether q and qd begin with a floating base's 7 and 6 values (a scene's: its robots'
        states in order, :meth:`~robmod.description.Scene.split`)."""
        return self.robot is not None and not isinstance(self.robot, Scene) \
            and moving_base(self.robot)

    @property
    def joint_q(self) -> np.ndarray:
        """The joints' positions (T, ..., n): q without a floating base's 7 values."""
        return self.q[..., BASE_Q:] if self.floating else self.q

    @property
    def joint_qd(self) -> np.ndarray:
        """The joints' velocities (T, ..., n): qd without a floating base's twist."""
        return self.qd[..., BASE_V:] if self.floating else self.qd

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
        q = self.joint_q
        return qdes.reshape(qdes.shape[:1] + (1,) * (q.ndim - 2) + qdes.shape[-1:])

    @property
    def error(self) -> np.ndarray:
        """e = q_des - q of the joints (T, ..., n)."""
        return self._desired() - self.joint_q

    @keyword_options()
    def metrics(self, *, band: float = 0.02) -> TrackingMetrics:
        """The :class:`TrackingMetrics` of the run's joints against their desired motion."""
        q = self.joint_q
        return tracking_metrics(self.t, q, np.broadcast_to(self._desired(), q.shape),
                                band=band)

    def to_csv(self, path) -> None:
        """t, q1..qn, qd1..qdn, then tau1..taun and qdes1..qdesn when known (one run); a
        floating robot's base first: x, y, z, Q0..Q3 before q1, V01..W03 before qd1."""
        if self.q.ndim != 2:
            raise RobmodError("to_csv writes one run: index the batch first")
        base = (("x", "y", "z", "Q0", "Q1", "Q2", "Q3"), ("V01", "V02", "V03", "W01", "W02",
                                                          "W03")) if self.floating else ((), ())
        cols = [("q", self.q, base[0]), ("qd", self.qd, base[1]), ("tau", self.tau, ()),
                ("qdes", self.q_des, ())]
        cols = [(k, np.asarray(v), b) for k, v, b in cols if v is not None]
        head = ["t"] + [name for k, v, b in cols for name in
                        list(b) + [f"{k}{j}" for j in range(1, v.shape[1] - len(b) + 1)]]
        data = np.column_stack([self.t] + [v for _, v, _ in cols])
        np.savetxt(path, data, delimiter=",", header=",".join(head), comments="")

    def plot(self, path=None, *, joints=None, ax=None):
        """:func:`robmod.plot.simulation_plot` of this run (q against q_des, the tracking
        errors and the torques against their limits)."""
        from ..plot.simulation import simulation_plot   # delegation declared in pyproject.toml

        return simulation_plot(self, path, joints=joints, ax=ax)


__all__ = ["SimulationResult", "TrackingMetrics", "tracking_metrics"]
