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

from .check import Problem
from .edits import changed_lines, code_tokens, token_distance

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
        far = far_from_problems(lines, problems, max_distance)
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


def far_from_problems(lines: Sequence[int], problems: Sequence[Problem], max_distance: int) -> str:
    """Why some changed line (1-based, of the original) lies more than ``max_distance``
    lines from every problem's span, or ""."""
    spans = [(p.line, max(p.line, p.end_line)) for p in problems]
    for line in lines:
        nearest = min((max(0, first - line, line - last) for first, last in spans), default=None)
        if nearest is None or nearest > max_distance:
            where = "no problem reported" if nearest is None else f"{nearest} lines from the nearest problem"
            return f"line {line} changed, {where}, limit {max_distance}"
    return ""
