"""TypeScript (without JSX: that is ``tsx``)."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec(
    "typescript", wheel("tree_sitter_typescript", "language_typescript"), (".ts", ".mts", ".cts"),
    aliases=("ts",), interpreters=("deno", "ts-node"), comment="//",
    words=("typescript", "ts", "tsc"), relatives=("javascript",),
)
