"""Which language a file is in, and its tree-sitter grammar, loaded offline.

The official per-language grammar wheels cover the required languages. If the
optional ``tree-sitter-language-pack`` (<1, which bundles its parsers) is installed,
its grammars serve the long tail. Nothing here touches the network.
"""

from __future__ import annotations

import importlib
import os
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Callable

from .errors import UnknownLanguageError

if TYPE_CHECKING:
    import tree_sitter


@dataclass(frozen=True)
class LanguageSpec:
    """A language tinycode knows: its name, where its grammar lives, its file kinds."""

    name: str
    module: str  # the grammar wheel's import name
    function: str  # the function in it that returns the language pointer
    extensions: tuple[str, ...]
    comment: str = "#"  # line-comment marker (used when showing code to the model)


# Official grammar wheels (required dependencies).
BUILTIN: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", "tree_sitter_python", "language", (".py", ".pyi", ".pyw")),
    LanguageSpec("javascript", "tree_sitter_javascript", "language", (".js", ".mjs", ".cjs", ".jsx"), "//"),
    LanguageSpec("typescript", "tree_sitter_typescript", "language_typescript", (".ts", ".mts", ".cts"), "//"),
    LanguageSpec("tsx", "tree_sitter_typescript", "language_tsx", (".tsx",), "//"),
    LanguageSpec("go", "tree_sitter_go", "language", (".go",), "//"),
    LanguageSpec("rust", "tree_sitter_rust", "language", (".rs",), "//"),
    LanguageSpec("java", "tree_sitter_java", "language", (".java",), "//"),
    LanguageSpec("c", "tree_sitter_c", "language", (".c", ".h"), "//"),
    LanguageSpec("cpp", "tree_sitter_cpp", "language", (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ino"), "//"),
    LanguageSpec("csharp", "tree_sitter_c_sharp", "language", (".cs",), "//"),
    LanguageSpec("ruby", "tree_sitter_ruby", "language", (".rb", ".rake", ".gemspec")),
    LanguageSpec("php", "tree_sitter_php", "language_php", (".php", ".phtml"), "//"),
    LanguageSpec("bash", "tree_sitter_bash", "language", (".sh", ".bash", ".zsh", ".ksh")),
    LanguageSpec("json", "tree_sitter_json", "language", (".json",), ""),
    LanguageSpec("css", "tree_sitter_css", "language", (".css",), ""),
    LanguageSpec("html", "tree_sitter_html", "language", (".html", ".htm", ".xhtml"), ""),
    LanguageSpec("yaml", "tree_sitter_yaml", "language", (".yaml", ".yml")),
    LanguageSpec("toml", "tree_sitter_toml", "language", (".toml",)),
)

# Long-tail languages served by tree-sitter-language-pack (<1) when installed:
# name in the pack -> extensions.
LANGUAGE_PACK: dict[str, tuple[str, ...]] = {
    "lua": (".lua",),
    "kotlin": (".kt", ".kts"),
    "swift": (".swift",),
    "scala": (".scala", ".sc"),
    "haskell": (".hs",),
    "elixir": (".ex", ".exs"),
    "erlang": (".erl", ".hrl"),
    "r": (".r", ".R"),
    "julia": (".jl",),
    "perl": (".pl", ".pm"),
    "dart": (".dart",),
    "zig": (".zig",),
    "ocaml": (".ml",),
    "sql": (".sql",),
    "make": (".mk",),
    "dockerfile": (".dockerfile",),
    "scss": (".scss",),
    "vue": (".vue",),
    "svelte": (".svelte",),
    "xml": (".xml",),
    "clojure": (".clj", ".cljs", ".cljc"),
    "elm": (".elm",),
    "fortran": (".f90", ".f95"),
    "groovy": (".groovy", ".gradle"),
    "nim": (".nim",),
    "objc": (".m",),
    "powershell": (".ps1",),
    "hcl": (".tf", ".hcl"),
    "markdown": (".md",),
}

ALIASES: dict[str, str] = {
    "py": "python", "python3": "python", "js": "javascript", "node": "javascript",
    "jsx": "javascript", "ts": "typescript", "golang": "go", "rs": "rust",
    "c++": "cpp", "cxx": "cpp", "c#": "csharp", "cs": "csharp", "c_sharp": "csharp",
    "rb": "ruby", "sh": "bash", "shell": "bash", "zsh": "bash", "yml": "yaml",
}

_BY_NAME = {spec.name: spec for spec in BUILTIN}
_BY_EXTENSION = {ext: spec.name for spec in BUILTIN for ext in spec.extensions}
_PACK_BY_EXTENSION = {ext: name for name, exts in LANGUAGE_PACK.items() for ext in exts}
_SPECIAL_FILENAMES = {"Dockerfile": "dockerfile", "Makefile": "make", "Gemfile": "ruby",
                      "Rakefile": "ruby", ".bashrc": "bash", ".zshrc": "bash", ".profile": "bash"}

# Interpreter named on a "#!" line -> language.
_SHEBANG = re.compile(rb"^#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?([A-Za-z_+.-]+?)(?:[0-9.]*)(?:\s|$)")
_INTERPRETERS = {"python": "python", "pypy": "python", "node": "javascript", "nodejs": "javascript",
                 "deno": "typescript", "bash": "bash", "sh": "bash", "zsh": "bash", "ksh": "bash",
                 "dash": "bash", "ruby": "ruby", "php": "php", "ts-node": "typescript"}


def normalize(name: str) -> str:
    """The canonical language name for a user-supplied one, e.g. ``py`` -> ``python``."""
    key = name.strip().lower()
    return ALIASES.get(key, key)


def supported_languages() -> list[str]:
    """Every language usable here: the built-in ones, plus the pack's if installed."""
    names = [spec.name for spec in BUILTIN]
    if _language_pack_available():
        names += sorted(n for n in LANGUAGE_PACK if n not in _BY_NAME)
    return names


def is_supported(name: str) -> bool:
    name = normalize(name)
    return name in _BY_NAME or (name in LANGUAGE_PACK and _language_pack_available())


def detect(path: str | os.PathLike[str], head: bytes | None = None) -> str | None:
    """The language of a file from its name, else from a ``#!`` line in ``head``."""
    base = os.path.basename(os.fspath(path))
    if base in _SPECIAL_FILENAMES:
        name = _SPECIAL_FILENAMES[base]
        return name if is_supported(name) else None
    ext = os.path.splitext(base)[1]
    for key in (ext, ext.lower()):
        if key in _BY_EXTENSION:
            return _BY_EXTENSION[key]
        if key in _PACK_BY_EXTENSION and _language_pack_available():
            return _PACK_BY_EXTENSION[key]
    if head is not None:
        return detect_shebang(head)
    return None


def detect_shebang(head: bytes) -> str | None:
    """The language named by a ``#!`` interpreter line, if any."""
    match = _SHEBANG.match(head.split(b"\n", 1)[0])
    if not match:
        return None
    return _INTERPRETERS.get(match.group(1).decode("ascii", "replace").lower())


def comment_prefix(name: str) -> str:
    spec = _BY_NAME.get(normalize(name))
    return spec.comment if spec else "#"


@lru_cache(maxsize=None)
def get_language(name: str) -> "tree_sitter.Language":
    """The tree-sitter ``Language`` for ``name``; raises UnknownLanguageError."""
    import tree_sitter

    name = normalize(name)
    spec = _BY_NAME.get(name)
    if spec is not None:
        module = importlib.import_module(spec.module)
        factory: Callable[[], object] = getattr(module, spec.function)
        return tree_sitter.Language(factory())
    if name in LANGUAGE_PACK and _language_pack_available():
        from tree_sitter_language_pack import get_language as pack_language

        return pack_language(name)  # type: ignore[arg-type]
    known = ", ".join(supported_languages())
    raise UnknownLanguageError(f"unknown language {name!r} (known: {known})")


def get_parser(name: str) -> "tree_sitter.Parser":
    """A cached parser for ``name``; parsers are reused across files, each by one thread
    only (the language server checks a buffer while a repair runs in another thread, and
    a tree-sitter parser is not safe to share)."""
    parsers: dict[str, tree_sitter.Parser] = _parsers.__dict__.setdefault("by_name", {})
    parser = parsers.get(name)
    if parser is None:
        import tree_sitter

        parser = parsers[name] = tree_sitter.Parser(get_language(name))
    return parser


_parsers = threading.local()


@lru_cache(maxsize=1)
def _language_pack_available() -> bool:
    try:
        importlib.import_module("tree_sitter_language_pack")
    except ImportError:
        return False
    return True
