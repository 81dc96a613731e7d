"""``robmod draw ROBOT --q ... -o robot.png``: the robot drawn at a configuration."""
from __future__ import annotations


def _cmd_draw(args) -> int:
    from ..kinematics.drawing import draw_robot
    from . import joint_values_arg, load_robot_arg

    robot = load_robot_arg(args.robot, numeric=True)
    q = joint_values_arg(args.q, robot.n_q, "--q")
    draw_robot(robot, q, args.output, ellipsoid=args.ellipsoid)
    print(f"{robot.name} drawn to {args.output}")
    return 0


def add_draw_command(sub) -> None:
    s = sub.add_parser("draw", help="draw the robot in 3D at a configuration (PNG, PDF, SVG)")
    s.add_argument("robot", help="library name or file (numeric geometry)")
    s.add_argument("--q", nargs="+", metavar="Q", help="joint values (default 0; one for all)")
    s.add_argument("-o", "--output", required=True, metavar="FILE", help="image file")
    s.add_argument("--ellipsoid", action="store_true",
                   help="also the velocity manipulability ellipsoid of the last frame")
    s.set_defaults(func=_cmd_draw)


__all__ = []
