"""Decoupled joint-space control: PID and PD with gravity compensation (Khalil & Dombre §9.3).

PID, eq. (9.5), e = q^d - q::

    Gamma = Kp e + Kd (qd^d - qd) + KI integral(e)

Tuning (9.6)-(9.10): each joint seen as a_j qdd_j + Fv_j qd_j = Gamma_j with a_j the largest
A_jj over the workspace; a triple closed-loop pole at -omega_j gives

    Kp_j = 3 a_j omega_j^2,   Kd_j = 3 a_j omega_j - Fv_j,   KI_j = a_j omega_j^3

(omega_j at most half the joint's structural resonance).  The integral action is switched off
for large errors (it would wind up during long transients) and, optionally, for tiny ones
(limit cycles with dry friction); the integral is also frozen while the torque saturates
(anti-windup).

PD with gravity compensation, eq. (9.12)::

    Gamma = Kp e - Kd qd + Q(q)

is globally asymptotically stable for a set point with Kp, Kd positive definite: with the
Lyapunov function V = qd^T A qd / 2 + e^T Kp e / 2 (9.13) and the skew symmetry of
dA/dt - 2C, dV/dt = -qd^T (Kd + Fv) qd <= 0 (9.14)-(9.15), and LaSalle's invariance theorem
gives q -> q^d (9.16).  With Q(q^d) in place of Q(q) it stays stable when
lambda_min(Kp) > sup_q ||dQ/dq||.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dynamics.layout import dofs
from ..description.arguments import finite_array, keyword_options, whole_number
from ..errors import ArgumentError, RobmodError
from .base import DEFAULT_DT, Controller, gain, sample_time
from .floating_plant import joint_inertia
from .plant import Dynamics, joint_limit_vector, numeric_only


@dataclass(frozen=True)
class PIDGains:
    """Gains of eq. (9.10) and the data they come from."""

    kp: np.ndarray
    kd: np.ndarray
    ki: np.ndarray
    a: np.ndarray
    fv: np.ndarray
    omega: np.ndarray

    def poles(self) -> np.ndarray:
        """Closed-loop poles of each joint's model a s^3 + (Fv + Kd) s^2 + Kp s + KI: (n, 3)."""
        return np.array([np.roots([a, fv + kd, kp, ki]) for a, fv, kd, kp, ki in
                         zip(self.a, self.fv, self.kd, self.kp, self.ki)])


def pid_gains(a, fv, omega) -> PIDGains:
    """Eq. (9.10): the PID gains that put a triple pole at -omega on a qdd + fv qd = Gamma."""
    a, omega = np.atleast_1d(finite_array("a", a)), np.atleast_1d(finite_array("omega", omega))
    n = max(a.size, omega.size, np.size(fv))
    a, omega = gain(a if a.size > 1 else a[0], n, "a", allow_zero=False), \
        gain(omega if omega.size > 1 else omega[0], n, "omega", allow_zero=False)
    fv = gain(fv, n, "fv")
    kd = 3 * a * omega - fv
    if np.any(kd < 0):
        j = int(np.argmax(kd < 0)) + 1
        raise RobmodError(f"joint {j}: 3 a omega < Fv, the viscous friction alone damps more "
                          "than the triple pole asks: raise omega")
    return PIDGains(3 * a * omega ** 2, kd, a * omega ** 3, a, fv, omega)


@keyword_options()
def max_diagonal_inertia(robot, *, samples: int = 512, seed: int = 0) -> np.ndarray:
    """a_j = max over the joint ranges of A_jj(q) (Khalil & Dombre (9.6)), sampled (a floating
    robot's: of the joints' inertia with the base free, :func:`joint_inertia`)."""
    robot = numeric_only(robot)
    if robot.n_loops:
        raise RobmodError(f"max_diagonal_inertia (the PID tuning of (9.10)) samples the inertia "
                          f"matrix of a tree: {robot.name!r} has closed loops; give the PID "
                          "gains explicitly")
    n = len(dofs(robot))
    lo, hi = joint_limit_vector(robot, "qmin"), joint_limit_vector(robot, "qmax")
    lo = np.full(n, -np.pi) if lo is None else lo
    hi = np.full(n, np.pi) if hi is None else hi
    rng = np.random.default_rng(seed)
    q = rng.uniform(lo, hi, (samples, n))
    A = joint_inertia(robot, q)
    return np.max(np.diagonal(A, axis1=-2, axis2=-1), axis=0)


@keyword_options()
def tune_pid(robot, omega, *, samples: int = 512) -> PIDGains:
    """Gains (9.10) for ``robot``: a_j from :func:`max_diagonal_inertia`, Fv_j from the
    robot's viscous friction."""
    robot = numeric_only(robot)
    fv = np.array([float(robot.link(j).FV) for j in dofs(robot)])
    return pid_gains(max_diagonal_inertia(robot, samples=samples), fv, omega)


def _joints(n) -> int:
    return whole_number("n", n, what="a number of joints (PID.for_joints)")


class PID(Controller):
    """Joint PID (9.5) of ``robot`` (the controller's model: its joints, its torque limits,
    its gravity torques with ``gravity=True``) with switched integral action and anti-windup;
    :meth:`for_joints` builds one for n joints without a model.

    ``integral_band=(e_min, e_max)``: the error is integrated on joint j only while
    e_min <= |e_j| <= e_max (Khalil & Dombre §9.3.1); ``tau_max``: torques at which the
    integral is frozen while it would push further into saturation (default the robot's
    taumax limits).
    """

    @keyword_options()
    def __init__(self, robot, kp, kd, ki=0.0, *, dt=DEFAULT_DT,
                 integral_band=(0.0, np.inf), tau_max=None, gravity=False):
        if not (hasattr(robot, "links") and hasattr(robot, "numeric")):
            raise ArgumentError(f"PID: robot must be a robmod Robot (the controller's model), "
                                f"got {type(robot).__name__}; PID.for_joints(n, ...) builds a "
                                "PID without one")
        dyn = Dynamics.of(robot, "controller model")
        tau_max = dyn.limits("taumax") if tau_max is None else tau_max
        self._set(dyn, dyn.n, kp, kd, ki, dt, integral_band, tau_max, gravity)

    @classmethod
    @keyword_options()
    def for_joints(cls, n: int, kp, kd, ki=0.0, *, dt=DEFAULT_DT, integral_band=(0.0, np.inf),
                   tau_max=None) -> "PID":
        """A PID of ``n`` joints without a robot model (no gravity compensation; torque limits
        ``tau_max`` only when given)."""
        pid = cls.__new__(cls)
        pid._set(None, _joints(n), kp, kd, ki, dt, integral_band, tau_max, False)
        return pid

    def _set(self, dyn, n, kp, kd, ki, dt, integral_band, tau_max, gravity):
        if gravity and dyn is None:
            raise ArgumentError("gravity compensation needs the robot: PID(robot, ..., "
                                "gravity=True)")
        self.dyn, self.n = dyn, n
        self.kp, self.kd = gain(kp, n, "kp"), gain(kd, n, "kd")
        self.ki = gain(ki, n, "ki")
        self.dt = sample_time(dt)
        try:
            lo, hi = (float(x) for x in integral_band)
        except (TypeError, ValueError):
            lo, hi = np.nan, np.nan
        if not (0 <= lo <= hi):
            raise ArgumentError(f"integral_band must be (e_min, e_max) with 0 <= e_min <= "
                                f"e_max, got {integral_band!r}")
        self.band = (lo, hi)
        self.tau_max = None if tau_max is None else gain(tau_max, n, "tau_max", allow_zero=False)
        self.gravity = bool(gravity)

    @classmethod
    @keyword_options()
    def tuned(cls, robot, omega, *, dt=DEFAULT_DT, integral_band=(0.0, np.inf), tau_max=None,
              gravity=False) -> "PID":
        """The PID with the gains of eq. (9.10) for ``robot`` and bandwidth ``omega``."""
        g = tune_pid(robot, omega)
        return cls(robot, g.kp, g.kd, g.ki, dt=dt, integral_band=integral_band,
                   tau_max=tau_max, gravity=gravity)

    def state_size(self):
        return self.n

    def output(self, t, q, qd, ref, z):
        qj, qdj = self.joints(q, qd)
        tau = self.kp * (ref.q - qj) + self.kd * (ref.qd - qdj) + self.ki * z
        if self.gravity:
            tau = tau + self.dyn.gravity(q)
        return tau

    def update(self, t, q, qd, ref, z):
        e = ref.q - self.joints(q, qd)[0]
        on = (np.abs(e) >= self.band[0]) & (np.abs(e) <= self.band[1])
        if self.tau_max is not None:
            tau = self.output(t, q, qd, ref, z)
            on &= ~((np.abs(tau) >= self.tau_max) & (np.sign(e) == np.sign(tau)))
        return np.where(on, e, 0.0)


class PDGravity(Controller):
    """PD with gravity compensation, eq. (9.12): Gamma = Kp e - Kd qd + Q(q) (or Q(q^d) with
    ``at_desired=True``).  ``robot`` is the controller's model (its Q)."""

    @keyword_options()
    def __init__(self, robot, kp, kd, *, dt=DEFAULT_DT, at_desired: bool = False):
        self.dyn = Dynamics.of(robot, "controller model")
        self.n = self.dyn.n
        self.kp, self.kd = gain(kp, self.n, "kp"), gain(kd, self.n, "kd")
        self.dt = sample_time(dt)
        self.at_desired = at_desired

    def output(self, t, q, qd, ref, z):
        qj, qdj = self.joints(q, qd)
        g = self.dyn.gravity(self.at(q, ref.q) if self.at_desired else q)
        return self.kp * (ref.q - qj) - self.kd * qdj + g


__all__ = ["PID", "PIDGains", "PDGravity", "pid_gains", "tune_pid", "max_diagonal_inertia"]
