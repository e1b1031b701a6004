"""Rust: rustfmt --check judges it where installed."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("rust", wheel("tree_sitter_rust"), (".rs",), aliases=("rs",), comment="//", block_comment=("/*", "*/"),
                        words=("rust", "rustc"), judges=("rustfmt",),
                        not_at_top_level=("let_declaration",))
