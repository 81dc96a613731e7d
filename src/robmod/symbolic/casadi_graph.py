"""The compiled graph builder of the CasADi export: a small C++ extension module that reads a
model's SymPy statements and makes their SX nodes in one pass (its source and what it does:
:mod:`.casadi_graph_walk`).

Why: the graph built through CasADi's Python bindings costs about a microsecond per node in
the walk over the SymPy expressions plus a few SWIG calls per level of the graph, more than
CasADi's own automatic differentiation of the inverse dynamics takes to make the same
derivatives (Panda: 20-25 ms for the 8,500 values of the IDM's derivatives against 6-11 ms);
in C++ the walk and the nodes cost about a tenth of a microsecond each.

How: compiled once per machine with the system's C++ compiler (``$CXX``, else Python's own,
``g++``, ``c++`` or ``clang++``) against the headers that the ``casadi`` wheel ships
(``casadi/include``) and linked to the wheel's own ``libcasadi`` (found through an rpath to
the wheel's directory: the library the ``casadi`` module loaded, one copy in the process),
with libstdc++'s string ABI of that library (``_GLIBCXX_USE_CXX11_ABI`` read from its symbol
names).  The shared object is cached on disk (:func:`.compile.cache_dir`) under a name made
of the hash of the source, the CasADi version and directory, the compiler and the Python
version; a later process loads it in a millisecond.  zig's clang is not used: its C++ library
(libc++) is not CasADi's.  Where it cannot be built (no C++ compiler, no Python or CasADi
headers, the compiler's error, another platform than Linux and macOS), :func:`graph_builder`
says why in one :class:`~robmod.errors.RobmodWarning` per process and returns None, and the
export builds the same graph in Python (a failed build is remembered on disk: no new attempt
until the source, CasADi or the compiler changes).
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import warnings
from pathlib import Path

from ..errors import RobmodWarning
from .casadi_graph_walk import SOURCE
from .compile import cache_dir, python_include

_LOCK = threading.Lock()
_STATE: dict = {}           # casadi's directory -> the module or None; "warned" -> True


def _cxx_command() -> list[str] | None:
    """The C++ compiler: ``$CXX`` when set (None if it does not exist), else Python's own,
    ``g++``, ``c++`` or ``clang++`` on PATH."""
    explicit = os.environ.get("CXX", "").strip()
    if explicit:
        words = shlex.split(explicit)
        found = shutil.which(words[0])
        return [found, *words[1:]] if found else None
    own = (sysconfig.get_config_var("CXX") or "").split()
    for name in (own[:1] or []) + ["g++", "c++", "clang++"]:
        found = shutil.which(name)
        if found:
            return [found]
    return None


def _library(directory: Path) -> Path | None:
    """The wheel's libcasadi (Linux: ``libcasadi.so``, macOS: ``libcasadi.dylib``)."""
    for name in ("libcasadi.so", "libcasadi.dylib"):
        if (directory / name).exists():
            return directory / name
    found = sorted(directory.glob("libcasadi.so.*"))
    return found[0] if found else None


def _abi_flags(library: Path) -> list[str]:
    """libstdc++'s string ABI of the library (its symbols name ``__cxx11`` in the new one);
    none for libc++ (macOS)."""
    if sys.platform == "darwin":
        return []
    with open(library, "rb") as f:
        new = b"__cxx11" in f.read()
    return [f"-D_GLIBCXX_USE_CXX11_ABI={int(new)}"]


_FLAGS = ["-O2", "-std=c++11", "-fPIC", "-shared"]


def _name(ca) -> tuple[str, Path, Path]:
    """(module name, path of its shared object, CasADi's directory): the hash of the source,
    the flags, CasADi's version and directory and Python's version (what the object depends
    on; libstdc++'s ABI, read from the library when compiling, follows from the library)."""
    directory = Path(ca.__file__).resolve().parent
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    digest = hashlib.sha256("\n".join([SOURCE, *_FLAGS, ca.__version__, str(directory),
                                       sys.version, suffix]).encode()).hexdigest()[:20]
    name = f"rm_casadi_graph_{digest}"
    return name, cache_dir() / f"{name}{suffix}", directory


def _compile(name, path, directory) -> str | None:
    """Build the shared object at ``path``; None, or why it cannot be built."""
    if not (sys.platform.startswith("linux") or sys.platform == "darwin"):
        return f"not built on this platform ({sys.platform})"
    cxx = _cxx_command()
    if cxx is None:
        return "no C++ compiler (install g++ or set $CXX)"
    inc = python_include()
    if inc is None:
        return "no Python headers (Python.h)"
    if not (directory / "include" / "casadi" / "casadi.hpp").exists():
        return f"the casadi package has no C++ headers ({directory / 'include'})"
    library = _library(directory)
    if library is None:
        return f"no libcasadi in {directory}"
    flags = [*_FLAGS, *_abi_flags(library), f"-I{directory / 'include'}", f"-I{inc}"]
    link = [f"-L{directory}", "-lcasadi", f"-Wl,-rpath,{directory}"]
    if sys.platform == "darwin":
        link.append("-Wl,-undefined,dynamic_lookup")     # Python's symbols from the process
    with tempfile.TemporaryDirectory(prefix="robmod-casadi-") as tmp:
        src = Path(tmp) / f"{name}.cpp"
        src.write_text(SOURCE.replace("RM_MODNAME", name))
        out = Path(tmp) / path.name
        try:
            res = subprocess.run([*cxx, *flags, str(src), "-o", str(out), *link],
                                 capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as e:
            return f"the C++ compiler did not run: {e}"
        if res.returncode != 0:
            lines = [ln for ln in res.stderr.splitlines() if "error" in ln] or \
                res.stderr.strip().splitlines() or ["no message"]
            return f"the C++ compiler failed ({' '.join(cxx)}): {lines[0].strip()}"
        tmp_path = path.with_name(f".{path.name}.{os.getpid()}")
        shutil.copyfile(out, tmp_path)
        os.replace(tmp_path, path)     # atomic: other processes see all or nothing
    return None


def _load(name, path):
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _make(ca):
    """The module, or a string saying why there is none.  A compiler's failure is remembered
    on disk next to the object (no new attempt in each process)."""
    name, path, directory = _name(ca)
    if not path.exists():
        failed = path.with_name(path.name + ".failed")
        if failed.exists():
            return failed.read_text(errors="replace").strip()
        why = _compile(name, path, directory)
        if why is not None:
            if why.startswith("the C++ compiler"):
                why += f" (remembered in {failed}: delete it to try again)"
                try:
                    failed.write_text(why)
                except OSError:
                    pass
            return why
    try:
        return _load(name, path)
    except ImportError as e:
        return f"the compiled builder does not load: {e}"


def graph_builder(ca):
    """The compiled builder's module for the ``casadi`` module ``ca`` (built or loaded once per
    process), or None after one warning saying why it cannot be built."""
    key = ca.__file__
    module = _STATE.get(key)
    if module is None and key not in _STATE:
        with _LOCK:
            if key not in _STATE:
                made = _make(ca)
                _STATE[key] = None if isinstance(made, str) else made
                if isinstance(made, str) and not _STATE.get("warned"):
                    _STATE["warned"] = True
                    warnings.warn(RobmodWarning(
                        f"robmod: to_casadi builds its graph in Python, 3-5 times slower: the "
                        f"compiled graph builder cannot be built: {made}"), stacklevel=3)
            module = _STATE[key]
    return module


__all__ = []
