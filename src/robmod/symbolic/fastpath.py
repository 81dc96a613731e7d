"""Fast by default: the plain numeric functions run through the robot's compiled models.

``idm(robot, q, qd, qdd)``, ``inertia_matrix``, ``ddm``, ``gravity_torques``, ``dgm`` and
``jacobian`` evaluate the robot's *customized* model (Khalil & Dombre §7.5.2: the model written
for this robot, trivial operations removed) compiled to C, the same function that
``idm_model(robot).compile()`` gives; the NumPy evaluation of the general recursion is the
fallback, with the same results (1e-12).

When compilation happens (policy: ``ROBMOD_BACKEND`` or :func:`set_backend`):

* ``"auto"`` (default): a model already compiled for a robot of the same content -- in this
  process or an earlier one (an index under the cache directory) -- is used at once.  Otherwise
  the NumPy path serves until the time it has spent on that robot and model exceeds the compile
  budget (``ROBMOD_COMPILE_AFTER`` seconds, default 1.0, about what compiling costs), then the
  model is generated and compiled once and the compiled function serves every later call (a
  one-line notice on stderr, once per process).  A single call never pays for compilation;
  a loop pays at most about twice the best choice made in hindsight.
* ``"compiled"``: compile at the first call.
* ``"numpy"``: never compile (also what happens without a C compiler).

:func:`warmup` compiles a robot's models ahead of time (CLI: ``robmod warmup ROBOT``);
:func:`robmod.symbolic.clear` forgets the compiled functions of this process (their entries
live in the one cache, :mod:`.cache`, keyed by the robot's content); the shared objects live
in the cache directory (``$ROBMOD_CACHE`` or ``~/.cache/robmod``), which may be deleted at any
time.

Whether the fast path applies is one predicate, :func:`_applies`: the robot is a tree (a
closed loop's models are those of its actuated joints, NumPy functions of their own); every
plain function's customized model takes and gives its arrays (mimic joints, mobile and
floating bases included).  A fast path that cannot build -- no C compiler, a compiler that
fails -- says so once (a :class:`~robmod.errors.RobmodWarning` naming why and what to
install), never runs 100-1000 times slower in silence, and never swallows robmod's own errors
(a model that cannot be generated raises them).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ..errors import ArgumentError, RobmodError, RobmodWarning
from .cache import cached, on_clear

_POLICIES = ("auto", "compiled", "numpy")
_THREAD_MIN = 20000          # batches at least this large are split over the cores
_STATE = {"policy": os.environ.get("ROBMOD_BACKEND", "auto"), "told": False, "pool": None}
_NUMPY_ONLY = [_STATE["policy"] == "numpy"]   # read on every call: a list, not a lookup
_ENTRIES: list = []         # the entries made in this process (reset by clear())
_LOCK = threading.Lock()


def _applies(robot) -> bool:
    """The one predicate of the fast path: the robot's plain functions have a compiled model
    (a tree; closed loops take the models of their actuated joints)."""
    return not robot.n_loops


def set_backend(policy: str) -> str:
    """Set the policy (``"auto"``, ``"compiled"`` or ``"numpy"``); returns the previous one."""
    if not isinstance(policy, str) or policy not in _POLICIES:
        raise ArgumentError(f"backend must be one of {', '.join(_POLICIES)}, got {policy!r}")
    old, _STATE["policy"] = _STATE["policy"], policy
    _NUMPY_ONLY[0] = policy == "numpy"
    return old


def backend() -> str:
    p = _STATE["policy"]
    if p not in _POLICIES:
        raise RobmodError(f"ROBMOD_BACKEND must be one of {', '.join(_POLICIES)}, got {p!r}")
    return p


def _budget() -> float:
    try:
        return float(os.environ.get("ROBMOD_COMPILE_AFTER", "1.0"))
    except ValueError:
        raise RobmodError("ROBMOD_COMPILE_AFTER must be a number of seconds") from None


class _FastFunction:
    """A compiled model bound to its parameter vector: ``single`` for one configuration
    (checks in C; None when the inputs are not clean 1-D float arrays), ``batch`` for arrays
    with leading dimensions (split over the cores above :data:`_THREAD_MIN` samples)."""

    __slots__ = ("ext", "sizes", "shape", "params", "nout", "single", "spare")

    def __init__(self, ext, sizes, shape, params):
        self.ext, self.sizes, self.shape = ext, tuple(sizes), tuple(shape)
        self.params = params
        self.nout = math.prod(self.shape)
        self.spare = _Spare()
        if params is None:
            self.single = ext.checked      # no Python layer on the single-call path
        else:
            checked = ext.checked
            self.single = lambda *xs: checked(*xs, params)

    def clean(self, xs):
        """``xs`` as they are when they are float64 C-contiguous arrays of one batch shape and
        the model's sizes (the common case: no conversion, no broadcast), else None."""
        sizes = self.sizes[:-1] if self.params is not None else self.sizes
        if len(xs) != len(sizes):
            return None
        batch = None
        for x, size in zip(xs, sizes):
            if (type(x) is not np.ndarray or x.dtype != np.float64 or x.ndim < 2
                    or x.shape[-1] != size or not x.flags.c_contiguous):
                return None
            if batch is None:
                batch = x.shape[:-1]
            elif x.shape[:-1] != batch:
                return None
        return xs

    def batch(self, *arrays, check=False):
        """``arrays`` broadcast to batch + (size,).  ``check``: the C code checks that every
        input and output value is finite (in each thread) and None is returned if not."""
        batch = arrays[0].shape[:-1]
        n = math.prod(batch)
        flat = [np.ascontiguousarray(a.reshape(n, a.shape[-1]), dtype=float) for a in arrays]
        extra = [] if self.params is None else [self.params]
        out = self.spare.take(n, self.nout)
        run = self.ext.checked_batch if check else self.ext.batch
        workers = os.cpu_count() or 1
        if n >= _THREAD_MIN and workers > 1:
            ok = _split(run, n, flat, extra, out, workers)
        else:
            ok = run(n, *flat, *extra, out) is not False
        return out.reshape(batch + self.shape) if ok else None


def _split(run, n, flat, extra, out, workers):
    """``run`` on the batch by this thread and ``workers - 1`` others, which take chunks of it
    in turn through a shared counter, in C: this one starts at once (waking a thread costs
    0.1-0.2 ms on a virtual machine) and a core the machine gives to someone else for a while
    holds nobody back.  True when every chunk's checks passed."""
    pool = _STATE["pool"]
    if pool is None:
        pool = _STATE["pool"] = ThreadPoolExecutor(max_workers=workers - 1)
    args = (n, *flat, *extra, out, np.zeros(1, dtype=np.int64))
    helpers = [pool.submit(run, *args) for _ in range(workers - 1)]
    ok = run(*args) is not False
    # a helper not started yet finds nothing left: not waited for
    return all([h.cancel() or h.result() is not False for h in helpers]) and ok


class _Spare:
    """The last large outputs of one compiled function, reused once their user has let them
    go: a new array of tens of megabytes costs the kernel's page faults (on the Panda's
    inertia matrix, 10^5 configurations: ~45 ns per configuration, as much as computing it)
    and an array given back to the allocator is unmapped at once.  An array is reused only
    when this holder's is its last reference (no view, no name left anywhere), so no caller
    can see it change; two are kept, so ``M = inertia_matrix(robot, q)`` in a loop reuses
    the one before last.  :func:`clear` lets them go."""

    __slots__ = ("arrays", "lock")
    SIZES = (1 << 22, 1 << 27)      # outputs of 4 MiB to 128 MiB are kept

    def __init__(self):
        self.arrays, self.lock = [], threading.Lock()

    def take(self, n, nout):
        if not self.SIZES[0] <= 8 * n * nout <= self.SIZES[1]:
            return np.empty((n, nout))
        with self.lock:
            for k in range(len(self.arrays)):
                # references: the list's and getrefcount's argument only
                if self.arrays[k].shape[0] == n and sys.getrefcount(self.arrays[k]) == 2:
                    return self.arrays[k]
            out = np.empty((n, nout))
            self.arrays = self.arrays[-1:] + [out]
            return out


class _Entry:
    """The state of one (robot content, model) pair: NumPy time spent, compiled function."""

    __slots__ = ("fn", "spent", "unsupported", "key", "index")

    def __init__(self, index):
        self.fn, self.spent, self.unsupported, self.index = None, 0.0, False, index

    def reset(self):
        self.fn, self.spent, self.unsupported, self.index = None, 0.0, False, None


def source_stamp() -> str:
    """A stamp of robmod's own source files: an edited generator never reuses an old index."""
    stamp = _STATE.get("stamp")
    if stamp is None:
        h = hashlib.sha256(sys.version.encode())
        root = Path(__file__).resolve().parents[1]
        for f in sorted(root.rglob("*.py")):
            st = f.stat()
            h.update(f"{f.relative_to(root)}:{st.st_size}:{st.st_mtime_ns};".encode())
        stamp = _STATE["stamp"] = h.hexdigest()[:16]
    return stamp


def _index_path(robot, key) -> Path:
    from .compile import cache_dir

    digest = hashlib.sha256(f"{source_stamp()}|{robot.content_key!r}|{key!r}".encode())
    return cache_dir() / "index" / f"{digest.hexdigest()[:32]}.json"


def entry(robot, key) -> _Entry:
    """The entry of ``robot`` and model ``key``: in the one cache (:mod:`.cache`, shared by
    equal robots), and kept on the robot (immutable data) for the next calls."""
    own = robot.__dict__.get("_fastpath")
    if own is None:
        own = robot.__dict__["_fastpath"] = {}
    e = own.get(key)
    if e is None:
        e = own[key] = cached(("fastpath", robot.content_key, key), _new_entry)
    return e


def _new_entry():
    e = _Entry(None)
    with _LOCK:
        _ENTRIES.append(e)
    return e


def _values(robot, names):
    try:
        vals = np.array([float(robot.values[str(s)]) for s in names])
    except (KeyError, TypeError, ValueError):
        return None
    return vals if np.all(np.isfinite(vals)) else None


def _load_indexed(e, robot, key):
    from .compile import load_extension

    if e.index is None:
        try:
            e.index = _index_path(robot, key)
        except OSError:
            return None
    try:
        meta = json.loads(e.index.read_text())
    except (OSError, ValueError):
        return None
    ext = load_extension(meta["module"])
    if ext is None or not hasattr(ext, "checked_batch"):
        return None
    params = _values(robot, meta["params"]) if meta["params"] else None
    if meta["params"] and params is None:
        return None
    return _FastFunction(ext, meta["sizes"], meta["shape"], params)


def _compile(e, robot, key, build):
    """Generate and compile; None (and the entry marked unsupported) when impossible."""
    from .compile import (python_include, build_from_source, compiler, compiler_description,
                          extension_source)
    from .export import c_layout

    if compiler() is None or python_include() is None:
        e.unsupported = True
        _warn_once("no_cc", "no C compiler (or no Python headers) found: the numeric functions "
                   "use their NumPy path, 100-1000 times slower; install gcc (or pip install "
                   "'robmod[compiler]': a clang for every platform) and the Python headers "
                   "for the compiled path")
        return None
    model = build()          # robmod's own errors are the caller's to see
    if model is None:
        e.unsupported = True
        return None
    params = None
    if model.parameters:
        params = _values(robot, model.parameters)
        if params is None:
            e.unsupported = True
            return None
    if not _STATE["told"]:
        _STATE["told"] = True
        sys.stderr.write(f"robmod: compiling the models of {robot.name} for the fast path "
                         "(once; cached on disk; robmod.warmup(robot) does it ahead of time)\n")
    modname, source = extension_source(model)
    ext = build_from_source(modname, source)
    if ext is None:
        e.unsupported = True
        _warn_once("cc_failed", f"the C compiler could not build the model {model.name} "
                   f"({compiler_description()}): its NumPy path serves, 100-1000 times "
                   "slower; robmod.symbolic.compile.build_from_source(*extension_source(model), "
                   "verbose=True) prints the compiler's message; pip install "
                   "'robmod[compiler]' gives a clang that builds for every platform")
        return None
    groups, sizes = c_layout(model)
    shape = model.outputs[0].shape if len(model.outputs) == 1 else (sum(sizes),)
    gsizes = [len(model.inputs[g]) for g in groups]
    try:
        path = e.index or _index_path(robot, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"module": modname, "sizes": gsizes, "shape": list(shape),
                                   "params": [str(p) for p in model.parameters]}))
        os.replace(tmp, path)
    except OSError:
        pass
    return _FastFunction(ext, gsizes, shape, params)


def _warn_once(what, message) -> None:
    """A RobmodWarning, once per process for each ``what``."""
    if not _STATE.get(what):
        _STATE[what] = True
        warnings.warn(RobmodWarning(f"robmod: {message}"), stacklevel=4)


def _lookup(robot, key, build, *, force=False):
    """The compiled function of ``robot`` for model ``key`` if the policy gives one now, else
    None (the caller takes its NumPy path and reports the time with :func:`_spent`).
    ``build()`` returns the customized model whose single output is exactly what the plain
    function returns, or None if the fast path does not apply to this robot."""
    e = entry(robot, key)
    if e.fn is not None:
        return e.fn
    if e.unsupported:
        return None
    if not _applies(robot):
        e.unsupported = True
        return None
    policy = "compiled" if force else backend()
    if policy == "numpy":
        return None
    if e.spent == 0.0 or force:            # first look: an earlier run may have compiled it
        fn = _load_indexed(e, robot, key)
        if fn is not None:
            e.fn = fn
            return fn
        if e.spent == 0.0:
            e.spent = 1e-12
    if policy == "compiled" or e.spent >= _budget():
        e.fn = _compile(e, robot, key, build)
    return e.fn


_NONE: dict = {}


class Spec:
    """How a plain function uses the fast path: ``build(robot, opts)`` -> the customized model
    whose single output is the plain function's (or None: not for this robot);
    ``check(robot, *xs)`` -> the inputs checked and broadcast to batch + (size,);
    ``numpy(robot, opts, *xs)`` -> the NumPy evaluation (with its own checks)."""

    __slots__ = ("build", "check", "numpy")

    def __init__(self, build, check, numpy):
        self.build, self.check, self.numpy = build, check, numpy


def evaluate(robot, key, spec, opts, *xs):
    """A plain numeric function's body: the compiled model of ``robot`` for ``key`` when the
    policy gives one (one configuration checked in C, batches by ``spec.check``), else the
    NumPy path, timed against the compile budget.  Any input the compiled path does not take
    cleanly (NaN, wrong shapes, overflow) goes to the NumPy path, whose checks name the
    argument."""
    try:
        e = robot.__dict__.get("_fastpath", _NONE).get(key)
    except AttributeError:
        raise ArgumentError(f"robot must be a robmod Robot (load_robot, read_robot, "
                            f"make_robot), got {type(robot).__name__}") from None
    fn = e.fn if e is not None and not _NUMPY_ONLY[0] else None
    if fn is None and not _NUMPY_ONLY[0]:
        fn = _lookup(robot, key, lambda: spec.build(robot, opts))
    if fn is not None:
        out = fn.single(*xs)    # the common case: one clean configuration, checked in C
        if out is None:
            out = _batch_or_converted(fn, spec, robot, xs)
        if out is not None:
            return out
    t0 = time.perf_counter()
    try:
        return spec.numpy(robot, opts, *xs)
    finally:
        _spent(robot, key, time.perf_counter() - t0)


def _batch_or_converted(fn, spec, robot, xs):
    """The compiled function's result for what its single-call entry did not take (batches,
    lists, views), or None when an input or output is not clean."""
    clean = fn.clean(xs)
    if clean is not None:           # NumPy batches as they are: finiteness checked in C
        return fn.batch(*clean, check=True)
    arrays = spec.check(robot, *xs)
    if arrays[0].ndim > 1:
        return fn.batch(*arrays, check=True)
    # lists, integers, views of one configuration: converted, then the single-call entry
    return fn.single(*(np.ascontiguousarray(a, dtype=float) for a in arrays))


def _spent(robot, key, seconds: float) -> None:
    entry(robot, key).spent += seconds


def _timed(robot, key, fn, *args, **kw):
    """``fn(*args, **kw)`` with its time counted against the compile budget."""
    t0 = time.perf_counter()
    try:
        return fn(*args, **kw)
    finally:
        _spent(robot, key, time.perf_counter() - t0)


def _reset() -> None:
    """The entries of this process reset in place (robots hold them): no compiled function,
    no output kept for reuse."""
    with _LOCK:
        for e in _ENTRIES:
            e.reset()
        _ENTRIES.clear()


on_clear(_reset)

__all__ = ["set_backend", "backend"]
