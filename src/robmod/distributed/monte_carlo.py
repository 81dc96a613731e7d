"""Monte-Carlo closed-loop simulations as a bag of tasks.

Many runs of one controller on one robot, differing by their initial states (and gains with a
leading batch dimension): the runs are split into chunks, each chunk is one task that calls
:func:`robmod.control.simulate` on its batch (the batched compiled kernels) and sends back only
small per-run metrics (maximum, RMS and final tracking errors, divergence), never the time
series.  The compiled models are rebuilt once per worker from the robot (and loaded from the
disk cache when a worker has compiled them before).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..control.simulation import simulate
from ..description.arguments import (checked_options, finite_array, keyword_defaults,
                                     keyword_options, whole_number)
from ..errors import RobmodError
from .cluster import get_client


@dataclass(frozen=True)
class MonteCarloResult:
    """Per-run metrics (B, n) and divergence flags (B,)."""

    max_error: np.ndarray
    rms_error: np.ndarray
    final_error: np.ndarray
    diverged: np.ndarray

    def __repr__(self):
        ok = ~self.diverged
        worst = float(self.max_error[ok].max()) if ok.any() else float("nan")
        return (f"MonteCarloResult({len(self.diverged)} runs, {int(self.diverged.sum())} "
                f"diverged, worst max error {worst:.3g})")


def _run_chunk(robot, controller, reference, duration, x0, kw):
    n = controller.n                # the joints (a floating robot's state has its base too)
    try:
        res = simulate(robot, controller, reference, duration, x0=x0, **kw)
    except RobmodError:   # a diverging run spoils its chunk: run them one by one
        if len(x0) == 1:
            nan = np.full((1, n), np.nan)
            return nan, nan, nan, np.array([True])
        parts = [_run_chunk(robot, controller, reference, duration, x0[k:k + 1], kw)
                 for k in range(len(x0))]
        return tuple(np.concatenate([p[i] for p in parts]) for i in range(4))
    e = np.abs(res.error)
    return (e.max(axis=0), np.sqrt((e ** 2).mean(axis=0)), e[-1],
            np.zeros(len(x0), dtype=bool))


@keyword_options(chunk=100, client=None, scheduler=None,
                 **keyword_defaults(simulate, exclude=("x0",)))
def closed_loop_runs(robot, controller, reference, duration, x0, **options) -> MonteCarloResult:
    """Run ``controller`` on ``robot`` from each initial state of ``x0`` (B, nq + nv: the
    robot's state, (B, 2n) for a fixed base) on Dask, in chunks of ``chunk`` runs, each a call
    of :func:`robmod.control.simulate` (the one simulator; its options)."""
    simulate_kw = checked_options(closed_loop_runs, options)
    chunk, client, scheduler = (simulate_kw.pop(k) for k in ("chunk", "client", "scheduler"))
    x0 = finite_array("x0", x0, shape_text="initial states (B, nq + nv)")
    if x0.ndim != 2 or not np.all(np.isfinite(x0)):
        raise RobmodError(f"x0: expected finite initial states (B, nq + nv), got shape "
                          f"{x0.shape}")
    chunk = whole_number("chunk", chunk, what="a number of runs")
    c = get_client(client=client, scheduler=scheduler)
    futures = [c.submit(_run_chunk, robot, controller, reference, duration, x0[a:a + chunk],
                        simulate_kw, pure=False) for a in range(0, len(x0), int(chunk))]
    parts = c.gather(futures)
    return MonteCarloResult(*(np.concatenate([p[i] for p in parts]) for i in range(4)))


__all__ = ["closed_loop_runs", "MonteCarloResult"]
