"""Matplotlib, optional (``pip install 'robmod[plot]'``), and one way to make every figure of
:mod:`robmod.plot` (the only package that draws).

The convention of every plotting function: ``path=None, ax=None``, returns the figure.

* ``ax`` given: the plot is drawn on it (one Axes, or a sequence of as many Axes as the
  plot has panels) and its figure is returned;
* else ``path`` given: a figure of its own, not registered with pyplot (no interactive
  backend touched, nothing to close), written to ``path``;
* else a pyplot figure (shown by ``plt.show()`` or a notebook; ``plt.close(fig)`` frees it).
"""
from __future__ import annotations

import numpy as np

from ..errors import RobmodError

INSTALL = "pip install 'robmod[plot]'"


def _pyplot():
    """``matplotlib.pyplot``, or a RobmodError saying how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise RobmodError(f"plots need Matplotlib: {INSTALL}") from None
    return plt


def _new_figure(path=None, figsize=(8, 6)):
    """A figure: not registered with pyplot when it is only written to ``path``."""
    if path is None:
        return _pyplot().figure(figsize=figsize)
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise RobmodError(f"plots need Matplotlib: {INSTALL}") from None
    return Figure(figsize=figsize)


def panels(path=None, ax=None, rows: int = 1, cols: int = 1, *, figsize=(8, 6),
           projection=None, sharex=False, squeeze=True):
    """(figure, axes): ``ax`` when given (checked: ``rows * cols`` Axes), else new ones.

    The axes come back as one Axes (1 panel, ``squeeze``) or an array (rows, cols) — squeezed
    to 1-D for a single row or column when ``squeeze``."""
    k = rows * cols
    if ax is not None:
        axes = np.asarray(ax, dtype=object).ravel()
        if axes.size != k:
            raise RobmodError(f"this plot has {k} panel{'s' if k > 1 else ''}: ax must be "
                              f"{'one Axes' if k == 1 else f'a sequence of {k} Axes'}, "
                              f"got {axes.size}")
        if projection == "3d" and not all(getattr(a, "name", "") == "3d" for a in axes):
            raise RobmodError("this plot is 3D: ax must be a 3D Axes "
                              "(fig.add_subplot(projection='3d'))")
        fig = axes[0].figure
    else:
        fig = _new_figure(path, figsize)
        kw = {} if projection is None else {"subplot_kw": {"projection": projection}}
        axes = np.asarray(fig.subplots(rows, cols, sharex=sharex, squeeze=False, **kw),
                          dtype=object)
    axes = axes.reshape(rows, cols)
    if not squeeze:
        return fig, axes
    if k == 1:
        return fig, axes[0, 0]
    return fig, axes.ravel() if rows == 1 or cols == 1 else axes


def finish(fig, path=None, *, layout: bool = True):
    """Tight layout (own figures only) and the file written when ``path`` is given."""
    if layout:
        fig.tight_layout()
    if path is not None:
        fig.savefig(path)
    return fig


__all__ = []
