"""The manipulability ellipsoids of the origin of an end frame at a configuration (Khalil &
Dombre §5.9, (5.36)-(5.38); Siciliano et al. §3.9), from the translational rows J of 0J_n:

* ``"velocity"``: the translational velocities of unit-norm joint velocities,
  Xd^T (J J^T)^-1 Xd <= 1: axes U_i and lengths sigma_i of the SVD J = U Sigma V^T;
* ``"force"``: its dual, the forces balanced by unit-norm torques, f^T J J^T f <= 1: the same
  axes, lengths 1 / sigma_i;
* ``"dynamic"`` (Yoshikawa's, from the inertia matrix) is
  :func:`robmod.dynamics.manipulability_ellipsoid`'s, the dynamics being a layer above.

The end frame is frame j or a tool, by default the first tool on the last link, else the last
link (:func:`end_frame`).
"""
from __future__ import annotations

from ..errors import ArgumentError, RobmodError
from .analysis import Ellipsoid, force_ellipsoid, velocity_ellipsoid
from .jacobians import jacobian, resolve_frame

#: the ellipsoids of :func:`robmod.dynamics.manipulability_ellipsoid`
ELLIPSOID_KINDS = ("velocity", "force", "dynamic")


def end_frame(robot, j=None, tool=None):
    """(tool object or None, frame j) of the ellipsoids and maps: the given frame or tool,
    else the first tool on the last link, else the last link."""
    if j is None and tool is None:
        tool = next((t for t in robot.tools if t.frame == robot.n_links), None)
    return resolve_frame(robot, j, tool)


def translational_ellipsoid(robot, q, kind: str, j=None, tool=None) -> Ellipsoid:
    """The velocity or force ellipsoid of the origin of frame j (or the tool): the first three
    rows of 0J_j (Khalil & Dombre (5.37), §5.9.3)."""
    J = jacobian(robot, q, j=j, tool=tool)[..., :3, :]
    if kind == "velocity":
        return velocity_ellipsoid(J)
    if kind == "force":
        return force_ellipsoid(J)
    raise RobmodError(f"the {kind!r} ellipsoid needs the dynamic model: "
                      f"robmod.dynamics.manipulability_ellipsoid(robot, q, {kind!r})")


def ellipsoid_kinds(ellipsoid) -> list:
    """The list of ellipsoid names (or ``(label, Ellipsoid)`` pairs) asked for by the
    ``ellipsoid`` argument: False/None (none), True ("velocity"), a name, a list of names,
    a mapping ``{label: Ellipsoid}``."""
    if ellipsoid is None or ellipsoid is False:
        return []
    if ellipsoid is True:
        return ["velocity"]
    if isinstance(ellipsoid, str):
        ellipsoid = [ellipsoid]
    if isinstance(ellipsoid, dict):
        ellipsoid = list(ellipsoid.items())
    out = []
    try:
        items = list(ellipsoid)
    except TypeError:
        items = [ellipsoid]
    for e in items:
        if isinstance(e, str):
            if e not in ELLIPSOID_KINDS:
                raise ArgumentError(f"ellipsoid must be one of {', '.join(ELLIPSOID_KINDS)} "
                                    f"(or a list of them), got {e!r}")
            if e not in out:
                out.append(e)
        elif isinstance(e, tuple) and len(e) == 2 and hasattr(e[1], "lengths"):
            out.append(e)
        else:
            raise ArgumentError(f"ellipsoid: expected a name ({', '.join(ELLIPSOID_KINDS)}) or "
                                f"a (label, Ellipsoid) pair, got {e!r}")
    return out


__all__ = ["ELLIPSOID_KINDS"]
