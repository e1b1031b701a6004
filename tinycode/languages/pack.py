"""The long tail: languages whose grammar tree-sitter-language-pack (<1) serves, when
installed (versions >=1 download parsers at run time, so it stays below 1)."""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .base import GrammarLoader, LanguageSpec

if TYPE_CHECKING:
    import tree_sitter


@lru_cache(maxsize=1)
def installed() -> bool:
    try:
        importlib.import_module("tree_sitter_language_pack")
    except ImportError:
        return False
    return True


def _grammar(name: str) -> GrammarLoader:
    def load() -> "tree_sitter.Language":
        from tree_sitter_language_pack import get_language

        return get_language(name)  # type: ignore[arg-type]

    return load


def _record(name: str, extensions: tuple[str, ...], **more: Any) -> LanguageSpec:
    return LanguageSpec(name, _grammar(name), extensions, available=installed, **more)


# In the order ``supported_languages()`` lists them.
LANGUAGES: tuple[LanguageSpec, ...] = (
    _record("clojure", (".clj", ".cljs", ".cljc")),
    _record("dart", (".dart",)),
    _record("dockerfile", (".dockerfile",), filenames=("Dockerfile",)),
    _record("elixir", (".ex", ".exs")),
    _record("elm", (".elm",), indentation_is_syntax=True),
    _record("erlang", (".erl", ".hrl")),
    _record("fortran", (".f90", ".f95")),
    _record("groovy", (".groovy", ".gradle")),
    _record("haskell", (".hs",), indentation_is_syntax=True),
    _record("hcl", (".tf", ".hcl")),
    _record("julia", (".jl",)),
    _record("kotlin", (".kt", ".kts")),
    _record("lua", (".lua",)),
    _record("make", (".mk",), filenames=("Makefile",), indentation_is_syntax=True),
    _record("markdown", (".md",)),
    _record("nim", (".nim",), indentation_is_syntax=True),
    _record("objc", (".m",)),
    _record("ocaml", (".ml",)),
    _record("perl", (".pl", ".pm")),
    _record("powershell", (".ps1",)),
    _record("r", (".r", ".R")),
    _record("scala", (".scala", ".sc")),
    _record("scss", (".scss",)),
    _record("sql", (".sql",)),
    _record("svelte", (".svelte",)),
    _record("swift", (".swift",), judges=("swiftc",)),
    _record("vue", (".vue",)),
    _record("xml", (".xml",)),
    _record("zig", (".zig",)),
)
