"""Parser-verified candidate edits: the small repairs near each problem that the
checker accepts.

Most real syntax errors are one or two tokens away from code that parses: a missing
bracket, colon or comma, a stray character, a wrong indentation, a Python 2 print.
Around each reported problem we try inserting, deleting or replacing one token from a
small set, re-indenting a line, and a few whole-line rewrites, and keep the edits
after which the checker finds fewer problems and no new ones. Choosing among the few
survivors is left to the model (``rank.py``) or to the agent.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from .check import CheckResult, Problem, check, source_lines

INSERTABLE = (")", "]", "}", ":", ",", ";", "(", "[", "{", '"', "'", ".", "+", "=")
REPLACEABLE = (")", "]", "}", ":", ",", ";", "(", "[", "{", "=", "==", ".")
DELETABLE = set(")]}([{:,;.'\"=+-*/\\`<>|&@$!#%^") | {"print"}
# Whole tokens a person types by mistake.
_TOKEN = re.compile(r"""\s+|[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|"(?:\\.|[^"\\])*"?|'(?:\\.|[^'\\])*'?|==|!=|<=|>=|->|=>|::|\*\*|//|&&|\|\||<br\s*/?>|.""")
_PRINT = re.compile(r"^(\s*)print\b\s*(?!\()(.*?)\s*$")


@dataclass(frozen=True)
class Candidate:
    """Replace lines ``start_line..end_line`` (1-based, inclusive) with ``new_text``."""

    start_line: int
    end_line: int
    new_text: str
    description: str
    problems_after: int
    source_after: str
    size: int = 1  # tokens changed

    @property
    def fixes_all(self) -> bool:
        return self.problems_after == 0


def suggest(source: str, language: str, *, limit: int = 5, time_budget: float = 0.5,
            result: CheckResult | None = None, depth: int = 3) -> list[Candidate]:
    """Up to ``limit`` verified edits, full fixes first, then by size and position."""
    deadline = time.perf_counter() + time_budget
    result = result or check(source, language)
    if result.ok:
        return []
    found = _single_edits(source, language, result, deadline)
    complete = [c for c in found if c.fixes_all]
    frontier = sorted(found, key=_order)[:3]
    for _ in range(depth - 1):
        # Several errors, or one that needs more than one token: extend the best
        # partial edits, a few at a time, while time remains.
        if complete or not frontier or time.perf_counter() > deadline:
            break
        extended: list[Candidate] = []
        for first in frontier:
            if time.perf_counter() > deadline:
                break
            after = check(first.source_after, language)
            for second in _single_edits(first.source_after, language, after, deadline):
                extended.append(_combine(source, first, second))
        complete = [c for c in extended if c.fixes_all]
        frontier = sorted(extended, key=_order)[:3]
        found = complete or found
    ordered = sorted(complete or found, key=_order)
    unique: dict[str, Candidate] = {}
    for candidate in ordered:
        unique.setdefault(candidate.source_after, candidate)
    return list(unique.values())[:limit]


def _order(c: Candidate) -> tuple[int, int, int]:
    return (c.problems_after, c.size, c.start_line)


def _combine(source: str, first: Candidate, second: Candidate) -> Candidate:
    before, after = source_lines(source), source_lines(second.source_after)
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end_b, end_a = len(before), len(after)
    while end_b > start and end_a > start and before[end_b - 1] == after[end_a - 1]:
        end_b -= 1
        end_a -= 1
    return Candidate(start + 1, max(end_b, start + 1), "\n".join(after[start:end_a]),
                     f"{first.description}; {second.description}", second.problems_after,
                     second.source_after, first.size + second.size)


def _single_edits(source: str, language: str, result: CheckResult, deadline: float) -> list[Candidate]:
    lines = source_lines(source)
    if not lines:
        return []
    trailing_newline = source.endswith("\n")
    baseline = _signature(result)
    seen: set[str] = set()
    found: list[Candidate] = []
    for line_no, new_lines, description, size in _proposals(lines, result.problems[:3], language):
        if time.perf_counter() > deadline:
            break
        span = len(new_lines) if description.startswith("lines ") else 1
        edited = lines[:line_no - 1] + new_lines + lines[line_no - 1 + span:]
        text = "\n".join(edited) + ("\n" if trailing_newline else "")
        if text in seen or text == source:
            continue
        seen.add(text)
        after = check(text, language)
        if not after.ok and not _progress(result, after, line_no):
            continue
        if not after.ok and after.problems[0].kind != "compiler" and \
                _signature(after) - _shifted(baseline, line_no, len(new_lines) - span):
            continue  # a new problem appeared somewhere
        found.append(Candidate(line_no, line_no + span - 1, "\n".join(new_lines), description,
                               len(after.problems), text, size))
    return found


def _progress(before: CheckResult, after: CheckResult, line_no: int) -> bool:
    """Fewer problems; or, where a compiler reports one error at a time, the first
    error moved past the edited line."""
    if len(after.problems) < len(before.problems):
        return True
    first_before, first_after = before.problems[0], after.problems[0]
    return (first_before.kind == "compiler" and first_after.kind == "compiler"
            and len(after.problems) <= len(before.problems)
            and first_after.line > max(first_before.line, line_no))


def _signature(result: CheckResult) -> set[tuple[int, str]]:
    return {(p.line, p.message) for p in result.problems}


def _shifted(signature: set[tuple[int, str]], at: int, delta: int) -> set[tuple[int, str]]:
    return {(line + delta if line > at else line, message) for line, message in signature}


def tokens(text: str) -> list[tuple[int, str]]:
    """(column, token) pairs of one line, whitespace included."""
    return [(m.start(), m.group()) for m in _TOKEN.finditer(text)]


def _anchor_lines(problems: tuple[Problem, ...], total: int) -> list[int]:
    lines: list[int] = []
    for p in problems:
        for line in (p.line, p.line - 1, p.end_line, p.line + 1, p.end_line + 1):
            if 1 <= line <= total and line not in lines:
                lines.append(line)
    return lines


def _proposals(lines: list[str], problems: tuple[Problem, ...], language: str):
    """(line number, replacement lines, description, size) to try, likeliest first."""
    total = len(lines)
    # Missing tokens that the parser named: insert exactly there.
    for p in problems:
        if p.kind == "missing" and 1 <= p.line <= total:
            token = p.message[len("missing "):].strip("'\"") if p.message.startswith("missing ") else ""
            if token and len(token) <= 3:
                text = lines[p.line - 1]
                col = min(p.column - 1, len(text))
                yield p.line, [text[:col] + token + text[col:]], f"insert {token!r} at {p.line}:{p.column}", 1
    anchors = _anchor_lines(problems, total)
    if language == "python":
        for line_no in anchors:
            rewritten = _python_print(lines[line_no - 1])
            if rewritten is not None:
                yield line_no, [rewritten], f"line {line_no}: print statement to print() call", 1
        for line_no in anchors[:3]:
            yield from _python_keyword_edits(lines[line_no - 1], line_no)
        stripped = _strip_prompts(lines)
        if stripped is not None:
            yield 1, stripped, f"lines 1-{total}: remove interactive prompt markers", 1
    for line_no in anchors:
        yield from _indent_edits(lines, line_no)
    if language == "python":
        for line_no in anchors[:2]:
            yield from _block_indent_edits(lines, line_no)
    for line_no in anchors:
        yield from _token_edits(lines[line_no - 1], line_no)


_PY_KEYWORDS = ("def", "class", "for", "while", "if", "elif", "else", "return", "import", "from",
                "with", "try", "except", "finally", "print", "lambda", "in", "is", "not", "and", "or",
                "True", "False", "None", "pass", "break", "continue", "yield", "raise", "as", "global")
_LINE_START_KEYWORDS = ("def ", "with ", "for ", "if ", "class ", "import ", "return ", "elif ", "while ")
_PROMPT = re.compile(r"^(>>> ?|\.\.\. ?|> ?|\$ )")


def _python_keyword_edits(text: str, line_no: int):
    """Keywords typed with a capital (``For``, ``Class``) or left out at the start of a line."""
    for col, tok in tokens(text):
        if tok[:1].isalpha() and tok not in _PY_KEYWORDS:
            for keyword in _PY_KEYWORDS:
                if tok.lower() == keyword.lower():
                    yield line_no, [text[:col] + keyword + text[col + len(tok):]], \
                        f"line {line_no}: {tok!r} -> {keyword!r}", 1
    indent = _indent_of(text)
    for keyword in _LINE_START_KEYWORDS:
        yield line_no, [indent + keyword + text[len(indent):]], \
            f"line {line_no}: insert {keyword.strip()!r}", 1


def _strip_prompts(lines: list[str]) -> list[str] | None:
    """A pasted interactive session without its ``>>>``/``...`` prompt markers."""
    if not any(_PROMPT.match(line) for line in lines):
        return None
    return [_PROMPT.sub("", line, count=1) for line in lines]


def _python_print(text: str) -> str | None:
    match = _PRINT.match(text)
    if not match or match.group(2).startswith(("=", ".", "[")):
        return None
    indent, rest = match.groups()
    if rest.endswith(","):
        return f"{indent}print({rest[:-1]}, end=' ')"
    return f"{indent}print({rest})"


def _indent_of(text: str) -> str:
    return text[: len(text) - len(text.lstrip())]


def _indent_edits(lines: list[str], line_no: int):
    text = lines[line_no - 1]
    if not text.strip():
        return
    body = text.lstrip()
    current = _indent_of(text)
    levels: list[str] = []
    for neighbour in (line_no - 1, line_no + 1, line_no - 2):
        if 1 <= neighbour <= len(lines) and lines[neighbour - 1].strip():
            levels.append(_indent_of(lines[neighbour - 1]))
    unit = "\t" if current.startswith("\t") else "    "
    levels += ["", current + unit, current[: -len(unit)] if current.endswith(unit) else current[:-1]]
    for level in levels:
        if level != current:
            yield line_no, [level + body], f"line {line_no}: indent to {len(level)} columns", 1


def _block_indent_edits(lines: list[str], line_no: int):
    """Shift a line and the lines below it that are indented at least as deeply."""
    text = lines[line_no - 1]
    current = _indent_of(text)
    if not text.strip():
        return
    end = line_no
    while end < len(lines) and (not lines[end].strip() or _indent_of(lines[end]).startswith(current)):
        end += 1
    if end == line_no:
        return
    block = lines[line_no - 1:end]
    previous = next((lines[i] for i in range(line_no - 2, -1, -1) if lines[i].strip()), "")
    targets = {_indent_of(previous), _indent_of(previous) + "    ", ""} - {current}
    for target in targets:
        shifted = [target + line[len(current):] if line.strip() else line for line in block]
        yield line_no, shifted, f"lines {line_no}-{end}: indent block to {len(target)} columns", 1


def _token_edits(text: str, line_no: int):
    parts = tokens(text)
    code_end = len(text.rstrip())
    boundaries = sorted({0, code_end} | {col for col, tok in parts} | {col + len(tok) for col, tok in parts})
    # End of line first: most missing tokens belong there.
    order = [code_end] + [b for b in boundaries if b != code_end]
    for col in order:
        for token in INSERTABLE:
            yield line_no, [text[:col] + token + text[col:]], f"line {line_no}: insert {token!r}", 1
    for col, tok in parts:
        if tok.isspace():
            continue
        if tok in DELETABLE or tok.startswith("<br") or (len(tok) == 1 and not tok.isalnum()):
            yield line_no, [text[:col] + text[col + len(tok):]], f"line {line_no}: delete {tok!r}", 1
        if tok in REPLACEABLE or tok in DELETABLE:
            for other in REPLACEABLE:
                if other != tok:
                    yield (line_no, [text[:col] + other + text[col + len(tok):]],
                           f"line {line_no}: replace {tok!r} with {other!r}", 1)
    for col, tok in parts:
        if tok[:1] in "\"'" and (len(tok) == 1 or tok[-1] != tok[0]):
            yield line_no, [text.rstrip() + tok[0]], f"line {line_no}: close the string", 1
