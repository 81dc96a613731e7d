"""``robmod igm ROBOT``: the inverse geometric model of a robot at a given pose.

The target pose is given one of three ways::

    robmod igm rx90 --pose 0.3 0.1 0.5 0 1.2 0.4            # position + orientation angles
    robmod igm rx90 --pose ... --orientation zxz --degrees
    robmod igm rx90 --matrix sx nx ax Px  sy ny ay Py  sz nz az Pz   # rows of 0T6
    robmod igm rx90 --q 0.1 -0.4 0.3 0.2 0.5 -0.1           # the pose of these joint values

and the solutions are printed with their status.  The method is chosen as
``--method auto`` (default): the analytic IGM by Paul's method
(:mod:`robmod.geometry.inverse`), or the exact polynomial method for a general 6R
robot, or the numeric IGM; ``--fixed 7=0.3`` gives the value of a joint of a
redundant robot.  Every printed solution is checked by the DGM.
"""
from __future__ import annotations

import numpy as np

from ..errors import RobmodError

_ORIENTATIONS = ("rpy", "zxz", "zyz", "quaternion", "angle-axis")


def add_igm_command(sub) -> None:
    s = sub.add_parser("igm", help="inverse geometric model at a pose (all solutions)")
    s.add_argument("robot", help="library name or file (.yaml, .par, .urdf)")
    g = s.add_mutually_exclusive_group(required=True)
    g.add_argument("--pose", nargs="+", type=float, metavar="V",
                   help="x y z and the orientation (3 angles, 4 quaternion values scalar "
                        "first, or angle + axis)")
    g.add_argument("--matrix", nargs=12, type=float, metavar="V",
                   help="the 12 elements of the 3x4 upper part of 0Tn, row by row")
    g.add_argument("--q", nargs="+", type=float, metavar="Q",
                   help="joint values: the target is the pose they give")
    s.add_argument("--orientation", choices=_ORIENTATIONS, default="rpy",
                   help="orientation set of --pose (default: rpy, Khalil's z-y-x)")
    s.add_argument("--degrees", action="store_true", help="angles of --pose/--q in degrees")
    s.add_argument("--fixed", action="append", default=[], metavar="J=V",
                   help="value of a joint of a redundant robot (repeatable)")
    s.add_argument("--frame", metavar="J",
                   help="end frame, a number or a name (a URDF link), or a tool; default: the "
                        "end of a serial robot's chain of joints (the last joint's frame, or "
                        "the fixed frame alone after it); trees and closed loops need it")
    s.add_argument("--tool", metavar="NAME",
                   help="target is the pose of this tool, or of this frame (a fixed frame of a "
                        "URDF: tool0, flange)")
    s.add_argument("--method", choices=("auto", "analytic", "pieper", "general6r", "numeric"),
                   default="auto")
    s.add_argument("--steps", action="store_true",
                   help="print the symbolic solution (equations, types, branches)")
    s.set_defaults(func=_cmd_igm)


def _parse_fixed(items) -> dict:
    out = {}
    for it in items:
        key, sep, val = it.partition("=")
        try:
            j = int(key.strip().lstrip("qQ"))
            out[j] = float(val)
        except ValueError:
            raise RobmodError(f"--fixed {it!r}: expected J=VALUE, e.g. --fixed 7=0.3") from None
        if not sep:
            raise RobmodError(f"--fixed {it!r}: expected J=VALUE, e.g. --fixed 7=0.3")
    return out


def _target_pose(robot, args) -> np.ndarray:
    """The 4x4 target 0Tn from the command-line arguments."""
    from ..spatial import orientation as ori
    from ..geometry.direct import dgm

    scale = np.pi / 180.0 if args.degrees else 1.0
    if args.q is not None:
        if len(args.q) != robot.n_q:
            raise RobmodError(f"--q needs {robot.n_q} values for {robot.name!r} (one per joint "
                              f"variable, fixed frames none), got {len(args.q)}")
        q = np.array(args.q, dtype=float)
        rev = np.array([robot.frame(j).sigma == 0 for j in robot.joints])
        q[rev] *= scale
        return dgm(robot, q, j=args.frame, tool=args.tool)
    T = np.eye(4)
    if args.matrix is not None:
        T[:3, :4] = np.reshape(args.matrix, (3, 4))
        R = T[:3, :3]
        if np.max(np.abs(R.T @ R - np.eye(3))) > 1e-6 or np.linalg.det(R) < 0:
            raise RobmodError("--matrix: the 3x3 part is not a rotation matrix (orthonormal, "
                              "det +1) to 1e-6")
        return T
    v = list(args.pose)
    sizes = {"rpy": 6, "zxz": 6, "zyz": 6, "quaternion": 7, "angle-axis": 7}
    if len(v) != sizes[args.orientation]:
        raise RobmodError(f"--pose with --orientation {args.orientation} needs "
                          f"{sizes[args.orientation]} values, got {len(v)}")
    T[:3, 3] = v[:3]
    a = np.array(v[3:], dtype=float)
    if args.orientation == "rpy":
        T[:3, :3] = ori.rpy_to_matrix(*(a * scale))
    elif args.orientation == "zxz":
        T[:3, :3] = ori.euler_zxz_to_matrix(*(a * scale))
    elif args.orientation == "zyz":
        T[:3, :3] = ori.euler_zyz_to_matrix(*(a * scale))
    elif args.orientation == "quaternion":
        if np.linalg.norm(a) < 1e-12:
            raise RobmodError("--pose: the quaternion is zero")
        T[:3, :3] = ori.quaternion_to_matrix(a / np.linalg.norm(a))
    else:
        T[:3, :3] = ori.angle_axis_to_matrix(a[0] * scale, a[1:])
    return T


def _analytic(robot, T, fixed):
    from ..geometry.inverse import igm_model

    sol = igm_model(robot, fixed=sorted(fixed) or None)
    qf = np.array([fixed[j] for j in sorted(fixed)]) if fixed else None
    ev = sol.evaluate(T, qf)
    return sol, ev.q, ev.valid, ev.singular


def _solve_pose(robot, T, fixed, method):
    """(method text, solution object or None, q (B, n), valid (B,), singular (B,)) for the
    pose ``T`` of the last frame of the serial robot ``robot``."""
    from ..geometry.inverse.fallback import no_special_axes

    errors = []
    if method == "auto" and not fixed and no_special_axes(robot):
        method = "general6r"  # no two consecutive axes meet or are parallel: no closed form
    if method in ("auto", "analytic"):
        try:
            sol, q, valid, sing = _analytic(robot, T, fixed)
            return sol.method, sol, q, valid, sing
        except RobmodError as e:
            if method == "analytic":
                raise
            errors.append(f"analytic: {e}")
    if method in ("auto", "pieper") and robot.n_joints == 6 and not fixed:
        from ..geometry.igm_pieper import igm_pieper

        try:
            ev = igm_pieper(robot, T)
            ok = ev.valid
            return ("Pieper's quartic (spherical wrist, general arm)", None, ev.q[ok],
                    ok[ok], ev.singular[ok])
        except RobmodError as e:
            if method == "pieper":
                raise
            errors.append(f"Pieper: {e}")
    if method in ("auto", "general6r") and robot.n_joints == 6 and not fixed:
        from ..geometry.igm_general6r import igm_general6r

        try:
            q = np.atleast_2d(igm_general6r(robot, T).q)
            ok = np.ones(len(q), dtype=bool)
            return ("exact polynomial method (general 6R)", None, q, ok, np.zeros_like(ok))
        except RobmodError as e:
            if method == "general6r":
                raise
            errors.append(f"general 6R: {e}")
    from ..kinematics.ik_numeric import igm_numeric

    if fixed:
        raise RobmodError("the numeric IGM does not take --fixed joints; " + "; ".join(errors))
    res = igm_numeric(robot, T)
    if res.n_solutions == 0:
        raise RobmodError(f"numeric IGM: {res.status} (smallest pose error {res.error:.2e})")
    q = res.solutions()
    ok = np.ones(len(q), dtype=bool)
    return ("numeric IGM (damped Jacobian iterations from random seeds)", None, q, ok,
            np.zeros_like(ok))


def _frame_or_tool(robot, frame, tool):
    """(frame number or None, Tool or None) from --frame and --tool, which take a frame (number
    or name: a URDF link or joint) or a tool alike; by default the end frame of a serial robot
    (:func:`robmod.description.end_frame`: the last joint's frame, or the fixed frame alone
    after it), None for a tree."""
    from ..description.serial import end_frame, frame_label
    from ..geometry.direct import find_tool

    def as_tool(name):
        return next((t for t in robot.tools if t.name == name), None)

    def known():
        fixed = [frame_label(robot, f.j) for f in robot.frames if f.sigma == 2]
        return (f"tools: {', '.join(t.name for t in robot.tools) or 'none'}; fixed frames: "
                f"{', '.join(fixed) or 'none'}")

    found_tool = None
    if tool is not None:
        found_tool = as_tool(tool)
        if found_tool is None:
            try:
                at = robot.frame_number(tool)
            except RobmodError:
                raise RobmodError(f"--tool: {robot.name!r} has no tool or frame {tool!r} "
                                  f"({known()})") from None
            if frame is not None and robot.frame_number(frame) != at:
                raise RobmodError(f"--tool {tool} is frame {at}, not the --frame {frame}")
            return at, None
    if frame is not None:
        if found_tool is None and as_tool(frame) is not None:
            return as_tool(frame).frame, as_tool(frame)
        frame = robot.frame_number(frame)
    if found_tool is not None:
        found_tool = find_tool(robot, found_tool.name)
        if frame is not None and found_tool.frame != frame:
            raise RobmodError(f"tool {found_tool.name!r} is on frame {found_tool.frame}, not "
                              f"{frame}")
        return found_tool.frame, found_tool
    if frame is None:
        end = end_frame(robot)
        if end is None and robot.structure != "serial":
            raise RobmodError(f"{robot.name!r} is a {robot.structure} structure: give --frame J "
                              "(a number or a name) or --tool NAME, the frame whose pose is "
                              f"the target ({known()})")
        if end is not None and not (robot.structure == "serial" and end == robot.n_frames):
            frame = end
    return frame, None


def _cmd_igm(args) -> int:
    from . import load_robot_arg
    from ..description.serial import frame_label
    from ..geometry.chain import serial_chain
    from ..geometry.direct import dgm

    robot = load_robot_arg(args.robot, numeric=True)
    frame, tool = _frame_or_tool(robot, args.frame, args.tool)
    fixed = _parse_fixed(args.fixed)
    for j in fixed:
        if j not in robot.joints:
            raise RobmodError(f"--fixed: {robot.name!r} has no joint {j}")
    args.frame, args.tool = frame, tool.name if tool is not None else None
    T = _target_pose(robot, args)
    Tn = T  # the pose of the end frame (tool removed)
    if tool is not None:
        Tn = T @ np.linalg.inv(np.array(tool.T.evalf().tolist(), dtype=float))
    solver, numbers = robot, None
    if frame is not None and (robot.structure != "serial" or frame != robot.n_frames):
        # the chain of joints to the frame, a serial robot: every method applies to it
        solver, numbers = serial_chain(robot, j=frame)
        outside = [j for j in fixed if j not in numbers]
        if outside:
            raise RobmodError(f"--fixed: joints {outside} are not on the chain of frame "
                              f"{frame} ({', '.join(map(str, numbers))})")
        fixed = {numbers.index(j) + 1: v for j, v in fixed.items()}
    method, sol, q, valid, sing = _solve_pose(solver, Tn, fixed, args.method)
    joints = sol.robot_joints if sol is not None else solver.joints
    joints = [j for j in joints if solver.frame(j).sigma != 2]   # fixed frames take no value
    chain = sol.robot if sol is not None else solver
    if args.steps and sol is not None:
        print(sol.to_text())
        print()
    np.set_printoptions(precision=6, suppress=True)
    end = tool.name if tool is not None else frame_label(robot, frame or robot.n_frames)
    print(f"robot {robot.name}: target 0T{end} =")
    print(T[:3])
    print(f"method: {method}")
    n_ok = int(np.count_nonzero(valid))
    print(f"{n_ok} solution(s) of {len(q)} branch(es)")
    rev = np.array([solver.frame(j).sigma == 0 for j in joints])
    shown = joints if numbers is None else [numbers[j - 1] for j in joints]
    names = " ".join(f"{'q' + str(j):>10}" for j in shown)
    print(f"{'branch':>6} {names}  {'|DGM-T|':>9}  status")
    for b in range(len(q)):
        if valid[b] and np.all(np.isfinite(q[b])):
            err = float(np.max(np.abs(dgm(chain, q[b]) - Tn)))
            qb = np.where(rev, np.angle(np.exp(1j * q[b])), q[b])  # angles in (-pi, pi]
            vals = " ".join(f"{x:10.6f}" for x in qb)
        else:
            err, vals = float("nan"), " ".join(f"{'-':>10}" for _ in q[b])
        status = "ok" if valid[b] else "no solution"
        if valid[b] and sing[b]:
            status = "ok, singular"
        print(f"{b + 1:6d} {vals}  {err:9.1e}  {status}")
    if not n_ok:
        print("the pose is out of reach (no branch satisfies its equations)")
    return 0 if n_ok else 1


__all__ = []
