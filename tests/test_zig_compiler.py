"""The compiled path without a system C compiler: the clang of the ``ziglang`` wheel.

A machine without gcc/cc on PATH and without CC (most Windows machines, macOS without the
command-line tools) gets the compiled path from ``python -m ziglang cc`` (the ``compiler``
extra); ``robmod --version`` and ``robmod warmup`` say which compiler builds the models.
"""
import os
import subprocess
import sys
import textwrap

import pytest

from robmod.symbolic import compile as compile_mod

pytest.importorskip("ziglang")


def hidden_compiler_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CC"}
    empty = tmp_path / "bin"
    empty.mkdir()
    env["PATH"] = str(empty)                   # no gcc, no cc, no clang
    env["ROBMOD_CACHE"] = str(tmp_path / "cache")
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["ZIG_GLOBAL_CACHE_DIR"] = str(tmp_path / "zig")     # zig's own cache fresh too: the
    env["ZIG_LOCAL_CACHE_DIR"] = str(tmp_path / "zig")      # very first compile on a machine
    return env


def test_the_compiler_command_falls_back_to_zig(monkeypatch, tmp_path):
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert compile_mod._compiler_command()[:4] == [sys.executable, "-m", "ziglang", "cc"]
    monkeypatch.setenv("CC", "no-such-compiler -O2")        # an explicit choice stays
    assert compile_mod._compiler_command() is None
    monkeypatch.setenv("CC", f"{sys.executable} -m ziglang cc")   # CC with its arguments
    assert compile_mod._compiler_command()[1:] == ["-m", "ziglang", "cc"]


def test_models_compile_and_run_with_zig_when_no_system_compiler(tmp_path):
    script = textwrap.dedent("""
        import numpy as np, robmod
        from robmod.symbolic.compile import CompiledModel, _compiler_command as compiler_command
        from robmod.dynamics.newton_euler import idm_model
        from robmod.dynamics import idm
        assert compiler_command()[1:4] == ["-m", "ziglang", "cc"], compiler_command()
        robot = robmod.load_robot("planar2", numeric=True)
        f = CompiledModel(idm_model(robot), backend="c")
        assert f.backend == "c"
        q = np.array([[0.3, -0.2], [1.0, 0.5]])
        fast = f(q, 0.5 * q, -q)
        many = np.random.default_rng(0).uniform(-2, 2, (300, 2))      # the vectorized kernel
        batch = f(many, many, many)
        one = np.array([f.single(x, x, x) for x in many])
        assert np.allclose(batch, one, rtol=1e-13, atol=1e-13)
        robmod.symbolic.fastpath.set_backend("numpy")
        slow = idm(robot, q, 0.5 * q, -q)
        assert np.allclose(fast, slow, rtol=1e-12, atol=1e-12), (fast, slow)
        print("ok")
    """)
    env = hidden_compiler_env(tmp_path)
    res = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().endswith("ok")
    assert list((tmp_path / "cache").glob("rm_*"))          # a shared object was built
    out = subprocess.run([sys.executable, "-m", "robmod", "--version"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert "zig cc" in out.stdout and "clang" in out.stdout, out.stdout + out.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the system libm of Linux")
def test_zig_links_against_the_system_libm_without_building_its_runtime(tmp_path, monkeypatch):
    """zig's first link of a program with its own C runtime builds that runtime (5-6 s, once
    per machine); linked with -nostdlib against the system's libm and libmvec it does not.  The
    vectorized sines of a native build need no CPU query from the compiler runtime either."""
    monkeypatch.setenv("ZIG_GLOBAL_CACHE_DIR", str(tmp_path / "zig"))
    monkeypatch.setenv("ZIG_LOCAL_CACHE_DIR", str(tmp_path / "zig"))
    zig = [sys.executable, "-m", "ziglang", "cc"]
    if not compile_mod._system_libm_links(zig):
        pytest.skip("no linkable libm.so / libmvec.so on this machine")
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(compile_mod, "_LINKS", {})
    monkeypatch.setattr(compile_mod, "_PROBES", {})
    assert compile_mod.compiler() is not None           # starts the probe, does not wait
    assert compile_mod._compiler_command()[-1] == "-nostdlib"     # waits for its answer
    assert "-DRM_NATIVE" in compile_mod._target_flags(zig)[0]     # built for this processor
    # zig built no compiler runtime of its own into its cache (the 5-6 s of a first link);
    # without a system compiler on PATH it may write its small libc_nonshared.a (0.3 s)
    built = [p.name for p in (tmp_path / "zig").rglob("*") if p.suffix in (".a", ".so")]
    assert not [b for b in built if "compiler_rt" in b], built
    from robmod.symbolic.vector_trig import PREPASS
    native = PREPASS.split("#if defined(RM_NATIVE)")[1].split("#else")[0]
    assert "__builtin_cpu_supports" not in native
