"""Argument checks at the boundary of every numeric function.

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

import functools
import inspect
import warnings
from typing import Mapping

import numpy as np

from ..errors import ArgumentError
from .io_common import did_you_mean
from .robot import DYNAMIC, GEOMETRIC


def symbols_used(robot, scope: str = "dynamics") -> frozenset:
    """Symbols left in the parameters a numeric model reads.

    ``scope='geometry'``: the geometric parameters of the frames (every numeric model reads
    them; a symbolic base or tool matrix is reported when a model uses it);
    ``'dynamics'``: also the base and tool matrices, the inertial parameters, gravity and
    base motion (limits excluded).
    """
    syms = set()
    for f in robot.frames:
        for k in GEOMETRIC:
            syms |= getattr(f, k).free_symbols
    if scope == "dynamics":
        for m in [robot.base] + [t.T for t in robot.tools]:
            syms |= m.free_symbols
        for link in robot.links:
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


def finite_array(name: str, value, *, shape_text: str | None = None) -> np.ndarray:
    """``value`` as a float array with only finite values; ``name`` is the argument's name."""
    if value is None:
        raise ArgumentError(f"argument {name} is missing (None): expected "
                          f"{shape_text or 'an array of numbers'}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as e:
        raise ArgumentError(f"argument {name} must be {shape_text or 'an array of numbers'}, "
                          f"got {_describe(value)} ({e})") from None
    if not np.all(np.isfinite(arr)):
        bad = "NaN" if np.any(np.isnan(arr)) else "an infinite value"
        raise ArgumentError(f"argument {name} holds {bad}: numeric functions refuse NaN and "
                          "infinite values instead of propagating them")
    return arr


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
        raise ArgumentError(f"argument {name} must be {shape_text}, got {_describe(value)} "
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
    n = robot.n_q
    expected = f"shape (..., {n})" if allow_batch else f"shape ({n},)"
    text = f"{n} joint values ({_joint_names(robot)}), {expected}"
    arr = finite_array(name, value, shape_text=text)
    if arr.ndim == 0 or arr.shape[-1] != n or (not allow_batch and arr.ndim != 1):
        raise ArgumentError(f"argument {name} must have {text}; got shape {arr.shape}"
                          + _fixed_hint(robot, arr))
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
    if robot.n_loops:
        raise ArgumentError(f"robot {robot.name!r} has closed loops: this dynamic model needs a "
                            "tree (robmod.dynamics.closed_loop gives the models of the actuated "
                            "joints)")
    require_numeric(robot, "the dynamic model", scope="geometry")
    names = names or [f"argument {k + 1}" for k in range(len(arrays))]
    checked = joint_arrays(robot, **dict(zip(names, arrays)))
    return checked[0].shape if checked else (), checked


def finite_vector(name: str, value, size: int, what: str = "values") -> np.ndarray:
    """Finite values of shape (..., size) (a batch of vectors: a wrench, a task velocity)."""
    arr = finite_array(name, value, shape_text=f"{size} {what} in its last dimension")
    if arr.shape[-1:] != (size,):
        raise ArgumentError(f"argument {name} must have {size} {what} in its last dimension, "
                            f"got shape {arr.shape}")
    return arr


def number_array(value, name: str = "the argument") -> np.ndarray:
    """``value`` as a float array (an ArgumentError for what is not numbers).  NaN propagates,
    as in NumPy's elementwise functions: for the elementwise helpers of ``robmod.geometry``;
    a function of a robot or a Jacobian takes :func:`finite_array`."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError) as e:
        raise ArgumentError(f"{name} must be an array of numbers, got {_describe(value)} "
                            f"({e})") from None


def vector_array(value, size: int, name: str = "the vector") -> np.ndarray:
    """:func:`number_array` of shape (..., size)."""
    x = number_array(value, name)
    if x.shape[-1:] != (size,):
        raise ArgumentError(f"{name} must have shape (..., {size}), got {x.shape}")
    return x


def broadcast(*arrays):
    """``np.broadcast_arrays`` with an ArgumentError naming the shapes that do not broadcast."""
    try:
        return np.broadcast_arrays(*arrays)
    except ValueError:
        raise ArgumentError("the arguments' batch shapes do not broadcast together: "
                            + ", ".join(str(np.shape(a)) for a in arrays)) from None


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


def _parameter_vector(name: str, value, size: int, what: str = "parameters") -> np.ndarray:
    """A 1-D vector of ``size`` finite numbers (e.g. a standard or base parameter vector)."""
    arr = finite_array(name, value, shape_text=f"{size} {what}, shape ({size},)")
    if arr.shape != (size,):
        raise ArgumentError(f"argument {name} must have {size} {what}, shape ({size},); "
                          f"got shape {arr.shape}")
    return arr


def _parameter_dict(name: str, value) -> dict:
    """A mapping of parameter names to finite numbers."""
    if not isinstance(value, Mapping):
        raise ArgumentError(f"argument {name} must be a mapping of parameter names to numbers, "
                          f"got {_describe(value)}")
    out = {}
    for k, v in value.items():
        if not isinstance(k, str) and not hasattr(k, "name"):
            raise ArgumentError(f"argument {name}: key {k!r} is not a parameter name")
        key = str(k)
        arr = finite_array(f"{name}[{key!r}]", v, shape_text="a number")
        if arr.ndim != 0:
            raise ArgumentError(f"argument {name}[{key!r}] must be a number, got shape "
                              f"{arr.shape}")
        out[key] = float(arr)
    return out


def positive_scalar(name: str, value, *, allow_zero: bool = False) -> float:
    """A finite number > 0 (or >= 0 with ``allow_zero``)."""
    arr = finite_array(name, value, shape_text="a number")
    if arr.ndim != 0:
        raise ArgumentError(f"argument {name} must be a number, got shape {arr.shape}")
    x = float(arr)
    if x < 0 or (x == 0 and not allow_zero):
        raise ArgumentError(f"argument {name} must be {'>= 0' if allow_zero else '> 0'}, "
                          f"got {x}")
    return x


def finite_output(what: str, out, **inputs) -> np.ndarray:
    """Return ``out`` if finite, else raise: the inputs were finite but too large (overflow).

    ``inputs``: the (already checked) arguments, to report their largest magnitude.
    """
    out = np.asarray(out)
    if np.all(np.isfinite(out)):
        return out
    sizes = ", ".join(f"max |{k}| = {np.max(np.abs(v)):.3g}" for k, v in inputs.items()
                      if np.size(v))
    raise ArgumentError(f"{what}: the result overflowed to a non-finite value; the inputs are "
                      f"too large ({sizes})")


# -- keyword options ------------------------------------------------------------------------
_KW = inspect.Parameter.KEYWORD_ONLY


def keyword_options(**options):
    """Make a public function's keyword options checked: an unknown keyword (a misspelt
    switch, ``idm(robot, q, qd, qdd, rotr=False)``) is an :class:`ArgumentError` naming the
    closest option (:func:`checked_options`), never Python's ``TypeError`` — nor one from deep
    inside.  Two ways, one check:

    * ``@keyword_options()`` on a function with keyword-only parameters: a thin wrapper
      that turns a call Python cannot bind into an ArgumentError (it costs about 0.1 us per
      call, nothing beside a model);
    * for the plain single-call functions (``idm``, ``ddm``, ``inertia_matrix``, ``dgm``,
      ``jacobian``, ``jdot_qdot``), whose call must stay as cheap as the compiled model
      behind it (a wrapper, or CPython's keyword-only defaults, cost 70-100 ns per call, 15-20
      % of a compiled DGM): ``@keyword_options(j=None, i=0)`` declares the options, which the
      function takes as ``f(robot, q, **options)`` with ``if options: opts =
      checked_options(f, options)`` first; no wrapper, and the displayed signature
      (``help``, ``inspect.signature``, the docs) has the declared keyword-only parameters.
    """
    def decorate(fn):
        sig = inspect.signature(fn)
        if options:
            params = [p for p in sig.parameters.values()
                      if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
            params += [inspect.Parameter(k, _KW, default=v) for k, v in options.items()]
            fn.__signature__ = sig.replace(parameters=params)
            fn.declared_options = dict(options)
            return fn

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except TypeError:
                try:
                    sig.bind(*args, **kwargs)
                except TypeError as e:
                    raise _binding_error(fn, sig, kwargs, e) from None
                raise
        return checked
    return decorate


def _binding_error(fn, sig, kwargs, error) -> ArgumentError:
    """The ArgumentError of a call of ``fn`` that Python cannot bind."""
    params = sig.parameters
    for key in kwargs:
        if key not in params or params[key].kind is inspect.Parameter.POSITIONAL_ONLY:
            try:
                checked_options(fn, {key: kwargs[key]})
            except ArgumentError as e:
                return e
    return ArgumentError(f"{fn.__name__}{sig}: {error}")


def checked_options(fn, given: dict, legacy: tuple = ()) -> dict:
    """The options of ``fn`` (see :func:`keyword_options`) with the keywords ``given``:
    unknown keywords are an :class:`ArgumentError` naming the closest option (difflib), a
    switch (a boolean option) takes True or False only.  ``legacy``: values given by position
    for the first declared options (the frames of ``dgm(robot, q, 6)``), accepted for one
    release with a DeprecationWarning."""
    declared = getattr(fn, "declared_options", {})
    name = fn.__name__
    params = inspect.signature(fn).parameters
    allowed = [k for k, p in params.items() if p.kind is _KW]
    for key in given:
        if key not in declared:
            raise ArgumentError(f"{name}() has no option {key!r}{did_you_mean(key, allowed)}; "
                                f"its options: {', '.join(allowed) or 'none'}")
    opts = dict(declared)
    if legacy:
        names = list(declared)[:len(legacy)]
        if len(legacy) > len(declared) or any(k in given for k in names):
            raise ArgumentError(f"{name}() takes {len(params) - len(allowed)} positional "
                                f"arguments; give {', '.join(allowed)} by keyword")
        warnings.warn(f"{name}(): give {', '.join(names)} by keyword "
                      f"({name}(..., {', '.join(f'{k}=...' for k in names)})): positional "
                      "options are deprecated", DeprecationWarning, stacklevel=3)
        opts.update(zip(names, legacy))
    for key, value in given.items():
        if isinstance(declared[key], bool) and not isinstance(value, (bool, np.bool_)):
            raise ArgumentError(f"{name}(): option {key} is a switch, True or False; got "
                                f"{value!r}")
        opts[key] = bool(value) if isinstance(declared[key], bool) else value
    return opts


def switched_off(fn, **switches) -> dict:
    """The switches that are off (the key of a model with terms left out), each checked to be
    True or False (an ArgumentError naming ``fn`` otherwise)."""
    off = {}
    for key, value in switches.items():
        if not isinstance(value, (bool, np.bool_)):
            raise ArgumentError(f"{fn.__name__}(): option {key} is a switch, True or False; "
                                f"got {value!r}")
        if not value:
            off[key] = False
    return off


def switches_set(fn, opts: dict) -> dict:
    """The options of ``opts`` that differ from ``fn``'s declared defaults (the key of a
    non-default compiled model)."""
    declared = fn.declared_options
    return {k: v for k, v in opts.items() if v is not declared[k] and v != declared[k]}


def _describe(value) -> str:
    if isinstance(value, str):
        return f"the string {value[:30]!r}"
    return type(value).__name__


def _joint_names(robot) -> str:
    names = [f"q{j}" for j in robot.joints]
    return ", ".join(names) if len(names) <= 8 else f"{names[0]} .. {names[-1]}"


def _fixed_hint(robot, arr) -> str:
    fixed = [f.j for f in robot.frames[: robot.n_joints] if not f.is_joint]
    if fixed and arr.ndim and arr.shape[-1] == robot.n_joints:
        which = (f"frame {fixed[0]} is" if len(fixed) == 1
                 else f"frames {', '.join(map(str, fixed))} are")
        return f" ({which} fixed, sigma = 2, and takes no joint value)".replace(
            "are fixed, sigma = 2, and takes", "are fixed, sigma = 2, and take")
    return ""


__all__ = []
