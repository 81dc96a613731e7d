"""Execute the tutorial notebooks and store their outputs (tables, figures) in the files, so
that the documentation site shows them without running anything at build time.

    python docs/figures/execute_notebooks.py

tests/test_notebooks.py executes the notebooks afresh and checks that the stored outputs are
those of a fresh run (same kinds of output in the same cells).  Messages on stderr (the
compilation notices) are not stored.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import nbclient
import nbformat

TUTORIALS = Path(__file__).resolve().parents[1] / "tutorials"


def execute(path: Path, workdir: str):
    """The notebook at ``path`` executed in ``workdir``, its figures inline (PNG outputs)."""
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": workdir}}).execute()
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs
                            if not (o.get("output_type") == "stream" and o.get("name") == "stderr")]
            cell.metadata.pop("execution", None)
    return nb


def main(paths):
    for path in paths or sorted(TUTORIALS.glob("*.ipynb")):
        with tempfile.TemporaryDirectory() as tmp:
            nb = execute(Path(path), tmp)
        nbformat.write(nb, path)
        print(f"{path}: executed, outputs stored")


if __name__ == "__main__":
    main(sys.argv[1:])
