"""Figures of identification results (Matplotlib, optional: ``pip install 'robmod[plot]'``)."""
from __future__ import annotations


from ..errors import RobmodError


def _pyplot(path):
    try:
        import matplotlib
        if path is not None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        raise RobmodError("plots need Matplotlib: pip install 'robmod[plot]'") from None
    return plt


def validation_figure(v, path=None):
    """Measured (grey) and predicted torques and their difference, one row per joint."""
    plt = _pyplot(path)
    n = v.tau.shape[1]
    fig, ax = plt.subplots(n, 2, sharex=True, figsize=(10, 1.8 * n + 1), squeeze=False)
    for j in range(n):
        ax[j, 0].plot(v.t, v.tau[:, j], color="0.6", lw=1, label="measured")
        ax[j, 0].plot(v.t, v.tau_hat[:, j], lw=1, label="model")
        ax[j, 0].set_ylabel(f"tau{j + 1}")
        ax[j, 1].plot(v.t, v.tau[:, j] - v.tau_hat[:, j], lw=0.8)
        ax[j, 1].set_ylabel(f"residual {100 * v.relative[j]:.1f} %")
    ax[0, 0].legend(loc="best", fontsize="small")
    ax[-1, 0].set_xlabel("t (s)")
    ax[-1, 1].set_xlabel("t (s)")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path)
    return fig


__all__ = []
