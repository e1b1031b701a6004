"""Python: CPython's own ``compile()`` is the judge (tree-sitter-python still accepts
Python 2 ``print x``), and its messages are the best hints there are."""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import NamedTuple

from .base import LanguageSpec, NoVerdict, OwnVerdict, wheel


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


def judge(source: str) -> OwnVerdict | None:
    """CPython's verdict with the text it points at: None when ``compile()`` accepts it."""
    error = compile_error(source)
    if error is None:
        return None
    line, column, end_line, end_column, message = error
    lines = source.split("\n")
    line_text = lines[line - 1] if 0 < line <= len(lines) else ""
    if end_line != line or message.startswith("ValueError"):
        text = ""
    elif end_column > column:
        text = line_text[column - 1:end_column - 1]
    else:  # a point, not a span: show the character there
        text = line_text[column - 1:column]
    return OwnVerdict(line, column, end_line, max(end_column, column), message, text)


LANGUAGE = LanguageSpec(
    "python", wheel("tree_sitter_python"), (".py", ".pyi", ".pyw"),
    aliases=("py", "python3"), interpreters=("python", "pypy"),
    words=("python", "python3", "py", "cpython"),
    own_judge=judge, own_judge_label="CPython compile()",
    one_error_at_a_time=True, judge_names_where_errors_begin=True, python_tokens=True,
     indentation_is_syntax=True, edit_family="python",
)
