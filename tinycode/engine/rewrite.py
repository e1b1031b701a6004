"""One generated repair of the lines around the first problem.

When no small verified edit fixes the file, the cheapest thing that often works is the
one a person would try: show the model the broken lines and the checker's message and
take the lines back corrected. Only a window around the problem is shown (the prompt
does not grow with the file), its common indentation removed and restored, so a small
model retypes a few short lines. The repair loop keeps the answer when the whole file
then parses, or when it removed the problem and added none (another error elsewhere
is the next step's).
"""

from __future__ import annotations

import re
import textwrap
import time
from dataclasses import dataclass

from ..check import CheckResult, check, source_lines
from .edits import Edit, replace_lines
from .rules import MODEL_REWRITE
from ..llm.base import LLM

LINES_BEFORE, LINES_AFTER = 3, 3  # context around the first problem
WHOLE_FILE_UP_TO = 12  # lines: a file this short is shown whole
# Characters of a window the model retypes at most (about 300 tokens: ten seconds of
# generation for the default model on two cores). Around a longer one (minified code,
# a page on one line) the window narrows to the problem's line and its neighbours;
# past that no rewrite is asked for: the answer would cost the file's whole budget.
MAX_WINDOW_CHARS = 1000
SYSTEM = ("You are an expert programmer. Fix the syntax error in the user's lines, changing as "
          "little as possible. Reply with the corrected lines in one fenced code block and nothing else.")
_FENCE = re.compile(r"```[\w+#.-]*[ \t]*\n(.*?)(?:```|\Z)", re.S)


@dataclass
class Rewrite:
    source: str | None  # the repaired file, or None when the answer did not make it parse
    edit: Edit  # the window's lines replaced by the answer
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    edited: str | None = None  # the file with the answer in place, parsing or not
    edited_result: CheckResult | None = None  # its check


def rewrite_window(llm: LLM, source: str, language: str, result: CheckResult) -> Rewrite | None:
    """Ask once for the corrected lines around ``result``'s first problem; None when
    even the narrowest window is too long to retype (``MAX_WINDOW_CHARS``)."""
    started = time.perf_counter()
    lines = source_lines(source)
    first = result.problems[0]
    window = ""
    for before, after in ((LINES_BEFORE, LINES_AFTER), (1, 1), (0, 0)):
        if len(lines) <= WHOLE_FILE_UP_TO and before:
            start, end = 1, max(1, len(lines))
        else:
            start = max(1, min(first.line, len(lines)) - before)
            end = min(len(lines), max(first.line, first.end_line, start) + after)
        window = "\n".join(line.rstrip("\r") for line in lines[start - 1:end])
        if len(window) <= MAX_WINDOW_CHARS:
            break
    else:
        return None
    body = textwrap.dedent(window)
    indent = _removed_indent(window, body)
    messages = "\n".join(f"line {p.line - start + 1}: {p.message}" for p in result.problems[:3]
                         if start <= p.line <= end) or f"line {first.line - start + 1}: {first.message}"
    user = f"```{language}\n{body}\n```\nThe checker says:\n{messages}"
    completion = llm.complete([{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
                              max_tokens=2 * llm.count_tokens(body) + 32)
    answer = _answer(completion.text)
    repaired = edited = edited_result = None
    new_text = ""
    if answer is not None:
        new_text = textwrap.indent(answer, indent) if indent else answer
        candidate = replace_lines(source, start, end, new_text)
        if candidate != source:
            edited, edited_result = candidate, check(candidate, language)
            repaired = candidate if edited_result.ok else None
    change = Edit(start, end - start + 1, new_text.split("\n"), "rewrite of the problem's window", rule=MODEL_REWRITE)
    return Rewrite(repaired, change, completion.prompt_tokens,
                   completion.completion_tokens, time.perf_counter() - started, edited, edited_result)


def _answer(text: str) -> str | None:
    """The fenced block of the reply (its trailing newline dropped), or None."""
    match = _FENCE.search(text)
    if match is None:
        return None
    return match.group(1).rstrip("\n").rstrip("\r")


def _removed_indent(window: str, dedented: str) -> str:
    """The indentation ``textwrap.dedent`` took off every line."""
    for before, after in zip(window.split("\n"), dedented.split("\n")):
        if after.strip():
            return before[:len(before) - len(after)]
    return ""
