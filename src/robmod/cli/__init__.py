"""The ``robmod`` command line: a thin layer over the library.

    robmod list                     robots of the library
    robmod show ROBOT|FILE          parameter tables as the books print them
    robmod check FILE               validation report
    robmod convert IN OUT           between .yaml, .par and .urdf (reads MJCF and xacro too)
    robmod models ROBOT|FILE        every model of the robot, written to a folder (main job)
    robmod workspace ROBOT|FILE     workspace and manipulability map on Dask
    robmod draw ROBOT|FILE -o F     the robot drawn at a configuration
    robmod traj ROBOT|FILE --to Q   a joint-space trajectory: samples (CSV) and a plot
    robmod warmup ROBOT|FILE        compile the numeric models ahead of time
    robmod view ROBOT|FILE          the robot in the browser (MeshCat), animated
"""
from __future__ import annotations

import argparse
import sys
import traceback

from ..version import __version__
from ..errors import RobmodError


#: the file options of the command being run (``--xacro-arg``, ``--root``), set by main()
_FILE_OPTIONS: dict = {}


def load_robot_arg(name, numeric=False, base=None):
    from ..description import load_robot

    return load_robot(name, numeric=numeric, base=base, **_FILE_OPTIONS)


def _add_file_options(parser) -> None:
    """``--xacro-arg NAME:=VALUE`` (a .xacro file's arguments) and ``--root BODY`` (an MJCF
    file's top-level body, when it holds several robots)."""
    parser.add_argument("--xacro-arg", action="append", metavar="NAME:=VALUE",
                        help="an argument of a .xacro robot file (repeat for several)")
    parser.add_argument("--root", metavar="BODY", help="the top-level body of an MJCF file "
                        "that holds several articulated bodies")


def _file_options(args) -> dict:
    """The options of read_robot that the command line gave."""
    out = {}
    for pair in getattr(args, "xacro_arg", None) or ():
        name, sep, value = pair.partition(":=")
        if not sep or not name.strip():
            raise RobmodError(f"--xacro-arg {pair!r}: expected NAME:=VALUE")
        out.setdefault("xacro_args", {})[name.strip()] = value
    if getattr(args, "root", None):
        out["root"] = args.root
    return out


BASES = ("fixed", "mobile", "floating")


def add_base_option(parser) -> None:
    """``--base fixed|mobile|floating``: the base kind (a URDF file cannot say it)."""
    parser.add_argument("--base", choices=BASES, help="the base: fixed (a URDF's default), "
                        "mobile (its motion given) or floating (free: legged robots, "
                        "humanoids, space robots)")


def joint_values_arg(text, n, what):
    """Joint values from the command line (a list of strings): 1 value for all joints, or n;
    None when the option was not given."""
    import numpy as np

    if text is None:
        return None
    try:
        vals = [float(x) for x in text]
    except ValueError:
        raise RobmodError(f"{what}: expected numbers, got {' '.join(text)}") from None
    if len(vals) == 1:
        vals = vals * n
    if len(vals) != n:
        raise RobmodError(f"{what}: expected 1 or {n} values, got {len(vals)}")
    return np.array(vals)


def write_outputs(obj, args, what: str = "time series", **csv_options) -> None:
    """``obj.to_csv(args.out)`` and ``obj.plot(args.plot)`` when those options are given."""
    if args.out:
        obj.to_csv(args.out, **csv_options)
        print(f"{what} written to {args.out}")
    if args.plot:
        obj.plot(args.plot)
        print(f"plot written to {args.plot}")


def _cmd_list(args) -> int:
    from ..description import library_names

    for name in library_names():
        robot = load_robot_arg(name)
        print(f"{name:16s} {robot.structure:7s} {robot.n_joints:2d} joints  "
              f"{robot.description or robot.source}")
    return 0


def _cmd_show(args) -> int:
    print(load_robot_arg(args.robot, numeric=args.numeric, base=args.base))
    return 0


def _cmd_check(args) -> int:
    robot = load_robot_arg(args.file)
    print(f"{args.file}: OK: robot {robot.name!r}, {robot.structure}, NL = {robot.n_links}, "
          f"NJ = {robot.n_joints}, NF = {robot.n_frames}, B = {robot.n_loops}, "
          f"{len(robot.actuated)} actuated joints")
    syms = sorted(s.name for s in robot.symbols)
    if syms:
        known = [s for s in syms if s in robot.values]
        print(f"  symbols: {', '.join(syms)}")
        if known:
            print(f"  numeric values given for: {', '.join(known)}")
    return 0


def _cmd_convert(args) -> int:
    from ..description import write_robot

    robot = load_robot_arg(args.input)
    write_robot(robot, args.output)
    print(f"wrote {args.output}")
    return 0


class _Version(argparse.Action):
    """``--version``: robmod's version, then the compiler (asked only when printed)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from ..symbolic.compile import compiler_description

        print(f"robmod {__version__}\nC compiler: {compiler_description()}")
        parser.exit()


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="robmod", description="Modelling, identification and "
                                "control of robot manipulators (Khalil-Kleinfinger notation).",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_Version, nargs=0,
                   help="robmod's version and the C compiler of the compiled path")
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("list", help="list the robots of the library")
    s.set_defaults(func=_cmd_list)
    s = sub.add_parser("show", help="print the parameter tables of a robot")
    s.add_argument("robot", help="library name or file (.yaml, .par, .urdf, MJCF .xml, .xacro)")
    s.add_argument("--numeric", action="store_true", help="substitute the numeric values")
    add_base_option(s)
    s.set_defaults(func=_cmd_show)
    s = sub.add_parser("check", help="validate a robot file")
    s.add_argument("file")
    s.set_defaults(func=_cmd_check)
    s = sub.add_parser("convert", help="convert between .yaml, .par and .urdf")
    s.add_argument("input")
    s.add_argument("output")
    s.set_defaults(func=_cmd_convert)
    from .models import add_models_command

    add_models_command(sub)
    from .base_params import add_base_params_command

    add_base_params_command(sub)
    from .igm import add_igm_command
    from .identify import add_identify_command
    from .simulate import add_simulate_command

    add_igm_command(sub)
    add_simulate_command(sub)
    add_identify_command(sub)
    from .workspace import add_workspace_command

    add_workspace_command(sub)
    from .draw import add_draw_command
    from .traj import add_traj_command

    add_draw_command(sub)
    from .warmup import add_warmup_command

    add_traj_command(sub)

    add_warmup_command(sub)
    from .view import add_view_command

    add_view_command(sub)
    for name, command in sub.choices.items():
        if name != "list":           # every command that reads a robot file
            _add_file_options(command)
    return p


def main(argv=None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        _FILE_OPTIONS.clear()
        _FILE_OPTIONS.update(_file_options(args))
        return args.func(args)
    except RobmodError as e:
        print(f"robmod: error: {e}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as e:
        print(f"robmod: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # an internal error: one line, traceback with --debug
        if args.debug:
            traceback.print_exc()
        print(f"robmod: internal error: {type(e).__name__}: {e} (run with --debug for details; "
              "please report it)", file=sys.stderr)
        return 3


__all__ = ["main"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
