"""A file's block structure as its lines lay it out: the tokens of a line, strings
left open, brackets without a partner, the line that begins a block, indentation.

Nothing here proposes or checks an edit; the proposals and the guard both read it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator, Sequence

from .edits import BRACKETS, Edit, insert

_TOKEN = re.compile(r"""\s+|[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|"(?:\\.|[^"\\])*"?|'(?:\\.|[^'\\])*'?"""
                    r"""|===|!==|\.\.\.|\*\*=?|//=?|<<|>>|==|!=|<=|>=|<>|->|=>|::|:=|&&|\|\||\+\+|--"""
                    r"""|[-+*/%&|^@]=|<br\s*/?>|.""")
INNER_LINES = 16  # a multi-line problem up to this size has each of its lines tried
HEADER_SCAN = 400  # lines above a closer searched for the line that began its block


def open_strings(text: str) -> int:
    """Quotes on ``text`` that start a string the line does not close."""
    return sum(1 for _, tok in tokens(text) if tok[0] in "\"'" and (len(tok) == 1 or tok[-1] != tok[0]))


@lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[tuple[int, str], ...]:
    """(column, token) pairs of one line, whitespace included. Remembered: the search
    asks about the same few lines thousands of times."""
    return tuple((m.start(), m.group()) for m in _TOKEN.finditer(text))


def indent_of(text: str) -> str:
    return text[: len(text) - len(text.lstrip())]


def lost_closers(lines: list[str], first: int, last: int, comment: str) -> list[tuple[int, str, int]]:
    """(line, closer, opener's line) for each opener that ends a line on lines
    ``first..last`` whose body is indented deeper, when a line indented no deeper than
    the opener's line comes before its closer and is not itself a closer or a label
    (``case 1:``, ``public:``): the closer belongs before that line. The nearest to
    ``last`` first."""
    stack: list[tuple[int, str, int, bool]] = []  # (line, opener, indent, body seen) of open brackets
    found: list[tuple[int, str, int]] = []
    for line_no in range(first, last + 1):
        text = lines[line_no - 1]
        code = text.strip()
        if not code or (comment and code.startswith(comment)):
            continue
        indent = len(indent_of(text))
        if stack and stack[-1][3] is not None:
            header, opener, depth, body = stack[-1]
            if indent > depth:
                stack[-1] = (header, opener, depth, True)
            elif body and code[0] not in _CLOSERS and not code.endswith(":"):
                found.append((line_no, BRACKETS[opener], header))
                stack.pop()  # closed here, as its body says
        words = _code_words(text, comment)
        for index, (col, tok) in enumerate(words):
            if tok in BRACKETS:
                ends_line = index == len(words) - 1
                stack.append((line_no, tok, indent, False if ends_line else None))
            elif tok in _CLOSERS and stack and BRACKETS[stack[-1][1]] == tok:
                stack.pop()
    return found[::-1]


_CLOSERS = frozenset(BRACKETS.values())


@lru_cache(maxsize=8192)
def _code_words(text: str, comment: str) -> tuple[tuple[int, str], ...]:
    """(column, token) of one line's tokens before a line comment, whitespace left out.
    Remembered: the search walks the same lines for every edit."""
    found = []
    for col, tok in tokens(text):
        if tok.isspace():
            continue
        if comment and text.startswith(comment, col) and (col == 0 or text[col - 1].isspace()):
            break  # a comment (a "#" inside a word, as in bash's ${#x}, is not one)
        found.append((col, tok))
    return tuple(found)


@lru_cache(maxsize=8192)
def _line_brackets(text: str, comment: str) -> tuple[tuple[int, str], ...]:
    """(column, bracket) of one line's brackets outside strings and a line comment."""
    return tuple((col, tok) for col, tok in _code_words(text, comment) if tok in BRACKETS or tok in _CLOSERS)


def bracket_tokens(lines: Sequence[str]) -> list[str]:
    """The brackets of ``lines`` in their order, outside strings."""
    return [tok for line in lines for _, tok in _line_brackets(line, "")]


def unmatched_brackets(lines: list[str], first: int, last: int, comment: str) -> list[tuple[int, int, str]]:
    """(line, column, bracket) of brackets on lines ``first..last`` that have no partner
    there, strings and line comments skipped: closers that close nothing or the wrong
    opener, then openers never closed (the innermost first)."""
    stack: list[tuple[int, int, str]] = []
    stray: list[tuple[int, int, str]] = []
    for line_no in range(first, last + 1):
        for col, tok in _line_brackets(lines[line_no - 1], comment):
            if tok in BRACKETS:
                stack.append((line_no, col, tok))
            elif stack and BRACKETS[stack[-1][2]] == tok:
                stack.pop()
            else:
                stray.append((line_no, col, tok))
    return stray + stack[::-1]


def mismatched_pairs(lines: list[str], first: int, last: int, comment: str
                     ) -> list[tuple[tuple[int, int, str], tuple[int, int, str]]]:
    """((line, column, opener), (line, column, closer)) of each closer on lines
    ``first..last`` that meets an open bracket of another kind (``{`` ... ``]``), strings
    and line comments skipped; the pair is taken as one, so the brackets after it pair
    as they would with either bracket of the other kind."""
    stack: list[tuple[int, int, str]] = []
    pairs: list[tuple[tuple[int, int, str], tuple[int, int, str]]] = []
    for line_no in range(first, last + 1):
        for col, tok in _line_brackets(lines[line_no - 1], comment):
            if tok in BRACKETS:
                stack.append((line_no, col, tok))
            elif stack:
                opener = stack.pop()
                if BRACKETS[opener[2]] != tok:
                    pairs.append((opener, (line_no, col, tok)))
    return pairs


def block_header(lines: list[str], line_no: int, col: int) -> int | None:
    """For a closer that begins its line: the nearest line above it indented as
    deeply, when the line after that one is indented deeper (the block's first line).
    A block whose opener was lost is still laid out as one."""
    text = lines[line_no - 1]
    if text[:col].strip():
        return None
    indent = len(indent_of(text))
    for n in range(line_no - 1, max(0, line_no - 1 - HEADER_SCAN), -1):
        above = lines[n - 1]
        if not above.strip() or len(indent_of(above)) > indent:
            continue
        if len(indent_of(above)) < indent or n + 1 >= line_no:
            return None
        following = next((t for t in lines[n:line_no - 1] if t.strip()), "")
        if above.rstrip().endswith(tuple(BRACKETS)):
            return None  # it has its opener: the closer is one too many
        return n if len(indent_of(following)) > indent else None
    return None


def misplaced_closers(lines: list[str], first: int, last: int, comment: str) -> list[tuple[int, int, str]]:
    """(line, column, bracket) of closers on lines ``first..last`` that begin a line of
    closers (``}}``) and close an opener on a line indented less than theirs: the
    closer typed twice, which tree-sitter and compilers only notice where the block
    it ended too early should have gone on."""
    return [(line_no, col, tok) for line_no, col, tok, first_on_line in _closers_under_shallower(lines, first, last, comment)
            if not first_on_line]


def deeper_closers(lines: list[str], first: int, last: int, comment: str) -> list[tuple[int, int, str]]:
    """(line, column, bracket) of closers that begin their line and close an opener on
    a line indented less than theirs: a block between the two lost its opener, and
    this closer, meant for it, now closes the block around."""
    return [(line_no, col, tok) for line_no, col, tok, first_on_line in _closers_under_shallower(lines, first, last, comment)
            if first_on_line]


def _closers_under_shallower(lines: list[str], first: int, last: int, comment: str
                             ) -> Iterator[tuple[int, int, str, bool]]:
    """(line, column, bracket, first on its line) of the closers a line begins with
    (``}``, ``}}``, ``} else {``'s ``}``) that close an opener on a line indented less
    than theirs."""
    stack: list[tuple[int, int, str]] = []
    for line_no in range(first, last + 1):
        text = lines[line_no - 1]
        indent = len(text) - len(text.lstrip())
        leading = True  # still among the closers the line begins with
        for col, tok in _code_words(text, comment):
            if tok in BRACKETS:
                stack.append((line_no, col, tok))
            elif tok in BRACKETS.values() and stack and BRACKETS[stack[-1][2]] == tok:
                opener_line = lines[stack.pop()[0] - 1]
                if leading and len(opener_line) - len(opener_line.lstrip()) < indent:
                    yield line_no, col, tok, col == indent
            leading = leading and tok in BRACKETS.values()


def opener_at_end(lines: list[str], header: int, opener: str) -> Edit:
    """``opener`` put back at the end of line ``header``, as the block's first line ends."""
    above = lines[header - 1]
    end = len(above.rstrip())
    if above[end:end + 1] == " ":  # after the space the line still ends with
        return insert(above, header, end + 1, opener)
    return insert(above, header, end, opener if above[end - 1:end] in ("", "(") else " " + opener)
