"""The layering contracts of pyproject.toml hold (import-linter; ``.ci/run`` runs them
too): no import cycles between sibling modules, no import up the layers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_are_kept():
    pytest.importorskip("importlinter")
    done = subprocess.run(
        [sys.executable, "-c",
         "import sys; from importlinter.cli import lint_imports; "
         "sys.exit(lint_imports(no_cache=True, no_logo=True))"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_no_module_imports_itself_back():
    """No cycle of any length between modules, a package and its own modules included
    (import-linter's sibling contract does not look there); the only arrows ignored are
    those the "no-cycles" contract of pyproject.toml names."""
    grimp = pytest.importorskip("grimp")
    from tinycode.config import toml_loads

    contracts = toml_loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    ignored = next(c for c in contracts if c["id"] == "no-cycles").get("ignore_imports", [])
    graph = grimp.build_graph("tinycode")
    for arrow in ignored:
        importer, imported = (part.strip() for part in arrow.split("->"))
        graph.remove_import(importer=importer, imported=imported)
    assert _cycles(graph) == []


def _cycles(graph) -> list[list[str]]:  # noqa: ANN001 - a grimp ImportGraph
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_only_the_language_records_test_a_language_by_name():
    """What differs by language is a field of its record: no module outside
    ``languages/`` compares a language with a name."""
    name_test = re.compile(r"language (==|!=|in|not in) [\"'(]")
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted((ROOT / "tinycode").rglob("*.py"))
             if "languages" not in path.relative_to(ROOT / "tinycode").parts[:1]
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if name_test.search(line)]
    assert found == []


def test_no_module_outside_the_language_records_tests_a_languages_name():
    """What differs by language comes from its record (pre-commit's ``languages/``): no
    ``== "python"``, ``!= "shell"`` or ``in ("c", "cpp")`` elsewhere in the package."""
    from tinycode.languages import records

    words = sorted({r.name for r in records()} | {"shell"}, key=len, reverse=True)
    # Output formats share a word with a language ("json"): those comparisons are of formats.
    formats = ("json",)
    quoted = "|".join(re.escape(w) for w in words if w not in formats)
    compared = re.compile(rf"""(?:==|!=)\s*["']({quoted})["']|["']({quoted})["']\s*(?:==|!=)"""
                          rf"""|\bin\s*[(\[{{][^)\]}}]*["']({quoted})["']""")
    found = []
    for path in sorted((ROOT / "tinycode").rglob("*.py")):
        if "languages" in path.relative_to(ROOT / "tinycode").parts[:1]:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if compared.search(line.split("#")[0]):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []
