"""The one answer to "is this edit accepted?": did it clear the problems of its
region, and add none elsewhere. Every part of the engine asks the ``Verifier``:

- the candidate search (``candidates``): each edit before its check (``opens_strings``,
  ``unbalances``), after its re-parse (``swallowed``, ``token_over_code``,
  ``tree_sitter_screen``, ``progress``) or compile (``first_error_progress``), and after
  the language's own judge (``unconfirmed``, ``string_to_the_end``, ``clears_its_place``;
  where it says more than before, ``surfaced_apart``, or the same with blocks still open,
  ``closes_a_block`` and ``open_blocks``);
  pairs of edits at two places (``place_cleared``, ``pair_accepted``);
- every step of the repair loop (``loop``): ``region_cleared``, ``alone`` and
  ``accepted_alone``, ``region_full``, ``progress`` for the model's rewrite, ``refused``
  for the size and locality limits, ``output_refused`` before anything is written;
- the agent's edits (``agent_refused``, ``agent_edit``) and the language server's quick
  fix (``quick_fix``).

The search and the loop compute the evidence (re-parses, compiles, judge runs) within
their budgets; what the evidence means is decided here. ``guard`` holds the size and
locality limits the ``Verifier`` applies.

tree-sitter sees every problem at once: progress is fewer of them and none new. Its
error recovery may describe an error it saw before differently once another is repaired
(``unexpected '}}'`` becomes ``unexpected '}'``): outside the edited lines a problem is
new only where a line has more problems than before. Most
compilers and interpreters (CPython, node, bash -n, php -l) report the first error
only, so when that one is repaired the next one surfaces with a message never seen
before: that counts as progress when it lies past the edit and past where the old
first error was, and the judge does not report more errors than before.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple, Protocol, Sequence

from ..check import CheckResult, Problem, check, shadowed
from ..problems import AT_THE_END, TREE_SITTER, judge_read_to
from .. import judges
from ..config import Settings, setting
from ..languages import comment_prefix, get_parser, spec
from ..spelling import distance
from .edits import BRACKETS, OPENER_OF, Edit, changed_hunks, code_tokens, differing_span, kept_ends, original_line
from .grammar_space import keyword_typo, vocabulary
from .guard import QUOTES, edit_too_large, far_from_problems, hides_code, rewrites_instead_of_repairing
from .proposals import edit_family
from .layout import HEADER_SCAN, block_header, bracket_tokens, open_strings, opener_at_end, unmatched_brackets
from .messages import (BRACKETS_FIRST, COMMENT_TO_THE_END, MEANT_HEADER, READ_NO_FURTHER, STRING_TO_THE_END, UNCLOSED, UNOPENED_DIRECTIVE, UNTERMINATED_CONDITIONAL,
                       expected_tokens, named_line, names_a_bracket, reported_line)

if TYPE_CHECKING:
    import tree_sitter

# Lines either side of an edit that are its region: the locality guard's default reach.
REGION: int = setting("max_problem_distance").default
# Lines between where the judge and tree-sitter place the same next error ("Expecting
# ',' delimiter" on the last line, "missing '}'" on the one before).
NEXT_ERROR_REACH = 2
# Rounds of blanking for ``Verifier.alone``: a mistake that the others hid from the
# judge shows once they are blanked, and is blanked in its turn.
ALONE_ROUNDS = 3
# Blocks left open that ``open_blocks`` counts by closing words appended, at most.
MAX_OPEN_BLOCKS = 3
# The shortest keyword whose typo in a name the compiler cannot resolve (with the types
# unknown) is taken for that keyword's: shorter ones are everyday names a typo away
# (``init``, ``cast``, ``auth``).
MIN_KEYWORD_TYPO = 6
# Candidate edits one place may take in all (the candidate search's own depth): six
# stray characters deleted one by one are not a repair.
MAX_EDITS_PER_REGION = 4
# An error of tree-sitter's spanning more lines than this locates nothing: its recovery
# gave up on the whole stretch (a file it misreads, a construct it does not know).
WIDE = 50


def _moved_on(before: Sequence[Problem], after: Sequence[Problem], edit: Edit, edit_end: int) -> bool:
    """tree-sitter alone judges, and every error it saw is gone while what it sees now
    begins beyond the edit's region: the file reads as correct from the top to past the
    edit, so the edit repaired its error, and what recovery from it hid shows now, as
    a judge that stops at its first error shows its next one. Not an error it cannot
    place (too wide), nor a closer it finds missing (an opener the edit may have added),
    nor more errors than before; nor after an error it could not place, since then its
    recovery may read the file anew after any edit at all."""
    old = {(edit.moved(p.line), p.message) for p in before}
    return bool(after) and len(after) <= len(before) and not any(map(too_wide, before)) \
        and not any((p.line, p.message) in old or too_wide(p) or p.message.startswith("missing")
                    or UNCLOSED.search(p.message) for p in after) \
        and min(p.line for p in after) > edit_end + REGION


def _revealed(before: Sequence[Problem], new: set[tuple[int, str]], edit_line: int, edit_end: int,
              delta: int) -> set[tuple[int, str]]:
    """The problems of ``new`` inside the stretch of an error over several lines that
    began at the edit (a string closed with the wrong quote runs on to the next one):
    repaired where it began, what it covered shows, hidden by it, not added."""
    stretches = [(p.line, p.end_line + delta) for p in before
                 if p.source == TREE_SITTER and p.line < p.end_line and not too_wide(p)
                 and near(p.line, edit_line, edit_end, 0)]
    return {(line, message) for line, message in new
            if any(first <= line <= last and line > edit_end for first, last in stretches)}


def _cascade(new: set[tuple[int, str]], old: set[tuple[int, str]], edit_line: int,
             edit_end: int) -> set[tuple[int, str]]:
    """The problems of ``new`` not seen before that follow, within the region, an old
    problem that is still there (or another such): tree-sitter's recovery from an error
    it still sees describes the lines after it anew once the parse reaching it changed
    (a mistake repaired far above). Not those near the edit, which are its own."""
    anchors = [line for line, message in new & old]
    found: set[tuple[int, str]] = set()
    for line, message in sorted(new - old):
        if not near(line, edit_line, edit_end) and any(0 < line - a <= REGION for a in anchors):
            found.add((line, message))
            anchors.append(line)
    return found


def _closed_too_early(old_judge: Sequence[Problem], surfaced: Sequence[Problem]) -> bool:
    """A conditional the compiler reported unterminated, and a directive it now finds
    without its ``#if``: the edit put in an ``#endif`` (or took out an ``#if``) where the
    conditional still goes on, and moved the imbalance rather than repaired it. The
    preprocessor reports every unpaired directive, not only the first, so the new one is
    no next error that was hidden."""
    return any(UNTERMINATED_CONDITIONAL.search(p.message) for p in old_judge) \
        and any(UNOPENED_DIRECTIVE.search(p.message) for p in surfaced)


def _errors(problems: Sequence[Problem]) -> int:
    """The mistakes a judge's ``problems`` tell of: what it says of one line is one
    (rustfmt's "missing parameters for function definition" and "expected one of `->`...,
    found `?`"); one message on a line and one on the next, and none on the lines around
    them, are one (a line split in two: gofmt's "expected 1 expression" on the first,
    "expected statement, found ':='" on the next); so is what it says on running out of
    file, however many lines it takes (bash's "unexpected EOF while looking for matching"
    and "unexpected end of file")."""
    ends = sum(bool(AT_THE_END.search(p.message)) for p in problems)
    per_line = Counter(p.line for p in problems if not AT_THE_END.search(p.message))
    pairs = sum(1 for line, count in per_line.items()
                if count == 1 and per_line.get(line + 1) == 1 and line - 1 not in per_line and line + 2 not in per_line)
    return len(per_line) - pairs + min(ends, 1)


def too_wide(problem: Problem) -> bool:
    """A tree-sitter error spanning more than WIDE lines: it says where nothing went wrong."""
    return problem.source == TREE_SITTER and problem.end_line - problem.line > WIDE


def near(line: int, first: int, last: int, reach: int = REGION) -> bool:
    """``line`` lies in the region of an edit of lines ``first..last``."""
    return first - reach <= line <= last + reach


def _added(new: set[tuple[int, str]], old: set[tuple[int, str]], edit_line: int, edit_end: int) -> bool:
    """Some problem in ``new`` is not one of ``old``: on the edited lines any problem not
    seen before, elsewhere one more on its line than before."""
    old_per_line = Counter(line for line, _ in old)
    new_per_line = Counter(line for line, _ in new)
    return any(edit_line <= line <= edit_end or new_per_line[line] > old_per_line[line]
               for line, message in new - old)


def _enclosing_rows(root, lines: list[str], problem: Problem, protected: tuple[int, int]) -> tuple[int, int] | None:
    """The lines (1-based, inclusive) of the largest construct around ``problem`` that
    lies wholly outside ``protected`` and owns its lines (no other code shares its
    first or last line); failing that the problem's own lines, when outside; or None."""
    row = problem.line - 1
    if not 0 <= row < len(lines):
        return None
    column = len(lines[row]) - len(lines[row].lstrip())
    node = root.descendant_for_point_range((row, column), (row, column))
    chain = []
    while node is not None and node.parent is not None:
        chain.append(node)
        node = node.parent
    for node in reversed(chain):
        first, last = node.start_point[0] + 1, node.end_point[0] + 1
        if node.end_point[1] == 0 and last > first:
            last -= 1
        if last < protected[0] or first > protected[1]:
            before = lines[first - 1].encode("utf-8")[:node.start_point[1]]
            after = lines[last - 1].encode("utf-8")[node.end_point[1]:] if node.end_point[0] == last - 1 else b""
            if not before.strip() and not after.strip():
                return first, last
    if problem.end_line < protected[0] or problem.line > protected[1]:
        return problem.line, problem.end_line  # no construct owns them: the problem's own lines
    return None


def _read_on_along_its_line(old: Problem, new: Problem, edit: Edit, lines: Sequence[str]) -> bool:
    """``edit`` changed only the line of the judge's error ``old``, and the judge's error
    after it, ``new``, lies further along that line, past what the edit wrote: the judge
    read on past where it stopped, to the same mistake made again (``b !==c&&a!==c``).
    Not an error met at the input's end: that lies wherever the text ends."""
    if not (edit.span == len(edit.new_lines) == 1 and edit.line == old.line == new.line <= len(lines)) \
            or old.source != new.source or not old.column or not new.column or AT_THE_END.search(old.message):
        return False
    before, after = lines[edit.line - 1], edit.new_lines[0]
    start, end = kept_ends(before, after)
    written_to = len(after) - end  # (0-based) the column after what the edit wrote
    shift = len(after) - len(before)
    return new.column - 1 > written_to and new.column - 1 - shift > old.column - 1 and start <= old.column


def _new_span(edit: Edit) -> tuple[int, int, int]:
    """(first, last) lines of what ``edit`` wrote, in the edited text (the line after a
    deletion), and how far it moved the lines below."""
    return edit.line, edit.line + max(len(edit.new_lines), 1) - 1, edit.shift


BRACKET_MARKS = ("(", ")", "[", "]", "{", "}")


def _about_a_bracket(problem: Problem) -> bool:
    """``problem``, at a bracket, is that bracket's: tree-sitter's, or a judge's that
    names one (``expected ')' before 'b_l'``, ``missing ) after argument list``). A
    judge's message about something else that only points at a bracket (g++'s
    ``expected ';' at end of member declaration`` at the ``)`` before a mistyped
    word) is not."""
    return problem.text.strip() in BRACKET_MARKS and (problem.source == TREE_SITTER or names_a_bracket(problem.message))


# The search's two verdicts on an edit before the whole file is checked: it repairs the
# file (worth the whole-file check first), or it makes progress (worth extending).
FIXED, PROGRESS = "fixed", "progress"
BRACKET_REACH = 40  # lines either side of an edit where its brackets may find their partners
# An edit after which tree-sitter reads less than this share of the file's nodes made
# much of it one token (a here-document ``set<< -eu``, a string left open, a ``</script>``
# made ``<script>``): a repair changes a few nodes. Unless that token ends before the
# file does and what it took in was mostly what tree-sitter could not read before (a
# comment's ``/*`` put back over a licence whose words were read as code). Files of
# fewer nodes are left to the judge.
SWALLOWED = 0.5
SWALLOW_FROM = 100
# A node over more rows than this many times its descendants is one token (a string,
# a comment, a regular expression), not code.
TOKEN_ROWS = 2
# Code rows a token an edit began may take in: past this many nodes, most of them read
# before, it is code the edit swallowed.
SWALLOWED_NODES = 10

# Errors CPython's tokenizer reports, before any error of its parser in the file.
_TOKENIZER_ERROR = re.compile(r"unterminated (?:triple-quoted )?string|unmatched '|does not match opening"
                              r"|was never closed|unindent does not match|invalid (?:non-printable )?character"
                              r"|invalid \w+ literal|unexpected character after line continuation")

# A string CPython's tokenizer reads on from where it opens to the file's end.
_RUNS_ON = re.compile(r"unterminated triple-quoted string")


def runs_on(message: str) -> bool:
    """CPython's ``message`` is of a string it read on from where it opens to the file's end."""
    return _RUNS_ON.search(message) is not None


# Tokenizer errors at a token the tokenizer cannot read: the parse stops there, before
# any error of the parser's on the same line.
_BAD_TOKEN = re.compile(r"invalid (?:non-printable )?character|invalid \w+ literal")


class FirstError(NamedTuple):
    """The first error of a judge that reports one at a time (CPython), before an edit:
    where it was reported, where it begins (an earlier line its message names, or the
    same place), and its message."""

    reported: tuple[int, int]
    begins: tuple[int, int]
    message: str


class FirstErrorCompiler(Protocol):
    """What the ``Verifier`` asks of the search's compiles where the judge reports one
    error at a time: the file's lines, and its first error in what lies above a line."""

    lines: list[str]

    def there_before(self, line: int, message: str, edit_line: int) -> bool:
        """The original's lines above ``edit_line`` alone report this error on ``line``."""

    def error_above(self, lines: list[str], upto: int) -> tuple[int, int, str] | None:
        """The judge's first error in the lines of ``lines`` above ``upto``."""


def only_indentation(lines: list[str], edit: Edit) -> bool:
    """``edit`` of ``lines`` changes the indentation of its lines and nothing else."""
    old = lines[edit.line - 1:edit.line - 1 + edit.span]
    return len(old) == len(edit.new_lines) and all(a.strip() == b.strip() for a, b in zip(old, edit.new_lines))


def moved(at: tuple[int, int], edit: Edit, lines: list[str]) -> tuple[int, int]:
    """Where the position ``at`` of ``lines`` lies once ``edit`` is applied."""
    line, column = at
    if line == edit.line and edit.span == len(edit.new_lines) == 1 and edit.column < column:
        column += len(edit.new_lines[0]) - len(lines[line - 1])
    elif line > edit.line:
        line += edit.shift
    return line, column


def unmatched(lines: Sequence[str], comment: str = "") -> int:
    """How many brackets of ``lines`` are unmatched, outside strings and, given the
    language's line ``comment`` marker, its line comments (``# see Pattern)`` is prose)."""
    return len(unmatched_brackets(list(lines), 1, len(lines), comment))


def nodes_starting(tree: tree_sitter.Tree, first_row: int, last_row: int, types: tuple[str, ...] = ()) -> int:
    """How many nodes of ``tree`` (of ``types``, given some) begin on rows
    ``first_row..last_row`` (0-based)."""
    count, stack = 0, [tree.root_node]
    while stack:
        node = stack.pop()
        if node.end_point.row < first_row or node.start_point.row > last_row:
            continue
        count += first_row <= node.start_point.row and (not types or node.type in types)
        stack.extend(node.children)
    return count


def _unread_starting(tree: tree_sitter.Tree, first_row: int, last_row: int) -> int:
    """How many nodes beginning on rows ``first_row..last_row`` tree-sitter could not
    read: errors, missing tokens and what errors hold, except what an error too wide to
    place holds (its recovery wrapped constructs it read well, a whole file of them)."""
    count, stack = 0, [(tree.root_node, False)]
    while stack:
        node, inside = stack.pop()
        if node.end_point.row < first_row or node.start_point.row > last_row:
            continue
        inside = inside or node.is_missing or (node.is_error and node.end_point.row - node.start_point.row <= WIDE)
        count += inside and first_row <= node.start_point.row
        stack.extend((child, inside) for child in node.children)
    return count


def _last_token(node: tree_sitter.Node) -> tree_sitter.Node:
    while node.child_count:
        node = node.children[-1]
    return node


def _unread(tree: tree_sitter.Tree) -> int:
    """The nodes tree-sitter could not read: errors, missing tokens and what errors hold."""
    count, stack = 0, [(tree.root_node, False)]
    while stack:
        node, inside = stack.pop()
        inside = inside or node.is_error or node.is_missing
        count += inside
        stack.extend((child, inside) for child in node.children)
    return count


def _newly_unclosed(before: Sequence[Problem], after: Sequence[Problem]) -> bool:
    """The language's own judge reports a construct never closed, met at the file's end
    (``UNCLOSED`` and ``AT_THE_END``: "unterminated string meets end of file") after an
    edit, and reported none before it. Where it opens, the judge does not say: an edit
    that typed or took away a quote likely opened it, one that did not let the judge
    read on to it."""
    def unclosed(problems: Sequence[Problem]) -> bool:
        return any(p.source != TREE_SITTER and UNCLOSED.search(p.message) and AT_THE_END.search(p.message)
                   for p in problems)
    return unclosed(after) and not unclosed(before)


def read_no_grammar(judged: Sequence[Problem]) -> bool:
    """The judge's ``judged`` problems say only that the brackets do not pair: it read
    none of the grammar (``BRACKETS_FIRST``)."""
    return bool(judged) and all(BRACKETS_FIRST.search(p.message) for p in judged)


def judge_stopped_at(problems: Sequence[Problem]) -> int | None:
    """Where the language's own judge stopped reading: the one line it reports errors
    on, or 0 where it read none of the grammar (``read_no_grammar``); None where it
    reports on several lines (it read on past its first error) or on none."""
    judged = [p for p in problems if p.source != TREE_SITTER]
    if read_no_grammar(judged):
        return 0
    lines = {p.line for p in judged}
    return lines.pop() if len(lines) == 1 else None


_NAME_IN_MESSAGE = re.compile(r"[A-Za-z_]\w*")
_NUMBER_IN_MESSAGE = re.compile(r"\b\d[\w.]*")


def _reads_as_accepted(changed: set[tuple[int, str]], before: set[tuple[int, str]], first: int, last: int,
                       accepted: frozenset[str]) -> bool:
    """tree-sitter's objections that an edit of lines ``first``-``last`` ``changed`` are
    all on those lines and all of the ``accepted`` shapes, where ``before`` some were not:
    the lines now read as those the judge accepts."""
    return bool(changed) and all(first <= line <= last and shape(message) in accepted for line, message in changed) \
        and not all(shape(message) in accepted for line, message in before if first <= line <= last)


def shape(message: str) -> str:
    """A parser's message with each number and name in it made one mark: tree-sitter's
    objections to ``MM_HARD = 0x001,`` and ``MM_PRINT = 0x100,`` are one objection."""
    return _NAME_IN_MESSAGE.sub("N", _NUMBER_IN_MESSAGE.sub("0", message))


class Verifier:
    """Whether an edit of a text in ``language`` is accepted: the one place that decides
    it, for every part of the engine. ``reach``: lines either side of an edit that are
    its region (the ``max-problem-distance`` setting)."""

    def __init__(self, language: str, reach: int = REGION) -> None:
        self.language, self.reach = language, reach
        record = spec(language)
        self.names_where_errors_begin = record is not None and record.judge_names_where_errors_begin
        self.indentation_is_syntax = record is not None and record.indentation_is_syntax
        self.grammar_loses_place = record is not None and record.grammar_loses_place

    def read_by_the_judge(self, problems: Sequence[Problem]) -> tuple[Problem, ...]:
        """``problems`` without tree-sitter's objections to lines the judge read as correct
        (before its first error, one not met only at the end of the file), where the
        grammar's recovery is known to lose its place after an error."""
        if not self.grammar_loses_place:
            return tuple(problems)
        first = judge_read_to(problems) or 0
        return tuple(p for p in problems if p.source != TREE_SITTER or p.line >= first)

    def progress(self, before: Sequence[Problem], after: Sequence[Problem], lines: list[str], edit: Edit,
                 shadowed: Sequence[Problem] = (), *, swallowed_below: bool = False,
                 set_aside: Sequence[Problem] = (), unread: tuple[int, int] | None = None) -> bool:
        """``after`` (the problems once ``edit`` was made to ``lines``) is progress over
        ``before`` (those of ``lines``). ``shadowed``: tree-sitter's problems of the text
        before that its check left out (where the judge reported): once the judge moves on
        they show, and are not new. ``swallowed_below``: the lines from the edit down to the
        first error left now read as far fewer tokens than before (the edit began a string
        or comment over them), so that error moving there is no sign of a repair.
        ``set_aside``: the compiler's messages on the text before that its check set aside,
        the file's types being unknown: where the edit lets it know them, they are the
        file's other mistakes, not the edit's. ``unread``: the (first, last) lines of a
        string the edit ended on its first line, which ran on to where the judge reported
        before: what the judge reports inside it now, it never read as code.

        What the edit itself typed and took away counts too, each asked only where it
        decides: a quote typed or taken away, after which the judge newly finds a string
        run on to the file's end, opened it (``_newly_unclosed``); an edit that only takes
        tokens away (``keeps_structure``) cannot have unbalanced the file's blocks, so where
        tree-sitter alone judges, an error too wide to place that is all it leaves was
        hidden by the one it repaired (a misspelt ``end`` far off); one that typed and took
        away no bracket or quote (``keeps_marks``) made the brackets pair where the judge
        read none of the grammar before; a block comment's closer it typed
        (``types_comment_closer``) ended a comment the judge read on to the file's end."""
        edit_line, edit_end, delta = edit.line, edit.last_written, edit.shift
        every_too_wide = all(map(too_wide, after))  # (those the judge's reading leaves out too)
        after = self.read_by_the_judge(after)
        if not after:
            return True
        if _newly_unclosed(before, after) and not self.keeps_marks(lines, edit, QUOTES):
            return False

        def shifted(problems: Sequence[Problem]) -> set[tuple[int, str]]:
            return {(edit.moved(p.line), p.message) for p in problems}

        old_tree = shifted([p for p in before if p.source == TREE_SITTER])
        seen = old_tree | shifted(shadowed)
        old_judge = [p for p in before if p.source != TREE_SITTER]
        new_tree = {(p.line, p.message) for p in after if p.source == TREE_SITTER}
        new_judge = [p for p in after if p.source != TREE_SITTER]
        judge_fewer = bool(old_judge) and len(new_judge) < len(old_judge)
        # The judge read none of the grammar before (``BRACKETS_FIRST``): what it and
        # tree-sitter see now away from the edit, it could not have said; where the edit
        # made the brackets pair without a bracket or quote of its own (a line split).
        read_nothing = read_no_grammar(old_judge) and not any(BRACKETS_FIRST.search(p.message) for p in new_judge) \
            and self.keeps_marks(lines, edit)
        new_tree -= _cascade(new_tree, seen, edit_line, edit_end)
        revealed = _revealed(before, new_tree - seen, edit_line, edit_end, delta)
        new_tree -= revealed
        if not old_judge and not new_judge and every_too_wide \
                and len(after) <= len(before) and all(near(p.line, edit_line, edit_end) and not too_wide(p) for p in before) \
                and self.keeps_structure(lines, edit):
            return True
        if not old_judge and not new_judge and not swallowed_below and _moved_on(before, after, edit, edit_end):
            return True
        if _added(new_tree, seen, edit_line, edit_end):
            # With a language's own judge speaking, tree-sitter's recovery may only now see
            # an error it hid before: one far from the edit is not new when the judge
            # reports fewer problems than before, or when it lies at or past the judge's
            # next error (the judge stops at its first error: what follows that one is
            # the next mistake and its cascade, which no edit here can be blamed for), or
            # when it spans a stretch too long to say where anything went wrong.
            hidden = {(line, message) for line, message in new_tree - seen if not near(line, edit_line, edit_end)}
            old_judged = shifted(old_judge)
            # A next error the judge met only at the end of the file (a block never closed)
            # may begin anywhere past the edit; one whose message names an earlier line
            # ("Unclosed '{' on line 175") begins there.
            next_lines = [edit_end + 1 if AT_THE_END.search(p.message) else max(edit_end + 1, named_line(p))
                          for p in new_judge if (p.line, p.message) not in old_judged and p.line > edit_end]
            wide = {(p.line, p.message) for p in after if too_wide(p)}
            # A judge reads a file from its start: when its first error now lies past the
            # edit, it read every line above the edit as correct, and a line tree-sitter
            # alone now objects to there is its recovery from an error further on (an ``if``
            # typed for a ``fi`` lines below makes it misread a comment far above). Not an
            # error over lines: that may be a construct the edit left unfinished. (Below
            # the edit the judge may meet a mistake only where it ends: a construct begun
            # badly there is reported at its ``fi`` or its ``)``.)
            read_past = bool(new_judge) and min(p.line for p in new_judge) > edit_end
            one_line = {(p.line, p.message) for p in after if p.end_line == p.line}
            allowed = hidden if judge_fewer or read_nothing else {(line, message) for line, message in hidden
                                             if (read_past and line < edit_line and (line, message) in one_line)
                                             or next_lines and (line >= min(next_lines) - NEXT_ERROR_REACH
                                                                or (line, message) in wide)}
            # A judge that ran to the file's end before the edit and after it, expecting
            # something else there now (a block's closer, no longer a backquote's): what
            # tree-sitter newly sees at that end is the judge's next error, near the edit or not.
            if old_judge and new_judge and all(AT_THE_END.search(p.message) for p in old_judge + new_judge):
                end = min(p.line for p in new_judge) - NEXT_ERROR_REACH
                allowed = allowed | {(line, message) for line, message in new_tree - seen if line >= end}
            if not allowed or _added(new_tree - allowed, seen, edit_line, edit_end):
                return False
        aside = shifted(set_aside) - shifted(old_judge)
        resurfaced = [p for p in new_judge if (p.line, p.message) in aside and not near(p.line, edit_line, edit_end)]
        # A judge that said nothing before (the text was beyond it: ``beyond_judge``) and
        # now reports on a line tree-sitter already objected to: the same problem, in its words.
        corroborated = [] if old_judge else [p for p in new_judge if any(line == p.line for line, _ in old_tree)]
        surfaced = [p for p in new_judge if (p.line, p.message) not in shifted(old_judge)
                    and p not in resurfaced and p not in corroborated]
        if _closed_too_early(old_judge, surfaced):
            return False
        if surfaced and any(MEANT_HEADER.match(p.message) and edit_line <= p.line <= max(edit_end, edit_line)
                            for p in old_judge) \
                and not any(near(p.line, edit_line, edit_end, 0) for p in new_judge):
            # The header the compiler said was meant, named now: it reads the file with
            # its types, and what it reports elsewhere it could not have said before.
            return True
        if surfaced and unread is not None and old_judge:
            first, last = unread[0], unread[1] + delta
            if all(abs(p.line + delta - last) <= 1 for p in old_judge) \
                    and all(first < p.line <= last + 1 for p in surfaced):
                return True
        if surfaced and old_judge and all(UNCLOSED.search(p.message) and not AT_THE_END.search(p.message)
                                          for p in old_judge) \
                and not any((p.line, p.message) in shifted(old_judge) for p in new_judge):
            # A construct left open (``unterminated #ifndef``), reported where it opens and
            # now closed: the judge had read nothing inside it, and what it reports there
            # now, unless another construct left open, is the file's other mistake.
            opened = min(reported_line(p) for p in old_judge)
            if all(opened < p.line and not UNCLOSED.search(p.message) for p in surfaced):
                return True
        if surfaced and old_judge and all(COMMENT_TO_THE_END.search(p.message) for p in old_judge) \
                and not any(COMMENT_TO_THE_END.search(p.message) for p in new_judge) \
                and not any(near(p.line, edit_line, edit_end) for p in surfaced) and self.types_comment_closer(lines, edit):
            # A block comment the judge read on to the file's end, closed by the closer the
            # edit typed: it had read nothing after the opener, and what it reports away
            # from the edit now is the file's other mistakes.
            return True
        if surfaced and old_judge and not any((p.line, p.message) in shifted(old_judge) for p in new_judge) \
                and all(not near(p.line, edit_line, edit_end) and p.line > edit_end
                        and any(p.message == old.message for old in old_judge) for p in surfaced):
            # The judge's error is gone from the edit's place, and what it reports now,
            # further on, it says in the same words: the same slip made again (a line
            # comment's '/' lost on three lines), which its recovery from the first had hidden.
            return True
        if surfaced and old_judge and all(p.message.endswith(judges.NEW_MARK) for p in new_judge) \
                and not any(p.message.endswith(judges.NEW_MARK) for p in old_judge) \
                and not any(near(p.line, edit_line, edit_end) for p in surfaced):
            # The judge's every message now is one that is not the grammar's, where before
            # it had only syntax errors: it reads the file through now, and what it says
            # away from the edit (a function's call in a constant's value, once the ``);``
            # typed onto a comment is code again) its syntax error had kept it from reading.
            return True
        if surfaced:
            # More errors from the judge is no progress, unless tree-sitter sees fewer: an
            # error that swallowed the rest of the file (a string left open) hid them all.
            gave_up = bool(old_judge) and all(READ_NO_FURTHER.match(p.message) for p in old_judge)
            if not old_judge or _errors(new_judge) > _errors(old_judge) and not len(new_tree) < len(old_tree) \
                    and not gave_up:
                return False
            if read_nothing:
                return not any(near(p.line, edit_line, edit_end) for p in surfaced)
            first_old = min(edit.moved(reported_line(p)) for p in old_judge)
            # Where the judge asked for a token the edit typed just above, what it says
            # there now (it expects another: a ``then`` lost too) is the next mistake.
            typed = self.typed_tokens(lines, edit)
            answered = {edit.moved(p.line) for p in old_judge
                        if expected_tokens(p.message) & typed and edit_line <= p.line <= edit_end + 1}
            return all(p.line > max(edit_end, first_old)
                       or p.line in answered and not expected_tokens(p.message) & typed for p in surfaced)
        if old_judge and new_judge and all(any(_read_on_along_its_line(old, new, edit, lines) for old in old_judge)
                                           for new in new_judge):
            # The judge's error now lies further along the edit's line, past what the edit
            # wrote, in the same words (``b !==c&&a!==c``): it read on to the same slip
            # made again, which its recovery from the first had hidden.
            return True
        # Fewer problems; or fewer from the judge, with tree-sitter's only new ones those
        # its recovery hid before (allowed above).
        return len(after) - len(revealed) - len(resurfaced) - len(corroborated) < len(before) or judge_fewer

    def alone(self, working: str, current: CheckResult, target: Problem) -> tuple[str, CheckResult, frozenset[int]] | None:
        """``working`` as if ``target`` were its only mistake, its check and the lines
        blanked: each other problem's enclosing construct (a definition, a statement, a
        pair of a mapping), the largest that keeps clear of the target's region, is
        blanked line for line, so line numbers stay and the language's own judge sees
        the target's error first. A judge that stops at its first error may have hidden
        others, which the blanked copy may show: those are blanked in turn, for a few
        rounds (``ALONE_ROUNDS``), while the target's error stays. None when there is
        nothing else to blank, or when the target's error is gone from the blanked copy
        (it was another's)."""
        protected = (target.line - self.reach, target.end_line + self.reach)
        lines = working.split("\n")
        found: tuple[str, CheckResult, frozenset[int]] | None = None
        text, result, blank = working, current, frozenset[int]()
        for _ in range(ALONE_ROUNDS):
            others = [p for p in result.problems
                      if not too_wide(p) and not near(p.line, target.line, target.end_line, self.reach)]
            if not others:
                break
            tree = get_parser(self.language).parse(text.encode("utf-8"))
            rows_now = text.split("\n")
            more = set(blank)
            for problem in others:
                rows = _enclosing_rows(tree.root_node, rows_now, problem, protected)
                if rows is None:
                    return found
                more.update(range(rows[0], rows[1] + 1))
            if more == blank:
                break
            blank = frozenset(more)
            text = "\n".join(("\r" if line.endswith("\r") else "") if n in blank else line
                             for n, line in enumerate(lines, 1))
            result = check(text, self.language)
            if not any(near(p.line, target.line, target.end_line, self.reach) for p in result.problems):
                return found
            found = text, result, blank
        return found

    def accepted_alone(self, masked: str, masked_check: CheckResult, masked_after: str, edit: Edit,
                       current: CheckResult, after_text: str, target: Problem) -> CheckResult | None:
        """An edit found in the copy of ``alone`` (``masked``, its check ``masked_check``,
        ``masked_after`` once edited) for ``target`` is accepted in the file (``current``
        its check, ``after_text`` once edited) when it clears its region in the copy,
        and in the file ``target`` is gone and no problem is added elsewhere: the
        file's check after it, or None. (A blanked copy is not the file: what blanking
        did to it, an ``#endif`` taken out, may be what the edit answers.)"""
        if not self.region_cleared(masked, masked_check, masked_after, edit):
            return None
        after = check(after_text, self.language)
        line = target.line + edit.shift if target.line > edit.line else target.line
        if any(p.line == line and p.message == target.message and p.source == target.source for p in after.problems):
            return None
        return None if self.added_elsewhere(current, after, edit) else after

    def added_elsewhere(self, before: CheckResult, after: CheckResult, edit: Edit) -> bool:
        """``after`` (the check once ``edit`` is made) has a problem outside the edit's
        region that ``before`` had nowhere near: the edit broke something elsewhere. What
        follows an old problem past the edit is that problem's cascade (a judge reading
        on after its error), not the edit's doing."""
        first, last, _ = _new_span(edit)
        old = [edit.moved(p.line) for p in before.problems]

        def seen(problem: Problem) -> bool:
            return any(abs(problem.line - line) <= NEXT_ERROR_REACH for line in old)

        cascade_from = min((p.line for p in after.problems if p.line > last + self.reach and seen(p)),
                           default=None)
        return any(not near(p.line, first, last, self.reach) and not too_wide(p) and not seen(p)
                   and (cascade_from is None or p.line < cascade_from)
                   for p in after.problems)

    def region_cleared(self, working: str, current: CheckResult, source_after: str, edit: Edit) -> bool:
        """No problem of ``source_after`` (``working`` once ``edit`` is made) lies within
        the region of the lines the edit changed, nor, when the language's own judge
        reported the first problem of ``current``, of where that was: an edit elsewhere
        that only quiets tree-sitter while the judge still sees its error is no repair of
        it. What tree-sitter saw before, under the judge's error, or an error of its own
        too wide to locate anything, is no sign against the edit (its recovery may span
        the region, or be wrong about this file)."""
        first, last, _ = _new_span(edit)
        reach = self.reach

        def shifted(problems: tuple[Problem, ...]) -> set[tuple[int, str]]:
            return {(edit.moved(p.line), p.message) for p in problems}

        target = current.problems[0]
        before = shifted(shadowed(working, current))
        checked = check(source_after, self.language)
        after = checked.problems
        # Another mistake tree-sitter saw before, off the target's lines and the edit's, and
        # described as before, is not this region's; a judge that stops at its first error
        # reporting one on that line now is reporting that mistake (a keyword misspelt two
        # lines below a lost bracket: both seen at once, one repaired).
        seen = shifted(tuple(p for p in current.problems
                             if p.source == TREE_SITTER and not target.line <= p.line <= target.end_line))
        others = {(p.line, p.message) for p in after + shadowed(source_after, checked)
                  if p.source == TREE_SITTER and (p.line > last or p.end_line < first) and not too_wide(p)} & seen
        other_lines = {line for line, _ in others}

        def counts(p: Problem) -> bool:
            if p.source == TREE_SITTER:
                return (p.line, p.message) not in before | others and not too_wide(p)
            return p.line not in other_lines

        problems = [p for p in after if counts(p)]
        if any(near(p.line, first, last, reach) or near(p.end_line, first, last, reach)
               or p.line < first <= p.end_line for p in problems):
            return False
        if _newly_unclosed(current.problems, after) and not self.keeps_marks(working.split("\n"), edit, QUOTES):
            return False  # (the quote it typed or took away opened what the judge now finds run on to the end)
        if target.source == TREE_SITTER:
            return True
        if COMMENT_TO_THE_END.search(target.message) and not any(COMMENT_TO_THE_END.search(p.message) for p in after):
            return True  # (said at the file's end of a comment opened anywhere, and gone)
        line = target.line + (edit.shift if target.line > edit.line else 0)
        return not any(near(p.line, line, line, reach) for p in problems)

    def clears_its_place(self, before: list[str], problems_before: tuple[Problem, ...], edits: tuple[Edit, ...],
                         lines: list[str], problems: tuple[Problem, ...]) -> bool:
        """``edits`` of the lines ``before`` (giving ``lines`` and ``problems``) repair a
        place of it and leave every problem outside their region, adding or taking no
        bracket and repairing none the parser objects to (which may pair with a mistake
        anywhere); with problems on fewer lines than before, or the judge reading on past
        them (``_reads_on``)."""
        spans = [(e.line, e.line + max(len(e.new_lines), 1) - 1) for e in edits]
        fewer = len({p.line for p in problems}) < len({p.line for p in problems_before})
        if not problems or not (fewer or self._reads_on(problems_before, problems, spans)):
            return False
        repaired = [p for p in problems_before if any(near(p.line, first, last) for first, last in spans)]
        if any(_about_a_bracket(p) or UNCLOSED.search(p.message) for p in repaired):
            return False
        start, end_before, end_after = differing_span(before, lines)
        old, new = "".join(before[start:end_before]), "".join(lines[start:end_after])
        if any(old.count(b) != new.count(b) for b in BRACKET_MARKS):
            return False
        return not any(near(p.line, first, last) for p in problems for first, last in spans)

    def _reads_on(self, problems_before: Sequence[Problem], problems: Sequence[Problem],
                  spans: list[tuple[int, int]]) -> bool:
        """The language's own judge, whose first error lay in the region of the edits
        (``spans``), now reads past that region to its next: a judge that shows one error
        at a time shows as many after a repair as before, the next mistake's."""
        was, now = judge_read_to(problems_before), judge_read_to(problems)
        return bool(was) and bool(now) and any(near(was, first, last, self.reach) for first, last in spans) \
            and all(now > last + self.reach for _, last in spans)

    def surfaced_apart(self, lines: list[str], before: Sequence[Problem], text: str, after: Sequence[Problem],
                       edit: Edit) -> bool:
        """After ``edit`` of ``lines`` (giving ``text``), the judge's error at the edit is
        gone, what it reports now lies away from the edit, and it reports the same with
        the edited lines left out: those are the file's other mistakes, which its error
        at the edit had kept it from reading (a comment's words on a line of their own,
        at the top of a file whose ``typedef`` lost its name far below), not the edit's
        doing. Only for an edit that changes no bracket, and with no construct reported
        open; the edited lines are left out but for their brackets, so that no block
        changes (``Interface X {`` is read as ``{``)."""
        old_judge = [p for p in before if p.source != TREE_SITTER]
        last = edit.last_written
        old_lines = lines[edit.line - 1:edit.line - 1 + edit.span]
        if not old_judge or not after or bracket_tokens(old_lines) != bracket_tokens(edit.new_lines) \
                or any(map(open_strings, edit.new_lines)):
            return False
        shift = edit.shift
        old = {(p.line + shift if p.line > edit.line else p.line, p.message) for p in old_judge}
        if any((p.line, p.message) in old or near(p.line, edit.line, last, self.reach)
               or AT_THE_END.search(p.message) or UNCLOSED.search(p.message) for p in after):
            return False
        rows = text.split("\n")
        rows[edit.line - 1:last] = ["".join(bracket_tokens([row])) for row in rows[edit.line - 1:last]]
        apart = {(p.line, p.message) for p in check("\n".join(rows), self.language).problems}
        return all((p.line, p.message) in apart for p in after)

    def closes_a_block(self, lines: list[str], before: Sequence[Problem], after: Sequence[Problem],
                       edit: Edit) -> bool:
        """``edit`` puts right a word that opens or closes a block (``End`` made ``end``,
        an ``end`` put back) where the judge meets the file's end with blocks still open,
        and says the same before it and after it: it cannot say how many blocks are open.
        ``open_blocks`` counts them."""
        closers = edit_family(self.language).closers
        if not closers:
            return False
        old_judge = {p.message for p in before if p.source != TREE_SITTER}
        new_judge = {p.message for p in after if p.source != TREE_SITTER}
        if old_judge != new_judge or not any(AT_THE_END.search(m) for m in old_judge):
            return False
        words = closers | {word for word in edit_family(self.language).openers if word.isalpha()}
        old = Counter(code_tokens("\n".join(lines[edit.line - 1:edit.line - 1 + edit.span]), self.language))
        new = Counter(code_tokens("\n".join(edit.new_lines), self.language))
        return any(token in words for token in new - old)

    def open_blocks(self, text: str) -> int:
        """How many of a closing word of the language the file lacks at its end: the
        fewest, all one word, appended after which the judge no longer meets the end
        with a block open (``MAX_OPEN_BLOCKS`` + 1 when more)."""
        closers = sorted(edit_family(self.language).closers)
        body = text.rstrip("\n")
        for count in range(1, MAX_OPEN_BLOCKS + 1):
            for closer in closers:
                ended = body + ("\n" + closer) * count + "\n"
                if not any(AT_THE_END.search(p.message) for p in check(ended, self.language).problems
                           if p.source != TREE_SITTER):
                    return count
        return MAX_OPEN_BLOCKS + 1

    def place_cleared(self, problems_after: tuple[Problem, ...], edit: Edit, problem: Problem) -> bool:
        """After ``edit``, tree-sitter sees no problem within the region of the edit and
        of ``problem`` (one half of a pair of edits: it may add problems elsewhere)."""
        last = edit.last_written
        where = (min(edit.line, problem.line), max(last, problem.line))
        return not any(near(p.line, *where, self.reach) for p in problems_after)

    def pair_accepted(self, source: str, before: CheckResult, text: str, after: CheckResult,
                      targets: Sequence[Problem]) -> bool:
        """Two edits at two places (``source`` -> ``text``) leave fewer problems, all of
        them old ones, in the original's line numbers, and neither of the ``targets``
        they were made for: where tree-sitter cannot see a judge's error, an edit there
        that only quiets tree-sitter elsewhere repairs nothing."""
        if not (after.ok or len(after.problems) < len(before.problems)):
            return False
        hunks = changed_hunks(source, text)
        old = {(p.line, p.message) for p in before.problems}
        left = {(original_line(p.line, hunks), p.message) for p in after.problems}
        return after.ok or (left <= old and not left & {(p.line, p.message) for p in targets})

    def agent_edit(self, before: CheckResult, after: CheckResult) -> bool:
        """An edit the agent typed adds no problem: no more of them than before, and none
        with a message not seen before unless there are fewer."""
        old = {p.message for p in before.problems}
        added = [p for p in after.problems if p.message not in old]
        return not (len(after.problems) > len(before.problems)
                    or (added and not after.ok and len(after.problems) >= len(before.problems)))

    def quick_fix(self, before: CheckResult, after: CheckResult, line: int, shift: int) -> bool:
        """The part of a repair near the problem on ``line`` (0-based), which moved later
        lines by ``shift``, removes it alone and adds no problem."""
        old = {(p.line + (shift if p.line - 1 > line else 0), p.message) for p in before.problems}
        added = [p for p in after.problems if (p.line, p.message) not in old]
        still_here = [p for p in after.problems if abs(p.line - 1 - line) <= self.reach]
        return not (added or still_here or len(after.problems) >= len(before.problems))

    # What the candidate search asks of an edit of ``lines``, before and around its checks.

    def opens_strings(self, lines: list[str], edit: Edit) -> bool:
        """The edit leaves more strings open on its lines than there were. Outside Python
        (whose search judges every edit by CPython) that is never a repair, even when the
        file then parses: one quote can re-pair every quote after it (``"if [ "$#" ...``)."""
        old = lines[edit.line - 1:edit.line - 1 + edit.span]
        if edit.string_ends_at > edit.end_line:
            # A quote put back at a string's start: it pairs the quote left open on the
            # line where the string ends, with every line between leaving none open.
            end = lines[edit.string_ends_at - 1] if edit.string_ends_at <= len(lines) else ""
            if open_strings(end) and not any(map(open_strings, lines[edit.end_line:edit.string_ends_at - 1])):
                return False
        return sum(map(open_strings, edit.new_lines)) > sum(map(open_strings, old))

    def unbalances(self, lines: list[str], edit: Edit) -> bool:
        """The edit leaves strings open on its lines, or more brackets unmatched in the
        lines around it, than there were: such an edit only moves the error along, it does
        not lead to a repair. (An opener whose closer lies further down is not unmatched:
        putting back a deleted ``{`` is a repair.)"""
        old = lines[edit.line - 1:edit.line - 1 + edit.span]
        if self.opens_strings(lines, edit):
            return True  # an unterminated string swallows the error, it does not fix it
        if edit.direct:
            # A block's structure put right where its layout says (a closer typed twice,
            # one lost): the brackets it pairs may lie far off, and another mistake of the
            # file may be what keeps them unbalanced. The judge alone decides.
            return False
        if bracket_tokens(old) == bracket_tokens(edit.new_lines):
            return False  # the same brackets in the same order: none more unmatched
        before = lines[max(0, edit.line - 1 - BRACKET_REACH):edit.line - 1]
        after = lines[edit.line - 1 + edit.span:edit.line - 1 + edit.span + BRACKET_REACH]
        marker = comment_prefix(self.language)
        if unmatched(before + list(edit.new_lines) + after, marker) <= unmatched(before + old + after, marker):
            return False
        return not _puts_back_block_opener(lines, edit)

    def types_comment_closer(self, lines: list[str], edit: Edit) -> bool:
        """The edit's new lines hold more of the language's block-comment closer than the
        lines it replaces."""
        record = spec(self.language)
        closer = record.block_comment[1] if record is not None else ""
        old = "".join(lines[edit.line - 1:edit.line - 1 + edit.span])
        return bool(closer) and "".join(edit.new_lines).count(closer) > old.count(closer)

    def keeps_marks(self, lines: list[str], edit: Edit, marks: str = "()[]{}" + QUOTES) -> bool:
        """The edit types and takes away none of ``marks``, no bracket and no quote: it
        cannot make brackets pair by putting some inside a string (a raw string's ``"#``
        made ``'#``); with ``marks`` the quotes, it cannot open a string."""
        old = "".join(lines[edit.line - 1:edit.line - 1 + edit.span])
        new = "".join(edit.new_lines)
        return all(old.count(mark) == new.count(mark) for mark in marks)

    def _tokens(self, lines: list[str], edit: Edit) -> tuple[list[str], list[str]]:
        """The code tokens of the lines the edit replaces, and of its new lines."""
        return (code_tokens("\n".join(lines[edit.line - 1:edit.line - 1 + edit.span]), self.language),
                code_tokens("\n".join(edit.new_lines), self.language))

    def typed_tokens(self, lines: list[str], edit: Edit) -> frozenset[str]:
        """The code tokens the edit's new lines hold more of than the lines it replaces."""
        old_tokens, new_tokens = self._tokens(lines, edit)
        return frozenset(Counter(new_tokens) - Counter(old_tokens))

    def keeps_structure(self, lines: list[str], edit: Edit) -> bool:
        """The edit only takes tokens away, and none of them a bracket, quote or keyword of
        the language: it can neither open nor close a block or a string, nor make the
        parser read the lines after it anew (a line split where a name was lost)."""
        old_tokens, new_tokens = self._tokens(lines, edit)
        remaining = iter(old_tokens)
        if not all(token in remaining for token in new_tokens):
            return False  # (not the old tokens in their order, some left out: a swap moves a bracket)
        keywords, symbols = vocabulary(self.language)
        # (a backquote quotes only where the grammar has a token with one: not in C#)
        quotes = "\"'" + ("`" if any("`" in symbol for symbol in symbols) else "")
        return not any(token in BRACKET_MARKS or token in keywords or any(q in token for q in quotes)
                       for token in Counter(old_tokens) - Counter(new_tokens))

    def string_to_the_end(self, lines: list[str], before: Sequence[Problem], after: Sequence[Problem],
                          edit: Edit) -> bool:
        """The quote the edit typed or deleted opened a string that runs on to the end of
        the file: the judge now reports one, and did not before."""
        old = lines[edit.line - 1:edit.line - 1 + edit.span]
        quotes_changed = sum(line.count(q) for line in edit.new_lines for q in "\"'`") != \
            sum(line.count(q) for line in old for q in "\"'`")
        return quotes_changed and any(STRING_TO_THE_END.search(p.message) for p in after if p not in before)

    def swallowed(self, before: tree_sitter.Tree, after: tree_sitter.Tree, shift: int, edit: Edit | None = None) -> bool:
        """Did ``edit``, which moved the file's end by ``shift`` bytes, make much of the
        file one string, comment, raw text or here-document (see ``SWALLOWED``)? Not a
        string's opening quote put back whose end it names (``opens_strings`` checks it)."""
        if edit is not None and edit.string_ends_at:
            return False
        count = before.root_node.descendant_count
        if count < SWALLOW_FROM or after.root_node.descendant_count >= SWALLOWED * count:
            return False
        last, now = _last_token(before.root_node), _last_token(after.root_node)
        if (last.type, last.end_byte + shift) != (now.type, now.end_byte):
            return True  # it runs on to the end of the file
        dropped = count - after.root_node.descendant_count
        return _unread(before) - _unread(after) < SWALLOWED * dropped

    def misreads(self, before: tree_sitter.Tree, after: tree_sitter.Tree, edit: Edit) -> bool:
        """The edit puts on its lines more of the nodes its grammar reads as a mistake
        without an ERROR (``LanguageSpec.misread_nodes``: an end tag no open element
        matches) than they held: it makes a mistake where it was to repair one."""
        record = spec(self.language)
        if record is None or not record.misread_nodes:
            return False
        first = edit.line - 1
        return nodes_starting(after, first, edit.last_written - 1, record.misread_nodes) \
            > nodes_starting(before, first, first + edit.span - 1, record.misread_nodes)

    def token_over_code(self, before: tree_sitter.Tree, after: tree_sitter.Tree, first_row: int, last_row: int,
                        shift: int) -> bool:
        """The edit of rows ``first_row..last_row`` (0-based, in the text after it, whose
        later rows moved by ``shift``) began a token that runs on over rows tree-sitter read
        as code before (a ``/`` typed before a comment, now a regular expression over thirty
        lines): where tree-sitter alone judges, the file may then parse with a mistake inside
        the token; where the language's own judge does, its error moves to the token's end.
        Rows it could not read before may be taken in (a ``/*`` put back). A node that began
        on those rows and ended on the same row before is no token the edit began (an
        element's ``<head>`` beside the tag the edit put right)."""
        was: set[tuple[str, int]] | None = None  # (type, last row) of the nodes that began there before

        def began_before(node: tree_sitter.Node) -> bool:
            nonlocal was
            if was is None:
                was = set()
                stack = [before.root_node]
                while stack:
                    old = stack.pop()
                    if old.end_point.row < first_row or old.start_point.row > last_row - shift:
                        continue
                    if old.start_point.row >= first_row:
                        was.add((old.type, old.end_point.row))
                    stack.extend(old.children)
            return (node.type, node.end_point.row - shift) in was
        end = -1
        stack = [after.root_node]
        while stack:
            node = stack.pop()
            if node.end_point.row < first_row or node.start_point.row > last_row:
                continue
            rows = node.end_point.row - last_row
            if node.start_point.row >= first_row and rows > 1 and not node.is_error \
                    and node.descendant_count * TOKEN_ROWS < rows and not began_before(node):
                end = max(end, node.end_point.row)
            else:
                stack.extend(node.children)
        if end < 0:
            return False
        covered = nodes_starting(before, last_row + 1 - shift, end - shift)
        unread = _unread_starting(before, last_row + 1 - shift, end - shift)
        return covered - unread >= SWALLOWED_NODES and unread * 2 < covered

    def first_error_progress(self, old: FirstError, error: tuple[int, int], message: str, edit: Edit,
                             compiler: FirstErrorCompiler) -> bool:
        """Where the judge reports one error at a time: its first error (``error``,
        ``message``) after ``edit`` is now past both the edit and where the ``old`` error
        began, and is not the old error itself (in the edited file's coordinates). CPython
        reports an error its tokenizer finds (a string left open, an unmatched bracket)
        before any error of its parser, wherever each lies, so two more cases are told
        apart by compiling what lies before: a parser error above the edit that was there
        all along (progress), and a tokenizer error past the edit that hides a parser
        error the edit made (none)."""
        lines = compiler.lines
        last = edit.last_written
        if error[0] < edit.line:  # the old error was at or past the edit, and is gone
            return old.reported[0] >= edit.line and compiler.there_before(error[0], message, edit.line)
        if error[0] == edit.line and _uncovered(old, error, message, edit, lines):
            return True
        moved_on = error > moved(old.begins, edit, lines) and error > (last, edit.end_column) \
            and (error != moved(old.reported, edit, lines) or message != old.message)
        if moved_on and _TOKENIZER_ERROR.search(message):
            edited = lines[:edit.line - 1] + edit.new_lines + lines[edit.line - 1 + edit.span:]
            hidden = compiler.error_above(edited, error[0])
            return hidden is None or hidden[0] > last \
                or (hidden[0] < edit.line and compiler.there_before(hidden[0], hidden[2], edit.line))
        return moved_on

    def tree_sitter_screen(self, lines: list[str], tree_before: set[tuple[int, str]],
                           tree_spans: list[tuple[int, int]], problems: tuple[Problem, ...], edit: Edit,
                           blind: bool, accepted: frozenset[str] = frozenset(),
                           stopped_at: int | None = None) -> str | None:
        """Where the language has its own judge, tree-sitter's screen of an edit of
        ``lines`` before the judge runs (``tree_before``: its problems before, as (line,
        message); ``tree_spans``: its errors over several lines; ``problems``: its problems
        after): FIXED (worth asking the judge first) when tree-sitter sees fewer problems,
        PROGRESS when it sees the same ones, None when it sees a new one or the edit only
        re-indents a language that ignores indentation. Where it sees nothing near the
        judge's error (``blind``), every edit that adds no problem is the judge's to decide;
        so, where it objects to lines near that error that the judge accepts (``accepted``:
        the ``shape`` of those objections; its grammar cannot read them, as a C enum with
        directives between its values), is every edit after which it objects to nothing
        new but the edited lines, as it does to those and did not before: they now read
        as those do. ``stopped_at``: where the judge stopped reading (``judge_stopped_at``):
        what tree-sitter newly finds well past it, far from the edit, the judge never read
        (a function's header typed onto a comment hid the rest of the file in its body),
        and is the judge's to decide; where it read none of the grammar (0), only after an
        edit that types and takes away no bracket or quote (``keeps_marks``)."""
        if not self.indentation_is_syntax and only_indentation(lines, edit):
            return None
        shifted = {(edit.moved(line), message) for line, message in tree_before}
        spans = [(first, edit.moved(last)) for first, last in tree_spans]
        last = edit.last_written
        stopped = edit.moved(stopped_at) if stopped_at is not None else None
        if stopped == 0 and not self.keeps_marks(lines, edit):
            stopped = None
        # Errors over several lines: what tree-sitter finds inside one once it is gone was
        # hidden by it, not added by the edit (macros it cannot expand under an ``#ifdef``
        # that lost its ``#endif``).
        found = {(p.line, p.message) for p in problems
                 if not any(first < p.line <= last for first, last in spans)
                 and not (stopped is not None and (not stopped or p.line > stopped + REGION)
                          and not near(p.line, edit.line, last) and (p.line, p.message) not in shifted)}
        if any(near(line, edit.line, last) for line, _ in shifted) \
                and not any(near(line, edit.line, last) for line, _ in found):
            return FIXED  # repaired here; what tree-sitter sees now is elsewhere: ask the judge
        if len(found) > len(tree_before):
            return None
        if not found or (len(found) < len(tree_before) and not found - shifted):
            return FIXED
        if blind and not found - shifted:
            return FIXED  # tree-sitter cannot see this error: only the judge can tell
        if accepted and _reads_as_accepted(found - shifted, shifted, edit.line, last, accepted):
            return FIXED  # read as the lines the judge accepts are: only the judge can tell
        if found != shifted and not found - shifted - _moved_along(tree_before, edit, last):
            return FIXED  # the same errors, one moved with its text to another edited line: only the judge can tell
        if not found - shifted and any(start <= last and edit.line <= end for start, end in tree_spans):
            return FIXED  # inside its error over many lines, the same after as before: only the judge can tell
        # Not worse by count: tree-sitter's recovery may just see the same error differently.
        return PROGRESS

    def unconfirmed(self, before: Sequence[Problem], after: Sequence[Problem], edit: Edit,
                    lines: Sequence[str]) -> bool:
        """The language's own judge still reports its first error where and as it did
        before ``edit`` (of ``lines``): only tree-sitter saw the edit help."""
        old = next((p for p in before if p.source != TREE_SITTER), None)
        new = next((p for p in after if p.source != TREE_SITTER), None)
        if old is None or new is None:
            return False
        line = old.line + (edit.shift if old.line > edit.line else 0)
        return new.line == line and new.message == old.message and not _read_on_along_its_line(old, new, edit, lines)

    # What the repair loop, the agent and the output ask of a change as a whole.

    def region_full(self, edited_lines: Sequence[int], lines: Sequence[int]) -> bool:
        """Edits of ``lines``, on top of those already kept (``edited_lines``, one entry
        per edit), would give one place more than MAX_EDITS_PER_REGION edits."""
        return any(len([n for n in [*edited_lines, *lines] if abs(n - line) <= self.reach]) > MAX_EDITS_PER_REGION
                   for line in lines)

    def refused(self, original: str, problems: Sequence[Problem], after: str, settings: Settings) -> str:
        """Why the change from ``original`` (whose problems were ``problems``) to ``after``
        is not a repair whatever the checks say, or '': larger than the settings allow
        (``guard``), far from every problem, or code turned into a comment or string."""
        return edit_too_large(original, after, self.language, max_lines=settings.max_changed_lines,
                              max_tokens=settings.max_changed_tokens, max_deleted=settings.max_deleted_tokens,
                              problems=problems, max_distance=self.reach) \
            or hides_code(original, after, self.language) or self.beyond_the_judge(original, after)

    def beyond_the_judge(self, original: str, after: str) -> str:
        """Why ``after`` is no repair of ``original`` that its judge could verify, or '':
        it has syntax the grammar reads and the language's judge does not, which
        ``original`` had none of (``judges.beyond_judge``: a ``using`` typed before a
        capitalised ``Const``). The judge would leave it to tree-sitter, which accepts it."""
        if judges.beyond_judge(after, self.language) and not judges.beyond_judge(original, self.language):
            return "it types syntax the language's own tool cannot read"
        return ""

    def output_refused(self, original: str, after: str, checked: CheckResult) -> str:
        """Why a clean ``after`` (its check ``checked``) of ``original`` is still not
        written, or '': ``unverified``, or the change hides code."""
        unverified = self.unverified(original, after, checked)
        if unverified:
            return unverified
        hidden = hides_code(original, after, self.language) or self.beyond_the_judge(original, after)
        return f"not a repair ({hidden})" if hidden else ""

    @property
    def types_may_be_unknown(self) -> bool:
        """The language's compiler may not know a file's types (``unverified``)."""
        record = spec(self.language)
        return record is not None and record.declare_type is not None

    def unverified(self, original: str, after: str, checked: CheckResult) -> str:
        """Why a clean ``after`` is not verified, or '': the compiler meets a syntax error
        inside a header the file includes (``judges.syntax_in_headers``); it reports an error the
        input did not have (``judges.errors_after_repair``); or it did not know the file's types,
        so its syntax messages were set aside, and a line the repair changed
        names a header it cannot find (``judges.headers_lost``), or asked again with those
        names declared it still rejects the change (``judges.unverified_changes``)."""
        if self.types_may_be_unknown:
            broken = judges.syntax_in_headers(after, self.language)
            if broken:
                return (f"not verified: the compiler meets a syntax error in the header included on line "
                        f"{broken[0].line} ({broken[0].message})")
        if not checked.note:
            return self._rejected(original, after)
        lost = judges.headers_lost(original, after, self.language)
        if lost:
            return f"not verified: the file's types are unknown, and line {lost[0].line} names a header the compiler cannot find"
        doubts = judges.unverified_changes(original, after, self.language)
        if doubts:
            return (f"not verified: the file's types are unknown and the compiler still rejects line "
                    f"{doubts[0].line} ({doubts[0].message})")
        unresolved = judges.names_unresolved_at_repair(original, after, self.language)
        if unresolved:
            line, name = unresolved[0]
            return (f"not verified: the file's types are unknown, and the compiler cannot resolve '{name}' "
                    f"on line {line}")
        typo = self.misspelt_keyword(after)
        if typo:
            return f"not verified: the file's types are unknown, and {typo}"
        return self._rejected(original, after)

    def rejects_step(self, before: str, after: str) -> bool:
        """A partial repair of a file whose types the compiler does not know: asked with
        those names declared, the compiler still rejects a line the step changed
        (``judges.unverified_changes``), as the final verdict would."""
        return self.types_may_be_unknown and bool(judges.unverified_changes(before, after, self.language))

    def _rejected(self, original: str, after: str) -> str:
        """Every header found, a compiler's other errors count too: the syntax accepted,
        what the repair typed may still mean nothing, or the compiler may now read a
        mistake the input's syntax error had kept it from (``judges.errors_after_repair``)."""
        if not self.types_may_be_unknown:
            return ""  # (another judge's messages beside its syntax are no compiler's errors)
        rejected = judges.errors_after_repair(original, after, self.language)
        if rejected:
            return f"not verified: the compiler rejects line {rejected[0].line} ({rejected[0].message})"
        return ""

    def misspelt_keyword(self, text: str) -> str:
        """A name the compiler could not resolve in ``text`` that is a keyword misspelt
        (``typenamme``), or "": one typo from a keyword the compiler itself takes it for
        (``did you mean 'void'?``; not ``is_const``, for which g++ suggests ``const``), or
        one used once, a typo from a keyword of six letters or more. With the types
        unknown, an unknown name is set aside as a header's; a keyword misspelt is no
        header's."""
        keywords = vocabulary(self.language)[0]
        words = Counter(re.findall(r"[A-Za-z_]\w*", text))
        for line, name, meant in judges.unknown_names(text, self.language):
            if name in keywords:
                continue
            guess = meant if meant in keywords else keyword_typo(name, self.language)
            if name.lower() == guess.lower():
                continue  # a keyword in capitals is a header's macro (``EXTERN``, ``INLINE``)
            if guess and distance(name, guess, cap=2) <= 1 and (
                    guess == meant or (len(guess) >= MIN_KEYWORD_TYPO and words[name] == 1)):
                return f"'{name}' on line {line} is the keyword '{guess}' misspelt"
        return ""

    def agent_refused(self, source: str, original: str, problems: Sequence[Problem],
                      new_source: str) -> tuple[str, str] | None:
        """Why an edit the agent typed (``source`` to ``new_source``; ``original`` and its
        ``problems`` are the file's before any repair) is undone before it is checked:
        ("too_large", why) when it rewrites the lines instead of repairing them, ("too_far",
        why) when it changes code far from every problem; None when neither."""
        if rewrites_instead_of_repairing(source, new_source, self.language):
            return "too_large", "the edit rewrites the lines instead of fixing them"
        far = far_from_problems(original, new_source, self.language, problems, self.reach)
        return ("too_far", far) if far else None


def _uncovered(old: FirstError, error: tuple[int, int], message: str, edit: Edit, lines: list[str]) -> bool:
    """The edit repaired the ``old`` error and uncovered another on its own line that
    the old one hid: a parser error before the edit, once the token the tokenizer
    stopped at (a bad literal or character) is replaced and no longer stops the
    parse first; or a bracket never closed, once a re-indent (which opens and
    closes none) repaired an unexpected indent."""
    if _BAD_TOKEN.search(old.message):
        return edit.span == len(edit.new_lines) == 1 and old.reported[0] == edit.line \
            and edit.column < old.reported[1] <= edit.end_column and error[1] <= edit.column \
            and not _TOKENIZER_ERROR.search(message)
    return "was never closed" in message and only_indentation(lines, edit)


def _moved_along(tree_before: set[tuple[int, str]], edit: Edit, last: int) -> set[tuple[int, str]]:
    """Tree-sitter's problems on the edit's new lines whose like (the same message) it
    saw on the lines the edit replaced: moved along with their text (a line split), not
    added."""
    old = {message for line, message in tree_before if edit.line <= line <= edit.end_line}
    return {(line, message) for line in range(edit.line, last + 1) for message in old}


def _puts_back_block_opener(lines: list[str], edit: Edit) -> bool:
    """The edit ends a block's first line with the opener its closer, lines below and
    perhaps past ``BRACKET_REACH`` (a long function's body), now closes nothing."""
    if edit.span != 1 or len(edit.new_lines) != 1 or not edit.new_lines[0].rstrip().endswith(tuple(BRACKETS)):
        return False
    last = min(len(lines), edit.line + HEADER_SCAN)
    return any(bracket not in BRACKETS and block_header(lines, line, col) == edit.line
               and opener_at_end(lines, edit.line, OPENER_OF[bracket]).new_lines == edit.new_lines
               for line, col, bracket in unmatched_brackets(lines, edit.line, last, ""))
