"""The system compiler builds for this processor (-march=native, no fused multiply-adds): the
same bits as the generic build, one cached object per kind of processor."""
import platform

import numpy as np
import pytest

import robmod
from robmod.dynamics.direct import ddm_model
from robmod.symbolic import compile as compile_mod


def _build(monkeypatch, tmp_path, native: bool):
    monkeypatch.setenv("ROBMOD_CACHE", str(tmp_path / ("native" if native else "generic")))
    if not native:
        monkeypatch.setattr(compile_mod, "_target_flags", lambda cc: [[]])
    model = ddm_model(robmod.load_robot("panda", numeric=True))
    name, source = compile_mod.extension_source(model)
    name = f"{name}_{'n' if native else 'g'}"          # two modules in one process
    ext = compile_mod.build_from_source(name, source.replace(
        name[:-2], name))
    if ext is None:
        pytest.skip("no C compiler")
    return ext, name


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                    reason="-march=native is tried on x86-64")
def test_native_build_gives_the_generic_bits(monkeypatch, tmp_path):
    cc = compile_mod._compiler_command()
    if cc is None:
        pytest.skip("no C compiler")
    assert "-DRM_NATIVE" in compile_mod._target_flags(cc)[0]
    native, name = _build(monkeypatch, tmp_path, True)
    assert (tmp_path / "native" / f"{name}.{compile_mod._machine_tag()}"
            f"{compile_mod.importlib.machinery.EXTENSION_SUFFIXES[0]}").exists()
    generic, _ = _build(monkeypatch, tmp_path, False)
    q = np.random.default_rng(3).uniform(-2, 2, (1000, 7))
    a, b = np.empty((1000, 7)), np.empty((1000, 7))
    native.batch(1000, q, 0.5 * q, 10 * q, a)
    generic.batch(1000, q, 0.5 * q, 10 * q, b)
    assert np.array_equal(a, b)          # vectorized kernels, sines included
    one = np.array(native.single(q[7], 0.5 * q[7], 10 * q[7]))
    assert np.array_equal(one, np.array(generic.single(q[7], 0.5 * q[7], 10 * q[7])))
