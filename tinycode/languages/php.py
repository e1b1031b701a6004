"""PHP: php -l judges it where installed."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("php", wheel("tree_sitter_php", "language_php"), (".php", ".phtml"),
                        interpreters=("php",), comment="//", block_comment=("/*", "*/"), words=("php",), judges=("php",),
                        heredoc_marks=("<<<",))
