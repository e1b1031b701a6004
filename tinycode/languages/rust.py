"""Rust: rustfmt judges it where installed."""

from __future__ import annotations

import re

from .base import LanguageSpec, wheel

# A module declared by name, its items in a file of its own: ``mod util;``.
_MODULE_FILE = re.compile(r"^([ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?mod[ \t]+\w+[ \t]*);", re.MULTILINE)


def modules_inline(source: str) -> str:
    """``source`` with each ``mod name;`` made ``mod name {}``."""
    return _MODULE_FILE.sub(r"\1{}", source)


LANGUAGE = LanguageSpec("rust", wheel("tree_sitter_rust"), (".rs",), aliases=("rs",), comment="//", block_comment=("/*", "*/"),
                        words=("rust", "rustc"), judges=("rustfmt",),
                        not_at_top_level=("let_declaration",), judge_text=modules_inline)
