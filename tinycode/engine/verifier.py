"""The one answer to "is this edit accepted?": did it clear the problems of its
region, and add none elsewhere. The candidate search, every step of the repair loop,
the agent's edits and the language server's quick fix all ask the ``Verifier``.

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
from typing import Sequence

from ..check import CheckResult, Problem, check, shadowed
from ..config import setting
from ..languages import get_parser, spec
from .edits import Edit, changed_hunks, differing_span, original_line

TREE_SITTER = "tree-sitter"
# Lines either side of an edit that are its region: the locality guard's default reach.
REGION: int = setting("max_problem_distance").default
# Lines between where the judge and tree-sitter place the same next error ("Expecting
# ',' delimiter" on the last line, "missing '}'" on the one before).
NEXT_ERROR_REACH = 2
# An error of tree-sitter's spanning more lines than this locates nothing: its recovery
# gave up on the whole stretch (a file it misreads, a construct it does not know).
WIDE = 50
# "closing parenthesis ']' does not match opening parenthesis '(' on line 49"
_NAMED_LINE = re.compile(r"\bon line (\d+)")


# A compiler that ran off the end of the file ("Syntax error: Unterminated quoted string",
# "end of file unexpected (expecting "done")", "expected ';', found 'EOF'") cannot say
# where the string or block began.
AT_THE_END = re.compile(r"end of (?:file|input)|unexpected EOF|\bEOF in |unterminated quoted string|found 'EOF'",
                         re.IGNORECASE)


# A judge that read a string on to the end of the file: "unexpected EOF while looking
# for matching `"'" (bash), "Unterminated quoted string", "EOF in backquote substitution"
# (dash), "unterminated string literal" (Python, Rust), "string literal not terminated"
# (Go), "unclosed string literal" (Java), "unterminated string meets end of file" (Ruby).
STRING_TO_THE_END = re.compile(
    r"looking for matching [`'\"]|unterminated|not terminated|EOF in (?:backquote|\$\(|\")|unclosed (?:string|text)|"
    r"EOF while scanning", re.IGNORECASE)


# A construct reported where it opens and never closed ("unterminated #ifdef",
# "Unclosed '{'"): its closer was due anywhere further on.
UNCLOSED = re.compile(r"unterminated|never closed|unclosed|not closed", re.IGNORECASE)


def reported_line(problem: Problem, taken_as_said: bool = False) -> int:
    """Where the error begins: its line, or the earlier line its message names (the
    bracket a mismatch goes back to), so the next error surfacing between the two is
    progress, not a new error. An error noticed only at the end of the file may begin
    anywhere before it, unless the judge names where its errors begin (``taken_as_said``:
    ``LanguageSpec.judge_names_where_errors_begin``)."""
    if not taken_as_said and AT_THE_END.search(problem.message):
        return 1
    return named_line(problem)


def named_line(problem: Problem) -> int:
    """The problem's line, or the earlier line its message names."""
    named = _NAMED_LINE.search(problem.message)
    return min(problem.line, int(named.group(1))) if named else problem.line


def _moved_on(before: Sequence[Problem], after: Sequence[Problem], edit_line: int, edit_end: int,
              delta: int) -> bool:
    """tree-sitter alone judges, and every error it saw is gone while what it sees now
    begins beyond the edit's region: the file reads as correct from the top to past the
    edit, so the edit repaired its error, and what recovery from it hid shows now, as
    a judge that stops at its first error shows its next one. Not an error it cannot
    place (too wide), nor a closer it finds missing (an opener the edit may have added),
    nor more errors than before; nor after an error it could not place, since then its
    recovery may read the file anew after any edit at all."""
    old = {(p.line + delta if p.line > edit_line else p.line, p.message) for p in before}
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


def _new_span(edit: Edit) -> tuple[int, int, int]:
    """(first, last) lines of what ``edit`` wrote, in the edited text (the line after a
    deletion), and how far it moved the lines below."""
    return edit.line, edit.line + max(len(edit.new_lines), 1) - 1, edit.shift


BRACKET_MARKS = ("(", ")", "[", "]", "{", "}")


class Verifier:
    """Whether an edit of a text in ``language`` is accepted: the one place that decides
    it, for every part of the engine. ``reach``: lines either side of an edit that are
    its region (the ``max-problem-distance`` setting)."""

    def __init__(self, language: str, reach: int = REGION) -> None:
        self.language, self.reach = language, reach
        record = spec(language)
        self.names_where_errors_begin = record is not None and record.judge_names_where_errors_begin

    def progress(self, before: Sequence[Problem], after: Sequence[Problem], edit_line: int,
                 edit_end: int, delta: int, shadowed: Sequence[Problem] = (), *,
                 swallowed_below: bool = False, structure_kept: bool = False) -> bool:
        """``after`` (the problems once lines from ``edit_line`` on were edited, ending at
        ``edit_end`` in the new text and shifting later lines by ``delta``) is progress
        over ``before``. ``shadowed``: tree-sitter's problems of the text before that its
        check left out (where the judge reported): once the judge moves on they show, and
        are not new. ``swallowed_below``: the lines from the edit down to the first error
        left now read as far fewer tokens than before (the edit began a string or comment
        over them), so that error moving there is no sign of a repair. ``structure_kept``:
        the edit only takes away tokens, no bracket, quote or keyword, so it cannot have
        unbalanced the file's blocks: where tree-sitter alone judges, an error too wide to place that is
        all it leaves was hidden by the one it repaired (a misspelt ``end`` far off)."""
        if not after:
            return True

        def shifted(problems: Sequence[Problem]) -> set[tuple[int, str]]:
            return {(p.line + delta if p.line > edit_line else p.line, p.message) for p in problems}

        old_tree = shifted([p for p in before if p.source == TREE_SITTER])
        seen = old_tree | shifted(shadowed)
        old_judge = [p for p in before if p.source != TREE_SITTER]
        new_tree = {(p.line, p.message) for p in after if p.source == TREE_SITTER}
        new_judge = [p for p in after if p.source != TREE_SITTER]
        judge_fewer = bool(old_judge) and len(new_judge) < len(old_judge)
        new_tree -= _cascade(new_tree, seen, edit_line, edit_end)
        revealed = _revealed(before, new_tree - seen, edit_line, edit_end, delta)
        new_tree -= revealed
        if not old_judge and not new_judge and structure_kept and all(map(too_wide, after)) \
                and len(after) <= len(before) and all(near(p.line, edit_line, edit_end) and not too_wide(p) for p in before):
            return True
        if not old_judge and not new_judge and not swallowed_below and _moved_on(before, after, edit_line, edit_end, delta):
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
            # may begin anywhere past the edit.
            next_lines = [edit_end + 1 if AT_THE_END.search(p.message) else p.line for p in new_judge
                     if (p.line, p.message) not in old_judged and p.line > edit_end]
            wide = {(p.line, p.message) for p in after if too_wide(p)}
            # A judge reads a file from its start: when its first error now lies past the
            # edit, it read every line above the edit as correct, and a line tree-sitter
            # alone now objects to there is its recovery from an error further on (an ``if``
            # typed for a ``fi`` lines below makes it misread a comment far above). Not an
            # error over lines: that may be a construct the edit left unfinished.
            read_past = bool(new_judge) and min(p.line for p in new_judge) > edit_end
            one_line = {(p.line, p.message) for p in after if p.end_line == p.line}
            allowed = hidden if judge_fewer else {(line, message) for line, message in hidden
                                             if (read_past and line < edit_line and (line, message) in one_line)
                                             or next_lines and (line >= min(next_lines) - NEXT_ERROR_REACH
                                                                or (line, message) in wide)}
            if not allowed or _added(new_tree - allowed, seen, edit_line, edit_end):
                return False
        surfaced = [p for p in new_judge if (p.line, p.message) not in shifted(old_judge)]
        if surfaced:
            # More errors from the judge is no progress, unless tree-sitter sees fewer: an
            # error that swallowed the rest of the file (a string left open) hid them all.
            if not old_judge or len(new_judge) > len(old_judge) and not len(new_tree) < len(old_tree):
                return False
            first_old = min(reported_line(p) + delta if reported_line(p) > edit_line else reported_line(p)
                       for p in old_judge)
            return all(p.line > max(edit_end, first_old) for p in surfaced)
        # Fewer problems; or fewer from the judge, with tree-sitter's only new ones those
        # its recovery hid before (allowed above).
        return len(after) - len(revealed) < len(before) or judge_fewer

    def alone(self, working: str, current: CheckResult, target: Problem) -> tuple[str, CheckResult, frozenset[int]] | None:
        """``working`` as if ``target`` were its only mistake, its check and the lines
        blanked: each other problem's enclosing construct (a definition, a statement, a
        pair of a mapping), the largest that keeps clear of the target's region, is
        blanked line for line, so line numbers stay and the language's own judge sees
        the target's error first. A judge that stops at its first error may have hidden
        others, which the blanked copy may show: the edit is judged by its region there.
        None when there is nothing else to blank, or when the target's error is gone
        from the blanked copy (it was another's)."""
        protected = (target.line - self.reach, target.end_line + self.reach)
        others = [p for p in current.problems
                  if not too_wide(p) and not near(p.line, target.line, target.end_line, self.reach)]
        if not others:
            return None
        lines = working.split("\n")
        tree = get_parser(self.language).parse(working.encode("utf-8"))
        blank: set[int] = set()
        for problem in others:
            rows = _enclosing_rows(tree.root_node, lines, problem, protected)
            if rows is None:
                return None
            blank.update(range(rows[0], rows[1] + 1))
        masked = "\n".join(("\r" if text.endswith("\r") else "") if n in blank else text
                           for n, text in enumerate(lines, 1))
        result = check(masked, self.language)
        if not any(near(p.line, target.line, target.end_line, self.reach) for p in result.problems):
            return None
        return masked, result, frozenset(blank)

    def accepted_alone(self, masked: str, masked_check: CheckResult, masked_after: str, edit: Edit,
                       current: CheckResult, after_text: str) -> CheckResult | None:
        """An edit found in the copy of ``alone`` (``masked``, its check ``masked_check``,
        ``masked_after`` once edited) is accepted in the file (``current`` its check,
        ``after_text`` once edited) when it clears its region in the copy and adds no
        problem elsewhere in the file: the file's check after it, or None."""
        if not self.region_cleared(masked, masked_check, masked_after, edit):
            return None
        after = check(after_text, self.language)
        return None if self.added_elsewhere(current, after, edit) else after

    def added_elsewhere(self, before: CheckResult, after: CheckResult, edit: Edit) -> bool:
        """``after`` (the check once ``edit`` is made) has a problem outside the edit's
        region that ``before`` had nowhere near: the edit broke something elsewhere. What
        follows an old problem past the edit is that problem's cascade (a judge reading
        on after its error), not the edit's doing."""
        first, last, delta = _new_span(edit)
        old = [p.line + delta if p.line > edit.line else p.line for p in before.problems]

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
        first, last, delta = _new_span(edit)
        reach = self.reach

        def shifted(problems: tuple[Problem, ...]) -> set[tuple[int, str]]:
            return {(p.line + delta if p.line > edit.line else p.line, p.message) for p in problems}

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
        if target.source == TREE_SITTER:
            return True
        line = target.line + (edit.shift if target.line > edit.line else 0)
        return not any(near(p.line, line, line, reach) for p in problems)

    def clears_its_place(self, before: list[str], problems_before: tuple[Problem, ...], edits: tuple[Edit, ...],
                         lines: list[str], problems: tuple[Problem, ...]) -> bool:
        """``edits`` of the lines ``before`` (giving ``lines`` and ``problems``) repair a
        place of it and leave every problem outside their region, adding or taking no
        bracket and repairing none the parser objects to (which may pair with a mistake
        anywhere)."""
        if not problems or len({p.line for p in problems}) >= len({p.line for p in problems_before}):
            return False
        spans = [(e.line, e.line + max(len(e.new_lines), 1) - 1) for e in edits]
        repaired = [p for p in problems_before if any(near(p.line, first, last) for first, last in spans)]
        if any(p.text.strip() in BRACKET_MARKS or UNCLOSED.search(p.message) for p in repaired):
            return False
        start, end_before, end_after = differing_span(before, lines)
        old, new = "".join(before[start:end_before]), "".join(lines[start:end_after])
        if any(old.count(b) != new.count(b) for b in BRACKET_MARKS):
            return False
        return not any(near(p.line, first, last) for p in problems for first, last in spans)

    def place_cleared(self, problems_after: tuple[Problem, ...], edit: Edit, problem: Problem) -> bool:
        """After ``edit``, tree-sitter sees no problem within the region of the edit and
        of ``problem`` (one half of a pair of edits: it may add problems elsewhere)."""
        last = edit.last_written
        where = (min(edit.line, problem.line), max(last, problem.line))
        return not any(near(p.line, *where, self.reach) for p in problems_after)

    def pair_accepted(self, source: str, before: CheckResult, text: str, after: CheckResult) -> bool:
        """Two edits at two places (``source`` -> ``text``) leave fewer problems, all of
        them old ones, in the original's line numbers."""
        if not (after.ok or len(after.problems) < len(before.problems)):
            return False
        hunks = changed_hunks(source, text)
        old = {(p.line, p.message) for p in before.problems}
        return after.ok or {(original_line(p.line, hunks), p.message) for p in after.problems} <= old

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
