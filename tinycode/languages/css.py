"""CSS: postcss judges it beside tree-sitter where it is installed (``npm install -g postcss``)."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("css", wheel("tree_sitter_css"), (".css",), comment="", block_comment=("/*", "*/"), words=("css",),
                        judges=("postcss",), judge_input="input.css", judge_cost=1, judge_beside_parser=True)
