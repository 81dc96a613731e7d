"""Measured data for identification: the samples of a log, checked and cleaned.

A log holds the time, the joint positions and optionally the joint velocities and torques
(read from files by :func:`~.logfile.load_log`).  :func:`clean` never passes a problem on
silently: it refuses non-monotonic time stamps (naming the row), drops duplicated stamps and
rows holding NaN or infinite values, splits the log at gaps, resamples irregular stamps onto
a uniform grid, and lists what it did in :attr:`MeasuredData.notes`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..description.arguments import keyword_options, number_array, positive_scalar
from ..errors import ArgumentError, RobmodError

@dataclass(frozen=True)
class MeasuredData:
    """Samples of one robot: t (N,), q (N, n) and optionally qd, qdd, tau (N, n).

    ``segments``: index ranges [start, stop) of pieces without gaps (filters and derivatives
    are applied per segment); ``notes``: what loading and cleaning found and did.

    ``floating``: a floating robot's log (robmod.description.base): q (N, 7 + n) its
    configuration (base position, quaternion, joints), qd and qdd (N, 6 + n) its velocity
    (base twist in the base frame, e.g. from an IMU, then the joints'), tau (N, 6 + n) or
    (N, 6): the wrench the environment exerts on the base (contact force sensors; zero in
    flight or in space), at O_0 in frame 0, then the joint torques when they are measured.

    ``torque``: where the torques were measured, when the log says it: ``'motor'`` (motor
    currents, the drive's side: rotor inertia and gear friction included) or ``'link'``
    (joint torque sensors after the gear: they see neither); None when unknown.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray | None = None
    tau: np.ndarray | None = None
    qdd: np.ndarray | None = None
    segments: tuple = ()
    source: str = "arrays"
    notes: tuple = field(default_factory=tuple)
    floating: bool = False
    torque: str | None = None

    def __post_init__(self):
        if self.torque not in (None, "link", "motor"):
            raise ArgumentError(f"{self.source}: torque must be 'link', 'motor' or None (where "
                                f"the torques are measured), got {self.torque!r}")
        t = number_array(self.t, "t")
        object.__setattr__(self, "t", t)
        if t.ndim != 1 or t.size < 2:
            raise ArgumentError(f"{self.source}: the time must be a vector of at least 2 "
                              f"samples, got shape {t.shape}")
        for name in ("q", "qd", "tau", "qdd"):
            v = getattr(self, name)
            if v is None:
                if name == "q":
                    raise ArgumentError(f"{self.source}: the joint positions q are needed")
                continue
            v = number_array(v, name)
            if v.ndim == 1:
                v = v[:, None]
            if v.shape[0] != t.size:
                raise RobmodError(f"{self.source}: {name} has {v.shape[0]} samples, the time "
                                  f"has {t.size} (mismatched lengths)")
            object.__setattr__(self, name, v)
        if self.q.shape[1] == 0:
            raise RobmodError(f"{self.source}: no joint position column")
        if self.floating and self.q.shape[1] < 7:
            raise RobmodError(f"{self.source}: a floating robot's q holds the base position "
                              f"and quaternion (7 values) then the joints, got {self.q.shape[1]}")
        for name in ("qd", "tau", "qdd"):
            v = getattr(self, name)
            sizes = (self.q.shape[1],) if not self.floating else \
                ((self.q.shape[1] - 1, 6) if name == "tau" else (self.q.shape[1] - 1,))
            if v is not None and v.shape[1] not in sizes:
                raise RobmodError(f"{self.source}: {name} has {v.shape[1]} columns, expected "
                                  f"{' or '.join(map(str, sizes))} (q has {self.q.shape[1]})")
        if not self.segments:
            object.__setattr__(self, "segments", ((0, t.size),))

    @property
    def n_joints(self) -> int:
        return self.q.shape[1] - (7 if self.floating else 0)

    @property
    def n_samples(self) -> int:
        return self.t.size

    @property
    def sampling_rate(self) -> float:
        """1 / median time step (Hz)."""
        return float(1.0 / np.median(np.diff(self.t)))

    def __len__(self):
        return self.t.size

    def __repr__(self):
        parts = [f"{self.n_samples} samples", f"{self.n_joints} joints",
                 f"{self.sampling_rate:.4g} Hz"]
        parts += [k for k in ("qd", "tau") if getattr(self, k) is not None]
        return f"MeasuredData({', '.join(parts)}, from {self.source})"

    def select(self, index) -> "MeasuredData":
        """The samples ``index`` (a slice or a boolean/integer array) as one segment."""
        pick = (lambda v: None if v is None else v[index])
        return replace(self, t=self.t[index], q=self.q[index], qd=pick(self.qd),
                       tau=pick(self.tau), qdd=pick(self.qdd), segments=())


# -- cleaning ------------------------------------------------------------------------------------

@keyword_options()
def clean(data: MeasuredData, *, gap: float = 5.0, jitter: float = 0.01) -> MeasuredData:
    """Check and clean a log (see the module's description).

    ``gap``: a step longer than ``gap`` median steps splits the log; ``jitter``: if the steps
    vary by more than this fraction of the median step, every segment is resampled on a
    uniform grid by cubic interpolation of q (and linear interpolation of qd and tau).
    """
    notes = list(data.notes)
    t = data.t
    if not np.all(np.isfinite(t)):
        bad = np.flatnonzero(~np.isfinite(t))
        raise RobmodError(f"{data.source}: the time is NaN or infinite at row(s) "
                          f"{', '.join(map(str, bad[:5] + 1))}")
    dt = np.diff(t)
    back = np.flatnonzero(dt < 0)
    if back.size:
        k = int(back[0]) + 1
        raise RobmodError(f"{data.source}: the time goes backwards at row {k + 1} "
                          f"({t[k - 1]:.9g} -> {t[k]:.9g}): sort the log or fix its clock")
    keep = np.ones(t.size, bool)
    dup = np.flatnonzero(dt == 0) + 1
    if dup.size:
        keep[dup] = False
        notes.append(f"dropped {dup.size} duplicated time stamps")
    arrays = [v for v in (data.q, data.qd, data.tau) if v is not None]
    nan_rows = ~np.all(np.isfinite(np.column_stack(arrays)), axis=1)
    if nan_rows.any():
        keep &= ~nan_rows
        notes.append(f"dropped {int(nan_rows.sum())} rows with NaN or infinite values")
    if not keep.all():
        data = data.select(keep)
        t = data.t
    if t.size < 10:
        raise RobmodError(f"{data.source}: only {t.size} valid samples left")
    for name in ("q",):
        v = getattr(data, name)
        still = np.flatnonzero(np.ptp(v, axis=0) == 0)
        if still.size:
            notes.append(f"joint(s) {', '.join(str(j + 1) for j in still)} do not move")
    dt = np.diff(t)
    h = float(np.median(dt))
    _check_units(data, h)
    cuts = np.flatnonzero(dt > gap * h) + 1
    bounds = [0, *cuts.tolist(), t.size]
    segments = tuple((a, b) for a, b in zip(bounds[:-1], bounds[1:]))
    if cuts.size:
        notes.append(f"split at {cuts.size} gap(s) longer than {gap:g} steps: "
                     f"{len(segments)} segments")
    irregular = np.max(np.abs(dt[np.setdiff1d(np.arange(dt.size), cuts - 1)] - h)) > jitter * h
    data = replace(data, segments=segments, notes=tuple(notes))
    if irregular:
        if _regular_samples(data, h):
            return _uniform_stamps(data)
        data = resample(data, 1.0 / h)
    return data


def _roughness(x) -> float:
    """|third differences|^2 / |first differences|^2 of x (N, m): small for a smooth motion
    on a uniform grid, large when the samples sit at other times than the grid says."""
    d1, d3 = np.diff(x, axis=0), np.diff(x, 3, axis=0)
    return float(np.sum(d3 ** 2) / max(np.sum(d1 ** 2), 1e-300))


def _regular_samples(data: MeasuredData, h: float) -> bool:
    """Irregular stamps on regular samples?  A logger that stamps late or early (its clock
    read when the row is written) makes the stamps irregular while the samples were taken at
    a fixed rate, and resampling by the stamps then spoils them; samples truly taken at
    irregular times look rough on a uniform grid instead.  The reading whose motion is
    smoother (:func:`_roughness` of q on the longest segment) is the right time base."""
    from scipy.interpolate import CubicSpline

    a, b = max(data.segments, key=lambda s: s[1] - s[0])
    if b - a < 16:
        return False
    if b - a > 4096:                           # a piece from the middle says it
        a, b = (a + b) // 2 - 2048, (a + b) // 2 + 2048
    t, q = data.t[a:b], data.q[a:b]
    grid = t[0] + h * np.arange(int(np.floor((t[-1] - t[0]) / h)) + 1)
    return _roughness(q) < _roughness(CubicSpline(t, q, axis=0)(grid))


def _uniform_stamps(data: MeasuredData) -> MeasuredData:
    """Each segment's samples on a uniform grid from its first to its last stamp."""
    t = data.t.copy()
    for a, b in data.segments:
        t[a:b] = np.linspace(data.t[a], data.t[b - 1], b - a)
    rate = (len(t) - len(data.segments)) / sum(data.t[b - 1] - data.t[a]
                                               for a, b in data.segments)
    return replace(data, t=t, notes=data.notes + (
        f"irregular time stamps on regular samples (the motion is smoother sample by sample "
        f"than at its stamps: the logger's clock jitters): stamps made uniform, "
        f"{rate:.6g} Hz",))


def _check_units(data: MeasuredData, h: float) -> None:
    """Refuse data whose units are implausible: a sampling rate outside 1 Hz - 1 MHz (the time
    column in ms or ns: use time_scale), a joint range over 20 (degrees or millimetres instead
    of radians or metres), measured velocities that are not the derivative of q (ratio outside
    [0.5, 2]: degrees/s, rpm, motor side)."""
    rate = 1.0 / h
    if not 1.0 <= rate <= 1e6:
        raise RobmodError(f"{data.source}: {rate:.4g} samples per second: is the time in "
                          "seconds? (give time_scale=1e-3 for ms, 1e-9 for ns)")
    span = np.ptp(data.q[:, 7:] if data.floating else data.q, axis=0)
    big = np.flatnonzero(span > 20.0)
    if big.size:
        j = int(big[0])
        raise RobmodError(f"{data.source}: joint {j + 1} spans {span[j]:.4g}: positions must be "
                          "in radians (revolute) or metres (prismatic), not degrees or mm")
    if data.qd is not None and not data.floating:
        dq = np.gradient(data.q, data.t, axis=0)
        for j in range(data.n_joints):
            den = float(dq[:, j] @ dq[:, j])
            if den <= 1e-12 * len(dq) or span[j] < 1e-2:   # still (encoder noise): no judge
                continue
            ratio = float(data.qd[:, j] @ dq[:, j]) / den
            if not 0.5 <= ratio <= 2.0:
                raise RobmodError(f"{data.source}: the measured velocity of joint {j + 1} is "
                                  f"{ratio:.4g} times the derivative of its position: the units "
                                  "differ (degrees/s, rpm, motor side?)")


def resample(data: MeasuredData, rate: float) -> MeasuredData:
    """Each segment on a uniform grid at ``rate`` Hz (cubic spline of q, linear qd, tau)."""
    from scipy.interpolate import CubicSpline

    if not all(hasattr(data, k) for k in ("t", "q", "segments")):
        raise ArgumentError(f"resample takes MeasuredData, got {type(data).__name__}")
    h = 1.0 / positive_scalar("rate", rate)
    ts, qs, qds, taus, segs = [], [], [], [], []
    start = 0
    for a, b in data.segments:
        if b - a < 4:
            continue
        t = data.t[a:b]
        grid = t[0] + h * np.arange(int(np.floor((t[-1] - t[0]) / h)) + 1)
        ts.append(grid)
        qs.append(CubicSpline(t, data.q[a:b], axis=0)(grid))
        if data.qd is not None:
            qds.append(np.column_stack([np.interp(grid, t, c) for c in data.qd[a:b].T]))
        if data.tau is not None:
            taus.append(np.column_stack([np.interp(grid, t, c) for c in data.tau[a:b].T]))
        segs.append((start, start + grid.size))
        start += grid.size
    cat = (lambda xs: np.concatenate(xs) if xs else None)
    notes = data.notes + (f"irregular time stamps: resampled at {rate:.6g} Hz",)
    return MeasuredData(cat(ts), cat(qs), cat(qds), cat(taus), None, tuple(segs), data.source,
                        notes, data.floating, data.torque)


def join_logs(logs) -> MeasuredData:
    """Several logs of one robot as one :class:`MeasuredData` fitted together: each log (each
    of its segments) stays a segment of its own -- filtered on its own, no derivative across
    the gap between two logs -- and the time of each log follows the previous one's."""
    if isinstance(logs, MeasuredData):
        return logs
    logs = list(logs) if isinstance(logs, (list, tuple)) else None
    if not logs or not all(isinstance(x, MeasuredData) for x in logs):
        raise ArgumentError("join_logs: expected MeasuredData or a non-empty list of them "
                            "(robmod.identification.load_log)")
    if len(logs) == 1:
        return logs[0]
    first = logs[0]
    for x in logs[1:]:
        if x.q.shape[1] != first.q.shape[1] or x.floating != first.floating:
            raise RobmodError(f"join_logs: {x.source} has {x.q.shape[1]} position columns, "
                              f"{first.source} {first.q.shape[1]}: logs of one robot expected")
        for name in ("qd", "tau", "qdd"):
            if (getattr(x, name) is None) != (getattr(first, name) is None):
                raise RobmodError(f"join_logs: {x.source} and {first.source} differ: one has "
                                  f"{name}, the other not")
    sides = {x.torque for x in logs} - {None}
    if len(sides) > 1:
        raise RobmodError("join_logs: the logs measure torques on different sides "
                          f"({', '.join(sorted(sides))})")
    t, segments, notes, start, offset = [], [], [], 0, 0.0
    for x in logs:
        t.append(x.t - x.t[0] + offset)
        step = float(np.median(np.diff(x.t)))
        offset = t[-1][-1] + 100 * step              # a gap: never one segment
        segments += [(start + a, start + b) for a, b in x.segments]
        start += x.n_samples
        notes += [f"{x.source}: {n}" for n in x.notes]
    cat = (lambda name: None if getattr(first, name) is None else
           np.concatenate([getattr(x, name) for x in logs]))
    notes.append(f"{len(logs)} logs fitted together ({', '.join(x.source for x in logs)}): "
                 "each filtered on its own, no derivative across their gaps")
    return MeasuredData(np.concatenate(t), cat("q"), cat("qd"), cat("tau"), cat("qdd"),
                        tuple(segments), f"{len(logs)} logs", tuple(notes), first.floating,
                        sides.pop() if sides else None)


__all__ = ["MeasuredData", "clean", "resample", "join_logs"]
