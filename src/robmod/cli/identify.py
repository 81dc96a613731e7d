"""``robmod identify ROBOT LOG``: the dynamic parameters from a measured log, validated,
physically consistent."""
from __future__ import annotations

import numpy as np

from ..errors import RobmodError


def _pairs(items, option, quantities=None):
    out = {}
    for item in items or ():
        if "=" not in item:
            raise RobmodError(f"{option} {item!r}: expected NAME=VALUE")
        k, v = (x.strip() for x in item.split("=", 1))
        if quantities and k not in quantities:
            raise RobmodError(f"{option} {item!r}: quantity must be {', '.join(quantities)}")
        out[k] = v
    return out


def _known(items):
    out = {}
    for k, v in _pairs(items, "--known").items():
        try:
            out[k] = float(v)
        except ValueError:
            raise RobmodError(f"--known {k}={v}: the value must be a number") from None
    return out


def _interval(text, option):
    if text is None:
        return None
    try:
        parts = [float(x) for x in text.split(":")]
    except ValueError:
        raise RobmodError(f"{option} {text!r}: expected a mass or LOW:HIGH (kg)") from None
    if len(parts) not in (1, 2):
        raise RobmodError(f"{option} {text!r}: expected a mass or LOW:HIGH (kg)")
    return parts[0] if len(parts) == 1 else tuple(parts)


def _cutoff(text):
    if text in ("auto", "none"):
        return None if text == "none" else "auto"
    try:
        return float(text)
    except ValueError:
        raise RobmodError(f"--cutoff {text!r}: expected auto, none or a frequency in Hz") \
            from None


def _switch(off):
    return False if off else "auto"


def _cmd_identify(args) -> int:
    from ..identification import DynamicIdentification, join_logs, load_log
    from . import load_robot_arg

    robot = load_robot_arg(args.robot, numeric=True)
    columns = _pairs(args.column, "--column", ("t", "q", "qd", "tau", "current"))
    kw = dict(columns=columns, time_scale=args.time_scale, torque=args.torque)
    if args.torque_constant:
        kw.update(torque_constant=[float(x) for x in args.torque_constant],
                  gear_ratio=[float(x) for x in args.gear_ratio] if args.gear_ratio else None)
    n = len(robot.q)
    logs = [load_log(path, n_joints=n, **kw) for path in args.log]
    data = join_logs(logs)
    estimate = "consistent" if args.consistent and args.estimate == "auto" else args.estimate
    est = DynamicIdentification(robot, estimate=estimate, method=args.method,
                                cutoff=_cutoff(args.cutoff), friction=_switch(args.no_friction),
                                rotor=_switch(args.no_rotor), offsets=_switch(args.no_offsets),
                                torque=args.torque, known=_known(args.known) or None,
                                fixed=args.fixed or None, folds=args.folds,
                                tolerance=args.tolerance,
                                use_measured_velocity=not args.differentiate).fit(data)
    print(est.report())
    other = join_logs([load_log(p, n_joints=n, **kw) for p in args.validate]) \
        if args.validate else None
    shown = est
    if other is not None:
        shown = est.validate(other)
        print(f"\nvalidation on {', '.join(args.validate)} ({est.estimate_})")
        print(shown)
        if est.estimate_ != "least squares":
            ls = est.validate(other, params=est.ls_params())
            print(f"least squares (the diagnostic): RMS {float(np.sqrt(np.mean(ls.rms ** 2))):.4g}")
    if args.plot:
        from ..plot import identification_plot

        identification_plot(shown, args.plot)
        print(f"{'validation' if args.validate else 'fit'} plot written to {args.plot}")
    if args.plot_parameters:
        from ..plot import parameters_plot

        parameters_plot(est, args.plot_parameters)
        print(f"parameters plot written to {args.plot_parameters}")
    if args.plot_cutoff:
        from ..plot import cutoff_plot

        cutoff_plot(est, args.plot_cutoff)
        print(f"cut-off plot written to {args.plot_cutoff}")
    consistent = est.consistent_
    if args.total_mass or (args.consistent and consistent is None):
        from ..identification.consistency import consistent_fit

        consistent = consistent_fit(est, tolerance=args.tolerance,
                                    total_mass=_interval(args.total_mass, "--total-mass"),
                                    validation=other)
        print()
        print(consistent.summary())
    if args.out:
        from ..description import write_robot
        from ..identification.consistency import consistent_fit

        if args.total_mass or est.estimate_ == "consistent":
            robot_out = est.to_robot(consistent)
        else:
            try:
                robot_out = est.to_robot()
            except RobmodError:     # least squares handed over, no rigid bodies: a file needs
                robot_out = est.to_robot(consistent or consistent_fit(est))
                print(f"the {est.estimate_} estimate predicts best but its base parameters "
                      f"are no rigid bodies: {args.out} holds the physically consistent one")
        write_robot(robot_out, args.out)
        print(f"identified robot written to {args.out}")
    return 0


def add_identify_command(subparsers):
    s = subparsers.add_parser("identify", help="identify the dynamic parameters from a log")
    s.add_argument("robot", help="library name or file (only its geometry is used; its "
                                 "inertial values are the prior of --consistent)")
    s.add_argument("log", nargs="+", help="measured log(s) (.csv with or without header, .npz, "
                                          ".parquet); several logs are fitted together")
    s.add_argument("--column", action="append", metavar="QUANTITY=NAME",
                   help="columns by name: t=time, q=pos_{i}, qd=vel{j}, tau=effort{j}, "
                        "current=i{j} ({j}: joint 1..n, {i}: 0..n-1); or by position for "
                        "headerless files: t=0, q=1:7 (columns 1 to 6), current=13:19")
    s.add_argument("--time-scale", type=float, default=1.0,
                   help="seconds per unit of the time column (1e-3 for ms)")
    s.add_argument("--torque-constant", nargs="+",
                   help="K_t per joint (currents -> torques), or the drive gains N K_t")
    s.add_argument("--gear-ratio", nargs="+", help="gear ratio per joint (default 1)")
    s.add_argument("--estimate", choices=("auto", "consistent", "essential", "ls"),
                   default="auto",
                   help="what is handed over (the report, --validate, --out): auto -- the "
                        "estimate that predicts best on held-out blocks, the physically "
                        "consistent one preferred within noise when the robot file has "
                        "inertial values, the essential parameters otherwise; ls: the raw "
                        "least squares of every parameter, without selection")
    s.add_argument("--torque", choices=("motor", "link"),
                   help="where the torques are measured: motor (currents) or link (joint "
                        "torque sensors after the gear: no rotor inertia); default: what the "
                        "log says (currents: motor)")
    s.add_argument("--method", choices=("wls", "ols", "huber"), default="wls")
    s.add_argument("--cutoff", default="auto",
                   help="low-pass cut-off (Hz), none, or auto: chosen by cross-validation "
                        "over held-out blocks of the motion, none for a log filtered before "
                        "(default)")
    s.add_argument("--folds", type=int, default=5,
                   help="blocks of the cross-validations (cut-off, classes, estimate)")
    s.add_argument("--differentiate", action="store_true",
                   help="differentiate q even when the log has velocities")
    s.add_argument("--known", action="append", metavar="NAME=VALUE",
                   help="a parameter known (moved to the known side), e.g. M6=0.19")
    s.add_argument("--fixed", action="append", metavar="NAME",
                   help="a parameter fixed at the robot file's value, e.g. M6")
    s.add_argument("--no-friction", action="store_true",
                   help="do not identify FC, FV (default: kept when the data show them)")
    s.add_argument("--no-rotor", action="store_true",
                   help="do not identify IA (default: kept when the data show them)")
    s.add_argument("--no-offsets", action="store_true",
                   help="no torque offset per joint (default: kept when the data show them)")
    s.add_argument("--validate", metavar="LOG", nargs="+", help="validate on other log(s)")
    s.add_argument("--plot", metavar="PNG", help="measured and model torques, residuals: on the "
                                                 "--validate log, else on the fitted one")
    s.add_argument("--plot-parameters", metavar="PNG",
                   help="the base parameters with +-2 std and their relative std")
    s.add_argument("--plot-cutoff", metavar="PNG",
                   help="the cross-validation of the cut-off (with --cutoff auto)")
    s.add_argument("--consistent", action="store_true",
                   help="hand over the physically consistent estimate (CVXPY) whatever the "
                        "cross-validation says (--estimate consistent)")
    s.add_argument("--tolerance", type=float, default=0.05,
                   help="the consistent fit's residual may exceed least squares' by this "
                        "fraction (default 0.05)")
    s.add_argument("--total-mass", metavar="KG", help="total mass bound: M or LOW:HIGH")
    s.add_argument("--out", metavar="YAML",
                   help="write the identified robot: the estimate handed over (the consistent "
                        "one when least squares, handed over, is no rigid body)")
    s.set_defaults(func=_cmd_identify)
    return s


__all__ = []
