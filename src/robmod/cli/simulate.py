"""``robmod simulate ROBOT``: a closed-loop run of one controller, written as CSV and a plot."""
from __future__ import annotations

import numpy as np

from ..errors import RobmodError

_CONTROLLERS = ("computed-torque", "pid", "pd-gravity", "passivity")


def _cmd_simulate(args) -> int:
    from ..control import (PID, ComputedTorque, Dynamics, PassivityBased, PDGravity, simulate,
                           tune_pid)
    from . import joint_values_arg as _vector, load_robot_arg, write_outputs

    robot = load_robot_arg(args.robot, numeric=True)
    if args.random_dynamics is not None:
        from ..testing.random import with_random_dynamics

        robot = with_random_dynamics(robot, np.random.default_rng(args.random_dynamics),
                                     friction=True)
    plant = Dynamics.of(robot, "plant")     # a closed-loop robot: its actuated joints
    n = plant.n
    q1 = _vector(args.to, n, "--to")
    q0 = _vector(args.start, n, "--from")
    q0 = plant.start_configuration() if q0 is None else q0
    q1 = q0 if q1 is None else q1
    c = args.controller
    if c == "computed-torque":
        ctrl = ComputedTorque(robot, omega=args.omega, xi=args.xi, dt=args.dt)
    elif c == "pid":
        g = tune_pid(robot, args.omega)
        ctrl = PID(robot, g.kp, g.kd, g.ki, dt=args.dt)
    elif c == "pd-gravity":
        kp = _vector(args.kp, n, "--kp")
        kd = _vector(args.kd, n, "--kd")
        if kp is None or kd is None:
            raise RobmodError("pd-gravity needs --kp and --kd")
        ctrl = PDGravity(robot, kp, kd, dt=args.dt)
    else:
        ctrl = PassivityBased(robot, lam=args.omega, kd=args.kd_scalar, dt=args.dt)
    from ..trajectory import point_to_point

    if args.law in ("trapezoidal", "continuous-acceleration"):
        ref = point_to_point(q0, q1, args.law, robot=robot, qd_max=args.qd_max,
                             qdd_max=args.qdd_max)
    else:
        ref = point_to_point(q0, q1, args.law, duration=args.time)
    res = simulate(robot, ctrl, ref, args.duration or 1.5 * ref.duration,
                   x0=np.concatenate([q0, np.zeros(n)]), substeps=args.substeps,
                   saturation=not args.no_saturation)
    print(f"{type(ctrl).__name__} on {robot.name}: {len(res.t)} samples")
    print(res.metrics())
    write_outputs(res, args)
    return 0


def add_simulate_command(subparsers):
    s = subparsers.add_parser("simulate", help="closed-loop simulation of a controller "
                                               "following a point-to-point motion")
    s.add_argument("robot", help="library name or file (numeric dynamic parameters)")
    s.add_argument("--controller", choices=_CONTROLLERS, default="computed-torque")
    s.add_argument("--from", dest="start", nargs="+", metavar="Q",
                   help="start joint values (default 0, or the middle of a joint's range when "
                        "the range excludes 0)")
    s.add_argument("--to", nargs="+", metavar="Q", help="final joint values (one for all)")
    s.add_argument("--law", default="quintic",
                   choices=("linear", "cubic", "quintic", "bang-bang", "trapezoidal",
                            "continuous-acceleration"), help="point-to-point law (ch. 8)")
    s.add_argument("--time", type=float, default=1.0,
                   help="duration of the motion (s; interpolation laws)")
    s.add_argument("--qd-max", type=float, help="velocity limit (trapezoidal laws; default: "
                                                "the robot's)")
    s.add_argument("--qdd-max", type=float, help="acceleration limit (trapezoidal laws)")
    s.add_argument("--duration", type=float, help="simulated time (default 1.5 x --time)")
    s.add_argument("--omega", type=float, default=20.0,
                   help="bandwidth (rad/s): (9.26) for computed torque, (9.10) for the PID, "
                        "Lambda for passivity")
    s.add_argument("--xi", type=float, default=1.0, help="damping ratio (computed torque)")
    s.add_argument("--kp", nargs="+", help="PD gains Kp (pd-gravity)")
    s.add_argument("--kd", nargs="+", help="PD gains Kd (pd-gravity)")
    s.add_argument("--kd-scalar", type=float, default=50.0, help="K_D of the passivity law")
    s.add_argument("--dt", type=float, default=1e-3, help="controller period (s; 0: continuous)")
    s.add_argument("--substeps", type=int, default=1, help="RK4 steps per controller period")
    s.add_argument("--no-saturation", action="store_true", help="ignore the torque limits")
    s.add_argument("--random-dynamics", type=int, metavar="SEED",
                   help="give the robot random physically consistent inertias (demo robots)")
    s.add_argument("--out", metavar="CSV", help="write t, q, qd, tau, q_des")
    s.add_argument("--plot", metavar="PNG", help="plot q vs q_des, errors and torques")
    s.set_defaults(func=_cmd_simulate)
    return s


__all__ = []
