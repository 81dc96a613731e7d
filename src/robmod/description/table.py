"""Plain-text tables of a robot description, laid out as the books print them."""
from __future__ import annotations

from .expr import to_text
from .robot import DYNAMIC, GEOMETRIC, LIMITS, Robot
from .variables import with_variable


def _table(header, rows) -> list[str]:
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def geometric_table(robot: Robot) -> list[str]:
    rows = []
    for f in robot.frames:
        row = [f.j, f.ant, f.sigma, f.mu]
        for k in GEOMETRIC:
            v = with_variable(f, k) if k in ("theta", "r") else getattr(f, k)
            row.append(to_text(v))
        rows.append(row)
    return _table(["j", "a(j)", "sigma", "mu"] + list(GEOMETRIC), rows)


def dynamic_table(robot: Robot) -> list[str]:
    keys = [k for k in DYNAMIC
            if any(getattr(l, k) is not None and getattr(l, k) != 0 for l in robot.links)]
    if not keys:
        return ["(all dynamic parameters are zero)"]
    rows = [[l.j] + ["-" if getattr(l, k) is None else to_text(getattr(l, k)) for k in keys]
            for l in robot.links]
    return _table(["j"] + keys, rows)


def limits_table(robot: Robot) -> list[str]:
    if all(l.limits.is_empty() for l in robot.links):
        return []
    rows = [[l.j] + ["-" if getattr(l.limits, k) is None else to_text(getattr(l.limits, k))
                     for k in LIMITS] for l in robot.links]
    return _table(["j"] + list(LIMITS), rows)


def format_robot(robot: Robot) -> str:
    out = [f"Robot {robot.name}: {robot.structure}, NL = {robot.n_links}, "
           f"NJ = {robot.n_joints}, NF = {robot.n_frames}, loops B = {robot.n_loops}"]
    if robot.source:
        out.append(f"Source: {robot.source}")
    out += ["", "Geometric parameters"] + geometric_table(robot)
    out += ["", "Dynamic parameters (inertia about O_j in frame j; friction, rotor, wrench)"]
    out += dynamic_table(robot)
    lim = limits_table(robot)
    if lim:
        out += ["", "Joint limits"] + lim
    out += ["", "Gravity: [" + ", ".join(map(to_text, robot.gravity)) + "]"]
    if robot.base != robot.base.eye(4):
        out.append("Base Z = " + str(robot.base.tolist()))
    for t in robot.tools:
        out.append(f"Tool {t.name} on frame {t.frame}: {t.T.tolist()}")
    if robot.values:
        out.append("Values: " + ", ".join(f"{k} = {to_text(v)}" for k, v in robot.values.items()))
    return "\n".join(out)
