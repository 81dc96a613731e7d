"""The text of SYMORO ``.par`` files: comments, ``key = value`` and ``key = {a, b, ...}``
statements with their line numbers, and the values in them.

Comments ``(* ... *)`` nest as in Mathematica.  Lists may span lines and are
split on top-level commas only (``atan2(a, b)`` is one value).  This module
knows nothing of the keys' meaning (see :mod:`robmod.description.io_par`).
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from .expr import as_expr, parse_expression, to_text
from .io_common import IDENT_RE, FileContext

_INT_RE = re.compile(r"^[+-]?[0-9]+$")


# ------------------------------------------------------------------------------ reading
@dataclass
class Item:
    text: str
    line: int


@dataclass
class _Stmt:
    key: str          # as written
    line: int         # line of the key
    items: list | None  # list values (None for a scalar)
    scalar: str | None = None
    scalar_line: int | None = None


class ParContext(FileContext):
    """The text being read (line numbers of positions) and the locations found in it."""

    def __init__(self, text, filename):
        super().__init__(filename)
        self.text = text
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self._starts, pos)


def mask_comments(ctx: ParContext):
    """The text with comments blanked (newlines kept), and the comments' (start, end) spans."""
    text = ctx.text
    out = list(text)
    comments = []
    depth, i, start, n = 0, 0, 0, len(text)
    while i < n:
        two = text[i:i + 2]
        if two == "(*":
            if depth == 0:
                start = i
            depth += 1
            i += 2
            continue
        if two == "*)":
            if depth == 0:
                raise ctx.error("'*)' closes no comment (missing '(*'?)", ctx.line_of(i))
            depth -= 1
            i += 2
            if depth == 0:
                comments.append((start, i))
                for p in range(start, i):
                    if out[p] != "\n":
                        out[p] = " "
            continue
        i += 1
    if depth:
        raise ctx.error("comment '(*' is never closed with '*)'", ctx.line_of(start))
    return "".join(out), comments


def statements(ctx: ParContext, text: str, start: int, end: int, ext: bool = False):
    """Parse ``key = value`` statements in text[start:end] (text and ctx.text aligned)."""
    stmts = []
    i = start
    ws = " \t\r\n\f\v"
    while True:
        while i < end and text[i] in ws:
            i += 1
        if i >= end:
            return stmts
        line = ctx.line_of(i)
        eol = text.find("\n", i, end)
        eol = end if eol < 0 else eol
        eq = text.find("=", i, eol)
        if eq < 0:
            snippet = text[i:eol].strip()[:40]
            raise ctx.error(f"expected 'key = value' or 'key = {{...}}', found {snippet!r}", line)
        key = " ".join(text[i:eq].split())
        if not ext and not IDENT_RE.match(key):
            raise ctx.error(f"{key!r} is not a key name (expected 'key = value')", line)
        if not key:
            raise ctx.error("missing key before '='", line)
        k = eq + 1
        while k < end and text[k] in ws:
            k += 1
        if k < end and text[k] == "{":
            items, i = _list_values(ctx, text, k, end, key, line)
            stmts.append(_Stmt(key, line, items))
            continue
        if k >= end or ctx.line_of(k) != line:
            raise ctx.error(f"missing value after '{key} ='", line, field=key)
        value = text[k:eol].strip()
        if "{" in value or "}" in value:
            raise ctx.error(f"misplaced brace in '{key} = {value}'", line, field=key)
        stmts.append(_Stmt(key, line, None, value, line))
        i = eol


def _list_values(ctx, text, k, end, key, line):
    """Read ``{a,b,...}`` starting at the '{' at k: the items and the position after '}'."""
    items = []
    depth = 0
    item_start = k + 1
    p = k + 1
    while p < end:
        c = text[p]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth < 0:
                raise ctx.error(f"unbalanced '{c}' in list {key}", ctx.line_of(p), field=key)
        elif c == "{":
            raise ctx.error(f"list {key} is not closed with '}}' before the '{{' on line "
                            f"{ctx.line_of(p)}", line, field=key)
        elif c == "," and depth == 0:
            items.append(_item(ctx, text, item_start, p, key, len(items)))
            item_start = p + 1
        elif c == "}":
            if depth:
                raise ctx.error(f"unbalanced '(' in list {key}", ctx.line_of(p), field=key)
            if items or text[item_start:p].strip():
                items.append(_item(ctx, text, item_start, p, key, len(items)))
            break
        p += 1
    else:
        raise ctx.error(f"list {key} opened on line {line} is not closed with '}}'", line,
                        field=key)
    eol = text.find("\n", p, end)
    eol = end if eol < 0 else eol
    rest = text[p + 1:eol].strip()
    if rest:
        raise ctx.error(f"unexpected text {rest[:30]!r} after the '}}' of list {key}",
                        ctx.line_of(p), field=key)
    return items, eol


def _item(ctx, text, a, b, key, index):
    raw = text[a:b]
    stripped = raw.strip()
    if not stripped:
        raise ctx.error(f"empty value at position {index + 1} of list {key}", ctx.line_of(a),
                        field=key)
    offset = len(raw) - len(raw.lstrip())
    return Item(" ".join(stripped.split()), ctx.line_of(a + offset))


def item_expr(ctx: ParContext, item: Item, frame, field):
    """The expression written in ``item`` (restricted parser), located on its line."""
    with ctx.located(item.line, frame, field) as loc:
        return parse_expression(item.text, loc)


#: integers of a .par file (counts, indices, types) have at most this many digits
_MAX_INT_DIGITS = 9


def small_int(ctx: ParContext, text: str, line, frame, field) -> int:
    """An integer of a .par file: digits only (a sign allowed), at most
    :data:`_MAX_INT_DIGITS` of them (Python refuses to convert thousands of digits)."""
    shown = text if len(text) <= 24 else text[:20] + "..."
    if not _INT_RE.match(text):
        raise ctx.error(f"{field} must be an integer, not {shown!r}", line, frame, field)
    if len(text.lstrip("+-")) > _MAX_INT_DIGITS:
        raise ctx.error(f"{field} = {shown} is too large", line, frame, field)
    return int(text)


def item_int(ctx: ParContext, item: Item, frame, field) -> int:
    return small_int(ctx, item.text, item.line, frame, field)


# ------------------------------------------------------------------------------ writing
def par_value(v) -> str:
    """The .par text of a value."""
    return to_text(as_expr(v))


def par_list(key, values) -> str:
    """``key = {a,b,...}`` (values already text)."""
    return f"{key} = {{" + ",".join(values) + "}"


__all__ = []
