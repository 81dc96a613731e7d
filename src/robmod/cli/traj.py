"""``robmod traj ROBOT``: plan a joint-space motion, write its samples and a plot."""
from __future__ import annotations

import numpy as np

from ..errors import RobmodError

_LAWS = ("linear", "cubic", "quintic", "bang-bang", "trapezoidal", "continuous-acceleration",
        "jerk-limited")


def _cmd_traj(args) -> int:
    from ..trajectory import point_to_point, scale_to_torques, via_points
    from . import joint_values_arg as _vector, load_robot_arg, write_outputs

    robot = load_robot_arg(args.robot, numeric=True)
    if args.random_dynamics is not None:
        from ..testing.random import with_random_dynamics

        robot = with_random_dynamics(robot, np.random.default_rng(args.random_dynamics))
    n = robot.n_q
    q0 = _vector(args.start, n, "--from")
    q0 = np.zeros(n) if q0 is None else q0
    q1 = _vector(args.to, n, "--to")
    if q1 is None:
        raise RobmodError("--to: give the final joint values")
    qd_max = _vector(args.qd_max, n, "--qd-max")
    qdd_max = _vector(args.qdd_max, n, "--qdd-max")
    jerk = {} if args.qddd_max is None else {"qddd_max": _vector(args.qddd_max, n, "--qddd-max")}
    if args.via:
        points = [q0] + [_vector(v.split(), n, "--via") for v in args.via] + [q1]
        traj = via_points(points, robot=robot, qd_max=qd_max, qdd_max=qdd_max)
    else:
        limited = args.time is None
        traj = point_to_point(q0, q1, args.law, duration=args.time,
                              qd_max=qd_max, qdd_max=qdd_max, robot=robot if limited else None,
                              **jerk)
    print(f"{args.law if not args.via else 'via points (cubic spline)'} on {robot.name}: "
          f"duration {traj.duration:.6g} s")
    for name, t in traj.phases:
        print(f"  {name:14s} t = {t:.6g} s")
    if args.torque_limits:
        scaled = scale_to_torques(robot, traj, rate=args.rate)
        if scaled is traj:
            print("torques within the robot's limits: no slow-down needed")
        else:
            print(f"slowed down x{scaled.c:.6g} to keep the torques within the limits "
                  f"(joint {scaled.binding_joint} binds at t = {scaled.binding_time:.4g} s): "
                  f"duration {scaled.duration:.6g} s")
            traj = scaled
    write_outputs(traj, args, f"samples at {args.rate:g} Hz", rate=args.rate)
    return 0


def add_traj_command(subparsers):
    s = subparsers.add_parser("traj", help="plan a joint-space trajectory (Khalil & Dombre "
                                           "ch. 8) and write its samples and a plot")
    s.add_argument("robot", help="library name or file (its joint limits are the defaults)")
    s.add_argument("--from", dest="start", nargs="+", metavar="Q",
                   help="start joint values (default 0)")
    s.add_argument("--to", nargs="+", metavar="Q", help="final joint values (one for all)")
    s.add_argument("--via", action="append", metavar="'Q1 Q2 ...'",
                   help="a via point (quoted joint values; repeat for several): a cubic spline")
    s.add_argument("--law", default="trapezoidal", choices=_LAWS,
                   help="point-to-point law (default trapezoidal, synchronised)")
    s.add_argument("--time", type=float, help="duration (s); default: the minimum under the "
                                              "limits")
    s.add_argument("--qd-max", nargs="+", metavar="V", help="velocity limits (default: the "
                                                            "robot's)")
    s.add_argument("--qdd-max", nargs="+", metavar="A", help="acceleration limits")
    s.add_argument("--qddd-max", nargs="+", metavar="J", help="jerk limits (jerk-limited law)")
    s.add_argument("--torque-limits", action="store_true",
                   help="slow the motion down until the IDM torques are within the robot's "
                        "taumax (needs numeric inertial parameters)")
    s.add_argument("--random-dynamics", type=int, metavar="SEED",
                   help="give the robot random physically consistent inertias (demo robots)")
    s.add_argument("--rate", type=float, default=1000.0, help="sampling rate of --out (Hz)")
    s.add_argument("--out", metavar="CSV", help="write t, q, qd, qdd")
    s.add_argument("--plot", metavar="PNG", help="plot q, qd, qdd, jerk with the limits")
    s.set_defaults(func=_cmd_traj)
    return s


__all__ = []
