"""Desired motions for controllers: q^d(t), qd^d(t), qdd^d(t).

A reference is anything that gives the desired joint positions, velocities and accelerations
at a time t: a trajectory object of :mod:`robmod.trajectory` (``traj.sample(t)`` or
``traj(t)``), a function ``t -> (q, qd, qdd)``, or a constant set point (an array of n
values: qd^d = qdd^d = 0).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RobmodError


@dataclass(frozen=True)
class Desired:
    """The desired state at one time: q^d, qd^d, qdd^d, each (n,) or (..., n)."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray


def _parts(value):
    if isinstance(value, Desired):
        return value.q, value.qd, value.qdd
    if all(hasattr(value, k) for k in ("q", "qd", "qdd")):
        return value.q, value.qd, value.qdd
    if isinstance(value, (tuple, list)) and len(value) >= 3:
        return value[0], value[1], value[2]
    raise RobmodError("a reference must give (q, qd, qdd) at a time t: a trajectory, a "
                      f"function t -> (q, qd, qdd) or a set point; got {type(value).__name__}")


class Reference:
    """``ref(t) -> Desired`` with every array checked: n values, finite."""

    def __init__(self, source, n: int):
        self.n = n
        self.source = source
        if callable(getattr(source, "sample", None)):
            self._fn = source.sample
        elif callable(source):
            self._fn = source
        else:
            q = np.asarray(source, dtype=float) if not isinstance(source, str) else None
            if q is None or q.shape[-1:] != (n,):
                raise RobmodError(f"reference: expected a trajectory, a function of t or a set "
                                  f"point of {n} joint values, got {source!r}")
            if not np.all(np.isfinite(q)):
                raise RobmodError("reference: the set point has NaN or infinite values")
            const = Desired(q, np.zeros_like(q), np.zeros_like(q))
            self._fn = lambda t: const
        self.duration = float(getattr(source, "duration", 0.0) or 0.0)

    def __call__(self, t: float) -> Desired:
        q, qd, qdd = (np.asarray(x, dtype=float) for x in _parts(self._fn(t)))
        for name, x in (("q", q), ("qd", qd), ("qdd", qdd)):
            if x.shape[-1:] != (self.n,):
                raise RobmodError(f"reference {name}(t={t:g}) has shape {x.shape}: the robot "
                                  f"has {self.n} joints (a reference for another robot?)")
            if not np.all(np.isfinite(x)):
                raise RobmodError(f"reference {name}(t={t:g}) has NaN or infinite values")
        return Desired(q, qd, qdd)


__all__ = ["Desired", "Reference"]
