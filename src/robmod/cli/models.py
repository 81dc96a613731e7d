"""``robmod models ROBOT``: the main job — every model of the robot written to a folder.

One file per model and format (text with the operation-count footer, Python, C, Octave,
LaTeX), the IGM's derivation, and ``summary.txt``; on the terminal one table (model,
multiplications, additions, functions, generation time, file), progress on stderr.
``--print`` also prints the description, the transforms a(j)T_j and every model, as SYMORO+
did.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from ..errors import RobmodError


def _generate(robot, quiet):
    """[(title, model or None, seconds)]: the models of the robot, generated one by one."""
    from ..dynamics import ccg_model, ddm_model, idm_model, inertia_matrix_model
    from ..geometry import dgm_model
    from ..kinematics import jacobian_model, jdot_qdot_model

    dyn = robot
    if robot.n_loops:
        from ..dynamics.closed_loop import equivalent_tree

        dyn = equivalent_tree(robot)
    end, at = _end(robot)
    steps = [(f"DGM 0Tn{at}", lambda: dgm_model(robot, j=end)),
             (f"IGM (Paul){at}", lambda: _igm(robot, end)),
             (f"Jacobian 0Jn{at}", lambda: jacobian_model(robot, j=end)),
             (f"Jdot qd{at}", lambda: jdot_qdot_model(robot, j=end)),
             ("IDM (Newton-Euler)", lambda: idm_model(dyn)),
             ("inertia matrix", lambda: inertia_matrix_model(dyn)),
             ("Coriolis, centrifugal, gravity", lambda: ccg_model(dyn))]
    if not robot.n_loops:
        title = "DDM (A^-1 (Gamma - H))" if dyn.mimic else "DDM (recursive)"
        steps.append((title, lambda: ddm_model(dyn)))
    if robot.base_kind != "fixed" and not robot.n_loops:
        steps += _base_models(robot)
    out = []
    with _Progress(len(steps), quiet) as progress:
        for title, build in steps:
            progress.start(title)
            t0 = time.perf_counter()
            try:
                model = build()
                note = ""
            except RobmodError as e:
                model, note = None, str(e)
            dt = time.perf_counter() - t0
            progress.done(dt)
            out.append((title, model, dt, note))
    return out


def _base_models(robot):
    """The models of a mobile or floating base beyond those of every robot (which take its
    configuration, the base's pose first: robmod.description.base)."""
    from ..dynamics import centroidal_momentum_matrix_model, idm_model
    from ..geometry import dgm_model

    steps = [("DGM wTn (the world frame)", lambda: dgm_model(robot, i="world")),
             ("centroidal momentum matrix",
              lambda: centroidal_momentum_matrix_model(robot, i="world"))]
    if robot.base_kind == "floating":
        steps.insert(1, ("free-floating IDM (SYMORO)",
                         lambda: idm_model(robot, method="free_floating")))
    return steps


class _Progress:
    """Progress of the generation on stderr: a Rich progress bar on a terminal, one line per
    model otherwise (logs, pipes), nothing with ``--quiet``."""

    def __init__(self, total, quiet):
        self.total, self.quiet, self.k, self.bar = total, quiet, 0, None
        if not quiet and sys.stderr.isatty():
            try:
                from rich.console import Console
                from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
            except ImportError:
                return
            self.bar = Progress(TextColumn("{task.description:32s}"), BarColumn(),
                                TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                                console=Console(stderr=True), transient=True)
            self.task = self.bar.add_task("", total=total)

    def __enter__(self):
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()

    def start(self, title):
        self.k += 1
        if self.bar is not None:
            self.bar.update(self.task, description=title)
        elif not self.quiet:
            sys.stderr.write(f"[{self.k}/{self.total}] {title} ...")
            sys.stderr.flush()

    def done(self, seconds):
        if self.bar is not None:
            self.bar.advance(self.task)
        elif not self.quiet:
            sys.stderr.write(f" {seconds:.2f} s\n")


def _end(robot):
    """(the end frame of the DGM, IGM and Jacobian, a title suffix naming it): the last link
    frame, or for a serial robot with extra fixed frames the end of its chain of joints
    (:func:`robmod.description.end_frame`)."""
    from ..description.serial import end_frame, frame_label

    end = end_frame(robot)
    if end is None or end == robot.n_links:
        return robot.n_links, ""
    return end, f" to frame {frame_label(robot, end)}"


def _igm(robot, end):
    """The analytic IGM (Paul's method) of a serial robot, to its end frame: (solution) or a
    RobmodError; the joints after the sixth of a redundant chain are given."""
    from ..description.serial import joint_chain
    from ..geometry import igm_model

    chain = joint_chain(robot)
    if not chain:
        if chain is not None:
            raise RobmodError(f"{robot.name!r} has no joint")
        raise RobmodError(f"Paul's method is for serial robots: {robot.name!r} is a "
                          f"{robot.structure}; robmod igm {robot.name} --frame J solves the "
                          "chain to frame J")
    joints = [j for j in chain if j not in robot.mimic and j <= end]
    j = None if robot.structure == "serial" and end == robot.n_frames else end
    return igm_model(robot, fixed=joints[6:] or None, j=j)


def _cmd_models(args) -> int:
    import sympy as sp

    from ..description.serial import structure_text
    from ..geometry import frame_transform
    from ..symbolic.export import EXTENSIONS, write_model_files
    from . import load_robot_arg

    formats = [f.strip().lower() for f in args.formats.split(",")]
    unknown = [f for f in formats if f not in EXTENSIONS]
    if unknown:
        raise RobmodError(f"unknown export format {unknown[0]!r}; use {', '.join(EXTENSIONS)}")
    robot = load_robot_arg(args.robot, numeric=args.numeric, base=args.base)
    out = Path(args.out or f"{robot.name}_models")
    results = _generate(robot, args.quiet)
    rows, files = [], []
    for title, obj, dt, note in results:
        model = getattr(obj, "model", obj)          # the IGM: its solution's model
        if model is None:
            rows.append((title, "", "", "", f"{dt:.2f}", f"({note})"))
            continue
        written = write_model_files(model, out, formats=formats)
        if obj is not model:                          # the IGM's derivation
            path = out / f"{robot.name}_igm_solution.txt"
            path.write_text(obj.to_text() + "\n")
            written.append(path)
        files += written
        c = model.count()
        rows.append((title, str(c.mults), str(c.adds), str(c.funcs), f"{dt:.2f}",
                     written[0].name))
    head = ("model", "mult", "add", "functions", "time (s)", "file")
    widths = [max(len(r[k]) for r in rows + [head]) for k in range(6)]
    lines = ["  ".join(v.ljust(w) if k in (0, 5) else v.rjust(w)
                       for k, (v, w) in enumerate(zip(r, widths))).rstrip()
             for r in [head] + rows]
    table = "\n".join(lines[:1] + ["  ".join("-" * w for w in widths)] + lines[1:])
    summary = (f"{robot.name}: {structure_text(robot)} "
               f"({robot.description or robot.source})\n\n{robot}\n\n{table}\n\n"
               f"files ({', '.join(formats)}): " + ", ".join(p.name for p in files) + "\n")
    (out / "summary.txt").parent.mkdir(parents=True, exist_ok=True)
    (out / "summary.txt").write_text(summary)
    if args.print:
        print(robot)
        print("\nElementary transforms a(j)T_j")
        for f in robot.frames:
            print(f"\n{f.ant}T{f.j} =")
            print(sp.pretty(frame_transform(robot, f.j), use_unicode=False, wrap_line=False))
        for title, obj, _, _ in results:
            if obj is not None:
                if hasattr(obj, "to_text") and obj is not getattr(obj, "model", obj):
                    print("\n" + obj.to_text())
                print()
                print(getattr(obj, "model", obj).to_text(), end="")
        print()
    print(f"models of {robot.name} ({structure_text(robot)})\n")
    print(table)
    print(f"\n{len(files) + 1} files written to {out}/ (summary.txt, then one per model and "
          f"format: {', '.join(formats)})")
    return 0


def add_models_command(sub) -> None:
    s = sub.add_parser("models", help="write every model of a robot to a folder (main job)")
    s.add_argument("robot", help="library name or file")
    s.add_argument("--numeric", action="store_true", help="substitute the numeric values first")
    s.add_argument("--out", metavar="DIR", help="folder of the files (default: ROBOT_models)")
    s.add_argument("--formats", default="txt,py,c,m,tex",
                   help="export formats (txt, py, c, m, tex; default: all)")
    s.add_argument("--print", action="store_true",
                   help="also print the description, the transforms and every model")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")
    from . import add_base_option

    add_base_option(s)
    s.set_defaults(func=_cmd_models)


__all__ = []
