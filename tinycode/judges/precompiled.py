"""Precompiled standard headers for gcc and g++, so that a repair's many judge runs on
one file do not each read the whole standard library again.

A C++ file that includes ``<iostream>`` and ``<vector>`` makes ``g++ -fsyntax-only``
parse some 40,000 lines of headers before the first line of its own: most of a run's
time. A repair judges dozens of versions of the same file, and they nearly all begin
with the same ``#include <...>`` lines. After a few runs on the same such block, it is
compiled once into a precompiled header (``block.h.gch``, in a private temporary
folder that lives as long as the process), and later runs name it with ``-include``.

The verdict does not change: the block holds exactly the lines the file begins with
(system headers, macro definitions, blank lines and comments; a header's own include
guard is defined as the file defines it), so the headers are read in the same order
with the same macros, and the text then read has those lines emptied, each line where
it was. Should gcc refuse the precompiled header, it reads ``block.h`` itself, which
gives the same result.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import tempfile
import threading
from typing import Sequence

from .headers import compiler_language

# Runs of the same header block before it is precompiled. Building costs a few judge
# runs' time, and a check of one clean file runs the judge once or twice: only a
# repair's search reaches this.
RUNS_BEFORE_BUILD = 3
# A block is what the file begins with, up to its last system include: those includes,
# macro definitions (``#define _GNU_SOURCE`` changes what a header declares), blank
# lines and comments. A conditional (``#ifndef``) or a local header ends it.
_PIECE = re.compile(r"""
    [ \t]*\#[ \t]*include[ \t]*<[^<>\n]+>[^\n]*(?:\n|$)               (?P<include>)
  | [ \t]*\#[ \t]*(?:define|undef)\b(?:[^\n\\]|\\.|\\\n)*(?:\n|$)
  | [ \t]*//[^\n]*(?:\n|$)
  | [ \t]*/\*.*?\*/[ \t]*(?:\n|$)
  | [ \t]*\n
""", re.VERBOSE | re.DOTALL)


# A header's include guard (``#ifndef X_H`` then ``#define X_H``) before its includes.
_GUARD = re.compile(r"[ \t]*#[ \t]*ifndef[ \t]+(\w+)[ \t]*\n(?:[ \t]*\n)*[ \t]*#[ \t]*define[ \t]+\1\b[^\n]*(?:\n|$)")


def split_block(text: str) -> tuple[str, str]:
    """The header block ``text`` begins with (see ``_PIECE``), and ``text`` with the
    block's lines emptied; ("", ``text``) when it begins otherwise.

    The compiler reads the block from its precompiled header and then the text: a block
    line left in the text would read its header a second time, and a header without an
    include guard of its own (libstdc++'s ``ext/pb_ds`` headers) would then define its
    names twice. An include guard the file opens before its includes is kept in the text;
    the block defines its macro while it reads the headers, as the file does (a header
    that includes the file back finds it guarded), and undefines it after."""
    position = end = 0
    spans: list[tuple[int, int]] = []
    guard: str | None = None
    while position < len(text):
        match = _PIECE.match(text, position)
        if match is None or match.end() == position:
            found = None if guard or end else _GUARD.match(text, position)
            if found is None:
                break
            guard, position = found.group(1), found.end()
            spans.append((-1, -1))  # where the guard's macro is defined
            continue
        position = match.end()
        spans.append(match.span())
        if match.group("include") is not None:
            end = len(spans)
    if not end:
        return "", text
    block, rest, at = [], [], 0
    for start, stop in spans[:end]:
        if start < 0:
            block.append(f"#define {guard}\n")
            continue
        block.append(text[start:stop])
        rest.append(text[at:start] + "\n" * text.count("\n", start, stop))
        at = stop
    if guard:
        block.append(f"#undef {guard}\n")
    rest.append(text[at:])
    return "".join(block), "".join(rest)


class Cache:
    """The precompiled header blocks of one process, by compiler, arguments and block."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folder: str | None = None
        self._seen: dict[tuple, int] = {}
        self._built: dict[tuple, str | None] = {}  # key -> the header to -include, None: failed

    def include_for(self, argv: Sequence[str], language: str, block: str, timeout: float) -> str | None:
        """The header to ``-include`` in a run of ``argv`` on a text that begins with
        ``block``, or None (not yet worth building, or gcc could not build it)."""
        if not block:
            return None
        key = (tuple(argv), block)
        with self._lock:
            if key in self._built:
                return self._built[key]
            self._seen[key] = self._seen.get(key, 0) + 1
            if self._seen[key] < RUNS_BEFORE_BUILD:
                return None
            header = self._build(argv, language, block, timeout, len(self._built))
            self._built[key] = header
            return header

    def _build(self, argv: Sequence[str], language: str, block: str, timeout: float, number: int) -> str | None:
        if self._folder is None:
            self._folder = tempfile.mkdtemp(prefix="tinycode-pch-")
            atexit.register(shutil.rmtree, self._folder, True)
        header = os.path.join(self._folder, f"block{number}.h")
        with open(header, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
            handle.write(block)
        kind = f"{compiler_language(language)}-header"
        command: list[str] = []
        for part in argv:
            if part == "-fsyntax-only" or part.startswith("-fmax-errors"):
                continue
            if part == "{file}":
                command += [header, "-o", header + ".gch"]
            elif command and command[-1] == "-x":
                command.append(kind)
            else:
                command.append(part)
        env = dict(os.environ, LC_ALL="C", LANG="C", LANGUAGE="C")
        try:
            done = subprocess.run(command, cwd=self._folder, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=timeout, check=False)
        except (subprocess.TimeoutExpired, OSError):
            return None
        if done.returncode != 0 or not os.path.exists(header + ".gch"):
            return None
        return header


def with_include(argv: Sequence[str], header: str) -> tuple[str, ...]:
    """``argv`` with ``-include header`` before the input file."""
    at = list(argv).index("{file}")
    return tuple(argv[:at]) + ("-include", header) + tuple(argv[at:])
