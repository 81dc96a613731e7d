"""Deprecated names: a renamed public function keeps its old name for one release.

``old = renamed(new, "old")`` makes the old name a thin function that emits a
:class:`DeprecationWarning` naming the new one, then calls it (``replacement`` gives the new
spelling when the call changes too, e.g. ``BlockIKM.from_robot(robot, j=..., i=...)``, and
``new`` is then an adapter taking the old arguments).  The old names are in no ``__all__``;
their packages import them so that ``from robmod.dynamics import ne_algorithm`` keeps working.
:data:`ALIASES` lists them all (docs/architecture.md, "Deprecated names", shows the table and
a test checks both agree).
"""
from __future__ import annotations

import functools
import warnings

#: ``"module.old" -> "new"``: every deprecated name of robmod and what replaces it
ALIASES: dict[str, str] = {}


def renamed(new, old: str, replacement: str | None = None):
    """The deprecated name ``old`` of the function ``new`` (see the module's docstring)."""
    text = replacement or new.__name__
    ALIASES[f"{new.__module__}.{old}"] = text

    @functools.wraps(new)
    def alias(*args, **kwargs):
        warnings.warn(f"{old} is deprecated and will be removed in the next release: use {text}",
                      DeprecationWarning, stacklevel=2)
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated name: use ``{text}``."
    alias.replacement = text
    return alias


__all__ = []
