"""The code blocks of the user documentation run (docs/*.md, ```python blocks, in order)."""
import re
from pathlib import Path

import pytest

DOCS = sorted((Path(__file__).resolve().parents[1] / "docs").glob("*.md"))


@pytest.mark.parametrize("page", [p for p in DOCS if "```python" in p.read_text()],
                         ids=lambda p: p.name)
def test_doc_examples_run(page):
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    namespace = {"__name__": f"doc_{page.stem}"}
    for k, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page.name}[block {k + 1}]", "exec"), namespace)  # safe: our docs
        except Exception as e:  # name the block
            raise AssertionError(f"{page.name}, block {k + 1}: {type(e).__name__}: {e}") from e
