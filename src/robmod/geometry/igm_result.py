"""The one return shape of every inverse geometric model: :class:`IGMResult`.

The analytic IGM (:func:`robmod.geometry.igm`, Paul's method of Khalil & Dombre ch. 4,
Pieper's quartic, the general 6R), its symbolic model's evaluation
(:meth:`robmod.geometry.IGMSolution.solve`) and the numeric IGM
(:func:`robmod.kinematics.igm_numeric`, §6.6) all return one, as SciPy's solvers return an
``OptimizeResult``: the solutions ``q`` and their mask ``valid`` first, then the extras of the
method (``None`` when the method has none).  It unpacks as ``q, valid = igm(robot, T)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class IGMResult:
    """Solutions of the IGM for targets of batch shape ``(...)``.

    * ``q`` (..., n_solutions, n_q): the solutions (branches of the closed form, or the
      distinct solutions found by the numeric IGM, sorted, then padding); its columns are
      the joint variables (those of the chain to ``j`` for the analytic IGM of a tree);
    * ``valid`` (..., n_solutions): which rows of ``q`` are solutions (q may be NaN
      elsewhere);
    * ``method``: ``"paul"``, ``"pieper"``, ``"general6r"`` or ``"numeric"``.

    Analytic extras, (..., n_solutions): ``singular`` (the branch is at a singularity of
    its formulas) and ``residual`` (largest error of the equations solved).  Numeric extras,
    over the batch shape (...): ``status`` (``"converged"``, ``"unreachable"`` or
    ``"max_iter"``), ``error`` (smallest final pose error over the restarts),
    ``n_converged`` (restarts that converged) and ``iterations`` (of the longest restart).
    ``info``: other diagnostics of one target (the general-6R solver's formulations).
    """

    q: np.ndarray
    valid: np.ndarray
    method: str = ""
    singular: np.ndarray | None = None
    residual: np.ndarray | None = None
    status: np.ndarray | None = None
    error: np.ndarray | None = None
    n_converged: np.ndarray | None = None
    iterations: np.ndarray | None = None
    info: dict | None = None

    def __iter__(self):
        """``q, valid = result``."""
        return iter((self.q, self.valid))

    @property
    def n_solutions(self):
        """Number of valid solutions per target, (...)."""
        return np.sum(self.valid, axis=-1)[()]

    def solutions(self, index=()) -> np.ndarray:
        """The valid solutions (n, n_q) of the target ``index`` of the batch (none for one
        target)."""
        return self.q[index][self.valid[index]]


__all__ = ["IGMResult"]
