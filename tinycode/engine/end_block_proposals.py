"""Edits of the languages whose blocks close with the word ``end`` (Ruby).

``ruby -c`` meets a block that lost its opening word (``def``, ``do``, ``unless``) only at
the file's last ``end``, which then closes nothing: the line that lost it may be far
above. The layout still says where it was: an ``end`` closes the block begun by the
nearest line above it indented as deeply, and when that line opens nothing, it is the
one that lost its word. A block that lost its ``end`` is met only at the file's end
too, and the layout says where that was: where a line comes back to the opener's depth
that does not close it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterator

from ..check import Problem
from ..spelling import distance
from .edits import Edit
from ..problems import AT_THE_END
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


# Blocks left without their ``end`` tried: the first from the top (one further down may
# only seem so while the first is open).
LOST_ENDS = 1


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


@rule('lost-end-opener', "the word that opens a block closed by 'end' put back (or its typo respelt) on the "
      "line indented as deeply above an 'end' that closes nothing", 'ruby')
def lost_opener_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """For each ``end`` whose block's first line opens nothing (``lost_header``), the
    nearest the first problem first: that line's first word respelt as the opening word
    it is a typo of (``ddef``: the file's only one); that line with each opening word
    before it, and with ``do`` after it (before its block's ``|arguments|``)."""
    if not problems:
        return
    ends = [number for number, text in enumerate(lines, 1) if _END.fullmatch(text.split("#")[0].strip())]
    headers = {lost_header(lines, number) for number in ends} - {None}
    words: Counter = Counter()
    for header in sorted(headers, key=lambda line: abs(line - problems[0].line))[:LOST_OPENERS]:
        text = lines[header - 1]
        start = _indent(text)
        first = re.match(r"[A-Za-z_]\w*", text[start:])
        meant = first and next((w for w in LEADING_OPENERS if distance(first.group().lower(), w, cap=2) <= 1), None)
        if first and meant and first.group() != meant:
            words = words or Counter(re.findall(r"[A-Za-z_]\w*", "\n".join(lines)))
            if words[first.group()] == 1:
                yield Edit(header, 1, [text[:start] + meant + text[start + first.end():]],
                           f"line {header}: respell {first.group()!r} as {meant!r}")
        arguments = _BLOCK_ARGUMENTS.search(text)
        at = arguments.start(1) if arguments else len(text.rstrip())
        do = text[:at].rstrip() + " do" + (" " + text[at:].lstrip() if text[at:].strip() else "")
        yield Edit(header, 1, [do], f"line {header}: put back 'do'")
        for word in LEADING_OPENERS:
            yield Edit(header, 1, [text[:start] + word + " " + text[start:]], f"line {header}: put back {word!r}")


def _code(text: str) -> str:
    return text.split("#")[0].strip() if not text.lstrip().startswith("#") else ""


# A line that opens a block closed by ``end``: a leading opening word (not a method
# defined in one line, ``def area = w * h``), or ``do`` ending the line.
_END_OPENS = re.compile(r"(?:(?:" + "|".join(LEADING_OPENERS) + r"|(?:\w+\s+)+def)\b(?!.*\bend\s*$)"
                        r"(?!\s+[\w.?!]+\s*(?:\([^)]*\))?\s*=[^=~>])"
                        r"|.*\bdo\s*(?:\|[^|]*\|)?$)")
# A value that is a block (``x = if a``, ``y = case kind``): its ``end`` may line up
# with the opening word, deeper than the line.
_VALUE_OPENS = re.compile(r".*=\s*(?:if|unless|case|begin|while|until)\b(?!.*\bend\s*$)")
# What goes on a statement of the line above (``.map``, ``&&``, a closing bracket).
_GOES_ON = re.compile(r"[.)\]}&|+\-*/,]")
# A here-document's opening and the word that ends it.
_HEREDOC = re.compile(r"<<[~-]?(['\"]?)(\w+)\1")


def _end_mistyped(code: str) -> bool:
    """A line of one word a typo from ``end`` (``endd``, ``End``): the block's ``end`` is
    there, misspelt, not lost."""
    return code.isidentifier() and distance(code.lower(), "end", cap=2) <= 1


def blocks_without_end(lines: list[str]) -> list[tuple[int, int]]:
    """(the block's first line, the line its ``end`` goes before) for each block whose
    body comes back to the opener's depth on a line that neither closes it nor
    continues it (``else``, ``rescue``, ``.map``) nor is its ``end`` mistyped, or whose
    opener ends with ``;`` and no ``end`` follows it: from the top. Here-documents and
    ``=begin`` comments are skipped; a block with no body that does not end with ``;``
    is no sign (nested modules are not always indented)."""
    stack: list[tuple[int, int, bool, bool]] = []  # (line, indent, body seen, a value's) of the blocks open
    found: list[tuple[int, int]] = []
    ending: str | None = None  # the word a here-document or ``=begin`` comment ends with
    for number, text in enumerate(lines, 1):
        if ending is not None:
            if text.strip() == ending or (ending == "=end" and text.startswith("=end")):
                ending = None
            continue
        if text.startswith("=begin"):
            ending = "=end"
            continue
        code = _code(text)
        if not code:
            continue
        heredoc = _HEREDOC.search(code)
        depth = _indent(text)
        if stack and depth > stack[-1][1]:
            stack[-1] = (stack[-1][0], stack[-1][1], True, stack[-1][3])
            if stack[-1][3] and _END.match(code):
                stack.pop()  # a value's ``end``, lined up with its opening word
                continue
        while stack and depth <= stack[-1][1] and not _GOES_ON.match(code):
            opener, opened_at, body, _ = stack[-1]
            if depth == opened_at and (_END.match(code) or _MIDDLE.match(code)):
                break
            if (body or _code(lines[opener - 1]).endswith(";")) and not _end_mistyped(code):
                found.append((opener, number))
            stack.pop()
        if _END.match(code):
            if stack and depth == stack[-1][1]:
                stack.pop()
        elif _END_OPENS.match(code) or _VALUE_OPENS.match(code):
            stack.append((number, depth, False, not _END_OPENS.match(code)))
        if heredoc:
            ending = heredoc.group(2)
    return found


@rule('lost-end', "an 'end' put back where the layout closes a block that has none", 'ruby')
def lost_end_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """For each block the layout closes without an ``end`` (``blocks_without_end``), from
    the top: after a body, an ``end`` line at the opener's depth below its last line; on
    an opener with no body, `` end`` after it on its line, as a one-line block has it."""
    if not problems or not any(AT_THE_END.search(p.message) for p in problems):
        return
    for opener, before in blocks_without_end(lines)[:LOST_ENDS]:
        last = before - 1
        while last > opener and not _code(lines[last - 1]):
            last -= 1  # (blank lines and comments before the next code belong to neither)
        text = lines[opener - 1]
        if last == opener:
            yield Edit(opener, 1, [text.rstrip() + " end"], f"line {opener}: put back 'end' after it")
        yield Edit(last + 1, 0, [text[:_indent(text)] + "end"], f"line {last + 1}: put back 'end'")


def end_block_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """The family's own edits, first of all: a block's opening word put back, then its ``end``."""
    yield from lost_opener_edits(lines, problems)
    yield from lost_end_edits(lines, problems)
