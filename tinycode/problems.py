"""A syntax problem, and those tree-sitter's parse of a text shows: its ERROR and
MISSING nodes, placed where a person would look. Below the judges and the checker,
which both report them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
import re
from typing import Iterator, Sequence

from .languages import get_parser, spec

TREE_SITTER = "tree-sitter"  # a problem's source, and a check's judge, where tree-sitter alone found it

# A file may have thousands of ERROR nodes; past this the rest is noise.
MAX_PROBLEMS = 50
_MAX_TEXT = 40  # characters of offending text kept per problem


def leaves_within(root, start: int, end: int) -> Iterator:
    """The tokens (leaves) of the tree under ``root`` that overlap bytes ``start`` to
    ``end``, in order; iterative, as a deep tree (a long chain of ``+``) is no limit."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.end_byte <= start or node.start_byte >= end:
            continue
        if node.child_count == 0:
            yield node
        else:
            stack.extend(reversed(node.children))


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
    source: str = TREE_SITTER  # who found it: "tree-sitter", "python", "json", or a tool ("gcc -fsyntax-only")

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


# A compiler that ran off the end of the file ("Syntax error: Unterminated quoted string",
# "end of file unexpected (expecting "done")", "expected ';', found 'EOF'", Ruby's
# "unexpected end-of-input, expecting `end'") cannot say where the string or block began.
AT_THE_END = re.compile(r"end of (?:file|input)|unexpected (?:EOF|end-of-input)|\bEOF in |unterminated quoted string|"
                        r"found 'EOF'", re.IGNORECASE)


def judge_read_to(problems: Sequence[Problem]) -> int | None:
    """The line of the language's own judge's first error, where it read every line
    before as correct: None when that error was met at the end of the file (a block
    never closed says nothing of the lines before it); 0 when it reports none. Errors
    at the end after an earlier one are that one's cascade (``standing``)."""
    judged = [p for p in problems if p.source != TREE_SITTER]
    if not judged:
        return 0
    first = min(judged, key=lambda p: (p.line, p.column))
    return None if AT_THE_END.search(first.message) else first.line


def standing(problems: Sequence[Problem]) -> int:
    """How many of ``problems`` stand on their own: the language's own judge's errors
    met at the end of the file after an earlier error of its own are counted with that
    one. A parser thrown by a mistake reads on for the closer it has swallowed (gofmt's
    "expected ')', found 'EOF'" after a missing ``;``), so two edits that leave it the
    same first error are not told apart by how much it then found at the end."""
    judged = sorted((p for p in problems if p.source != TREE_SITTER), key=lambda p: (p.line, p.column))
    echoes = sum(1 for p in judged[1:] if AT_THE_END.search(p.message))
    return len(problems) - echoes


def tree_sitter_problems(source: str, language: str) -> list[Problem]:
    data = source.encode("utf-8", "surrogatepass")
    tree = get_parser(language).parse(data)
    found = tree_problems(tree, data)
    record = spec(language)
    if record is None or not record.not_at_top_level:
        return found
    lines = data.split(b"\n")
    found += [_misplaced_problem(node, lines) for node in tree.root_node.children
              if node.type in record.not_at_top_level]
    found.sort(key=lambda p: (p.line, p.column))
    return found[:MAX_PROBLEMS]


def _misplaced_problem(node, lines: list[bytes]) -> Problem:
    """A statement the language allows only inside a block, at a file's top level."""
    row, col = node.start_point
    word = node.text.split(None, 1)[0].decode("utf-8", "replace") if node.text.strip() else node.type
    return Problem(row + 1, char_column(lines, row, col), row + 1, char_column(lines, row, col + len(word)),
                   f"'{word}' outside any function", word, "error", TREE_SITTER)


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


def char_column(lines: list[bytes], row: int, byte_col: int) -> int:
    """1-based character column for a 0-based (row, byte column) position."""
    if row >= len(lines):
        return byte_col + 1
    return len(lines[row][:byte_col].decode("utf-8", "replace")) + 1


def _missing_problem(node, lines: list[bytes]) -> Problem:
    row, col = node.start_point
    what = node.type
    column = char_column(lines, row, col)
    return Problem(row + 1, column, row + 1, column, f"missing {what!r}", "", "missing")


def _error_problem(node, data: bytes, lines: list[bytes]) -> Problem:
    node = _where_it_went_wrong(node, data)
    (row, col), (end_row, end_col) = node.start_point, node.end_point
    raw = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
    first_line = raw.strip().split("\n", 1)[0].strip()
    text = first_line[:_MAX_TEXT] + ("…" if len(first_line) > _MAX_TEXT else "")
    message = f"unexpected {text!r}" if text else "syntax error"
    return Problem(row + 1, char_column(lines, row, col), end_row + 1,
                   char_column(lines, end_row, end_col), message, text, "error")


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
    for child in error.children:
        # A loose token over several lines (not a comment, which may be anywhere): a
        # string that ran on past its line (closed with the other quote), which the
        # recovery could fit nowhere.
        if not child.child_count and not child.is_extra and child.end_point.row > child.start_point.row:
            return child
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
