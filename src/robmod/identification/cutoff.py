"""The cut-off of the identification filter chosen from the data by cross-validation in time.

The filter trades noise (too high a cut-off: differentiated positions and torque ripple leak
into W and Gamma) against distortion (too low: the motion's own dynamics, the tracking errors
of the position loop, are cut).  Rules of thumb (a cut-off 5 to 10 times the motion's band,
or at least 10 times the position loop's bandwidth, Gautier) need numbers a log does not
carry, and a fixed fraction of the Nyquist frequency depends on the logging rate.  Here the
choice is the one that predicts best the torques the fit has not seen:

* the log is cut into ``folds`` blocks of its motion (:mod:`.blocks`: contiguous in time --
  random rows would share their neighbours' information through the filter -- or by phase
  for a log that repeats its motion, whose time blocks have twins in the fit data);
* for each cut-off of a geometric grid from the motion's band (99 % of its energy, at least
  0.5 Hz) to 0.4 times the sampling rate, then the geometric middles on each side of the
  best of the grid, the whole pipeline runs -- zero-phase filter,
  differentiation, parallel filtering and decimation by Gautier's rule
  (:mod:`.processing`) -- and for each block the model fitted on the other blocks (rows
  within the filter's reach of a block boundary left out) predicts the block's *measured*
  torques from its filtered motion, at the same samples for every cut-off;
* the criterion is the held-out error of each joint relative to its torque, averaged over the
  joints; the cut-off with the smallest is chosen.  The curve is kept
  (:class:`CutoffChoice`, ``est.processed_.choice``) and drawn by
  :func:`robmod.plot.cutoff_plot`;
* a choice at an end of the grid (``CutoffChoice.edge``) is no minimum found: the best may
  lie beyond the range, and the estimator says so (a warning and its report).  Torques the
  recording software low-pass filtered already (:func:`~.processing.band_edge`) set the lower
  end of the grid at that filter's edge: below it, the filter would cut the motion's own
  torques a second time.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..description.arguments import keyword_options
from ..errors import RobmodError
from .blocks import motion_blocks
from .data import MeasuredData
from .processing import motion_bandwidth, process, transient
from .solver import gram_factor, solve_factors


@dataclass(frozen=True)
class CutoffChoice:
    """The cross-validation of the cut-off: the grid (Hz), the held-out relative RMS error
    of each (mean over the joints; per fold in ``fold_errors``), the chosen cut-off."""

    cutoffs: np.ndarray
    errors: np.ndarray
    fold_errors: np.ndarray
    chosen: float
    folds: int
    rate: float
    bandwidth: float

    @property
    def edge(self) -> str | None:
        """'lowest' or 'highest' when the chosen cut-off is an end of the grid (the error
        still falls beyond it: no minimum inside the range), else None."""
        if self.chosen <= self.cutoffs[0]:
            return "lowest"
        if self.chosen >= self.cutoffs[-1]:
            return "highest"
        return None

    def edge_note(self) -> str | None:
        """What a choice at an end of the grid means, or None."""
        if self.edge is None:
            return None
        beyond = "lower" if self.edge == "lowest" else "higher"
        why = ("the motion's own torques would be cut: the log's content ends there (filtered "
               "before?) or the motion is too slow for the data's noise" if beyond == "lower"
               else "the log holds little noise there (filtered before, or a clean sensor)")
        return (f"the cut-off {self.chosen:.4g} Hz is the {self.edge} of the range tried "
                f"({self.cutoffs[0]:.3g}-{self.cutoffs[-1]:.3g} Hz): the held-out error still "
                f"falls toward {beyond} cut-offs, no minimum inside; {why}; give cutoff= to "
                "impose one")

    def note(self) -> str:
        k = int(np.argmin(self.errors))
        curve = ", ".join(f"{f:.3g} Hz " + (f"{100 * e:.3g} %" if np.isfinite(e) else
                                             "(too few samples to fit)")
                          for f, e in zip(self.cutoffs, self.errors))
        edge = self.edge_note()
        return (f"cut-off {self.chosen:.4g} Hz chosen by {self.folds}-fold cross-validation over "
                f"held-out blocks of the motion (relative RMS {100 * self.errors[k]:.3g} %; "
                f"motion band {self.bandwidth:.3g} Hz, sampling rate {self.rate:.4g} Hz); "
                f"curve: {curve}" + (f"; {edge}" if edge else ""))

    def __str__(self):
        return self.note()

    def plot(self, path=None, *, ax=None):
        """:func:`robmod.plot.cutoff_plot` of this choice: the held-out error against the
        cut-off, the choice marked."""
        from ..plot.identification import cutoff_plot   # delegation declared in pyproject.toml

        return cutoff_plot(self, path, ax=ax)


def _bounds(data, low=None):
    rate = data.sampling_rate
    band = motion_bandwidth(data.q, rate)
    hi = 0.4 * rate
    lo = min(max(band, 0.5), hi / 10)
    return (min(max(lo, low), hi / 2) if low else lo), hi, band


def _kept(data, low) -> int:
    edge = transient(data.sampling_rate, low)
    return sum(b - a - 2 * edge for a, b in data.segments if b - a > 2 * edge + 4)


def _evaluation_samples(data, low, n_eval):
    """Samples every cut-off of the grid keeps (those of the lowest), at most ``n_eval``."""
    edge = transient(data.sampling_rate, low)
    keep = [np.arange(a + edge, b - edge) for a, b in data.segments if b - a > 2 * edge + 4]
    if not keep:
        raise RobmodError("the log is too short to choose the filter's cut-off from the data "
                          "(cross-validation): give cutoff= in Hz")
    E = np.concatenate(keep)
    return E[::max(1, int(np.ceil(E.size / n_eval)))]


def _sub_log(data, folds, max_samples):
    """(data, block (N,), distance to a block boundary (N,)): the blocks of the motion
    (:func:`~.blocks.motion_blocks`), or a long log reduced to one contiguous piece from the
    middle of each of its ``folds`` time blocks (``max_samples`` in all), each piece its own
    block."""
    N = data.n_samples
    edges = np.linspace(0, N, folds + 1).astype(int)
    if N <= max_samples:
        block, dist, _ = motion_blocks(data.q, data.segments, folds)
        return data, block, dist
    half = max_samples // (2 * folds)
    centres = (edges[:-1] + edges[1:]) // 2
    pieces = [(c - half, c + half) for c in centres]
    index = np.concatenate([np.arange(a, b) for a, b in pieces])
    segments, start = [], 0
    for a, b in pieces:
        for sa, sb in data.segments:
            lo, hi = max(a, sa), min(b, sb)
            if hi > lo:
                segments.append((start + lo - a, start + hi - a))
        start += b - a
    sub = dataclasses.replace(data.select(index), segments=tuple(segments))
    i = np.arange(index.size)
    return sub, i // (2 * half), np.minimum(i % (2 * half), 2 * half - i % (2 * half))


class _Folds:
    """The held-out error of one cut-off (see :func:`choose_cutoff`)."""

    def __init__(self, model, data, blocks, E, method, use_measured_velocity, max_rows):
        self.model, self.data, self.E = model, data, E
        self.block, self.dist = blocks
        self.folds = int(self.block.max()) + 1
        self.block_E = self.block[E]
        self.ref = data.tau[E][:, :model.n_rows]
        self.scale = np.maximum((self.ref ** 2).sum(0), 1e-300)
        self.weights = "none" if method == "ols" else "joint"
        self.use_qd, self.max_rows = use_measured_velocity, max_rows

    def __call__(self, fc):
        """(mean relative error, per-fold errors) of the cut-off ``fc`` (inf: not fitted)."""
        model, n, folds = self.model, self.model.n_rows, self.folds
        p = process(self.data, cutoff=fc, use_measured_velocity=self.use_qd)
        stride = max(p.decimation, int(np.ceil(p.t.size / self.max_rows)))
        rows = np.concatenate([np.arange(a, b, stride) for a, b in p.segments])
        W, y, idx = model.observation(p, rows=rows, stacked=False)
        Wj, yj = np.transpose(W, (1, 0, 2)), y.T          # (n, M, p), (n, M)
        block = self.block[idx]
        near = self.dist[idx] <= transient(p.rate, fc)
        grams, counts = [], []
        for k in range(folds):      # per block and joint: the Gram matrix of [W_j | y_j]
            m = (block == k) & ~near
            counts.append(int(m.sum()))
            A = np.concatenate([Wj[:, m], yj[:, m, None]], axis=2)
            grams.append(np.transpose(A, (0, 2, 1)) @ A)
        pos = np.searchsorted(p.index, self.E)
        pred_W, known = model.regressor(p.q[pos], p.qd[pos], p.qdd[pos], known=True,
                                        still=p.still[pos] if p.still is not None else None)
        residual = self.ref - known
        sse = np.zeros((folds, n))
        for k in range(folds):
            if counts[k] == sum(counts):
                return np.inf, np.full(folds, np.inf)
            R = np.stack([gram_factor(G) for G in sum(g for i, g in enumerate(grams) if i != k)])
            try:
                beta = solve_factors(R, sum(counts) - counts[k], weights=self.weights,
                                     names=model.names, statistics=False).beta
            except (RobmodError, np.linalg.LinAlgError):
                return np.inf, np.full(folds, np.inf)
            m = self.block_E == k
            sse[k] = ((residual[m] - pred_W[m] @ beta) ** 2).sum(0)
        return float(np.sqrt((sse.sum(0) / self.scale).mean())), \
            np.sqrt((sse / self.scale).mean(1) * folds)


@keyword_options()
def choose_cutoff(model, data: MeasuredData, *, folds: int = 5, grid: int = 7,
                  method: str = "wls", use_measured_velocity: bool = True,
                  max_samples: int = 25000, max_rows: int = 6000,
                  eval_rows: int = 3000, low: float | None = None) -> CutoffChoice:
    """The cut-off (Hz) of the identification filter that minimizes the held-out torque error
    over ``folds`` held-out blocks of the motion (see the module's notes); ``model`` an
    :class:`~.model.IdentificationModel`.  ``grid`` cut-offs are tried, then the geometric
    middles around the best; a log longer than ``max_samples`` is judged on a piece from the
    middle of each block; ``max_rows`` / ``eval_rows``: samples per cut-off for the fits /
    for the errors; ``low``: the lowest cut-off to try (Hz; the edge of a filter the torques
    went through before)."""
    if isinstance(folds, bool) or int(folds) != folds or folds < 2:
        raise RobmodError(f"folds must be a whole number >= 2, got {folds!r}")
    if data.tau is None:
        raise RobmodError("the data have no torques (nor motor currents): nothing to fit")
    folds = int(folds)
    lo, hi, band = _bounds(data, low)
    sub, block, dist = _sub_log(data, folds, max_samples)
    while _kept(sub, lo) < 0.5 * sub.n_samples and lo < hi / 10:
        lo *= 2               # short segments (a log cut at gaps): the lowest cut-off's
                              # transients would leave too little to judge the others on
    score = _Folds(model, sub, (block, dist), _evaluation_samples(sub, lo, eval_rows), method,
                   use_measured_velocity, max_rows)
    tried = {float(f): score(f) for f in np.geomspace(lo, hi, int(grid))}
    best = min(tried, key=lambda f: tried[f][0])
    coarse = sorted(tried)
    k = coarse.index(best)
    for other in (coarse[k - 1] if k > 0 else None, coarse[k + 1] if k + 1 < len(coarse)
                  else None):
        if other is not None:
            f = float(np.sqrt(best * other))
            tried[f] = score(f)
    cutoffs = np.array(sorted(tried))
    errors = np.array([tried[f][0] for f in cutoffs])
    if not np.isfinite(errors).any():
        raise RobmodError("the cut-off could not be chosen: the blocks of the log do not excite "
                          "every parameter on their own (a longer or richer motion, fewer "
                          "folds, or cutoff= in Hz)")
    return CutoffChoice(cutoffs, errors, np.array([tried[f][1] for f in cutoffs]),
                        float(cutoffs[int(np.argmin(errors))]), folds, data.sampling_rate,
                        band)


__all__ = ["choose_cutoff", "CutoffChoice"]
