"""CSS: tree-sitter alone judges it."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("css", wheel("tree_sitter_css"), (".css",), comment="", words=("css",))
