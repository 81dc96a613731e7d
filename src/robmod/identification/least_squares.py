"""Identification of the base parameters from joint data (Siciliano et al. §7.4, (7.85), (7.86)).

``tau = W beta + rho``: the base regressor stacked over the samples (rows of joint 1
for all samples, then joint 2, ...), solved by weighted least squares.  With
``weights='joint'`` (Gautier's practice) an ordinary least-squares solution gives
the residual standard deviation of each joint equation,
``sigma_j^2 = |rho_j|^2 / (N - b)``, and the rows of joint j are divided by
sigma_j.  Standard deviations of the estimates from
``cov = sigma^2 (W^T W)^-1`` (weighted system, ``sigma^2 = |rho|^2 / (r - b)``),
relative ones in %, and the condition number of the (column-scaled) weighted
regressor.  :func:`prepare_data` optionally filters the positions (zero-phase
Butterworth) and differentiates them (central differences), and decimates.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RobmodError
from .base_numeric import numeric_robot
from .regressors import regressor


@dataclass
class Identification:
    names: tuple
    beta: np.ndarray
    std: np.ndarray
    relative_std: np.ndarray    # % of |beta|
    sigma_joint: np.ndarray     # residual standard deviation of each joint equation
    condition: float
    residual_rms: float
    n_rows: int

    def as_dict(self) -> dict:
        return dict(zip(self.names, self.beta))

    def _repr_html_(self):
        return parameters_html(self.names, self.beta, self.std, self.relative_std,
                               f"identified from {self.n_rows} equations; condition number "
                               f"{self.condition:.3g}; residual rms {self.residual_rms:.3g}")

    def __str__(self):
        lines = [f"identified {len(self.names)} parameters from {self.n_rows} equations; "
                 f"condition number {self.condition:.3g}; residual rms {self.residual_rms:.3g}",
                 f"  {'parameter':<10} {'value':>14} {'std':>12} {'std %':>8}"]
        for n, b, s, r in zip(self.names, self.beta, self.std, self.relative_std):
            lines.append(f"  {n:<10} {b:>14.6g} {s:>12.3g} {r:>8.2f}")
        return "\n".join(lines)


def parameters_html(names, values, std, relative_std, caption, regrouping=None) -> str:
    """An HTML table (Jupyter) of identified parameters: value, standard deviation, %std and,
    when given, what each base parameter regroups."""
    from ..description.table import html_table

    header = ["parameter", "value", "std", "%std"] + (["regrouping"] if regrouping else [])
    rows = [[n, f"{v:.6g}", f"{s:.3g}", f"{r:.2f}"] + ([regrouping.get(n, "")] if regrouping
                                                      else [])
            for n, v, s, r in zip(names, values, std, relative_std)]
    return html_table(header, rows, caption=caption)


def _names(robot, params):
    if params is None:
        from .base_symbolic import base_parameters

        params = base_parameters(robot)
    if hasattr(params, "standard_names"):
        return params.names, params.standard_names
    return tuple(params), tuple(params)


def _observation_matrix(robot, q, qd, qdd, params=None):
    """(W, names): the base regressor stacked joint by joint, (NJ * N, b)."""
    from ..description.arguments import require_numeric

    num0 = robot.numeric()
    require_numeric(num0, "identification", scope="geometry")
    syms = sorted(str(s) for g in num0.gravity for s in getattr(g, "free_symbols", ()))
    if syms:
        raise RobmodError(f"identification needs the gravity in numbers: {', '.join(syms)} "
                          "is symbolic: call robot.numeric({...})")
    names, columns = _names(robot, params)
    num, _ = numeric_robot(robot)
    Phi = regressor(num, q, qd, qdd, columns)          # (N, NJ, b)
    W = np.transpose(Phi, (1, 0, 2)).reshape(-1, Phi.shape[-1])
    return W, names


def _solve_wls(W, y, n_joints, weights="joint", names=None):
    """(beta, std, sigma_joint, condition, residual): weighted least squares of y = W beta."""
    from .estimator import check_rank

    r, b = W.shape
    N = r // n_joints
    if r <= b:
        raise RobmodError(f"{r} equations for {b} parameters: more samples are needed")
    check_rank(W, [f"column {k + 1}" for k in range(b)] if names is None else names)
    if isinstance(weights, str) and weights == "joint":
        beta0 = np.linalg.lstsq(W, y, rcond=None)[0]
        rho = (y - W @ beta0).reshape(n_joints, N)
        sig = np.sqrt((rho ** 2).sum(1) / max(N - b, 1))
        sig = np.where(sig > 0, sig, max(sig.max(), 1e-300))
        w = np.repeat(1.0 / sig, N)
    elif isinstance(weights, str) and weights == "none":
        w = np.ones(r)
        sig = np.ones(n_joints)
    else:
        w = np.repeat(np.asarray(weights, dtype=float), N) if np.size(weights) == n_joints \
            else np.asarray(weights, dtype=float)
        sig = 1.0 / np.asarray(weights, dtype=float)[:n_joints]
    Ww, yw = W * w[:, None], y * w
    beta = np.linalg.lstsq(Ww, yw, rcond=None)[0]
    res = yw - Ww @ beta
    s2 = (res ** 2).sum() / max(r - b, 1)
    cov = s2 * np.linalg.pinv(Ww.T @ Ww)
    std = np.sqrt(np.abs(np.diag(cov)))
    norms = np.linalg.norm(Ww, axis=0)
    cond = float(np.linalg.cond(Ww / np.where(norms > 0, norms, 1)))
    return beta, std, sig, cond, y - W @ beta


def identify(robot, q, qd, qdd, tau, params=None, weights="joint",
             known=None) -> Identification:
    """Base parameters from samples q, qd, qdd, tau of shape (N, NJ).

    ``params``: a :class:`~.base_symbolic.BaseParameters` (default: computed) or names of
    standard parameters (their columns are used as they are).  ``weights``: 'joint'
    (1/sigma_j per joint), 'none', or one weight per joint (or per row).
    ``known``: torques (N, NJ) of known origin, subtracted from tau before the fit: e.g.
    a measured external wrench f on the tool, ``J(q)^T f`` (static model), or the Stribeck
    term of a friction law identified separately (it is not linear in its parameters).
    """
    tau = np.asarray(tau, dtype=float)
    if known is not None:
        known = np.asarray(known, dtype=float)
        if known.shape != tau.shape:
            from ..errors import RobmodError

            raise RobmodError(f"known torques must have the shape of tau {tau.shape}, "
                              f"got {known.shape}")
        tau = tau - known
    W, names = _observation_matrix(robot, q, qd, qdd, params)
    y = tau.T.reshape(-1)
    beta, std, sig, cond, res = _solve_wls(W, y, tau.shape[-1], weights, names)
    rel = 100 * std / np.maximum(np.abs(beta), 1e-300)
    return Identification(tuple(names), beta, std, rel, sig, cond,
                          float(np.sqrt((res ** 2).mean())), W.shape[0])


def prepare_data(t, q, tau, cutoff=None, order=4, decimate=1):
    """(t, q, qd, qdd, tau) from sampled positions and torques.

    ``cutoff`` (Hz): zero-phase Butterworth low-pass of q (and of tau) before central
    differences, the 2 / cutoff seconds at each end (filter transients) dropped; ``decimate``: keep one sample in ``decimate`` afterwards (the
    parallel decimation (Gautier) of the data and of the model).
    """
    t, q, tau = (np.asarray(x, dtype=float) for x in (t, q, tau))
    dt = float(np.mean(np.diff(t)))
    edge = 2
    if cutoff:
        from scipy.signal import butter, filtfilt

        b, a = butter(order, cutoff * 2 * dt)
        q = filtfilt(b, a, q, axis=0)
        tau = filtfilt(b, a, tau, axis=0)
        edge = max(2, int(round(2.0 / (cutoff * dt))))   # transients of filtfilt at the ends
    qd = np.gradient(q, dt, axis=0)
    qdd = np.gradient(qd, dt, axis=0)
    s = slice(edge, -edge, decimate) if len(t) > 4 * edge else slice(None, None, decimate)
    return t[s], q[s], qd[s], qdd[s], tau[s]


__all__ = ["identify", "Identification", "prepare_data"]
