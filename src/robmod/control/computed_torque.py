"""Computed-torque (inverse dynamics) control in joint space (Khalil & Dombre §9.4.2).

With the controller's model Â, Ĥ of the robot (9.22)::

    Gamma = Â(q) w + Ĥ(q, qd)

and, for tracking (9.24), w = qdd^d + Kd (qd^d - qd) + Kp (q^d - q): with an exact model the
error obeys the decoupled linear equation e'' + Kd e' + Kp e = 0 (9.25); Kp = omega^2,
Kd = 2 xi omega (9.26) put both poles of each joint at -xi omega +- omega sqrt(xi^2 - 1).
Position control (9.29): w = Kp (q^d - q) - Kd qd.  Predictive dynamic control (9.31): the
model is evaluated on the desired motion, Gamma = Â(q^d) w + Ĥ(q^d, qd^d), off-line or from
noise-free values.

Practical computation (§9.4.2.5): Gamma = IDM(q, qd, w) — one call of the customized
Newton-Euler model per sample ((9.31): IDM(q^d, qd^d, w)); robmod calls its compiled model.

Coulomb friction (7.26) F_C sign(qd) is discontinuous: a digital law that compensates it with
the measured velocity chatters at rest and at every velocity reversal (the sign flips from one
sample to the next, a torque step of 2 F_C each time).  ``coulomb='desired'`` (the default of a
digital law) evaluates the Coulomb and Stribeck terms at the desired velocity qd^d, as (9.31)
evaluates the whole model on the desired motion; ``'smooth'`` uses tanh(qd / coulomb_width) of
the measured velocity; ``'measured'`` is the model's own sign(qd) (the default of a continuous
law, dt = 0, evaluated at every integration stage: there it cancels the plant's friction
exactly).  The viscous term stays on qd.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import finite_array, keyword_options
from ..errors import ArgumentError, RobmodError
from .base import DEFAULT_DT, Controller, gain, sample_time
from .plant import Dynamics, coulomb_option

_MODES = ("tracking", "position", "predictive")


@keyword_options()
def computed_torque_gains(omega, *, xi=1.0, n: int | None = None):
    """Eq. (9.26): Kp = omega^2, Kd = 2 xi omega (per joint when arrays; ``n`` values)."""
    omega = finite_array("omega", omega, shape_text="a pulsation (rad/s) or one per joint")
    xi = finite_array("xi", xi, shape_text="a damping ratio or one per joint")
    if np.any(~np.isfinite(omega)) or np.any(omega <= 0):
        raise RobmodError(f"omega must be positive (rad/s), got {omega.tolist()}")
    if np.any(~np.isfinite(xi)) or np.any(xi < 0):
        raise RobmodError(f"xi must be a damping ratio >= 0, got {xi.tolist()}")
    kp, kd = omega ** 2, 2 * xi * omega
    if n is not None:
        kp, kd = np.broadcast_to(kp, (n,)).copy(), np.broadcast_to(kd, (n,)).copy()
    return kp, kd


class ComputedTorque(Controller):
    """Computed torque (9.22)-(9.31) with the controller's own model ``robot``.

    ``mode``: ``'tracking'`` (9.24), ``'position'`` (9.29) or ``'predictive'`` (9.31).  Gains
    as ``kp``/``kd`` or ``omega`` (and ``xi``, default 1: critically damped) with (9.26).
    ``coulomb``: where the Coulomb friction term is evaluated, ``'desired'`` (qd^d; the default
    when dt > 0), ``'measured'`` (qd; the default when dt = 0) or ``'smooth'``
    (tanh(qd / coulomb_width), width in rad/s or m/s).
    """

    @keyword_options()
    def __init__(self, robot, kp=None, kd=None, *, omega=None, xi=1.0, mode="tracking",
                 dt=DEFAULT_DT, coulomb=None, coulomb_width=1e-2):
        if mode not in _MODES:
            raise RobmodError(f"mode must be one of {', '.join(_MODES)}, got {mode!r}")
        self.dyn = Dynamics.of(robot, "controller model")
        self.n = self.dyn.n
        if omega is not None:
            if kp is not None or kd is not None:
                raise RobmodError("give either kp and kd, or omega (and xi), not both")
            kp, kd = computed_torque_gains(omega, xi=xi, n=self.n)
        if kp is None or kd is None:
            raise RobmodError("computed torque needs kp and kd, or omega")
        self.kp, self.kd = gain(kp, self.n, "kp"), gain(kd, self.n, "kd")
        if mode == "predictive" and self.dyn.floating:
            raise ArgumentError(f"ComputedTorque(mode='predictive') evaluates the model on the "
                                f"desired motion, which gives no state of the base of the "
                                f"floating robot {self.dyn.robot.name!r}: use mode='tracking' "
                                "or 'position'")
        self.mode, self.dt = mode, sample_time(dt)
        self.coulomb, self.coulomb_width = coulomb_option(coulomb, coulomb_width, self.dt)

    def error_poles(self) -> np.ndarray:
        """The designed poles of e'' + Kd e' + Kp e = 0 (9.25), per joint: (n, 2)."""
        return np.array([np.roots([1.0, kd, kp]) for kp, kd in zip(self.kp, self.kd)])

    def output(self, t, q, qd, ref, z):
        qj, qdj = self.joints(q, qd)
        if self.mode == "position":
            w = self.kp * (ref.q - qj) - self.kd * qdj
        else:
            w = ref.qdd + self.kd * (ref.qd - qdj) + self.kp * (ref.q - qj)
        if self.mode == "predictive":
            return self.dyn.idm(*np.broadcast_arrays(ref.q, ref.qd, w))
        return self.dyn.idm_compensated(q, qd, w, ref.qd, coulomb=self.coulomb,
                                        width=self.coulomb_width)

    def law_derivatives(self, t, q, qd, ref, z):
        """(∂Γ/∂q, ∂Γ/∂q̇, ∂Γ/∂z, ∂ż/∂q, ∂ż/∂q̇, ∂ż/∂z) of the law on the derivatives of the
        IDM (:func:`~robmod.dynamics.idm_derivatives`, Coulomb friction constant: its sign
        has no derivative), for :func:`~robmod.control.linearize`; None (finite differences)
        for a closed-loop robot or a smooth Coulomb sign."""
        from ..dynamics.derivatives import idm_derivatives

        if self.dyn.robot.n_loops or self.dyn.floating or (self.coulomb == "smooth"
                                                          and self.dyn.has_coulomb):
            return None
        n = self.n
        if self.mode == "position":
            w, dw_dqd = self.kp * (ref.q - q) - self.kd * qd, -np.diag(self.kd)
        else:
            w = ref.qdd + self.kd * (ref.qd - qd) + self.kp * (ref.q - q)
            dw_dqd = -np.diag(self.kd)
        at = (ref.q, ref.qd) if self.mode == "predictive" else (q, qd)
        D = idm_derivatives(self.dyn.robot, *np.broadcast_arrays(*at, w))
        own = self.mode != "predictive"
        gq = (D.dtau_dq if own else 0) - D.dtau_dqdd * self.kp
        gqd = (D.dtau_dqd if own else 0) + D.dtau_dqdd @ dw_dqd
        return gq, gqd, np.zeros((n, 0)), np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, 0))


__all__ = ["ComputedTorque", "computed_torque_gains"]
