"""robmod's batched models on Dask: beyond one machine.

* :func:`evaluate`: any compiled customized model over Dask arrays chunked along the
  samples (``dask.array.map_blocks``); the model travels as its C source
  (:class:`RemoteModel`), compiled once per worker or loaded from ``$ROBMOD_CACHE``.
* :func:`workspace_map`: workspace and manipulability maps, reduced on the workers.
* :func:`identify_dask` / :func:`identify_log`: least-squares identification out of
  core, combining per-chunk R factors (TSQR).
* :func:`closed_loop_runs`: Monte-Carlo closed-loop simulations as a bag of tasks.
* :func:`get_client`: the embedded local cluster, or a scheduler by address.

Needs the ``dask`` extra (``pip install robmod[dask]``).  Nothing else in robmod
imports this package (except the CLI).
"""
try:
    import dask.array  # noqa: F401
    import distributed  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError(f"robmod.distributed needs Dask ({e}): pip install 'robmod[dask]'") from e

from .identification import identify_dask
from .logs import identify_log, read_log
from .cluster import close_default, compute, get_client, local_cluster
from .monte_carlo import MonteCarloResult, closed_loop_runs
from .maps import WorkspaceMap, joint_box, manipulability_from_jacobian, workspace_map
from .remote import RemoteModel, evaluate, remote_model

__all__ = ["RemoteModel", "remote_model", "evaluate", "get_client", "local_cluster",
           "close_default", "compute", "WorkspaceMap", "workspace_map", "joint_box",
           "manipulability_from_jacobian", "identify_dask", "identify_log", "read_log",
           "MonteCarloResult", "closed_loop_runs"]
