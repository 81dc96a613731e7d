"""``robmod warmup ROBOT``: compile the robot's plain-API models ahead of time, and the CasADi
export's graph builder when CasADi is installed."""
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
    line = _casadi_builder()
    if line:
        print(line)
    return 0


def _casadi_builder() -> str | None:
    """Build (or load) the CasADi export's compiled graph builder when CasADi is installed:
    one line saying what happened, None without CasADi."""
    import importlib.util
    import time
    import warnings

    if importlib.util.find_spec("casadi") is None:
        return None
    import casadi

    from ..symbolic.casadi_graph import graph_builder

    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = graph_builder(casadi)
    seconds = time.perf_counter() - t0
    if module is not None:
        return f"{'casadi graph':18s} {seconds:8.2f}  compiled (to_casadi's builder)"
    why = str(caught[0].message) if caught else "see the first warning of to_casadi"
    return f"{'casadi graph':18s} {seconds:8.2f}  Python ({why})"


def add_warmup_command(sub) -> None:
    s = sub.add_parser("warmup", help="compile the robot's numeric models ahead of time")
    s.add_argument("robot", help="library name or file (its numeric values are used)")
    s.add_argument("--models", help="comma-separated subset of dgm, jacobian, idm, "
                                    "inertia_matrix, gravity_torques, ddm")
    s.set_defaults(func=_cmd_warmup)


__all__ = []
