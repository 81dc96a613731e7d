"""``robmod simulate ROBOT``: a closed-loop run of one controller, written as CSV and a plot.

Without ``--to`` the robot moves: every joint by a quarter of its range (at most 0.8 rad or
0.1 m where the range is wider or unknown), towards the side where it has more room, from the
start configuration (0, or the middle of a range that excludes 0); the plot of the run (q
against q_des, the errors, the torques) is written beside ``--out`` or as
``ROBOT-simulation.png`` (``--no-plot``: none).  A floating robot (``--base floating``, or its
file's) moves its joints with its base free.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from ..dynamics.layout import dofs
from ..errors import ArgumentError

_CONTROLLERS = ("computed-torque", "pid", "pd-gravity", "passivity")
#: the largest default move of a joint: revolute (rad), prismatic (m)
_STEP = {0: 0.8, 1: 0.1}


def _default_goal(plant, q0) -> np.ndarray:
    """The configuration ``robmod simulate`` moves to without ``--to``: each joint by a
    quarter of its range (at most 0.8 rad or 0.1 m), towards the side with more room."""
    robot = plant.robot
    joints = getattr(plant, "joints", None) or dofs(robot)
    step = np.array([_STEP.get(robot.frame(j).sigma, 0.8) for j in joints])
    lo = np.array([_limit(robot, j, "qmin", -np.inf) for j in joints])
    hi = np.array([_limit(robot, j, "qmax", np.inf) for j in joints])
    span = np.where(np.isfinite(hi - lo), 0.25 * (hi - lo), step)
    move = np.minimum(span, step)
    up = (hi - q0) >= (q0 - lo)
    return q0 + np.where(up, move, -move)


def _limit(robot, j, field, default):
    limits = robot.link(j).limits if j <= robot.n_links else None
    value = None if limits is None else getattr(limits, field)
    return default if value is None else float(value)


def _cmd_simulate(args) -> int:
    from ..control import (PID, ComputedTorque, Dynamics, PassivityBased, PDGravity, simulate,
                           tune_pid)
    from . import joint_values_arg as _vector, load_robot_arg

    robot = load_robot_arg(args.robot, numeric=True, base=args.base)
    if args.random_dynamics is not None:
        from ..testing.random import with_random_dynamics

        robot = with_random_dynamics(robot, np.random.default_rng(args.random_dynamics),
                                     friction=True)
    plant = Dynamics.of(robot, "plant")     # a closed-loop robot: its actuated joints
    n = plant.n
    q1 = _vector(args.to, n, "--to")
    q0 = _vector(args.start, n, "--from")
    q0 = plant.start_configuration() if q0 is None else q0
    q1 = _default_goal(plant, q0) if q1 is None else q1
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
            raise ArgumentError("pd-gravity needs --kp and --kd")
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
    print(f"{type(ctrl).__name__} on {robot.name}: {len(res.t)} samples, from "
          f"{np.round(q0, 4).tolist()} to {np.round(q1, 4).tolist()}")
    print(res.metrics())
    if args.out:
        res.to_csv(args.out)
        print(f"time series written to {args.out}")
    plot = None if args.no_plot else args.plot or (
        Path(args.out).with_suffix(".png") if args.out else Path(f"{robot.name}-simulation.png"))
    if plot is not None and not args.plot and importlib.util.find_spec("matplotlib") is None:
        print("(no plot: matplotlib is not installed, pip install 'robmod[plot]')")
        plot = None
    if plot is not None:
        res.plot(plot)
        print(f"plot written to {plot}")
    return 0


def add_simulate_command(subparsers):
    from . import add_base_option

    s = subparsers.add_parser("simulate", help="closed-loop simulation of a controller "
                                               "following a point-to-point motion")
    s.add_argument("robot", help="library name or file (numeric dynamic parameters)")
    add_base_option(s)
    s.add_argument("--controller", choices=_CONTROLLERS, default="computed-torque")
    s.add_argument("--from", dest="start", nargs="+", metavar="Q",
                   help="start joint values (default 0, or the middle of a joint's range when "
                        "the range excludes 0)")
    s.add_argument("--to", nargs="+", metavar="Q", help="final joint values (one for all; "
                   "default: each joint a quarter of its range, at most 0.8 rad or 0.1 m)")
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
    s.add_argument("--plot", metavar="PNG", help="plot q vs q_des, errors and torques (default "
                   "beside --out, or ROBOT-simulation.png)")
    s.add_argument("--no-plot", action="store_true", help="write no plot")
    s.set_defaults(func=_cmd_simulate)
    return s


__all__ = []
