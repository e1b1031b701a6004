"""Precompiled standard headers for gcc and g++, so that a repair's many judge runs on
one file do not each read the whole standard library again.

A C++ file that includes ``<iostream>`` and ``<vector>`` makes ``g++ -fsyntax-only``
parse some 40,000 lines of headers before the first line of its own: most of a run's
time. A repair judges dozens of versions of the same file, and they nearly all begin
with the same ``#include <...>`` lines. After a few runs on the same such block, it is
compiled once into a precompiled header (``block.h.gch``, in a private temporary
folder that lives as long as the process), and later runs name it with ``-include``.

The verdict does not change: the block holds exactly the lines the file begins with
(only system headers, blank lines and comments, nothing that could define a macro
first, a header's own include guard aside), so the headers are read in the same order
with the same macros, and the file's own ``#include`` lines then find them already
included. Should gcc refuse the
precompiled header, it reads ``block.h`` itself, which gives the same result.
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


# A header's include guard (``#ifndef X_H`` then ``#define X_H``) before its includes:
# no system header reads the guard of the file that includes it, so the block past the
# guard is read the same with the guard's macro defined or not.
_GUARD = re.compile(r"[ \t]*#[ \t]*ifndef[ \t]+(\w+)[ \t]*\n(?:[ \t]*\n)*[ \t]*#[ \t]*define[ \t]+\1\b[^\n]*(?:\n|$)")


def header_block(text: str) -> str:
    """The start of ``text`` up to its last system ``#include`` before anything else
    (see ``_PIECE``), an include guard left out (``_GUARD``), or "" when it begins
    otherwise."""
    position = end = 0
    pieces: list[str] = []
    guarded = False
    while position < len(text):
        match = _PIECE.match(text, position)
        if match is None or match.end() == position:
            guard = None if guarded or end else _GUARD.match(text, position)
            if guard is None:
                break
            guarded, position = True, guard.end()
            continue
        position = match.end()
        pieces.append(match.group(0))
        if match.group("include") is not None:
            end = len(pieces)
    return "".join(pieces[:end])


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
