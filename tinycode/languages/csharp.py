"""C#: tree-sitter alone judges it."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("csharp", wheel("tree_sitter_c_sharp"), (".cs",), aliases=("c#", "cs", "c_sharp"),
                        comment="//", block_comment=("/*", "*/"), words=("csharp",))
