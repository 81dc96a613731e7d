"""``robmod draw ROBOT --q ... -o robot.png``: the robot drawn at a configuration, with its
manipulability ellipsoids on request."""
from __future__ import annotations

import numpy as np

KINDS = ("velocity", "force", "dynamic")


def _cmd_draw(args) -> int:
    from ..plot import robot_plot
    from . import joint_values_arg, load_robot_arg

    robot = load_robot_arg(args.robot, numeric=True, base=args.base)
    if args.random_dynamics is not None:
        from ..testing.random import with_random_dynamics

        robot = with_random_dynamics(robot, np.random.default_rng(args.random_dynamics))
    q = joint_values_arg(args.q, robot.n_q, "--q")
    if robot.base_kind != "fixed":      # the base at the origin of the drawing (frame 0)
        from ..geometry import neutral

        q = np.r_[neutral(robot)[:7], q]
    kinds = None if args.ellipsoid is None else (args.ellipsoid or ["velocity"])
    robot_plot(robot, q, args.output, ellipsoid=kinds, tool=args.tool)
    print(f"{robot.name} drawn to {args.output}")
    return 0


def add_draw_command(sub) -> None:
    from . import add_base_option

    s = sub.add_parser("draw", help="draw the robot in 3D at a configuration (PNG, PDF, SVG)")
    s.add_argument("robot", help="library name or file (numeric geometry)")
    s.add_argument("--q", nargs="+", metavar="Q", help="joint values (default 0; one for all)")
    s.add_argument("-o", "--output", required=True, metavar="FILE", help="image file")
    s.add_argument("--ellipsoid", nargs="*", choices=KINDS, metavar="KIND",
                   help="manipulability ellipsoids of the end frame: velocity (the default), "
                        "force, dynamic (needs numeric inertial parameters)")
    s.add_argument("--tool", metavar="NAME", help="the ellipsoids at this tool frame")
    add_base_option(s)
    s.add_argument("--random-dynamics", type=int, metavar="SEED",
                   help="give the robot random physically consistent inertias (demo robots)")
    s.set_defaults(func=_cmd_draw)


__all__ = []
