"""LQR tracking on the dynamics linearized along the reference (Anderson & Moore, *Optimal
Control: Linear Quadratic Methods*, 1990; the linearization on the analytical derivatives of
the direct model, :mod:`.linearization`).  A floating robot's is the LQR of its joints, the
base free (its pose and momentum are not controllable by joint torques in flight): the
joints' dynamics with the base's twist following the joints' at no momentum
(:meth:`~robmod.control.FloatingDynamics.derivatives`).

About the desired motion x_d(t) = (q^d, q̇^d) and its torques Γ_d = IDM(q^d, q̇^d, q̈^d) (the
controller's model, Coulomb friction at the desired velocity as in (9.31)), the error δx = x -
x_d obeys δẋ ≈ A(t) δx + B(t) δΓ with A, B the state matrices at (q^d, q̇^d, Γ_d).  The law::

    Γ = Γ_d(t) - K(t) (x - x_d(t))

minimizes ∫ δx^T Q δx + δΓ^T R δΓ dt (Σ for a digital law) on the linearized dynamics:

* a set point (q̇^d = q̈^d = 0): one stationary gain, K = R^-1 B^T P with P the solution of the
  continuous algebraic Riccati equation (dt = 0), or K = (R + B_d^T P B_d)^-1 B_d^T P A_d with
  the discrete one on the zero-order-hold sampling (dt > 0);
* a trajectory of duration T: time-varying gains, by the Riccati recursion backward from the
  stationary solution at its final point, P_N = P_∞(x_d(T)) (sample by sample for a digital law;
  the Riccati differential equation on a grid of ``grid`` seconds for a continuous one),
  K(t) = K(T) after the end.

Weights by Bryson's rule (Bryson & Ho, *Applied Optimal Control*, 1975) unless given:
Q = diag(1/e_q^2, 1/e_q̇^2) from the largest acceptable errors ``max_error`` and R = diag(1 /
Γ_max^2) from the robot's torque limits (``taumax``).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.integrate import solve_ivp

from ..description.arguments import finite_array, keyword_options, positive_scalar
from ..errors import ArgumentError, RobmodError
from .base import DEFAULT_DT, Controller, sample_time
from .linearization import discretized, plant_derivatives, state_blocks
from .plant import Dynamics
from .reference import Reference


def _weights(dyn, Q, R, max_error):
    n = dyn.n
    if Q is None:
        e = finite_array("max_error", max_error, shape_text="two errors (position, velocity)")
        if e.shape != (2,) or not np.all(e > 0):
            raise RobmodError(f"LQR: max_error must be two positive errors (position, "
                              f"velocity), got {max_error}")
        eq, eqd = e
        Q = np.diag([eq ** -2] * n + [eqd ** -2] * n)
    if R is None:
        tau_max = dyn.limits("taumax")
        if tau_max is None:
            raise ArgumentError("LQR: give R (the robot has no torque limits taumax for "
                              "Bryson's rule R = diag(1 / taumax^2))")
        R = np.diag(tau_max ** -2.0)
    Q = np.atleast_2d(finite_array("Q", Q, shape_text=f"a {2 * n} x {2 * n} weight"))
    R = np.atleast_2d(finite_array("R", R, shape_text=f"a {n} x {n} weight"))
    if Q.shape != (2 * n, 2 * n) or R.shape != (n, n):
        raise RobmodError(f"LQR: Q must be {2 * n} x {2 * n} and R {n} x {n}, got {Q.shape} and "
                          f"{R.shape}")
    Q, R = 0.5 * (Q + Q.T), 0.5 * (R + R.T)
    if np.linalg.eigvalsh(Q)[0] < -1e-12 * max(1.0, abs(Q).max()) or \
            np.linalg.eigvalsh(R)[0] <= 0:
        raise RobmodError("LQR: Q must be positive semi-definite and R positive definite")
    return Q, R


def _sampled(ref, times):
    """(q^d, q̇^d, q̈^d) on the grid ``times`` (..., n): at once when the reference is
    vectorized (a trajectory object), else sample by sample."""
    try:
        d = ref(times)
        if d.q.shape == (len(times), ref.n):
            return d.q, d.qd, d.qdd
    except (RobmodError, ValueError, TypeError, IndexError):
        pass
    rows = [ref(float(t)) for t in times]
    return tuple(np.stack([getattr(r, k) for r in rows]) for k in ("q", "qd", "qdd"))


class LQR(Controller):
    """LQR tracking of ``reference`` (a trajectory, a function of t with ``horizon``, or a set
    point) on ``robot`` (the controller's model), see the module's docstring.

    ``Q`` (2n x 2n) and ``R`` (n x n), else Bryson's rule with ``max_error`` (position,
    velocity) and the robot's torque limits; ``dt``: the sample period (0: a continuous law,
    its gains on a grid of ``grid`` s).  :attr:`K` (n, 2n) is the gain at t = 0,
    :attr:`gains` the table over :attr:`times`.
    """

    @keyword_options()
    def __init__(self, robot, reference, *, Q=None, R=None, dt=DEFAULT_DT, horizon=None,
                 max_error=(1e-3, 1e-2), grid: float = 1e-3):
        self.dyn = Dynamics.of(robot, "controller model")
        self.n = n = self.dyn.n
        self.dt = sample_time(dt)
        self.Q, self.R = _weights(self.dyn, Q, R, max_error)
        ref = Reference(reference, n)
        self.set_point = not callable(ref.source) and not hasattr(ref.source, "sample")
        T = positive_scalar("horizon", horizon if horizon is not None else ref.duration,
                            allow_zero=True)
        if self.set_point or T <= 0:
            if not self.set_point:
                raise RobmodError("LQR: a reference function needs horizon= (its duration)")
            T = 0.0
        step = self.dt if self.dt > 0 else positive_scalar("grid", grid)
        N = int(np.ceil(T / step - 1e-9)) if T > 0 else 0
        self.times = np.arange(N + 1) * step
        qd_, vd, ad = _sampled(ref, self.times)
        tau = self.dyn.idm(*self.dyn.state_of_joints(qd_, vd), ad)
        A, B = state_blocks(plant_derivatives(self.dyn, qd_, vd, tau))
        if self.dt > 0:
            A, B = discretized(A, B, self.dt)
        self.gains = self._design(A, B)
        self.K = self.gains[0]

    def _stationary(self, A, B):
        if self.dt > 0:
            P = scipy.linalg.solve_discrete_are(A, B, self.Q, self.R)
            return P, np.linalg.solve(self.R + B.T @ P @ B, B.T @ P @ A)
        P = scipy.linalg.solve_continuous_are(A, B, self.Q, self.R)
        return P, np.linalg.solve(self.R, B.T @ P)

    def _design(self, A, B):
        P, K_end = self._stationary(A[-1], B[-1])
        N = len(self.times) - 1
        K = np.empty((N + 1, self.n, 2 * self.n))
        K[N] = K_end
        if self.dt > 0:
            for k in range(N - 1, -1, -1):
                a, b = A[k], B[k]
                bp = b.T @ P
                K[k] = np.linalg.solve(self.R + bp @ b, bp @ a)
                P = self.Q + a.T @ P @ (a - b @ K[k])
                P = 0.5 * (P + P.T)
            return K
        if N:
            Rinv = np.linalg.inv(self.R)
            t = self.times
            m = 2 * self.n

            def riccati(s, p):      # -dP/dt, integrated backward in time
                k = min(int(s / (t[1] - t[0])), N - 1)
                w = (s - t[k]) / (t[1] - t[0])
                a = (1 - w) * A[k] + w * A[k + 1]
                b = (1 - w) * B[k] + w * B[k + 1]
                P_ = p.reshape(m, m)
                return -(a.T @ P_ + P_ @ a - P_ @ b @ Rinv @ b.T @ P_ + self.Q).ravel()

            sol = solve_ivp(riccati, (t[-1], 0.0), P.ravel(), t_eval=t[::-1], rtol=1e-8,
                            atol=1e-10)
            if not sol.success:
                raise RobmodError(f"LQR: the Riccati equation could not be integrated: "
                                  f"{sol.message}")
            for k, p in zip(range(N, -1, -1), sol.y.T):
                K[k] = Rinv @ B[k].T @ p.reshape(m, m)
        return K

    def gain(self, t) -> np.ndarray:
        """K(t) (n, 2n): the sample's for a digital law, interpolated for a continuous one,
        K(T) after the end."""
        N = len(self.times) - 1
        if N == 0 or t >= self.times[-1]:
            return self.gains[-1]
        step = self.times[1]
        s = max(float(t), 0.0) / step
        k = min(int(s + 1e-9), N)
        if self.dt > 0 or k == N:
            return self.gains[k]
        w = s - k
        return (1 - w) * self.gains[k] + w * self.gains[k + 1]

    def output(self, t, q, qd, ref, z):
        K = self.gain(t)
        n = self.n
        if self.dyn.floating:      # the measured base, the desired joints
            tau_d = self.dyn.idm(self.at(q, ref.q), self.at(qd, ref.qd),
                                 np.broadcast_to(ref.qdd, np.shape(q)[:-1] + (n,)))
            q, qd = self.joints(q, qd)
        else:
            tau_d = self.dyn.idm(*np.broadcast_arrays(ref.q, ref.qd, ref.qdd))
        return (tau_d - np.einsum("ij,...j->...i", K[:, :n], q - ref.q)
                - np.einsum("ij,...j->...i", K[:, n:], qd - ref.qd))

    def law_derivatives(self, t, q, qd, ref, z):
        """(∂Γ/∂q, ∂Γ/∂q̇, ∂Γ/∂z, ∂ż/∂q, ∂ż/∂q̇, ∂ż/∂z) of the law (no state: z is empty)."""
        K, n = self.gain(t), self.n
        empty = np.zeros((n, 0)), np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, 0))
        return -K[:, :n], -K[:, n:], *empty


__all__ = ["LQR"]
