"""The time integration of the simulations: classical Runge-Kutta 4 on a time grid (batched)
or one of SciPy's ``solve_ivp`` methods (one state), written once for the fixed and the
floating base (:func:`~robmod.dynamics.simulate`, :func:`~robmod.dynamics.floating_simulate`)."""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, RobmodError


def integrate_states(f, torque, x, t, *, method="rk4", substeps=1, name="simulate",
                     project=None):
    """(states (len(t), ...), torques (len(t), ..., m)) of dx/dt = f(t, x, tau) under the
    torque law tau = ``torque(t, x)`` from x at t[0].

    ``method='rk4'``: ``substeps`` steps per interval of the grid t (x may be a batch);
    otherwise a ``scipy.integrate.solve_ivp`` method on one state (tolerances 1e-10, 1e-12).
    ``torque`` checks the state it is given (a simulation that blows up stops there);
    ``project(t, x)``: applied after each step (the checks of the state, a floating base's
    quaternion kept unit).  The torques are those of the law at the grid's times and states.
    """
    project = project or (lambda tt, y: y)

    def rate(tt, xx):
        return f(tt, xx, torque(tt, xx))

    if method != "rk4":
        from scipy.integrate import solve_ivp

        if x.ndim != 1:
            raise ArgumentError(f"{name}: method {method!r} integrates one state (x0 of shape "
                                f"({x.shape[-1]},)), got shape {x.shape}; use method='rk4' for "
                                "a batch")
        sol = solve_ivp(rate, (t[0], t[-1]), x, method=method, t_eval=t, rtol=1e-10,
                        atol=1e-12)
        if not sol.success:
            raise RobmodError(f"{name}: the integrator {method} failed at t = "
                              f"{sol.t[-1] if sol.t.size else t[0]:.6g}: {sol.message}")
        states = project(t[-1], sol.y.T)
        return states, np.asarray([torque(tt, xx) for tt, xx in zip(t, states)])
    out = np.empty((len(t),) + x.shape)
    out[0] = x
    taus = []
    for k in range(len(t) - 1):
        h = (t[k + 1] - t[k]) / substeps
        tt = t[k]
        for s in range(substeps):
            tau = torque(tt, x)
            k1 = f(tt, x, tau)
            if s == 0:
                taus.append(_batch(tau, x))
            k2 = rate(tt + h / 2, x + h / 2 * k1)
            k3 = rate(tt + h / 2, x + h / 2 * k2)
            k4 = rate(tt + h, x + h * k3)
            tt += h
            x = project(tt, x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4))
        out[k + 1] = x
    taus.append(_batch(torque(t[-1], x), x))
    return out, np.asarray(taus)


def _batch(tau, x):
    """The torques tau (..., m) broadcast to the batch of the states x (..., N)."""
    tau = np.asarray(tau)
    return np.broadcast_to(tau, np.broadcast_shapes(tau.shape[:-1], x.shape[:-1])
                           + tau.shape[-1:])


__all__ = []
