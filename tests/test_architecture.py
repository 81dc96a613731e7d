"""The architecture rules: layers without upward imports, small modules, no private imports."""
import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "robmod"
MODULES = sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def test_layers_contract():
    """description < symbolic < geometry < kinematics < dynamics < identification < trajectory
    < control < cli, checked by import-linter (contract in pyproject.toml)."""
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(exe).exists():
        pytest.skip("import-linter is not installed")
    res = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_modules_are_small(path):
    assert len(path.read_text().splitlines()) <= 520, "split the module by responsibility"


def test_no_module_imports_another_modules_private_names():
    offenders = []
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        offenders.append(f"{path.relative_to(SRC)}:{node.lineno} {alias.name}")
    assert not offenders, "make them public in a small module:\n" + "\n".join(offenders)
