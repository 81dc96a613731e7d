"""The robot description in Khalil-Kleinfinger notation (immutable data).

Frames and structure (Khalil & Dombre §3.2 and its tree/closed-loop extension)::

    a(j)T_j = Rot(z, gamma_j) Trans(z, b_j) Rot(x, alpha_j) Trans(x, d_j) Rot(z, theta_j) Trans(z, r_j)

* ``n_links`` (NL) links 1..NL, link 0 being the base;
* ``n_joints`` (NJ) joints: joints 1..NL are those of the equivalent tree
  structure, joints NL+1..NJ are the *cut joints* of the closed loops;
* ``n_frames`` (NF) = NJ + B frames, B = NJ - NL being the number of loops.
  Frame k (NL < k <= NJ) is the frame of cut joint k, carried by link a(k);
  frame k + B (sigma = 2) is fixed on the link on the other side of the cut
  joint and coincides with frame k when the loop is closed.

Each joint j has its variable ``q_j`` (symbol ``qj``):
``theta_j = q_j + theta`` for a revolute joint (sigma = 0) and
``r_j = q_j + r`` for a prismatic joint (sigma = 1); the stored ``theta`` /
``r`` is then the joint *offset*.  Frames with sigma = 2 are fixed.

Every parameter is a SymPy expression: a number, a symbol or an expression of
symbols.  :meth:`Robot.numeric` substitutes the numeric values the
description carries.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

import numpy as np
import sympy as sp

from ..arguments import close_matches
from ..errors import ArgumentError, UnknownNameError
from .expr import as_expr, symbol
from .link import (DYNAMIC, INERTIAL, JOINT_DYNAMIC, LIMITS, WRENCH,  # noqa: F401 (re-exported)
                   JointLimits, Link)

REVOLUTE = 0
"""sigma_j = 0: joint j is revolute, its variable is theta_j (Khalil & Dombre §3.2)."""
PRISMATIC = 1
"""sigma_j = 1: joint j is prismatic, its variable is r_j."""
FIXED = 2
"""sigma_j = 2: frame j is fixed to frame a(j) (no joint variable)."""

GEOMETRIC = ("gamma", "b", "alpha", "d", "theta", "r")
#: the kinds of base, link 0: bolted to the ground, moved as given, free (:mod:`.base`)
FIXED_BASE, MOBILE_BASE, FLOATING_BASE = "fixed", "mobile", "floating"
BASE_KINDS = (FIXED_BASE, MOBILE_BASE, FLOATING_BASE)

_ZERO = sp.Integer(0)


def joint_variable(j: int) -> sp.Symbol:
    """Symbol of the variable of joint j: ``qj``."""
    return symbol(f"q{j}")


def joint_velocity(j: int) -> sp.Symbol:
    """Symbol of the velocity of joint j (SYMORO's ``QPj``)."""
    return symbol(f"QP{j}")


def joint_acceleration(j: int) -> sp.Symbol:
    """Symbol of the acceleration of joint j (SYMORO's ``QDPj``)."""
    return symbol(f"QDP{j}")


@dataclass(frozen=True)
class Frame:
    """One row of the Khalil-Kleinfinger table."""

    j: int
    ant: int
    sigma: int = REVOLUTE
    mu: int = 1
    gamma: sp.Expr = _ZERO
    b: sp.Expr = _ZERO
    alpha: sp.Expr = _ZERO
    d: sp.Expr = _ZERO
    theta: sp.Expr = _ZERO
    r: sp.Expr = _ZERO

    def __post_init__(self):
        for k in GEOMETRIC:
            v = getattr(self, k)
            if not isinstance(v, sp.Expr):
                object.__setattr__(self, k, as_expr(v))

    @property
    def is_joint(self) -> bool:
        return self.sigma in (REVOLUTE, PRISMATIC)

    @property
    def q(self) -> sp.Symbol | None:
        """The joint variable, or None for a fixed frame."""
        return joint_variable(self.j) if self.is_joint else None

    def theta_total(self, q=None):
        """theta_j with the joint variable (or ``q``) added for a revolute joint."""
        if self.sigma == REVOLUTE:
            return self.theta + (self.q if q is None else q)
        return self.theta

    def r_total(self, q=None):
        """r_j with the joint variable (or ``q``) added for a prismatic joint."""
        if self.sigma == PRISMATIC:
            return self.r + (self.q if q is None else q)
        return self.r

    def params(self) -> tuple:
        """(gamma, b, alpha, d, theta, r) as stored (offsets for the variable)."""
        return tuple(getattr(self, k) for k in GEOMETRIC)


def transform_matrix(gamma=0, b=0, alpha=0, d=0, theta=0, r=0) -> sp.ImmutableMatrix:
    """Symbolic 4x4 matrix Rot(z,gamma) Trans(z,b) Rot(x,alpha) Trans(x,d) Rot(z,theta) Trans(z,r)."""
    from .kk_matrix import kk_transform

    args = [as_expr(v) for v in (gamma, b, alpha, d, theta, r)]
    return sp.ImmutableMatrix(kk_transform(*args))


IDENTITY4 = sp.ImmutableMatrix(sp.eye(4))


@dataclass(frozen=True)
class Tool:
    """A tool (end-effector) frame E attached to frame ``frame``: jTE = ``T``."""

    name: str
    frame: int
    T: sp.ImmutableMatrix = IDENTITY4


def vec3(values) -> tuple:
    return tuple(as_expr(v) for v in values)


_MAPPINGS = ("values", "frame_names", "mimic")


@dataclass(frozen=True)
class Robot:
    """An immutable robot description.  Build it with
    :func:`~robmod.description.build.make_robot` (validated)."""

    name: str
    frames: tuple[Frame, ...]
    links: tuple[Link, ...]
    n_links: int
    #: Z = fT0, the constant pose of frame 0 in the world (a fixed base; Khalil & Dombre §3.5;
    #: a mobile or floating base's pose is its configuration's)
    Z: sp.ImmutableMatrix = IDENTITY4
    tools: tuple[Tool, ...] = ()
    #: the world's gravity g (a URDF's and MuJoCo's: (0, 0, -9.81)); every model takes it in
    #: frame 0, 0R_f g (Z's rotation; a floating base's orientation), docs/dynamics.md
    gravity: tuple = (_ZERO, _ZERO, symbol("G3"))
    W0: tuple = (_ZERO, _ZERO, _ZERO)
    WP0: tuple = (_ZERO, _ZERO, _ZERO)
    V0: tuple = (_ZERO, _ZERO, _ZERO)
    VP0: tuple = (_ZERO, _ZERO, _ZERO)
    values: Mapping = field(default_factory=lambda: MappingProxyType({}))
    source: str = ""
    description: str = ""
    #: names of frames (e.g. URDF link and joint names) -> frame number
    frame_names: Mapping = field(default_factory=lambda: MappingProxyType({}))
    #: dependent (mimic) joints: frame j -> (i, m, c), q_j = m q_i + c (no entry of their own
    #: in joint vectors; see :mod:`robmod.description.mimic`)
    mimic: Mapping = field(default_factory=lambda: MappingProxyType({}))
    #: the base (link 0): ``"fixed"``, ``"mobile"`` (its motion given: V0, W0, VP0, WP0) or
    #: ``"floating"`` (6 free coordinates); see :mod:`robmod.description.base`
    base_kind: str = "fixed"
    #: link 0: the base's inertial parameters and external wrench (mobile, floating bases)
    base_link: Link = field(default_factory=lambda: Link(j=0))
    #: what validation does with a physically impossible inertia (a tensor about the centre of
    #: mass that is not positive semi-definite or breaks the triangle inequality, a massless
    #: link with inertia): "error" (robmod's own files, robots built in Python) or "warn" (URDF
    #: files, whose CAD-made inertias often carry such values: kept as given, with a warning)
    inertia_check: str = "error"

    # ---- pickling (worker processes): the read-only mappings travel as dicts ----------
    def __getstate__(self):
        state = {f.name: getattr(self, f.name) for f in fields(self)}
        state["values"] = dict(self.values)
        state["frame_names"] = dict(self.frame_names)
        state["mimic"] = dict(self.mimic)
        return state

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, MappingProxyType(v) if k in _MAPPINGS else v)

    def frame_number(self, frame) -> int:
        """The number of ``frame``: a frame number (0..NF), or a name of ``frame_names`` (URDF
        link or joint names, plain or qualified: ``"link:NAME"``, ``"joint:NAME"``); a
        RobmodError lists close names when it is unknown, an ArgumentError names the two
        frames of a plain name that is a link's and another frame's joint's."""
        if isinstance(frame, str):
            if frame in self.frame_names:
                return int(self.frame_names[frame])
            link, joint = (self.frame_names.get(f"{k}:{frame}") for k in ("link", "joint"))
            if link is not None and joint is not None:
                raise ArgumentError(
                    f"robot {self.name!r}: {frame!r} is both a link (frame {link}) and a joint "
                    f"(frame {joint}); say which: 'link:{frame}' or 'joint:{frame}'")
            if frame.lstrip("+-").isdigit():
                frame = int(frame)
            else:
                close = close_matches(frame, self.frame_names, n=4)
                hint = f"; close names: {', '.join(close)}" if close else (
                    f"; names: {', '.join(list(self.frame_names)[:12])}" if self.frame_names
                    else "; this robot has no frame names: give a frame number")
                raise UnknownNameError(f"robot {self.name!r} has no frame {frame!r}{hint}")
        if isinstance(frame, bool) or not isinstance(frame, (int, np.integer)) or \
                not 0 <= int(frame) <= self.n_frames:
            raise ArgumentError(f"frame must be a number 0..{self.n_frames} or a frame name, "
                                   f"got {frame!r}")
        return int(frame)

    # ---- sizes and structure -------------------------------------------------
    @property
    def n_frames(self) -> int:
        """NF"""
        return len(self.frames)

    @cached_property
    def n_loops(self) -> int:
        """B, the number of closed loops."""
        return (self.n_frames - self.n_links) // 2

    @property
    def n_joints(self) -> int:
        """NJ = NL + B"""
        return self.n_links + self.n_loops

    @cached_property
    def structure(self) -> str:
        """'serial', 'tree' or 'closed'."""
        if self.n_loops:
            return "closed"
        if all(f.ant == f.j - 1 for f in self.frames):
            return "serial"
        return "tree"

    def frame(self, j: int) -> Frame:
        return self.frames[self._number(j, self.n_frames, "frame")]

    def link(self, j: int) -> Link:
        return self.links[self._number(j, self.n_links, "link")]

    def _number(self, j, n: int, what: str) -> int:
        """j - 1 for a number j in 1..n, else an ArgumentError naming ``what``."""
        try:
            known = 1 <= j <= n
        except TypeError:           # not a number
            known = False
        if not known:
            raise ArgumentError(f"robot {self.name!r} has no {what} {j!r} ({what}s 1..{n})")
        return j - 1

    @cached_property
    def joints(self) -> tuple[int, ...]:
        """Indices of the frames that carry a joint variable (sigma 0 or 1, not mimic), up to NJ."""
        return tuple(f.j for f in self.frames[: self.n_joints]
                     if f.is_joint and f.j not in self.mimic)

    @cached_property
    def content_key(self) -> tuple:
        """A hashable key equal for robots with equal content (for caches of derived models).

        ``Robot`` itself is not hashable (``values`` is a mapping); never key a cache by
        object identity (``id``): a dead robot's id is reused by new objects.
        """
        return (self.name, self.frames, self.links, self.n_links, self.Z, self.tools,
                self.gravity, self.W0, self.WP0, self.V0, self.VP0,
                tuple(sorted((str(k), str(v)) for k, v in self.values.items())),
                tuple(sorted(self.mimic.items())), self.base_kind, self.base_link,
                self.inertia_check)

    @cached_property
    def content_hash(self) -> int:
        """hash(:attr:`content_key`), computed once (hashing sympy numbers is not free): a
        cache looks robots up by it, then compares the content keys."""
        return hash(self.content_key)

    @cached_property
    def joint_index(self) -> Mapping[int, int]:
        """Position of each joint frame j (of :attr:`joints`) in a numeric joint vector.

        The rule of the whole numeric API: joint vectors (q, qd, qdd, torques, Jacobian
        columns, ...) have one entry per joint variable, in the order of :attr:`joints`;
        fixed frames (sigma = 2) never take one.
        """
        return MappingProxyType({j: k for k, j in enumerate(self.joints)})

    @property
    def n_q(self) -> int:
        """Length of a numeric joint vector: the joint variables (fixed frames excluded)."""
        return len(self.joints)

    @cached_property
    def actuated(self) -> tuple[int, ...]:
        return tuple(j for j in self.joints if self.frame(j).mu == 1)

    @cached_property
    def q(self) -> tuple[sp.Symbol, ...]:
        """The joint variables of the tree structure's joints 1..NL (fixed frames skipped)."""
        return tuple(self.frame(j).q for j in self.joints if j <= self.n_links)

    @cached_property
    def loop_pairs(self) -> tuple[tuple[int, int], ...]:
        """(k, k + B) for each cut joint k: the frames that coincide when loops close."""
        b = self.n_loops
        return tuple((k, k + b) for k in range(self.n_links + 1, self.n_joints + 1))

    def children(self, j: int) -> tuple[int, ...]:
        return tuple(f.j for f in self.frames[: self.n_links] if f.ant == j)

    def chain(self, j: int) -> tuple[int, ...]:
        """Frames from the base to frame j (excluding 0, including j)."""
        out = []
        while j != 0:
            out.append(j)
            j = self.frame(j).ant
        return tuple(reversed(out))

    # ---- parameters ----------------------------------------------------------
    @cached_property
    def geometry_symbols(self) -> frozenset:
        """Free symbols of the geometry (frames, the base matrix Z) and of gravity (the world's,
        which the models take in frame 0 through Z's rotation)."""
        syms = set(self.Z.free_symbols)
        for f in self.frames:
            for k in GEOMETRIC:
                syms |= getattr(f, k).free_symbols
        for g in self.gravity:
            syms |= getattr(g, "free_symbols", set())
        return frozenset(syms)

    @cached_property
    def symbols(self) -> frozenset:
        """Free symbols of the description (joint variables excluded)."""
        syms = set(self.geometry_symbols)
        for link in self.links + (self.base_link,):
            for k in DYNAMIC:
                v = getattr(link, k)
                if v is not None:
                    syms |= v.free_symbols
            for k in LIMITS:
                v = getattr(link.limits, k)
                if v is not None:
                    syms |= v.free_symbols
        for m in [self.Z] + [t.T for t in self.tools]:
            syms |= m.free_symbols
        for vec in (self.gravity, self.W0, self.WP0, self.V0, self.VP0):
            for v in vec:
                syms |= getattr(v, "free_symbols", set())
        return frozenset(syms)

    @property
    def is_numeric(self) -> bool:
        """True when every parameter is a number."""
        return not self.symbols

    def substitute(self, mapping: Mapping) -> "Robot":
        """A new robot with symbols replaced (keys: names or symbols)."""
        subs = {}
        for k, v in mapping.items():
            key = symbol(k) if isinstance(k, str) else k
            subs[key] = as_expr(v)
        if not subs:
            return self

        def s(x):
            return x if x is None else x.xreplace(subs)

        frames = tuple(replace(f, **{k: s(getattr(f, k)) for k in GEOMETRIC}) for f in self.frames)
        links = tuple(
            replace(l, **{k: s(getattr(l, k)) for k in DYNAMIC},
                    limits=replace(l.limits, **{k: s(getattr(l.limits, k)) for k in LIMITS}))
            for l in self.links + (self.base_link,))
        new = replace(
            self, frames=frames, links=links[:-1], base_link=links[-1],
            Z=self.Z.xreplace(subs),
            tools=tuple(replace(t, T=t.T.xreplace(subs)) for t in self.tools),
            gravity=tuple(s(v) for v in self.gravity), W0=tuple(s(v) for v in self.W0),
            WP0=tuple(s(v) for v in self.WP0), V0=tuple(s(v) for v in self.V0),
            VP0=tuple(s(v) for v in self.VP0))
        _ABOVE["validate"](new)
        return new

    def numeric(self, values: Mapping | None = None) -> "Robot":
        """The same robot with the numeric values it carries (and ``values``) substituted."""
        merged = dict(self.values)
        if values:
            merged.update({str(k): v for k, v in values.items()})
        # values may refer to each other (e.g. RL4: 2*D3): resolve to a fixed point
        resolved = {k: as_expr(v) for k, v in merged.items()}
        syms = {symbol(k): v for k, v in resolved.items()}
        for _ in range(len(syms) + 1):
            new = {k: v.xreplace(syms) for k, v in syms.items()}
            if new == syms:
                break
            syms = new
        return self.substitute(syms)

    def with_base(self, kind: str = "floating", *, link: "Link | None" = None,
                  **inertial) -> "Robot":
        """The same robot with the base ``kind`` (``"fixed"``, ``"mobile"``, ``"floating"``)
        and base link 0 (``link``, or its parameters ``M=..., XX=..., ...``; default: the
        robot's); see :func:`robmod.description.base.with_base`."""
        return _ABOVE["with_base"](self, kind, link=link, inertial=inertial)

    def with_values(self, **values) -> "Robot":
        return replace(self, values=MappingProxyType({**self.values, **values}))

    def __str__(self) -> str:
        return _ABOVE["text"](self)

    def __repr__(self) -> str:
        base = "" if self.base_kind == "fixed" else f"{self.base_kind} base, "
        return (f"<Robot {self.name!r}: {base}{self.structure}, {self.n_q} joint variables, "
                f"NF = {self.n_frames}; print() for the tables>")

    def _repr_html_(self) -> str:
        return _ABOVE["html"](self)


# What checks and prints a robot (validation.py, table.py) lives above this module and hands
# its functions over when robmod.description is imported: the data type imports neither.
_ABOVE: dict = {}


def provide(role: str, function) -> None:
    """Register the function of ``role``: "validate" (:meth:`Robot.substitute`), "text"
    (``str(robot)``), "html" (notebooks) or "with_base" (:meth:`Robot.with_base`)."""
    _ABOVE[role] = function


__all__ = ["Frame", "Link", "JointLimits", "Tool", "Robot", "REVOLUTE", "PRISMATIC", "FIXED",
           "joint_variable", "joint_velocity", "joint_acceleration"]
