"""The one ``Edit`` type (lines replaced by lines), applying line-range edits, unified
diffs, and how big an edit is (in lines and tokens)."""

from __future__ import annotations

import difflib
import io
import os
import re
import tokenize
from dataclasses import dataclass
from typing import AnyStr, Sequence

from ..check import source_lines
from ..languages import spec

_WORDS_AND_SYMBOLS = r"""[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|\n[ \t]*|==|!=|<=|>=|->|=>|::|\*\*|//|&&|\|\||\S"""
# A quote that never closes is one token and lexing goes on after it, as Python's own
# tokenizer does (an ERRORTOKEN): closing it is a small edit, not one the size of the
# rest of the line.
_LEXER = re.compile(r""""(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|""" + _WORDS_AND_SYMBOLS)
# For counting deleted code, quotes are tokens of their own and the words between them
# count one by one: adding or moving a quote regroups the words of a line into other
# strings, which deletes nothing.
_LEXER_NO_STRINGS = re.compile(_WORDS_AND_SYMBOLS)


WHOLE_LINE = 10**6  # end column of an edit that rewrites whole lines
BRACKETS = {"(": ")", "[": "]", "{": "}"}
OPENER_OF = {closer: opener for opener, closer in BRACKETS.items()}  # each closer's opener


@dataclass(frozen=True)
class Edit:
    """Lines ``line..end_line`` (1-based; ``span`` 0 inserts before ``line``) replaced
    by ``new_lines``: every change the engine makes, whether proposed by the candidate
    search, written by the model's rewrite or by an agent's turn."""

    line: int
    span: int  # lines replaced
    new_lines: Sequence[str]
    description: str = ""
    size: int = 1  # tokens changed, roughly
    end_column: int = WHOLE_LINE  # 1-based column just past the change on its last line
    column: int = 0  # 0-based column where the change starts on its first line
    whole_repair_only: bool = False  # acceptable only as the whole repair, never as a step of one
    direct: bool = False  # asked of the language's native judge without tree-sitter's filter
    # Tried only until another rule's repair is found, never as an alternative to one,
    # nor as half of a pair: a guess the file gives no reason for (a keyword its code
    # uses nowhere near).
    unfounded: bool = False
    rule: str = ""  # the id of the rule that made it (``rules.RULES``)
    # The line below where the string the edit opens ends, for a quote put back at a
    # multi-line string's start (0: the edit means to open none; ``Verifier.opens_strings``).
    string_ends_at: int = 0

    @property
    def end_line(self) -> int:
        return self.line + self.span - 1

    @property
    def text(self) -> str:
        return "\n".join(self.new_lines)

    @property
    def last_written(self) -> int:
        """The last line of what the edit wrote, in the edited text (``line - 1`` when it
        wrote none)."""
        return self.line + len(self.new_lines) - 1

    @property
    def shift(self) -> int:
        """How far the edit moves the lines after it (lines written less lines replaced)."""
        return len(self.new_lines) - self.span

    def applied(self, lines: Sequence[str]) -> list[str]:
        return [*lines[:self.line - 1], *self.new_lines, *lines[self.line - 1 + self.span:]]

    def moved(self, line: int) -> int:
        """Where line ``line`` of the text before the edit stands after it: the lines
        below its first move by ``shift`` (one it rewrote counts as below), and where it
        replaces nothing, the line it is inserted before moves too."""
        return line + self.shift if line > self.line or (line == self.line and not self.span) else line


def differing_span(a: Sequence, b: Sequence) -> tuple[int, int, int]:
    """(start, end_a, end_b): ``a[start:end_a]`` and ``b[start:end_b]`` are what lies
    between the common prefix and the common suffix of two sequences. Edits are small
    and files long, so everything that compares two versions strips these first."""
    a, b = _comparable(a), _comparable(b)
    start = common_prefix(a, b)
    end = common_suffix(a, b, min(len(a), len(b)) - start)
    return start, len(a) - end, len(b) - end


def common_prefix(a: Sequence, b: Sequence) -> int:
    """How long a start ``a`` and ``b`` share (of two strings, two lists...). Halving
    with slices compared in C: a loop over a long file's characters in Python costs
    more than the search it serves."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def common_suffix(a: Sequence, b: Sequence, limit: int) -> int:
    """How long an end ``a`` and ``b`` share, at most ``limit``."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle:len(a) - low] == b[len(b) - middle:len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low


def _comparable(items: Sequence) -> Sequence:
    """``items`` as a type whose slices compare with the other's (a tuple and a list of
    the same lines are equal item by item, never as slices)."""
    return items if isinstance(items, (str, bytes, list)) else list(items)


def replace_lines(source: str, start: int, end: int, text: str) -> str:
    """``source`` with lines ``start..end`` (1-based, inclusive; ``end = start - 1``
    inserts before ``start``) replaced by ``text``. The new lines take the line ending
    of the lines they replace (the file's dominant one for an insertion), so a file
    with mixed endings keeps them everywhere else."""
    lines = source.split("\n")  # a CRLF line keeps its "\r"
    trailing = len(lines) > 1 and lines[-1] == ""
    if trailing:
        lines.pop()
    replaced = lines[start - 1:end]
    if replaced:
        cr = "\r" if replaced[-1].endswith("\r") or (len(replaced) > 1 and replaced[0].endswith("\r")) else ""
    else:
        crlf = source.count("\r\n")
        cr = "\r" if crlf and crlf >= source.count("\n") - crlf else ""
    new = [] if text == "" and end >= start else text.replace("\r\n", "\n").split("\n")
    if text.endswith("\n") and new and new[-1] == "":
        new.pop()
    endings = [cr] * len(new)
    if new and not trailing and end >= len(lines):  # the new lines end a file with no final newline
        endings[-1] = "\r" if replaced and replaced[-1].endswith("\r") else ""
    lines[start - 1:end] = [line + ending for line, ending in zip(new, endings)]
    return "\n".join(lines) + ("\n" if trailing or not lines else "")


def unified_diff(before: str, after: str, path: str = "file") -> str:
    """A unified diff with git's headers: ``a/`` and ``b/`` before the path as given, less
    any leading ``/`` or ``./`` (``/tmp/x.py`` -> ``a/tmp/x.py``), with ``/`` separators."""
    name = path.replace(os.sep, "/")
    while name.startswith(("./", "/")):
        name = name[2:] if name.startswith("./") else name[1:]
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"a/{name}", f"b/{name}"))


def changed_hunks(before: str, after: str) -> list[tuple[int, list[str], list[str]]]:
    """Each run of changed lines: (its first line in ``before``, 1-based, or the line it
    is inserted before; the lines it replaces; the lines that replace them)."""
    a, b = source_lines(before), source_lines(after)
    # Only the middle that differs goes to difflib: it is slow on long, repetitive files.
    start, end_a, end_b = differing_span(a, b)
    matcher = difflib.SequenceMatcher(a=a[start:end_a], b=b[start:end_b], autojunk=False)
    return [(start + i1 + 1, a[start + i1:start + i2], b[start + j1:start + j2])
            for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def kept_ends(old: AnyStr, new: AnyStr) -> tuple[int, int]:
    """How long a start and (after it) an end ``new`` keeps of ``old``: what lies
    between is what changed."""
    start = common_prefix(old, new)
    return start, common_suffix(old, new, min(len(old), len(new)) - start)


def apply_hunks(original: list[str], hunks: list[tuple[int, list[str], list[str]]], newline: bool) -> str:
    """``original`` with ``hunks`` (in order, from ``changed_hunks``) applied."""
    lines: list[str] = []
    at = 1
    for first, old, new in hunks:
        lines += original[at - 1:first - 1] + new
        at = first + len(old)
    lines += original[at - 1:]
    return "\n".join(lines) + ("\n" if newline else "")


def without_left_blanks(before: str, after: str) -> str:
    """``after`` with the blanks left at the end of the lines it changed taken off (a
    token deleted at the end of a line leaves the space before it behind), where the
    lines those replace ended with none: a repair adds no trailing whitespace."""
    lines = after.split("\n")
    shift = 0  # how far the hunks before moved the lines of ``after``
    for first, old, new in changed_hunks(before, after):
        at = first - 1 + shift
        shift += len(new) - len(old)
        if any(_ends_blank(line) for line in old):
            continue
        for j in range(at, at + len(new)):
            body, cr = (lines[j][:-1], "\r") if lines[j].endswith("\r") else (lines[j], "")
            if body.strip():  # a line of blanks alone is left as it is
                lines[j] = body.rstrip(" \t") + cr
    return "\n".join(lines)


def _ends_blank(line: str) -> bool:
    return line.rstrip("\r").endswith((" ", "\t"))


def changed_lines(before: str, after: str) -> list[int]:
    """1-based numbers of the lines of ``before`` that the edit touched (or inserted at)."""
    return [line for first, old, _ in changed_hunks(before, after)
            for line in range(first, first + max(len(old), 1))]


def code_tokens(source: str, language: str = "python", *, strings: bool = True) -> list[str]:
    """Tokens of ``source`` for measuring edit size: Python's tokenizer for Python
    (indentation counts), a small lexer otherwise or when the tokenizer gives up."""
    if _python_tokens(language):
        try:
            skip = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER)
            return [t.string if t.type != tokenize.DEDENT else "<dedent>"
                    for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in skip]
        except (tokenize.TokenError, IndentationError, SyntaxError):
            pass
    lexer = _LEXER if strings else _LEXER_NO_STRINGS
    return [t if not t.startswith("\n") else "\n" + t.strip("\n") for t in lexer.findall(source)
            if not t.startswith("\n") or t.strip("\n")]


def token_distance(a: str, b: str, language: str = "python", cap: int = 50) -> int:
    """Levenshtein distance between the token lists of ``a`` and ``b`` (capped at ``cap``),
    both lexed the same way so that the measure is fair on broken code."""
    ta, tb = code_tokens(a, language), code_tokens(b, language)
    if _python_tokens(language) and (_lexed_by_fallback(a) != _lexed_by_fallback(b)):
        ta, tb = code_tokens(a, "other"), code_tokens(b, "other")
    return _levenshtein(ta, tb, cap)


def _python_tokens(language: str) -> bool:
    record = spec(language)
    return record is not None and record.python_tokens


def _lexed_by_fallback(source: str) -> bool:
    try:
        for _ in tokenize.generate_tokens(io.StringIO(source).readline):
            pass
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return True
    return False


_BANDS = (4, 16)  # narrower caps tried first: a repair's distance is mostly a few tokens


def _levenshtein(a: list[str], b: list[str], cap: int) -> int:
    """The edit distance, or ``cap`` when it is ``cap`` or more."""
    start, end_a, end_b = differing_span(a, b)
    a, b = a[start:end_a], b[start:end_b]
    # A distance found below a narrower cap is the distance (``_banded``): the usual
    # small one costs rows x 4, not rows x ``cap``.
    for band in _BANDS:
        if band < cap:
            found = _banded(a, b, band)
            if found < band:
                return found
    return _banded(a, b, cap)


def _banded(a: list[str], b: list[str], cap: int) -> int:
    """The edit distance, or ``cap`` when it is ``cap`` or more. Only cells within
    ``cap`` of the diagonal can hold less, so only those are computed: a candidate
    whose edits lie hundreds of lines apart costs rows x ``cap``, not rows x rows."""
    if abs(len(a) - len(b)) >= cap:
        return cap
    width = len(b)
    previous = [min(j, cap) for j in range(width + 1)]  # cells outside the band: cap
    for i, x in enumerate(a, 1):
        low, high = max(1, i - cap), min(width, i + cap)
        current = [cap] * (width + 1)
        current[0] = min(i, cap)
        for j in range(low, high + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != b[j - 1]))
        previous = current
        if min(previous[low - 1:high + 1]) >= cap:
            return cap
    return min(previous[-1], cap)


def original_line(line: int, hunks: list[tuple[int, list[str], list[str]]]) -> int:
    """The original line number of ``line`` of a text with ``hunks`` applied."""
    shift = 0
    for first, old, new in hunks:
        start = first + shift
        if line < start:
            break
        if line < start + len(new):
            return first
        shift += len(new) - len(old)
    return line - shift


def insert(text: str, line_no: int, col: int, token: str) -> Edit:
    col = max(0, min(col, len(text)))
    return Edit(line_no, 1, [text[:col] + token + text[col:]], f"line {line_no}: insert {token!r}",
                1, col + 1, col)


def replace_token(text: str, line_no: int, col: int, old: str, new: str) -> Edit:
    if not new:
        return Edit(line_no, 1, [text[:col] + text[col + len(old):]], f"line {line_no}: delete {old!r}",
                    1, col, col)
    return Edit(line_no, 1, [text[:col] + new + text[col + len(old):]],
                f"line {line_no}: replace {old!r} with {new.strip()!r}", 1, col + len(new), col)
