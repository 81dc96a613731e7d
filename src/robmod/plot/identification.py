"""Identification results (Khalil & Dombre ch. 7, identification; Gautier & Khalil 1990):

* :func:`identification_plot`: measured and model torques and the residuals, one row per
  joint — of a fitted :class:`~robmod.identification.DynamicIdentification` on its own data
  (the torques of the observation, filtered and decimated by Gautier's parallel filtering,
  and W chi_hat; residuals rho = Y - W chi_hat), or of a validation on other data;
* :func:`parameters_plot`: the estimated base parameters with +-2 standard deviations, and
  their relative standard deviations %sigma_i on a log scale;
* :func:`cutoff_plot`: the held-out torque error of the cross-validation against the
  filter's cut-off, per fold and on average, the choice marked.

The objects are recognized by what they hold (a validation: ``tau_hat``; a fitted estimator:
``params_``; a cut-off choice: ``cutoffs``), so that their ``plot()`` methods can delegate here.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import keyword_options
from ..errors import ArgumentError, RobmodError
from .canvas import finish, panels


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


def _is_estimator(obj) -> bool:
    return callable(getattr(obj, "fit", None)) and callable(getattr(obj, "predict", None))


def _fitted(est, what):
    if not _is_estimator(est):
        raise ArgumentError(f"{what} takes a fitted DynamicIdentification, got "
                            f"{type(est).__name__}")
    if not hasattr(est, "params_"):
        raise RobmodError("the estimator is not fitted: call fit(data) first")
    return est


@keyword_options()
def identification_plot(obj, path=None, *, ax=None):
    """Measured against model torques and the residuals, one row per joint (``ax``: n x 2
    Axes): of a :class:`~robmod.identification.DynamicIdentification` on its own data (the
    fit; x: the samples of the observation), or of a validation (``est.validate(other_data)``;
    x: the time)."""
    if hasattr(obj, "tau_hat") and hasattr(obj, "relative"):      # a Validation
        n = obj.tau.shape[1]
        fig, axes = panels(path, ax, n, 2, figsize=(10, 1.8 * n + 1), sharex=True,
                           squeeze=False)
        _torque_rows(axes, obj.t, obj.tau, obj.tau_hat, "t (s)",
                     [f"residual {100 * r:.1f} %" for r in obj.relative])
        return finish(fig, path, layout=ax is None)
    if not _is_estimator(obj):
        raise ArgumentError(f"identification_plot takes a fitted DynamicIdentification or a "
                            f"Validation, got {type(obj).__name__}")
    est = _fitted(obj, "identification_plot")
    n = est.n_joints_
    Y = est.observed_.reshape(n, -1).T
    rho = est.residual_.reshape(n, -1).T
    rel = np.linalg.norm(rho, axis=0) / np.maximum(np.linalg.norm(Y, axis=0), 1e-300)
    fig, axes = panels(path, ax, n, 2, figsize=(10, 1.8 * n + 1), sharex=True, squeeze=False)
    _torque_rows(axes, np.arange(Y.shape[0]), Y, Y - rho, "sample of the observation",
                 [f"residual {100 * r:.1f} %" for r in rel])
    return finish(fig, path, layout=ax is None)


@keyword_options()
def parameters_plot(est, path=None, *, ax=None):
    """The identified base parameters chi_hat_i with +-2 sigma_i error bars (top) and their
    relative standard deviations %sigma_i on a log scale (bottom) (``ax``: 2 Axes)."""
    est = _fitted(est, "parameters_plot")
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


@keyword_options()
def cutoff_plot(obj, path=None, *, ax=None):
    """The choice of the identification filter's cut-off by cross-validation in time: the
    held-out relative RMS error (%, log scale) against the cut-off (Hz, log scale), each fold
    in grey, their mean, the choice marked (``ax``: 1 Axes); of a
    :class:`~robmod.identification.DynamicIdentification` fitted with ``cutoff='auto'`` or of
    its :class:`~robmod.identification.CutoffChoice`."""
    if _is_estimator(obj):
        obj = _fitted(obj, "cutoff_plot").processed_.choice
        if obj is None:
            raise RobmodError("the estimator's cut-off was given, not chosen from the data "
                              "(cutoff='auto'): there is no curve")
    if not all(hasattr(obj, k) for k in ("cutoffs", "errors", "fold_errors", "chosen")):
        raise ArgumentError(f"cutoff_plot takes a fitted DynamicIdentification or a "
                            f"CutoffChoice, got {type(obj).__name__}")
    fig, axis = panels(path, ax, 1, 1, figsize=(7, 4.5))
    f = np.asarray(obj.cutoffs)
    ok = np.isfinite(obj.errors)
    for k in range(obj.fold_errors.shape[1]):
        axis.plot(f[ok], 100 * obj.fold_errors[ok, k], color="0.75", lw=0.8,
                  label="folds" if k == 0 else None)
    axis.plot(f[ok], 100 * obj.errors[ok], "o-", label="mean over the folds")
    best = int(np.nanargmin(np.where(ok, obj.errors, np.nan)))
    axis.axvline(obj.chosen, color="tab:red", lw=1,
                 label=f"chosen: {obj.chosen:.3g} Hz ({100 * obj.errors[best]:.3g} %)")
    axis.axvline(obj.bandwidth, color="0.5", ls=":", lw=1, label="motion band (99 %)")
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("cut-off of the zero-phase low-pass (Hz)")
    axis.set_ylabel("held-out torque error (% RMS)")
    axis.legend(loc="best", fontsize="small")
    return finish(fig, path, layout=ax is None)


__all__ = ["identification_plot", "parameters_plot", "cutoff_plot"]
