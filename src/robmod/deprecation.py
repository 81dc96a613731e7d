"""Deprecated names: a renamed or moved public function keeps its old name for one release.

``old = renamed(new, "old")`` makes the old name a thin function that emits a
:class:`DeprecationWarning` naming the new one, then calls it (``replacement`` gives the new
spelling when the call changes too, e.g. ``BlockIKM.from_robot(robot, j=..., i=...)``, and
``new`` is then an adapter taking the old arguments; ``module`` the module that keeps the old
name when it is not ``new``'s, for a function that moved).  ``@deprecated(module,
replacement)`` does the same for an adapter written out, e.g. one that imports its
replacement from a layer above when it is called.  The old names are in no ``__all__``; their
packages import them so that ``from robmod.dynamics import ne_algorithm`` keeps working.
:data:`ALIASES` lists them all (docs/architecture.md, "Deprecated names", shows the table and
a test checks both agree).
"""
from __future__ import annotations

import functools
import warnings

#: ``"module.old" -> "new"``: every deprecated name of robmod and what replaces it
ALIASES: dict[str, str] = {}


def deprecated(module: str, replacement: str):
    """Decorate ``fn`` (named as the old name, in ``module``): a call warns that it is
    deprecated and names ``replacement``, then runs ``fn``."""
    def decorate(fn):
        old = fn.__name__
        ALIASES[f"{module}.{old}"] = replacement

        @functools.wraps(fn)
        def alias(*args, **kwargs):
            warnings.warn(f"{old} is deprecated and will be removed in the next release: use "
                          f"{replacement}", DeprecationWarning, stacklevel=2)
            return fn(*args, **kwargs)

        alias.__name__ = alias.__qualname__ = old
        alias.__doc__ = f"Deprecated name: use ``{replacement}``."
        alias.replacement = replacement
        return alias
    return decorate


def renamed(new, old: str, replacement: str | None = None, *, module: str | None = None):
    """The deprecated name ``old`` of the function ``new`` (see the module's docstring)."""
    def adapter(*args, **kwargs):
        return new(*args, **kwargs)

    adapter.__name__ = old
    adapter.__module__ = module or new.__module__
    alias = deprecated(adapter.__module__, replacement or new.__name__)(adapter)
    alias.__wrapped__ = new    # its signature is the new function's
    return alias


__all__ = []
