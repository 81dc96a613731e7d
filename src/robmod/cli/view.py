"""``robmod view ROBOT|FILE [--q ...] [--traj CSV]``: the robot in the browser (MeshCat).

A URDF file is drawn with its visual meshes.  ``--traj`` plays a CSV of joint positions (a
trajectory or simulation written by ``robmod traj`` / ``robmod simulate``, or a measured log:
a time column t and columns q1..qn) as an animation.  The viewer's server runs until Ctrl-C;
``--html FILE`` writes the scene (and its animation) as a self-contained page instead.
"""
from __future__ import annotations

import time

import numpy as np

KINDS = ("velocity", "force", "dynamic")


def _read_motion(path, n: int):
    """(t, q (T, n)) of a CSV: a log as :func:`robmod.identification.load_log` reads it, or a
    table with a header naming t and q1..qn."""
    from ..errors import RobmodError
    from ..identification import load_log

    try:
        log = load_log(path, n)
        return np.asarray(log.t, float), np.asarray(log.q, float)
    except RobmodError as first:
        try:
            data = np.genfromtxt(path, delimiter=",", names=True)
            t = np.asarray(data["t"], float)
            q = np.column_stack([data[f"q{j}"] for j in range(1, n + 1)])
        except (ValueError, KeyError, IndexError, OSError):
            raise first from None
        return t, q


def _cmd_view(args) -> int:
    from ..viewer import view
    from . import joint_values_arg, load_robot_arg

    robot = load_robot_arg(args.robot, numeric=True)
    urdf = args.robot if str(args.robot).lower().endswith(".urdf") else None
    q = joint_values_arg(args.q, robot.n_q, "--q")
    kinds = None if args.ellipsoid is None else (args.ellipsoid or ["velocity"])
    v = view(robot, q, urdf=urdf, open=not (args.no_browser or args.html), ellipsoid=kinds,
             tool=args.tool)
    try:
        if args.traj:
            v.animate(_read_motion(args.traj, robot.n_q), fps=args.fps)
        if args.html:
            with open(args.html, "w") as f:
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
    s = sub.add_parser("view", help="show the robot in the browser (MeshCat), animated on "
                                    "request (needs robmod[viewer])")
    s.add_argument("robot", help="library name or file (a URDF's visual meshes are drawn)")
    s.add_argument("--q", nargs="+", metavar="Q", help="joint values (default 0; one for all)")
    s.add_argument("--traj", metavar="CSV", help="play the joint positions of this CSV "
                                                 "(columns t, q1..qn)")
    s.add_argument("--fps", type=float, default=30.0, help="animation frames per second of "
                                                            "motion (default 30)")
    s.add_argument("--ellipsoid", nargs="*", choices=KINDS, metavar="KIND",
                   help="manipulability ellipsoids of the end frame (default: velocity)")
    s.add_argument("--tool", metavar="NAME", help="the ellipsoids at this tool frame")
    s.add_argument("--html", metavar="FILE", help="write the scene as a self-contained HTML "
                                                  "page and exit")
    s.add_argument("--no-browser", action="store_true", help="do not open the browser")
    s.set_defaults(func=_cmd_view)


__all__ = []
