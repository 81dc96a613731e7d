"""``robmod workspace ROBOT``: workspace and manipulability map on Dask."""
from __future__ import annotations

from ..errors import RobmodError


def _cmd_workspace(args) -> int:
    from . import load_robot_arg

    try:
        from ..distributed import workspace_map
    except ImportError as e:
        raise RobmodError(f"the workspace command needs Dask: pip install 'robmod[dask]' ({e})")
    robot = load_robot_arg(args.robot, numeric=True)
    client = None
    if args.workers:
        if args.scheduler:
            raise RobmodError("give --scheduler or --workers, not both")
        from ..distributed import local_cluster

        client = local_cluster(n_workers=args.workers)
    try:
        m = workspace_map(robot, None if args.grid else args.samples, grid=args.grid,
                          chunk=args.chunk, bins=args.bins, seed=args.seed, client=client,
                          scheduler=args.scheduler, progress=args.progress)
    finally:
        if client is not None:
            client.close()
            client.cluster.close()
    print(m)
    print(f"  best configuration q = {m.q_best.round(4).tolist()}")
    if args.plot:
        from ..plot import workspace_plot

        workspace_plot(m, args.plot, plane=args.plane)
        print(f"plot written to {args.plot}")
    return 0


def add_workspace_command(sub):
    s = sub.add_parser("workspace", help="workspace and manipulability map on Dask "
                                         "(local cluster, or --scheduler tcp://host:8786)")
    s.add_argument("robot", help="library name or file (.yaml, .par, .urdf)")
    s.add_argument("--samples", type=int, default=1_000_000, help="random joint samples")
    s.add_argument("--grid", type=int, help="values per joint of a regular grid instead")
    s.add_argument("--chunk", type=int, default=100_000, help="samples per task")
    s.add_argument("--bins", type=int, default=32, help="voxels per axis of the histogram")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler")
    s.add_argument("--workers", type=int, help="workers of a local cluster started for this run")
    s.add_argument("--progress", action="store_true", help="show the progress of the tasks")
    s.add_argument("--plot", metavar="PNG", help="the reached cells and the mean manipulability "
                                                 "summed across --plane")
    s.add_argument("--plane", choices=("xy", "xz", "yz"), default="xz",
                   help="plane of the --plot (default xz)")
    s.set_defaults(func=_cmd_workspace)
    return s


__all__ = []
