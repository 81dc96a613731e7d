"""``robmod base-params ROBOT``: the base parameters table and count.

Register with ``add_base_params_command(sub)`` on the ``robmod`` sub-parsers.
"""
from __future__ import annotations


def _cmd_base_params(args) -> int:
    from ..description import load_robot
    from ..identification.base_numeric import compare, numeric_base
    from ..identification.base_symbolic import base_parameters

    robot = load_robot(args.robot, numeric=args.numeric)
    if args.gravity:
        import sympy as sp
        from dataclasses import replace

        from ..description.expr import parse_expression

        g = [parse_expression(x) for x in args.gravity.split(",")]
        if len(g) != 3:
            from ..errors import RobmodError

            raise RobmodError("--gravity needs three comma-separated components")
        robot = replace(robot, gravity=tuple(sp.sympify(x) for x in g))  # safe: parsed
    bp = base_parameters(robot, rotor=not args.no_rotor, friction=not args.no_friction,
                         regroup_first_links=not args.theorems_only)
    print(bp.table())
    print(f"\ncount: {len(bp)} base parameters ({bp.inertial_count()} inertial) of "
          f"{len(bp.standard)} standard parameters")
    if args.check:
        nb = numeric_base(robot, bp.standard)
        print(f"numeric check (regressor rank at random states): {compare(bp, nb)}")
    if args.out:
        from ..symbolic.export import write_models
        from ..identification.regressors import base_idm_model, regressor_model

        models = [bp.relations_model()]
        if robot.n_loops == 0:
            models += [regressor_model(robot, params=bp, name="base_regressor"), base_idm_model(bp)]
        print(write_models(models, args.out, args.formats.split(",")))
    return 0


def add_base_params_command(subparsers):
    """Add the ``base-params`` command to the ``robmod`` sub-parsers."""
    s = subparsers.add_parser("base-params",
                              help="base (minimum) dynamic parameters of a robot (Gautier-Khalil)")
    s.add_argument("robot", help="library name or file (.yaml, .par, .urdf)")
    s.add_argument("--numeric", action="store_true", help="substitute the numeric values first")
    s.add_argument("--no-rotor", action="store_true", help="leave the rotor inertias IA out")
    s.add_argument("--no-friction", action="store_true", help="leave FC, FV out")
    s.add_argument("--gravity", metavar="GX,GY,GZ", help="the world's gravity (e.g. 0,G2,G3; in frame 0 when the base matrix Z has no rotation)")
    s.add_argument("--theorems-only", action="store_true",
                   help="closed-form rules only (no search for regroupings among the first links)")
    s.add_argument("--check", action="store_true",
                   help="compare with the numeric rank of the regressor")
    s.add_argument("--out", metavar="DIR",
                   help="write the relations, the base regressor and the base IDM to DIR")
    s.add_argument("--formats", default="txt,py,c,m,tex",
                   help="export formats for --out (txt, py, c, m, tex; default: all)")
    s.set_defaults(func=_cmd_base_params)
    return s


__all__ = []
