"""Argument checks at the boundary of every numeric function: the checks of a robot's arguments
(joint arrays, numeric robots, trees, Jacobians), and those of values and keyword options
(:mod:`robmod.arguments`, below every layer, re-exported here: a numeric function imports
every check from this module).

The plain numeric functions (``dgm``, ``jacobian``, ``idm``, ``ddm``, ``simulate``, ...)
call these helpers on their arguments before computing anything, so that bad input gives a
:class:`~robmod.errors.RobmodError` naming the argument and what is expected, instead of a
NumPy ``ValueError`` from deep inside or, worse, a silently wrong result.

Rules enforced here:

* **Joint vectors** have one entry per joint *variable*: ``robot.n_q`` entries, in the order
  of ``robot.joints`` (frames with sigma = 2 are fixed and never take an entry; see
  :attr:`robmod.description.robot.Robot.joint_index`).  Leading dimensions are a batch.
* **NaN policy**: NaN and infinite values are *refused*, never propagated.  A NaN in ``q``
  would otherwise give NaN torques that look like a result.
* **Keyword options** are keyword-only and checked at the entry: an unknown keyword (a
  misspelt switch, ``idm(robot, q, qd, qdd, rotr=False)``) is an :class:`ArgumentError`
  naming the closest option (:func:`checked_options`), never a ``TypeError`` from deep inside.
* **Symbolic robots** are refused by every numeric function, naming the symbols left, e.g.
  ``"D3, RL4 are symbolic: call robot.numeric({...})"``: the geometric parameters at the
  entry of every function; a symbolic inertial parameter, gravity, base or tool matrix when
  the model reads it (a model with friction switched off does not need FC, FV).
"""
from __future__ import annotations

import numpy as np

from ..arguments import (broadcast, checked_options, finite_array, finite_output,  # noqa: F401
                         finite_vector, is_robot, keyword_defaults, keyword_options,
                         number_array, path_argument, positive_scalar, records, robot_argument,
                         switched_off, switches_set, text_argument, vector_array,
                         whole_number)
from ..errors import ArgumentError
from .robot import DYNAMIC, GEOMETRIC


def symbols_used(robot, scope: str = "dynamics") -> frozenset:
    """Symbols left in the parameters a numeric model reads.

    ``scope='geometry'``: the geometric parameters of the frames (every numeric model reads
    them; a symbolic base or tool matrix is reported when a model uses it);
    ``'dynamics'``: also the base and tool matrices, the inertial parameters, gravity and
    base motion (limits excluded); ``'floating'``: also link 0, the base.
    """
    robot_argument(robot)
    syms = set()
    for f in robot.frames:
        for k in GEOMETRIC:
            syms |= getattr(f, k).free_symbols
    if scope in ("dynamics", "floating"):
        for m in [robot.Z] + [t.T for t in robot.tools]:
            syms |= m.free_symbols
        for link in robot.links + ((robot.base_link,) if scope == "floating" else ()):
            for k in DYNAMIC:
                v = getattr(link, k)
                if v is not None:
                    syms |= v.free_symbols
        for vec in (robot.gravity, robot.W0, robot.WP0, robot.V0, robot.VP0):
            for v in vec:
                syms |= getattr(v, "free_symbols", set())
    return frozenset(syms)


def require_numeric(robot, what: str = "numeric evaluation", scope: str = "dynamics"):
    """Return ``robot`` if the parameters of ``scope`` are numbers, else raise naming the
    symbols left (see :func:`symbols_used`)."""
    syms = symbols_used(robot, scope)
    if syms:
        names = sorted(str(s) for s in syms)
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        verb = "is" if len(names) == 1 else "are"
        example = ", ".join(f"{n!r}: ..." for n in names[:2])
        raise ArgumentError(f"{what} needs a numeric robot: {shown} {verb} symbolic in robot "
                          f"{robot.name!r}: call robot.numeric({{{example}}})")
    return robot


def pose_array(name: str, value, *, batch: bool = True, finite: bool = True,
               rotation_tol: float | None = None) -> np.ndarray:
    """A target pose: a float array (..., 4, 4) (one (4, 4) with ``batch=False``) from 4x4 or
    3x4 homogeneous transforms (the last row 0 0 0 1 completed).

    Refused with an ArgumentError (a RobmodError) naming ``name``: what is not an array of numbers, another
    shape, NaN or infinite values (unless ``finite=False``: a batched solver then marks those
    targets' branches invalid), elements beyond 1e12 (their squares overflow the solvers'
    products) and, with ``rotation_tol``, a rotation part that is not orthonormal with
    determinant +1 or a last row other than (0, 0, 0, 1).
    """
    shape_text = "a 4x4 homogeneous transform" + (" (or a batch (..., 4, 4))" if batch else "")
    if value is None:
        raise ArgumentError(f"argument {name} is missing (None): expected {shape_text}")
    try:
        T = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as e:
        raise ArgumentError(f"argument {name} must be {shape_text}, got {type(value).__name__} "
                          f"({e})") from None
    if T.ndim < 2 or T.shape[-2:] not in ((4, 4), (3, 4)) or (not batch and T.ndim != 2):
        raise ArgumentError(f"argument {name} must be {shape_text}, got shape {T.shape}")
    if T.shape[-2:] == (3, 4):
        T = np.concatenate([T, np.broadcast_to([0.0, 0.0, 0.0, 1.0], T.shape[:-2] + (1, 4))],
                           axis=-2)
    if finite and not np.all(np.isfinite(T)):
        bad = "NaN" if np.any(np.isnan(T)) else "an infinite value"
        raise ArgumentError(f"argument {name} holds {bad}: a target pose must be finite")
    with np.errstate(invalid="ignore"):
        big = np.abs(T[..., :3, :]) > 1e12
    if np.any(big):
        raise ArgumentError(f"argument {name}: an element is out of range (|x| > 1e12; a "
                          "rotation's are at most 1, a position's in metres)")
    if rotation_tol is not None:
        _check_homogeneous(name, T, rotation_tol)
    return T


def _check_homogeneous(name, T, tol):
    R = T[..., :3, :3]
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(R @ np.swapaxes(R, -1, -2) - np.eye(3)).max(axis=(-1, -2))
        det = np.linalg.det(R)
        bad = (err > tol) | (np.abs(det - 1) > tol) | \
            (np.abs(T[..., 3, :] - [0, 0, 0, 1]).max(axis=-1) > tol)
    if np.any(bad):
        k = np.argwhere(np.atleast_1d(bad))[0]
        raise ArgumentError(f"{name}{list(k) if np.ndim(bad) else ''} is not a homogeneous "
                          f"transform: its rotation part has |R R^T - I| = "
                          f"{np.atleast_1d(err)[tuple(k)]:.3g}, det R = "
                          f"{np.atleast_1d(det)[tuple(k)]:.6g} (tolerance {tol:g})")


def joint_array(robot, name: str, value, *, allow_batch: bool = True) -> np.ndarray:
    """A joint vector (or batch of them): float array of shape (..., robot.n_q).

    One entry per joint variable, in the order of ``robot.joints``; fixed frames (sigma = 2)
    take none.
    """
    n = robot_argument(robot).n_q
    expected = f"shape (..., {n})" if allow_batch else f"shape ({n},)"
    text = f"{n} joint values ({_joint_names(robot)}), {expected}"
    arr = finite_array(name, value, shape_text=text)
    if arr.ndim == 0 or arr.shape[-1] != n or (not allow_batch and arr.ndim != 1):
        raise ArgumentError(f"argument {name} must have {text}; got shape {arr.shape}"
                          + _fixed_hint(robot, arr) + _base_hint(robot, arr))
    return arr


def joint_arrays(robot, **arrays) -> list[np.ndarray]:
    """Several joint arrays checked and broadcast against each other (in keyword order)."""
    checked = [joint_array(robot, k, v) for k, v in arrays.items()]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in checked))
    except ValueError:
        shapes = ", ".join(f"{k} {a.shape}" for k, a in zip(arrays, checked))
        raise ArgumentError(f"arguments {', '.join(arrays)} have batch shapes that do not "
                          f"broadcast together: {shapes}") from None
    return [np.broadcast_to(a, shape) for a in checked]


def check_arrays(robot, *arrays, names=None):
    """Joint arrays of a tree's dynamic model, broadcast: ``(shape, [arrays])``.

    Refuses closed loops (the models of the tree structure; see ``robmod.dynamics.closed_loop``)
    and symbolic geometry; ``names`` (keyword) gives the argument names of the messages.
    """
    if robot_argument(robot).n_loops:
        raise ArgumentError(f"robot {robot.name!r} has closed loops: this dynamic model needs a "
                            "tree (robmod.dynamics.closed_loop gives the models of the actuated "
                            "joints)")
    require_numeric(robot, "the dynamic model", scope="geometry")
    names = names or [f"argument {k + 1}" for k in range(len(arrays))]
    checked = joint_arrays(robot, **dict(zip(names, arrays)))
    return checked[0].shape if checked else (), checked


#: entries of each array of a mobile or floating robot beyond its n_q joint entries
_BASE_ENTRIES = {"q": (7, "the base position and quaternion (x, y, z, Q0, Q1, Q2, Q3)"),
                 "qd": (6, "the base twist (V0, W0) in frame 0"),
                 "qdd": (6, "the base acceleration (dV0/dt, WP0) in frame 0"),
                 "q_start": (7, "the base pose"), "q_end": (7, "the base pose")}


def robot_arrays(robot, joint_only=(), **arrays) -> list[np.ndarray]:
    """The arrays of a robot's configuration (:mod:`robmod.description.base`), checked and
    broadcast against each other (in keyword order).  A fixed base: joint arrays (..., n_q)
    (:func:`joint_arrays`); a mobile or floating base: ``q`` (..., 7 + n_q), ``qd`` and
    ``qdd`` (..., 6 + n_q) (the base's entries first), ``tau`` and the arrays named in
    ``joint_only`` (..., n_q); the base quaternion must not be 0."""
    if robot_argument(robot).base_kind == "fixed":
        return joint_arrays(robot, **arrays)
    if robot.n_loops:
        raise ArgumentError(f"robot {robot.name!r} has closed loops: the models of a "
                            f"{robot.base_kind} base take trees")
    require_numeric(robot, "the numeric model", scope="geometry")
    n = robot.n_q
    checked = []
    for name, value in arrays.items():
        extra, what = (0, "") if name in joint_only else _BASE_ENTRIES.get(name, (0, ""))
        size = n + extra
        text = (f"{size} values ({what}, then {n} joint values)" if extra
                else f"{n} joint values ({_joint_names(robot)})")
        arr = finite_array(name, value, shape_text=f"{text}, shape (..., {size})")
        if arr.ndim == 0 or arr.shape[-1] != size:
            raise ArgumentError(f"argument {name} must have {text}, shape (..., {size}); got "
                                f"shape {arr.shape} (robot {robot.name!r} has a "
                                f"{robot.base_kind} base: its configuration holds the base's "
                                "pose, its velocity the base's twist)")
        if extra == 7 and np.any(np.einsum("...i,...i->...", arr[..., 3:7], arr[..., 3:7])
                                 < 1e-24):
            raise ArgumentError(f"argument {name}: the base quaternion (entries 4 to 7, "
                                "Q0 Q1 Q2 Q3) is zero: a unit quaternion is expected")
        checked.append(arr)
    try:
        shape = np.broadcast_shapes(*(a.shape[:-1] for a in checked))
    except ValueError:
        shapes = ", ".join(f"{k} {a.shape}" for k, a in zip(arrays, checked))
        raise ArgumentError(f"arguments {', '.join(arrays)} have batch shapes that do not "
                            f"broadcast together: {shapes}") from None
    return [np.broadcast_to(a, shape + a.shape[-1:]) for a in checked]


def tree_arrays(robot, base_acceleration=None, **arrays) -> list[np.ndarray]:
    """:func:`robot_arrays` of a tree's dynamic model (closed loops refused: their models are
    the actuated joints', ``robmod.dynamics.closed_loop``), with a mobile base's given
    ``base_acceleration`` (..., 6) last, broadcast with them, when it is not None."""
    if robot_argument(robot).n_loops:
        raise ArgumentError(f"robot {robot.name!r} has closed loops: this dynamic model needs a "
                            "tree (robmod.dynamics.closed_loop gives the models of the actuated "
                            "joints)")
    checked = robot_arrays(robot, **arrays)
    if base_acceleration is None:
        return checked
    a0 = finite_vector("base_acceleration", base_acceleration, 6, "values (VD0, WP0)")
    try:
        batch = np.broadcast_shapes(checked[0].shape[:-1], a0.shape[:-1])
    except ValueError:
        raise ArgumentError(f"the batch shapes of {', '.join(arrays)} and base_acceleration do "
                            "not broadcast together") from None
    return [np.broadcast_to(x, batch + x.shape[-1:]) for x in checked + [a0]]


def configuration(robot, value, name: str = "q") -> np.ndarray:
    """One configuration of the robot (1-D: :func:`robot_arrays`'s ``q``, no batch)."""
    (q,) = robot_arrays(robot, **{name: value})
    if q.ndim != 1:
        raise ArgumentError(f"argument {name} must be one configuration (a 1-D array of "
                            f"{q.shape[-1]} values), got shape {q.shape}")
    return q


def jacobian_array(J) -> np.ndarray:
    """A Jacobian: finite values of shape (..., m, n).  A robot is refused with the way to its
    Jacobian (the functions of a Jacobian take the Jacobian only)."""
    if hasattr(J, "frames") and hasattr(J, "links"):
        raise ArgumentError("these functions take a Jacobian array (..., m, n), not a robot: "
                            "compute it first, e.g. J = task_rows_jacobian(robot, q, j=..., "
                            "rows=...) or jacobian(robot, q, j=...)")
    J = finite_array("J", J, shape_text="a Jacobian array (..., m, n)")
    if J.ndim < 2:
        raise ArgumentError(f"a Jacobian must be (..., m, n), got shape {J.shape}")
    return J


def _joint_names(robot) -> str:
    names = [f"q{j}" for j in robot.joints]
    return ", ".join(names) if len(names) <= 8 else f"{names[0]} .. {names[-1]}"


def _base_hint(robot, arr) -> str:
    """What a mobile or floating robot's configuration array given to a function of its
    joints only says."""
    if robot.base_kind == "fixed" or not arr.ndim or arr.shape[-1] not in (robot.n_q + 6,
                                                                         robot.n_q + 7):
        return ""
    return (f" (robot {robot.name!r} has a {robot.base_kind} base: this function takes its "
            f"{robot.n_q} joint values only and does not model the base's motion)")


def _fixed_hint(robot, arr) -> str:
    fixed = [f.j for f in robot.frames[: robot.n_joints] if not f.is_joint]
    if fixed and arr.ndim and arr.shape[-1] == robot.n_joints:
        which = (f"frame {fixed[0]} is" if len(fixed) == 1
                 else f"frames {', '.join(map(str, fixed))} are")
        return f" ({which} fixed, sigma = 2, and takes no joint value)".replace(
            "are fixed, sigma = 2, and takes", "are fixed, sigma = 2, and take")
    return ""


__all__ = []
