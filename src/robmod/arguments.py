"""The checks of values and keyword options that every layer shares (no robot here).

Below every layer, like :mod:`robmod.errors`: the leaf package :mod:`robmod.spatial` and the
description layer import them; :mod:`robmod.description.arguments` adds the checks that need a
robot (joint arrays, numeric robots, trees) and re-exports these, so that a numeric function
imports its checks from one place.

* **Values**: :func:`finite_array` refuses NaN and infinities (a function of a robot or of a
  Jacobian), :func:`number_array` lets NaN propagate as NumPy's elementwise functions do (the
  helpers of :mod:`robmod.spatial`); both turn what is not numbers into an
  :class:`~robmod.errors.ArgumentError` naming the argument.
* **Keyword options** are keyword-only and checked at the entry: an unknown keyword (a
  misspelt switch, ``idm(robot, q, qd, qdd, rotr=False)``) is an :class:`ArgumentError`
  naming the closest option (:func:`checked_options`, :func:`close_matches`), never a
  ``TypeError`` from deep inside.
"""
from __future__ import annotations

import difflib
import functools
import inspect
import os

import numpy as np

from .errors import ArgumentError


def close_matches(key, allowed, n: int = 1) -> list:
    """The (at most ``n``) names of ``allowed`` closest to ``key``, any case (difflib)."""
    lower = {str(a).lower(): a for a in allowed}
    k = str(key).lower()
    if k in lower:
        return [lower[k]]
    return [lower[c] for c in difflib.get_close_matches(k, list(lower), n=n, cutoff=0.6)]


def did_you_mean(key, allowed) -> str:
    """`` (did you mean 'X'?)`` for the allowed key closest to ``key`` (any case), or ''."""
    close = close_matches(key, allowed)
    return f" (did you mean {close[0]!r}?)" if close else ""


def path_argument(path, what: str = "path"):
    """``path`` if it is a file path (a str or an os.PathLike), else an ArgumentError."""
    if isinstance(path, (str, os.PathLike)):
        return path
    raise ArgumentError(f"{what} must be a file path (str or pathlib.Path), got "
                        f"{_describe(path)}")


def text_argument(text, what: str = "text"):
    """``text`` if it is a str, else an ArgumentError."""
    if isinstance(text, str):
        return text
    raise ArgumentError(f"{what} must be text (str), got {_describe(text)}")


def records(value, what: str) -> list:
    """``value`` (a sequence of records: rows, frames, links) as a list, else an
    ArgumentError naming ``what``."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ArgumentError(f"{what} must be a sequence, got {_describe(value)}")
    return list(value)


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


def whole_number(name: str, value, *, minimum: int = 1, maximum: int | None = None,
                 what: str = "a whole number") -> int:
    """``value`` as an int from ``minimum`` to ``maximum`` (a bool, a float or a string is
    refused: an ArgumentError naming the argument)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or value < minimum or (maximum is not None and value > maximum):
        span = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
        got = repr(value) if isinstance(value, (int, float, np.number)) else _describe(value)
        raise ArgumentError(f"argument {name} must be {what} {span}, got {got}")
    return int(value)


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
            except (TypeError, AttributeError) as error:
                try:
                    bound = sig.bind(*args, **kwargs)
                except TypeError as e:
                    raise _binding_error(fn, sig, kwargs, e) from None
                wrong = _wrong_kind(fn, sig, bound.arguments)
                if wrong is not None and not isinstance(error, ArgumentError):
                    raise wrong from None
                raise
        return checked
    return decorate


#: the arguments every layer takes by these names, and what each must be: (what, attributes)
_KINDS = {"robot": ("a robmod Robot (load_robot, read_robot, make_robot)", ("frames", "links")),
          "ctx": ("a context (SymbolicContext, NumericContext)", ("var", "param", "joint")),
          "data": ("measured data (robmod.identification.MeasuredData, load_log)",
                   ("t", "q", "sampling_rate")),
          "est": ("an estimator (robmod.identification.DynamicIdentification)",
                  ("fit", "predict")),
          "bp": ("base parameters (robmod.identification.base_parameters)",
                 ("base", "standard", "base_robot"))}


def is_robot(value) -> bool:
    """Whether ``value`` is a robot (duck-typed: this module sits below the description)."""
    return all(hasattr(value, a) for a in _KINDS["robot"][1])


def robot_argument(robot, what: str = "robot"):
    """``robot`` if it is a robot, else an ArgumentError saying what ``what`` takes."""
    if not is_robot(robot):
        raise ArgumentError(f"{what} must be {_KINDS['robot'][0]}, got {_describe(robot)}")
    return robot


def model_argument(model, what: str):
    """``model`` if it is a customized model (``robmod.symbolic.CustomModel``, duck-typed:
    statements, inputs, outputs), else an ArgumentError naming ``what`` (the function)."""
    if not all(hasattr(model, a) for a in ("statements", "inputs", "outputs")):
        raise ArgumentError(f"{what}: model must be a customized model (CustomModel, e.g. "
                            f"robmod.dynamics.idm_model(robot)), got {_describe(model)}")
    return model


def _wrong_kind(fn, sig, arguments) -> ArgumentError | None:
    """The ArgumentError of a call whose robot or context is not one (checked only when the
    call failed: nothing on the success path), else None."""
    for name, (what, attrs) in _KINDS.items():
        if name not in arguments:
            continue
        value = arguments[name]
        if value is None and sig.parameters[name].default is None:
            continue
        if not all(hasattr(value, a) for a in attrs):
            return ArgumentError(f"{_name(fn)}(): {name} must be {what}, got {_describe(value)}")
    return None


def keyword_defaults(fn, exclude=()) -> dict:
    """The keyword-only options of ``fn`` (a function or a class) with their defaults, but
    ``exclude``: what a function that passes them on declares (``@keyword_options(
    **keyword_defaults(IdentificationModel))``), so that the defaults are written once."""
    params = inspect.signature(fn).parameters.values()
    return {p.name: p.default for p in params
            if p.kind is _KW and p.default is not p.empty and p.name not in exclude}


def _binding_error(fn, sig, kwargs, error) -> ArgumentError:
    """The ArgumentError of a call of ``fn`` that Python cannot bind."""
    params = sig.parameters
    for key in kwargs:
        if key not in params or params[key].kind is inspect.Parameter.POSITIONAL_ONLY:
            try:
                checked_options(fn, {key: kwargs[key]})
            except ArgumentError as e:
                return e
    return ArgumentError(f"{_name(fn)}{sig}: {error}")


def _name(fn) -> str:
    """``fn``'s name in messages: ``PID`` for ``PID.__init__``, ``PID.tuned`` for a
    classmethod, the function's name otherwise."""
    qual = getattr(fn, "__qualname__", fn.__name__)
    if qual.endswith(".__init__"):
        return qual[: -len(".__init__")]
    return qual if "." in qual and "<locals>" not in qual else fn.__name__


def checked_options(fn, given: dict) -> dict:
    """The options of ``fn`` (see :func:`keyword_options`) with the keywords ``given``:
    unknown keywords are an :class:`ArgumentError` naming the closest option (difflib), a
    switch (a boolean option) takes True or False only."""
    declared = getattr(fn, "declared_options", {})
    name = _name(fn)
    params = inspect.signature(fn).parameters
    allowed = [k for k, p in params.items() if p.kind is _KW]
    for key in given:
        if key not in declared:
            raise ArgumentError(f"{name}() has no option {key!r}{did_you_mean(key, allowed)}; "
                                f"its options: {', '.join(allowed) or 'none'}")
    opts = dict(declared)
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
    return "None" if value is None else type(value).__name__


__all__ = []
