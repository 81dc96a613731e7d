"""Figures of identification results (Matplotlib, optional: ``pip install 'robmod[plot]'``).

* :func:`validation_figure`: measured and predicted torques on (other) data and their
  difference, one row per joint;
* :func:`fit_figure`: the fit on the identification data themselves — the torques of the
  observation (filtered and decimated, Gautier's parallel filtering) and those of the model
  W chi_hat, and the residuals rho = Y - W chi_hat, one row per joint;
* :func:`parameters_figure`: the estimated base parameters with +-2 standard deviations, and
  their relative standard deviations %sigma_i (Khalil & Dombre ch. 7, identification;
  Gautier & Khalil 1990) on a log scale.
"""
from __future__ import annotations

import numpy as np

from ..figures import finish, panels


def _torque_rows(fig_axes, x, tau, tau_hat, xlabel, residual_names):
    """Measured (grey) and model torques left, residuals right, one row per joint."""
    n = tau.shape[1]
    for j in range(n):
        fig_axes[j, 0].plot(x, tau[:, j], color="0.6", lw=1, label="measured")
        fig_axes[j, 0].plot(x, tau_hat[:, j], lw=1, label="model")
        fig_axes[j, 0].set_ylabel(f"tau{j + 1}")
        fig_axes[j, 1].plot(x, tau[:, j] - tau_hat[:, j], lw=0.8)
        fig_axes[j, 1].set_ylabel(residual_names[j])
    fig_axes[0, 0].legend(loc="best", fontsize="small")
    fig_axes[-1, 0].set_xlabel(xlabel)
    fig_axes[-1, 1].set_xlabel(xlabel)


def validation_figure(v, path=None, *, ax=None):
    """Measured (grey) and predicted torques and their difference, one row per joint
    (``ax``: n x 2 Axes)."""
    n = v.tau.shape[1]
    fig, axes = panels(path, ax, n, 2, figsize=(10, 1.8 * n + 1), sharex=True, squeeze=False)
    _torque_rows(axes, v.t, v.tau, v.tau_hat, "t (s)",
                [f"residual {100 * r:.1f} %" for r in v.relative])
    return finish(fig, path, layout=ax is None)


def fit_figure(est, path=None, *, ax=None):
    """The fit on the identification data: observed torques Y and W chi_hat per joint, and
    the residuals (``ax``: n x 2 Axes); x: the samples of the observation."""
    n = est.n_joints_
    Y = est.observed_.reshape(n, -1).T
    rho = est.residual_.reshape(n, -1).T
    rel = np.linalg.norm(rho, axis=0) / np.maximum(np.linalg.norm(Y, axis=0), 1e-300)
    fig, axes = panels(path, ax, n, 2, figsize=(10, 1.8 * n + 1), sharex=True, squeeze=False)
    _torque_rows(axes, np.arange(Y.shape[0]), Y, Y - rho, "sample of the observation",
                [f"residual {100 * r:.1f} %" for r in rel])
    return finish(fig, path, layout=ax is None)


def parameters_figure(est, path=None, *, ax=None):
    """The base parameters chi_hat_i with +-2 sigma_i error bars (top) and %sigma_i on a log
    scale (bottom) (``ax``: 2 Axes)."""
    fig, axes = panels(path, ax, 2, 1, figsize=(max(8, 0.3 * len(est.names_)), 7), sharex=True)
    x = np.arange(len(est.names_))
    axes[0].errorbar(x, est.params_, yerr=2 * est.std_, fmt="o", ms=3, capsize=2,
                     label="estimate +- 2 std")
    axes[0].axhline(0.0, color="0.8", lw=0.5)
    axes[0].set_ylabel("base parameter")
    axes[0].legend(loc="best", fontsize="small")
    axes[1].bar(x, est.relative_std_, color="tab:gray")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("relative std (%)")
    axes[1].set_xticks(x)
    axes[1].set_xticklabels(est.names_, rotation=90, fontsize=7)
    return finish(fig, path, layout=ax is None)


__all__ = []
