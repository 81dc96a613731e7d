"""The model's structure and the estimate handed over, chosen by held-out prediction error.

As the filter's cut-off (:mod:`.cutoff`), by cross-validation over held-out blocks of the
motion (:mod:`.blocks`: contiguous in time, or by phase for a log that repeats its motion):
each block is predicted by the model fitted on the others
(rows within the filter's reach of a block boundary left out of the fits), and the error of
each joint relative to its torque is averaged over the joints.  Every quantity comes from the
per-block Gram matrices of ``[W_j | y_j]`` (:class:`Folds`), so that a model with fewer
columns, or any parameter vector, is judged without evaluating the regressor again.

* **Structure** (:func:`select_structure`): the classes of parameters that do not describe a
  rigid body -- Coulomb and viscous friction, torque offsets, rotor inertias -- are removed one
  at a time, each time the class whose removal predicts best (backward elimination), and the
  smallest model whose held-out error is within noise of the best along that path is kept; a
  class removed whose every parameter is well identified (relative standard deviation below
  ten times the smallest, Gautier's mark of a badly identified parameter) is put back.
* **Estimate** (:func:`choose_estimate`): among candidates in the order of preference (the
  physically consistent estimate when the description gives a prior, else the essential
  parameters of Pham & Gautier 1991; then least squares), the first whose held-out error is
  within noise of the best's is handed over.

"Within noise": the mean over the folds of the difference of the errors is at most one
standard error of that difference (the one-standard-error rule of Breiman et al. 1984;
Hastie, Tibshirani & Friedman 2009, §7.10): a richer or less constrained model must predict
better by more than the folds disagree.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import RobmodError
from .solver import gram_factor, solve_factors


class Folds:
    """Per-block Gram matrices of the observation: ``grams`` (K, n, p+1, p+1) of
    ``[W_j | y_j]`` for block k and joint j (rows near a block boundary left out), ``counts``
    (K,) samples per block, ``power`` (n,) the mean squared torque of each joint."""

    def __init__(self, W, y, block, near, folds: int, weights: str = "joint"):
        """``W`` (M, n, p) and ``y`` (M, n): the rows of the observation (unstacked),
        ``block`` (M,) the block of each row (:func:`~.blocks.motion_blocks`), ``near`` (M,)
        the rows within the filter's reach of a boundary (left out)."""
        K = int(folds)
        A = np.concatenate([np.transpose(W, (1, 0, 2)), y.T[:, :, None]], axis=2)  # (n, M, p+1)
        self.grams = np.stack([np.transpose(A[:, m], (0, 2, 1)) @ A[:, m]
                               for m in ((block == k) & ~near for k in range(K))])
        self.counts = np.array([int(((block == k) & ~near).sum()) for k in range(K)])
        self.n_joints, self.p = W.shape[1], W.shape[2]
        self.power = np.maximum(self.grams[:, :, -1, -1].sum(0) / max(self.counts.sum(), 1),
                                1e-300)       # mean squared torque of each joint per sample
        self.weights = weights

    @property
    def folds(self) -> int:
        return len(self.counts)

    def fit(self, k, columns, *, statistics: bool = False, names=None):
        """The least squares of ``columns`` on every block but k (k None: on all blocks):
        ``beta`` by the normal equations of the summed Gram matrices (the condition numbers
        of identification allow it), or the :class:`~.solver.Identification` with its
        statistics (``statistics=True``)."""
        keep = np.append(np.asarray(columns, int), self.p)
        use = [i for i in range(self.folds) if i != k]
        G = self.grams[use].sum(0)[:, keep][:, :, keep]
        n = int(self.counts[use].sum())
        if not statistics:
            beta = _normal_wls(G, n, self.weights)
            if beta is not None:
                return _Beta(beta)
        R = np.stack([gram_factor(g) for g in G])
        return solve_factors(R, n, weights=self.weights, names=names, statistics=statistics)

    def sse(self, k, columns, beta) -> np.ndarray:
        """(n,) the squared torque errors of block k predicted by ``beta`` on ``columns``."""
        keep = np.append(np.asarray(columns, int), self.p)
        v = np.append(np.asarray(beta, float), -1.0)
        G = self.grams[k][:, keep][:, :, keep]
        return np.maximum(np.einsum("p,jpq,q->j", v, G, v), 0.0)

    def error(self, k, columns, beta) -> float:
        """Block k's held-out error: the RMS over the joints of each joint's relative error."""
        rel = self.sse(k, columns, beta) / (self.power * max(self.counts[k], 1))
        return float(np.sqrt(rel.mean()))

    def errors(self, columns) -> np.ndarray:
        """(K,) the held-out errors of least squares on ``columns``; inf where a fit fails."""
        out = np.full(self.folds, np.inf)
        for k in range(self.folds):
            try:
                out[k] = self.error(k, columns, self.fit(k, columns).beta)
            except (RobmodError, np.linalg.LinAlgError):
                return np.full(self.folds, np.inf)
        return out


class _Beta:
    """A fit of which only the values are asked (``beta``)."""

    def __init__(self, beta):
        self.beta = beta


def _normal_wls(G, n_samples, weights):
    """Weighted least squares (:func:`~.solver.solve_factors`'s weights: 1/sigma_j from a
    first ordinary fit, or none) from the per-joint Gram matrices G (n, b+1, b+1) of
    ``[W_j | y_j]``, by Cholesky's factor of the normal equations; None when they are not
    positive definite (the caller then solves from the factors)."""
    from scipy.linalg import LinAlgError, cho_factor, cho_solve

    b = G.shape[-1] - 1

    def solve(w):
        A = np.einsum("j,jpq->pq", w, G)
        d = np.sqrt(np.maximum(np.diag(A)[:b], 1e-300))
        try:
            f = cho_factor(A[:b, :b] / np.outer(d, d))
        except LinAlgError:
            return None
        return cho_solve(f, A[:b, b] / d) / d

    beta = solve(np.ones(G.shape[0]))
    if beta is None or weights == "none":
        return beta
    v = np.append(beta, -1.0)
    ss = np.maximum(np.einsum("p,jpq,q->j", v, G, v), 0.0) / max(n_samples - b, 1)
    sig2 = np.where(ss > 0, ss, max(ss.max(), 1e-300))
    return solve(1.0 / sig2)


def _within_noise(errors, best) -> bool:
    """True when ``errors`` (per fold) are no worse than ``best``'s by more than one standard
    error of their paired differences (see the module's notes)."""
    d = np.asarray(errors, float) - np.asarray(best, float)
    if not np.all(np.isfinite(d)):
        return False
    se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else 0.0
    return bool(d.mean() <= se)


@dataclass(frozen=True)
class StructureChoice:
    """The backward elimination of the classes of parameters: ``path`` of (classes removed,
    mean held-out error, per-fold errors), the classes ``removed`` and ``kept`` in the end,
    and the ones put back because well identified (``restored``)."""

    path: tuple
    removed: tuple
    kept: tuple
    restored: tuple = ()
    fixed: tuple = ()

    def notes(self) -> list:
        if not np.isfinite(self.path[0][1]):
            return ["model structure: every class kept (the blocks of the log are too short "
                    "to fit the model on the others: no cross-validation)"]
        lines = []
        for gone, mean, _ in self.path:
            lines.append(f"  without {', '.join(gone) if gone else 'nothing'}: held-out "
                         f"{100 * mean:.4g} %")
        head = (f"model structure chosen by {len(self.path[0][2])}-fold cross-validation over "
                f"held-out blocks of the motion (each class kept when it predicts better than "
                f"without it by more than the folds disagree, or when its parameters are well "
                f"identified): kept {', '.join(self.kept) or 'no class'}; removed "
                f"{', '.join(self.removed) or 'none'}")
        if self.restored:
            head += f"; kept although within noise (well identified): {', '.join(self.restored)}"
        if self.fixed:
            head += f"; set by the user or the sensors: {', '.join(self.fixed)}"
        return [head] + lines


def select_structure(folds: Folds, columns, groups: dict, relative_std=None,
                     well: float | None = None) -> tuple:
    """(columns kept, :class:`StructureChoice`) from ``columns`` (indices), ``groups``
    {class: [column indices]} that may be removed; ``relative_std`` (of ``columns``' least
    squares, %) and ``well`` (%) decide which classes are well identified."""
    current = [c for c in columns]
    groups = {g: [c for c in cs if c in current] for g, cs in groups.items()}
    groups = {g: cs for g, cs in groups.items() if cs}
    errs = folds.errors(current)
    path, removed = [((), float(errs.mean()), errs)], []
    if not np.all(np.isfinite(errs)):       # blocks too short to fit the model on the others
        return current, StructureChoice(tuple(path), (), tuple(groups), ())
    left = dict(groups)
    while left:
        trials = {}
        for g, cs in left.items():
            cols = [c for c in current if c not in cs]
            if cols:
                trials[g] = folds.errors(cols)
        if not trials:
            break
        g = min(trials, key=lambda x: trials[x].mean())
        gone = left.pop(g)
        current = [c for c in current if c not in gone]
        removed.append(g)
        path.append((tuple(removed), float(trials[g].mean()), trials[g]))
    best = min(range(len(path)), key=lambda i: path[i][1])
    pick = max(i for i in range(len(path)) if _within_noise(path[i][2], path[best][2]))
    gone = list(path[pick][0])
    restored = []
    if relative_std is not None and well is not None:
        rel = dict(zip(columns, relative_std))
        for g in list(gone):
            if all(rel.get(c, np.inf) <= well for c in groups[g]):
                gone.remove(g)
                restored.append(g)
    kept_cols = [c for c in columns if not any(c in groups[g] for g in gone)]
    choice = StructureChoice(tuple(path), tuple(gone),
                             tuple(g for g in groups if g not in gone), tuple(restored))
    return kept_cols, choice


@dataclass(frozen=True)
class EstimateChoice:
    """The candidates' held-out errors (``errors`` {name: per-fold errors}) in the order of
    preference, the one handed over (``chosen``) and why (``reason``)."""

    errors: dict
    chosen: str
    reason: str
    notes: tuple = field(default_factory=tuple)

    def table(self) -> list:
        return [f"  {name:<22} held-out {100 * np.mean(e):.4g} % (folds "
                + ", ".join(f"{100 * x:.3g}" for x in e) + ")"
                for name, e in self.errors.items()]


def choose_estimate(errors: dict) -> EstimateChoice:
    """The first candidate of ``errors`` ({name: per-fold errors}, in the order of
    preference) whose held-out error is within noise of the best's."""
    finite = {k: np.asarray(v, float) for k, v in errors.items()
              if np.all(np.isfinite(v))}
    if not finite:
        raise RobmodError("no candidate estimate could be cross-validated")
    best = min(finite, key=lambda k: finite[k].mean())
    for name, e in finite.items():
        if _within_noise(e, finite[best]):
            if name == best:
                reason = f"{name}: the smallest held-out error"
            else:
                reason = (f"{name}: held-out error within noise of the best ({best}: "
                          f"{100 * finite[best].mean():.4g} % against "
                          f"{100 * e.mean():.4g} %), and preferred")
            return EstimateChoice(errors, name, reason)
    raise AssertionError("unreachable: the best is within noise of itself")


__all__ = ["StructureChoice", "EstimateChoice"]
