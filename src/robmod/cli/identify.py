"""``robmod identify ROBOT LOG``: base parameters from a measured log, validated, consistent."""
from __future__ import annotations

from ..errors import RobmodError


def _columns(items):
    out = {}
    for item in items or ():
        if "=" not in item:
            raise RobmodError(f"--column {item!r}: expected QUANTITY=NAME (e.g. q=pos_{{i}})")
        k, v = item.split("=", 1)
        if k not in ("t", "q", "qd", "tau", "current"):
            raise RobmodError(f"--column {item!r}: quantity must be t, q, qd, tau or current")
        out[k] = v
    return out


def _cmd_identify(args) -> int:
    from ..identification import DynamicIdentification, load_log
    from . import load_robot_arg

    robot = load_robot_arg(args.robot, numeric=True)
    kw = dict(columns=_columns(args.column), time_scale=args.time_scale)
    if args.torque_constant:
        kw.update(torque_constant=[float(x) for x in args.torque_constant],
                  gear_ratio=[float(x) for x in args.gear_ratio or ["1"]])
    n = len(robot.q)
    data = load_log(args.log, n, **kw)
    cutoff = args.cutoff if args.cutoff in ("auto", "none") else float(args.cutoff)
    est = DynamicIdentification(robot, method=args.method,
                                cutoff=None if cutoff == "none" else cutoff,
                                use_measured_velocity=not args.differentiate).fit(data)
    print(est.report())
    shown = est
    if args.validate:
        shown = est.validate(load_log(args.validate, n, **kw))
        print("\nvalidation on", args.validate)
        print(shown)
    if args.plot:
        from ..plot import identification_plot

        identification_plot(shown, args.plot)
        print(f"{'validation' if args.validate else 'fit'} plot written to {args.plot}")
    if args.plot_parameters:
        from ..plot import parameters_plot

        parameters_plot(est, args.plot_parameters)
        print(f"parameters plot written to {args.plot_parameters}")
    consistent = None
    if args.consistent or args.out:
        from ..identification.consistency import consistent_fit

        consistent = consistent_fit(est)
        print("\nphysically consistent estimate:", consistent.status)
        for v in consistent.violations:
            print("  least-squares solution:", v)
    if args.out:
        from ..description import write_robot

        write_robot(est.to_robot(consistent), args.out)
        print(f"identified robot written to {args.out}")
    return 0


def add_identify_command(subparsers):
    s = subparsers.add_parser("identify", help="identify the dynamic parameters from a log")
    s.add_argument("robot", help="library name or file (its geometry is used)")
    s.add_argument("log", help="measured log (.csv, .npz, .parquet)")
    s.add_argument("--column", action="append", metavar="QUANTITY=NAME",
                   help="column names: t=time, q=pos_{i}, qd=vel{j}, tau=effort{j}, "
                        "current=i{j} ({j}: joint 1..n, {i}: 0..n-1)")
    s.add_argument("--time-scale", type=float, default=1.0,
                   help="seconds per unit of the time column (1e-3 for ms)")
    s.add_argument("--torque-constant", nargs="+", help="K_t per joint (currents -> torques)")
    s.add_argument("--gear-ratio", nargs="+", help="gear ratio per joint")
    s.add_argument("--method", choices=("wls", "ols", "huber"), default="wls")
    s.add_argument("--cutoff", default="auto", help="low-pass cut-off of q (Hz, auto, none)")
    s.add_argument("--differentiate", action="store_true",
                   help="differentiate q even when the log has velocities")
    s.add_argument("--validate", metavar="LOG", help="validate on another log")
    s.add_argument("--plot", metavar="PNG", help="measured and model torques, residuals: on the "
                                                 "--validate log, else on the fitted one")
    s.add_argument("--plot-parameters", metavar="PNG",
                   help="the base parameters with +-2 std and their relative std")
    s.add_argument("--consistent", action="store_true",
                   help="physically consistent estimate (CVXPY)")
    s.add_argument("--out", metavar="YAML", help="write the identified robot (consistent)")
    s.set_defaults(func=_cmd_identify)
    return s


__all__ = []
