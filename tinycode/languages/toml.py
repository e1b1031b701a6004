"""TOML: the standard library's tomllib (or tomli) judges it in process."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("toml", wheel("tree_sitter_toml"), (".toml",), words=("toml",), in_process="tomllib")
