"""Text in a source file that is not the language's: merge-conflict markers, and a chat
answer whose code sits in a Markdown fence between lines of prose.

Either breaks the syntax, and neither is a mistake to repair there: taking one side of
a conflict or deleting the prose around a fence would drop lines a person must choose
between. So ``check`` reports them as what they are, and ``fix`` leaves such a file alone.
Both are looked for only in a file that does not pass its check, so a clean file
that quotes markers or fences (in a string, a docstring, a test fixture) is never
reported.
"""

from __future__ import annotations

import re
from typing import Callable

# git's markers: "<<<<<<< ours", "||||||| base" (diff3), "=======", ">>>>>>> theirs".
_OPEN = re.compile(r"<{7}(?: |$)")
_BASE = re.compile(r"\|{7}(?: |$)")
_SPLIT = re.compile(r"={7}$")
_CLOSE = re.compile(r">{7}(?: |$)")
# A Markdown code fence on a line of its own: ``` or ~~~, an optional info string.
_FENCE = re.compile(r" {0,3}(```+|~~~+)[ \t]*[\w+#.-]*[ \t]*$")


def conflict_lines(text: str) -> list[int]:
    """The 1-based lines of each complete conflict (opener, separator, closer, in that
    order), or [] when the file holds none."""
    found: list[int] = []
    if "<<<<<<<" not in text:  # no conflict opens: the lines need not be read
        return found
    opened: list[int] = []
    split = False
    for number, line in enumerate(text.splitlines(), 1):
        line = line.rstrip("\r")
        if _OPEN.match(line):
            opened, split = [number], False
        elif opened and (_BASE.match(line) and not split):
            opened.append(number)
        elif opened and _SPLIT.match(line) and not split:
            opened.append(number)
            split = True
        elif opened and split and _CLOSE.match(line):
            found += opened + [number]
            opened, split = [], False
    return found


def fenced_code(text: str) -> tuple[int, int] | None:
    """The 1-based lines of the first pair of Markdown fences with text outside them, or
    None: the shape of a chat answer pasted into a file."""
    if "```" not in text and "~~~" not in text:  # no fence: the lines need not be read
        return None
    lines = text.splitlines()
    fences = [number for number, line in enumerate(lines, 1) if _FENCE.match(line)]
    if len(fences) < 2:
        return None
    first, last = fences[0], fences[1]
    outside = [line for line in lines[:first - 1] + lines[last:] if line.strip()]
    return (first, last) if outside else None


def foreign_text(text: str, passes: Callable[[str], bool]) -> tuple[str, list[int], str] | None:
    """(kind, lines, message) for conflict markers or a chat answer in ``text``, a file
    that fails its check; ``passes`` tells whether a text passes it. The code of a chat
    answer is the text between its fences, and must pass: only then is the prose, not
    the code, what breaks the file."""
    conflicts = conflict_lines(text)
    if conflicts:
        return ("conflict", conflicts,
                "merge conflict markers: resolve the conflict (tinycode does not pick a side)")
    fence = fenced_code(text)
    if fence is not None:
        first, last = fence
        inner = "\n".join(text.splitlines()[first:last - 1]) + "\n"
        if passes(inner):
            return ("chat", [first, last],
                    f"a chat answer: the code is between the fences on lines {first} and {last}, "
                    "with prose around it; keep only the code")
    return None
