"""Self-validation of a robot description.

Checks the structure (numbering, antecedents, loops), the joint types and the
numeric values (finite numbers, positive masses, physically consistent inertia
tensors, ordered limits).  Each problem raises a :class:`DescriptionError`
naming the frame and the field; ``locations`` (optional) maps
``(frame, field)`` to the file location the value came from.
"""
from __future__ import annotations

import math
import warnings
from typing import Mapping

import numpy as np
import sympy as sp

from ..arguments import keyword_options
from ..errors import DescriptionError, Location, RobmodWarning
from .robot import (BASE_KINDS, DYNAMIC, FIXED, FIXED_BASE, GEOMETRIC, LIMITS, PRISMATIC,
                    REVOLUTE, Robot, joint_variable, provide)

#: relative tolerance of the inertia-consistency checks
_INERTIA_TOL = 1e-9


def _fail(msg, j, fieldname, locations):
    raise _error(msg, j, fieldname, locations)


def _error(msg, j, fieldname, locations) -> DescriptionError:
    loc = None
    if locations:
        loc = locations.get((j, fieldname)) or locations.get((j, None))
    loc = (loc or Location()).merged(Location(frame=j, field=fieldname))
    return DescriptionError(msg, loc)


def _impossible(msg, j, fieldname, locations, policy):
    """A physically impossible inertia: an error, or a warning when the robot's
    ``inertia_check`` is "warn" (URDF files: the values are kept as the file gives them)."""
    err = _error(msg, j, fieldname, locations)
    if policy != "warn":
        raise err
    warnings.warn(RobmodWarning(f"{err}; kept as given (inertia_check='warn'): the dynamic "
                                "models use it, MuJoCo's export balances it"), stacklevel=4)


def _moments(ev) -> str:
    return "[" + " ".join(f"{x:.4g}" for x in ev) + "]"


def _number(expr):
    """float(expr) if it is a number, else None."""
    if expr is None or expr.free_symbols:
        return None
    try:
        return float(expr)
    except (TypeError, ValueError):
        return None


@keyword_options()
def validate(robot: Robot, locations: Mapping | None = None) -> Robot:
    """Check ``robot``; return it unchanged or raise :class:`DescriptionError`."""
    nf, nl = robot.n_frames, robot.n_links
    if nf == 0 and robot.base_kind == "fixed":
        raise DescriptionError(f"robot {robot.name!r} has no frame (a fixed base needs one; a "
                               "free body, a drone or a satellite, has a floating base)")
    if not 0 < nl <= nf and not nf == nl == 0:
        _fail(f"number of links NL={nl} must be between 1 and the number of frames {nf}",
              None, "NL", locations)
    if (nf - nl) % 2:
        _fail(f"NF - NL = {nf - nl} must be even: each loop adds a cut joint frame and its "
              "closing frame", None, "NF", locations)
    nj = robot.n_joints
    if robot.mimic:
        from .mimic import check_mimic

        check_mimic(robot)
    qvars = {joint_variable(j) for j in range(1, nf + 1)}
    for idx, f in enumerate(robot.frames, start=1):
        j = f.j
        if j != idx:
            _fail(f"frames must be numbered 1..{nf} in order; found frame {j} at position {idx}",
                  j, "j", locations)
        if f.sigma not in (REVOLUTE, PRISMATIC, FIXED):
            _fail(f"sigma must be 0 (revolute), 1 (prismatic) or 2 (fixed), not {f.sigma!r}",
                  j, "sigma", locations)
        if f.mu not in (0, 1):
            _fail(f"mu must be 1 (actuated) or 0 (passive), not {f.mu!r}", j, "mu", locations)
        if f.sigma == FIXED and f.mu != 0:
            _fail("a fixed frame (sigma = 2) cannot be actuated: mu must be 0", j, "mu", locations)
        if not isinstance(f.ant, int) or isinstance(f.ant, bool):
            _fail(f"antecedent must be an integer, not {f.ant!r}", j, "ant", locations)
        if j <= nl:
            if not 0 <= f.ant < j:
                _fail(f"antecedent a({j}) = {f.ant} must satisfy 0 <= a(j) < j "
                      "(number the tree from the base)", j, "ant", locations)
        else:
            if not 0 <= f.ant <= nl:
                _fail(f"antecedent a({j}) = {f.ant} must be a link 0..{nl}", j, "ant", locations)
            if j <= nj and f.sigma == FIXED:
                _fail(f"frame {j} is a cut joint of a closed loop (NL < j <= NJ = {nj}): sigma "
                      "must be 0 or 1", j, "sigma", locations)
            if j > nj and f.sigma != FIXED:
                _fail(f"frame {j} closes a loop (j > NJ = {nj}): sigma must be 2", j, "sigma",
                      locations)
        for k in GEOMETRIC:
            v = getattr(f, k)
            if not isinstance(v, sp.Expr):
                _fail(f"value must be a number or an expression, not {v!r}", j, k, locations)
            bad = v.free_symbols & qvars
            if bad:
                _fail(f"{k} holds joint variable(s) {sorted(map(str, bad))}; the variable of a "
                      "joint is implied by sigma (give only its offset here)", j, k, locations)
            x = _number(v)
            if x is not None and not math.isfinite(x):
                _fail(f"value {v} is not finite", j, k, locations)
            if x is None and not v.free_symbols:
                _fail(f"value {v} is not a real number", j, k, locations)
    for k, k2 in robot.loop_pairs:
        a1, a2 = robot.frame(k).ant, robot.frame(k2).ant
        if a1 == a2:
            _fail(f"cut joint frame {k} and its closing frame {k2} are both on link {a1}: "
                  "a loop must join two different links", k2, "ant", locations)
    if len(robot.links) != nl:
        _fail(f"{len(robot.links)} links given for NL = {nl}", None, "links", locations)
    for idx, link in enumerate(robot.links, start=1):
        if link.j != idx:
            _fail(f"links must be numbered 1..{nl}; found link {link.j} at position {idx}",
                  link.j, "j", locations)
        _check_link(link, locations, robot)
    _check_matrix(robot.Z, None, "Z", locations)
    _check_base(robot, locations)
    for t in robot.tools:
        if not 0 <= t.frame <= nf:
            _fail(f"tool {t.name!r} is attached to frame {t.frame}, which does not exist",
                  t.frame, "tools", locations)
        _check_matrix(t.T, t.frame, f"tool {t.name}", locations)
    names = [t.name for t in robot.tools]
    if len(set(names)) != len(names):
        _fail("tool names must be unique", None, "tools", locations)
    for key in ("gravity", "W0", "WP0", "V0", "VP0"):
        vec = getattr(robot, key)
        if len(vec) != 3:
            _fail("must have 3 components", None, key, locations)
        for v in vec:
            x = _number(v)
            if x is not None and not math.isfinite(x):
                _fail(f"component {v} is not finite", None, key, locations)
    return robot


def _check_base(robot, locations):
    """Link 0 and the base kind (robmod.description.base)."""
    if robot.base_kind not in BASE_KINDS:
        _fail(f"the base kind must be one of {', '.join(BASE_KINDS)}, not {robot.base_kind!r}",
              None, "base", locations)
    if robot.base_link.j != 0:
        _fail(f"link 0 (the base) must have j = 0, not {robot.base_link.j}", 0, "j", locations)
    _check_link(robot.base_link, locations, robot)
    if robot.base_kind != FIXED_BASE and robot.Z != sp.eye(4):
        _fail(f"a {robot.base_kind} base has no constant Z = fT0: the pose of frame 0 in the "
              "world is its configuration (position and quaternion); set Z to the identity",
              None, "Z", locations)


def _check_matrix(m, j, name, locations):
    if m.shape != (4, 4):
        _fail(f"must be a 4x4 homogeneous transform, got shape {m.shape}", j, name, locations)
    if _number(m[3, 0]) != 0 or _number(m[3, 1]) != 0 or _number(m[3, 2]) != 0 \
            or _number(m[3, 3]) != 1:
        _fail("last row of a homogeneous transform must be [0, 0, 0, 1]", j, name, locations)
    if m.free_symbols:
        return
    R = np.array(m[:3, :3].evalf(), dtype=float)
    if not np.all(np.isfinite(R)) or np.abs(R @ R.T - np.eye(3)).max() > 1e-6 \
            or np.linalg.det(R) < 0:
        _fail("rotation part is not a rotation matrix (R R^T = I, det R = 1 within 1e-6)",
              j, name, locations)


def _check_link(link, locations, robot=None):
    j = link.j
    for k in DYNAMIC:
        v = getattr(link, k)
        if v is None:
            continue
        if not isinstance(v, sp.Expr):
            _fail(f"value must be a number or an expression, not {v!r}", j, k, locations)
        x = _number(v)
        if x is not None and not math.isfinite(x):
            _fail(f"value {v} is not finite", j, k, locations)
    for k in ("M", "IA", "FC", "FV", "FST", "BST"):
        x = _number(getattr(link, k))
        if x is not None and x < 0:
            _fail(f"{k} = {x:g} must not be negative", j, k, locations)
    if link.K is not None:
        x = _number(link.K)
        if x is not None and x <= 0:
            _fail(f"joint stiffness K = {x:g} must be positive (omit K for a rigid joint)",
                  j, "K", locations)
    policy = "error" if robot is None else robot.inertia_check
    lim = link.limits
    vals = {k: _number(getattr(lim, k)) for k in LIMITS}
    if vals["qmin"] is not None and vals["qmax"] is not None and vals["qmin"] >= vals["qmax"]:
        _fail(f"qmin = {vals['qmin']:g} must be less than qmax = {vals['qmax']:g}",
              j, "qmin", locations)
    for k in ("qdmax", "qddmax", "taumax"):
        if vals[k] is not None and vals[k] <= 0:
            _fail(f"{k} = {vals[k]:g} must be positive", j, k, locations)
    inertial = [_number(v) for v in link.inertial()]
    if any(x is None for x in inertial):
        return
    XX, XY, XZ, YY, YZ, ZZ, MX, MY, MZ, M = inertial
    if M == 0:
        if any(abs(x) > 0 for x in inertial):
            _impossible("mass M is 0 but inertia or first moments are not: a massless link must "
                        "have all inertial parameters zero", j, "M", locations, policy)
        return
    J = np.array([[XX, XY, XZ], [XY, YY, YZ], [XZ, YZ, ZZ]])
    s = np.array([MX, MY, MZ])
    ev, scale = _central_inertia(M, s, J)
    if _inconsistent(ev, scale) and robot is not None and _rigid_group_is_a_body(robot, j):
        return
    if ev[0] < -_INERTIA_TOL * scale:
        _impossible(f"inertia tensor about the centre of mass is not positive semi-definite "
                    f"(eigenvalues {_moments(ev)}): check XX..ZZ against MX, "
                    "MY, MZ and M (inertia is about O_j, not about the centre of mass)", j, "XX",
                    locations, policy)
    elif ev[0] + ev[1] < ev[2] - _INERTIA_TOL * scale:
        _impossible(f"principal inertias about the centre of mass "
                    f"{_moments(ev)} violate the triangle inequality "
                    "(I1 + I2 >= I3)", j, "XX", locations, policy)


def _central_inertia(M, s, J):
    """(principal moments about the centre of mass, scale of the checks)."""
    JG = J - (s @ s * np.eye(3) - np.outer(s, s)) / M
    return np.linalg.eigvalsh(JG), max(abs(np.trace(J)), abs(np.trace(JG)), 1e-300)


def _inconsistent(ev, scale) -> bool:
    return bool(ev[0] < -_INERTIA_TOL * scale or ev[0] + ev[1] < ev[2] - _INERTIA_TOL * scale)


def _rigid_group_is_a_body(robot, j) -> bool:
    """True when link j is welded to other links by fixed frames (sigma = 2; link 0 of a
    mobile or floating base included) and the rigid body they make together has a physically
    consistent inertia: a body split into links of a file (a URDF's placeholder inertia on the
    root link and the real one on a link fixed to it) is one rigid body, as Pinocchio and
    MuJoCo take it."""
    from .robot import transform_matrix

    n = robot.n_links
    edges = {k: set() for k in range(n + 1)}
    for f in robot.frames[:n]:
        if f.sigma == FIXED:
            edges[f.j].add(f.ant)
            edges[f.ant].add(f.j)
    if robot.base_kind == "fixed":
        edges.pop(0, None)
        for k in edges:
            edges[k].discard(0)
    group, todo = {j: np.eye(4)}, [j]
    try:
        while todo:      # the placement of each welded link in frame j
            a = todo.pop()
            for b in edges.get(a, ()):
                if b in group:
                    continue
                if b and robot.frame(b).ant == a:       # b a child of a
                    T = np.array(transform_matrix(*robot.frame(b).params()), dtype=float)
                    group[b] = group[a] @ T
                else:                                  # b the antecedent of a
                    T = np.array(transform_matrix(*robot.frame(a).params()), dtype=float)
                    group[b] = group[a] @ np.linalg.inv(T)
                todo.append(b)
        if len(group) == 1:
            return False
        M, s, J = 0.0, np.zeros(3), np.zeros((3, 3))
        for k, T in group.items():
            link = robot.base_link if k == 0 else robot.link(k)
            m = float(link.M)
            ms = np.array([float(link.MX), float(link.MY), float(link.MZ)])
            Jk = np.array(link.inertia_matrix().evalf(), dtype=float)
            R, P = T[:3, :3], T[:3, 3]
            rs = R @ ms
            J += R @ Jk @ R.T + m * (P @ P * np.eye(3) - np.outer(P, P)) \
                + 2 * (P @ rs) * np.eye(3) - np.outer(P, rs) - np.outer(rs, P)
            M, s = M + m, s + rs + m * P
    except (TypeError, ValueError):          # symbolic values: judged link by link
        return False
    return M > 0 and not _inconsistent(*_central_inertia(M, s, J))


provide("validate", validate)

__all__ = ["validate"]
