"""TypeScript with JSX: judged as TypeScript is, its input named ``.tsx``."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("tsx", wheel("tree_sitter_typescript", "language_tsx"), (".tsx",), comment="//", block_comment=("/*", "*/"),
                        words=("tsx",), relatives=("typescript", "javascript"),
                        judges=("tsc",), judge_input="input.tsx", judge_cost=2)
