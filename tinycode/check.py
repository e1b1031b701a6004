"""code_check: every syntax problem in a source text, as data; and its rendering.

tree-sitter finds ERROR and MISSING nodes in any language. A language whose record
has an in-process judge of its own (CPython's ``compile()`` for Python, the ``json``
module for JSON) is judged by it; other languages by their own tool, where installed
(``judges``: gcc, node, bash -n, ...). Their verdict comes first and tree-sitter's
problems on other lines are kept, so several errors show at once.
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass, field, replace

from .foreign import foreign_text
from .problems import _MAX_TEXT, MAX_PROBLEMS, TREE_SITTER, Problem, judge_read_to, tree_problems, tree_sitter_problems
from .languages import NoVerdict, read_as, spec
from .languages.python import CompileError, compile_error

__all__ = ["CheckResult", "CompileError", "Problem", "check", "compile_error", "number_lines", "render",
           "shadowed", "source_lines", "tree_sitter_problems"]

@dataclass(frozen=True)
class CheckResult:
    language: str
    problems: tuple[Problem, ...] = field(default_factory=tuple)
    judge: str = TREE_SITTER  # whose verdict this is: "python", "json", a tool ("gcc -fsyntax-only")
    note: str = ""  # what the judge could not check ("types unknown: checked by the parser only")

    @property
    def ok(self) -> bool:
        return not self.problems

    def __len__(self) -> int:
        return len(self.problems)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"language": self.language, "ok": self.ok, "judge": self.judge,
                                  "problems": [p.to_dict() for p in self.problems]}
        if self.note:
            out["note"] = self.note
        return out


def check(source: str, language: str, path: str | None = None) -> CheckResult:
    """All syntax problems of ``source`` in ``language`` (a name from ``languages``).
    ``path``: the file it is (a C or C++ compiler then reads its project's headers). A
    failing file's merge-conflict markers, or the prose of a chat answer around its code,
    are reported as such (kinds "conflict" and "chat"), not as syntax to repair."""
    language = read_as(source, language)
    result = _syntax(source, language, path)
    if result.ok:
        return result
    foreign = foreign_text(source, lambda text: _syntax(text, language, path).ok)
    if foreign is None:
        return result
    kind, lines, message = foreign
    texts = source_lines(source)
    problems = tuple(Problem(line, 1, line, len(texts[line - 1].rstrip("\r")) + 1, message,
                             texts[line - 1].rstrip("\r")[:_MAX_TEXT], kind=kind, source="tinycode")
                     for line in lines)
    return CheckResult(language, problems[:MAX_PROBLEMS], judge="tinycode")


def _syntax(source: str, language: str, path: str | None) -> CheckResult:
    record = spec(language)
    own = record.own_judge if record is not None else None
    judge: Problem | None = None
    try:
        found = own(source) if own is not None else None
        if own is not None and found is None:
            return CheckResult(language, judge=language)  # the language's own judge accepts it
        if found is not None:
            judge = Problem(found.line, found.column, found.end_line, found.end_column, found.message,
                            found.text[:_MAX_TEXT], "compiler", language)
    except NoVerdict:
        pass  # the judge gave up (pathological nesting): tree-sitter alone decides
    spoke = judge.source if judge is not None else TREE_SITTER
    spoken = _native_problems(source, language, path) if own is None else None
    native: list[Problem] = []
    note = ""
    beside = record is not None and record.judge_beside_parser
    if spoken is not None:
        spoke, native, note = spoken
        if not native and not beside:
            return CheckResult(language, judge=spoke, note=note)  # the language's own tool accepts it
    # Where the types are unknown, the judge already took the tree-sitter errors it
    # corroborates; the others are as likely an unknown macro's doing.
    problems = tree_sitter_problems(source, language) if not note else []
    if (spoken is None or beside) and problems and own is None:
        from . import judges

        problems, note = judges.parser_only(source, language, problems)
        if not problems:
            return CheckResult(language, judge=spoke if spoken is not None else "", note=note)
    if native and record is not None and record.grammar_loses_place and not record.deep_indent_reported_early:
        # The tool read every line above its first error as correct: what tree-sitter,
        # which loses its place after an error, objects to there is its own misreading
        # (unless its grammar reports a mistake lines before the tool does).
        read_to = judge_read_to(native) or 0
        problems = [p for p in problems if p.line >= read_to]
    if native:  # the tool's lines first: that is where the person will look
        # tree-sitter's own on other lines are kept, and a token it names as missing even
        # on the tool's line: that says exactly what to insert where. A tool that reports
        # every error leaves tree-sitter only those missing tokens on its own lines.
        if record is not None and record.judge_reports_every_error:
            beside = [p for p in problems if p.kind == "missing" and any(p.line == n.line for n in native)]
        else:
            beside = [p for p in problems if p.kind == "missing" or not any(_same_place(p, n) for n in native)]
        problems = native + beside
    if judge is not None:
        problems = [judge] + [p for p in problems if not _same_place(p, judge)]
    return CheckResult(language, tuple(problems[:MAX_PROBLEMS]), spoke, note)


def shadowed(source: str, result: CheckResult) -> tuple[Problem, ...]:
    """tree-sitter's problems of ``source`` that ``result`` (its check) left out, where
    the language's own tool reported: they show once the tool moves on."""
    if result.judge == TREE_SITTER or not result.problems:
        return ()
    return tuple(p for p in tree_sitter_problems(source, result.language) if p not in result.problems)


def _same_place(a: Problem, b: Problem) -> bool:
    return a.line == b.line or (a.line <= b.line <= a.end_line and a.kind == "error")


def _native_problems(source: str, language: str, path: str | None
                     ) -> tuple[str, list[Problem], str] | None:
    """(the tool, its problems, what it could not check) from the language's installed
    tool (gcc, node, bash -n, ...); None when it has none here or it could not decide."""
    from . import judges  # imported when first needed: most checks are Python

    with judges.located(path) if path is not None else contextlib.nullcontext():
        # (without a path, the caller's location if it set one: a repair of a file)
        spoken = judges.problems(source, language)
        said = judges.verdict(source, language) if spoken is not None else None  # remembered: no new run
    if spoken is None:
        return None
    judge, diagnostics = spoken
    note = said.note if said is not None else ""
    lines = source.split("\n")
    # An error at the end of the input (a block never closed) is put where the code
    # ends, not on the blank lines after it: that is where its repair goes, and where
    # tree-sitter reports the same error.
    code_end = next((n for n in range(len(lines), 0, -1) if lines[n - 1].strip()), 1)
    out = []
    for d in diagnostics[:MAX_PROBLEMS]:
        line = min(max(d.line, 1), len(lines) + 1)
        if line > code_end:
            line, d = code_end, replace(d, column=len(lines[code_end - 1]) + 1)
        # The text where the tool points (its first word): a quote there says a string
        # ended in the wrong place, which decides the edits tried first.
        at = lines[line - 1][d.column - 1:].split() if line <= len(lines) and d.column else []
        text = at[0][:_MAX_TEXT] if at else ""
        column = max(d.column, 1)
        out.append(Problem(line, column, line, column, d.message, text, "compiler", judge))
    return judge, out, note


# --- rendering ---------------------------------------------------------------

MARK = "█"


def render(result: CheckResult, source: str, *, context: int = 2, path: str | None = None,
           max_problems: int = 5, max_line_chars: int = 160) -> str:
    """The problems as text: a header per problem, then numbered lines around them,
    the problem lines marked with █. Only windows are shown, never a whole long file."""
    if result.ok:
        return f"{path or 'input'}: no problems found"
    lines = source_lines(source)
    shown = result.problems[:max_problems]
    header = []
    for p in shown:
        # For a person, the compiler's "path:line:column:"; for the model, the line alone:
        # a small model reads "line 2:28" as lines 2 to 28 (the █ marks the line).
        header.append(f"{path}:{p.line}:{p.column}: {p.message}" if path else f"line {p.line}: {p.message}")
    if len(result.problems) > len(shown):
        header.append(f"... and {len(result.problems) - len(shown)} more problems")
    marked = {line for p in shown for line in range(p.line, min(p.end_line, p.line + 2) + 1)}
    body = number_lines(lines, _windows(sorted(marked), context, len(lines)), marked, max_line_chars)
    return "\n".join(header) + "\n" + body


def source_lines(source: str) -> list[str]:
    """The lines of ``source`` as a person counts them (no phantom line after the last newline)."""
    lines = source.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def number_lines(lines: list[str], windows: list[tuple[int, int]], marked: set[int] = frozenset(),
                 max_line_chars: int = 160) -> str:
    """Numbered lines for the given 1-based inclusive windows, ``⋮`` between gaps."""
    if not windows:
        return ""
    width = len(str(windows[-1][1]))
    out: list[str] = []
    for index, (start, end) in enumerate(windows):
        if index and start > windows[index - 1][1] + 1:
            out.append("⋮")
        for n in range(start, end + 1):
            text = lines[n - 1] if n <= len(lines) else ""
            if len(text) > max_line_chars:
                text = text[:max_line_chars] + "…"
            mark = MARK if n in marked else " "
            out.append(f"{mark}{n:>{width}}| {text}".rstrip())
    return "\n".join(out)


def _windows(marked: list[int], context: int, total: int) -> list[tuple[int, int]]:
    windows: list[tuple[int, int]] = []
    for line in marked:
        start, end = max(1, line - context), min(max(total, 1), line + context)
        if windows and start <= windows[-1][1] + 1:
            windows[-1] = (windows[-1][0], max(windows[-1][1], end))
        else:
            windows.append((start, end))
    return windows
