"""Plain-text tables of a robot description, laid out as the books print them."""
from __future__ import annotations

from .expr import to_text
from .robot import DYNAMIC, GEOMETRIC, LIMITS, Robot, provide
from .serial import extra_frames_text, structure_text
from .variables import with_variable


def _table(header, rows) -> list[str]:
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _geometric_rows(robot: Robot):
    """(header, rows) of the geometric parameters (text cells)."""
    rows = []
    for f in robot.frames:
        row = [f.j, f.ant, f.sigma, f.mu]
        for k in GEOMETRIC:
            v = with_variable(f, k) if k in ("theta", "r") else getattr(f, k)
            row.append(to_text(v))
        rows.append(row)
    return ["j", "a(j)", "sigma", "mu"] + list(GEOMETRIC), rows


def _geometric_table(robot: Robot) -> list[str]:
    return _table(*_geometric_rows(robot))


def _dynamic_rows(robot: Robot):
    """(header, rows) of the non-zero dynamic parameters, or None if all are zero."""
    keys = [k for k in DYNAMIC
            if any(getattr(l, k) is not None and getattr(l, k) != 0 for l in robot.links)]
    if not keys:
        return None
    rows = [[l.j] + ["-" if getattr(l, k) is None else to_text(getattr(l, k)) for k in keys]
            for l in robot.links]
    return ["j"] + keys, rows


def _dynamic_table(robot: Robot) -> list[str]:
    rows = _dynamic_rows(robot)
    return _table(*rows) if rows else ["(all dynamic parameters are zero)"]


def html_table(header, rows, caption="") -> str:
    """An HTML table (Jupyter's rich display); cells escaped."""
    from html import escape

    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in r) + "</tr>"
                   for r in rows)
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _robot_html(robot: Robot) -> str:
    """The description as HTML: a title line, the geometric and dynamic tables."""
    from html import escape

    base = "" if robot.base_kind == "fixed" else f"{robot.base_kind} base, "
    out = [f"<p><b>{escape(robot.name)}</b>: {base}{escape(structure_text(robot))}, "
           f"{robot.n_q} joint variables, NF = {robot.n_frames}"
           f"{' &mdash; ' + escape(robot.source) if robot.source else ''}</p>",
           html_table(*_geometric_rows(robot), caption="Geometric parameters")]
    dyn = _dynamic_rows(robot)
    if dyn:
        out.append(html_table(*dyn, caption="Dynamic parameters"))
    return "\n".join(out)


def _limits_table(robot: Robot) -> list[str]:
    if all(l.limits.is_empty() for l in robot.links):
        return []
    rows = [[l.j] + ["-" if getattr(l.limits, k) is None else to_text(getattr(l.limits, k))
                     for k in LIMITS] for l in robot.links]
    return _table(["j"] + list(LIMITS), rows)


def _format_robot(robot: Robot) -> str:
    out = [f"Robot {robot.name}: {structure_text(robot)}; NL = {robot.n_links}, "
           f"NJ = {robot.n_joints}, NF = {robot.n_frames}, loops B = {robot.n_loops}"]
    extra = extra_frames_text(robot)
    if extra:
        out.append(extra[0].upper() + extra[1:])
    if robot.source:
        out.append(f"Source: {robot.source}")
    out += ["", "Geometric parameters"] + _geometric_table(robot)
    out += ["", "Dynamic parameters (inertia about O_j in frame j; friction, rotor, wrench)"]
    out += _dynamic_table(robot)
    lim = _limits_table(robot)
    if lim:
        out += ["", "Joint limits"] + lim
    if robot.base_kind != "fixed":
        b = robot.base_link
        vals = [f"{k} = {to_text(getattr(b, k))}" for k in DYNAMIC
                if getattr(b, k) is not None and getattr(b, k) != 0]
        what = ("6 free coordinates: position and quaternion of frame 0 in the world"
                if robot.base_kind == "floating" else "its motion V0, W0, VP0, WP0 given")
        out += ["", f"Base: {robot.base_kind} ({what})",
                "Link 0: " + (", ".join(vals) if vals else "no inertia")]
    out += ["", "Gravity: [" + ", ".join(map(to_text, robot.gravity)) + "]"
            + (" (world frame)" if robot.base_kind == "floating" else "")]
    if robot.Z != robot.Z.eye(4):
        out.append("Base Z = " + str(robot.Z.tolist()))
    for t in robot.tools:
        out.append(f"Tool {t.name} on frame {t.frame}: {t.T.tolist()}")
    if robot.values:
        out.append("Values: " + ", ".join(f"{k} = {to_text(v)}" for k, v in robot.values.items()))
    return "\n".join(out)


provide("text", _format_robot)
provide("html", _robot_html)

__all__ = []
