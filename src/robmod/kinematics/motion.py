"""What a joint motion is, for every producer and consumer of motions.

A motion gives, at an array of times t (any shape), the joint positions and their time
derivatives, each of shape ``t.shape + (n,)``: :class:`Sample` ``(q, qd, qdd, qddd)``.  Every
producer of motions returns it from ``sample(t)`` — the trajectories of
:mod:`robmod.trajectory`, the exciting trajectories of identification
(:class:`~robmod.identification.FourierTrajectory`), the reference of a simulation — and every
consumer (controllers, simulations, simulated logs, plots) reads it; :class:`Motion` is the
protocol, structural (nothing to inherit: an object with ``n``, ``duration`` and
``sample(t)`` returning a Sample is a motion).  It lives here, in the layer of joint velocities
and accelerations, so that every layer above can produce and read motions (identification sits
below the trajectory package).
"""
from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np


class Sample(NamedTuple):
    """q, qd, qdd and qddd (the jerk; None when the producer does not give it) at the sampled
    times, each ``t.shape + (n,)``."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    qddd: np.ndarray | None = None


@runtime_checkable
class Motion(Protocol):
    """A joint motion: ``n`` joints, a ``duration`` (s), ``sample(t) -> Sample``."""

    n: int
    duration: float

    def sample(self, t) -> Sample:
        ...


__all__ = ["Sample", "Motion"]
