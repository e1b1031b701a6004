"""The languages and who judges each on this machine, as text for ``check -v``."""

from __future__ import annotations

from ..languages import supported_languages
from . import describe


def judges_table(languages: list[str] | None = None) -> str:
    """One line per language: its name and its judge here besides tree-sitter."""
    names = languages or supported_languages()
    judged = describe(names)
    width = max(len(n) for n in names)
    return "judges on this machine:\n" + "\n".join(f"  {n:<{width}}  {judged[n]}" for n in names)
