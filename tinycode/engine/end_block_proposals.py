"""Edits of the languages whose blocks close with the word ``end`` (Ruby).

``ruby -c`` meets a block that lost its opening word (``def``, ``do``, ``unless``) only at
the file's last ``end``, which then closes nothing: the line that lost it may be far
above. The layout still says where it was: an ``end`` closes the block begun by the
nearest line above it indented as deeply, and when that line opens nothing, it is the
one that lost its word.
"""

from __future__ import annotations

import re
from typing import Iterator

from ..check import Problem
from .edits import Edit
from .layout import indent_of
from .rules import rule

# Words that begin a line and open a block that ``end`` closes.
LEADING_OPENERS = ("def", "class", "module", "if", "unless", "while", "until", "case", "begin", "for")
# Words within a block at its opener's depth that do not end it.
_MIDDLE = re.compile(r"(?:else|elsif|when|in|rescue|ensure|then)\b")
_OPENS = re.compile(r"(?:(?:" + "|".join(LEADING_OPENERS) + r")\b|(?:\w+\s+)+def\b|.*\bdo\b\s*(?:\|[^|]*\|)?\s*(?:#.*)?$"
                    r"|.*=\s*(?:if|unless|case|begin|while|until)\b|.*\{\s*(?:\|[^|]*\|)?\s*$)")
_END = re.compile(r"end\b")
_BLOCK_ARGUMENTS = re.compile(r"\s*(\|[^|]*\|)\s*(?:#.*)?$")
OPENING_WORDS = frozenset(LEADING_OPENERS) | {"do"}
CLOSING_WORDS = frozenset({"end"})
LOST_OPENERS = 2  # the lines nearest the reported problem that lost their word


def _indent(text: str) -> int:
    return len(indent_of(text))


def lost_header(lines: list[str], end_line: int) -> int | None:
    """The line whose block the ``end`` on ``end_line`` closes, where that line opens
    nothing: the nearest line above it indented as deeply, past the block's middle
    words (``else``, ``rescue``); None where that line opens a block, or none is
    indented as deeply before a shallower one."""
    depth = _indent(lines[end_line - 1])
    for number in range(end_line - 1, 0, -1):
        text = lines[number - 1]
        code = text.strip()
        if not code or code.startswith("#"):
            continue
        if _indent(text) > depth:
            continue
        if _indent(text) < depth:
            return None
        if _MIDDLE.match(code):
            continue
        if _END.match(code) or _OPENS.match(code):
            return None
        return number
    return None


@rule('lost-end-opener', "the word that opens a block closed by 'end' put back on the line indented as "
      "deeply above an 'end' that closes nothing", 'ruby')
def lost_opener_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """For each ``end`` whose block's first line opens nothing (``lost_header``), the
    nearest the first problem first: that line with each opening word before it, and
    with ``do`` after it (before its block's ``|arguments|``)."""
    if not problems:
        return
    ends = [number for number, text in enumerate(lines, 1) if _END.fullmatch(text.split("#")[0].strip())]
    headers = {lost_header(lines, number) for number in ends} - {None}
    for header in sorted(headers, key=lambda line: abs(line - problems[0].line))[:LOST_OPENERS]:
        text = lines[header - 1]
        start = _indent(text)
        arguments = _BLOCK_ARGUMENTS.search(text)
        at = arguments.start(1) if arguments else len(text.rstrip())
        do = text[:at].rstrip() + " do" + (" " + text[at:].lstrip() if text[at:].strip() else "")
        yield Edit(header, 1, [do], f"line {header}: put back 'do'")
        for word in LEADING_OPENERS:
            yield Edit(header, 1, [text[:start] + word + " " + text[start:]], f"line {header}: put back {word!r}")
