"""Minimum description of tasks by virtual mechanical joints (Khalil & Dombre §6.7, Tables 6.1-6.2).

A task that constrains only some degrees of freedom of the tool is written as
contacts between simple geometric elements (point, line, plane) of the tool and
of the environment.  Every contact reduces to *point contacts* ([6.51]-[6.54]):
a tool point O_Ej (coordinates ``nP_Ej`` in the end frame n) driven onto a plane
of the environment (point ``0P_Dj``, unit normal ``0N_j``, frame 0).  Its
required displacement and its row of H are::

    r_j = 0N_j^T (0P_Dj - 0P_Ej)                                 [6.51]
    dr_j = 0N_j^T 0dP_Ej = H_j 0J_n dq,   H_j = [0N_j^T, (L_j x 0N_j)^T]

with ``L_j = 0R_n nP_Ej`` (frame-0 form acting on ``0J_n``, velocity of O_n);
:meth:`VirtualJoint.H_n` gives Khalil & Dombre's form [6.54]
``H_j = 0N_j^T 0R_n [I3, -nP^_Ej]`` acting on ``nJ_n`` (both are equal:
``H_n = H diag(0R_n, 0R_n)``).  The task is ``dX = H 0J_n dq`` [6.50]; n is the
end frame of the Jacobian (frame j, or the tool frame E when ``tool`` is given,
then the tool points are in frame E).

Virtual joints (Table 6.2: tool element / environment element, independent
equations = constrained DOF = rank of H J, total equations = rows of H):

=====================  =================  =========  ===========  =====  =====
kind                   factory            tool       environment  indep  total
=====================  =================  =========  ===========  =====  =====
point contact          point_contact      point      plane        1      1
line contact           line_contact       line       plane        2      2
planar contact         planar_contact     plane      plane        3      3
cylindrical groove     cylindrical_groove point      line         2      2
spherical              spherical          point      point        3      3
cylindrical            cylindrical        line       line         4      4
revolute               revolute           line-point line-point   5      7
prismatic              prismatic          plane-pl.  plane-plane  5      6
fixed rigid pairing    fixed              frame      frame        6      6
=====================  =================  =========  ===========  =====  =====

Line contact = 2 points of the tool line on the plane [6.53]; planar contact = 3
non-aligned points of the tool plane; cylindrical groove = the point on two
orthogonal planes through the line; spherical = 3 point contacts on planes
parallel to the frame-0 coordinate planes [6.55]; cylindrical = 2 points of the
tool line on the two planes (4); revolute = cylindrical + point-to-point (7
equations, rank 5; ``minimal=True``: cylindrical + the point on the plane normal
to the line, 5); prismatic = two plane-to-plane contacts (6 equations, rank 5;
``minimal=True``: Khalil & Dombre's five point contacts); fixed = the complete
description (position rows [I3, -L^] and orientation rows [0, I3], the
orientation error ``theta u`` of ``rot(u, theta) = 0R_D (0R_E)^T``).  Lengths
(``length``, ``size``: distance between the chosen tool points) only affect the
conditioning.

:func:`solve_task` drives a robot onto a task with the pseudo-inverse of
``H 0J_n`` ([6.11], [6.31]): ``dq = (H J)+ dr + (I - (H J)+ H J) z``, the
displacement bounded by ``max_step`` as in the numerical IGM (Khalil & Dombre §6.6);
a 6-axis robot on a point contact is redundant of degree 5.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..description.arguments import joint_array, keyword_options
from ..errors import ArgumentError, RobmodError
from ..spatial.pose_errors import rotation_error
from .ikm import pinv
from .jacobians import pose_and_jacobian


#: Table 6.2: kind -> (tool elements, environment elements, independent equations, total)
TABLE_6_2 = {
    "point_contact": ("point", "plane", 1, 1),
    "line_contact": ("line", "plane", 2, 2),
    "planar_contact": ("plane", "plane", 3, 3),
    "cylindrical_groove": ("point", "line", 2, 2),
    "spherical": ("point", "point", 3, 3),
    "cylindrical": ("line", "line", 4, 4),
    "revolute": ("line-point", "line-point", 5, 7),
    "prismatic": ("plane-plane", "plane-plane", 5, 6),
    "fixed": ("frame", "frame", 6, 6),
}


def _vec(x, what):
    v = np.asarray(x, dtype=float)
    if v.shape != (3,):
        raise RobmodError(f"{what} must be a 3-vector, got shape {v.shape}")
    return v


def _unit(x, what):
    v = _vec(x, what)
    n = np.linalg.norm(v)
    if n < 1e-12:
        raise RobmodError(f"{what} must be a non-zero vector")
    return v / n


def _normals(u):
    """Two unit vectors N1, N2 with (N1, N2, u) orthonormal: normals of two orthogonal planes
    whose intersection is a line of direction u."""
    a = np.eye(3)[np.argmin(np.abs(u))]
    n1 = np.cross(u, a)
    n1 /= np.linalg.norm(n1)
    return n1, np.cross(u, n1)


@dataclass(frozen=True)
class PointContact:
    """Tool point ``point`` (frame n) on the plane through ``plane_point`` with unit ``normal``
    (frame 0): one row of H ([6.52], [6.54])."""

    point: np.ndarray
    plane_point: np.ndarray
    normal: np.ndarray


@dataclass(frozen=True)
class VirtualJoint:
    """A virtual mechanical joint: point contacts, plus orientation rows for the fixed pairing
    (``rotations = (nR_E, 0R_D)``)."""

    kind: str
    contacts: tuple
    rotations: tuple | None = None

    @property
    def n_equations(self) -> int:
        """Rows of H (Table 6.2, total number of equations)."""
        return len(self.contacts) + (3 if self.rotations is not None else 0)

    @property
    def n_independent(self) -> int:
        """Constrained degrees of freedom: rank of H J at a generic configuration (Table 6.2)."""
        return TABLE_6_2[self.kind][2]

    def _pose(self, T):
        T = np.asarray(T, dtype=float)
        if T.shape[-2:] not in ((4, 4), (3, 4)):
            raise RobmodError(f"the tool pose must be (..., 4, 4), got shape {T.shape}")
        return T[..., :3, :3], T[..., :3, 3]

    def _arrays(self):
        P = np.array([c.point for c in self.contacts]).reshape(-1, 3)
        D = np.array([c.plane_point for c in self.contacts]).reshape(-1, 3)
        N = np.array([c.normal for c in self.contacts]).reshape(-1, 3)
        return P, D, N

    def H(self, T) -> np.ndarray:
        """H (..., c, 6) acting on 0J_n at the pose ``T = 0T_n`` (..., 4, 4)."""
        R, _ = self._pose(T)
        P, _, N = self._arrays()
        L = np.einsum("...ij,kj->...ki", R, P)  # 0R_n nP_Ek
        Nb = np.broadcast_to(N, L.shape)
        rows = [np.concatenate([Nb, np.cross(L, Nb)], axis=-1)]
        if self.rotations is not None:
            rot = np.zeros(R.shape[:-2] + (3, 6))
            rot[..., :, 3:] = np.eye(3)
            rows.append(rot)
        return np.concatenate(rows, axis=-2)

    def H_n(self, T) -> np.ndarray:
        """H (..., c, 6) acting on nJ_n: Khalil & Dombre's form [6.54],
        ``0N^T 0R_n [I3, -nP^_E]``."""
        R, _ = self._pose(T)
        H = self.H(T)
        blk = np.zeros(R.shape[:-2] + (6, 6))
        blk[..., :3, :3] = R
        blk[..., 3:, 3:] = R
        return H @ blk

    def residual(self, T) -> np.ndarray:
        """Required displacements dr (..., c): ``0N^T (0P_D - 0P_E)`` [6.51] per point contact,
        then ``theta u`` for the fixed pairing."""
        R, Pn = self._pose(T)
        P, D, N = self._arrays()
        PE = Pn[..., None, :] + np.einsum("...ij,kj->...ki", R, P)
        out = [np.einsum("kj,...kj->...k", N, D - PE)]
        if self.rotations is not None:
            RE, RD = self.rotations
            out.append(rotation_error(RD, R @ RE))
        return np.concatenate(out, axis=-1)


def _contacts(points, plane_point, normals):
    d = _vec(plane_point, "the environment point")
    return tuple(PointContact(p, d, n) for p in points for n in normals)


# -- the virtual joints (tool elements in frame n, environment elements in frame 0) ---------
def _point_contact(point, plane_point, normal) -> VirtualJoint:
    """Point on plane [6.51]-[6.52]: tool ``point`` onto the plane (``plane_point``, ``normal``)."""
    return VirtualJoint("point_contact", _contacts([_vec(point, "point")], plane_point,
                                                   [_unit(normal, "normal")]))


def _line_contact(point, direction, plane_point, normal, length=0.1) -> VirtualJoint:
    """Line on plane [6.53]: two points of the tool line (``point``, ``direction``) on the plane."""
    p, d = _vec(point, "point"), _unit(direction, "direction")
    return VirtualJoint("line_contact", _contacts([p, p + length * d], plane_point,
                                                  [_unit(normal, "normal")]))


def _planar_contact(point, normal, plane_point, plane_normal, size=0.1) -> VirtualJoint:
    """Plane on plane: three non-aligned points of the tool plane (``point``, ``normal``, frame n)
    on the plane of the environment (``plane_point``, ``plane_normal``)."""
    p = _vec(point, "point")
    e1, e2 = _normals(_unit(normal, "normal"))
    return VirtualJoint("planar_contact", _contacts([p, p + size * e1, p + size * e2],
                                                    plane_point,
                                                    [_unit(plane_normal, "plane_normal")]))


def _cylindrical_groove(point, line_point, line_direction) -> VirtualJoint:
    """Point on line: the tool point on two orthogonal planes whose intersection is the line."""
    return VirtualJoint("cylindrical_groove", _contacts(
        [_vec(point, "point")], line_point, _normals(_unit(line_direction, "line_direction"))))


def _spherical(point, target) -> VirtualJoint:
    """Point on point [6.55]: three point contacts on planes parallel to the frame-0 planes."""
    return VirtualJoint("spherical", _contacts([_vec(point, "point")], target, list(np.eye(3))))


def _line_points(point, direction, length):
    p, d = _vec(point, "point"), _unit(direction, "direction")
    return p, d, [p, p + length * d]


def _cylindrical(point, direction, line_point, line_direction, length=0.1) -> VirtualJoint:
    """Line on line: two points of the tool line on two orthogonal planes through the line."""
    _, _, pts = _line_points(point, direction, length)
    return VirtualJoint("cylindrical", _contacts(
        pts, line_point, _normals(_unit(line_direction, "line_direction"))))


def _revolute(point, direction, line_point, line_direction, length=0.1,
             minimal=False) -> VirtualJoint:
    """Line-point on line-point: the tool line (through ``point``) on the environment line and
    ``point`` onto ``line_point`` (7 equations, rank 5), or, ``minimal=True``, ``point`` on the
    plane through ``line_point`` normal to the line (5 equations)."""
    p, _, pts = _line_points(point, direction, length)
    u = _unit(line_direction, "line_direction")
    cs = _contacts(pts, line_point, _normals(u))
    cs += _contacts([p], line_point, [u] if minimal else list(np.eye(3)))
    return VirtualJoint("revolute", cs)


def _prismatic(point, direction, direction2, line_point, line_direction, line_direction2,
              length=0.1, minimal=False) -> VirtualJoint:
    """Plane-plane on plane-plane: the tool lines UE1 (``point``, ``direction``: the free
    translation) and UE2 (``direction2``, perpendicular) onto UD1, UD2 through ``line_point``.

    Default: two plane-to-plane contacts (6 equations, rank 5), the tool planes (UE1, UE2)
    and (UE1, UE1 x UE2) on the planes (UD1, UD2) and (UD1, UD1 x UD2).  ``minimal=True``:
    Khalil & Dombre's five point contacts, two points of UE1 on two orthogonal planes through UD1
    and a point of UE2 on the plane of UD1 and UD2.
    """
    p, d1, pts = _line_points(point, direction, length)
    d2 = _unit(direction2, "direction2")
    u1, u2 = _unit(line_direction, "line_direction"), _unit(line_direction2, "line_direction2")
    if abs(d1 @ d2) > 1e-9 or abs(u1 @ u2) > 1e-9:
        raise RobmodError("the two lines of a prismatic joint must be perpendicular")
    na, nb = np.cross(u1, u2), u2  # planes (UD1, UD2) and (UD1, UD1 x UD2)
    if minimal:
        cs = _contacts(pts, line_point, [nb, na]) + _contacts([p + length * d2], line_point, [na])
    else:
        cs = (_contacts([p, p + length * d1, p + length * d2], line_point, [na])
              + _contacts([p, p + length * d1, p + length * np.cross(d1, d2)], line_point, [nb]))
    return VirtualJoint("prismatic", cs)


def _fixed(target, tool_frame=None) -> VirtualJoint:
    """Fixed rigid pairing: the frame E (``tool_frame`` = nT_E, default identity) onto the
    ``target`` frame 0T_D: the complete description dX = J dq (6 equations)."""
    TD = np.asarray(target, dtype=float)
    TE = np.eye(4) if tool_frame is None else np.asarray(tool_frame, dtype=float)
    if TD.shape[-2:] not in ((4, 4), (3, 4)) or TE.shape[-2:] not in ((4, 4), (3, 4)):
        raise RobmodError("target and tool_frame must be 4x4 homogeneous transforms")
    cs = _contacts([TE[:3, 3]], TD[:3, 3], list(np.eye(3)))
    return VirtualJoint("fixed", cs, (TE[:3, :3].copy(), TD[:3, :3].copy()))


_FACTORIES = {"point_contact": _point_contact, "line_contact": _line_contact,
              "planar_contact": _planar_contact, "cylindrical_groove": _cylindrical_groove,
              "spherical": _spherical, "cylindrical": _cylindrical, "revolute": _revolute,
              "prismatic": _prismatic, "fixed": _fixed}
_ALIASES = {"point": "point_contact", "point_on_plane": "point_contact",
            "line": "line_contact", "line_on_plane": "line_contact",
            "planar": "planar_contact", "plane": "planar_contact",
            "groove": "cylindrical_groove", "point_on_line": "cylindrical_groove",
            "point_on_point": "spherical", "line_on_line": "cylindrical", "rigid": "fixed"}


def virtual_joint(kind: str, **geometry) -> VirtualJoint:
    """The virtual joint ``kind`` (a name of Table 6.2 or an alias such as ``point_on_plane``)
    built from the geometry keywords of its factory."""
    key = _ALIASES.get(kind, kind) if isinstance(kind, str) else None
    if key not in _FACTORIES:
        raise ArgumentError(f"unknown virtual joint {kind!r}; one of {', '.join(_FACTORIES)}")
    try:
        return _FACTORIES[key](**geometry)
    except TypeError as e:
        raise RobmodError(f"virtual joint {key!r}: {e}") from None


# -- robot-level functions ------------------------------------------------------------------
@keyword_options()
def reduced_jacobian(robot, q, task: VirtualJoint, *, j=None, tool=None) -> np.ndarray:
    """``H 0J_n`` (..., c, NJ) at ``q`` (..., NJ) [6.50]: rows of the task, n = frame j or E."""
    T, J = pose_and_jacobian(robot, joint_array(robot, "q", q), j=j, tool=tool)
    return task.H(T) @ J


@keyword_options()
def task_residual(robot, q, task: VirtualJoint, *, j=None, tool=None) -> np.ndarray:
    """Required displacements dr (..., c) of the task at ``q``."""
    T, _ = pose_and_jacobian(robot, joint_array(robot, "q", q), j=j, tool=tool)
    return task.residual(T)


@dataclass(frozen=True)
class TaskSolution:
    """Result of :func:`solve_task`: final ``q``, the joint path ``path`` (k+1, NJ), the norm of
    the residual at each iterate ``residuals`` (k+1,), ``converged``."""

    q: np.ndarray
    path: np.ndarray
    residuals: np.ndarray
    converged: bool

    @property
    def iterations(self) -> int:
        return len(self.residuals) - 1


@keyword_options()
def solve_task(robot, q0, task: VirtualJoint, *, j=None, tool=None,
               z: Callable | None = None, tol=1e-10, max_iter=100, max_step=0.2,
               rtol=None) -> TaskSolution:
    """Drive the robot onto the task from ``q0`` (NJ,):
    ``dq = (H J)+ dr + (I - (H J)+ H J) z(q)`` ([6.11], [6.31]) until ``||dr|| < tol``.

    ``dr`` is scaled down to ``max_step`` (Khalil & Dombre §6.6 thresholds); ``z(q)``: an optional
    joint motion projected on the null space of H J (the free DOF of the task).
    """
    q = np.array(joint_array(robot, "q0", q0), dtype=float)
    if q.ndim != 1:
        raise RobmodError("solve_task takes one configuration q0 (NJ,)")
    path, res = [q.copy()], []
    for _ in range(max_iter + 1):
        T, J = pose_and_jacobian(robot, q, j=j, tool=tool)
        dr = task.residual(T)
        res.append(float(np.linalg.norm(dr)))
        if res[-1] < tol or len(res) > max_iter:
            break
        if res[-1] > max_step:
            dr = dr * (max_step / res[-1])
        HJ = task.H(T) @ J
        HJp = pinv(HJ, rtol=rtol)
        dq = HJp @ dr
        if z is not None:
            dq = dq + (np.eye(len(q)) - HJp @ HJ) @ np.asarray(z(q), dtype=float)
        q = q + dq
        path.append(q.copy())
    return TaskSolution(q, np.array(path), np.array(res), res[-1] < tol)


__all__ = ["TABLE_6_2", "PointContact", "VirtualJoint", "virtual_joint", "reduced_jacobian",
           "task_residual", "TaskSolution", "solve_task"]
