"""``robmod warmup ROBOT``: compile the robot's plain-API models ahead of time."""
from __future__ import annotations


def _cmd_warmup(args) -> int:
    from ..dynamics.compilation import MODELS, warmup
    from ..symbolic.compile import compiler_description
    from . import load_robot_arg

    robot = load_robot_arg(args.robot, numeric=True)
    models = args.models.split(",") if args.models else list(MODELS)
    print(f"C compiler: {compiler_description()}")
    report = warmup(robot, models=models)
    print(f"{'model':18s} {'seconds':>8s}  path")
    for name, (seconds, compiled) in report.items():
        print(f"{name:18s} {seconds:8.2f}  {'compiled' if compiled else 'NumPy'}")
    return 0


def add_warmup_command(sub) -> None:
    s = sub.add_parser("warmup", help="compile the robot's numeric models ahead of time")
    s.add_argument("robot", help="library name or file (its numeric values are used)")
    s.add_argument("--models", help="comma-separated subset of dgm, jacobian, idm, "
                                    "inertia_matrix, gravity_torques, ddm")
    s.set_defaults(func=_cmd_warmup)


__all__ = []
