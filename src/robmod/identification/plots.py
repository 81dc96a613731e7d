"""Figures of identification results (Matplotlib, optional: ``pip install 'robmod[plot]'``).

* :func:`validation_figure`: measured and predicted torques on (other) data and their
  difference, one row per joint;
* :func:`fit_figure`: the fit on the identification data themselves — the torques of the
  observation (filtered and decimated, Gautier's parallel filtering) and those of the model
  W chi_hat, and the residuals rho = Y - W chi_hat, one row per joint;
* :func:`parameters_figure`: the estimated base parameters with +-2 standard deviations, and
  their relative standard deviations %sigma_i (Khalil & Dombre ch. 7, identification;
  Gautier & Khalil 1990) on a log scale;
* :func:`cutoff_figure`: the held-out torque error of the cross-validation against the
  filter's cut-off (:mod:`.cutoff`), per fold and on average, the choice marked.
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


def cutoff_figure(choice, path=None, *, ax=None):
    """The cross-validation of the cut-off: held-out relative RMS error (%, log scale) against
    the cut-off (Hz, log scale), each fold in grey, their mean, the choice marked (``ax``: 1
    Axes)."""
    fig, axis = panels(path, ax, 1, 1, figsize=(7, 4.5))
    f = np.asarray(choice.cutoffs)
    ok = np.isfinite(choice.errors)
    for k in range(choice.fold_errors.shape[1]):
        axis.plot(f[ok], 100 * choice.fold_errors[ok, k], color="0.75", lw=0.8,
                  label="folds" if k == 0 else None)
    axis.plot(f[ok], 100 * choice.errors[ok], "o-", label="mean over the folds")
    best = int(np.nanargmin(np.where(ok, choice.errors, np.nan)))
    axis.axvline(choice.chosen, color="tab:red", lw=1,
                 label=f"chosen: {choice.chosen:.3g} Hz ({100 * choice.errors[best]:.3g} %)")
    axis.axvline(choice.bandwidth, color="0.5", ls=":", lw=1, label="motion band (99 %)")
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("cut-off of the zero-phase low-pass (Hz)")
    axis.set_ylabel("held-out torque error (% RMS)")
    axis.legend(loc="best", fontsize="small")
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
