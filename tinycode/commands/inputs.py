"""Shared by commands: turning FILE arguments into decoded sources with a language."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from .. import languages
from ..errors import InputError, TinycodeError, UnknownLanguageError
from ..sourcefile import SourceFile, read_source, read_stdin


@dataclass
class Input:
    """One FILE argument: its source and language, or the error that stopped it."""

    path: str
    source: SourceFile | None = None
    language: str | None = None
    error: str | None = None


def resolve_language(lang: str | None) -> str | None:
    """Validate a ``--lang`` value up front (a usage error if unknown)."""
    if lang is None:
        return None
    name = languages.normalize(lang)
    if not languages.is_supported(name):
        known = ", ".join(languages.supported_languages())
        raise UnknownLanguageError(f"unknown --lang {lang!r} (known: {known})")
    return name


def iter_inputs(paths: list[str], lang: str | None) -> Iterator[Input]:
    """Read each path (``-`` is stdin) and find its language; errors are carried, not raised."""
    for path in paths:
        try:
            source = read_stdin() if path == "-" else read_source(path)
            language = lang or languages.detect(path, source.text[:200].encode("utf-8", "replace"))
            if language is None:
                hint = "pass --lang" if path == "-" else "unknown file type; pass --lang"
                raise UnknownLanguageError(f"{path}: cannot tell the language ({hint})")
            yield Input(path, source, language)
        except (InputError, TinycodeError) as exc:
            yield Input(path, error=str(exc))
