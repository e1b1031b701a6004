"""Java: tree-sitter alone judges it."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("java", wheel("tree_sitter_java"), (".java",), comment="//", words=("java", "javac"))
