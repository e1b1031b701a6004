"""Positions as the Language Server Protocol counts them, and text changes as TextEdits.

The protocol counts 0-based lines and, within a line, code units of the encoding the
client and server agreed on: UTF-16 unless the client offered another (an emoji is 2
units in UTF-16, 1 character here). ``check`` counts 1-based lines split on ``\\n`` and
characters; everything that crosses between the two goes through this module.
"""

from __future__ import annotations

import difflib
from typing import Sequence

from lsprotocol import types

from ..check import Problem

UTF16, UTF8, UTF32 = "utf-16", "utf-8", "utf-32"


def units(text: str, encoding: str) -> int:
    """Code units of ``text`` in ``encoding``."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    # Characters past the Basic Multilingual Plane take two UTF-16 units.
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` as ``check`` numbers them (split on ``\\n``, ends dropped)."""
    return text.split("\n")


def client_position(lines: Sequence[str], line: int, character: int, encoding: str) -> types.Position:
    """The client position of 0-based ``line`` and character ``character``; past the end
    of the text it is the end of the text."""
    if line >= len(lines):
        return types.Position(len(lines) - 1, units(lines[-1], encoding))
    text = lines[line]
    return types.Position(line, units(text[:max(character, 0)], encoding))


def problem_range(problem: Problem, lines: Sequence[str], encoding: str) -> types.Range:
    """The range of a problem of ``check``. A problem at a point (a missing token, a
    compiler's column) covers the character there, or the one before it at the end of
    a line: an empty range is invisible in most editors."""
    start_line, start_char = problem.line - 1, problem.column - 1
    end_line, end_char = problem.end_line - 1, problem.end_column - 1
    if (end_line, end_char) <= (start_line, start_char):
        end_line, end_char = start_line, start_char + 1
        text = lines[start_line] if start_line < len(lines) else ""
        if end_char > len(text):
            start_char, end_char = max(len(text) - 1, 0), len(text)
    return types.Range(client_position(lines, start_line, start_char, encoding),
                       client_position(lines, end_line, end_char, encoding))


def invalid_position(lines: Sequence[str], position: types.Position, encoding: str) -> str:
    """Why ``position`` names no place in the text (``lines``), or "" when it does."""
    if position.line < 0 or position.character < 0:
        return f"negative position {position.line}:{position.character}"
    if position.line >= len(lines):
        return f"line {position.line} is past the last line ({len(lines) - 1})"
    text = lines[position.line].removesuffix("\r")
    if position.character > units(text, encoding):
        return (f"character {position.character} is past the end of line {position.line} "
                f"({units(text, encoding)} {encoding} units)")
    if encoding == UTF16:
        counted = 0
        for c in text:
            if counted >= position.character:
                break
            counted += 2 if ord(c) > 0xFFFF else 1
        if counted > position.character:
            return f"character {position.character} of line {position.line} splits a surrogate pair"
    return ""


def text_edits(old: str, new: str, encoding: str) -> list[types.TextEdit]:
    """The smallest TextEdits that turn ``old`` into ``new``: one per changed run of
    lines, trimmed to the characters that differ, in document order."""
    old_lines, new_lines = _with_ends(old), _with_ends(new)
    lines = split_lines(old)
    edits: list[types.TextEdit] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        before, after = "".join(old_lines[i1:i2]), "".join(new_lines[j1:j2])
        prefix = _common_prefix(before, after)
        suffix = _common_prefix(before[prefix:][::-1], after[prefix:][::-1])
        start = _place(before, prefix, i1)
        end = _place(before, len(before) - suffix, i1)
        edits.append(types.TextEdit(
            types.Range(client_position(lines, *start, encoding), client_position(lines, *end, encoding)),
            after[prefix:len(after) - suffix]))
    return edits


def apply_edits(text: str, edits: Sequence[types.TextEdit], encoding: str) -> str:
    """``text`` with non-overlapping ``edits`` applied, as an editor applies them."""
    lines = split_lines(text)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        line, counted, index = lines[position.line], 0, 0
        while index < len(line) and counted < position.character:
            counted += units(line[index], encoding)
            index += 1
        return starts[position.line] + index

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def _with_ends(text: str) -> list[str]:
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _common_prefix(a: str, b: str) -> int:
    n = 0
    limit = min(len(a), len(b))
    while n < limit and a[n] == b[n]:
        n += 1
    return n


def _place(chunk: str, offset: int, first_line: int) -> tuple[int, int]:
    """(0-based line, character) of ``offset`` in ``chunk``, which starts at ``first_line``."""
    newlines = chunk.count("\n", 0, offset)
    return first_line + newlines, offset - (chunk.rfind("\n", 0, offset) + 1)
