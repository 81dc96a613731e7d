"""robmod's native robot file (YAML).  The format is documented in docs/format.md.

Example (Stäubli RX-90, Khalil & Dombre Table 3.1)::

    robmod: 1
    name: rx90
    frames:
      - {j: 1, ant: 0, sigma: 0, mu: 1, alpha: 0,     d: 0,  theta: q1, r: 0}
      - {j: 2, ant: 1, sigma: 0, mu: 1, alpha: pi/2,  d: 0,  theta: q2, r: 0}
      - {j: 3, ant: 2, sigma: 0, mu: 1, alpha: 0,     d: D3, theta: q3, r: 0}
      ...
    values: {D3: 0.45, RL4: 0.45}
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import sympy as sp

from ..arguments import did_you_mean, keyword_options, path_argument, text_argument
from . import located_yaml
from .expr import as_expr, to_text
from .io_common import IDENT_RE, NAME_RE, FileContext, read_text, write_text_atomic
from .build import make_robot
from .robot import (DYNAMIC, GEOMETRIC, IDENTITY4, LIMITS, FIXED, Frame, JointLimits, Link,
                    Robot, Tool)
from .transforms_io import matrix_from_spec
from .base import BASE_KINDS, symbolic_base_link
from .validation import validate
from .variables import split_variable, with_variable

_FORMAT_VERSION = 1
_TOP_KEYS = ("robmod", "name", "source", "description", "n_links", "frames", "links",
            "link_defaults", "joints", "base", "tools", "values", "mimic", "inertia_check")
_FRAME_KEYS = ("j", "ant", "sigma", "mu") + GEOMETRIC
_LINK_KEYS = ("j",) + DYNAMIC
_JOINT_KEYS = ("j",) + LIMITS
_BASE_KEYS = ("kind", "Z", "gravity", "W0", "WP0", "V0", "VP0")


@keyword_options()
def read_yaml(path, *, inertia_check: str = "error") -> Robot:
    """Read a robot from a native YAML file (``inertia_check``: see
    :func:`~robmod.description.files.read_robot`)."""
    path = Path(path_argument(path))
    return loads_yaml(read_text(path), str(path), inertia_check=inertia_check)


@keyword_options()
def loads_yaml(text: str, filename: str = "<string>", *, inertia_check: str = "error") -> Robot:
    """Read a robot from YAML text."""
    data = located_yaml.load(text_argument(text), filename)
    return _robot_from_data(data, FileContext(filename), inertia_check)


def _require_map(obj, ctx, what, line):
    if not isinstance(obj, located_yaml.LDict):
        raise ctx.error(f"{what} must be a mapping (key: value)", line)
    return obj


def _require_list(obj, ctx, what, line):
    if not isinstance(obj, located_yaml.LList):
        raise ctx.error(f"{what} must be a list", line)
    return obj


def _check_keys(mapping, allowed, ctx, what, frame=None):
    for k in mapping:
        if k not in allowed:
            raise ctx.error(f"unknown key {k!r} in {what}{did_you_mean(k, allowed)}; allowed: "
                            f"{', '.join(allowed)}", mapping.lines[k], frame, str(k))


def _int(value, ctx, line, frame, field):
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.error(f"must be an integer, not {value!r}", line, frame, field)
    return value


def _expr(value, ctx, line, frame, field):
    with ctx.located(line, frame, field) as loc:
        return as_expr(value, loc)


def _robot_from_data(data, ctx: FileContext, inertia_check: str = "error") -> Robot:
    data = _require_map(data, ctx, "the file", 1)
    _check_keys(data, _TOP_KEYS, ctx, "the file")
    version = data.get("robmod", _FORMAT_VERSION)
    if version != _FORMAT_VERSION:
        raise ctx.error(f"unsupported format version {version!r} (this robmod reads version "
                        f"{_FORMAT_VERSION})", data.lines.get("robmod"), field="robmod")
    name = data.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name or ""):
        raise ctx.error("name must be given, made of letters, digits, '_', '-', '.'",
                        data.lines.get("name", data.line), field="name")
    for key in ("source", "description"):
        if key in data and not isinstance(data[key], str):
            raise ctx.error(f"{key} must be text", data.lines[key], field=key)
    if "inertia_check" in data:
        if data["inertia_check"] not in ("error", "warn"):
            raise ctx.error("inertia_check must be 'error' or 'warn'", data.lines["inertia_check"],
                            field="inertia_check")
        inertia_check = data["inertia_check"]
    if "frames" not in data:
        raise ctx.error("the file has no 'frames' list", data.line, field="frames")
    frames_raw = _require_list(data["frames"], ctx, "frames", data.lines["frames"])
    frames = []
    for idx, row in enumerate(frames_raw, start=1):
        line = frames_raw.lines[idx - 1]
        row = _require_map(row, ctx, f"frame entry {idx}", line)
        frames.append(_frame(row, idx, ctx))
    nf = len(frames)
    nl = nf
    if "n_links" in data:
        nl = _int(data["n_links"], ctx, data.lines["n_links"], None, "n_links")
        if not 1 <= nl <= nf:
            raise ctx.error(f"n_links = {nl} must be between 1 and the number of frames {nf}",
                            data.lines["n_links"], field="n_links")
    defaults = data.get("link_defaults", "symbolic")
    if defaults not in ("symbolic", "zero"):
        raise ctx.error("link_defaults must be 'symbolic' or 'zero'",
                        data.lines.get("link_defaults"), field="link_defaults")
    kind = _base_kind(data, ctx)
    link_values = {j: (Link.symbolic(j).__dict__.copy() if defaults == "symbolic"
                       else Link(j=j).__dict__.copy()) for j in range(1, nl + 1)}
    link_values[0] = (symbolic_base_link() if defaults == "symbolic" and kind != "fixed"
                      else Link(j=0)).__dict__.copy()
    for j in link_values:
        link_values[j].pop("limits", None)
    limits = {j: {} for j in range(1, nl + 1)}
    if "links" in data:
        rows = _require_list(data["links"], ctx, "links", data.lines["links"])
        _rows_into(rows, _LINK_KEYS, link_values, nl, ctx, "links",
                   lowest=0 if kind != "fixed" else 1)
    if "joints" in data:
        rows = _require_list(data["joints"], ctx, "joints", data.lines["joints"])
        _rows_into(rows, _JOINT_KEYS, limits, nl, ctx, "joints")
    links = []
    for j in range(1, nl + 1):
        vals = link_values[j]
        vals["j"] = j
        links.append(Link(**vals, limits=JointLimits(**limits[j])))
    kw = {"base": kind, "base_link": Link(**{**link_values[0], "j": 0})}
    base = data.get("base")
    if base is not None:
        if "Z" in base:
            ctx.locations[(None, "Z")] = ctx.loc(base.lines["Z"])
            kw["Z"] = _matrix(base["Z"], ctx, base.lines["Z"], None, "Z")
        for key in _BASE_KEYS[2:]:
            if key in base:
                kw[key] = _vector(base[key], ctx, base.lines[key], key)
    tools = []
    if "tools" in data:
        rows = _require_list(data["tools"], ctx, "tools", data.lines["tools"])
        for idx, row in enumerate(rows):
            tools.append(_tool(row, rows.lines[idx], ctx))
    values = {}
    if "values" in data:
        vmap = _require_map(data["values"], ctx, "values", data.lines["values"])
        for k, v in vmap.items():
            line = vmap.lines[k]
            if not isinstance(k, str) or not IDENT_RE.match(k):
                raise ctx.error(f"values: {k!r} is not a symbol name", line, field="values")
            values[k] = _expr(v, ctx, line, None, k)
    mimic = {}
    if "mimic" in data:
        rows = _require_list(data["mimic"], ctx, "mimic", data.lines["mimic"])
        for idx, row in enumerate(rows):
            line = rows.lines[idx]
            row = _require_map(row, ctx, "mimic", line)
            extra = set(row) - {"j", "joint", "multiplier", "offset"}
            if extra or not {"j", "joint"} <= set(row):
                raise ctx.error("mimic: each entry is {j: FRAME, joint: FRAME, multiplier: M, "
                                "offset: C} (q_j = M q_joint + C)", line, field="mimic")
            try:
                j, i = int(row["j"]), int(row["joint"])
                m, c = float(row.get("multiplier", 1.0)), float(row.get("offset", 0.0))
            except (TypeError, ValueError, OverflowError):
                raise ctx.error("mimic: j and joint are frame numbers, multiplier and offset "
                                "numbers", line, field="mimic") from None
            mimic[j] = (i, m, c)
    robot = make_robot(
        name, frames, links, n_links=nl, tools=tools, values=values,
        source=data.get("source", ""), description=data.get("description", ""),
        validate=False, mimic=mimic, inertia_check=inertia_check, **kw)
    with ctx.located():
        validate(robot, ctx.locations)
    used = {s.name for s in robot.symbols}
    used |= {s.name for v in values.values() for s in v.free_symbols}   # one pass: linear
    for k in values:
        if k not in used:
            raise ctx.error(f"values gives {k!r}, a symbol the robot does not use",
                            data["values"].lines[k], field=k)
    return robot


def _base_kind(data, ctx) -> str:
    """The base kind of the file's ``base: {kind: ...}`` (fixed by default)."""
    base = data.get("base")
    if base is None:
        return "fixed"
    base = _require_map(base, ctx, "base", data.lines["base"])
    _check_keys(base, _BASE_KEYS, ctx, "base")
    kind = base.get("kind", "fixed")
    if kind not in BASE_KINDS:
        raise ctx.error(f"base kind must be one of {', '.join(BASE_KINDS)}, not {kind!r}",
                        base.lines.get("kind"), field="kind")
    return kind


def _frame(row, idx, ctx) -> Frame:
    _check_keys(row, _FRAME_KEYS, ctx, f"frame entry {idx}")
    j = row.get("j", idx)
    jline = row.lines.get("j", row.line)
    j = _int(j, ctx, jline, idx, "j")
    if j != idx:
        raise ctx.error(f"frames must be listed in order 1, 2, ...: entry {idx} has j = {j}",
                        jline, idx, "j")
    ctx.locations[(j, None)] = ctx.loc(row.line)
    for k in row:
        ctx.locations[(j, k)] = ctx.loc(row.lines[k])
    if "ant" not in row:
        raise ctx.error("missing antecedent 'ant'", row.line, j, "ant")
    ant = _int(row["ant"], ctx, row.lines["ant"], j, "ant")
    sigma = _int(row.get("sigma", 0), ctx, row.lines.get("sigma", row.line), j, "sigma")
    if sigma not in (0, 1, 2):
        raise ctx.error(f"sigma must be 0 (revolute), 1 (prismatic) or 2 (fixed), not {sigma}",
                        row.lines.get("sigma", row.line), j, "sigma")
    mu = _int(row.get("mu", 0 if sigma == FIXED else 1), ctx, row.lines.get("mu", row.line), j,
              "mu")
    vals = {}
    for k in GEOMETRIC:
        line = row.lines.get(k, row.line)
        if k in ("theta", "r") and k not in row and {0: "theta", 1: "r"}.get(sigma) == k:
            raise ctx.error(f"missing {k}: write the joint variable, e.g. {k}: q{j}", line, j, k)
        v = _expr(row.get(k, 0), ctx, line, j, k)
        if k in ("theta", "r"):
            v = split_variable(v, j, sigma, k, ctx.loc(line))
        vals[k] = v
    return Frame(j=j, ant=ant, sigma=sigma, mu=mu, **vals)


def _rows_into(rows, keys, target, nl, ctx, what, lowest=1):
    seen = set()
    for idx, row in enumerate(rows):
        line = rows.lines[idx]
        row = _require_map(row, ctx, f"{what} entry {idx + 1}", line)
        _check_keys(row, keys, ctx, f"{what} entry {idx + 1}")
        if "j" not in row:
            raise ctx.error(f"{what} entry {idx + 1} has no 'j'", line, field="j")
        j = _int(row["j"], ctx, row.lines["j"], None, "j")
        if not lowest <= j <= nl:
            hint = (" (link 0, the base, takes parameters when the base is mobile or floating: "
                    "base: {kind: floating})" if j == 0 else "")
            raise ctx.error(f"{what}: link {j} does not exist (links are {lowest}..{nl}){hint}",
                            row.lines["j"], j, "j")
        if j in seen:
            raise ctx.error(f"{what}: link {j} is given twice", line, j, "j")
        seen.add(j)
        for k, v in row.items():
            if k == "j":
                continue
            ctx.locations[(j, k)] = ctx.loc(row.lines[k])
            target[j][k] = None if (v is None and k != "j") else _expr(v, ctx, row.lines[k], j, k)


def _vector(value, ctx, line, field):
    if not isinstance(value, list) or len(value) != 3:
        raise ctx.error("must be a list of 3 components", line, field=field)
    return tuple(_expr(v, ctx, line, None, field) for v in value)


def _matrix(spec, ctx, line, frame, field):
    with ctx.located(line, frame, field):
        return matrix_from_spec(spec, lambda v, f=field: _expr(v, ctx, line, frame, f))


def _tool(row, line, ctx) -> Tool:
    row = _require_map(row, ctx, "tool entry", line)
    _check_keys(row, ("name", "frame", "T") + GEOMETRIC, ctx, "tool entry")
    name = row.get("name", "tool")
    if not isinstance(name, str):
        raise ctx.error("tool name must be text", line, field="name")
    if "frame" not in row:
        raise ctx.error(f"tool {name!r} needs 'frame' (the frame it is attached to)", line,
                        field="frame")
    frame = _int(row["frame"], ctx, row.lines["frame"], None, "frame")
    spec = {k: row[k] for k in row if k in GEOMETRIC}
    if "T" in row:
        if spec:
            raise ctx.error(f"tool {name!r}: give either T or (gamma, b, alpha, d, theta, r)",
                            line, frame, "T")
        spec = row["T"]
    T = _matrix(spec, ctx, line, frame, f"tool {name}") if spec else IDENTITY4
    ctx.locations[(frame, "tools")] = ctx.loc(line)
    ctx.locations[(frame, f"tool {name}")] = ctx.loc(line)
    return Tool(name=name, frame=frame, T=T)


# ---------------------------------------------------------------------------- writing
_PLAIN = re.compile(r"^[A-Za-z0-9_.+\-*/() ]+$")


def _scalar(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, (int,)) and not isinstance(v, bool):
        return str(v)
    text = to_text(v)
    expr = v if isinstance(v, sp.Basic) else None
    if expr is not None and (expr.is_Integer or expr.is_Float):
        return text
    if _PLAIN.match(text) and not re.match(r"^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$", text) \
            and text.lower() not in ("null", "true", "false", "yes", "no", "on", "off", "y", "n"):
        return text
    return json.dumps(text)


def _row(pairs) -> str:
    return "{" + ", ".join(f"{k}: {_scalar(v)}" for k, v in pairs) + "}"


@keyword_options()
def dumps_yaml(robot: Robot) -> str:
    """The native YAML text of ``robot`` (re-readable by :func:`loads_yaml`)."""
    out = [f"# robmod robot description (format {_FORMAT_VERSION}); see docs/format.md",
           f"robmod: {_FORMAT_VERSION}", f"name: {robot.name}"]
    if robot.source:
        out.append(f"source: {json.dumps(robot.source, ensure_ascii=False)}")
    if robot.description:
        out.append(f"description: {json.dumps(robot.description, ensure_ascii=False)}")
    if robot.n_loops:
        out.append(f"n_links: {robot.n_links}")
    out.append("frames:")
    for f in robot.frames:
        pairs = [("j", f.j), ("ant", f.ant), ("sigma", f.sigma), ("mu", f.mu)]
        for k in GEOMETRIC:
            v = with_variable(f, k) if k in ("theta", "r") else getattr(f, k)
            pairs.append((k, v))
        out.append("  - " + _row(pairs))
    out.append("link_defaults: zero")
    out.append("links:")
    base_rows = (robot.base_link,) if robot.base_kind != "fixed" else ()
    for link in base_rows + robot.links:
        pairs = [("j", link.j)] + [(k, getattr(link, k)) for k in DYNAMIC
                                   if getattr(link, k) is not None and getattr(link, k) != 0]
        out.append("  - " + _row(pairs))
    joints = [l for l in robot.links if not l.limits.is_empty()]
    if joints:
        out.append("joints:")
        for link in joints:
            pairs = [("j", link.j)] + [(k, getattr(link.limits, k)) for k in LIMITS
                                       if getattr(link.limits, k) is not None]
            out.append("  - " + _row(pairs))
    out.append("base:")
    if robot.base_kind != "fixed":
        out.append(f"  kind: {robot.base_kind}")
    if robot.Z != IDENTITY4:
        out.append("  Z: " + _matrix_text(robot.Z))
    for key in ("gravity", "W0", "WP0", "V0", "VP0"):
        out.append(f"  {key}: [" + ", ".join(_scalar(v) for v in getattr(robot, key)) + "]")
    if robot.tools:
        out.append("tools:")
        for t in robot.tools:
            out.append(f"  - {{name: {json.dumps(t.name)}, frame: {t.frame}, T: "
                       + _matrix_text(t.T) + "}")
    if robot.values:
        out.append("values:")
        for k, v in robot.values.items():
            out.append(f"  {k}: {_scalar(v)}")
    if robot.mimic:
        out.append("mimic:")
        for j, (i, m, c) in sorted(robot.mimic.items()):
            out.append(f"  - {{j: {j}, joint: {i}, multiplier: {m!r}, offset: {c!r}}}")
    if robot.inertia_check != "error":
        out.append(f"inertia_check: {robot.inertia_check}   # physically impossible inertias "
                   "kept (with a warning)")
    return "\n".join(out) + "\n"


def _matrix_text(m) -> str:
    return "[" + ", ".join("[" + ", ".join(_scalar(m[i, k]) for k in range(4)) + "]"
                           for i in range(3)) + "]"


def write_yaml(robot: Robot, path) -> None:
    """Write ``robot`` to ``path`` (all-or-nothing: the text is built before the file is opened)."""
    write_text_atomic(path, dumps_yaml(robot))


__all__ = ["read_yaml", "loads_yaml", "dumps_yaml", "write_yaml"]
