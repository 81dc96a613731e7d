"""Where the work runs: an embedded local cluster, or any Dask scheduler by address.

``client=None, scheduler=None``: the current Dask client if there is one, otherwise
an embedded :class:`distributed.LocalCluster` started once per process (2 workers of
1 thread each, in-process by default: no fork, the compiled models are shared).
``scheduler="tcp://host:8786"``: a client of that running scheduler (the only change
between a laptop and a cluster).  ``client=``: a :class:`distributed.Client` you made.
"""
from __future__ import annotations

import atexit
import threading

from ..description.arguments import keyword_options, records
from ..errors import RobmodError

_DEFAULT: dict[str, object] = {}
_LOCK = threading.Lock()


@keyword_options()
def local_cluster(*, n_workers: int = 2, threads_per_worker: int = 1, processes: bool = False):
    """A started :class:`distributed.LocalCluster` and its client (HTTP server on a free port)."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker,
                           processes=processes, dashboard_address=":0")
    return Client(cluster)


@keyword_options()
def get_client(*, client=None, scheduler: str | None = None):
    """The client to use (see the module docstring)."""
    from distributed import Client

    if client is not None:
        if scheduler is not None:
            raise RobmodError("give client= or scheduler=, not both")
        if not isinstance(client, Client):
            raise RobmodError(f"client must be a distributed.Client, got {type(client).__name__}")
        return client
    if scheduler is not None:
        if not isinstance(scheduler, str) or "://" not in scheduler:
            raise RobmodError(f"scheduler must be an address like 'tcp://host:8786', "
                              f"got {scheduler!r}")
        key = f"scheduler:{scheduler}"
        with _LOCK:
            if key not in _DEFAULT:
                try:
                    _DEFAULT[key] = Client(scheduler, timeout="10s")
                except OSError as e:
                    raise RobmodError(f"scheduler {scheduler}: cannot connect ({e})") from None
            return _DEFAULT[key]
    try:
        return Client.current()
    except ValueError:
        pass
    with _LOCK:
        if "local" not in _DEFAULT:
            _DEFAULT["local"] = local_cluster()
            atexit.register(close_default)
        return _DEFAULT["local"]


def close_default():
    """Close the clients and the embedded cluster this module started."""
    with _LOCK:
        for c in _DEFAULT.values():
            cluster = getattr(c, "cluster", None)
            c.close()
            if cluster is not None:
                cluster.close()
        _DEFAULT.clear()


@keyword_options()
def compute(collections, *, client=None, scheduler=None, progress: bool = False):
    """Compute Dask collections on the chosen client; the results (small) come back."""
    collections = records(collections, "collections")
    c = get_client(client=client, scheduler=scheduler)
    futures = c.compute(collections)
    if progress:
        from distributed import progress as show

        show(futures)
    return c.gather(futures)


__all__ = ["get_client", "local_cluster", "close_default", "compute"]
