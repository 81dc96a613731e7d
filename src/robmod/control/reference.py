"""Desired motions for controllers: q^d(t), qd^d(t), qdd^d(t).

A reference is anything that gives the desired joint positions, velocities and accelerations
at a time t: a motion (:class:`~robmod.kinematics.Motion`: a trajectory of
:mod:`robmod.trajectory`, identification's exciting trajectory, ... — ``sample(t)`` gives a
:class:`~robmod.kinematics.Sample`), a function ``t -> (q, qd, qdd)``, or a constant set point
(an array of n values: qd^d = qdd^d = 0).  The controllers read the desired motion as a
Sample (``ref.q``, ``ref.qd``, ``ref.qdd``).
"""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, RobmodError
from ..kinematics.motion import Sample

#: the desired motion at one time, as the controllers read it: a :class:`Sample` (the name of
#: earlier releases; ``Desired(q, qd, qdd)`` still builds one)
Desired = Sample


def _parts(value):
    if isinstance(value, (tuple, list)) and len(value) >= 3:   # a Sample, or a function's tuple
        return value[0], value[1], value[2]
    raise RobmodError("a reference must give (q, qd, qdd) at a time t: a trajectory, a "
                      f"function t -> (q, qd, qdd) or a set point; got {type(value).__name__}")


def time_function(source):
    """The function of t of a motion (its ``sample``) or of a function; else None."""
    if callable(getattr(source, "sample", None)):
        return source.sample
    return source if callable(source) else None


class Reference:
    """``ref(t) -> Sample`` with every array checked: n values, finite."""

    def __init__(self, source, n: int):
        self.n = n
        self.source, self._fn = source, time_function(source)
        if self._fn is None:
            try:
                q = np.asarray(source, dtype=float) if not isinstance(source, str) else None
            except (TypeError, ValueError):
                q = None
            if q is None or q.shape[-1:] != (n,):
                raise ArgumentError(f"reference: expected a trajectory, a function of t or a set "
                                  f"point of {n} joint values, got {source!r}")
            if not np.all(np.isfinite(q)):
                raise ArgumentError("reference: the set point has NaN or infinite values")
            const = Sample(q, np.zeros_like(q), np.zeros_like(q))
            self._fn = lambda t: const
        self.duration = float(getattr(source, "duration", 0.0) or 0.0)

    def __call__(self, t: float) -> Sample:
        try:
            parts = [np.asarray(x, dtype=float) for x in _parts(self._fn(t))]
        except (TypeError, ValueError) as e:
            raise RobmodError(f"reference at t = {t}: expected numbers (q, qd, qdd), got an "
                              f"error: {e}") from None
        for name, x in zip(("q", "qd", "qdd"), parts):
            if x.shape[-1:] != (self.n,):
                raise RobmodError(f"reference {name}(t={t:g}) has shape {x.shape}: the robot "
                                  f"has {self.n} joints (a reference for another robot?)")
            if not np.all(np.isfinite(x)):
                raise RobmodError(f"reference {name}(t={t:g}) has NaN or infinite values")
        return Sample(*parts)


__all__ = ["Reference"]
