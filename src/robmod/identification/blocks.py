"""The blocks of the cross-validations: held-out data hold a part of the motion the fit has
not seen.

Contiguous time blocks serve a motion that does not repeat (random rows would share their
neighbours' information through the filter).  Excitation motions are periodic, though (finite
Fourier series, Swevers et al. 1997), and recorded over several periods, often in several
logs of the same trajectory: a time block then has its twin -- the same piece of motion one
period later -- in the fit data, and the cross-validation measures the noise only, not how a
model predicts a motion it has not seen.  So a log that repeats itself (its positions'
autocorrelation above ``REPEAT`` at a lag T: the period) is cut by phase: block k holds the
k-th fraction of every period, in every log of that motion (logs of one trajectory aligned on
each other by their cross-correlation); other logs by time.
"""
from __future__ import annotations

import numpy as np

#: a log repeats itself with period T when its positions' autocorrelation at lag T is above
#: this (the repetitions differ by less than 1 % of the motion's variance)
REPEAT = 0.99


def _autocorrelation(x) -> np.ndarray:
    """Normalized autocorrelation (unbiased, summed over the columns) of x (N, m)."""
    x = x - x.mean(axis=0)
    n = x.shape[0]
    F = np.fft.rfft(x, 2 * n, axis=0)
    ac = np.fft.irfft(np.abs(F) ** 2, 2 * n, axis=0)[:n].sum(axis=1)
    ac = ac / np.arange(n, 0, -1)
    return ac / ac[0] if ac[0] > 0 else ac


def _period(q, *, repeat: float = REPEAT) -> int | None:
    """The period (samples) of a motion that repeats itself in ``q`` (N, m) -- over a third
    of the log at least: a twin of a piece of motion in the fit data -- the first peak of its
    autocorrelation above ``repeat``; None otherwise."""
    q = np.asarray(q, float)
    n = q.shape[0]
    if n < 16 or not np.any(np.ptp(q, axis=0) > 0):
        return None
    step = max(1, n // 4096)          # positions are smooth: a period needs no more samples
    if step > 1:
        L = _period(q[::step], repeat=repeat)
        return None if L is None else L * step
    ac = _autocorrelation(q)
    below = np.flatnonzero(ac[1:] < 0.5)
    if below.size == 0:
        return None
    start = int(below[0]) + 1
    top = (2 * n) // 3
    for L in range(start + 1, top):
        if ac[L] >= repeat and ac[L] >= ac[L - 1] and ac[L] >= ac[L + 1]:
            return L
    return None


def _shift(ref, x, L) -> int | None:
    """The shift (samples) that brings one period of ``x`` onto one period of ``ref`` (both
    period L), when they are the same motion (circular correlation above REPEAT)."""
    a, b = ref[:L] - ref[:L].mean(0), x[:L] - x[:L].mean(0)
    fa, fb = np.fft.rfft(a, axis=0), np.fft.rfft(b, axis=0)
    cc = np.fft.irfft((fa * np.conj(fb)).sum(axis=1), L)
    norm = np.sqrt((a ** 2).sum() * (b ** 2).sum())
    k = int(np.argmax(cc))
    return k if norm > 0 and cc[k] / norm >= REPEAT else None


def motion_blocks(q, segments, folds: int) -> tuple:
    """(block (N,), distance (N,), note): the block of each sample of a log of positions
    ``q`` (N, m) with its ``segments``, and its distance (samples) to the nearest block
    boundary (the samples a filter's reach from one carry information across it: left out of
    the fits); see the module's notes."""
    q = np.asarray(q, float)
    N, K = q.shape[0], int(folds)
    block = np.minimum((np.arange(N) * K) // max(N, 1), K - 1)
    edges = np.linspace(0, N, K + 1).astype(int)[1:-1]
    pos = np.arange(N)
    dist = (np.min(np.abs(pos[:, None] - edges[None, :]), axis=1) if edges.size
            else np.full(N, N))
    ref, periodic = None, []
    for a, b in segments:
        L = _period(q[a:b])
        if L is None:
            continue
        if ref is None or b - a > ref[1] - ref[0]:
            ref = (a, b, L)
        periodic.append((a, b, L))
    for a, b, L in periodic:
        phase0 = 0
        ra, rb, RL = ref
        if abs(L - RL) <= 0.01 * RL and (a, b) != (ra, rb):
            s = _shift(q[ra:rb], q[a:b], RL)
            if s is not None:            # sample i of this log is at phase i + s of ref's
                L, phase0 = RL, s
        phase = (np.arange(b - a) + phase0) % L
        block[a:b] = np.minimum((phase * K) // L, K - 1)
        bounds = np.arange(K + 1) * L / K
        d = np.min(np.abs(phase[:, None] - bounds[None, :]), axis=1)
        dist[a:b] = d
    note = None
    if periodic:
        note = (f"the log repeats its motion (period {ref[2]} samples): the cross-validation "
                f"holds out the same piece of every period ({K} blocks of phase)")
    return block, dist, note


__all__ = []
