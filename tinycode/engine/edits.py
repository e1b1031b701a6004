"""Line-range edits, unified diffs, and how big an edit is (in lines and tokens)."""

from __future__ import annotations

import difflib
import io
import re
import tokenize

from ..check import source_lines

_WORDS_AND_SYMBOLS = r"""[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|\n[ \t]*|==|!=|<=|>=|->|=>|::|\*\*|//|&&|\|\||\S"""
# A quote that never closes is one token and lexing goes on after it, as Python's own
# tokenizer does (an ERRORTOKEN): closing it is a small edit, not one the size of the
# rest of the line.
_LEXER = re.compile(r""""(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|""" + _WORDS_AND_SYMBOLS)
# For counting deleted code, quotes are tokens of their own and the words between them
# count one by one: adding or moving a quote regroups the words of a line into other
# strings, which deletes nothing.
_LEXER_NO_STRINGS = re.compile(_WORDS_AND_SYMBOLS)


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
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"a/{path}", f"b/{path}"))


def changed_hunks(before: str, after: str) -> list[tuple[int, list[str], list[str]]]:
    """Each run of changed lines: (its first line in ``before``, 1-based, or the line it
    is inserted before; the lines it replaces; the lines that replace them)."""
    a, b = source_lines(before), source_lines(after)
    # Only the middle that differs goes to difflib: it is slow on long, repetitive files.
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    matcher = difflib.SequenceMatcher(a=a[start:end_a], b=b[start:end_b], autojunk=False)
    return [(start + i1 + 1, a[start + i1:start + i2], b[start + j1:start + j2])
            for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def changed_lines(before: str, after: str) -> list[int]:
    """1-based numbers of the lines of ``before`` that the edit touched (or inserted at)."""
    return [line for first, old, _ in changed_hunks(before, after)
            for line in range(first, first + max(len(old), 1))]


def code_tokens(source: str, language: str = "python", *, strings: bool = True) -> list[str]:
    """Tokens of ``source`` for measuring edit size: Python's tokenizer for Python
    (indentation counts), a small lexer otherwise or when the tokenizer gives up."""
    if language == "python":
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
    if language == "python" and (_lexed_by_fallback(a) != _lexed_by_fallback(b)):
        ta, tb = code_tokens(a, "other"), code_tokens(b, "other")
    return _levenshtein(ta, tb, cap)


def _lexed_by_fallback(source: str) -> bool:
    try:
        for _ in tokenize.generate_tokens(io.StringIO(source).readline):
            pass
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return True
    return False


def _levenshtein(a: list[str], b: list[str], cap: int) -> int:
    # Strip the common prefix and suffix first: edits are small, files may be long.
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    a, b = a[start:end_a], b[start:end_b]
    if abs(len(a) - len(b)) >= cap:
        return cap
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
        if min(previous) >= cap:
            return cap
    return min(previous[-1], cap)


def rewrites_too_much(before: str, after: str, language: str) -> bool:
    """True when an edit replaces code rather than repairing it: more tokens changed
    than half of what the touched lines held (and more than a handful)."""
    distance = token_distance(before, after, language, cap=200)
    if distance <= 6:
        return False
    touched = changed_lines(before, after)
    lines = source_lines(before)
    original = "\n".join(lines[i - 1] for i in touched if 0 < i <= len(lines))
    return distance > max(6, len(code_tokens(original, "other")) // 2)
