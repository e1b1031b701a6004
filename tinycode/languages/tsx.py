"""TypeScript with JSX."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("tsx", wheel("tree_sitter_typescript", "language_tsx"), (".tsx",), comment="//",
                        words=("tsx",), relatives=("typescript", "javascript"))
