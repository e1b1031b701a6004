"""The minimal-edit guard: a repair may only be small.

A repair that changes many lines or many tokens has stopped being a repair (the model
rewrote or deleted code to make the parser happy), so it is refused and the input is
left as it was. The limits come from the settings (`max-changed-lines`,
`max-changed-tokens`).
"""

from __future__ import annotations

from .edits import changed_lines, token_distance

MAX_CHANGED_LINES = 8
MAX_CHANGED_TOKENS = 40


def edit_too_large(before: str, after: str, language: str, *,
                   max_lines: int = MAX_CHANGED_LINES,
                   max_tokens: int = MAX_CHANGED_TOKENS) -> str:
    """Why the edit from ``before`` to ``after`` breaks the guard, or "" when it is small enough."""
    lines = changed_lines(before, after)
    if len(lines) > max_lines:
        return f"{len(lines)} lines changed, limit {max_lines}"
    distance = token_distance(before, after, language, cap=max_tokens + 1)
    if distance > max_tokens:
        return f"more than {max_tokens} tokens changed, limit {max_tokens}"
    return ""
