"""The README shows the example files as they are: an editor's configuration in the
README is the file the tests start the server with."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_editor_snippets_are_the_tested_files():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    files = {path.read_text(encoding="utf-8") for path in (ROOT / "examples" / "editors").iterdir()}
    blocks = [m.group(1) for m in re.finditer(r"```(?:lua|toml|json)\n(.*?)```", readme, re.S)
              if "tinycode's language server" in m.group(1)]
    assert blocks, "the README shows no editor configuration"
    assert all(block in files for block in blocks)


def test_readme_is_a_guide_not_a_notebook():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 350, f"README.md has {lines} lines; measurements go to docs/benchmarks.md"
    for link in re.findall(r"\]\(((?:docs|examples)/[^)#]+)", (ROOT / "README.md").read_text(encoding="utf-8")):
        assert (ROOT / link).exists(), link
