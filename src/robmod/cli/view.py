"""``robmod view ROBOT|FILE [--q ...] [--traj LOG]``: the robot in the browser (MeshCat).

A URDF file is drawn with its visual meshes (``--base floating`` for a legged robot or a
humanoid: its base's pose is then part of the configuration).  ``--traj`` plays a log of
joint positions -- a CSV of a trajectory or a simulation written by ``robmod traj`` /
``robmod simulate`` (a floating robot's with its base's columns x, y, z, Q0..Q3), or a
measured log as :func:`robmod.identification.load_log` reads them (.csv, .txt, .npz,
.parquet; columns t and q1..qn, pos1..posn, ...) -- as an animation.  The viewer's server
runs until Ctrl-C; ``--html FILE`` writes the scene (and its animation) as a self-contained
page instead, without starting a server.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

KINDS = ("velocity", "force", "dynamic")
#: a floating robot's base in the logs robmod writes (SimulationResult.to_csv)
BASE_COLUMNS = ("x", "y", "z", "Q0", "Q1", "Q2", "Q3")


def _has_base_columns(path) -> bool:
    """Whether a log names a floating base's columns (x, y, z, Q0..Q3)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".npz":
        with np.load(path) as data:
            names = set(data.files)
    elif suffix == ".parquet":
        import pyarrow.parquet as pq

        names = set(pq.read_schema(path).names)
    else:
        with open(path, newline="") as fh:
            names = {x.strip() for x in fh.readline().replace(";", ",").split(",")}
    return set(BASE_COLUMNS) <= names


def _read_motion(path, robot):
    """(t, q (T, nq)) of a log (see the module): a floating robot's configurations when the
    log has its base's columns, else its joints' (the viewer keeps the base where it is)."""
    from ..description.base import moving_base
    from ..identification import load_log

    n = robot.n_q
    if moving_base(robot) and Path(path).exists() and _has_base_columns(path):
        names = list(BASE_COLUMNS) + [f"q{j}" for j in range(1, n + 1)]
        skip = "(not read)"               # a name no column has: the positions only
        log = load_log(path, n_joints=n + len(BASE_COLUMNS),
                       columns={"q": names, "qd": skip, "tau": skip, "current": skip})
    else:
        log = load_log(path, n_joints=n)
    return np.asarray(log.t, float), np.asarray(log.q, float)


def _configuration(args, robot):
    """--q: one value or n for the joints (a floating robot: or its 7 + n values)."""
    from ..description.base import configuration_size
    from . import joint_values_arg

    nq = configuration_size(robot)
    if args.q is not None and nq != robot.n_q and len(args.q) == nq:
        return joint_values_arg(args.q, nq, "--q")
    return joint_values_arg(args.q, robot.n_q, "--q")


def _cmd_view(args) -> int:
    from ..viewer import RecordingVisualizer, view
    from . import load_robot_arg

    robot = load_robot_arg(args.robot, numeric=True, base=args.base)
    urdf = args.robot if str(args.robot).lower().endswith(".urdf") else None
    q = _configuration(args, robot)
    kinds = None if args.ellipsoid is None else (args.ellipsoid or ["velocity"])
    motion = _read_motion(args.traj, robot) if args.traj else None
    page = RecordingVisualizer() if args.html else None     # --html: no server
    v = view(robot, q, urdf=urdf, visualizer=page, open=not (args.no_browser or args.html),
             ellipsoid=kinds, tool=args.tool)
    try:
        if motion is not None:
            v.animate(motion, fps=args.fps)
        if args.html:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(v.static_html())
            print(f"{robot.name}: the scene written to {args.html}")
            return 0
        print(f"{robot.name} in MeshCat at {v.url()} (Ctrl-C to stop)", flush=True)
        while True:
            time.sleep(1.0)
    except KeyboardInterrupt:
        return 0
    finally:
        v.close()


def add_view_command(sub) -> None:
    from . import add_base_option

    s = sub.add_parser("view", help="show the robot in the browser (MeshCat), animated on "
                                    "request (needs robmod[viewer])")
    s.add_argument("robot", help="library name or file (a URDF's visual meshes are drawn)")
    add_base_option(s)
    s.add_argument("--q", nargs="+", metavar="Q", help="joint values (default 0; one for all; "
                                                       "a floating robot: or its 7 + n values)")
    s.add_argument("--traj", metavar="LOG", help="play the positions of this log (.csv, .txt, "
                                                 ".npz, .parquet: columns t, q1..qn)")
    s.add_argument("--fps", type=float, default=30.0, help="animation frames per second of "
                                                            "motion (default 30)")
    s.add_argument("--ellipsoid", nargs="*", choices=KINDS, metavar="KIND",
                   help="manipulability ellipsoids of the end frame (default: velocity)")
    s.add_argument("--tool", metavar="NAME", help="the ellipsoids at this tool frame")
    s.add_argument("--html", metavar="FILE", help="write the scene as a self-contained HTML "
                                                  "page and exit (no server)")
    s.add_argument("--no-browser", action="store_true", help="do not open the browser")
    s.set_defaults(func=_cmd_view)


__all__ = []
