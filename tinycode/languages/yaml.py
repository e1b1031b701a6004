"""YAML: PyYAML judges it in process where installed."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("yaml", wheel("tree_sitter_yaml"), (".yaml", ".yml"), aliases=("yml",),
                        words=("yaml", "yml"), in_process="PyYAML",
                        indentation_is_syntax=True, deep_indent_reported_early=True,
                        grammar_loses_place=True)
