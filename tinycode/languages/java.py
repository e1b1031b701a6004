"""Java: javac's own parser judges it where a JDK is installed (``JAVA_HOME``, then ``PATH``)."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("java", wheel("tree_sitter_java"), (".java",), comment="//", block_comment=("/*", "*/"), words=("java", "javac"),
                        judges=("javac",), judge_input="input.java", judge_cost=1)
