"""Building a validated :class:`~robmod.description.robot.Robot` from plain data."""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

import sympy as sp

from ..arguments import keyword_options, records
from ..errors import ArgumentError
from .base import check_kind
from .expr import as_expr
from .robot import GEOMETRIC, IDENTITY4, Frame, Link, Robot, vec3


def _inertia_check_option(value) -> str:
    """``value`` if it is "error" or "warn", else an ArgumentError."""
    if value not in ("error", "warn"):
        raise ArgumentError(f"inertia_check must be 'error' or 'warn', got {value!r}")
    return value


@keyword_options()
def make_robot(name: str, frames, links=None, *, n_links: int | None = None, Z=None,
               tools=(), gravity=None, W0=None, WP0=None, V0=None, VP0=None, values=None,
               source: str = "", description: str = "", validate: bool = True,
               frame_names=None, mimic=None, base: str = "fixed",
               base_link=None, inertia_check: str = "error") -> Robot:
    """Build and validate a :class:`Robot`.

    ``frames`` is a sequence of :class:`Frame` or of dicts with Frame's fields;
    ``links`` a sequence of :class:`Link` (default: symbolic parameters for
    every link).  ``n_links`` defaults to the number of frames (no loops).  ``Z``: Z = fT0,
    the pose of frame 0 in the world (a fixed base); ``gravity``: the world's gravity (the
    models take it in frame 0, 0R_f g: an arm on a wall is a turned Z, not a turned gravity).
    ``base``: the base's kind, ``"fixed"``, ``"mobile"`` or ``"floating"``; ``base_link``:
    link 0 (a :class:`Link`
    or a dict of its parameters), the base's inertial parameters (zero by default).
    ``inertia_check``: "error" (default) or "warn", what validation does with a physically
    impossible inertia (:attr:`Robot.inertia_check`).
    """
    frames = tuple(f if isinstance(f, Frame) else _frame_from_dict(f)
                   for f in records(frames, "frames"))
    nl = len(frames) if n_links is None else n_links
    if links is None:
        links = [Link.symbolic(j) for j in range(1, nl + 1)]
    links = tuple(l if isinstance(l, Link) else Link(**_record(l, "link"))
                  for l in records(links, "links"))
    kw = {}
    if base_link is not None:
        kw["base_link"] = base_link if isinstance(base_link, Link) else Link(
            **{"j": 0, **_record(base_link, "link")})
    for key, val in (("gravity", gravity), ("W0", W0), ("WP0", WP0), ("V0", V0), ("VP0", VP0)):
        if val is not None:
            kw[key] = vec3(val)
    robot = Robot(
        name=name, frames=frames, links=links, n_links=nl,
        Z=IDENTITY4 if Z is None else sp.ImmutableMatrix(Z), tools=tuple(tools),
        values=MappingProxyType(dict(values or {})), source=source, description=description,
        frame_names=MappingProxyType(dict(frame_names or {})),
        mimic=MappingProxyType({int(j): (int(i), float(m), float(c))
                                for j, (i, m, c) in (mimic or {}).items()}),
        base_kind=check_kind(base, "base"), inertia_check=_inertia_check_option(inertia_check), **kw)
    if validate:
        from .validation import validate as _validate

        _validate(robot)
    return robot


def _record(d, what: str) -> dict:
    if not isinstance(d, Mapping):
        raise ArgumentError(f"a {what} must be a mapping of its fields (or a {what.title()}), got "
                            f"{type(d).__name__}")
    return dict(d)


def _frame_from_dict(d: Mapping) -> Frame:
    kw = _record(d, "frame")
    for k in GEOMETRIC:
        if k in kw:
            kw[k] = as_expr(kw[k])
    return Frame(**kw)


__all__ = ["make_robot"]
