"""Parser-verified candidate edits: the small repairs near each problem that the
checker accepts.

Most real syntax errors are one or two tokens away from code that parses: a missing
bracket, colon or comma, a stray character, a wrong indentation, a Python 2 print.
Around each reported problem we try inserting, deleting or replacing one token from a
small set, re-indenting a line, and a few whole-line rewrites (``proposals``),
and keep the edits after which the checker finds fewer problems and no new ones.
Edits that only get further are extended by a second (third, fourth) edit while the
search's work budget lasts. Choosing among the few survivors is left to the model (``rank.py``).

The budget is counted in checks made, not in seconds, so a busy machine finds the
same candidates as an idle one; the file's wall-time deadline is only the outer
safety bound. Cost does not grow with the file: an edit is judged first on a window of lines
(Python) or by an incremental re-parse (tree-sitter), and only the survivors are
checked as whole files.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Iterable

from ..deadline import expired
from ..check import CheckResult, Problem, check, source_lines, tree_sitter_problems
from ..languages import NoVerdict
from ..problems import judge_read_to, standing, tree_problems
from .edits import WHOLE_LINE, Edit, code_tokens, differing_span, token_distance
from .guard import hides_code
from .rules import PAIRED_FIX, combined, judge_runs
from .proposals import edit_family, proposals
from .. import judges
from ..judges import grammar_gaps, judge_name, registry
from ..languages import comment_prefix, get_parser, spec
from .grammar_space import contexts_of, habits, strings_over_lines
from .verifier import (FIXED, PROGRESS, REGION, SWALLOWED, TREE_SITTER, FirstError, Verifier,
                       judge_stopped_at, near, shape, nodes_starting, only_indentation, reported_line, runs_on, unmatched)

if TYPE_CHECKING:
    import tree_sitter

BEAM = 3  # partial repairs extended per level
PYTHON_BEAM = 5  # CPython shows one error at a time: more partial repairs look alike
MAX_SURVIVORS = 12  # window-verified complete fixes checked as whole files, per level
MAX_PARTIAL = 6  # partial repairs checked as whole files, per level
# Units of work one search may spend: a window compile (20-100 microseconds) or a
# whole-file check is one, a tree-sitter re-parse one plus its parser's own count of
# its work (below). Measured on 150 real Python errors and 74 real one-error files of
# 15 languages: every complete fix came within 15,065 checks in Python (median 401) and
# 3,254 re-parses elsewhere (median 357), while a search that finds none spends the
# whole budget.
WORK_BUDGET = 20_000
# A re-parse costs one unit and one per OPERATIONS_PER_UNIT progress reports of the
# parser (each a hundred of its operations, about 0.3 ms): its work, not its time, so
# a busy machine counts the same.
OPERATIONS_PER_UNIT = 1
READ_CHUNK = 1 << 16  # bytes handed to the parser per read
LOOK_FURTHER = 400  # proposals tried for alternatives after the first complete fix,
ALTERNATIVES_WORK = 3_000  # and units spent on them at most, the judge's runs included
# Above this many lines a Python file is judged on a window around the error.
WINDOW_FROM = 40
_WINDOW_ABOVE, _WINDOW_BELOW = 40, 80
_DEDUPE_WHOLE = 400  # files up to this many lines are compared whole for duplicates
# Runs of a native judge (gcc, node, ...) one search may make, each a process, weighted
# by its language's ``judge_cost`` (4 for a C compiler's run): sixty such runs.
MAX_JUDGE_CALLS = 240
# A judge's run, in work units, for each unit of its language's ``judge_cost`` (a C
# compiler's run costs 4): ``JUDGE_RUN_UNITS``, and one for every ``JUDGE_READ_PER_UNIT``
# characters of the text it reads. Measured on this 2-core machine: a unit of
# re-parsing takes about 0.1 ms; a judge's run 1-14 ms for each unit of its cost on a
# short file (gcc 18 ms, g++ with its headers precompiled 92 ms, javac's parser 14 ms),
# and tsc's (cost 2) 37 ms on a 20 kB file that took it 8 ms at 2 kB.
JUDGE_RUN_UNITS = 50
JUDGE_READ_PER_UNIT = 160
JUDGE_ALTERNATIVES = 32  # of those, spent looking for other complete fixes once one is found
# Edits the judge's runs ran out before that tree-sitter likes best (fewest problems
# left): a stray bracket lines above a report is proposed late, and these still get
# a run each, beyond the budget.
JUDGE_FAVOURITES = 3
MAX_SECOND_LOOKS = 40  # edits kept for a judge's run after tree-sitter's first guesses
NOISY_LINES = 2  # lines near the judge's error, at least, whose objections by tree-sitter the judge does not share
FIRST_PROPOSALS = 16  # the likeliest proposals, which the judge may see whatever tree-sitter says


def _one_error_at_a_time(language: str) -> bool:
    record = spec(language)
    return record is not None and record.one_error_at_a_time


def _own_judge(language: str) -> bool:
    """The checker adds a verdict of its own to tree-sitter's."""
    record = spec(language)
    return record is not None and record.own_judge is not None


@dataclass(frozen=True)
class Candidate:
    """A verified repair: ``edit`` (all of its steps as one change of the source, its
    size the token edit distance) and what the checker says after it."""

    edit: Edit
    problems_after: int
    source_after: str
    # Trigrams of its new lines that the file has nowhere else (``Contexts``); None
    # when the file is too short to have habits.
    unfamiliar: int | None = None
    types_unknown: bool = False  # the compiler did not know the file's types after it (``_Node.order``)
    reach: int = 0  # the line the language's own judge read to without an error after it (``_reach``), or 0

    @property
    def fixes_all(self) -> bool:
        return self.problems_after == 0


def suggest(source: str, language: str, *, limit: int = 5, work: int = WORK_BUDGET,
            result: CheckResult | None = None, depth: int = 4, account: WorkAccount | None = None) -> list[Candidate]:
    """Up to ``limit`` verified edits: complete fixes (only those, when there are
    any), fewest edits and likeliest kinds of edit first, found within ``work`` checks
    (and within the repair's ``account``)."""
    budget = _Budget(work, account)
    judge_limit = judges.calls() + MAX_JUDGE_CALLS
    result = result or check(source, language)
    if result.ok:
        return []
    root = _Node(source_lines(source), source.endswith("\n"), result.problems, (), 0)
    complete: list[_Node] = []
    partial: list[_Node] = []
    beam = [root]
    for _ in range(depth):
        found: list[_Node] = []
        for node in beam:
            if budget.spent():
                break
            found.extend(_expand(node, language, budget, judge_limit))
        complete = [n for n in found if n.fixed]
        if complete:
            break
        found.sort(key=_Node.order)
        partial = partial or found
        if _apart(found, root, language):
            break
        beam = found[:PYTHON_BEAM if _one_error_at_a_time(language) else BEAM]
        if not beam:
            break
    chosen = _balanced(_tree_sitter_agrees(complete, language) or partial, root, language)
    ordered = _familiar_first(chosen, root, language)
    return _candidates(source, language, ordered if complete else _farthest_among(ordered, limit), limit)


def _farthest_among(nodes: list[_Node], limit: int) -> list[_Node]:
    """``nodes`` with the one the language's own judge read furthest in, of those whose
    progress it confirmed, among the first ``limit``: a block's lost first word put back
    lets the judge read on to the next mistake, though tree-sitter, still thrown by that
    one, may count more problems after it than after an edit that only moves the first
    error along."""
    if len(nodes) <= limit:
        return nodes
    farthest = max(nodes, key=lambda n: (not n.unconfirmed, n.reach))
    if farthest.unconfirmed or farthest.reach <= max(n.reach for n in nodes[:limit - 1]):
        return nodes
    rest = [n for n in nodes if n is not farthest]
    return rest[:limit - 1] + [farthest] + rest[limit - 1:]


def _familiar_first(nodes: list[_Node], root: _Node, language: str) -> list[_Node]:
    """``nodes`` in their order, except that of two as good by it up to the kind of
    edit, the one whose new lines put tokens among neighbours the file has them among
    elsewhere comes first (``Contexts``)."""
    contexts = contexts_of("\n".join(root.lines), language)
    if not contexts.enough:
        return sorted(nodes, key=_Node.order)

    def key(node: _Node) -> tuple[int, ...]:
        order = node.order()
        return (*order[:5], contexts.unseen(node.lines), *order[5:])
    return sorted(nodes, key=key)


def _apart(found: list[_Node], root: _Node, language: str) -> bool:
    """One of ``found`` repairs a place that the judge confirms (not a bracket the
    parser objects to or finds unclosed, and adding or taking none), and every problem
    it leaves lies outside the region of its edits: errors that far apart are repaired
    one after another by the loop, each with a search of its own, not all at once by a
    deeper search here, whose cost multiplies with each error. (CPython shows one
    error at a time: there the next one is always "left".)"""
    if _one_error_at_a_time(language):
        return False
    verifier = Verifier(language)
    return any(not node.unconfirmed and verifier.clears_its_place(root.lines, root.problems, node.edits, node.lines,
                                                                  node.problems)
               for node in found)


def _balanced(nodes: list[_Node], root: _Node, language: str) -> list[_Node]:
    """The nodes that leave no more brackets unmatched in the whole file than there
    were, nor blocks of the language's keywords (the shell's ``if`` without its ``fi``),
    when there are any: deleting a block's closer far from its opener may quiet the
    judge here, but the opener it leaves is the next error. (CPython names brackets
    itself: Python keeps them all.)"""
    if _one_error_at_a_time(language) or len(nodes) < 2:
        return nodes
    blocks = edit_family(language).unmatched_blocks
    marker = comment_prefix(language)

    def count(lines: list[str]) -> int:
        return unmatched(lines, marker) + (blocks(lines) if blocks is not None else 0)
    limit = count(root.lines)
    kept = [n for n in nodes if count(n.lines) <= limit]
    return kept or nodes


def _tree_sitter_agrees(complete: list[_Node], language: str) -> list[_Node]:
    """The complete fixes that tree-sitter also finds clean, when there are any: the
    language's own judge decides, but where tree-sitter sees an error the judge reports
    lines later (a block that lost its opener, which the judge notices at its closer),
    a fix tree-sitter still objects to is likelier the wrong one of two."""
    if _one_error_at_a_time(language) or len(complete) < 2:
        return complete
    clean = [n for n in complete if not tree_sitter_problems(n.text, language)]
    return clean or complete


class WorkAccount:
    """The work units one repair may still spend, all of its searches and the language's
    own judge's runs together: a file whose mistakes no search repairs stops when they
    are spent, at the same point on a busy machine as on an idle one."""

    def __init__(self, units: int) -> None:
        self.units = units
        self.searched = 0  # units the searches took
        # The judge work spent before the account was opened: runs weighted by cost, and characters read.
        self.judged_from = judges.calls(), judges.read()
        self.refused = ""  # why the last fix a search found clean was not verified (``Verifier.unverified``)

    def take(self, units: int) -> None:
        self.searched += units

    @property
    def spent(self) -> int:
        """The searches' units and the judge's runs since the account was opened
        (``JUDGE_RUN_UNITS``, ``JUDGE_READ_PER_UNIT``)."""
        return self.searched + _judge_units(self.judged_from)

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.units


def _judge_units(since: tuple[int, int]) -> int:
    """The units of the judge's runs since ``since`` (``judges.calls()``, ``judges.read()``)."""
    calls, read = judges.calls() - since[0], judges.read() - since[1]
    return calls * JUDGE_RUN_UNITS + read // JUDGE_READ_PER_UNIT


class _Budget:
    """The checks a search may still make, within the repair's ``account`` when it has
    one. The file's deadline (wall time, the safety bound) ends it too."""

    def __init__(self, checks: int, account: WorkAccount | None = None) -> None:
        self.left = checks
        self.account = account
        self.favourites = JUDGE_FAVOURITES  # judge runs beyond the search's own, for tree-sitter's favourites
        self.runs_taken: Counter[str] = Counter()  # the judge's runs each rule's edits took (``rules.judge_runs``)
        self.taken = 0  # units its checks took
        self.judged_from = judges.calls(), judges.read()  # the judge's work before the search

    def work(self) -> int:
        """The units this search spent: its checks and the judge's runs it asked for."""
        return self.taken + _judge_units(self.judged_from)

    def take(self, units: int = 1) -> None:
        self.left -= units
        self.taken += units
        if self.account is not None:
            self.account.take(units)

    def spent(self) -> bool:
        return self.left <= 0 or (self.account is not None and self.account.exhausted) or expired()


@dataclass(frozen=True)
class _Node:
    """A source reached by a sequence of verified edits."""

    lines: list[str]
    trailing_newline: bool
    problems: tuple[Problem, ...]
    edits: tuple[Edit, ...]
    proposal_rank: int  # positions of its edits among the proposals, summed (likelier first)
    echoes: int = 0  # edits after which the same error turned up further on
    unconfirmed: int = 0  # edits whose progress only tree-sitter saw: the judge still reports the same first error
    reach: int = 0  # the line the judge read to: its first error (READ_TO_THE_END when it has none)
    types_unknown: bool = False  # the compiler did not know the types: its problems are tree-sitter's count

    @property
    def fixed(self) -> bool:
        return not self.problems

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + ("\n" if self.trailing_newline else "")

    def order(self) -> tuple[int, ...]:
        """Progress the language's own judge saw; the compiler knowing the file's types
        (where it does not, its problems are counted only where tree-sitter agrees: a
        comment's words left as code, ``see the files``, read as a declaration of a type
        it does not know, hide the mistakes it would report); fewer problems, fewer
        edits; the judge reading further (a wrong repair's cascade stops it on the next
        lines); a mistake repaired where it repeats; then the likelier kind of edit."""
        return (self.unconfirmed, self.types_unknown, self.places, len(self.edits), -self.reach, -self.echoes,
                self.proposal_rank, sum(e.size for e in self.edits))

    @property
    def places(self) -> int:
        """Lines with problems: an error that the judge and tree-sitter both report
        (``Unclosed '{'`` and ``missing '}'`` at the end) is one error left, not two."""
        return len({p.line for p in self.problems})


def _expand(node: _Node, language: str, budget: _Budget, judge_limit: int = 0) -> list[_Node]:
    """The single edits of ``node`` that fix it, or failing that the best few that
    make progress, as nodes checked on the whole file."""
    verdicts = _CompileVerdicts(node, language) if _one_error_at_a_time(language) \
        else _ReparseVerdicts(node, language, judge_limit, budget)
    verifier = verdicts.verifier
    # How far the judge read orders partial repairs; CPython's one error at a time is
    # all the search sees there (``echoes`` weighs that).
    reads = not _one_error_at_a_time(language) and bool(judges.judge_name(language))
    fixing: list[tuple[int, Edit]] = []
    progressing: list[tuple[int, Edit]] = []
    seen: set[tuple[int, int, tuple[str, ...]]] = set()
    judged_progress = 0  # the first entries of ``progressing`` that a native judge confirmed
    alternatives_until: int | None = None  # the search's work at which the search for alternatives ends
    # The rank of the first edit that repairs a place of a file with mistakes elsewhere,
    # leaving them all outside its region (``_clears_its_place``): from there on, as
    # after a complete fix, only alternatives are looked for. The loop repairs the
    # other places in steps of their own.
    cleared: int | None = None
    found_by: set[str] = set()  # the rules of the repairs found so far, complete or clearing their place

    def hides(edit: Edit) -> bool:
        """The edit turns code of ``node`` into a comment or string (``guard.hides_code``)."""
        after = replace(node, lines=edit.applied(node.lines)).text
        return bool(hides_code(node.text, after, language))
    for rank, edit in enumerate(_repeat_first(proposals(node.lines, node.problems, language), node)):
        first = fixing[0][0] if fixing else cleared
        if len(fixing) >= MAX_SURVIVORS or (first is not None and rank > first + LOOK_FURTHER) \
                or budget.spent() or (alternatives_until is not None and budget.work() >= alternatives_until):
            break
        # Past the first level the likeliest edits come first (the kind that helped
        # before): with a partial repair in hand, look only a little further.
        if node.edits and not fixing and progressing and rank > progressing[-1][0] + LOOK_FURTHER:
            break
        if (fixing or cleared is not None) and alternatives_until is None:
            alternatives_until = budget.work() + ALTERNATIVES_WORK
        key = (edit.line, edit.span, tuple(edit.new_lines))
        if (edit.whole_repair_only and node.edits) or key in seen or edit.new_lines == node.lines[edit.line - 1:edit.line - 1 + edit.span]:
            continue
        seen.add(key)
        if edit.unfounded and any(rival != edit.rule for rival in found_by):
            continue  # an unfounded guess competes with its own rule's repairs only
        if not _one_error_at_a_time(language) and verifier.opens_strings(node.lines, edit):
            continue
        verdict = verdicts.verdict(edit)
        budget.take(verdicts.cost)
        if verdict is None and isinstance(verdicts, _ReparseVerdicts):
            verdicts.note_rejected(rank, edit)
        judged = verdict == FIXED and isinstance(verdicts, _ReparseVerdicts) and verdicts.native
        if judged:
            verdict = verdicts.judged(edit, node.lines, rank)  # tree-sitter passed it: now the real judge
            if verdict == PROGRESS and verdicts.unconfirmed(verdicts.judged_problems[_key(edit)], edit):
                judged = False  # the judge's first error stands as it was: not ahead of tree-sitter's guesses
        if verdict == FIXED and hides(edit):
            continue  # no repair, and no end to the search for one
        if verdict == FIXED:
            fixing.append((rank, edit))
            found_by.add(edit.rule)
            if judged:
                verdicts.found_complete()
        elif verdict == PROGRESS and not edit.whole_repair_only and not verifier.unbalances(node.lines, edit) \
                and not hides(edit):
            if cleared is None and not node.edits and isinstance(verdicts, _ReparseVerdicts) \
                    and verdicts.clears_its_place(edit, judged):
                cleared = rank
                found_by.add(edit.rule)
            if judged:  # the language's own judge saw progress: ahead of tree-sitter's guesses
                progressing.insert(judged_progress, (rank, edit))
                judged_progress += 1
                if isinstance(verdicts, _ReparseVerdicts):  # (the guesses pushed out may get a second look)
                    for pushed in progressing[max(MAX_PARTIAL, judged_progress):]:
                        verdicts.note_progress(*pushed)
                del progressing[MAX_PARTIAL:]
            elif len(progressing) < MAX_PARTIAL:
                progressing.append((rank, edit))
            elif isinstance(verdicts, _ReparseVerdicts):
                verdicts.note_progress(rank, edit)
            elif isinstance(verdicts, _CompileVerdicts) and verdicts.cleared_line(edit):
                # The edit's own lines now parse (CPython's next error is on a later
                # line): ahead of a likelier edit that only moved the error along its line.
                stuck = [i for i, (_, kept) in enumerate(progressing) if not verdicts.cleared_line(kept)]
                if stuck:
                    del progressing[stuck[-1]]
                    progressing.append((rank, edit))
    if not fixing and isinstance(verdicts, _ReparseVerdicts):
        for rank, edit, verdict in verdicts.favourites(budget) + verdicts.second_looks(budget):
            if verdict == FIXED and not hides(edit):
                fixing.append((rank, edit))
                verdicts.found_complete()
            elif verdict == PROGRESS and not verifier.unbalances(node.lines, edit):
                progressing.insert(0, (rank, edit))
    found: list[_Node] = []
    # Whole-file checks cost the most on long files: partial repairs are checked
    # only when no complete one survives.
    for group in (fixing, progressing):
        if group is progressing and isinstance(verdicts, _ReparseVerdicts):
            # The partial repairs kept get a run of the judge each, beyond the budget too:
            # where tree-sitter is blind to the judge's error (a stray ``#`` in a header full
            # of macros), its "fixed" edits may spend every run, and the edit that repairs
            # the error, which it sees only as progress, would never be shown to the judge.
            verdicts.allow_runs(len(progressing))
        for rank, edit in group:
            child = _Node(edit.applied(node.lines), node.trailing_newline, (), node.edits + (edit,), node.proposal_rank + rank)
            budget.take()
            problems = verdicts.confirm(child.text, edit)
            if problems is not None:
                problems = verifier.read_by_the_judge(problems)
                unconfirmed = isinstance(verdicts, _ReparseVerdicts) and verdicts.unconfirmed(problems, edit)
                found.append(replace(child, problems=problems,
                                     echoes=node.echoes + _error_repeats(node, problems, language, edit),
                                     unconfirmed=node.unconfirmed + unconfirmed,
                                     reach=_reach(problems) if reads else 0,
                                     types_unknown=isinstance(verdicts, _ReparseVerdicts)
                                     and _key(edit) in verdicts.types_unknown))
        if any(n.fixed for n in found):
            break
    return found


READ_TO_THE_END = 1 << 30  # the reach of a text the judge reports nothing in, however long


def _reach(problems: tuple[Problem, ...]) -> int:
    """The line the language's own judge read to without an error (``judge_read_to``):
    past any end when it reports none, 0 when its error was met only at the end."""
    line = judge_read_to(problems)
    return 0 if line is None else line or READ_TO_THE_END


def _error_repeats(node: _Node, problems: tuple[Problem, ...], language: str, edit: Edit) -> int:
    """1 when the edit, made on the error's own line, left the same error to repair on
    a later line. CPython words the next error after its own way (``=`` for ``:`` in a
    dict entry is "cannot assign to literal" first, then "':' expected after dictionary
    key"): for Python, any error on a later line. (An edit elsewhere that moves the
    error along is no repeat: the parser only gave up later.)"""
    if not problems or not node.problems:
        return 0
    old, new = node.problems[0], problems[0]
    if _one_error_at_a_time(language):
        return int(new.line > old.line)
    on_its_line = edit.line <= old.line < edit.line + max(edit.span, 1)
    return int(on_its_line and new.message == old.message and new.line > old.line)


def _repeat_first(edits: Iterable[Edit], node: _Node) -> Iterable[Edit]:
    """After a partial repair, the same kind of edit first: a mistake made once is
    often made again a few lines on (``=`` for ``:`` in every dict entry)."""
    if not node.edits:
        return edits
    kind = _kind(node.edits[-1])
    edits = list(edits)
    return [e for e in edits if _kind(e) == kind] + [e for e in edits if _kind(e) != kind]


def _key(edit: Edit) -> tuple:
    """What an edit changes, which decides what a judge says after it. (Not ``id()``: an
    edit the search let go may leave its id to a new one, with a verdict not its own.)"""
    return edit.line, edit.span, tuple(edit.new_lines)


def _kind(edit: Edit) -> str:
    return edit.description.split(": ", 1)[-1]


class _CompileVerdicts:
    """The search's verdicts on the edits of one node where the language's own judge runs
    in process and reports one error at a time (``LanguageSpec.one_error_at_a_time``:
    CPython), each from a compile of a window around the error: an edit
    helps when the file then compiles, or when the first error moved past both the
    edit and the old error. Whole files are confirmed by the ``Verifier``'s rules."""

    cost = 1  # budget units of one window compile

    def __init__(self, node: _Node, language: str) -> None:
        self.node, self.language = node, language
        first = node.problems[0]
        record = spec(language)
        begins = reported_line(first, record is not None and record.judge_names_where_errors_begin)
        self.verifier = Verifier(language)
        self.lines = node.lines
        # Where it begins: past that, a new first error is progress.
        reported = (first.line, first.column)
        self.first = FirstError(reported, reported if begins == first.line else (begins, WHOLE_LINE), first.message)
        # The window holds the error's own statement; an error that goes back to a line
        # above it (a bracket's mismatch, a closer whose opener was lost), or a
        # triple-quoted string left open (its closer lost anywhere below), is judged on
        # the whole file.
        goes_back = begins != first.line or first.message.startswith("SyntaxError: unmatched ") \
            or runs_on(first.message)
        self.window = _window(node.lines, first, language) \
            if len(node.lines) > WINDOW_FROM and not goes_back else None
        # Fixes judged on the window alone, and whether the file around the window has
        # compiled with one of them: then it does with any other (see ``confirm``).
        self.fixed_in_window: set[tuple] = set()
        self.rest_compiles = False
        self.next_error: dict[tuple, int] = {}  # _key(edit) -> the line of the first error after it
        self.errors_above: dict[int, tuple[int, int, str] | None] = {}  # CPython's error above a line

    def cleared_line(self, edit: Edit) -> bool:
        """After ``edit`` (judged PROGRESS), CPython's first error lies past its lines."""
        return self.next_error.get(_key(edit), 0) > edit.last_written

    def verdict(self, edit: Edit) -> str | None:
        lines = self.node.lines
        if self.window is None:
            start, end, indent = 1, len(lines), ""
        else:
            start, end, indent = self.window
            if not (start <= edit.line and edit.line + edit.span - 1 <= end):
                return None
        edited = lines[start - 1:edit.line - 1] + edit.new_lines + lines[edit.line - 1 + edit.span:end]
        if indent:
            edited = [line[len(indent):] if line.startswith(indent) else line for line in edited]
        text = "\n".join(edited) + "\n"
        error = _compile_error(text, self.language)
        if error is None:
            if self.window is not None and all(not line.strip() or line.startswith(indent)
                                               for line in edit.new_lines):
                self.fixed_in_window.add(_key(edit))
            return FIXED
        self.next_error[_key(edit)] = error[0] + start - 1
        return PROGRESS if self.verifier.first_error_progress(self.first, (error[0] + start - 1, error[1]), error[2],
                                                              edit, self) else None

    def there_before(self, line: int, message: str, edit_line: int) -> bool:
        """The original's lines above ``edit_line`` alone report this error on ``line``."""
        if self.window is not None and line < self.window[0]:
            # Above the window (a bracket left open lines before it): the file's lines
            # above the window, compiled once for the node.
            edit_line = self.window[0]
        if edit_line not in self.errors_above:
            self.errors_above[edit_line] = self.error_above(self.node.lines, edit_line)
        prefix = self.errors_above[edit_line]
        return prefix is not None and prefix[0] == line and prefix[2] == message

    def error_above(self, lines: list[str], upto: int) -> tuple[int, int, str] | None:
        """CPython's first error in the lines above ``upto`` of ``lines`` (the file or an
        edited copy), in file coordinates; only those in the window, when there is one,
        so the cost does not grow with the file."""
        first, last, indent = 1, upto - 1, ""
        if self.window is not None and self.window[0] < upto:
            first, end, indent = self.window
            last = min(last, end + len(lines) - len(self.node.lines))
        part = [line[len(indent):] if line.startswith(indent) else line for line in lines[first - 1:last]]
        error = _compile_error("\n".join(part) + "\n", self.language)
        return None if error is None else (error[0] + first - 1, error[1], error[2])

    def confirm(self, text: str, edit: Edit) -> tuple[Problem, ...] | None:
        """The problems of the whole edited file. The window is complete statements at
        one indentation, so once the file compiled around one fix of it, another fix
        that compiles as the window needs no whole-file compile (the cost on a long
        file); the fast path still compiles the fix it picks."""
        within = _key(edit) in self.fixed_in_window
        if within and self.rest_compiles:
            return ()
        error = _compile_error(text, self.language)
        if error is None:
            self.rest_compiles = self.rest_compiles or within
            return ()
        if not self.verifier.first_error_progress(self.first, error[:2], error[2], edit, self):
            return None
        # The first error is enough to go on from; the rest is counted for the few returned.
        return (Problem(error[0], error[1], error[0], error[1], error[2], kind="compiler", source="python"),)


class _ReparseVerdicts:
    """The search's verdicts on the edits of one node, each from an incremental re-parse
    of its tree, then from the language's own judge where there is one. Every
    tree-sitter problem is visible at once: an edit helps when problems get fewer and
    none appears that was not there (``Verifier.progress``)."""

    def __init__(self, node: _Node, language: str, judge_limit: int = 0, budget: _Budget | None = None) -> None:
        self.node, self.language, self.judge_limit, self.budget = node, language, judge_limit, budget
        self.verifier = Verifier(language)
        self.parser = get_parser(language)
        self.data = node.text.encode("utf-8", "surrogatepass")
        self.tree = self._parse(self.data)
        # What a run of a judge that reads the text in this process (PyYAML, tomllib)
        # costs the search: about a whole parse's work. A native judge's runs are
        # counted apart (``judge_limit``).
        self.run_cost = self.cost if registry.in_process(language) else 0
        self.starts = [0]
        for line in node.lines:
            self.starts.append(self.starts[-1] + len(line.encode("utf-8", "surrogatepass")) + 1)
        self.before = {(p.line, p.message) for p in node.problems}
        self.seen: dict[tuple, tuple[Problem, ...]] = {}  # _key(edit) -> problems after it
        # _key(edit) -> the lines between the edit and the next error far below read as
        # far fewer nodes than before (``verdict``)
        self.swallowed_below: dict[tuple, bool] = {}
        # With a native judge (gcc, node, bash -n...), tree-sitter only filters: an edit
        # that adds a problem tree-sitter sees is dropped, the rest go to the judge.
        self.native = native_judge(language, node.text)
        self.judged_problems: dict[tuple, tuple[Problem, ...]] = {}  # _key(edit) -> the judge's problems
        # _key(edit) of the edits after which the compiler did not know the file's types
        # (its check's note): its syntax messages counted only where tree-sitter agreed.
        self.types_unknown: set[tuple] = set()
        self.shadowed: tuple[Problem, ...] = ()  # tree-sitter's, left out of the check where the judge speaks
        # The compiler's messages set aside because the file's types are unknown: once an
        # edit lets it know them (a header's name repaired), they are no new problems.
        self.set_aside: tuple[Problem, ...] = ()
        self.stopped_at: int | None = None  # where the judge stopped reading (``judge_stopped_at``)
        self.blind = False  # tree-sitter sees nothing where the judge reports its error
        self.blind_at: int | None = None  # that error's line, when it does not
        self.blocks_open: int | None = None  # ``_fewer_blocks_open``: blocks the text leaves open, once counted
        self.accepted: frozenset[str] = frozenset()  # tree-sitter's objections to lines the judge accepts
        self.tree_spans: list[tuple[int, int]] = []
        if self.native:
            seen = tree_problems(self.tree, self.data)
            self.tree_before = {(p.line, p.message) for p in seen}
            # Errors over several lines: what tree-sitter finds inside one once it is
            # gone was hidden by it, not added by the edit (macros it cannot expand
            # under an ``#ifdef`` that lost its ``#endif``).
            self.tree_spans = [(p.line, p.end_line) for p in seen if p.end_line > p.line]
            self.shadowed = tuple(p for p in seen if p not in node.problems)
            said = judges.verdict(node.text, language)
            if said is not None and said.note:
                self.set_aside = tuple(Problem(d.line, d.column, d.line, d.column, d.message, kind="compiler")
                                       for d in said.diagnostics if not d.syntax)
            first = next((p for p in node.problems if p.source != TREE_SITTER), None)
            self.stopped_at = judge_stopped_at(node.problems)
            self.blind = first is not None and not any(
                p.line - REGION <= first.line <= p.end_line + REGION for p in seen)
            self.blind_at = first.line if first is not None and self.blind else None
            # What tree-sitter objects to on lines near the judge's error that the judge
            # accepts, when it does on several: what its grammar cannot read there.
            judged = {p.line for p in node.problems if p.source != TREE_SITTER}
            near_error = [p for p in self.shadowed if first is not None and p.line not in judged
                          and abs(p.line - first.line) <= REGION]
            if len({p.line for p in near_error}) >= NOISY_LINES:
                self.accepted = frozenset(shape(p.message) for p in near_error)
        # Where tree-sitter alone judges, what the language allows and its grammar does
        # not (``grammar_gaps``: CSS's unquoted ``url()``, an HTML template's ``{{ }}``)
        # is blanked for the check: each edited text is blanked and parsed likewise, or
        # every edit would seem to add what the check never reported.
        self.gaps = not self.native and grammar_gaps.blanked(node.text, language) != node.text
        self.unjudged: list[tuple[int, Edit, list[str]]] = []  # (rank, edit, lines) the judge's runs ran out for
        self.cost = 1  # budget units of the last re-parse (``_parse``)
        # Edits tree-sitter did not pass to the judge that it may be wrong about, for
        # the judge's spare runs (``second_looks``).
        self.second_chances: list[tuple[int, Edit]] = []

    def verdict(self, edit: Edit) -> str | None:
        begin = self.starts[edit.line - 1]
        end_index = edit.line - 1 + edit.span
        old_end = min(self.starts[end_index], len(self.data)) if end_index < len(self.starts) else len(self.data)
        new = "\n".join(edit.new_lines).encode("utf-8", "surrogatepass")
        if end_index < len(self.node.lines) or self.node.trailing_newline:
            new += b"\n"
        data = self.data[:begin] + new + self.data[old_end:]
        tree = self.tree.copy()
        tree.edit(start_byte=begin, old_end_byte=old_end, new_end_byte=begin + len(new),
                  start_point=(edit.line - 1, 0), old_end_point=(end_index, 0),
                  new_end_point=(edit.line - 1 + len(edit.new_lines), 0))
        if self.gaps:
            data = grammar_gaps.blanked(data.decode("utf-8", "surrogatepass"), self.language).encode(
                "utf-8", "surrogatepass")
            after = self._parse(data)
        else:
            after = self._parse(data, tree)
        problems = self.seen[_key(edit)] = tuple(tree_problems(after, data))
        if self.verifier.swallowed(self.tree, after, len(new) - (old_end - begin), edit) \
                or self.verifier.misreads(self.tree, after, edit):
            return None
        last = edit.last_written
        if self.native:
            if edit.direct:
                return FIXED
            screened = self.verifier.tree_sitter_screen(self.node.lines, self.tree_before, self.tree_spans, problems,
                                                        edit, self.blind, self.accepted, self.stopped_at)
            # No edit that began a token over code (a ``/`` typed before a string, a regular
            # expression to the next ``/`` twenty lines down) goes to the judge: its error
            # would move there only because the code between is now the token's text.
            if screened is not None and self.verifier.token_over_code(self.tree, after, edit.line - 1, last - 1,
                                                                      edit.shift):
                return None
            return screened
        if self.verifier.token_over_code(self.tree, after, edit.line - 1, last - 1, edit.shift):
            return None
        if not problems:
            return FIXED
        first_left = min(p.line for p in problems)
        if first_left > last + REGION:
            # What now reads as correct down to the next error must read as it did
            # before, not as one string or comment the edit began (a ``::`` made ``.``
            # before a backquote, which then opens a shell command over fifty lines).
            shift = edit.shift
            self.swallowed_below[_key(edit)] = nodes_starting(after, last, first_left - 2) < SWALLOWED * \
                nodes_starting(self.tree, last - shift, first_left - 2 - shift)
        return PROGRESS if self._helps(list(problems), edit) else None

    def _parse(self, data: bytes, old: tree_sitter.Tree | None = None) -> tree_sitter.Tree:
        """The tree of ``data`` (re-parsed from ``old``), its cost kept in ``cost``: the
        parser's own count of its work, in hundreds of operations. Not the text's size:
        tree-sitter's recovery from errors may take twenty times the work of reading the
        same text well, and a broken file's re-parses are where the budget goes."""
        operations = 0

        def progress(_state: object, *_: object) -> bool:
            nonlocal operations
            operations += 1
            return False  # never stop the parse

        def read(byte: int, _point: object) -> bytes:
            return data[byte:byte + READ_CHUNK]

        tree = self.parser.parse(read, progress_callback=progress) if old is None \
            else self.parser.parse(read, old, progress_callback=progress)
        self.cost = 1 + operations // OPERATIONS_PER_UNIT
        return tree

    def _helps(self, problems: list[Problem], edit: Edit) -> bool:
        unread = next((span for span in strings_over_lines(self.node.text, self.language)
                       if span[0] == edit.line and edit.span == 1), None)
        return self.verifier.progress(self.node.problems, problems, self.node.lines, edit, self.shadowed,
                                      set_aside=self.set_aside, unread=unread,
                                      swallowed_below=self.swallowed_below.get(_key(edit), False))

    def judged(self, edit: Edit, lines: list[str], rank: int = 0) -> str | None:
        """The native judge's verdict on the edited file: FIXED, PROGRESS or None (also
        when its runs for this search are spent: the edit is then kept in ``unjudged``;
        and when its rule's own allowance of runs is, ``rules.judge_runs``)."""
        if judges.calls() >= self.judge_limit:
            self.unjudged.append((rank, edit, lines))
            return None
        allowance = judge_runs(edit.rule) if self.budget is not None else None
        if allowance is not None and self.budget.runs_taken[edit.rule] >= allowance:
            return None
        edited = lines[:edit.line - 1] + edit.new_lines + lines[edit.line - 1 + edit.span:]
        text = "\n".join(edited) + ("\n" if self.node.trailing_newline else "")
        calls = judges.calls()
        problems = self.confirm(text, edit)
        if allowance is not None and judges.calls() > calls:
            self.budget.runs_taken[edit.rule] += 1
        if problems is None:
            return None
        self.judged_problems[_key(edit)] = problems
        return PROGRESS if problems else FIXED

    def allow_runs(self, runs: int) -> None:
        """At least ``runs`` more runs of the judge for this search."""
        self.judge_limit = max(self.judge_limit, judges.calls() + runs * registry.run_cost(self.language))

    def found_complete(self) -> None:
        """A complete fix the judge passed is kept: a few more runs to find alternatives,
        no more. (Not before it is kept: a fix that hides code leaves the search the
        runs it had.)"""
        self.judge_limit = min(self.judge_limit, judges.calls() + JUDGE_ALTERNATIVES)

    def unconfirmed(self, problems: tuple[Problem, ...], edit: Edit) -> bool:
        """``Verifier.unconfirmed``, where the language has its own judge."""
        return self.native and self.verifier.unconfirmed(self.node.problems, problems, edit, self.node.lines)

    def favourites(self, budget: _Budget) -> list[tuple[int, Edit, str | None]]:
        """(rank, edit, verdict) for the edits the judge's runs ran out for that leave
        tree-sitter the fewest problems, fewer than before: each gets a run beyond the
        judge's budget, as long as the search's ``budget.favourites`` lasts."""
        best = sorted((r for r in self.unjudged if len(self.seen[_key(r[1])]) < len(self.tree_before)),
                      key=lambda r: (len(self.seen[_key(r[1])]), r[0]))[:max(budget.favourites, 0)]
        self.unjudged = []
        verdicts = []
        for rank, edit, lines in best:
            budget.favourites -= 1
            self.judge_limit = judges.calls() + 1
            verdicts.append((rank, edit, self.judged(edit, lines, rank)))
        return verdicts

    def note_progress(self, rank: int, edit: Edit) -> None:
        """Keep ``edit`` (judged PROGRESS by tree-sitter, past the partial repairs kept)
        for a second look when tree-sitter saw an error on its lines before it and none
        after: its recovery may put a new one just below (a ``#ifdef`` inside an
        initialiser), so only the judge can tell; and where tree-sitter sees nothing near
        the judge's error (``blind``), when the edit is near it (``ten`` for ``then``,
        three lines above the ``fi`` the judge stops at)."""
        if not self.native:
            return
        last = edit.last_written
        before = any(edit.line <= line <= edit.line + max(edit.span, 1) - 1 for line, _ in self.tree_before)
        unseen = self.blind_at is not None and near(self.blind_at, edit.line, last)
        if (before or unseen) and not any(edit.line <= p.line <= last for p in self.seen[_key(edit)]):
            self._second_chance(rank, edit)

    def clears_its_place(self, edit: Edit, judged: bool) -> bool:
        """After ``edit`` (judged PROGRESS), the problems left all lie outside its region
        (``_clears_its_place``), as the language's own judge confirms where there is one."""
        if self.native and not judged:
            return False
        problems = self.judged_problems.get(_key(edit)) if self.native else self.seen.get(_key(edit))
        if problems is None or self.unconfirmed(problems, edit):
            return False
        return self.verifier.clears_its_place(self.node.lines, self.node.problems, (edit,),
                                              edit.applied(self.node.lines), problems)

    def note_rejected(self, rank: int, edit: Edit) -> None:
        """Keep ``edit`` (rejected by tree-sitter) for a second look when it is among
        the likeliest proposals: where the file's macros and directives confuse
        tree-sitter (an ``#endif`` put back uncovers code it cannot parse), the judge
        may still accept it."""
        if self.native and rank < FIRST_PROPOSALS and (self.verifier.indentation_is_syntax
                                                       or not only_indentation(self.node.lines, edit)):
            self._second_chance(rank, edit)

    def _second_chance(self, rank: int, edit: Edit) -> None:
        if len(self.second_chances) < MAX_SECOND_LOOKS:
            self.second_chances.append((rank, edit))

    def second_looks(self, budget: _Budget) -> list[tuple[int, Edit, str | None]]:
        """(rank, edit, verdict) for the ``second_chances``, likeliest first, while the
        judge's runs for this search last (a search that found nothing has most left)."""
        verdicts = []
        for rank, edit in sorted(self.second_chances, key=lambda r: r[0]):
            if budget.spent() or judges.calls() >= self.judge_limit:
                break
            budget.take()
            verdicts.append((rank, edit, self.judged(edit, self.node.lines, rank)))
        self.second_chances = []
        return verdicts

    def _fewer_blocks_open(self, text: str, problems: tuple[Problem, ...], edit: Edit) -> bool:
        """``edit`` puts right a block's word, and fewer blocks are left open at the file's
        end than before (``Verifier.closes_a_block``, ``Verifier.open_blocks``): each
        count a few runs of the judge, counted against this search's."""
        if not self.verifier.closes_a_block(self.node.lines, self.node.problems, problems, edit):
            return False
        if self.blocks_open is None:
            self.blocks_open = self.verifier.open_blocks(self.node.text)
        return self.verifier.open_blocks(text) < self.blocks_open

    def confirm(self, text: str, edit: Edit) -> tuple[Problem, ...] | None:
        if _key(edit) in self.judged_problems:
            return self.judged_problems[_key(edit)]
        if self.native and judges.calls() >= self.judge_limit:
            return None  # the judge's budget for this search is spent
        if self.native or _own_judge(self.language) or _key(edit) not in self.seen:
            result = check(text, self.language)
            problems = result.problems
            if result.note:
                self.types_unknown.add(_key(edit))
                why = self.verifier.unverified(self.node.text, text, result) if not problems else ""
                if why:  # clean only by the parser, and the output would be refused for it
                    if self.budget is not None and self.budget.account is not None:
                        self.budget.account.refused = why
                    return None
            if self.budget is not None:
                self.budget.take(self.run_cost)
        else:  # the incremental re-parse already saw the whole file
            problems = self.seen[_key(edit)]
        if problems and not self._helps(list(problems), edit):
            if not self.native or judges.calls() >= self.judge_limit:
                return None
            if self.budget is not None:
                self.budget.take(self.run_cost)
            if not (self.verifier.surfaced_apart(self.node.lines, self.node.problems, text, problems, edit)
                    or self._fewer_blocks_open(text, problems, edit)):
                return None
        if problems and self.verifier.string_to_the_end(self.node.lines, self.node.problems, problems, edit):
            return None  # the quote typed or deleted opened a string that runs on to the end
        return problems


# Two places that only together make progress: a bracket duplicated in one and lost in
# another (each repair alone moves the imbalance to the other place, and tree-sitter
# sees new errors there), a block closed twice and opened once.
PAIR_EDITS = 4  # edits that clear their own place, kept per place
PAIR_WORK = 300  # tree-sitter re-parses spent finding them, per place
PAIR_JUDGE_CALLS = 16  # pairs checked whole (a native judge run each)
PAIRS = 3  # verified pairs returned, for the model to rank


def paired_fixes(source: str, language: str, result: CheckResult, reach: int) -> list[Candidate]:
    """Pairs of edits, one at each of the first two problems farther apart than
    ``reach`` lines, each clearing its own place (by tree-sitter, though it may add
    problems elsewhere), that together leave fewer problems and no new one. Tried
    likeliest first, within PAIR_JUDGE_CALLS whole-file checks. Not for Python: CPython
    reports one error at a time, and the loop's single steps see the next as it surfaces."""
    if _one_error_at_a_time(language) or len(result.problems) < 2:
        return []
    lines = source_lines(source)
    node = _Node(lines, source.endswith("\n"), result.problems, (), 0)
    first = result.problems[0]
    other = next((p for p in result.problems[1:] if abs(p.line - first.line) > 2 * reach), None)
    if other is None:
        return []
    verdicts = _ReparseVerdicts(node, language)
    verifier = Verifier(language, reach)
    places = [_clearing_edits(node, verdicts, verifier, problem, language) for problem in (first, other)]
    found: dict[str, Candidate] = {}
    tried = 0
    for a in places[0]:
        for b in places[1]:
            if not (a.line + max(a.span, 1) <= b.line or b.line + max(b.span, 1) <= a.line):
                continue  # overlapping: not two places
            if tried >= PAIR_JUDGE_CALLS or len(found) >= PAIRS or expired():
                return list(found.values())
            tried += 1
            later, earlier = (a, b) if a.line > b.line else (b, a)
            edited = earlier.applied(later.applied(lines))
            text = "\n".join(edited) + ("\n" if node.trailing_newline else "")
            after = check(text, language)
            if text not in found and verifier.pair_accepted(source, result, text, after, (first, other)):
                start, end_before, end_after = differing_span(lines, edited)
                change = Edit(start + 1, end_before - start, edited[start:end_after],
                              f"{earlier.description}; {later.description}",
                              max(token_distance(source, text, language, cap=20), 2), rule=PAIRED_FIX)
                found[text] = Candidate(change, len(after.problems), text)
    return list(found.values())


def _clearing_edits(node: _Node, verdicts: _ReparseVerdicts, verifier: Verifier, problem: Problem,
                    language: str) -> list[Edit]:
    """The likeliest few single edits after which tree-sitter sees no problem within
    the region of the edit and of ``problem`` (``Verifier.place_cleared``)."""
    found: list[Edit] = []
    for rank, edit in enumerate(proposals(node.lines, (problem,), language)):
        if rank >= PAIR_WORK or len(found) >= PAIR_EDITS or expired():
            break
        if edit.whole_repair_only or edit.unfounded \
                or edit.new_lines == node.lines[edit.line - 1:edit.line - 1 + edit.span] \
                or verifier.opens_strings(node.lines, edit):
            continue
        verdicts.verdict(edit)
        if verifier.place_cleared(verdicts.seen[_key(edit)], edit, problem):
            found.append(edit)
    return found


def native_judge(language: str, source: str) -> bool:
    """True when a judge other than tree-sitter decides ``language`` here (not Python,
    whose own judge is built into the search)."""
    return not _one_error_at_a_time(language) and judge_name(language, source) is not None


def _compile_error(text: str, language: str) -> tuple[int, int, str] | None:
    """(line, column, message) of the first error of the language's own in-process judge
    (its record's ``own_judge``: CPython's ``compile()`` for Python), or None when it
    accepts ``text``."""
    own_judge = spec(language).own_judge
    try:
        error = own_judge(text)
    except NoVerdict:  # too deep or too large for the judge: not a verdict either way
        return (1, 0, "RecursionError")
    return None if error is None else (error.line, error.column, error.message)


def _window(lines: list[str], problem: Problem, language: str) -> tuple[int, int, str] | None:
    """Lines ``start..end`` around the error that show the same error when compiled
    alone (after removing ``indent``); None when no such window is found."""
    line = min(max(problem.line, 1), len(lines))
    # Only the lines the window can reach are measured: the cost must not grow with the file.
    low, high = max(1, line - _WINDOW_ABOVE), min(len(lines), line + _WINDOW_BELOW)
    indent_of = {n - 1: len(lines[n - 1]) - len(lines[n - 1].lstrip()) if lines[n - 1].strip() else None
                 for n in range(low, high + 1)}
    # Start where the enclosing code is least indented: a statement boundary.
    start, best = line, indent_of[line - 1] if indent_of[line - 1] is not None else 10**6
    previous = next((indent_of[n - 1] for n in range(line - 1, low - 1, -1) if indent_of[n - 1] is not None), None)
    if previous is not None and previous > best:
        # The error's line is less indented than the one before: it may have been
        # knocked out of that block, so the window must hold the block too.
        best = previous + 1
    for n in range(line - 1, max(0, line - _WINDOW_ABOVE), -1):
        if indent_of[n - 1] is not None and indent_of[n - 1] < best:
            start, best = n, indent_of[n - 1]
    if best == 10**6:
        return None
    end = len(lines)
    for n in range(line + 3, min(len(lines), line + _WINDOW_BELOW) + 1):
        if indent_of[n - 1] is not None and indent_of[n - 1] <= best:
            end = n - 1
            break
    else:
        if line + _WINDOW_BELOW < len(lines):
            return None
    indent = lines[start - 1][:best]
    window = lines[start - 1:end]
    if any(w.strip() and not w.startswith(indent) for w in window):
        return None
    error = _compile_error("\n".join(w[len(indent):] for w in window) + "\n", language)
    if error is None or error[0] + start - 1 != problem.line:
        return None
    return start, end, indent


def _candidates(source: str, language: str, nodes: list[_Node], limit: int) -> list[Candidate]:
    out: dict[tuple[str, ...], Candidate] = {}
    original = source_lines(source)
    spacing = habits(source, language)[0]
    contexts = contexts_of("\n".join(original), language)
    offbeat: dict[tuple[str, ...], int] = {}  # blanks against the file's habit, of the candidate kept
    record = spec(language)
    layout = "\n" if record is not None and record.indentation_is_syntax else None
    marker = comment_prefix(language)

    def kept(text: str) -> tuple[str, ...]:
        tokens = tuple(t for t in code_tokens(text, "other") if t.strip() or t[:1] == layout)
        if not marker:
            return tokens
        # A line break ends a line comment: text moved out of one or into one is code
        # gained or lost, not spacing.
        return tokens + tuple(line[line.index(marker):].strip() for line in text.split("\n") if marker in line)
    for node in nodes:
        text = node.text
        if text == source:
            continue
        start, end_before, end_after = differing_span(original, node.lines)
        # Edits that differ only in spacing or line breaks are one candidate: the one
        # spaced as the file spaces its marks, else the likelier. (Where indentation is
        # syntax, lines indented differently are different code.)
        if len(original) <= _DEDUPE_WHOLE:
            key: tuple[str, ...] = kept(text)
        else:
            key = (str(start),) + kept("\n".join(node.lines[max(0, start - 1):end_after + 1]))
        unusual = spacing.offbeat(node.lines[start:end_after], language)
        if key in out and (out[key].source_after == text or unusual >= offbeat[key]):
            continue
        if key not in out and len(out) >= limit * 2:
            break
        size = token_distance("\n".join(original[start:end_before]),
                              "\n".join(node.lines[start:end_after]), language, cap=50)
        change = Edit(start + 1, end_before - start, node.lines[start:end_after],
                      "; ".join(e.description for e in node.edits), max(size, 1),
                      rule=combined(e.rule for e in node.edits))
        unfamiliar = contexts.unseen(node.lines) if contexts.enough else None
        out[key], offbeat[key] = Candidate(change, _count(node, text, language), text, unfamiliar,
                                           node.types_unknown, node.reach), unusual
    return list(out.values())[:limit]


def _count(node: _Node, text: str, language: str) -> int:
    if node.fixed or not _one_error_at_a_time(language):
        return standing(node.problems)
    return max(1, len(check(text, language).problems))  # nodes carry CPython's first error only
