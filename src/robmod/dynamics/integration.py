"""The time integration of the simulations: classical Runge-Kutta 4 on a time grid (batched)
or one of SciPy's ``solve_ivp`` methods (one state), written once for the fixed and the
floating base."""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, RobmodError


def integrate_states(f, x, t, *, method="rk4", substeps=1, name="simulate", project=None):
    """States (len(t), ...) of dx/dt = f(t, x) from x at t[0]: ``method='rk4'`` with
    ``substeps`` steps per interval of the grid t (x may be a batch), otherwise a
    ``scipy.integrate.solve_ivp`` method on one state (tolerances 1e-10, 1e-12).
    ``project(t, x)``: applied after each step (the checks of the state, a floating base's
    quaternion kept unit)."""
    project = project or (lambda tt, y: y)
    if method != "rk4":
        from scipy.integrate import solve_ivp

        if x.ndim != 1:
            raise ArgumentError(f"{name}: method {method!r} integrates one state (x0 of shape "
                                f"({x.shape[-1]},)), got shape {x.shape}; use method='rk4' for "
                                "a batch")
        sol = solve_ivp(f, (t[0], t[-1]), x, method=method, t_eval=t, rtol=1e-10, atol=1e-12)
        if not sol.success:
            raise RobmodError(f"{name}: the integrator {method} failed at t = "
                              f"{sol.t[-1] if sol.t.size else t[0]:.6g}: {sol.message}")
        return project(t[-1], sol.y.T)
    out = np.empty((len(t),) + x.shape)
    out[0] = x
    for k in range(len(t) - 1):
        h = (t[k + 1] - t[k]) / substeps
        tt = t[k]
        for _ in range(substeps):
            k1 = f(tt, x)
            k2 = f(tt + h / 2, x + h / 2 * k1)
            k3 = f(tt + h / 2, x + h / 2 * k2)
            k4 = f(tt + h, x + h * k3)
            tt += h
            x = project(tt, x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4))
        out[k + 1] = x
    return out


__all__ = []
