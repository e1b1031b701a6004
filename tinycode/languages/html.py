"""HTML: tree-sitter alone judges it."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("html", wheel("tree_sitter_html"), (".html", ".htm", ".xhtml"), comment="", words=("html",))
