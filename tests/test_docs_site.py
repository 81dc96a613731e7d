"""The documentation site builds with `mkdocs build --strict` (no warning: broken links and
anchors, pages left out of the nav, docstrings griffe cannot read), and its API pages show
every name each package exports (its ``__all__``)."""
import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["robmod", "robmod.spatial", "robmod.description", "robmod.symbolic",
            "robmod.geometry", "robmod.kinematics", "robmod.dynamics", "robmod.identification",
            "robmod.trajectory", "robmod.control", "robmod.plot", "robmod.viewer",
            "robmod.distributed"]


def exported(package):
    """The names of ``__all__`` in the package's __init__.py, read without importing it."""
    path = ROOT / "src" / Path(*package.split(".")) / "__init__.py"
    names = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                names += ast.literal_eval(node.value)
    return names


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    mkdocs = Path(sys.executable).with_name("mkdocs")
    command = [str(mkdocs)] if mkdocs.exists() else [sys.executable, "-m", "mkdocs"]
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    res = subprocess.run(command + ["build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, \
        f"mkdocs build --strict failed (the `docs` extra installed?):\n{res.stdout}{res.stderr}"
    return out


def test_site_builds(site):
    assert (site / "index.html").exists()
    assert (site / "tutorials" / "tour" / "index.html").exists()
    for page in ["getting-started", "geometry", "dynamics", "cli", "references", "viewer"]:
        assert (site / page / "index.html").exists(), page
    # readers who run nothing see the notebooks' tables and figures, and a simulation move
    for notebook in ("tour", "identification"):
        html = (site / "tutorials" / notebook / "index.html").read_text()
        assert "<table" in html and "data:image/png;base64" in html, notebook
    assert (site / "images" / "simulation.gif").exists()
    assert "simulation.gif" in (site / "viewer" / "index.html").read_text()


@pytest.mark.parametrize("package", PACKAGES)
def test_api_page_shows_every_exported_name(site, package):
    page = "robmod" if package == "robmod" else package.split(".")[1]
    html = (site / "api" / page / "index.html").read_text()
    ids = set(re.findall(r'id="(%s\.[A-Za-z_0-9.]+)"' % re.escape(package), html))
    missing = [n for n in exported(package) if f"{package}.{n}" not in ids]
    assert not missing, f"{package}: not on its API page: {missing}"
