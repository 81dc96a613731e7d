"""Predicted against measured torques: the :class:`Validation` of an identified model."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Validation:
    """Per-joint errors of predicted torques against measured ones."""

    rms: np.ndarray            # RMS of tau - tau_hat, per joint
    relative: np.ndarray       # |tau - tau_hat| / |tau| per joint
    total_relative: float      # |tau - tau_hat| / |tau| over all joints
    tau: np.ndarray
    tau_hat: np.ndarray
    t: np.ndarray

    def __str__(self):
        rows = ["joint    rms error   relative error"]
        rows += [f"{j + 1:5d} {r:12.4g} {100 * e:12.2f} %"
                 for j, (r, e) in enumerate(zip(self.rms, self.relative))]
        rows.append(f"  all {np.sqrt(np.mean(self.rms ** 2)):12.4g} "
                    f"{100 * self.total_relative:12.2f} %")
        return "\n".join(rows)

    def _repr_html_(self):
        from ..description.table import html_table

        rows = [[j + 1, f"{r:.4g}", f"{100 * e:.2f} %"]
                for j, (r, e) in enumerate(zip(self.rms, self.relative))]
        rows.append(["all", f"{np.sqrt(np.mean(self.rms ** 2)):.4g}",
                     f"{100 * self.total_relative:.2f} %"])
        return html_table(["joint", "rms error", "relative error"], rows,
                          caption="predicted vs measured torques")

    def plot(self, path=None, *, ax=None):
        """:func:`robmod.plot.identification_plot` of this validation: measured and predicted
        torques and the residuals, one row per joint."""
        from ..plot.identification import identification_plot   # declared in pyproject.toml

        return identification_plot(self, path, ax=ax)


def validation_of(tau, tau_hat, t) -> Validation:
    """The :class:`Validation` of predicted torques ``tau_hat`` against ``tau`` (N, n)."""
    err = tau - tau_hat
    rms = np.sqrt(np.mean(err ** 2, axis=0))
    rel = np.linalg.norm(err, axis=0) / np.maximum(np.linalg.norm(tau, axis=0), 1e-300)
    total = float(np.linalg.norm(err) / max(np.linalg.norm(tau), 1e-300))
    return Validation(rms, rel, total, tau, tau_hat, t)


__all__ = ["Validation"]
