"""TypeScript (without JSX: that is ``tsx``): the ``typescript`` package's parser judges
it where ``tsc`` is installed."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec(
    "typescript", wheel("tree_sitter_typescript", "language_typescript"), (".ts", ".mts", ".cts"),
    aliases=("ts",), interpreters=("deno", "ts-node"), comment="//", block_comment=("/*", "*/"),
    words=("typescript", "ts", "tsc"), relatives=("javascript",),
    judges=("tsc",), judge_input="input.ts", judge_cost=2,
)
