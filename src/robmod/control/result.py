"""Results of closed-loop simulations: time series, tracking metrics, plots."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RobmodError
from ..figures import finish, panels


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


def tracking_metrics(t, q, q_des, band: float = 0.02) -> TrackingMetrics:
    """RMS, maximum and final |error|; settling time (last time |e| leaves ``band`` times its
    initial value, or times the step q_des(end) - q(0) for a set-point change) and overshoot
    (largest motion past the final desired value, relative to the step)."""
    t = np.asarray(t)
    e = np.asarray(q_des) - np.asarray(q)
    rms = np.sqrt(np.mean(e ** 2, axis=0))
    emax = np.max(np.abs(e), axis=0)
    step = np.asarray(q_des)[-1] - np.asarray(q)[0]
    scale = np.maximum(np.abs(step), np.abs(e[0]))
    scale = np.where(scale > 0, scale, 1.0)
    outside = np.abs(e) > band * scale
    last = np.where(outside.any(axis=0),
                    (len(t) - 1) - np.argmax(outside[::-1], axis=0), -1)
    settle = np.where(last < 0, 0.0, t[np.minimum(last + 1, len(t) - 1)])
    past = (np.asarray(q) - np.asarray(q_des)[-1]) * np.sign(np.where(step == 0, 1.0, step))
    overshoot = np.where(np.abs(step) > 0, np.max(past, axis=0) / np.abs(np.where(
        step == 0, 1.0, step)), 0.0)
    return TrackingMetrics(rms, emax, np.abs(e[-1]), settle, np.maximum(overshoot, 0.0))


@dataclass(frozen=True)
class SimulationResult:
    """Time series of a run: t (T,), q, qd, tau (T, ..., n), the desired motion q_des, qd_des,
    qdd_des (T, n), the controller's final state, the plant robot, the controller and the
    torque limits used (or None)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    q_des: np.ndarray
    qd_des: np.ndarray
    qdd_des: np.ndarray
    controller_state: np.ndarray
    robot: object
    controller: object
    tau_limit: np.ndarray | None = None

    @property
    def error(self) -> np.ndarray:
        """e = q_des - q (T, ..., n)."""
        qdes = self.q_des.reshape(self.q_des.shape[:1] + (1,) * (self.q.ndim - 2)
                                  + self.q_des.shape[-1:])
        return qdes - self.q

    def metrics(self, band: float = 0.02) -> TrackingMetrics:
        qdes = self.q_des.reshape(self.q_des.shape[:1] + (1,) * (self.q.ndim - 2)
                                  + self.q_des.shape[-1:])
        return tracking_metrics(self.t, self.q, np.broadcast_to(qdes, self.q.shape), band)

    def to_csv(self, path) -> None:
        """t, q1..qn, qd1..qdn, tau1..taun, qdes1..qdesn (single runs)."""
        if self.q.ndim != 2:
            raise RobmodError("to_csv writes one run: index the batch first")
        n = self.q.shape[1]
        head = (["t"] + [f"q{j}" for j in range(1, n + 1)] + [f"qd{j}" for j in range(1, n + 1)]
                + [f"tau{j}" for j in range(1, n + 1)] + [f"qdes{j}" for j in range(1, n + 1)])
        data = np.column_stack([self.t, self.q, self.qd, self.tau, self.q_des])
        np.savetxt(path, data, delimiter=",", header=",".join(head), comments="")

    def plot(self, path=None, joints=None, *, ax=None):
        """q against q_des, the tracking errors and the torques against their limits (one run).
        Returns the Matplotlib figure; writes it to ``path`` when given, draws on the 3 Axes
        ``ax`` when given."""
        if self.q.ndim != 2:
            raise RobmodError("plot draws one run: index the batch first")
        fig, axes = panels(path, ax, 3, 1, figsize=(8, 8), sharex=True)
        js = range(self.q.shape[1]) if joints is None else [j - 1 for j in joints]
        for j in js:
            line, = axes[0].plot(self.t, self.q[:, j], label=f"q{j + 1}")
            axes[0].plot(self.t, self.q_des[:, j], "--", color=line.get_color())
            axes[1].plot(self.t, self.error[:, j], color=line.get_color())
            axes[2].plot(self.t, self.tau[:, j], color=line.get_color())
            if self.tau_limit is not None:
                for s in (-1, 1):
                    axes[2].axhline(s * self.tau_limit[j], color=line.get_color(), lw=0.5,
                                    ls=":")
        axes[0].set_ylabel("q, q_des (dashed)")
        axes[1].set_ylabel("error q_des - q")
        axes[2].set_ylabel("torque")
        axes[2].set_xlabel("t (s)")
        axes[0].legend(loc="best", fontsize="small")
        return finish(fig, path, layout=ax is None)


__all__ = ["SimulationResult", "TrackingMetrics", "tracking_metrics"]
