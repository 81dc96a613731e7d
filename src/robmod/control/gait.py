"""Gaits of a legged robot: which feet stand when, and where a swing foot goes.

:class:`Trot` is the diagonal gait of a quadruped: the pairs (front-left, hind-right) and
(front-right, hind-left) swing in turn, each for half of the ``period``.  A swinging foot
leaves where it stood and lands where Raibert's rule puts it (Raibert 1986, ch. 2): under its
hip at the middle of the coming stance, moved by half the stance's travel at the desired
velocity and by ``k_v`` times the velocity error (a robot pushed too fast steps further to
catch itself), on the ground.  Its path in between is a quintic in the horizontal plane (zero
velocity and acceleration at both ends) and a bump of ``height`` in the vertical (64 h s^3
(1 - s)^3, as smooth at its ends).
:class:`Stand` keeps every foot down.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import keyword_options, positive_scalar

__all__ = ["Trot", "Stand"]


class Stand:
    """Every foot in stance, forever."""

    def __init__(self, n_feet: int = 4):
        self.n_feet = int(n_feet)

    def stance(self, t) -> np.ndarray:
        """(n_feet,) True where the foot stands at time t."""
        return np.ones(self.n_feet, dtype=bool)

    def swing_phase(self, t, foot):
        """(progress s in [0, 1) of the foot's swing, its duration), or None in stance."""
        return None


class Trot(Stand):
    """The trot: feet (0, 3) swing in the first half of each ``period``, (1, 2) in the
    second (the order FL, FR, HL, HR), after ``start`` s standing; ``height`` of the swing,
    ``k_v`` Raibert's velocity gain, ``touchdown``: the swing ends that far below the ground
    (the foot lands before its stance begins, though it lags its path)."""

    @keyword_options()
    def __init__(self, *, period: float = 0.4, height: float = 0.03, start: float = 0.2,
                 k_v: float = 0.0, touchdown: float = 0.005, pairs=((0, 3), (1, 2))):
        super().__init__(4)
        self.period = positive_scalar("period", period)
        self.height = positive_scalar("height", height, allow_zero=True)
        self.start = positive_scalar("start", start, allow_zero=True)
        self.k_v = float(k_v)
        self.touchdown = positive_scalar("touchdown", touchdown, allow_zero=True)
        self.pairs = tuple(tuple(p) for p in pairs)
        self._stances = [np.ones(4, dtype=bool) for _ in range(len(self.pairs) + 1)]
        for out, p in zip(self._stances, self.pairs):      # the last: every foot down
            out[list(p)] = False

    def _half(self, t):
        if t < self.start:
            return None, 0.0
        tau = (t - self.start) % self.period
        half = self.period / 2
        return int(tau // half), (tau % half) / half

    def stance(self, t) -> np.ndarray:
        which, _ = self._half(t)
        return self._stances[-1 if which is None else which].copy()

    def swing_phase(self, t, foot):
        which, s = self._half(t)
        if which is None or foot not in self.pairs[which]:
            return None
        return s, self.period / 2

    def landing(self, hip, velocity, velocity_des):
        """Raibert's foothold (3,) of a foot whose hip is at ``hip`` (3,) at the landing time:
        the hip's ground point, + v_des T_stance / 2 + k_v (v - v_des) (horizontal)."""
        v, vd = np.asarray(velocity, float), np.asarray(velocity_des, float)
        p = np.array(hip, dtype=float) + (vd * self.period / 4 + self.k_v * (v - vd))
        p[2] = -self.touchdown
        return p

    def swing(self, start, end, s, duration):
        """(position, velocity, acceleration) (3,) of a swing foot from ``start`` to ``end``
        at the progress s of a swing of ``duration`` s."""
        path = np.array(self._path(np.asarray(start, float).tolist(),
                                   np.asarray(end, float).tolist(), s, duration))
        return path[:3], path[3:6], path[6:]

    def _path(self, start, end, s, duration):
        """:meth:`swing`'s position, velocity and acceleration as one list of 9 floats, of
        ``start`` and ``end`` given as lists (the whole-body controller's, at every sample)."""
        x0, y0, z0 = start
        dx, dy, dz = end[0] - x0, end[1] - y0, end[2] - z0
        s2, s3 = s * s, s * s * s
        kp, kv, ka = (s3 * (10 - 15 * s + 6 * s2), s2 * (30 - 60 * s + 30 * s2) / duration,
                      s * (60 - 180 * s + 120 * s2) / duration ** 2)
        # the bump 64 h s^3 (1 - s)^3: height h at the middle, zero velocity and
        # acceleration at lift-off and touch-down
        u, H = 1 - s, self.height
        bp, bv, ba = (64 * H * s3 * u ** 3, 192 * H * s2 * u * u * (u - s) / duration,
                      384 * H * s * u * (u * u - 3 * s * u + s2) / duration ** 2)
        return [x0 + kp * dx, y0 + kp * dy, z0 + kp * dz + bp, kv * dx, kv * dy, kv * dz + bv,
                ka * dx, ka * dy, ka * dz + ba]
