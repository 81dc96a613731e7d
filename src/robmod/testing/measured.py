"""Simulated measurement logs of a robot, for tests and examples of identification."""
from __future__ import annotations

import numpy as np

from ..dynamics.newton_euler import idm
from ..identification.data import MeasuredData, clean


def simulated_log(robot, trajectory, *, duration=None, rate: float = 1000.0,
                  jitter: float = 0.0, encoder_bits: int | None = 18,
                  torque_noise: float = 0.02, rated=None, velocity_noise: float | None = None,
                  seed: int = 0) -> MeasuredData:
    """A log of ``robot`` (numeric, the truth) following ``trajectory`` (``sample(t)``).

    Time stamps at ``rate`` Hz with a random jitter (fraction of the step); positions
    quantized by encoders of ``encoder_bits`` bits per turn; torques from the IDM (rotor,
    friction included) plus white noise of ``torque_noise`` times the rated torque (``rated``
    per joint, default the largest |torque| of each joint along the motion); measured
    velocities with noise ``velocity_noise`` (rad/s) when given.
    """
    rng = np.random.default_rng(seed)
    duration = trajectory.duration if duration is None else duration
    N = int(round(duration * rate)) + 1
    t = np.arange(N) / rate
    if jitter:
        t = t + rng.uniform(-jitter, jitter, N) / rate
        t.sort()
    q, qd, qdd = trajectory.sample(t)
    tau = idm(robot, q, qd, qdd)
    rated = np.abs(tau).max(0) if rated is None else np.broadcast_to(rated, tau.shape[1:])
    tau = tau + rng.normal(size=tau.shape) * torque_noise * rated
    if encoder_bits:
        res = 2 * np.pi / 2 ** encoder_bits
        q = np.round(q / res) * res
    meas_qd = None
    if velocity_noise is not None:
        meas_qd = qd + rng.normal(size=qd.shape) * velocity_noise
    return clean(MeasuredData(t, q, meas_qd, tau, source="simulated log"))


__all__ = ["simulated_log"]
