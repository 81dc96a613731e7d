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

The text itself (comments, statements, lists) is read by
:mod:`~robmod.description.par_syntax`; the ``robmod:`` extension comments by
:mod:`~robmod.description.par_extensions`.  This module maps the keys to and
from a :class:`Robot`.
"""
from __future__ import annotations

import re
from pathlib import Path

import sympy as sp

from ..arguments import did_you_mean, keyword_options, path_argument, text_argument
from ..errors import DescriptionError
from .expr import symbol
from .io_common import read_text, sanitize_name, write_text_atomic
from .par_extensions import extension_lines, read_extensions
from .link import INERTIAL
from .par_syntax import (ParContext, item_expr, item_int, mask_comments, par_list,
                         small_int,
                         par_value, statements)
from .build import make_robot
from .robot import FIXED, PRISMATIC, REVOLUTE, WRENCH, Frame, JointLimits, Link, Robot
from .transforms_io import matrix_entries, matrix_from_entries
from .validation import validate
from .variables import split_variable, variable_aliases, with_variable

# ------------------------------------------------------------------------------ keys
_HEADER_KEYS = ("NL", "NJ", "NF", "Type", "is_floating", "is_mobile")
_GEO_KEYS = ("ant", "sigma", "b", "d", "r", "gamma", "alpha", "mu", "theta")
#: dynamic keys per link, in the writer's order
_DYN_KEYS = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M", "IA", "FV", "FS",
            "FX", "FY", "FZ", "CX", "CY", "CZ")
#: .par dynamic key -> robmod Link field (FS, "frottement sec", is the Coulomb friction)
_PAR_TO_LINK = {k: k for k in _DYN_KEYS}
_PAR_TO_LINK["FS"] = "FC"
_JOINT_KEYS = ("eta", "k", "QP", "QDP", "GAM")
_BASE_KEYS = ("W0", "WP0", "V0", "VP0")
_LIST_KEYS = _GEO_KEYS + _DYN_KEYS + _JOINT_KEYS + _BASE_KEYS + ("G", "Z")
_ALL_KEYS = _HEADER_KEYS + _LIST_KEYS
_CANON = {k.lower(): k for k in _ALL_KEYS}

_MAX_JOINTS = 1000
_TYPES = {"serial": 0, "tree": 1, "closed": 2}
_ROBOTNAME = re.compile(r"^\s*robotname\s*=\s*(?:'([^']*)'|\"([^\"]*)\")\s*$", re.I | re.S)


# ------------------------------------------------------------------------------ reading
@keyword_options()
def read_par(path, *, inertia_check: str = "error") -> Robot:
    """Read a robot from a SYMORO ``.par`` file (``inertia_check``: see
    :func:`~robmod.description.files.read_robot`)."""
    path = Path(path_argument(path))
    text = read_text(path, "latin-1")  # SYMORO+ banners hold accented letters
    return loads_par(text, str(path), inertia_check=inertia_check)


@keyword_options()
def loads_par(text: str, filename: str = "<string>", *, inertia_check: str = "error") -> Robot:
    """Read a robot from the text of a ``.par`` file."""
    text = text_argument(text).replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")
    ctx = ParContext(text, filename)
    masked, comments = mask_comments(ctx)
    stmts = statements(ctx, masked, 0, len(masked))
    by_key = {}
    for st in stmts:
        canon = _CANON.get(st.key.lower())
        if canon is None:
            raise ctx.error(f"unknown key {st.key!r}{did_you_mean(st.key, _ALL_KEYS)}; .par keys "
                            f"are: {', '.join(_ALL_KEYS)}", st.line, field=st.key)
        if canon in by_key:
            raise ctx.error(f"duplicate key {st.key!r} (already given on line "
                            f"{by_key[canon].line})", st.line, field=canon)
        if canon in _HEADER_KEYS and st.items is not None:
            raise ctx.error(f"{canon} must be a single value, not a list", st.line, field=canon)
        if canon in _LIST_KEYS and st.items is None:
            raise ctx.error(f"{canon} must be a list {{...}}, not {st.scalar!r}", st.line,
                            field=canon)
        by_key[canon] = st
    return _robot(ctx, by_key, comments, inertia_check)


def _header_int(ctx, by_key, key, required):
    st = by_key.get(key)
    if st is None:
        if required:
            raise ctx.error(f"the file has no {key} line ({key} = <integer>)", 1, field=key)
        return None
    return small_int(ctx, st.scalar, st.line, None, key)


def _header_bool(ctx, by_key, key):
    st = by_key.get(key)
    if st is None:
        return False
    v = st.scalar.lower()
    if v not in ("false", "0", "true", "1"):
        raise ctx.error(f"{key} must be True or False, not {st.scalar!r}", st.line, field=key)
    return v in ("true", "1")


def _items(ctx, by_key, key, n, what):
    """The items of list ``key`` (None if absent), checking the length."""
    st = by_key.get(key)
    if st is None:
        return None
    if len(st.items) != n:
        raise ctx.error(f"list {key} has {len(st.items)} values, expected {n} ({what})", st.line,
                        field=key)
    return st.items


def _robot(ctx: ParContext, by_key, comments, inertia_check: str = "error") -> Robot:
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
    if nj > _MAX_JOINTS:
        raise ctx.error(f"NJ = {nj} is too large (robmod reads at most {_MAX_JOINTS} joints)",
                        nj_line, field="NJ")
    nf = 2 * nj - nl
    floating, mobile = (_header_bool(ctx, by_key, key) for key in ("is_floating", "is_mobile"))
    if floating and mobile:
        raise ctx.error("is_floating and is_mobile are both True: a base is either floating "
                        "(free) or mobile (its motion given)", by_key["is_mobile"].line,
                        field="is_mobile")
    kind = "floating" if floating else "mobile" if mobile else "fixed"
    nf_header = _header_int(ctx, by_key, "NF", False)
    if nf_header is not None and nf_header != nf:
        lengths = {len(by_key[k].items) for k in _GEO_KEYS if k in by_key}
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
    link_vals, base_link = _links(ctx, by_key, nl, nj, kind)
    kw = _base(ctx, by_key)
    if kind != "fixed" and kw.get("Z") is not None and kw["Z"].free_symbols:
        del kw["Z"]   # SYMORO's symbols of the base pose: robmod's mobile or floating configuration
    ext = read_extensions(ctx, comments, nl, nf)
    links = []
    for j in range(1, nl + 1):
        vals = {**link_vals[j], **ext["dyn"].get(j, {})}
        links.append(Link(j=j, **vals, limits=JointLimits(**ext["limits"].get(j, {}))))
    name = ext["name"] or _file_name(ctx, comments)
    robot = make_robot(name, frames, links, n_links=nl, tools=ext["tools"],
                       values=ext["values"], source=ext["source"],
                       description=ext["description"], validate=False, base=kind,
                       base_link=base_link, inertia_check=inertia_check, **kw)
    with ctx.located():
        validate(robot, ctx.locations)
    return robot


def _file_name(ctx, comments) -> str:
    for a, b in comments:
        m = _ROBOTNAME.match(ctx.text[a + 2:b - 2])
        if m:
            name = sanitize_name((m.group(1) if m.group(1) is not None else m.group(2)).strip())
            if name:
                return name
    if ctx.file.startswith("<"):
        return "robot"
    return sanitize_name(Path(ctx.file).stem.strip()) or "robot"


def _frames(ctx, by_key, nl, nj, nf):
    what = f"one per frame 1..NF, NF = 2*NJ - NL = {nf}"
    cols = {k: _items(ctx, by_key, k, nf, what) for k in _GEO_KEYS}
    frames = []
    for j in range(1, nf + 1):
        def item(k):
            return None if cols[k] is None else cols[k][j - 1]

        for k in _GEO_KEYS:
            it = item(k)
            line = it.line if it is not None else None
            ctx.locations[(j, k)] = ctx.loc(line, field=k)
        first = next((item(k) for k in _GEO_KEYS if item(k) is not None), None)
        ctx.locations[(j, None)] = ctx.loc(first.line if first else None)
        ant = item_int(ctx, item("ant"), j, "ant") if item("ant") else j - 1
        sigma = item_int(ctx, item("sigma"), j, "sigma") if item("sigma") else REVOLUTE
        if sigma not in (0, 1, 2):
            raise ctx.error(f"sigma must be 0 (revolute), 1 (prismatic) or 2 (fixed), not "
                            f"{sigma}", item("sigma").line, j, "sigma")
        if item("mu"):
            mu = item_int(ctx, item("mu"), j, "mu")
        else:
            mu = 0 if sigma == FIXED else 1
        vals = {}
        for k in ("gamma", "b", "alpha", "d", "theta", "r"):
            it = item(k)
            if it is None:
                # a missing list takes SYMORO's default: theta = thj, everything else 0
                v = symbol(f"th{j}") if k == "theta" else sp.Integer(0)
            else:
                v = item_expr(ctx, it, j, k)
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


def _links(ctx, by_key, nl, nj, kind="fixed"):
    """({j: link values} of links 1..NL, link 0 or None).  A mobile or floating base
    (SYMORO's is_mobile, is_floating) has NL + 1 values per dynamic list, link 0 first."""
    what = f"one per link 1..NL = {nl}"
    base = {}
    if kind != "fixed":
        what = f"one per link 0..NL = {nl} (link 0 first: the {kind} base)"
        for k in _DYN_KEYS:
            st = by_key.get(k)
            if st is None:      # SYMORO's default: symbolic inertial parameters XX0 .. M0
                if k in INERTIAL:
                    base[k] = symbol(f"{k}0")
                continue
            if len(st.items) != nl + 1:
                raise ctx.error(f"list {k} has {len(st.items)} values, expected {nl + 1} "
                                f"({what})", st.line, field=k)
            it, st.items = st.items[0], st.items[1:]
            base[_PAR_TO_LINK[k]] = item_expr(ctx, it, 0, k)
        base = {k: v for k, v in base.items() if k not in ("IA", "FV", "FC")}
    cols = {k: _items(ctx, by_key, k, nl, what) for k in _DYN_KEYS}
    jwhat = f"one per joint 1..NJ = {nj}"
    jcols = {k: _items(ctx, by_key, k, nj, jwhat) for k in _JOINT_KEYS}
    links = {}
    for j in range(1, nl + 1):
        vals = links[j] = {}
        for k in _DYN_KEYS:
            field = _PAR_TO_LINK[k]
            it = None if cols[k] is None else cols[k][j - 1]
            if it is None:
                # OpenSYMORO's defaults: symbolic parameters, wrench only on the last link
                if k in WRENCH and j != nl:
                    vals[field] = sp.Integer(0)
                else:
                    vals[field] = symbol(f"{k}{j}")
                continue
            ctx.locations[(j, field)] = ctx.loc(it.line, field=k)
            vals[field] = item_expr(ctx, it, j, k)
    for k in ("QP", "QDP", "GAM"):  # joint state: parsed (so it is valid) and ignored
        for j, it in enumerate(jcols[k] or (), start=1):
            item_expr(ctx, it, j, k)
    for j in range(1, nj + 1):
        eta_it = None if jcols["eta"] is None else jcols["eta"][j - 1]
        k_it = None if jcols["k"] is None else jcols["k"][j - 1]
        eta = item_int(ctx, eta_it, j, "eta") if eta_it else 0
        if eta not in (0, 1):
            raise ctx.error(f"eta must be 0 (rigid) or 1 (flexible joint), not {eta}",
                            eta_it.line, j, "eta")
        k = item_expr(ctx, k_it, j, "k") if k_it else sp.Integer(0)
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
    return links, (Link(j=0, **base) if kind != "fixed" else None)


def _base(ctx, by_key):
    kw = {}
    for key, field in (("W0", "W0"), ("WP0", "WP0"), ("V0", "V0"), ("VP0", "VP0"),
                       ("G", "gravity")):
        items = _items(ctx, by_key, key, 3, "x, y, z components")
        if items is not None:
            ctx.locations[(None, field)] = ctx.loc(by_key[key].line, field=key)
            kw[field] = tuple(item_expr(ctx, it, None, key) for it in items)
    st = by_key.get("Z")
    if st is not None:
        if len(st.items) not in (12, 16):
            raise ctx.error(f"list Z has {len(st.items)} values, expected 16 (the 4x4 matrix "
                            "fT0, row by row) or 12 (its first 3 rows)", st.line, field="Z")
        vals = [item_expr(ctx, it, None, "Z") for it in st.items]
        ctx.locations[(None, "Z")] = ctx.loc(st.line, field="Z")
        kw["Z"] = matrix_from_entries(vals)
    return kw


# ------------------------------------------------------------------------------ writing
@keyword_options()
def dumps_par(robot: Robot) -> str:
    """The OpenSYMORO ``.par`` text of ``robot`` (plus robmod extension comments if needed)."""
    nl, nj, nf = robot.n_links, robot.n_joints, robot.n_frames
    frames, links = robot.frames, robot.links
    par_name = sanitize_name(robot.name.strip()) or "robot"
    out = [f"(* Robotname = '{par_name}' *)", f"NL = {nl}", f"NJ = {nj}", f"NF = {nf}",
           f"Type = {_TYPES[robot.structure]}",
           f"is_floating = {robot.base_kind == 'floating'}",
           f"is_mobile = {robot.base_kind == 'mobile'}", "",
           "(* Geometric parameters *)"]
    for key in _GEO_KEYS:
        if key in ("ant", "sigma", "mu"):
            vals = [str(getattr(f, key)) for f in frames]
        elif key in ("theta", "r"):
            vals = [par_value(with_variable(f, key, "symoro")) for f in frames]
        else:
            vals = [par_value(getattr(f, key)) for f in frames]
        out.append(par_list(key, vals))
    out += ["", "(* Dynamic parameters and external forces *)"]
    dyn_links = links if robot.base_kind == "fixed" else (robot.base_link,) + links
    for key in _DYN_KEYS:
        out.append(par_list(key, [par_value(getattr(link, _PAR_TO_LINK[key]))
                                  for link in dyn_links]))
    out += ["", "(* Joint parameters *)"]
    joints = range(1, nj + 1)
    kvals = [links[j - 1].K if j <= nl else None for j in joints]
    out.append(par_list("eta", ["0" if k is None else "1" for k in kvals]))
    out.append(par_list("k", ["0" if k is None else par_value(k) for k in kvals]))
    for key in ("QP", "QDP", "GAM"):
        out.append(par_list(key, ["0" if robot.frame(j).sigma == FIXED else f"{key}{j}"
                                  for j in joints]))
    out += ["", "(* Velocity and acceleration of the base *)"]
    for key in _BASE_KEYS:
        out.append(par_list(key, [par_value(v) for v in getattr(robot, key)]))
    out += ["", "(* Acceleration of gravity *)",
            par_list("G", [par_value(v) for v in robot.gravity]),
            "", "(* Transformation of 0 frame position fT0 *)",
            par_list("Z", [par_value(v) for v in matrix_entries(robot.Z)]), ""]
    ext = extension_lines(robot, par_name)
    if ext:
        out += ["(* robmod extensions (SYMORO ignores comments) *)"] + ext + [""]
    out.append("(* End of definition *)")
    return "\n".join(out) + "\n"


def write_par(robot: Robot, path) -> None:
    """Write ``robot`` to ``path`` as a .par file (all-or-nothing)."""
    write_text_atomic(path, dumps_par(robot))


__all__ = ["read_par", "loads_par", "dumps_par", "write_par"]
