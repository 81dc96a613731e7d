"""Signal processing for identification, as Gautier's method does it (Khalil & Dombre §12.5;
Gautier 1997).

1. q is low-pass filtered forward and backward (zero-phase Butterworth) and differentiated by
   central differences: qd, qdd without phase lag.  Measured velocities, when the log has
   them, are filtered and used instead of differentiated positions (differentiating
   quantized positions amplifies their noise).
2. The cut-off frequency: given, or chosen from the data: the frequency below which 99 % of
   the (detrended) position energy lies, times 5 (the filter must pass the motion's band with
   no distortion; Gautier recommends a cut-off of 5 to 10 times the dynamic bandwidth), kept
   below 0.4 times the sampling rate.
3. Parallel filtering and decimation: the torques Gamma and the columns of the observation
   matrix W are filtered by the *same* low-pass filter and decimated together, which removes
   the high-frequency torque ripple the model does not explain while keeping Gamma = W chi.
   The decimation factor keeps the decimated rate above 2.5 times the cut-off of step 2.

:class:`Processed` tells the user what was cut: the cut-offs, the factor, the samples dropped
at the ends (filter transients).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RobmodError
from .data import MeasuredData


@dataclass(frozen=True)
class Processed:
    """Filtered samples ready for the identification model: t, q, qd, qdd, tau (N, n)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray | None
    cutoff: float | None        # Hz, low-pass of q (and qd)
    decimation: int
    rate: float                 # Hz, after decimation
    notes: tuple
    segments: tuple = ()        # [start, stop) of each filtered segment in these arrays

    def __str__(self):
        return "\n".join(self.notes)


def butter_lowpass(x, rate: float, cutoff: float, order: int = 4, axis: int = 0):
    """Zero-phase Butterworth low-pass of ``x`` sampled at ``rate`` Hz."""
    from scipy.signal import butter, sosfiltfilt

    if not 0 < cutoff < rate / 2:
        raise RobmodError(f"cut-off {cutoff:g} Hz must be between 0 and half the sampling "
                          f"rate ({rate / 2:g} Hz)")
    sos = butter(order, cutoff, fs=rate, output="sos")
    return sosfiltfilt(sos, x, axis=axis)


def _motion_bandwidth(q, rate: float, energy: float = 0.99) -> float:
    """The frequency (Hz) below which ``energy`` of the detrended motion's power lies."""
    x = np.asarray(q, float)
    x = x - np.linspace(x[0], x[-1], x.shape[0])       # detrend (ends matched)
    X = np.abs(np.fft.rfft(x, axis=0)) ** 2
    P = X.sum(axis=1) if X.ndim == 2 else X
    c = np.cumsum(P[1:])
    if c[-1] <= 0:
        return rate / 100
    k = int(np.searchsorted(c, energy * c[-1])) + 1
    return float(k * rate / x.shape[0])


def choose_cutoff(q, rate: float) -> float:
    """5 times :func:`_motion_bandwidth`, in [0.5 Hz, 0.4 rate]."""
    return float(np.clip(5 * _motion_bandwidth(q, rate), min(0.5, 0.2 * rate), 0.4 * rate))


def process(data: MeasuredData, *, cutoff="auto", order: int = 4, decimate="auto",
            use_measured_velocity: bool = True) -> Processed:
    """Filter, differentiate and trim each segment of ``data`` (see the module's notes); the
    decimation factor chosen is returned, the decimation itself is applied by
    :func:`decimate_rows` to the torques and to the observation matrix together."""
    rate = data.sampling_rate
    h = 1.0 / rate
    notes = []
    if cutoff == "auto":
        cutoff = choose_cutoff(data.q, rate)
        notes.append(f"cut-off of q chosen from the data: {cutoff:.4g} Hz "
                     f"(5 x the band holding 99 % of the motion's energy)")
    elif cutoff is not None:
        cutoff = float(cutoff)
        notes.append(f"cut-off of q: {cutoff:.4g} Hz")
    edge = max(2, int(round(2.0 / (cutoff * h)))) if cutoff else 2
    parts = {k: [] for k in ("t", "q", "qd", "qdd", "tau")}
    segs, start = [], 0
    use_qd = use_measured_velocity and data.qd is not None
    for a, b in data.segments:
        if b - a <= 2 * edge + 4:
            notes.append(f"segment of {b - a} samples too short for the filter: dropped")
            continue
        q = data.q[a:b]
        qd = data.qd[a:b] if use_qd else None
        if cutoff:
            q = butter_lowpass(q, rate, cutoff, order)
            qd = butter_lowpass(qd, rate, cutoff, order) if qd is not None else None
        if qd is None:
            qd = np.gradient(q, h, axis=0)
        qdd = np.gradient(qd, h, axis=0)
        s = slice(edge, (b - a) - edge)
        parts["t"].append(data.t[a:b][s])
        segs.append((start, start + parts["t"][-1].size))
        start += parts["t"][-1].size
        parts["q"].append(q[s])
        parts["qd"].append(qd[s])
        parts["qdd"].append(qdd[s])
        if data.tau is not None:
            parts["tau"].append(data.tau[a:b][s])
    if not parts["t"]:
        raise RobmodError("no segment of the log is long enough to filter")
    notes.append(("measured velocities, filtered; " if use_qd else
                  "velocities by central differences of the filtered q; ")
                 + "accelerations by central differences; "
                 + f"{edge} samples dropped at each end of each segment (filter transients)")
    if decimate == "auto":
        target = 2.5 * (cutoff or rate / 10)
        decimate = max(1, int(rate // (2 * target)))
    decimate = int(decimate)
    if decimate < 1:
        raise RobmodError(f"decimate must be a whole number >= 1, got {decimate}")
    notes.append(f"parallel decimation of Gamma and W by {decimate} "
                 f"(rate {rate / decimate:.4g} Hz)")
    cat = (lambda xs: np.concatenate(xs) if xs else None)
    return Processed(cat(parts["t"]), cat(parts["q"]), cat(parts["qd"]), cat(parts["qdd"]),
                     cat(parts["tau"]), cutoff, decimate, rate / decimate, tuple(notes),
                     tuple(segs))


def decimate_rows(x, factor: int, axis: int = 0):
    """Low-pass (zero-phase, Chebyshev type I of scipy.signal.decimate) and keep one sample
    in ``factor`` along ``axis``: applied alike to Gamma and to the columns of W."""
    if factor <= 1:
        return np.asarray(x)
    from scipy.signal import decimate

    return decimate(np.asarray(x), factor, axis=axis, zero_phase=True)


__all__ = ["process", "Processed", "butter_lowpass", "choose_cutoff"]
