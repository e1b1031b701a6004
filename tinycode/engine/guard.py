"""The minimal-edit guard: a repair may only be small, and only near a problem.

A repair that changes many lines or many tokens has stopped being a repair (the model
rewrote code to make the parser happy), and one that removes more than a few tokens
deleted code the parser choked on, so both are refused and the input is left as it
was. A change far from every problem the checker reported is not a repair at all: code
comments are model input, and an instruction planted in one must not reach a line the
error does not touch. The limits come from the settings (`max-changed-lines`,
`max-changed-tokens`, `max-deleted-tokens`, `max-problem-distance`).
"""

from __future__ import annotations

from typing import Sequence

from ..check import Problem, source_lines
from .edits import changed_hunks, changed_lines, code_tokens, token_distance

MAX_CHANGED_LINES = 8
MAX_CHANGED_TOKENS = 40
# Net tokens a repair may remove: a stray bracket, a duplicated word, a ">>>" prompt.
# (On the StackOverflow dev set 96% of the human fixes remove at most 6.)
MAX_DELETED_TOKENS = 6
# Lines a changed line may lie outside every problem's span (an unclosed bracket is
# reported where it opens and closed where its statement ends).
MAX_PROBLEM_DISTANCE = 6


def edit_too_large(before: str, after: str, language: str, *,
                   max_lines: int = MAX_CHANGED_LINES,
                   max_tokens: int = MAX_CHANGED_TOKENS,
                   max_deleted: int = MAX_DELETED_TOKENS,
                   problems: Sequence[Problem] | None = None,
                   max_distance: int = MAX_PROBLEM_DISTANCE) -> str:
    """Why the edit from ``before`` to ``after`` breaks the guard, or "" when it is small
    enough (and, given the ``problems`` of ``before``, near enough to one of them)."""
    lines = changed_lines(before, after)
    if problems is not None:
        far = far_from_problems(before, after, language, problems, max_distance)
        if far:
            return far
    before, after = _differing_middle(before, after)  # so the cost follows the edit, not the file
    if len(lines) > max_lines:
        return f"{len(lines)} lines changed, limit {max_lines}"
    distance = token_distance(before, after, language, cap=max_tokens + 1)
    if distance > max_tokens:
        return f"more than {max_tokens} tokens changed, limit {max_tokens}"
    deleted = len(code_tokens(before, "other", strings=False)) - len(code_tokens(after, "other", strings=False))
    if deleted > max_deleted:
        return f"{deleted} tokens of code deleted, limit {max_deleted}"
    return ""


def _differing_middle(before: str, after: str) -> tuple[str, str]:
    """The lines of each text from the first that differs to the last that differs."""
    a, b = before.split("\n"), after.split("\n")
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    return "\n".join(a[start:end_a]), "\n".join(b[start:end_b])


def far_from_problems(before: str, after: str, language: str, problems: Sequence[Problem],
                      max_distance: int) -> str:
    """Why some run of lines the edit changes lies more than ``max_distance`` lines from
    every problem the checker reported, or "".

    A checker may report one error at a time (CPython does), so the problems count as
    they surface: once the changes near a reported problem are applied, the problems
    of that text (in the original's line numbers) count too. Far from every problem a
    line may only gain closing brackets: an unclosed bracket is reported where it
    opens, and the checker reads on to the end of the file looking for its partner."""
    from ..check import check

    hunks = changed_hunks(before, after)
    spans = [(p.line, max(p.line, p.end_line)) for p in problems]
    original = source_lines(before)
    applied: list[int] = []
    pending = list(range(len(hunks)))
    while pending:
        near = [i for i in pending if _near(hunks[i], spans, max_distance)]
        if not near:
            first, old, _ = hunks[pending[0]]
            line = first
            nearest = min((max(0, a - line, line - b) for a, b in spans), default=None)
            where = "no problem reported" if nearest is None else f"{nearest} lines from the nearest problem"
            return f"line {line} changed, {where}, limit {max_distance}"
        applied = sorted(applied + near)
        pending = [i for i in pending if i not in near]
        if pending:
            text = _apply_hunks(original, [hunks[i] for i in applied], before.endswith("\n"))
            spans += [(_original_line(p.line, [hunks[i] for i in applied]),
                       _original_line(max(p.line, p.end_line), [hunks[i] for i in applied]))
                      for p in check(text, language).problems]
    return ""


def _near(hunk: tuple[int, list[str], list[str]], spans: list[tuple[int, int]], max_distance: int) -> bool:
    first, old, new = hunk
    lines = range(first, first + max(len(old), 1))
    if all(any(max(0, a - line, line - b) <= max_distance for a, b in spans) for line in lines):
        return True
    return _only_closes_brackets(old, new) and any(first > a for a, _ in spans)


def _apply_hunks(original: list[str], hunks: list[tuple[int, list[str], list[str]]], newline: bool) -> str:
    """``original`` with ``hunks`` (in order, from ``changed_hunks``) applied."""
    lines: list[str] = []
    at = 1
    for first, old, new in hunks:
        lines += original[at - 1:first - 1] + new
        at = first + len(old)
    lines += original[at - 1:]
    return "\n".join(lines) + ("\n" if newline else "")


def _original_line(line: int, hunks: list[tuple[int, list[str], list[str]]]) -> int:
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


def _only_closes_brackets(old: list[str], new: list[str]) -> bool:
    """The new lines are the old ones with closing brackets (and spacing) added."""
    squeeze = "".join("".join(old).split())
    grown = "".join("".join(new).split())
    if len(grown) <= len(squeeze):
        return False
    i = 0
    for char in grown:
        if i < len(squeeze) and char == squeeze[i]:
            i += 1
        elif char not in ")]}":
            return False
    return i == len(squeeze)
