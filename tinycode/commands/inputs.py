"""Shared by commands: turning FILE arguments into decoded sources with a language,
and the options and settings both ``check`` and ``fix`` take."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .. import languages
from ..errors import InputError, TinycodeError, UnknownLanguageError
from ..sourcefile import SourceFile, read_head, read_source, read_stdin
from .display import printable

if TYPE_CHECKING:
    from ..config import RunSettings, Settings


@dataclass
class Input:
    """One file: its source and language, the error that stopped it, or why it was
    left alone (``skipped``: excluded by config or ignore rules, or of an unknown type
    found by a walk or with ``--ignore-unknown``). ``stdin``: read from stdin (``path``
    is then ``-`` or the ``--stdin-filename``); ``settings``: the configuration
    nearest the file."""

    path: str
    source: SourceFile | None = None
    language: str | None = None
    error: str | None = None
    skipped: str | None = None
    stdin: bool = False
    settings: Settings | None = None


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """The options ``check`` and ``fix`` share for choosing and reading files."""
    parser.add_argument("--lang", help="language of the input (default: from the file name)")
    parser.add_argument("--ignore-unknown", action="store_true",
                        help="skip files of an unknown language quietly (for hooks)")
    parser.add_argument("--stdin-filename", metavar="NAME",
                        help="read stdin as if it were the file NAME: its language, config "
                             "and exclude rules (for editors)")
    add_trust_argument(parser)


def add_trust_argument(parser: argparse.ArgumentParser) -> None:
    """``--trust-project``: the project's configuration may set restricted keys too."""
    parser.add_argument("--trust-project", action="store_true", default=None,
                        help="let this project's [tool.tinycode] choose servers, weights and "
                             "wider guard limits too (see 'Whose settings count' in the README)")


def add_setting_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    """The flags of ``command`` that set a setting, as the table in ``config.py`` has
    them (name, type, choices, help); each stores into the setting's own name."""
    from ..config import byte_size, flag_settings, shown_default

    for entry in flag_settings(command):
        default = shown_default(entry)
        units = ", suffixes K, M, G" if entry.parse_flag is byte_size else ""
        help_text = entry.help + (f" (default {default}, or {entry.key} in the config{units})"
                                  if default else "")
        options: dict[str, Any] = {"dest": entry.name, "help": help_text}
        if entry.type is bool:
            options.update(action="store_true", default=None)
        else:
            # A table (judges) is given as its text, read by the setting's own check.
            plain = entry.type if entry.type in (int, float) else str
            options["type"] = _flag_type(entry.parse_flag) if entry.parse_flag else plain
            if entry.values.options:
                options["choices"] = entry.values.options
            if entry.metavar:
                options["metavar"] = entry.metavar
        parser.add_argument(entry.flag, **options)


def setting_overrides(args: argparse.Namespace, command: str) -> dict[str, object]:
    """What ``command``'s flags set, by setting name (None: not given), and whether the
    project is trusted: the ``overrides`` of :func:`tinycode.config.load_settings`."""
    from ..config import flag_settings

    overrides: dict[str, object] = {entry.name: getattr(args, entry.name) for entry in flag_settings(command)}
    overrides["trust_project"] = args.trust_project
    return overrides


def _flag_type(parse: Callable[[str], object]) -> Callable[[str], object]:
    """``parse`` for argparse: its ValueError becomes the usage error's own message."""
    def convert(text: str) -> object:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    convert.__name__ = getattr(parse, "__name__", "value")
    return convert


def jobs_count(text: str) -> int:
    """``--jobs`` values: a whole number of parallel workers, at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of workers, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def say_note(note: str) -> None:
    """A note about the configuration (a project key ignored for want of trust), on stderr."""
    print(f"tinycode: note: {printable(note)}", file=sys.stderr)


def default_paths(paths: list[str], stdin_filename: str | None) -> list[str]:
    """The paths to work on: those given, else stdin with ``--stdin-filename``, else
    ``.`` (as ruff)."""
    if paths:
        return list(paths)
    return ["-"] if stdin_filename else ["."]


def resolve_language(lang: str | None) -> str | None:
    """Validate a ``--lang`` value up front (a usage error if unknown)."""
    if lang is None:
        return None
    name = languages.normalize(lang)
    if not languages.is_supported(name):
        known = ", ".join(languages.supported_languages())
        raise UnknownLanguageError(f"unknown --lang {lang!r} (known: {known})")
    return name


def iter_inputs(paths: list[str], lang: str | None, *, settings: RunSettings | Settings | None = None,
                max_size: int | str | None = None, ignore_unknown: bool = False,
                stdin_filename: str | None = None) -> Iterator[Input]:
    """Read each file under ``paths`` (``-`` is stdin; folders are walked, see
    :mod:`tinycode.walk`) and find its language; errors are carried, not raised.

    A file the settings exclude is skipped before it is read; a file over ``max_size``
    bytes (a number, or the name of the Settings field holding it) is an error, found
    before it is read. A file of unknown type found by a walk is skipped quietly."""
    from ..config import RunSettings
    from ..walk import walk

    run = settings if isinstance(settings, RunSettings) else None
    skip_folder = run.skips_folder if run is not None else (
        settings.skips if settings is not None else None)
    for entry in walk(paths, skip_folder=skip_folder):
        if entry.skipped is not None:
            yield Input(entry.path, skipped=entry.skipped)
            continue
        if entry.error is not None:
            yield Input(entry.path, error=entry.error)
            continue
        path = entry.path
        try:
            if path == "-" and stdin_filename:
                own = run.at(stdin_filename) if run is not None else settings
            else:
                own = run.at(path) if run is not None else settings
            limit = getattr(own, max_size) if isinstance(max_size, str) and own is not None else max_size
            if path == "-":
                item = _stdin(lang, limit, own, stdin_filename)
            else:
                item = _file(path, lang, own, limit, ignore_unknown or not entry.explicit,
                             walked=not entry.explicit)
        except (InputError, TinycodeError) as exc:
            item = Input(stdin_filename or path if path == "-" else path, error=str(exc), stdin=path == "-")
        item.settings = own
        yield item


def _stdin(lang: str | None, max_size: int | None, settings: Settings | None,
           filename: str | None) -> Input:
    source = read_stdin(max_size=max_size)
    name = filename or "-"
    language = lang or languages.detect(name, source.text[:200].encode("utf-8", "replace"))
    if language is None:
        raise UnknownLanguageError(f"{name}: cannot tell the language (pass --lang)")
    if filename and settings is not None and settings.skips(filename, language):
        return Input(name, source, language, skipped="excluded by the configuration", stdin=True)
    return Input(name, source, language, stdin=True)


def _file(path: str, lang: str | None, settings: Settings | None, max_size: int | None,
          ignore_unknown: bool, walked: bool = False) -> Input:
    language = lang or languages.detect(path)
    if settings is not None and settings.skips(path, language):
        return Input(path, skipped="excluded by the configuration")
    if language is None and ignore_unknown:
        # A walk reads the first line only of files without an extension (scripts);
        # a named file is always worth a look.
        if walked and os.path.splitext(os.path.basename(path))[1]:
            return Input(path, skipped="unknown file type")
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
