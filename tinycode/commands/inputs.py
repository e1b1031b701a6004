"""Shared by commands: turning FILE arguments into decoded sources with a language,
and the options and settings both ``check`` and ``fix`` take."""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Mapping

from .. import languages
from ..errors import InputError, TinycodeError, UnknownLanguageError
from ..sourcefile import SourceFile, read_head, read_source, read_stdin

if TYPE_CHECKING:
    from ..config import Settings


@dataclass
class Input:
    """One FILE argument: its source and language, the error that stopped it, or
    why it was left alone (``skipped``: excluded by config, or of an unknown type
    with ``--ignore-unknown``)."""

    path: str
    source: SourceFile | None = None
    language: str | None = None
    error: str | None = None
    skipped: str | None = None


def add_input_arguments(parser: argparse.ArgumentParser, *, size_default: str) -> None:
    """The options ``check`` and ``fix`` share for choosing and reading files."""
    parser.add_argument("--lang", help="language of the input (default: from the file name)")
    parser.add_argument("--max-file-size", type=byte_size, metavar="BYTES",
                        help=f"skip larger files with an error (default {size_default}; "
                             "suffixes K, M, G)")
    parser.add_argument("--ignore-unknown", action="store_true",
                        help="skip files of an unknown language quietly (for hooks)")
    parser.add_argument("--trust-project", action="store_true", default=None,
                        help="let this project's [tool.tinycode] choose servers, weights and "
                             "wider guard limits too (see 'Whose settings count' in the README)")


_SIZE = re.compile(r"\s*(\d+)\s*([kmg]?)i?b?\s*", re.IGNORECASE)


def byte_size(text: str) -> int:
    """``--max-file-size`` values: ``2000000``, ``500K``, ``2M``, ``1G`` (powers of 1024)."""
    match = _SIZE.fullmatch(text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected a number of bytes like 2000000 or 2M, got {text!r}")
    size = int(match.group(1)) * 1024 ** " kmg".index(match.group(2).lower() or " ")
    if size < 1:
        raise argparse.ArgumentTypeError("must be at least 1 byte")
    return size


def settings_for(files: list[str], overrides: Mapping[str, object]) -> Settings:
    """The settings for a run over ``files``: the config found from the first file's
    folder. Project keys ignored for want of trust are said once on stderr."""
    from ..config import load_settings
    from .display import printable

    first = next((f for f in files if f != "-"), ".")
    settings = load_settings(overrides, start=os.path.dirname(os.path.abspath(first)))
    for note in settings.notes:
        print(f"tinycode: note: {printable(note)}", file=sys.stderr)
    return settings


def resolve_language(lang: str | None) -> str | None:
    """Validate a ``--lang`` value up front (a usage error if unknown)."""
    if lang is None:
        return None
    name = languages.normalize(lang)
    if not languages.is_supported(name):
        known = ", ".join(languages.supported_languages())
        raise UnknownLanguageError(f"unknown --lang {lang!r} (known: {known})")
    return name


def iter_inputs(paths: list[str], lang: str | None, *, settings: Settings | None = None,
                max_size: int | None = None, ignore_unknown: bool = False) -> Iterator[Input]:
    """Read each path (``-`` is stdin) and find its language; errors are carried, not raised.

    A file the settings exclude is skipped before it is read; a file over ``max_size``
    bytes is an error, found before it is read."""
    for path in paths:
        try:
            if path == "-":
                yield _stdin(lang, max_size)
            else:
                yield _file(path, lang, settings, max_size, ignore_unknown)
        except (InputError, TinycodeError) as exc:
            yield Input(path, error=str(exc))


def _stdin(lang: str | None, max_size: int | None) -> Input:
    source = read_stdin(max_size=max_size)
    language = lang or languages.detect("-", source.text[:200].encode("utf-8", "replace"))
    if language is None:
        raise UnknownLanguageError("-: cannot tell the language (pass --lang)")
    return Input("-", source, language)


def _file(path: str, lang: str | None, settings: Settings | None, max_size: int | None,
          ignore_unknown: bool) -> Input:
    language = lang or languages.detect(path)
    if settings is not None and settings.skips(path, language):
        return Input(path, skipped="excluded by the configuration")
    if language is None and ignore_unknown:
        language = languages.detect_shebang(read_head(path))
        if language is None:
            return Input(path, skipped="unknown file type")
    try:
        source = read_source(path, max_size=max_size)
    except InputError as exc:
        if path.startswith("-") and not os.path.lexists(path):
            raise InputError(f"{exc} (after `--` every argument is a file name; in a pre-commit "
                             "config, options go in `entry:` before the `--`)") from None
        raise
    if language is None:
        language = languages.detect(path, source.text[:200].encode("utf-8", "replace"))
    if language is None:
        raise UnknownLanguageError(f"{path}: cannot tell the language (unknown file type; pass --lang)")
    if settings is not None and settings.skips(path, language):
        return Input(path, skipped="excluded by the configuration")
    return Input(path, source, language)
