"""``repair(source)``: the repair loop for one text.

check -> clean: done, no model loaded. Otherwise the loop observes the problems, acts
on the next one with one of its tools (a complete verified candidate edit, ranked by
the model when there are several; the model's rewrite of the problem's window; a
verified edit that only makes progress) and keeps the step when that problem went and
none came; where no tool finds a next step, the kept steps are taken back and another
first step is tried (``run_loop``). What the loop cannot repair goes to the ReAct
agent, working on the partly repaired copy. The result is returned as fixed only when
the checker finds no problem and every change is small and near a problem found at
the start.

Every step works within one deadline per file (``tinycode.deadline``), a safety bound:
the work itself is budgeted in checks, steps and tokens, so a busy machine gives the
same answer as an idle one. A failure of the model while repairing this file (a
server error, a context overflow, the deadline) ends this file as failed with the
reason; only a model that cannot be loaded at all (``ModelUnavailable``) is raised,
since every other file would fail the same way.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import Callable

from .. import judges
from ..check import CheckResult, Problem, check, source_lines
from ..config import Settings
from ..deadline import DeadlineExceeded, expired, until
from ..errors import ModelError, ModelUnavailable
from ..languages import read_as, spec
from ..llm.base import LLM, ScoringUnsupported
from ..llm.loader import LazyLLM, model_options
from .agent import WorkingCopy, run_agent
from .agent.loop import OPEN, Style, style_for
from .candidates import WORK_BUDGET, Candidate, WorkAccount, paired_fixes
from .rank import RankingSeen, rank
from .edits import Edit, apply_hunks, changed_hunks, kept_ends, without_left_blanks
from .fastpath import try_fast_repair
from .verifier import TREE_SITTER, Verifier, near, too_wide
from .rewrite import rewrite_window
from .rules import AGENT_EDIT, MODEL_REWRITE, PAIRED_FIX, is_on
from .trace import Step

# Kept steps of the repair loop before what remains goes to the agent.
MAX_LOOP_STEPS = 12
# Times one repair may take its kept steps back when no tool finds a next step: with
# several mistakes in a file, a step that made progress on one may be the wrong repair
# of it, and only a later mistake shows that (a docstring's opener made an empty string
# where its closer lost a quote eight lines below).
MAX_TAKEN_BACK = 3
# Work units (``candidates.WORK_BUDGET`` is one search's) one repair may spend, its
# searches and the language's own judge's runs together (``candidates.WorkAccount``):
# a file whose mistakes no search repairs stops there, whatever the load, after about
# 8-15 s on a 2-core machine (41 three-error files of 15 languages).
FILE_WORK = 5 * WORK_BUDGET
# Rewrites one file may spend that are not kept: each is seconds of generation (the
# window retyped); once the model's answer did not help, the file's time goes to the
# searches of its other problems instead.
MAX_FAILED_REWRITES = 1
# The kind of step that takes a kept step back (``run_loop``).
TAKE_BACK = "take_back"
_EDIT_LINE = re.compile(r"(?:^|; )line (\d+):")

OnStep = Callable[[Step], None]


@dataclass
class RepairResult:
    source: str
    status: str  # "fixed" | "clean" | "failed"
    language: str
    reason: str = ""
    problems_before: list[Problem] = field(default_factory=list)
    problems_after: list[Problem] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    fast_path: bool = False
    # Whose verdict the output passed: the language's own judge ("gcc -fsyntax-only",
    # "javac parser", "python"), or "tree-sitter" where none is installed; "" if not checked.
    verified_by: str = ""
    work: int = 0  # work units its searches and the judge's runs spent (``FILE_WORK``)
    judge_work: int = 0  # the language's own judge's runs, weighted by its ``judge_cost``
    # How candidates were ranked ("" if none was): ``rank.RankingSeen``.
    ranked_by: str = ""

    @property
    def rules(self) -> list[str]:
        """The ids of the rules whose changes the steps kept (and did not take back), each
        once, in order."""
        taken_back = {n for step in self.steps if step.kind == TAKE_BACK for n in step.input["steps"]}
        return list(dict.fromkeys(r for step in self.steps if step.number not in taken_back
                                  for r in step.rule.split("+") if r))


@dataclass
class RepairState:
    """What every step of one repair reads and updates: the original and its problems,
    the working copy and its check, the lazy model, the settings and the counters."""

    original: str
    language: str
    original_result: CheckResult
    settings: Settings
    llm: LLM  # loaded on first use
    result: RepairResult
    on_step: OnStep | None
    working: str = ""
    current: CheckResult | None = None
    edited_lines: list[int] = field(default_factory=list)  # one entry per candidate edit kept
    searched: dict[tuple, list] = field(default_factory=dict)  # candidate searches by text and problem
    rewrites_failed: int = 0  # the model's rewrites that were not kept
    not_verified: str = ""  # why the last complete fix refused as unverified was (``unverified``)
    account: WorkAccount = field(default_factory=lambda: WorkAccount(FILE_WORK))  # all its searches' work
    taken_back: set[str] = field(default_factory=set)  # texts of kept steps taken back: never kept again

    @property
    def verifier(self) -> Verifier:
        return Verifier(self.language, self.settings.max_problem_distance)

    @classmethod
    def start(cls, source: str, language: str, before: CheckResult, settings: Settings, llm: LLM,
              on_step: OnStep | None = None) -> "RepairState":
        """The state of a repair that has not made a step yet."""
        result = RepairResult(source, "failed", language, problems_before=list(before.problems))
        return cls(source, language, before, settings, llm, result, on_step, source, before)

    def record(self, step: Step) -> None:
        if self.on_step:
            self.on_step(step)
        self.result.steps.append(step)

    def next_number(self) -> int:
        return len(self.result.steps) + 1

    def too_large(self, after_source: str) -> str:
        """Why the change from the original to ``after_source`` is not a repair (the
        minimal-edit and locality guard with the settings' limits; code hidden in a
        comment or string), or ''."""
        return self.verifier.refused(self.original, self.original_result.problems, after_source, self.settings)

    def refused(self, after_source: str) -> bool:
        """``after_source`` is no step to keep: a step taken back led to it, or the guard
        refuses it (``too_large``)."""
        return after_source in self.taken_back or bool(self.too_large(after_source))

    def unverified(self, after_source: str) -> str:
        """Why a clean ``after_source`` that the guard lets pass (``too_large``) would still
        not be written (``Verifier.unverified``), or '': a step that ends the repair is one
        whose result the final verdict keeps."""
        if not self.verifier.types_may_be_unknown:
            return ""
        after = check(after_source, self.language)
        why = self.verifier.unverified(self.original, after_source, after) if after.ok else ""
        self.not_verified = why or self.not_verified
        return why

    def count_model(self, prompt_tokens: int, completion_tokens: int = 0) -> None:
        self.result.model_calls += 1
        self.result.prompt_tokens += prompt_tokens
        self.result.completion_tokens += completion_tokens


# A tool of the loop: act on the working copy's next problem; the new text and its
# check when the step is kept, else None.
LoopTool = Callable[[RepairState], "tuple[str, CheckResult] | None"]


def repair(source: str, language: str | None = None, *, llm: LLM | None = None,
           settings: Settings | None = None, on_step: OnStep | None = None) -> RepairResult:
    """Repair ``source`` (``language`` defaults to Python) within ``settings`` (model,
    steps, timeout, guard limits...). ``llm`` is used as given; otherwise the settings'
    model is loaded, only if a model is needed."""
    settings = settings or Settings()
    language = read_as(source, language or "python")
    started = time.monotonic()
    # One deadline for the whole file: the judges' runs on the original and on the
    # result too, not only the loop.
    with until(started + settings.timeout):
        try:
            # A native judge's non-syntax messages about the original (a missing header)
            # may stay; every check during this repair reports any new one as a problem.
            # Its judge work is counted apart, so its budgets spend the same however
            # much this process judged before.
            with judges.account(), judges.baseline(source, language):
                return _repair(source, language, llm, settings, on_step, started)
        except DeadlineExceeded as exc:  # before the loop began, or in the final verdict
            return RepairResult(source, "failed", language, reason=str(exc),
                                seconds=time.monotonic() - started)


def _repair(source: str, language: str, llm: LLM | None, settings: Settings,
            on_step: OnStep | None, started: float) -> RepairResult:
    before = check(source, language)
    if before.ok:
        return RepairResult(source, "clean", language, seconds=time.monotonic() - started,
                            verified_by=before.judge)
    if before.judge == "tinycode":  # conflict markers or a chat answer: not for a repair to decide
        return RepairResult(source, "failed", language, reason=before.problems[0].message,
                            problems_before=list(before.problems), problems_after=list(before.problems),
                            seconds=time.monotonic() - started)
    seen = RankingSeen(llm if llm is not None else LazyLLM(**model_options(settings)))
    state = RepairState.start(source, language, before, settings, seen, on_step)
    result = state.result
    try:
        final_source = state.working if run_loop(state) else _agent_or_stop(state)
    except ModelUnavailable:
        raise
    except (ModelError, DeadlineExceeded) as exc:
        result.reason = str(exc) if isinstance(exc, DeadlineExceeded) else f"model error: {exc}"
        final_source = source
    result.ranked_by = seen.ranked_by
    result.seconds = time.monotonic() - started
    result.work = state.account.spent
    result.judge_work = judges.calls()
    # Nothing kept: the original's own check is the verdict (no judge run past the deadline).
    after = before if final_source == source else check(final_source, language)
    if after.ok:
        final_source, after = _tidied(source, final_source, after, language)
        final_source, after = _needed_only(source, final_source, after, language,
                                           lambda text: not state.too_large(text))
    result.problems_after = list(after.problems)
    if not after.ok:
        result.reason = result.reason or "problems remain"
        return result
    refused = state.verifier.output_refused(source, final_source, after)
    if refused:
        result.reason = refused
        return result
    too_large = state.too_large(final_source)
    if too_large:
        result.reason = f"edit too large ({too_large})"
        return result
    result.source, result.status, result.reason = final_source, "fixed", ""
    result.verified_by = after.judge
    return result


def _tidied(source: str, final_source: str, after: CheckResult, language: str) -> tuple[str, CheckResult]:
    """The repaired text without the blanks its edits left at the ends of lines, when
    it checks as clean so; else as it was."""
    tidy = without_left_blanks(source, final_source)
    if tidy == final_source:
        return final_source, after
    tidy_check = check(tidy, language)
    return (tidy, tidy_check) if tidy_check.ok else (final_source, after)


MAX_HUNKS_TRIED = 6  # runs of changed lines a repair is checked without, at most


def _needed_only(source: str, final_source: str, after: CheckResult, language: str,
                 acceptable: Callable[[str], bool]) -> tuple[str, CheckResult]:
    """The repaired text without each run of lines it changed that the language's own
    judge, knowing the file's types, accepts it without (and the guard, ``acceptable``:
    a run taken back may leave more deleted in its region than the whole change did),
    first to last: a step that made progress on its own and that a later repair made
    needless (a ``,`` put into a table of strings while the mistake was a comment split
    below it). Not where tree-sitter alone, or a compiler that does not know the types,
    judges: they accept some mistakes, and a real repair of one would go."""
    hunks = [piece for hunk in changed_hunks(source, final_source) for piece in _lines_apart(hunk)]
    if not 2 <= len(hunks) <= MAX_HUNKS_TRIED or after.judge == TREE_SITTER or after.note:
        return final_source, after
    original, newline = source_lines(source), final_source.endswith("\n")
    kept = list(hunks)
    for hunk in hunks:
        if _reindents(hunk):
            continue  # a block moved is moved whole
        trial = [other for other in kept if other is not hunk]
        text = apply_hunks(original, trial, newline)
        if not acceptable(text):
            continue
        checked = check(text, language)
        if checked.ok and not checked.note and checked.judge == after.judge:
            kept, final_source, after = trial, text, checked
    return final_source, after


def _lines_apart(hunk: tuple[int, list[str], list[str]]) -> list[tuple[int, list[str], list[str]]]:
    """A run of changed lines in pieces that are edits of their own: while its first
    line is still the same line edited (half of it or more unchanged at its ends) and
    more lines follow, that line apart; lines joined or split stay one piece."""
    first, old, new = hunk
    pieces = []
    while len(old) > 1 and len(new) > 1 and 2 * _kept(old[0], new[0]) >= len(old[0]) \
            and not _reindents((first, old, new)):
        pieces.append((first, old[:1], new[:1]))
        first, old, new = first + 1, old[1:], new[1:]
    return pieces + [(first, old, new)]


def _reindents(hunk: tuple[int, list[str], list[str]]) -> bool:
    """The run of changed lines only changes the indentation of some."""
    _, old, new = hunk
    return len(old) == len(new) and any(a != b for a, b in zip(old, new)) \
        and all(a.strip() == b.strip() for a, b in zip(old, new))


def _kept(old: str, new: str) -> int:
    """How many characters of ``old`` ``new`` keeps at its start and end."""
    return sum(kept_ends(old, new))


@dataclass(frozen=True)
class _Before:
    """The working copy before a kept step, to go back to."""

    working: str
    current: CheckResult
    edited_lines: int
    step: int  # the number of the step kept


def run_loop(state: RepairState) -> bool:
    """The loop on the working copy, until it is clean (True) or no tool makes progress.
    Where none does, the kept steps are taken back and the first of them is never kept
    again: the loop begins again from the copy before it (``MAX_TAKEN_BACK`` times at
    most), where the next best first step is tried. The first step is the one chosen
    with every mistake of the file still around its place; the searches already made
    are remembered (``searched``), so steps found again cost nothing."""
    if state.settings.agent_only:
        return False
    path: list[_Before] = []
    kept_steps = 0
    while kept_steps < MAX_LOOP_STEPS:
        kept = None
        for tool in LOOP_TOOLS:
            kept = tool(state)
            if kept is not None:
                break
        if kept is None:
            if not path or len(state.taken_back) >= MAX_TAKEN_BACK or state.account.exhausted:
                return False
            _take_back(state, path)
            path.clear()
            continue
        assert state.current is not None
        path.append(_Before(state.working, state.current, len(state.edited_lines), len(state.result.steps)))
        kept_steps += 1
        state.working, state.current = kept
        if state.current.ok:
            return True
    return False


def _take_back(state: RepairState, path: list[_Before]) -> None:
    """Go back to the copy before the first kept step of ``path``, taking back every step
    after it too, recorded as a step; the text the first step led to is never kept again."""
    first = path[0]
    state.taken_back.add(path[1].working if len(path) > 1 else state.working)
    state.working, state.current = first.working, first.current
    del state.edited_lines[first.edited_lines:]
    state.record(Step(state.next_number(), kind=TAKE_BACK,
                      thought="no step repairs what is left: the first step may have been the wrong repair",
                      action="take_back", input={"steps": [before.step for before in path]},
                      observation=f"back to the copy before step {first.step}; " + _observed(first.current)))


def _complete_fix(state: RepairState) -> tuple[str, CheckResult] | None:
    """A verified candidate edit that repairs every problem."""
    return _candidate_step(state, partial=False)


def _region_fix(state: RepairState) -> tuple[str, CheckResult] | None:
    """A verified candidate edit after which no problem is left near it: that region is
    repaired, and the problems left are other mistakes elsewhere in the file."""
    return _candidate_step(state, partial=True, keep=lambda c: _region_clean(c, state))


def _partial_fix(state: RepairState) -> tuple[str, CheckResult] | None:
    """A verified candidate edit that makes progress: last, since on a file whose next
    error is not yet visible it may be the wrong one."""
    return _candidate_step(state, partial=True)


def _region_clean(candidate: Candidate, state: RepairState) -> bool:
    """No problem is left in the region of ``candidate``'s edit (``Verifier.region_cleared``)."""
    assert state.current is not None
    return state.verifier.region_cleared(state.working, state.current, candidate.source_after, candidate.edit)


def _candidate_step(state: RepairState, *, partial: bool, keep: Callable[[Candidate], bool] | None = None,
                    searched: dict[tuple, list] | None = None) -> tuple[str, CheckResult] | None:
    """One verified candidate edit (ranked by the model when there are several),
    recorded as a step, unless its place is full (``_region_full``). Searched for once
    per text and problem (``state.searched``), or taken from ``searched`` alone."""
    assert state.current is not None

    def acceptable(candidate: Candidate) -> bool:
        return (keep is None or keep(candidate)) and not _region_full(state, _edited_lines(candidate.edit)) \
            and not state.refused(candidate.source_after) \
            and not (candidate.fixes_all and state.unverified(candidate.source_after)) \
            and not (not candidate.fixes_all and candidate.types_unknown
                     and state.verifier.rejects_step(state.working, candidate.source_after))

    fast = try_fast_repair(state.working, state.language, state.current, state.llm, partial=partial,
                           searched=state.searched if searched is None else searched, keep=acceptable,
                           account=state.account)
    if fast is None:
        return None
    change = fast.candidate.edit
    lines = _edited_lines(change)
    after = check(fast.source_after, state.language)
    state.edited_lines.extend(lines)
    thought = ("a verified small edit fixes every problem" if after.ok else
               f"a verified small edit removes the problem at line {state.current.problems[0].line}")
    state.record(Step(state.next_number(), kind="fast_path", thought=thought, action="apply_fix",
                      input={"description": change.description}, observation=_observed(after),
                      ms=fast.seconds * 1000, prompt_tokens=fast.prompt_tokens, rule=change.rule))
    if fast.scored:  # one scoring pass, no generation
        state.count_model(fast.prompt_tokens)
    state.result.fast_path = after.ok and len(state.result.steps) == 1
    return fast.source_after, after


def _edited_lines(edit: Edit) -> list[int]:
    """The lines a candidate's steps changed, from its description ("line 12: ...; line 40: ...")."""
    return [int(n) for n in _EDIT_LINE.findall(edit.description)] or [edit.line]


def _region_full(state: RepairState, lines: list[int]) -> bool:
    """One place takes at most a few candidate edits, however many steps they come in
    (``Verifier.region_full``)."""
    return state.verifier.region_full(state.edited_lines, lines)


# Other problems, each far from the first and from one another, whose regions are
# searched when nothing repairs the first's.
ELSEWHERE = 2


def _elsewhere_targets(state: RepairState) -> list[Problem]:
    """Other problems, each far from the first and from one another (``ELSEWHERE`` at
    most); none where the judge shows one error at a time: no edit below it can be seen
    to help."""
    assert state.current is not None
    current = state.current
    record = spec(state.language)
    if record is None or record.one_error_at_a_time:
        return []
    reach = state.settings.max_problem_distance
    targets: list[Problem] = []
    for problem in current.problems[1:]:
        if len(targets) < ELSEWHERE and not too_wide(problem) \
                and not any(near(problem.line, p.line, p.end_line, reach) for p in (current.problems[0], *targets)):
            targets.append(problem)
    return targets


def _repair_elsewhere(state: RepairState, searched: dict[tuple, list] | None = None) -> tuple[str, CheckResult] | None:
    """A verified candidate edit that repairs the region of one of ``_elsewhere_targets``:
    searched for each, or, with ``searched``, taken from those searches alone."""
    assert state.current is not None
    current = state.current
    for target in _elsewhere_targets(state):
        state.current = replace(current, problems=(target, *(p for p in current.problems if p is not target)))
        try:
            kept = _candidate_step(state, partial=True, keep=lambda c: _region_clean(c, state), searched=searched)
        finally:
            state.current = current
        if kept is not None:
            return kept
    return None


def _found_elsewhere_fix(state: RepairState) -> tuple[str, CheckResult] | None:
    """A candidate edit the search for the first problem already found that repairs
    the region of another problem far from it: a step that costs no search, before
    the searches of other regions. (The search tries edits near every problem.)"""
    assert state.current is not None
    first = state.current.problems[0]
    found = state.searched.get((state.language, state.working, (first.line, first.message)))
    if not found:
        return None
    return _repair_elsewhere(state, {(state.language, state.working, (target.line, target.message)): found
                                     for target in _elsewhere_targets(state)})


def _elsewhere_fix(state: RepairState) -> tuple[str, CheckResult] | None:
    """A verified candidate edit that repairs the region of another problem, far from
    the first, when nothing repairs the first's: with several mistakes in a file the
    parser's view of one is often muddled by another (a string left open below), and
    each one repaired leaves the rest plainer."""
    return _repair_elsewhere(state)


def _alone_fix(state: RepairState) -> tuple[str, CheckResult] | None:
    """A verified candidate edit that repairs one problem's region judged as if it were
    the file's only mistake: searched for in a copy with the other problems' constructs
    blanked (``Verifier.alone``), kept when ``Verifier.accepted_alone``. Every problem's
    region in turn, the first first: an error that cannot be repaired now may be once
    another is."""
    assert state.current is not None
    current, verifier = state.current, state.verifier
    targets: list[Problem] = []
    for problem in current.problems:
        if not too_wide(problem) and not any(near(problem.line, p.line, p.end_line, verifier.reach) for p in targets):
            targets.append(problem)
    for target in targets:
        alone = verifier.alone(state.working, current, target)
        if alone is None:
            continue
        masked, masked_result, blanked = alone
        lines = state.working.split("\n")
        kept: dict[int, tuple[str, CheckResult]] = {}

        def acceptable(candidate: Candidate) -> bool:
            edit = candidate.edit
            if any(edit.line <= n <= max(edit.end_line, edit.line) for n in blanked):
                return False
            text = "\n".join(edit.applied(lines))
            if _region_full(state, _edited_lines(edit)) or state.refused(text):
                return False
            after = verifier.accepted_alone(masked, masked_result, candidate.source_after, edit, current, text,
                                            target)
            if after is None:
                return False
            kept[id(candidate)] = text, after
            return True

        fast = try_fast_repair(masked, state.language, masked_result, state.llm, partial=True,
                               searched=state.searched, keep=acceptable, account=state.account)
        if fast is None or id(fast.candidate) not in kept:
            continue
        text, after = kept[id(fast.candidate)]
        change = fast.candidate.edit
        state.edited_lines.extend(_edited_lines(change))
        state.record(Step(state.next_number(), kind="fast_path",
                          thought=f"a verified small edit repairs line {target.line} as if it were the only problem",
                          action="apply_fix", input={"description": change.description},
                          observation=_observed(after), ms=fast.seconds * 1000,
                          prompt_tokens=fast.prompt_tokens, rule=change.rule))
        if fast.scored:
            state.count_model(fast.prompt_tokens)
        return text, after
    return None


def _rewrite(state: RepairState) -> tuple[str, CheckResult] | None:
    """One generated rewrite of the lines around the next problem, recorded as a step;
    kept when the file then parses, or when the problem went and none came, within the
    guard."""
    assert state.current is not None
    if state.rewrites_failed >= MAX_FAILED_REWRITES or not is_on(MODEL_REWRITE):
        return None
    rewrite = rewrite_window(state.llm, state.working, state.language, state.current)
    if rewrite is None:  # too long a window to retype within a file's budget
        return None
    state.count_model(rewrite.prompt_tokens, rewrite.completion_tokens)
    kept: tuple[str, CheckResult] | None = None
    if rewrite.edited is None or rewrite.edited_result is None:
        observation = "The rewrite changes nothing usable; the agent takes over."
    else:
        change = rewrite.edit
        if not state.verifier.progress(state.current.problems, rewrite.edited_result.problems,
                                       state.working.split("\n"), change):
            observation = "The rewrite does not remove the problem; the agent takes over."
        elif state.refused(rewrite.edited):
            observation = "The rewrite changes too much, or leads where a step was taken back; the agent takes over."
        else:
            kept = rewrite.edited, rewrite.edited_result
            observation = _observed(rewrite.edited_result)
    if kept is None:
        state.rewrites_failed += 1
    state.record(Step(state.next_number(), kind="rewrite",
                      thought=f"no small edit repairs line {state.current.problems[0].line}: "
                      "rewrite the lines around it", action="rewrite_lines",
                      input={"start": rewrite.edit.line, "end": rewrite.edit.end_line, "text": rewrite.edit.text},
                      observation=observation, prompt_tokens=rewrite.prompt_tokens,
                      completion_tokens=rewrite.completion_tokens, ms=rewrite.seconds * 1000,
                      rule=MODEL_REWRITE if kept is not None else ""))
    return kept


def _paired_fix(state: RepairState) -> tuple[str, CheckResult] | None:
    """Two verified edits at two places that only together make progress (a bracket
    duplicated here and lost there), recorded as one step."""
    assert state.current is not None
    if not is_on(PAIRED_FIX):
        return None
    started = time.monotonic()
    pairs = [c for c in paired_fixes(state.working, state.language, state.current,
                                     state.settings.max_problem_distance)
             if not state.refused(c.source_after)]
    if len(pairs) > 1:
        try:  # the model chooses, as among single candidates; never a blind pick
            ranked = rank(state.llm, state.working, state.language, pairs)
        except ScoringUnsupported:
            return None
        state.count_model(0)
        pairs = [ranked[0][0]]
    if not pairs:
        return None
    found = pairs[0]
    lines = _edited_lines(found.edit)
    if _region_full(state, lines):
        return None
    after = check(found.source_after, state.language)
    state.edited_lines.extend(lines)
    state.record(Step(state.next_number(), kind="fast_path",
                      thought="no single edit makes progress: two places that only together do",
                      action="apply_fix", input={"description": found.edit.description},
                      observation=_observed(after), ms=(time.monotonic() - started) * 1000, rule=PAIRED_FIX))
    return found.source_after, after


# In this order each iteration: a complete verified fix first; then one that repairs the
# problem's region while mistakes elsewhere remain; then two edits at two places that
# only together make progress (no model needed); then a repair of another problem's
# region, far away, that the first search found already; then a repair of any problem's
# region judged as if it were the only one; then one of another problem's region, far
# away, searched for in the whole file; then the model's rewrite of the problem's
# window; a verified edit that only makes progress last.
LOOP_TOOLS: tuple[LoopTool, ...] = (_complete_fix, _region_fix, _paired_fix, _found_elsewhere_fix, _alone_fix,
                                    _elsewhere_fix, _rewrite, _partial_fix)


def _agent_or_stop(state: RepairState) -> str:
    """What the loop could not repair goes to the agent, if one pays with this model."""
    style = style_for(state.settings) if is_on(AGENT_EDIT) else None
    if style is None:
        # The search stops at the file's deadline too: then time ran out, not the edits.
        state.result.reason = ("time budget spent before a step made progress" if expired()
                               else "work budget spent before a step made progress" if state.account.exhausted
                               else "no step makes progress (the agent is off for this model)")
        refused = state.not_verified or state.account.refused
        if refused:  # a fix was found and refused: say why, as the output would
            state.result.reason += f"; a complete fix was {refused}"
        return state.working
    return run_agent_on(state, style)


def run_agent_on(state: RepairState, style: Style = OPEN) -> str:
    """The ReAct agent on the working copy, within the settings' steps; the copy it
    ends with."""
    assert state.current is not None
    s = state.settings
    copy = WorkingCopy(state.working, state.language, state.current, max_distance=s.max_problem_distance,
                       original=state.original, original_result=state.original_result)
    outcome = run_agent(state.llm, copy, max_steps=s.max_steps, on_step=state.on_step,
                        web_backend=s.web, offline=s.offline, first_step=state.next_number(),
                        lookup=s.lookup, style=style)
    state.result.steps.extend(outcome.steps)
    state.result.model_calls += outcome.model_calls
    state.result.prompt_tokens += outcome.prompt_tokens
    state.result.completion_tokens += outcome.completion_tokens
    if not outcome.fixed:
        state.result.reason = outcome.reason
    return outcome.source


def _observed(after: CheckResult) -> str:
    if after.ok:
        return "No problems: the file parses."
    first = after.problems[0]
    return f"{len(after.problems)} problem(s) left; next at line {first.line}: {first.message}"
