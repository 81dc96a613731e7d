"""Passivity-based and adaptive control (Slotine & Li 1987; Khalil & Dombre, ch. 14 of the
book, passivity-based and adaptive control).

With e = q^d - q, the reference velocity qd_r = qd^d + Lambda e and s = qd - qd_r::

    Gamma = Â(q) qdd_r + Ĉ(q, qd) qd_r + Q̂(q) + F̂(qd) - K_D s

where C is built from Christoffel's symbols, so that dA/dt - 2C is skew-symmetric; with an exact
model V = s^T A s / 2 + e^T Lambda K_D e decreases and e -> 0 exponentially.  robmod computes
the first four terms as IDM(q, qd, qdd_r) - C(q, qd) s (one Newton-Euler call and the
polarization of the velocity torques, see :meth:`Dynamics.coriolis_times`).

The adaptive law keeps an estimate of the *base* inertial parameters chi (Gautier & Khalil 1990)
and uses the identification model: Gamma = Y(q, qd, qd_r, qdd_r) chî - K_D s with

    Y = Phi(q, qd, qdd_r) - [Phi_v(q, qd + s) - Phi_v(q, qd) - Phi_v(q, s)] / 2,
    d chî / dt = -Gamma_chi Y^T s

(Phi the base-parameter regressor, Phi_v its velocity part without friction); V plus
chĩ^T Gamma_chi^-1 chĩ / 2 is non-increasing, the tracking error converges to zero and, under
persistent excitation, so does the parameter error.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import keyword_options
from ..description.base import moving_base
from ..errors import ArgumentError, RobmodError
from ..identification.base_numeric import numeric_base
from ..identification.regressors import regressor_function, standard_vector
from .base import DEFAULT_DT, Controller, gain, sample_time
from .plant import Dynamics, coulomb_option, numeric_only


class PassivityBased(Controller):
    """Slotine-Li passivity-based tracking control with the controller's model ``robot``.

    ``coulomb``, ``coulomb_width``: the Coulomb friction compensation, as
    :class:`~robmod.control.ComputedTorque` (default: at the desired velocity when dt > 0).
    """

    @keyword_options()
    def __init__(self, robot, lam, kd, *, dt=DEFAULT_DT, coulomb=None, coulomb_width=1e-2):
        self.dyn = Dynamics.of(robot, "controller model")
        self.n = self.dyn.n
        self.lam = gain(lam, self.n, "lam", allow_zero=False)
        self.kd = gain(kd, self.n, "kd", allow_zero=False)
        self.dt = sample_time(dt)
        self.coulomb, self.coulomb_width = coulomb_option(coulomb, coulomb_width, self.dt)

    def output(self, t, q, qd, ref, z):
        qj, qdj = self.joints(q, qd)
        e, ed = ref.q - qj, ref.qd - qdj
        s = qdj - (ref.qd + self.lam * e)
        qdd_r = ref.qdd + self.lam * ed
        tau = self.dyn.idm_compensated(q, qd, qdd_r, ref.qd, coulomb=self.coulomb,
                                       width=self.coulomb_width)
        return tau - self.dyn.coriolis_times(q, qd, s) - self.kd * s


class AdaptivePassivity(Controller):
    """Slotine-Li adaptive control on the base inertial parameters.

    ``robot``: the controller's (possibly wrong) model; its base parameters are the initial
    estimate.  ``adaptation``: Gamma_chi, a positive scalar or one value per base parameter.
    The internal state z is the estimate chî; :attr:`names` lists the base parameters (each
    one a standard parameter into which others are regrouped, see
    :func:`~robmod.identification.numeric_base`).  ``coulomb``, ``coulomb_width``: the
    Coulomb columns of Y, sign(qd^d) by default when dt > 0, as :class:`~robmod.control.ComputedTorque`.
    """

    @keyword_options()
    def __init__(self, robot, lam, kd, adaptation=1.0, *, dt=DEFAULT_DT, coulomb=None,
                 coulomb_width=1e-2):
        self.model = numeric_only(robot, "controller model")
        if self.model.n_loops:
            raise RobmodError(f"adaptive control of a closed-loop robot ({robot.name!r}) is not "
                              "supported yet (its regressor is the equivalent tree's)")
        if moving_base(self.model):
            why = ("its regressor at the base's given motion is not supported yet" if
                   self.model.base_kind == "mobile" else "its joint torques, the base free, "
                   "are not linear in its inertial parameters (the base's equations eliminate "
                   "its acceleration through the inverse of its composite inertia), and the "
                   "adaptive law needs a linear parameterization")
            raise ArgumentError(
                f"AdaptivePassivity needs a fixed base: for the {self.model.base_kind} robot "
                f"{robot.name!r}, {why}; use PassivityBased or ComputedTorque")
        self.base = numeric_base(self.model)
        self.names = self.base.base
        self.n = len(self.model.q)
        self.lam = gain(lam, self.n, "lam", allow_zero=False)
        self.kd = gain(kd, self.n, "kd", allow_zero=False)
        self.gamma = gain(adaptation, len(self.names), "adaptation", allow_zero=False)
        self.dt = sample_time(dt)
        self.phi = regressor_function(self.model, params=self.names)
        self.friction_columns = np.array([n[:2] in ("FC", "FV") for n in self.names])
        self.coulomb_columns = np.array([n[:2] == "FC" for n in self.names])
        self.coulomb, self.coulomb_width = coulomb_option(coulomb, coulomb_width, self.dt)
        self.chi0 = self.base.K @ standard_vector(self.model, self.base.standard)

    def state_size(self):
        return len(self.names)

    def initial_state(self, batch=()):
        return np.broadcast_to(self.chi0, tuple(batch) + self.chi0.shape).copy()

    def _velocity_part(self, q, v):
        z = np.zeros_like(q)
        P = self.phi(q, v, z) - self.phi(q, z, z)
        P[..., self.friction_columns] = 0.0
        return P

    def regressor(self, q, qd, ref):
        """Y(q, qd, qd_r, qdd_r) (..., n, p) and s (..., n)."""
        q, qd = np.atleast_2d(q), np.atleast_2d(qd)
        e, ed = ref.q - q, ref.qd - qd
        s = qd - (ref.qd + self.lam * e)
        qdd_r = np.broadcast_to(ref.qdd + self.lam * ed, q.shape)
        Y = self.phi(q, qd, qdd_r) - 0.5 * (self._velocity_part(q, qd + s)
                                            - self._velocity_part(q, qd)
                                            - self._velocity_part(q, s))
        fc = self.coulomb_columns
        if np.any(fc) and self.coulomb == "desired":   # F_C sign(qd^d)
            Y[..., fc] = self.phi(q, np.broadcast_to(ref.qd, q.shape), qdd_r)[..., fc]
        elif np.any(fc) and self.coulomb == "smooth":  # F_C tanh(qd / width)
            Y[..., fc] *= np.abs(np.tanh(qd / self.coulomb_width))[..., :, None]
        return Y, s

    def output(self, t, q, qd, ref, z):
        Y, s = self.regressor(q, qd, ref)
        tau = np.einsum("...ij,...j->...i", Y, np.broadcast_to(z, Y.shape[:-2] + z.shape[-1:]))
        tau = tau - self.kd * s
        return tau.reshape(np.shape(q)) if np.ndim(q) == 1 else tau

    def update(self, t, q, qd, ref, z):
        Y, s = self.regressor(q, qd, ref)
        dz = -self.gamma * np.einsum("...ij,...i->...j", Y, s)
        return dz.reshape(np.shape(z))

    def true_parameters(self, robot) -> np.ndarray:
        """The base parameters of another numeric robot of the same structure (e.g. the plant)
        in this controller's base: what chî should converge to."""
        robot = numeric_only(robot)
        if robot.frames != self.model.frames:
            raise RobmodError("true_parameters: the robot's geometry differs from the model's")
        return self.base.K @ standard_vector(robot, self.base.standard)


__all__ = ["PassivityBased", "AdaptivePassivity"]
