"""Signal processing for identification, as Gautier's method does it (Khalil & Dombre,
identification of the dynamic parameters; Gautier 1997; Gautier & Poignet 2001).

1. Each segment of the log is low-pass filtered forward and backward (zero-phase
   Butterworth, :func:`butter_lowpass`, the one filter of the package) at the cut-off ``fc``:
   the positions, the measured velocities when the log has them (differentiating quantized
   positions amplifies their noise), and the torques; velocities and accelerations are central
   differences of the filtered signals, without phase lag.  The samples within one period of
   ``fc`` of each end of a segment (filter transients) are dropped.
2. Parallel filtering and decimation: the torques and the observation matrix are filtered by
   the same low-pass and decimated together, which removes the torque noise the model does not
   explain while keeping ``Gamma = W chi``.  The columns of W that are linear in the filtered
   signals (accelerations, velocities, offsets) are the filtered ones already; the model's
   other columns are smooth functions of the filtered motion whose band is far below ``fc``;
   the Coulomb columns sign(qd) are not (a step at each reversal): they are computed at every
   sample and filtered like the torques (:meth:`.model.IdentificationModel.observation`).
   The decimation factor follows Gautier's rule: the low-pass sits at 0.8 times the Nyquist
   frequency of the decimated rate, ``n_d = floor(0.8 rate / (2 fc))``.
3. The cut-off is chosen from the data by cross-validation (:mod:`.cutoff`), or given.
4. A joint whose filtered velocity is below 0.1 % of its largest is at rest: the Coulomb
   term's sign(qd) is 0 there (the sign of the filter's ringing around a stop is no
   information; at rest, friction holds whatever torque it must, which no model of the
   velocity predicts).

:class:`Processed` tells the user what was done: the cut-off, the factor, the samples dropped.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..description.arguments import keyword_options, number_array, positive_scalar
from ..errors import RobmodError
from .data import MeasuredData


@dataclass(frozen=True)
class Processed:
    """Filtered samples ready for the identification model: t, q, qd, qdd (N, n) at the
    sampling rate ``rate``; ``tau`` the measured torques at these samples, ``tau_filtered``
    the same low-passed at ``cutoff``; ``decimation`` the factor of the parallel decimation;
    ``segments`` the [start, stop) of each filtered piece, ``index`` the sample of the data
    each row comes from; ``choice`` the cross-validation of the cut-off when it was chosen."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray | None
    cutoff: float | None        # Hz, low-pass of q, qd and tau
    decimation: int
    rate: float                 # Hz, of these arrays (before decimation)
    notes: tuple
    segments: tuple = ()
    index: np.ndarray | None = None
    tau_filtered: np.ndarray | None = None
    choice: object = None
    still: np.ndarray | None = None     # per joint: |qd| below it is a joint at rest

    @property
    def decimated_rate(self) -> float:
        return self.rate / self.decimation

    def __str__(self):
        return "\n".join(self.notes)


#: a joint whose |qd| is below this fraction of its largest velocity is at rest: zero-phase
#: filters ring around a stop (a few per cent of the step, decaying), and the sign of such a
#: velocity -- which the Coulomb term takes -- is the ringing's, not the motion's
STILL = 1e-3


@keyword_options()
def butter_lowpass(x, rate: float, cutoff: float, *, order: int = 4, axis: int = 0):
    """Zero-phase Butterworth low-pass of ``x`` sampled at ``rate`` Hz (-6 dB at ``cutoff``)."""
    from scipy.signal import sosfiltfilt

    rate, cutoff = positive_scalar("rate", rate), positive_scalar("cutoff", cutoff)
    if not 0 < cutoff < rate / 2:
        raise RobmodError(f"cut-off {cutoff:g} Hz must be between 0 and half the sampling "
                          f"rate ({rate / 2:g} Hz)")
    sos = _butter(int(order), float(cutoff), float(rate))
    x = number_array(x, "x")
    if x.ndim == 2 and axis in (0, -2):   # filtering along the last axis of a contiguous
        return sosfiltfilt(sos, np.ascontiguousarray(x.T), axis=-1).T   # copy is faster
    return sosfiltfilt(sos, x, axis=axis)


@functools.lru_cache(maxsize=64)
def _butter(order, cutoff, rate):
    from scipy.signal import butter

    return butter(order, cutoff, fs=rate, output="sos")


def motion_bandwidth(q, rate: float, energy: float = 0.99) -> float:
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


def _decimation_factor(rate: float, cutoff: float | None) -> int:
    """Gautier's rule: the largest factor whose new Nyquist frequency times 0.8 stays above
    the cut-off of the parallel low-pass."""
    if not cutoff:
        return 1
    return max(1, int(np.floor(0.8 * rate / (2 * cutoff))))


def transient(rate: float, cutoff: float | None) -> int:
    """Samples dropped at each end of a segment: one period of the cut-off (at least 2)."""
    return max(2, int(np.ceil(rate / cutoff))) if cutoff else 2


@keyword_options()
def process(data: MeasuredData, *, cutoff=None, order: int = 4, decimate="auto",
            use_measured_velocity: bool = True) -> Processed:
    """Filter, differentiate and trim each segment of ``data`` (see the module's notes);
    ``cutoff`` in Hz or None (no filter); ``decimate``: 'auto' (Gautier's rule) or a factor.
    The decimation itself is applied by the model, to the torques and W together."""
    if isinstance(cutoff, str):
        raise RobmodError(f"process takes a cut-off in Hz or None, got {cutoff!r}: the "
                          "choice from the data needs the model (DynamicIdentification, "
                          "robmod.identification.choose_cutoff)")
    rate = data.sampling_rate
    h = 1.0 / rate
    if cutoff is not None:
        cutoff = float(cutoff)
        if not 0 < cutoff < rate / 2:
            raise RobmodError(f"cutoff: {cutoff:g} Hz must be between 0 and half the sampling "
                              f"rate ({rate / 2:g} Hz)")
    edge = transient(rate, cutoff)
    parts = {k: [] for k in ("t", "q", "qd", "qdd", "tau", "tauf", "index")}
    segs, start, notes = [], 0, []
    use_qd = use_measured_velocity and data.qd is not None
    for a, b in data.segments:
        if b - a <= 2 * edge + 4:
            notes.append(f"segment of {b - a} samples too short for the filter: dropped")
            continue
        q = data.q[a:b]
        qd = data.qd[a:b] if use_qd else None
        tau = data.tau[a:b] if data.tau is not None else None
        tauf = tau
        if cutoff:   # q, qd and tau filtered in one call
            signals = [x for x in (q, qd, tau) if x is not None]
            out = np.split(butter_lowpass(np.column_stack(signals), rate, cutoff, order=order),
                           len(signals), axis=1)
            q = out.pop(0)
            qd = out.pop(0) if qd is not None else None
            tauf = out.pop(0) if tau is not None else None
        if qd is None:
            qd = np.gradient(q, h, axis=0)
        qdd = np.gradient(qd, h, axis=0)
        s = slice(edge, (b - a) - edge)
        parts["t"].append(data.t[a:b][s])
        parts["index"].append(np.arange(a, b)[s])
        segs.append((start, start + parts["t"][-1].size))
        start += parts["t"][-1].size
        for k, v in (("q", q), ("qd", qd), ("qdd", qdd), ("tau", tau), ("tauf", tauf)):
            if v is not None:
                parts[k].append(v[s])
    if not parts["t"]:
        raise RobmodError("no segment of the log is long enough to filter")
    notes.append((f"low-pass at {cutoff:.4g} Hz (zero-phase Butterworth) of q"
                  + (", the measured velocities" if use_qd else "") + " and the torques; "
                  if cutoff else "no filter; ")
                 + ("measured velocities; " if use_qd and not cutoff else "")
                 + ("" if use_qd else "velocities by central differences of q; ")
                 + "accelerations by central differences; "
                 + f"{edge} samples dropped at each end of each segment (filter transients)")
    if isinstance(decimate, str):
        if decimate != "auto":
            raise RobmodError(f"decimate must be 'auto' or a whole number >= 1, got "
                              f"{decimate!r}")
        decimate = _decimation_factor(rate, cutoff)
    if isinstance(decimate, bool) or int(decimate) != decimate or decimate < 1:
        raise RobmodError(f"decimate must be 'auto' or a whole number >= 1, got {decimate!r}")
    decimate = int(decimate)
    notes.append(f"parallel decimation of Gamma and W by {decimate} (rate {rate / decimate:.4g}"
                 f" Hz{'; the low-pass at 0.8 x its Nyquist frequency or below' if cutoff else ''})")
    cat = (lambda xs: np.concatenate(xs) if xs else None)
    qd = cat(parts["qd"])
    still = STILL * np.abs(qd).max(axis=0)
    return Processed(cat(parts["t"]), cat(parts["q"]), qd, cat(parts["qdd"]),
                     cat(parts["tau"]), cutoff, decimate, rate, tuple(notes), tuple(segs),
                     cat(parts["index"]), cat(parts["tauf"]), still=still)


__all__ = ["process", "Processed", "butter_lowpass"]
