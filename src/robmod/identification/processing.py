"""Signal processing for identification, as Gautier's method does it (Khalil & Dombre,
identification of the dynamic parameters; Gautier 1997; Gautier & Poignet 2001).

1. Each segment of the log is low-pass filtered forward and backward (zero-phase
   Butterworth, :func:`butter_lowpass`, the one filter of the package) at the cut-off ``fc``:
   the positions, the measured velocities when the log has them (differentiating quantized
   positions amplifies their noise), and the torques; velocities and accelerations are central
   differences of the filtered signals, without phase lag.  The samples within one period of
   ``fc`` of each end of a segment (filter transients) are dropped -- of the edge of the
   recording software's filter for a log filtered before (its transients are in the log).
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
4. The Coulomb term is the sign of the filtered velocity, 0 where the raw measurement says
   the joint does not move (:func:`_still`): at rest, friction holds whatever torque it
   must, and the filtered velocity only rings there.
5. A log the recording software low-pass filtered already is recognised by its spectrum
   (:func:`band_edge`): above the edge of that filter a measured signal holds nothing but
   rounding, while a raw one holds its sensor's noise up to the Nyquist frequency.  When the
   torques and the accelerations are both band-limited, nothing is filtered again (the
   Coulomb columns are filtered at that edge, like the torques were, and the decimation
   follows Gautier's rule at it); when the torques only are, no cut-off below their edge is
   tried.

:class:`Processed` tells the user what was done: the cut-off, the factor, the samples dropped.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..description.arguments import keyword_options, number_array, positive_scalar
from ..errors import RobmodError
from ..geometry.floating import velocity_from_derivatives
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
    still: np.ndarray | None = None     # (N, n): the joint at rest by the raw measurement
    band: float | None = None           # Hz: the edge of a filter applied before (None: raw)

    @property
    def smoothing(self) -> float | None:
        """The low-pass the torques went through (Hz): the cut-off, else the recording
        software's (``band``); the Coulomb columns are filtered at it, like the torques."""
        return self.cutoff or self.band

    @property
    def decimated_rate(self) -> float:
        return self.rate / self.decimation

    def __str__(self):
        return "\n".join(self.notes)


def _still(data, a, b, use_qd):
    """(b - a, n_v): where the raw measurement says a joint does not move -- its measured
    velocity exactly 0, or (without one) its position unchanged from the sample before to the
    sample after: the sign of its velocity is unresolved there, and the Coulomb term 0 (the
    filtered velocity only rings there).  A joint creeping slowly keeps its friction: a
    threshold at 0.1 % of the top speed (what robmod did) doubled a UR10e's joint 5 error,
    whose drive holds the friction of its last motion while it creeps."""
    if use_qd:
        return data.qd[a:b] == 0
    q = data.q[a:b, 7:] if data.floating else data.q[a:b]
    still = np.zeros(q.shape, bool)
    if q.shape[0] >= 3:
        still[1:-1] = q[2:] == q[:-2]
        still[0], still[-1] = still[1], still[-2]
    if data.floating:
        still = np.concatenate([np.zeros((q.shape[0], 6), bool), still], axis=1)
    return still

#: a signal whose power above some frequency is below this fraction of its total has been
#: low-pass filtered before: a raw sensor's noise alone is far above it (80 dB below the
#: signal: the rounding of the recorded numbers, not a measurement)
BAND_FLOOR = 1e-8


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
    from scipy.fft import next_fast_len

    x = np.asarray(q, float)
    x = x - np.linspace(x[0], x[-1], x.shape[0])       # detrend (ends matched)
    n = next_fast_len(x.shape[0], real=True)          # a log's length may be a large prime
    X = np.abs(np.fft.rfft(x, n, axis=0)) ** 2
    P = X.sum(axis=1) if X.ndim == 2 else X
    c = np.cumsum(P[1:])
    if c[-1] <= 0:
        return rate / 100
    k = int(np.searchsorted(c, energy * c[-1])) + 1
    return float(k * rate / n)


@keyword_options()
def band_edge(x, rate: float, *, segments=None, floor: float = BAND_FLOOR) -> float | None:
    """The frequency (Hz) above which ``x`` (N, m) holds less than ``floor`` of its power,
    column by column, the largest over the columns, when it is below a quarter of the
    sampling rate (half the Nyquist band holds nothing: the signal was low-pass filtered
    before); None otherwise (a raw signal: its noise reaches the Nyquist frequency).  Judged
    on the longest segment (at most 2^16 samples from its middle), detrended, Hann window."""
    x = number_array(x, "x")
    rate = positive_scalar("rate", rate)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2 or not np.all(np.isfinite(x)):
        raise RobmodError(f"band_edge: x must be finite samples (N,) or (N, m), got shape "
                          f"{x.shape}")
    try:
        a, b = max(segments or ((0, x.shape[0]),), key=lambda s: s[1] - s[0])
        a, b = int(a), int(b)
    except (TypeError, ValueError):
        raise RobmodError(f"band_edge: segments must be (start, stop) pairs, got "
                          f"{segments!r}") from None
    if b - a > 65536:
        a, b = (a + b) // 2 - 32768, (a + b) // 2 + 32768
    x = x[a:b]
    if x.shape[0] < 64:
        return None
    x = x - np.linspace(x[0], x[-1], x.shape[0])
    P = np.abs(np.fft.rfft(x * np.hanning(x.shape[0])[:, None], axis=0)) ** 2
    total = P.sum(axis=0)
    live = total > 0
    if not live.any():
        return None
    tail = np.cumsum(P[::-1, live], axis=0)[::-1] / total[live]     # power at and above f
    k = max(int(np.argmax(col < floor)) if (col < floor).any() else P.shape[0]
            for col in tail.T)
    f = k * rate / x.shape[0]
    return float(f) if f < rate / 4 else None


def prefiltered(data: MeasuredData, use_measured_velocity: bool = True):
    """(band of the torques, band of the accelerations) in Hz (:func:`band_edge`) of a log:
    the accelerations by central differences of the measured velocities (or of q twice)."""
    if data.tau is None:
        return None, None
    rate, segs = data.sampling_rate, data.segments
    tau = band_edge(data.tau, rate, segments=segs)
    if tau is None:
        return None, None
    v = data.qd if use_measured_velocity and data.qd is not None else \
        np.gradient(data.q, axis=0)
    return tau, band_edge(np.gradient(v, axis=0), rate, segments=segs)


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
            use_measured_velocity: bool = True, band: float | None = None) -> Processed:
    """Filter, differentiate and trim each segment of ``data`` (see the module's notes);
    ``cutoff`` in Hz or None (no filter); ``decimate``: 'auto' (Gautier's rule) or a factor;
    ``band``: the edge (Hz) of a filter the log went through before (:func:`prefiltered`),
    for the decimation and the Coulomb columns when ``cutoff`` is None.  The decimation
    itself is applied by the model, to the torques and W together."""
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
    edge = transient(rate, cutoff or band)
    parts = {k: [] for k in ("t", "q", "qd", "qdd", "tau", "tauf", "index", "still")}
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
        still = _still(data, a, b, use_qd)
        if cutoff:   # q, qd and tau filtered in one call
            signals = [x for x in (q, qd, tau) if x is not None]
            out = np.split(butter_lowpass(np.column_stack(signals), rate, cutoff, order=order),
                           np.cumsum([x.shape[1] for x in signals])[:-1], axis=1)
            q = out.pop(0)
            qd = out.pop(0) if qd is not None else None
            tauf = out.pop(0) if tau is not None else None
        if data.floating:      # the base's twist and its derivative in the base frame
            q = np.concatenate([q[:, :3], q[:, 3:7] / np.linalg.norm(q[:, 3:7], axis=1,
                                                                     keepdims=True),
                                q[:, 7:]], axis=1)
            if qd is None:
                dq = np.gradient(q, h, axis=0)
                qd, qdd = velocity_from_derivatives(q, dq, np.gradient(dq, h, axis=0))
            else:
                qdd = np.gradient(qd, h, axis=0)
        else:
            if qd is None:
                qd = np.gradient(q, h, axis=0)
            qdd = np.gradient(qd, h, axis=0)
        s = slice(edge, (b - a) - edge)
        parts["t"].append(data.t[a:b][s])
        parts["index"].append(np.arange(a, b)[s])
        segs.append((start, start + parts["t"][-1].size))
        start += parts["t"][-1].size
        for k, v in (("q", q), ("qd", qd), ("qdd", qdd), ("tau", tau), ("tauf", tauf),
                     ("still", still)):
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
        decimate = _decimation_factor(rate, cutoff or band)
    if isinstance(decimate, bool) or int(decimate) != decimate or decimate < 1:
        raise RobmodError(f"decimate must be 'auto' or a whole number >= 1, got {decimate!r}")
    decimate = int(decimate)
    low = "; the low-pass at 0.8 x its Nyquist frequency or below" if cutoff or band else ""
    notes.append(f"parallel decimation of Gamma and W by {decimate} (rate {rate / decimate:.4g}"
                 f" Hz{low})")
    cat = (lambda xs: np.concatenate(xs) if xs else None)
    return Processed(cat(parts["t"]), cat(parts["q"]), cat(parts["qd"]), cat(parts["qdd"]),
                     cat(parts["tau"]), cutoff, decimate, rate, tuple(notes), tuple(segs),
                     cat(parts["index"]), cat(parts["tauf"]), still=cat(parts["still"]),
                     band=None if cutoff else band)


__all__ = ["process", "Processed", "butter_lowpass", "band_edge"]
