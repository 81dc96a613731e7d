"""The one cache of the models robmod derives from a robot in this process: the compiled
functions of the fast path (:mod:`.fastpath`), the customized models they come from, the
searches a model needs once (the analytic IGM, the block IKM, the choice of a direct model, the
identification's rank computations and regressors, the plants and closed loops of the
simulations).

One key rule: a key is made of *content* -- a robot's :attr:`Robot.content_key` (never the
object's identity: a dead robot's address is reused by new objects), the name of the model, its
options -- so that an equal robot built again finds what was made for the first, and a changed
one does not. One eviction rule: the least recently used entries beyond :data:`LIMIT` are let
go (an entry a robot holds stays valid for it: its compiled functions live in the fast path's
entries). One :func:`clear` forgets them all (the shared objects on disk stay:
``$ROBMOD_CACHE`` or ``~/.cache/robmod``).

The API, for every module that keeps something derived from a robot::

    from robmod.symbolic.cache import cached
    model = cached(("loop", robot.content_key, options), lambda: build(robot, options))
"""
from __future__ import annotations

import threading
from collections import OrderedDict

#: entries kept (the least recently used beyond it are let go)
LIMIT = 512

_STORE: OrderedDict = OrderedDict()
_LOCK = threading.RLock()
_RESETS: list = []


def cached(key, make):
    """The value kept under ``key`` (a hashable made of content: see the module), made by
    ``make()`` the first time (outside the lock: two threads may both make it, the first one
    kept)."""
    with _LOCK:
        if key in _STORE:
            _STORE.move_to_end(key)
            return _STORE[key]
    value = make()
    with _LOCK:
        if key in _STORE:
            return _STORE[key]
        _STORE[key] = value
        while len(_STORE) > LIMIT:
            _STORE.popitem(last=False)
    return value


def on_clear(reset) -> None:
    """Register ``reset()``, called by :func:`clear` (the fast path's entries, held by the
    robots too, are reset in place)."""
    _RESETS.append(reset)


def clear() -> None:
    """Forget every model cached in this process: the compiled functions of the fast path and
    the outputs they keep for reuse, the customized models and searches (the disk cache
    stays)."""
    with _LOCK:
        for reset in _RESETS:
            reset()
        _STORE.clear()


__all__ = ["clear"]
