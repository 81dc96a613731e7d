"""robmod's extensions of the .par format: ``(* robmod: ... *)`` comments, which SYMORO ignores.

They hold what robmod describes and SYMORO does not: a name SYMORO cannot hold,
source and description (JSON strings), numeric values of symbols (``value X =
...``), Stribeck friction (``FST``, ``BST`` lists per link), joint limits (lists
per joint, ``null`` for unknown) and tools (``tool <name> frame <j> T = {...}``).
"""
from __future__ import annotations

import json
import re

from .io_common import IDENT_RE, NAME_RE
from .par_syntax import (Item, ParContext, item_expr, par_list, par_value, small_int,
                         statements)
from .robot import LIMITS, Robot, Tool
from .transforms_io import matrix_entries, matrix_from_entries

_EXT = re.compile(r"\s*robmod\s*:", re.I)
_TOOL_KEY = re.compile(r'^tool\s+("(?:[^"\\]|\\.)*"|\S+)\s+frame\s+(\S+)\s+T$', re.I | re.S)
_VALUE_KEY = re.compile(r"^value\s+(\S+)$", re.I)


# ------------------------------------------------------------------------------ reading
def _json_text(ctx, st, field):
    if st.items is not None:
        raise ctx.error(f"robmod: {field} must be a quoted text, not a list", st.line,
                        field=field)
    try:
        value = json.loads(st.scalar)
    except ValueError:
        value = None
    if not isinstance(value, str):
        raise ctx.error(f"robmod: {field} must be a quoted text (JSON string), not "
                        f"{st.scalar!r}", st.line, field=field)
    return value


def read_extensions(ctx: ParContext, comments, nl: int, nf: int) -> dict:
    """Data in ``(* robmod: ... *)`` comments (``comments``: their (start, end) spans).

    Returns {"name", "source", "description", "values", "tools", "dyn": {j: {FST, BST}},
    "limits": {j: {qmin, ...}}}.
    """
    out = {"name": None, "source": "", "description": "", "values": {}, "tools": [],
           "dyn": {}, "limits": {}}
    seen = {}
    text = ctx.text
    for a, b in comments:
        body_a, body_b = a + 2, b - 2
        m = _EXT.match(text, body_a, body_b)
        if not m:
            continue
        if "(*" in text[body_a:body_b]:
            raise ctx.error("robmod: extension comments cannot hold other comments",
                            ctx.line_of(a))
        for st in statements(ctx, text, m.end(), body_b, ext=True):
            key = st.key
            low = key.lower()
            ident = low
            if _VALUE_KEY.match(key):
                ident = "value " + _VALUE_KEY.match(key).group(1)
            elif _TOOL_KEY.match(key):
                ident = "tool " + _TOOL_KEY.match(key).group(1)
            if ident in seen:
                raise ctx.error(f"robmod: {key!r} given twice (first on line {seen[ident]})",
                                st.line, field=key)
            seen[ident] = st.line
            if low in ("name", "source", "description"):
                value = _json_text(ctx, st, low)
                if low == "name":
                    if not value.strip():
                        raise ctx.error("robmod: name must not be empty", st.line, field="name")
                    out["name"] = value
                else:
                    out[low] = value
            elif _VALUE_KEY.match(key):
                sym = _VALUE_KEY.match(key).group(1)
                if not IDENT_RE.match(sym) or sym.startswith("__"):
                    raise ctx.error(f"robmod: value {sym!r}: not a symbol name", st.line,
                                    field="values")
                if st.items is not None:
                    raise ctx.error(f"robmod: value {sym} must be a single value", st.line,
                                    field=sym)
                out["values"][sym] = item_expr(ctx, Item(st.scalar, st.line), None, sym)
            elif low in ("fst", "bst"):
                field = low.upper()
                items = _ext_list(ctx, st, field, nl, f"one per link 1..NL = {nl}")
                for j, it in enumerate(items, start=1):
                    ctx.locations[(j, field)] = ctx.loc(it.line, field=field)
                    out["dyn"].setdefault(j, {})[field] = item_expr(ctx, it, j, field)
            elif low in LIMITS:
                items = _ext_list(ctx, st, low, nl, f"one per joint 1..NL = {nl}")
                for j, it in enumerate(items, start=1):
                    lim = out["limits"].setdefault(j, {})
                    if it.text.lower() == "null":
                        lim[low] = None
                        continue
                    ctx.locations[(j, low)] = ctx.loc(it.line, field=low)
                    lim[low] = item_expr(ctx, it, j, low)
            elif _TOOL_KEY.match(key):
                out["tools"].append(_ext_tool(ctx, st, _TOOL_KEY.match(key), nf))
            else:
                raise ctx.error(f"unknown robmod extension {key!r} (known: name, source, "
                                "description, value <symbol>, FST, BST, "
                                f"{', '.join(LIMITS)}, tool <name> frame <j> T)", st.line,
                                field=key)
    return out


def _ext_list(ctx, st, field, n, what):
    if st.items is None:
        raise ctx.error(f"robmod: {field} must be a list {{...}}", st.line, field=field)
    if len(st.items) != n:
        raise ctx.error(f"robmod: list {field} has {len(st.items)} values, expected {n} "
                        f"({what})", st.line, field=field)
    return st.items


def _ext_tool(ctx, st, m, nf):
    raw_name, raw_frame = m.group(1), m.group(2)
    if raw_name.startswith('"'):
        try:
            name = json.loads(raw_name)
        except ValueError:
            raise ctx.error(f"robmod: bad tool name {raw_name}", st.line, field="tools") from None
    else:
        name = raw_name
    frame = small_int(ctx, raw_frame, st.line, None, f"tool {name!r} frame")
    field = f"tool {name}"
    if st.items is None or len(st.items) not in (12, 16):
        n = "no list" if st.items is None else f"{len(st.items)} values"
        raise ctx.error(f"robmod: tool {name!r}: T must be a list of 16 values (4x4 matrix, row "
                        f"by row) or 12 (its first 3 rows), got {n}", st.line, frame, field)
    T = matrix_from_entries(item_expr(ctx, it, frame, field) for it in st.items)
    ctx.locations[(frame, "tools")] = ctx.loc(st.line)
    ctx.locations[(frame, field)] = ctx.loc(st.line)
    return Tool(name=name, frame=frame, T=T)


# ------------------------------------------------------------------------------ writing
def _quoted(text: str) -> str:
    """A JSON string that cannot end the comment it sits in nor hide a '='."""
    return json.dumps(text, ensure_ascii=False).replace("*", "\\u002a").replace("=", "\\u003d")


def extension_lines(robot: Robot, par_name: str) -> list:
    """The ``(* robmod: ... *)`` lines ``robot`` needs (``par_name``: the name written)."""
    lines = []

    def ext(body):
        lines.append(f"(* robmod: {body} *)")

    if par_name != robot.name:
        ext(f"name = {_quoted(robot.name)}")
    for key in ("source", "description"):
        if getattr(robot, key):
            ext(f"{key} = {_quoted(getattr(robot, key))}")
    for key in ("FST", "BST"):
        vals = [getattr(link, key) for link in robot.links]
        if any(v != 0 for v in vals):
            ext(par_list(key, [par_value(v) for v in vals]))
    for key in LIMITS:
        vals = [getattr(link.limits, key) for link in robot.links]
        if any(v is not None for v in vals):
            ext(par_list(key, ["null" if v is None else par_value(v) for v in vals]))
    for tool in robot.tools:
        name = tool.name if NAME_RE.match(tool.name) else _quoted(tool.name)
        ext(f"tool {name} frame {tool.frame} "
            + par_list("T", [par_value(v) for v in matrix_entries(tool.T)]))
    for key, value in robot.values.items():
        ext(f"value {key} = {par_value(value)}")
    return lines


__all__ = []
