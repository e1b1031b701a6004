"""Every language tinycode knows: one record (module) each, listed in one table.

Adding a language is one module with its ``LANGUAGE`` record and one line in
``LANGUAGES``. Everything else (file detection, aliases, "#!" lines, grammars, judges,
the web search's language words) is read from the records. The official per-language
grammar wheels serve the table's languages; if the optional
``tree-sitter-language-pack`` (<1) is installed, ``pack.py``'s long tail joins them.
Nothing here touches the network.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import TYPE_CHECKING

from ..errors import UnknownLanguageError
from . import (bash, c, cpp, csharp, css, go, html, java, javascript, json, pack, php, python, ruby, rust,
               toml, tsx, typescript, yaml)
from .base import LanguageSpec, NoVerdict, OwnVerdict, interpreter, wheel

if TYPE_CHECKING:
    import tree_sitter

__all__ = ["LANGUAGES", "LanguageSpec", "NoVerdict", "OwnVerdict", "aliases", "comment_prefix", "detect",
           "detect_shebang", "get_language", "get_parser", "is_supported", "normalize", "spec",
           "supported_languages", "wheel"]

# The table: one line per language, in the order ``supported_languages()`` lists them.
LANGUAGES: tuple[LanguageSpec, ...] = (
    python.LANGUAGE,
    javascript.LANGUAGE,
    typescript.LANGUAGE,
    tsx.LANGUAGE,
    go.LANGUAGE,
    rust.LANGUAGE,
    java.LANGUAGE,
    c.LANGUAGE,
    cpp.LANGUAGE,
    csharp.LANGUAGE,
    ruby.LANGUAGE,
    php.LANGUAGE,
    bash.LANGUAGE,
    json.LANGUAGE,
    css.LANGUAGE,
    html.LANGUAGE,
    yaml.LANGUAGE,
    toml.LANGUAGE,
)
# The table's languages: their grammars are required dependencies.
BUILTIN = LANGUAGES


class _Index:
    """Lookups derived from the records (rebuilt when the table is replaced)."""

    def __init__(self, table: tuple[LanguageSpec, ...]) -> None:
        self.table = table
        records = table + tuple(r for r in pack.LANGUAGES if r.name not in {t.name for t in table})
        self.records = records
        self.by_name = {r.name: r for r in records}
        self.by_extension: dict[str, LanguageSpec] = {}
        self.by_filename: dict[str, LanguageSpec] = {}
        self.by_interpreter: dict[str, str] = {}
        self.aliases: dict[str, str] = {}
        for record in records:
            for ext in record.extensions:
                self.by_extension.setdefault(ext, record)
            for filename in record.filenames:
                self.by_filename.setdefault(filename, record)
            for name in record.interpreters:
                self.by_interpreter.setdefault(name, record.name)
            for alias in record.aliases:
                self.aliases.setdefault(alias, record.name)


_index_lock = threading.Lock()
_current: list[_Index] = []


def _index() -> _Index:
    with _index_lock:
        if not _current or _current[0].table is not LANGUAGES:
            _current[:] = [_Index(LANGUAGES)]
        return _current[0]


def aliases() -> dict[str, str]:
    """The one alias table: another name a user gives a language -> its name."""
    return dict(_index().aliases)


def normalize(name: str) -> str:
    """The canonical language name for a user-supplied one, e.g. ``py`` -> ``python``."""
    key = name.strip().lower()
    return _index().aliases.get(key, key)


def read_as(source: str, name: str) -> str:
    """The language ``source``, given as ``name``, is read as: its record may say the
    text is another's (a C++ header named .h is C++ to its compiler and to the grammar)."""
    language = normalize(name)
    record = _index().by_name.get(language)
    other = record.judged_as(source) if record is not None and record.judged_as is not None else None
    return other or language


def spec(name: str) -> LanguageSpec | None:
    """The record of a language (any name or alias), or None when tinycode has none."""
    return _index().by_name.get(normalize(name))


def records() -> tuple[LanguageSpec, ...]:
    """Every record, the table's first, then the long tail's (installed or not)."""
    return _index().records


def supported_languages() -> list[str]:
    """Every language usable here: the table's, plus the long tail's if installed."""
    return [r.name for r in _index().records if r.available()]


def is_supported(name: str) -> bool:
    record = spec(name)
    return record is not None and record.available()


def detect(path: str | os.PathLike[str], head: bytes | None = None) -> str | None:
    """The language of a file from its name, else from a ``#!`` line in ``head``."""
    index = _index()
    base = os.path.basename(os.fspath(path))
    if base in index.by_filename:
        record = index.by_filename[base]
        return record.name if record.available() else None
    ext = os.path.splitext(base)[1]
    for key in (ext, ext.lower()):
        record = index.by_extension.get(key)
        if record is not None and record.available():
            return record.name
    if head is not None:
        return detect_shebang(head)
    return None


def detect_shebang(head: bytes) -> str | None:
    """The language named by a ``#!`` interpreter line, if any."""
    name = interpreter(head.split(b"\n", 1)[0].decode("ascii", "replace"))
    return _index().by_interpreter.get(name) if name else None


def comment_prefix(name: str) -> str:
    record = spec(name)
    return record.comment if record else "#"


@lru_cache(maxsize=None)
def get_language(name: str) -> "tree_sitter.Language":
    """The tree-sitter ``Language`` for ``name``; raises UnknownLanguageError."""
    record = spec(name)
    if record is None or not record.available():
        known = ", ".join(supported_languages())
        raise UnknownLanguageError(f"unknown language {normalize(name)!r} (known: {known})")
    return record.grammar()


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
