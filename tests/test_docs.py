"""The code blocks of the user documentation run (README.md and docs/*.md, ```python blocks,
in order, each page in a fresh namespace and a scratch directory)."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("page", [p for p in DOCS if "```python" in p.read_text()],
                         ids=lambda p: p.name)
def test_doc_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)      # files the examples write land in a scratch directory
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    namespace = {"__name__": f"doc_{page.stem}"}
    for k, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page.name}[block {k + 1}]", "exec"), namespace)  # safe: our docs
        except Exception as e:  # name the block
            raise AssertionError(f"{page.name}, block {k + 1}: {type(e).__name__}: {e}") from e
