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
from typing import NamedTuple, Sequence

from .base import tool_env
from .headers import DEFINED_NAME, compiler_language

# Runs of the same header block before it is precompiled. Building costs a few judge
# runs' time, and a check of one clean file runs the judge once or twice: only a
# repair's search reaches this.
RUNS_BEFORE_BUILD = 3
# A block is what the file begins with, up to its last system include: those includes
# and macro definitions (``#define _GNU_SOURCE`` changes what a header declares), among
# blank lines and comments, which stay in the text (an edit of a licence's words leaves
# the block as it was). A conditional (``#ifndef``) or a local header ends it.
_PIECE = re.compile(r"""
    [ \t]*\#[ \t]*include[ \t]*<[^<>\n]+>[^\n]*(?:\n|$)               (?P<include>)
  | [ \t]*\#[ \t]*(?:define|undef)\b(?:[^\n\\]|\\.|\\\n)*(?:\n|$)   (?P<define>)
  | [ \t]*//[^\n]*(?:\n|$)
  | [ \t]*/\*.*?\*/[ \t]*(?:\n|$)
  | [ \t]*\n
""", re.VERBOSE | re.DOTALL)


# The conditional a header opens before its includes: ``#ifndef X``, then the line that
# defines its macro (``#define X``; another name, or none, in a guard mistyped), if any.
_GUARD = re.compile(r"""
    [ \t]*\#[ \t]*ifndef[ \t]+(?P<tested>[A-Za-z_]\w*)[ \t]*\n
    (?:[ \t]*\n)*
    (?P<define>[ \t]*\#[ \t]*define(?:[ \t]+(?P<defined>[A-Za-z_]\w*))?\b(?:[^\n\\]|\\.|\\\n)*(?:\n|$))?
""", re.VERBOSE)


class Block(NamedTuple):
    """What ``split_block`` finds in a text: the header block, the text with the block's
    lines emptied, and the macro an ``#ifndef`` kept in the text tests (None: none)."""
    text: str
    rest: str
    tested: str | None = None


def split_block(text: str) -> Block:
    """The header block ``text`` begins with (see ``_PIECE``), and ``text`` with the
    block's lines emptied; ("", ``text``) when it begins otherwise.

    The compiler reads the block from its precompiled header and then the text: a block
    line left in the text would read its header a second time, and a header without an
    include guard of its own (libstdc++'s ``ext/pb_ds`` headers) would then define its
    names twice. An include guard the file opens before its includes is kept in the text;
    the block defines its macro while it reads the headers, as the file does (a header
    that includes the file back finds it guarded), and undefines it after. The guard's
    ``#ifndef`` is then read after the headers, not before: the block is the same only
    while its macro is not one the headers (or the compiler) define, which the cache
    asks of the built header (``Cache.include_for``). A guard whose ``#define`` names
    another macro or none (a mistake the repair is looking at) is read likewise: its
    ``#ifndef`` still opens a group the compiler reads."""
    position = end = 0
    spans: list[tuple[int, int]] = []
    guard: re.Match[str] | None = None
    while position < len(text):
        match = _PIECE.match(text, position)
        if match is None or match.end() == position:
            found = None if guard or end else _GUARD.match(text, position)
            if found is None or found.end() == position:
                break
            guard, position = found, found.end()
            spans.append((-1, -1))  # where the guard's macro is defined
            continue
        position = match.end()
        if match.group("include") is not None or match.group("define") is not None:
            spans.append(match.span())
        if match.group("include") is not None:
            end = len(spans)
    if not end:
        return Block("", text)
    defined = guard.group("defined") if guard else None
    block, rest, at = [], [], 0
    for start, stop in spans[:end]:
        if start < 0:
            if defined:
                define = guard.group("define")
                block.append(define if define.endswith("\n") else define + "\n")
            continue
        block.append(text[start:stop])
        rest.append(text[at:start] + "\n" * text.count("\n", start, stop))
        at = stop
    if defined:
        block.append(f"#undef {defined}\n")
    rest.append(text[at:])
    return Block("".join(block), "".join(rest), guard.group("tested") if guard else None)


class Cache:
    """The precompiled header blocks of one process, by compiler, arguments and block."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folder: str | None = None
        self._seen: dict[tuple, int] = {}
        # key -> (the header to -include, the macros defined once it is read); None: failed
        self._built: dict[tuple, tuple[str, frozenset[str]] | None] = {}

    def include_for(self, argv: Sequence[str], language: str, block: str, timeout: float,
                    tested: str | None = None) -> str | None:
        """The header to ``-include`` in a run of ``argv`` on a text that begins with
        ``block``, or None (not yet worth building, gcc could not build it, or the
        ``tested`` macro of an ``#ifndef`` the text keeps is one the block defines)."""
        if not block:
            return None
        key = (tuple(argv), block)
        with self._lock:
            if key not in self._built:
                self._seen[key] = self._seen.get(key, 0) + 1
                if self._seen[key] < RUNS_BEFORE_BUILD:
                    return None
                self._built[key] = self._build(argv, language, block, timeout, len(self._built))
            built = self._built[key]
        if built is None or tested in built[1]:
            return None
        return built[0]

    def _build(self, argv: Sequence[str], language: str, block: str, timeout: float,
               number: int) -> tuple[str, frozenset[str]] | None:
        if self._folder is None:
            self._folder = tempfile.mkdtemp(prefix="tinycode-pch-")
            atexit.register(shutil.rmtree, self._folder, True)
        header = os.path.join(self._folder, f"block{number}.h")
        with open(header, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
            handle.write(block)
        options = [part for part in argv
                   if part not in ("-fsyntax-only", "{file}") and not part.startswith("-fmax-errors")]
        at = options.index("-x") + 1 if "-x" in options else None
        command = list(options)
        if at is not None:
            command[at] = f"{compiler_language(language)}-header"
        command += [header, "-o", header + ".gch"]
        done = self._compile(command, timeout)
        if done is None or done.returncode != 0 or not os.path.exists(header + ".gch"):
            return None
        # The macros the block leaves defined (the compiler's own among them), read from
        # the header just built.
        listed = self._compile(options + ["-dM", "-E", "-include", header, os.devnull], timeout)
        if listed is None or listed.returncode != 0:
            return None
        return header, frozenset(DEFINED_NAME.findall(listed.stdout.decode("utf-8", "replace")))

    def _compile(self, command: list[str], timeout: float) -> subprocess.CompletedProcess[bytes] | None:
        env = tool_env()
        try:
            return subprocess.run(command, cwd=self._folder, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=timeout, check=False)
        except (subprocess.TimeoutExpired, OSError):
            return None


def with_include(argv: Sequence[str], header: str) -> tuple[str, ...]:
    """``argv`` with ``-include header`` before the input file."""
    at = list(argv).index("{file}")
    return tuple(argv[:at]) + ("-include", header) + tuple(argv[at:])
