"""SYMORO parameter files (``.par``): OpenSYMORO and SYMORO+ styles.

Reading accepts the files written by OpenSYMORO (current and 2013-14 layouts)
and by SYMORO+ (Mathematica era).  The rules (see docs/format.md and the
research note on the format):

* ``(* ... *)`` comments anywhere (trailing, spanning lines; nested as in
  Mathematica).  ``(* Robotname = 'X' *)`` gives the name (else the file name).
* Statements ``key = value``: header scalars ``NL NJ NF Type is_floating
  is_mobile`` and lists ``key = {a,b,...}`` that may span several lines.
  Keys are matched in any case; lists are split on top-level commas only
  (``atan2(a, b)`` is one value); every value goes through the restricted
  expression parser (``Pi`` is pi, ``Sin[x]`` is accepted).
* Geometric lists per frame 1..NF (NF = 2 NJ - NL), dynamic lists per link
  1..NL (``FS``, SYMORO's dry friction, is robmod's Coulomb friction ``FC``),
  joint lists per joint 1..NJ (``eta = 1`` gives the stiffness ``K = k``;
  ``QP QDP GAM`` are state, read and ignored), base vectors ``W0 WP0 V0 VP0``,
  gravity ``G`` and the base transform ``Z`` (16 or 12 entries, row-major).
* What robmod describes and SYMORO does not (Stribeck friction, joint limits,
  tools, numeric values, source/description, a name SYMORO cannot hold) is
  written as extension comments ``(* robmod: ... *)``, which SYMORO ignores.

Writing reproduces OpenSYMORO's writer layout exactly.
"""
from __future__ import annotations

import bisect
import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import sympy as sp

from ..errors import DescriptionError, FileFormatError, Location, RobmodError
from .expr import as_expr, parse_expression, symbol, to_text
from .robot import (FIXED, LIMITS, PRISMATIC, REVOLUTE, WRENCH, Frame, JointLimits,
                    Link, Robot, Tool, make_robot)
from .validate import validate
from .variables import split_variable, variable_aliases, with_variable

# ------------------------------------------------------------------------------ keys
HEADER_KEYS = ("NL", "NJ", "NF", "Type", "is_floating", "is_mobile")
GEO_KEYS = ("ant", "sigma", "b", "d", "r", "gamma", "alpha", "mu", "theta")
#: dynamic keys per link, in the writer's order
DYN_KEYS = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M", "IA", "FV", "FS",
            "FX", "FY", "FZ", "CX", "CY", "CZ")
#: .par dynamic key -> robmod Link field (FS, "frottement sec", is the Coulomb friction)
PAR_TO_LINK = {k: k for k in DYN_KEYS}
PAR_TO_LINK["FS"] = "FC"
JOINT_KEYS = ("eta", "k", "QP", "QDP", "GAM")
BASE_KEYS = ("W0", "WP0", "V0", "VP0")
LIST_KEYS = GEO_KEYS + DYN_KEYS + JOINT_KEYS + BASE_KEYS + ("G", "Z")
ALL_KEYS = HEADER_KEYS + LIST_KEYS
_CANON = {k.lower(): k for k in ALL_KEYS}

MAX_JOINTS = 1000
TYPES = {"serial": 0, "tree": 1, "closed": 2}
_INT = re.compile(r"^[+-]?[0-9]+$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME_OK = re.compile(r"^[A-Za-z0-9_.\-]+$")
_ROBOTNAME = re.compile(r"^\s*robotname\s*=\s*(?:'([^']*)'|\"([^\"]*)\")\s*$", re.I | re.S)
_EXT = re.compile(r"\s*robmod\s*:", re.I)
_TOOL_KEY = re.compile(r'^tool\s+("(?:[^"\\]|\\.)*"|\S+)\s+frame\s+(\S+)\s+T$', re.I | re.S)
_VALUE_KEY = re.compile(r"^value\s+(\S+)$", re.I)


# ------------------------------------------------------------------------------ lexing
@dataclass
class _Item:
    text: str
    line: int


@dataclass
class _Stmt:
    key: str          # as written
    line: int         # line of the key
    items: list | None  # list values (None for a scalar)
    scalar: str | None = None
    scalar_line: int | None = None


class _Ctx:
    def __init__(self, text, filename):
        self.text = text
        self.file = filename
        self.locations = {}
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self._starts, pos)

    def loc(self, line=None, frame=None, field=None):
        return Location(file=self.file, line=line, frame=frame, field=field)

    def error(self, msg, line=None, frame=None, field=None):
        return FileFormatError(msg, self.loc(line, frame, field))


def _mask_comments(ctx: _Ctx):
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


def _statements(ctx: _Ctx, text: str, start: int, end: int, ext: bool = False):
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
        if not ext and not _IDENT.match(key):
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
    return _Item(" ".join(stripped.split()), ctx.line_of(a + offset))


# ------------------------------------------------------------------------------ reading
def read_par(path) -> Robot:
    """Read a robot from a SYMORO ``.par`` file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        try:
            text = path.read_text(encoding="latin-1")  # SYMORO+ banners hold accented letters
        except OSError as e:
            raise FileFormatError(f"cannot read file: {e}", Location(file=str(path))) from None
    except OSError as e:
        raise FileFormatError(f"cannot read file: {e}", Location(file=str(path))) from None
    return loads_par(text, str(path))


def loads_par(text: str, filename: str = "<string>") -> Robot:
    """Read a robot from the text of a ``.par`` file."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")
    ctx = _Ctx(text, filename)
    masked, comments = _mask_comments(ctx)
    stmts = _statements(ctx, masked, 0, len(masked))
    by_key = {}
    for st in stmts:
        canon = _CANON.get(st.key.lower())
        if canon is None:
            close = difflib.get_close_matches(st.key.lower(), list(_CANON), n=1, cutoff=0.6)
            hint = f" (did you mean {_CANON[close[0]]!r}?)" if close else ""
            raise ctx.error(f"unknown key {st.key!r}{hint}; .par keys are: "
                            f"{', '.join(ALL_KEYS)}", st.line, field=st.key)
        if canon in by_key:
            raise ctx.error(f"duplicate key {st.key!r} (already given on line "
                            f"{by_key[canon].line})", st.line, field=canon)
        if canon in HEADER_KEYS and st.items is not None:
            raise ctx.error(f"{canon} must be a single value, not a list", st.line, field=canon)
        if canon in LIST_KEYS and st.items is None:
            raise ctx.error(f"{canon} must be a list {{...}}, not {st.scalar!r}", st.line,
                            field=canon)
        by_key[canon] = st
    return _robot(ctx, by_key, comments)


def _header_int(ctx, by_key, key, required):
    st = by_key.get(key)
    if st is None:
        if required:
            raise ctx.error(f"the file has no {key} line ({key} = <integer>)", 1, field=key)
        return None
    if not _INT.match(st.scalar):
        raise ctx.error(f"{key} must be an integer, not {st.scalar!r}", st.line, field=key)
    return int(st.scalar)


def _header_bool(ctx, by_key, key):
    st = by_key.get(key)
    if st is None:
        return False
    v = st.scalar.lower()
    if v in ("true", "1"):
        raise ctx.error(f"{key} = {st.scalar}: floating or mobile base not supported yet",
                        st.line, field=key)
    if v not in ("false", "0"):
        raise ctx.error(f"{key} must be True or False, not {st.scalar!r}", st.line, field=key)
    return False


def _items(ctx, by_key, key, n, what):
    """The items of list ``key`` (None if absent), checking the length."""
    st = by_key.get(key)
    if st is None:
        return None
    if len(st.items) != n:
        raise ctx.error(f"list {key} has {len(st.items)} values, expected {n} ({what})", st.line,
                        field=key)
    return st.items


def _expr(ctx, item, frame, field):
    try:
        return parse_expression(item.text, ctx.loc(item.line, frame, field))
    except RobmodError as e:
        raise e.at(ctx.loc(item.line, frame, field)) from None


def _int_item(ctx, item, frame, field):
    if not _INT.match(item.text):
        raise ctx.error(f"{field} must be an integer, not {item.text!r}", item.line, frame, field)
    return int(item.text)


def _robot(ctx: _Ctx, by_key, comments) -> Robot:
    nl = _header_int(ctx, by_key, "NL", True)
    nj = _header_int(ctx, by_key, "NJ", True)
    nl_line, nj_line = by_key["NL"].line, by_key["NJ"].line
    ctx.locations[(None, "NL")] = ctx.loc(nl_line, field="NL")
    ctx.locations[(None, "NF")] = ctx.loc(by_key["NF"].line if "NF" in by_key else nj_line,
                                          field="NF")
    if nl < 1:
        raise ctx.error(f"NL = {nl}: a robot needs at least one moving link", nl_line, field="NL")
    if nj < nl:
        raise ctx.error(f"NJ = {nj} must be at least NL = {nl} (NJ - NL is the number of "
                        "closed loops)", nj_line, field="NJ")
    if nj > MAX_JOINTS:
        raise ctx.error(f"NJ = {nj} is too large (robmod reads at most {MAX_JOINTS} joints)",
                        nj_line, field="NJ")
    nf = 2 * nj - nl
    for key in ("is_floating", "is_mobile"):
        _header_bool(ctx, by_key, key)
    nf_header = _header_int(ctx, by_key, "NF", False)
    if nf_header is not None and nf_header != nf:
        lengths = {len(by_key[k].items) for k in GEO_KEYS if k in by_key}
        if lengths != {nf}:
            raise ctx.error(f"NF = {nf_header} but NF must be 2*NJ - NL = {nf} "
                            f"(NL = {nl}, NJ = {nj})", by_key["NF"].line, field="NF")
        # the geometric lists have 2*NJ - NL entries: a wrong NF (seen in real files) is ignored
    typ = _header_int(ctx, by_key, "Type", False)
    if typ is not None and typ not in (0, 1, 2):
        raise ctx.error(f"Type must be 0 (simple), 1 (tree) or 2 (closed loop), not {typ}",
                        by_key["Type"].line, field="Type")
    # Type is informational: robmod derives the structure from NL, NJ and ant.

    frames = _frames(ctx, by_key, nl, nj, nf)
    link_vals = _links(ctx, by_key, nl, nj)
    kw = _base(ctx, by_key)
    ext = _extensions(ctx, comments, nl, nf)
    links = []
    for j in range(1, nl + 1):
        vals = {**link_vals[j], **ext["dyn"].get(j, {})}
        links.append(Link(j=j, **vals, limits=JointLimits(**ext["limits"].get(j, {}))))
    name = ext["name"] or _file_name(ctx, comments)
    robot = make_robot(name, frames, links, n_links=nl, tools=ext["tools"],
                       values=ext["values"], source=ext["source"],
                       description=ext["description"], validate=False, **kw)
    try:
        validate(robot, ctx.locations)
    except RobmodError as e:
        raise e.at(Location(file=ctx.file)) from None
    return robot


def _sanitize(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", name.strip())


def _file_name(ctx, comments) -> str:
    for a, b in comments:
        m = _ROBOTNAME.match(ctx.text[a + 2:b - 2])
        if m:
            name = _sanitize(m.group(1) if m.group(1) is not None else m.group(2))
            if name:
                return name
    if ctx.file.startswith("<"):
        return "robot"
    return _sanitize(Path(ctx.file).stem) or "robot"


def _frames(ctx, by_key, nl, nj, nf):
    what = f"one per frame 1..NF, NF = 2*NJ - NL = {nf}"
    cols = {k: _items(ctx, by_key, k, nf, what) for k in GEO_KEYS}
    frames = []
    for j in range(1, nf + 1):
        def item(k):
            return None if cols[k] is None else cols[k][j - 1]

        for k in GEO_KEYS:
            it = item(k)
            line = it.line if it is not None else None
            ctx.locations[(j, k)] = ctx.loc(line, field=k)
        first = next((item(k) for k in GEO_KEYS if item(k) is not None), None)
        ctx.locations[(j, None)] = ctx.loc(first.line if first else None)
        ant = _int_item(ctx, item("ant"), j, "ant") if item("ant") else j - 1
        sigma = _int_item(ctx, item("sigma"), j, "sigma") if item("sigma") else REVOLUTE
        if sigma not in (0, 1, 2):
            raise ctx.error(f"sigma must be 0 (revolute), 1 (prismatic) or 2 (fixed), not "
                            f"{sigma}", item("sigma").line, j, "sigma")
        if item("mu"):
            mu = _int_item(ctx, item("mu"), j, "mu")
        else:
            mu = 0 if sigma == FIXED else 1
        vals = {}
        for k in ("gamma", "b", "alpha", "d", "theta", "r"):
            it = item(k)
            if it is None:
                # a missing list takes SYMORO's default: theta = thj, everything else 0
                v = symbol(f"th{j}") if k == "theta" else sp.Integer(0)
            else:
                v = _expr(ctx, it, j, k)
            if k in ("theta", "r"):
                v = _split(ctx, v, j, sigma, k, it.line if it else None, missing=it is None)
            vals[k] = v
        frames.append(Frame(j=j, ant=ant, sigma=sigma, mu=mu, **vals))
    return frames


def _split(ctx, v, j, sigma, column, line, missing=False):
    var_column = {REVOLUTE: "theta", PRISMATIC: "r"}.get(sigma)
    loc = ctx.loc(line, j, column)
    if column == var_column == "theta":
        # SYMORO+ names the revolute variables t1, t2, ...
        names = {s.name for s in v.free_symbols}
        if f"t{j}" in names and not names & set(variable_aliases(j, sigma)):
            v = v.xreplace({symbol(f"t{j}"): symbol(f"th{j}")})
    try:
        return split_variable(v, j, sigma, column, loc)
    except DescriptionError as e:
        msg = e.message
        if column != var_column:
            msg += (f"; SYMORO writes th{j} in every frame by default: for a "
                    f"{'prismatic' if sigma == PRISMATIC else 'fixed'} frame give the constant "
                    f"value of {column} (usually 0)")
        if missing:
            msg += f" (the file has no {column} list: SYMORO's default {column} is {v})"
        raise DescriptionError(msg, e.location.merged(loc)) from None


def _links(ctx, by_key, nl, nj):
    what = f"one per link 1..NL = {nl}"
    cols = {k: _items(ctx, by_key, k, nl, what) for k in DYN_KEYS}
    jwhat = f"one per joint 1..NJ = {nj}"
    jcols = {k: _items(ctx, by_key, k, nj, jwhat) for k in JOINT_KEYS}
    links = {}
    for j in range(1, nl + 1):
        vals = links[j] = {}
        for k in DYN_KEYS:
            field = PAR_TO_LINK[k]
            it = None if cols[k] is None else cols[k][j - 1]
            if it is None:
                # OpenSYMORO's defaults: symbolic parameters, wrench only on the last link
                if k in WRENCH and j != nl:
                    vals[field] = sp.Integer(0)
                else:
                    vals[field] = symbol(f"{k}{j}")
                continue
            ctx.locations[(j, field)] = ctx.loc(it.line, field=k)
            vals[field] = _expr(ctx, it, j, k)
    for k in ("QP", "QDP", "GAM"):  # joint state: parsed (so it is valid) and ignored
        for j, it in enumerate(jcols[k] or (), start=1):
            _expr(ctx, it, j, k)
    for j in range(1, nj + 1):
        eta_it = None if jcols["eta"] is None else jcols["eta"][j - 1]
        k_it = None if jcols["k"] is None else jcols["k"][j - 1]
        eta = _int_item(ctx, eta_it, j, "eta") if eta_it else 0
        if eta not in (0, 1):
            raise ctx.error(f"eta must be 0 (rigid) or 1 (flexible joint), not {eta}",
                            eta_it.line, j, "eta")
        k = _expr(ctx, k_it, j, "k") if k_it else sp.Integer(0)
        if j > nl:
            if eta or k != 0:
                it = eta_it if eta else k_it
                raise ctx.error(f"joint {j} is a cut joint (NL < j <= NJ): robmod does not "
                                "model elastic cut joints (eta and k must be 0)", it.line, j,
                                "eta" if eta else "k")
            continue
        if eta:
            ctx.locations[(j, "K")] = ctx.loc(k_it.line if k_it else eta_it.line, field="k")
            links[j]["K"] = k
        elif k != 0:
            raise ctx.error(f"k = {k_it.text} for a rigid joint (eta = 0): set eta = 1 for a "
                            "flexible joint, or k = 0", k_it.line, j, "k")
    return links


def _base(ctx, by_key):
    kw = {}
    for key, field in (("W0", "W0"), ("WP0", "WP0"), ("V0", "V0"), ("VP0", "VP0"),
                       ("G", "gravity")):
        items = _items(ctx, by_key, key, 3, "x, y, z components")
        if items is not None:
            ctx.locations[(None, field)] = ctx.loc(by_key[key].line, field=key)
            kw[field] = tuple(_expr(ctx, it, None, key) for it in items)
    st = by_key.get("Z")
    if st is not None:
        if len(st.items) not in (12, 16):
            raise ctx.error(f"list Z has {len(st.items)} values, expected 16 (the 4x4 matrix "
                            "fT0, row by row) or 12 (its first 3 rows)", st.line, field="Z")
        vals = [_expr(ctx, it, None, "Z") for it in st.items]
        if len(vals) == 12:
            vals += [sp.Integer(0)] * 3 + [sp.Integer(1)]
        ctx.locations[(None, "Z")] = ctx.loc(st.line, field="Z")
        kw["base"] = sp.ImmutableMatrix(4, 4, vals)
    return kw


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


def _extensions(ctx, comments, nl, nf):
    """Data in ``(* robmod: ... *)`` comments."""
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
        for st in _statements(ctx, text, m.end(), body_b, ext=True):
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
                if not _IDENT.match(sym) or sym.startswith("__"):
                    raise ctx.error(f"robmod: value {sym!r}: not a symbol name", st.line,
                                    field="values")
                if st.items is not None:
                    raise ctx.error(f"robmod: value {sym} must be a single value", st.line,
                                    field=sym)
                out["values"][sym] = _expr(ctx, _Item(st.scalar, st.line), None, sym)
            elif low in ("fst", "bst"):
                field = low.upper()
                items = _ext_list(ctx, st, field, nl, f"one per link 1..NL = {nl}")
                for j, it in enumerate(items, start=1):
                    ctx.locations[(j, field)] = ctx.loc(it.line, field=field)
                    out["dyn"].setdefault(j, {})[field] = _expr(ctx, it, j, field)
            elif low in LIMITS:
                items = _ext_list(ctx, st, low, nl, f"one per joint 1..NL = {nl}")
                for j, it in enumerate(items, start=1):
                    lim = out["limits"].setdefault(j, {})
                    if it.text.lower() == "null":
                        lim[low] = None
                        continue
                    ctx.locations[(j, low)] = ctx.loc(it.line, field=low)
                    lim[low] = _expr(ctx, it, j, low)
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
    if not _INT.match(raw_frame):
        raise ctx.error(f"robmod: tool {name!r}: frame must be an integer, not {raw_frame!r}",
                        st.line, field="tools")
    frame = int(raw_frame)
    field = f"tool {name}"
    if st.items is None or len(st.items) not in (12, 16):
        n = "no list" if st.items is None else f"{len(st.items)} values"
        raise ctx.error(f"robmod: tool {name!r}: T must be a list of 16 values (4x4 matrix, row "
                        f"by row) or 12 (its first 3 rows), got {n}", st.line, frame, field)
    vals = [_expr(ctx, it, frame, field) for it in st.items]
    if len(vals) == 12:
        vals += [sp.Integer(0)] * 3 + [sp.Integer(1)]
    ctx.locations[(frame, "tools")] = ctx.loc(st.line)
    ctx.locations[(frame, field)] = ctx.loc(st.line)
    return Tool(name=name, frame=frame, T=sp.ImmutableMatrix(4, 4, vals))


# ------------------------------------------------------------------------------ writing
def _t(v) -> str:
    return to_text(as_expr(v))


def _list(key, values) -> str:
    return f"{key} = {{" + ",".join(values) + "}"


def _quoted(text: str) -> str:
    """A JSON string that cannot end the comment it sits in nor hide a '='."""
    return json.dumps(text, ensure_ascii=False).replace("*", "\\u002a").replace("=", "\\u003d")


def dumps_par(robot: Robot) -> str:
    """The OpenSYMORO ``.par`` text of ``robot`` (plus robmod extension comments if needed)."""
    nl, nj, nf = robot.n_links, robot.n_joints, robot.n_frames
    frames, links = robot.frames, robot.links
    par_name = _sanitize(robot.name) or "robot"
    out = [f"(* Robotname = '{par_name}' *)", f"NL = {nl}", f"NJ = {nj}", f"NF = {nf}",
           f"Type = {TYPES[robot.structure]}", "is_floating = False", "is_mobile = False", "",
           "(* Geometric parameters *)"]
    for key in GEO_KEYS:
        if key in ("ant", "sigma", "mu"):
            vals = [str(getattr(f, key)) for f in frames]
        elif key in ("theta", "r"):
            vals = [_t(with_variable(f, key, "symoro")) for f in frames]
        else:
            vals = [_t(getattr(f, key)) for f in frames]
        out.append(_list(key, vals))
    out += ["", "(* Dynamic parameters and external forces *)"]
    for key in DYN_KEYS:
        out.append(_list(key, [_t(getattr(link, PAR_TO_LINK[key])) for link in links]))
    out += ["", "(* Joint parameters *)"]
    joints = range(1, nj + 1)
    kvals = [links[j - 1].K if j <= nl else None for j in joints]
    out.append(_list("eta", ["0" if k is None else "1" for k in kvals]))
    out.append(_list("k", ["0" if k is None else _t(k) for k in kvals]))
    for key in ("QP", "QDP", "GAM"):
        out.append(_list(key, ["0" if robot.frame(j).sigma == FIXED else f"{key}{j}"
                               for j in joints]))
    out += ["", "(* Velocity and acceleration of the base *)"]
    for key in BASE_KEYS:
        out.append(_list(key, [_t(v) for v in getattr(robot, key)]))
    out += ["", "(* Acceleration of gravity *)", _list("G", [_t(v) for v in robot.gravity]),
            "", "(* Transformation of 0 frame position fT0 *)",
            _list("Z", [_t(v) for v in _entries(robot.base)]), ""]
    ext = _extension_lines(robot, par_name)
    if ext:
        out += ["(* robmod extensions (SYMORO ignores comments) *)"] + ext + [""]
    out.append("(* End of definition *)")
    return "\n".join(out) + "\n"


def _entries(m) -> list:
    return [m[i, k] for i in range(4) for k in range(4)]


def _extension_lines(robot: Robot, par_name: str) -> list:
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
            ext(_list(key, [_t(v) for v in vals]))
    for key in LIMITS:
        vals = [getattr(link.limits, key) for link in robot.links]
        if any(v is not None for v in vals):
            ext(_list(key, ["null" if v is None else _t(v) for v in vals]))
    for tool in robot.tools:
        name = tool.name if _NAME_OK.match(tool.name) else _quoted(tool.name)
        ext(f"tool {name} frame {tool.frame} " + _list("T", [_t(v) for v in _entries(tool.T)]))
    for key, value in robot.values.items():
        ext(f"value {key} = {_t(value)}")
    return lines


def write_par(robot: Robot, path) -> None:
    """Write ``robot`` to ``path`` as a .par file (all-or-nothing)."""
    from .files import write_text_atomic

    write_text_atomic(path, dumps_par(robot))


__all__ = ["read_par", "loads_par", "dumps_par", "write_par"]
