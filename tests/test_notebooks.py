"""The tutorial notebooks (docs/tutorials/*.ipynb) execute without error (nbclient), and the
outputs stored in them -- what the documentation site shows, tables and figures -- are those
of a fresh run (docs/figures/execute_notebooks.py stores them)."""
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "docs" / "tutorials").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    stored = _kinds(nb)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    html = [o for o in outputs if "text/html" in o.get("data", {})]
    assert html, "the Robot and BaseParameters cells display HTML tables"
    assert any("image/png" in o.get("data", {}) for o in outputs), "a figure is shown"
    assert stored == _kinds(nb), ("the outputs stored in the notebook are stale: run "
                                  "python docs/figures/execute_notebooks.py")


def _kinds(nb):
    """Per code cell, the kinds of output (stream stdout, MIME types), stderr aside."""
    return [sorted({o.get("name", "") if o.get("output_type") == "stream" else m
                    for o in cell.get("outputs", [])
                    if not (o.get("output_type") == "stream" and o.get("name") == "stderr")
                    for m in (o.get("data") or {"": 0})})
            for cell in nb.cells if cell.cell_type == "code"]
