"""code_check: every syntax problem in a source text, as data; and its rendering.

tree-sitter finds ERROR and MISSING nodes in any language. For Python, CPython's
own ``compile()`` is the judge (tree-sitter-python accepts Python 2 ``print x``),
and for JSON the ``json`` module is; for other languages the language's own tool,
where installed (``judges``: gcc, node, bash -n, ...). Their verdict comes first and
tree-sitter's problems on other lines are kept, so several errors show at once.
"""

from __future__ import annotations

import contextlib
import json
import warnings
from functools import lru_cache
from typing import NamedTuple
from dataclasses import asdict, dataclass, field, replace

from .foreign import foreign_text
from .languages import get_parser, normalize

# A file may have thousands of ERROR nodes; past this the rest is noise.
MAX_PROBLEMS = 50
_MAX_TEXT = 40  # characters of offending text kept per problem


@dataclass(frozen=True)
class Problem:
    """One syntax problem. Lines and columns are 1-based and count characters."""

    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    text: str = ""
    kind: str = "error"  # "error" (unexpected text), "missing" (token absent), "compiler"
    source: str = "tree-sitter"  # who found it: "tree-sitter", "python", "json", or a tool ("gcc -fsyntax-only")

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class CheckResult:
    language: str
    problems: tuple[Problem, ...] = field(default_factory=tuple)
    judge: str = "tree-sitter"  # whose verdict this is: "python", "json", a tool ("gcc -fsyntax-only")
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
    """All syntax problems of ``source`` in ``language`` (a name from languages.py).
    ``path``: the file it is (a C or C++ compiler then reads its project's headers). A
    failing file's merge-conflict markers, or the prose of a chat answer around its code,
    are reported as such (kinds "conflict" and "chat"), not as syntax to repair."""
    language = normalize(language)
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
    judge: Problem | None = None
    try:
        if language == "python":
            judge = _python_problem(source)
        elif language == "json":
            judge = _json_problem(source)
        if language in ("python", "json") and judge is None:
            return CheckResult(language, judge=language)  # the language's own judge accepts it
    except NoVerdict:
        pass  # the judge gave up (pathological nesting): tree-sitter alone decides
    spoke = judge.source if judge is not None else "tree-sitter"
    spoken = _native_problems(source, language, path) if language not in ("python", "json") else None
    native: list[Problem] = []
    note = ""
    if spoken is not None:
        spoke, native, note = spoken
        if not native:
            return CheckResult(language, judge=spoke, note=note)  # the language's own tool accepts it
    # Where the types are unknown, the judge already took the tree-sitter errors it
    # corroborates; the others are as likely an unknown macro's doing.
    problems = tree_sitter_problems(source, language) if not note else []
    if spoken is None and problems and language not in ("python", "json"):
        from . import judges

        problems, note = judges.parser_only(source, language, problems)
        if not problems:
            return CheckResult(language, note=note)
    if native:  # the tool's lines first: that is where the person will look
        # tree-sitter's own on other lines are kept, and a token it names as missing
        # even on the tool's line: that says exactly what to insert where.
        problems = native + [p for p in problems
                             if p.kind == "missing" or not any(_same_place(p, n) for n in native)]
    if judge is not None:
        problems = [judge] + [p for p in problems if not _same_place(p, judge)]
    return CheckResult(language, tuple(problems[:MAX_PROBLEMS]), spoke, note)


def shadowed(source: str, result: CheckResult) -> tuple[Problem, ...]:
    """tree-sitter's problems of ``source`` that ``result`` (its check) left out, where
    the language's own tool reported: they show once the tool moves on."""
    if result.judge == "tree-sitter" or not result.problems:
        return ()
    return tuple(p for p in tree_sitter_problems(source, result.language) if p not in result.problems)


def _same_place(a: Problem, b: Problem) -> bool:
    return a.line == b.line or (a.line <= b.line <= a.end_line and a.kind == "error")


# --- tree-sitter ------------------------------------------------------------

def tree_sitter_problems(source: str, language: str) -> list[Problem]:
    data = source.encode("utf-8", "surrogatepass")
    return tree_problems(get_parser(language).parse(data), data)


def tree_problems(tree, data: bytes) -> list[Problem]:
    """The ERROR and MISSING nodes of a parsed ``tree`` of ``data``, in document order."""
    root = tree.root_node
    if not root.has_error:
        return []
    lines = data.split(b"\n")
    problems: list[Problem] = []
    stack = [root]
    # Depth-first in document order, descending only where has_error says to look.
    while stack and len(problems) < MAX_PROBLEMS:
        node = stack.pop()
        if node.is_missing:
            problems.append(_missing_problem(node, lines))
        elif node.is_error:
            problems.append(_error_problem(node, data, lines))
        elif node.has_error:
            stack.extend(reversed(node.children))
    problems.sort(key=lambda p: (p.line, p.column))
    return problems


def _char_column(lines: list[bytes], row: int, byte_col: int) -> int:
    """1-based character column for a 0-based (row, byte column) position."""
    if row >= len(lines):
        return byte_col + 1
    return len(lines[row][:byte_col].decode("utf-8", "replace")) + 1


def _missing_problem(node, lines: list[bytes]) -> Problem:
    row, col = node.start_point
    what = node.type
    column = _char_column(lines, row, col)
    return Problem(row + 1, column, row + 1, column, f"missing {what!r}", "", "missing")


def _error_problem(node, data: bytes, lines: list[bytes]) -> Problem:
    node = _where_it_went_wrong(node, data)
    (row, col), (end_row, end_col) = node.start_point, node.end_point
    raw = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
    first_line = raw.strip().split("\n", 1)[0].strip()
    text = first_line[:_MAX_TEXT] + ("…" if len(first_line) > _MAX_TEXT else "")
    message = f"unexpected {text!r}" if text else "syntax error"
    return Problem(row + 1, _char_column(lines, row, col), end_row + 1,
                   _char_column(lines, end_row, end_col), message, text, "error")


def _where_it_went_wrong(error, data: bytes):
    """The part of a many-line ERROR node where parsing actually failed.

    tree-sitter's recovery often wraps everything from the last construct it could not
    close (an HTML element, a C++ function) up to the end in one ERROR node, so its start
    can be many lines before the mistake. Inside it, a nested ERROR or MISSING node, or
    else the first loose token after the complete constructs it still recognised, is
    where the text stopped making sense.
    """
    if error.start_point.row == error.end_point.row or not error.child_count:
        return error
    starts_loose = error.children[0].child_count == 0
    stack = list(reversed(error.children))
    while stack:  # the first nested ERROR/MISSING in document order
        node = stack.pop()
        if node.is_error or node.is_missing:
            if starts_loose and _first_on_its_line(node, data):
                # `for x := range xs` + newline + `body`: the body's first token is where
                # the parser gave up, but the statement the ERROR starts with is at fault.
                return error
            return node
        if node.has_error:
            stack.extend(reversed(node.children))
    if starts_loose:
        return error
    seen_complete = False
    for child in error.children:
        if child.child_count == 0 and seen_complete:
            return child
        seen_complete = seen_complete or (child.is_named and child.child_count > 0)
    return error


def _first_on_its_line(node, data: bytes) -> bool:
    line_start = data.rfind(b"\n", 0, node.start_byte) + 1
    return not data[line_start:node.start_byte].strip()


# --- language judges ----------------------------------------------------------

class CompileError(NamedTuple):
    """CPython's first syntax error: where, and its message ("SyntaxError: ...")."""

    line: int
    column: int
    end_line: int
    end_column: int
    message: str


@lru_cache(maxsize=16)
def compile_error(source: str) -> CompileError | None:
    """CPython's verdict on ``source``: None when ``compile()`` accepts it. Remembered for
    a few texts: a repair is verified once by the candidate search and again at the end,
    and compiling a long file is the largest cost of a repair that needs no model."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings are not our verdict
            compile(source, "<tinycode>", "exec", dont_inherit=True)
    except SyntaxError as exc:  # includes IndentationError and TabError
        line = exc.lineno or 1
        column = max(exc.offset or 1, 1)
        end_line = exc.end_lineno or line
        end_column = exc.end_offset if exc.end_offset and exc.end_offset > 0 else column
        return CompileError(line, column, end_line, end_column, f"{type(exc).__name__}: {exc.msg}")
    except ValueError as exc:  # NUL bytes in the source
        return CompileError(1, 1, 1, 1, f"{type(exc).__name__}: {exc}")
    except (MemoryError, RecursionError, OverflowError):
        raise NoVerdict from None
    return None


def _python_problem(source: str) -> Problem | None:
    """CPython's verdict as a problem: None when ``compile()`` accepts the source."""
    error = compile_error(source)
    if error is None:
        return None
    line, column, end_line, end_column, message = error
    line_text = _source_line(source, line)
    if end_line != line or message.startswith("ValueError"):
        text = ""
    elif end_column > column:
        text = line_text[column - 1:end_column - 1]
    else:  # a point, not a span: show the character there
        text = line_text[column - 1:column]
    return Problem(line, column, end_line, max(end_column, column), message,
                   text[:_MAX_TEXT], "compiler", "python")


def _json_problem(source: str) -> Problem | None:
    if not source.strip():
        return None  # an empty file has nothing wrong with it
    try:
        json.loads(source)
    except json.JSONDecodeError as exc:
        return Problem(exc.lineno, exc.colno, exc.lineno, exc.colno,
                       f"JSONDecodeError: {exc.msg}", "", "compiler", "json")
    except RecursionError:
        raise NoVerdict from None
    return None


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


class NoVerdict(Exception):
    """A language's own judge could not decide (it overflowed), so tree-sitter decides."""


def _source_line(source: str, line: int) -> str:
    lines = source.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


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
