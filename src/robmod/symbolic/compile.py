"""The compiled fast path of a customized model.

The model's C code (:func:`~robmod.symbolic.export.to_c`) is wrapped in a tiny
CPython extension module (vectorcall functions taking buffers: a single call
costs a fraction of a microsecond) and compiled once with the system's C
compiler (``cc -O3``).  The shared object is cached on disk under a name made
of the hash of its source, compiler and Python version, so a second run (in
any process) loads it without compiling.  Without a compiler or Python
headers, the generated NumPy function serves instead (same results, slower).

Cache directory: ``$ROBMOD_CACHE`` or ``~/.cache/robmod``.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import math
import os
import platform
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path

import numpy as np

from ..errors import ArgumentError, RobmodError
from .export import c_layout, to_c
from .extension_wrapper import C_NOT_FINITE, C_WRAPPER
from .lanes import lanes_source
from .vector_trig import batch_source


def _vector_trig_enabled() -> bool:
    """Batched sin/cos by the vectorized pre-pass (``ROBMOD_VECTOR_TRIG=0`` turns it off)."""
    return os.environ.get("ROBMOD_VECTOR_TRIG", "1") != "0"


_CFLAGS = ["-O3", "-fPIC", "-shared", "-fno-math-errno", "-std=c99"]
_SHARE_CHUNK = 4096     # configurations a thread takes at a time from a shared batch
_CHUNK = 1 << 16


def cache_dir() -> Path:
    d = os.environ.get("ROBMOD_CACHE")
    path = Path(d) if d else Path.home() / ".cache" / "robmod"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _compiler_command(*, wait: bool = True) -> list[str] | None:
    """The C compiler's command: ``$CC`` when set (with its arguments; None if it does not
    exist: an explicit choice is not replaced by another compiler), else Python's own,
    ``gcc`` or ``cc`` on PATH, else the clang of the ``ziglang`` package
    (``python -m ziglang cc``: a compiler for every platform, installed with robmod).
    ``wait=False``: whether there is a compiler, without waiting for zig's link probe (it
    runs in the background meanwhile, while the first model is generated)."""
    explicit = os.environ.get("CC", "").strip()
    if explicit:
        words = shlex.split(explicit)
        found = shutil.which(words[0])
        return [found, *words[1:]] if found else None
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    found = shutil.which(cc) or shutil.which("gcc") or shutil.which("cc")
    if found:
        return [found]
    if importlib.util.find_spec("ziglang") is not None:
        zig = [sys.executable, "-m", "ziglang", "cc"]    # its flags: _target_flags
        if not wait:
            _start_probe(zig)
            return zig
        return zig + (["-nostdlib"] if _system_libm_links(zig) else [])
    return None


_LINKS: dict = {}
_PROBES: dict = {}
_PROBE_LOCK = threading.Lock()


def _start_probe(zig: list):
    """The link probe of :func:`_system_libm_links` started in a thread (once per process)."""
    key = tuple(zig)
    with _PROBE_LOCK:
        if key not in _PROBES and key not in _LINKS:
            _PROBES[key] = threading.Thread(target=_system_libm_links, args=(zig,),
                                            daemon=True)
            _PROBES[key].start()
    return _PROBES.get(key)


def _system_libm_links(zig: list) -> bool:
    """Whether zig can link an extension against this system's own libm and libmvec without
    building its C runtime (``-nostdlib``).  zig's first link otherwise builds its libc and
    compiler runtime into its cache: 5-6 s once per machine, longer than compiling the models.
    A probe of a few hundredths of a second, once per process (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    key = tuple(zig)
    probe = _PROBES.get(key)
    if probe is not None and probe is not threading.current_thread():
        probe.join()        # started earlier in the background: its answer
    with _PROBE_LOCK:
        known = _LINKS.get(key)
    if known is None:
        ok = False
        with tempfile.TemporaryDirectory(prefix="robmod-probe-") as tmp:
            src = Path(tmp) / "probe.c"
            src.write_text("#include <math.h>\ndouble rm_probe(double x) { return sin(x); }\n")
            try:
                res = subprocess.run([*zig, *_target_flags(zig)[0], *_CFLAGS, "-nostdlib",
                                      str(src), "-o",
                                      str(Path(tmp) / "probe.so"), "-lm", "-lmvec"],
                                     capture_output=True, text=True, timeout=120)
                ok = res.returncode == 0
            except (OSError, subprocess.SubprocessError):
                ok = False
        with _PROBE_LOCK:
            known = _LINKS.setdefault(key, ok)
    return known


def compiler() -> str | None:
    """The C compiler's command line (see :func:`_compiler_command`), or None."""
    cmd = _compiler_command(wait=False)
    return None if cmd is None else " ".join(cmd)


_DESCRIBED: dict = {}


def compiler_description() -> str:
    """Which compiler builds the compiled path, for ``robmod --version`` and ``robmod warmup``:
    its command and the first line of its ``--version`` ('none: NumPy path' without one)."""
    cmd = _compiler_command()
    if cmd is None:
        return "none (no C compiler: the NumPy path)"
    key = tuple(cmd)
    if key not in _DESCRIBED:
        try:
            res = subprocess.run([*cmd, "--version"], capture_output=True, text=True,
                                 timeout=60)
            first = (res.stdout or res.stderr).strip().splitlines()[0]
        except (OSError, subprocess.SubprocessError, IndexError):
            first = "version unknown"
        zig = _is_zig(cmd)
        cmd = cmd[:4] if zig else cmd
        name = "zig cc (the ziglang package)" if zig else " ".join(cmd)
        _DESCRIBED[key] = f"{name}: {first}"
    return _DESCRIBED[key]


def python_include() -> str | None:
    inc = sysconfig.get_paths().get("include")
    if inc and (Path(inc) / "Python.h").exists():
        return inc
    return None


def extension_source(model) -> tuple[str, str]:
    """(module name, C source) of the extension module for ``model``."""
    src, _ = to_c(model, "rm_model")
    groups, sizes = c_layout(model)
    nout = sum(sizes)
    gsizes = [len(model.inputs[g]) for g in groups]
    batched = [0 if g == "params" else 1 for g in groups]
    single_args = ", ".join([f"(const double *)PyArray_DATA(b[{k}])" for k in range(len(groups))]
                            + ["o"])
    out_dims = list(model.outputs[0].shape) if len(model.outputs) == 1 else [nout]
    parts = len(model.outputs) == 1 and model.outputs[0].parts and len(out_dims) > 1
    wrapper = C_WRAPPER
    vsrc, fused = None, False
    if _vector_trig_enabled():   # vectorized across configurations, else sin/cos pre-pass only
        vsrc = lanes_source(model, "rm_model")
        fused = vsrc is not None
        vsrc = vsrc or batch_source(model, "rm_model")
    if vsrc is not None:  # sin/cos of the batch from a vectorized pre-pass
        src += "\n" + vsrc
    consts = (f"#define RM_NG {len(groups)}\n#define RM_NOUT {nout}\n"
              f"static const Py_ssize_t rm_sizes[{max(len(groups), 1)}] = "
              f"{{{', '.join(map(str, gsizes)) or '0'}}};\n"
              f"static const int rm_batched[{max(len(groups), 1)}] = "
              f"{{{', '.join(map(str, batched)) or '0'}}};\n"
              f"#define RM_OUT_NDIM {len(out_dims)}\n"
              f"static const npy_intp rm_out_dims[{len(out_dims)}] = "
              f"{{{', '.join(map(str, out_dims))}}};\n"
              f"#define RM_CALL_SINGLE_TO(o) rm_model({single_args})\n"
              f"#define RM_CALL_SINGLE RM_CALL_SINGLE_TO((double *)PyArray_DATA(b[RM_NG]))\n"
              + (f"#define RM_PARTS {out_dims[0]}\n" if parts else "") +
              f"#define RM_CHECK_CHUNK 1024\n#define RM_SHARE_CHUNK {_SHARE_CHUNK}\n"
              + ("#define RM_FUSED_CHECK 1\n" if fused else "") +
              f"#define RM_CALL_RANGE(m, P, O) rm_model_{'v' if vsrc else ''}batch("
              f"{', '.join(['m'] + [f'P[{k}]' for k in range(len(groups))] + ['O'])})\n")
    digest = hashlib.sha256((C_NOT_FINITE + src + wrapper + consts + " ".join(_CFLAGS) + sys.version
                             + sysconfig.get_platform() + np.__version__).encode()).hexdigest()[:24]
    modname = f"rm_{digest}"
    full = (consts + "#include <string.h>\n" + C_NOT_FINITE
            + src.replace("#include <math.h>", "#include <math.h>\n") + wrapper)
    full = full.replace("RM_MODNAME", modname)
    # the wrapper needs Python.h and NumPy's C API first
    full = ("#define PY_SSIZE_T_CLEAN\n#include <Python.h>\n"
            "#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION\n"
            "#include <numpy/arrayobject.h>\n") + full
    return modname, full


def _build_extension(model, verbose: bool = False):
    """Compile (or load from the cache) the extension module of ``model``; None if impossible."""
    if compiler() is None or python_include() is None:
        return None
    modname, source = extension_source(model)
    return build_from_source(modname, source, verbose)


def _is_zig(cc: list) -> bool:
    return cc[1:4] == ["-m", "ziglang", "cc"]


def _target_flags(cc: list) -> list:
    """The flag sets to try in turn: every compiler builds for this processor where it can --
    one copy of the vectorized kernels (``RM_NATIVE``, see lanes.py; the vector sines chosen at
    compile time), no fused multiply-add (``-ffp-contract=off``: each configuration computed
    as the scalar function, the same bits as a generic build).

    * zig cc targets this processor by default; ``-fno-unroll-loops``: clang's unrolling of
      the kernels' loops over a block of configurations costs 30 % of the compile and gains
      nothing at run time (Panda DDM: 0.83 s instead of 1.17 s, the same bits, as fast).
    * the system gcc or clang on x86-64: ``-march=native``, then the generic build should the
      compiler refuse it.  Panda DDM with gcc 12: 40 % less compile time, 25 % less time per
      configuration in a batch."""
    if _is_zig(cc):
        return [["-ffp-contract=off", "-DRM_NATIVE", "-fno-unroll-loops"]]
    if (platform.machine().lower() in ("x86_64", "amd64")
            and any(w in Path(cc[0]).name for w in ("gcc", "clang", "cc"))):
        return [["-march=native", "-DRM_NATIVE", "-ffp-contract=off"], []]
    return [[]]


def _machine_tag() -> str:
    """A short digest of this processor (model and instruction-set flags): the compiled
    objects are built for it (``-march=native``), so a cache shared between machines (a home
    directory on a cluster) keeps one object per kind of processor."""
    global _TAG
    if _TAG is None:
        ident = platform.machine() + platform.processor()
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith(("model name", "flags", "Features", "CPU part")):
                        ident += line
                    if not line.strip():
                        break       # the first processor is enough
        except OSError:
            pass
        _TAG = hashlib.sha1(ident.encode()).hexdigest()[:8]
    return _TAG


_TAG = None


def _shared_object(modname: str) -> Path:
    """The cached shared object of the extension module ``modname`` on this processor."""
    return cache_dir() / f"{modname}.{_machine_tag()}{importlib.machinery.EXTENSION_SUFFIXES[0]}"


def load_extension(modname: str):
    """The cached extension module ``modname`` if its shared object is on disk, else None."""
    if modname in sys.modules:
        return sys.modules[modname]
    target = _shared_object(modname)
    if not target.exists():
        return None
    loader = importlib.machinery.ExtensionFileLoader(modname, str(target))
    spec = importlib.util.spec_from_file_location(modname, str(target), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules[modname] = module
    return module


def build_from_source(modname: str, source: str, verbose: bool = False):
    """Compile (or load from the cache) the extension module ``modname`` of C ``source``
    (from :func:`extension_source`: the name carries the hash of the source); None if
    impossible.  A process that only has the source (a remote worker) builds it here."""
    cc, inc = _compiler_command(), python_include()
    if cc is None or inc is None:
        return None
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    target = _shared_object(modname)
    if not target.exists():
        with tempfile.TemporaryDirectory(prefix="robmod-build-") as tmp:
            c_file = Path(tmp) / f"{modname}.c"
            c_file.write_text(source)
            out = Path(tmp) / f"{modname}{suffix}"
            res = None
            for extra in _target_flags(cc):
                cmd = [*cc, *extra, *_CFLAGS, f"-I{inc}", f"-I{np.get_include()}", str(c_file),
                       "-o", str(out), "-lm"]
                if "rm_vtrig" in source:  # glibc's vector math library when it links
                    res = subprocess.run(cmd[:len(cc)] + ["-DRM_MVEC"] + cmd[len(cc):]
                                         + ["-lmvec"], capture_output=True, text=True)
                if res is None or res.returncode != 0:
                    res = subprocess.run(cmd, capture_output=True, text=True)
                if res.returncode == 0:
                    break
            if res.returncode != 0:
                if verbose:
                    sys.stderr.write(res.stderr)
                return None
            tmp_target = target.with_name(f".{target.name}.{os.getpid()}")
            shutil.copyfile(out, tmp_target)
            os.replace(tmp_target, target)  # atomic: other processes see all or nothing
    return load_extension(modname)


class CompiledModel:
    """A callable evaluating a customized model on batches of configurations.

    ``f(q, qd, ..., params=None)``: each input group an array (..., len(group)),
    returns one array (..., *shape) per output (a tuple when several).
    ``f.single(...)``: one configuration, minimal overhead.
    ``backend`` is ``'c'`` or ``'numpy'``.
    """

    def __init__(self, model, backend: str = "auto"):
        self.model = model
        self.groups, self.sizes = c_layout(model)
        self.var_groups = [g for g in self.groups if g != "params"]
        self.nout = sum(self.sizes)
        self.shapes = [o.shape for o in model.outputs]
        self._ext = None
        if backend in ("auto", "c"):
            self._ext = _build_extension(model)
            if self._ext is None and backend == "c":
                raise RobmodError("backend='c': no C compiler or Python headers to compile the "
                                  "model (install gcc, or robmod[compiler] for zig cc)")
        self.backend = "c" if self._ext is not None else "numpy"
        self._np = model.numpy_function() if self._ext is None else None
        if self._ext is not None and not model.parameters:
            # the extension's function itself: no Python layer on the single-call path
            self.single = self._ext.single

    def _params(self, params):
        names = self.model.parameters
        if not names:
            return None
        if params is None:
            raise RobmodError(f"model needs params: {', '.join(map(str, names))}")
        if isinstance(params, np.ndarray):  # a parameter vector in model.parameters order
            if params.shape != (len(names),) or params.dtype != np.float64:
                raise RobmodError(f"params: expected {len(names)} float64 values in the order "
                                  f"{', '.join(map(str, names))}")
            return params
        try:  # read every call: a dict mutated between calls is never stale
            arr = np.array([float(params[str(s)]) for s in names])
        except KeyError as e:
            raise RobmodError(f"params: no value for {e.args[0]}") from None
        if not np.all(np.isfinite(arr)):
            raise RobmodError("params has NaN or infinite values")
        return arr

    def parameter_vector(self, params) -> np.ndarray:
        """The parameter vector of ``params`` (a dict), to pass as ``params=`` with no
        per-call dictionary lookups."""
        return self._params(params)

    def _split(self, flat, batch):
        outs, pos = [], 0
        for shape, size in zip(self.shapes, self.sizes):
            outs.append(flat[..., pos:pos + size].reshape(batch + tuple(shape)))
            pos += size
        return outs[0] if len(outs) == 1 else tuple(outs)

    def __call__(self, *inputs, params=None, out=None):
        """Batched evaluation.  ``out``: an optional preallocated C-contiguous float64 array
        of ``batch + (nout,)`` values (``out_buffer(batch)``), reused between calls: no
        allocation (and no page faults) on the hot path."""
        if len(inputs) != len(self.var_groups):
            raise ArgumentError(f"expected inputs {', '.join(self.var_groups)}, got "
                                f"{len(inputs)} arrays")
        arrays = [np.ascontiguousarray(x, dtype=float) for x in inputs]
        if self._ext is None:
            if params is None and self.model.parameters:
                raise ArgumentError("the model has parameters: give params=...")
            res = self._numpy_chunks(arrays, params)
            if out is not None:
                flat = np.concatenate([r.reshape(r.shape[:len(arrays[0].shape) - 1] + (-1,))
                                       for r in (res if isinstance(res, tuple) else (res,))],
                                      axis=-1)
                out.reshape(flat.shape)[...] = flat
                return self._split(out.reshape(flat.shape), flat.shape[:-1])
            return res
        batch = arrays[0].shape[:-1] if arrays else ()
        n = int(math.prod(batch))
        for g, a in zip(self.var_groups, arrays):
            if a.shape != batch + (len(self.model.inputs[g]),):
                raise ArgumentError(f"input {g} must have shape {batch + (len(self.model.inputs[g]),)}"
                                 f", got {a.shape}")
        p = self._params(params)
        args = arrays + ([p] if p is not None else [])
        if out is None:
            out = np.empty(batch + (self.nout,))
        elif (not isinstance(out, np.ndarray) or out.dtype != np.float64 or out.size != n * self.nout
              or not out.flags.c_contiguous or not out.flags.writeable):
            raise ArgumentError(f"out must be a writable C-contiguous float64 array of "
                             f"{n * self.nout} values (see out_buffer)")
        self._ext.batch(n, *args, out)
        return self._split(out.reshape(batch + (self.nout,)), batch)

    def out_buffer(self, batch) -> np.ndarray:
        """A preallocated output for ``batch`` (a shape or a count): pass it as ``out=``."""
        batch = (batch,) if isinstance(batch, (int, np.integer)) else tuple(batch)
        return np.empty(batch + (self.nout,))

    def _numpy_chunks(self, arrays, params):
        batch = arrays[0].shape[:-1] if arrays else ()
        n = int(math.prod(batch))
        if n <= _CHUNK:
            return self._np(*arrays, params=params)
        flat = [a.reshape(n, a.shape[-1]) for a in arrays]
        outs = None
        for i in range(0, n, _CHUNK):
            res = self._np(*[a[i:i + _CHUNK] for a in flat], params=params)
            res = res if isinstance(res, tuple) else (res,)
            if outs is None:  # preallocated: peak memory is the output plus one chunk
                outs = [np.empty((n,) + r.shape[1:]) for r in res]
            for o, r in zip(outs, res):
                o[i:i + _CHUNK] = r
        outs = [o.reshape(batch + o.shape[1:]) for o in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def single(self, *inputs, params=None):
        """One configuration (minimal overhead); returns an array of the output's shape
        (outputs concatenated when the model has several)."""
        if self._ext is None:
            res = self(*[np.asarray(x, dtype=float)[None] for x in inputs], params=params)
            return res[0] if not isinstance(res, tuple) else np.concatenate(
                [r[0].ravel() for r in res])
        p = self._params(params)
        if p is None:
            return self._ext.single(*inputs)
        return self._ext.single(*inputs, p)

    @property
    def raw_single(self):
        """The extension's own function ``f(inputs..., [params array])`` (no checks in Python):
        the fastest single call."""
        return self._ext.single if self._ext is not None else None


_MODULE_TAIL = r"""
static PyMethodDef methods[] = {
%s
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "RM_MODNAME", NULL, -1, methods};

PyMODINIT_FUNC PyInit_RM_MODNAME(void)
{
    import_array();
    return PyModule_Create(&moddef);
}
"""

_KERNELS: dict = {}


def kernel_module(prefix: str, source: str, methods):
    """The extension module of the hand-written C ``source`` (its functions ``PyObject
    *f(PyObject *self, PyObject *args)``) exposing ``methods`` ((name, C function, doc), ...):
    built once per machine (cached on disk by the hash of the source), loaded once per process;
    None without a C compiler."""
    key = (prefix, source, tuple(methods))
    if key not in _KERNELS:
        table = "\n".join(f'    {{"{n}", {f}, METH_VARARGS, "{d}"}},' for n, f, d in methods)
        full = source + _MODULE_TAIL % table
        name = prefix + hashlib.sha1(full.encode()).hexdigest()[:16]
        _KERNELS[key] = build_from_source(name, full.replace("RM_MODNAME", name))
    return _KERNELS[key]


def compile_model(model, backend: str = "auto") -> CompiledModel:
    return CompiledModel(model, backend)


__all__ = ["CompiledModel"]
