"""``repair(source)``: the whole pipeline for one text.

check -> clean: done, no model loaded. Otherwise the fast path (a verified candidate
edit, ranked by the model when there are several), then one generated rewrite of the
lines around the problem, then the ReAct agent. The result
is the working copy, and it is returned as fixed only when the checker finds no
problem and the edit is small and near the problems found at the start.

Every stage works within one deadline per file (``tinycode.deadline``). A failure of
the model while repairing this file (a server error, a context overflow, the deadline)
ends this file as failed with the reason; only a model that cannot be loaded at all
(``ModelUnavailable``) is raised, since every other file would fail the same way.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Callable

from .. import judges
from .agent import Step, run_agent
from ..check import CheckResult, Problem, check
from ..config import Settings
from ..deadline import DeadlineExceeded, until
from ..errors import ModelError, ModelUnavailable
from .fastpath import try_fast_repair
from .guard import edit_too_large
from ..languages import normalize
from ..llm.base import LLM
from .progress import made_progress
from .rewrite import rewrite_window
from .agent.workspace import WorkingCopy

# CPU seconds one candidate search may take (its own thread's, so the same on a busy
# machine as on an idle one); the file's wall-time deadline can cut it shorter.
FAST_PATH_SECONDS = 0.5
# Kept steps of the repair loop before what remains goes to the agent.
MAX_LOOP_STEPS = 12
# Candidate edits one place may take in all (the candidate search's own depth).
MAX_EDITS_PER_REGION = 4
_EDIT_LINE = re.compile(r"(?:^|; )line (\d+):")


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

    @property
    def changed(self) -> bool:
        return self.status == "fixed"


def repair(source: str, language: str | None = None, *, model: str | None = None,
           llm: LLM | None = None, settings: Settings | None = None, max_steps: int | None = None,
           timeout: float | None = None, on_step: Callable[[Step], None] | None = None) -> RepairResult:
    """Repair ``source`` (``language`` defaults to Python). ``llm`` is used as given;
    otherwise ``model`` (or the settings' model) is loaded, only if a model is needed."""
    # A native judge's non-syntax messages about the original (a missing header) may
    # stay; every check during this repair reports any new one as a problem.
    with judges.baseline(source, normalize(language or "python")):
        return _repair(source, language, model=model, llm=llm, settings=settings,
                       max_steps=max_steps, timeout=timeout, on_step=on_step)


def _repair(source: str, language: str | None, *, model: str | None, llm: LLM | None,
            settings: Settings | None, max_steps: int | None, timeout: float | None,
            on_step: Callable[[Step], None] | None) -> RepairResult:
    started = time.monotonic()
    settings = settings or Settings()
    language = normalize(language or "python")
    before = check(source, language)
    if before.ok:
        return RepairResult(source, "clean", language, seconds=time.monotonic() - started)
    deadline = started + (timeout if timeout is not None else settings.timeout)
    loaded: list[LLM] = [llm] if llm is not None else []

    def get_llm() -> LLM:
        if not loaded:
            from ..llm import load_llm

            try:
                loaded.append(load_llm(model or settings.model, backend=settings.backend,
                                       base_url=settings.base_url, gpu_layers=settings.gpu_layers,
                                       offline=settings.offline))
            except ModelError as exc:
                raise ModelUnavailable(str(exc)) from None
        return loaded[0]

    result = RepairResult(source, "failed", language, problems_before=list(before.problems))
    try:
        with until(deadline):
            final_source = _stages(source, language, before, get_llm, settings, result, deadline,
                                   max_steps, on_step)
    except ModelUnavailable:
        raise
    except (ModelError, DeadlineExceeded) as exc:
        result.reason = str(exc) if isinstance(exc, DeadlineExceeded) else f"model error: {exc}"
        final_source = source
    result.seconds = time.monotonic() - started
    after = check(final_source, language)
    result.problems_after = list(after.problems)
    if not after.ok:
        result.reason = result.reason or "problems remain"
        return result
    too_large = _guard(source, final_source, language, settings, before)
    if too_large:
        result.reason = f"edit too large ({too_large})"
        return result
    result.source, result.status, result.reason = final_source, "fixed", ""
    return result


def _stages(source: str, language: str, before: CheckResult, get_llm: Callable[[], LLM],
            settings: Settings, result: RepairResult, deadline: float, max_steps: int | None,
            on_step: Callable[[Step], None] | None) -> str:
    """The repair loop: observe, act on the next problem with a verified candidate edit
    or else a rewrite of its window, keep the step when it removes that problem and
    adds none, repeat; what no step can repair goes to the agent. The working copy
    the loop ends with is returned."""
    working, current = source, before
    edited_lines: list[int] = []  # one entry per candidate edit kept, at its line
    searched: dict[tuple[str, str], list] = {}  # candidate searches by text
    if not settings.agent_only:
        for _ in range(MAX_LOOP_STEPS):
            # A complete verified fix first; then the model's rewrite of the problem's
            # window; a verified edit that only makes progress last, since on a file
            # whose next error is not yet visible it may be the wrong one.
            kept = (_candidate_step(source, working, current, language, get_llm, settings, before,
                                    result, on_step, edited_lines, searched, partial=False)
                    or _rewrite_step(source, working, current, language, get_llm, settings, before,
                                     result, on_step)
                    or _candidate_step(source, working, current, language, get_llm, settings, before,
                                       result, on_step, edited_lines, searched, partial=True))
            if kept is None:
                break
            working, current = kept
            if current.ok:
                return working
    copy = WorkingCopy(working, language, current, max_distance=settings.max_problem_distance,
                       original=source, original_result=before)
    outcome = run_agent(get_llm(), copy, max_steps=max_steps or settings.max_steps,
                        deadline=deadline, on_step=on_step, web_backend=settings.web,
                        offline=settings.offline, first_step=len(result.steps) + 1,
                        lookup=settings.lookup)
    result.steps.extend(outcome.steps)
    result.model_calls += outcome.model_calls
    result.prompt_tokens += outcome.prompt_tokens
    result.completion_tokens += outcome.completion_tokens
    if not outcome.fixed:
        result.reason = outcome.reason
    return outcome.source


def _candidate_step(source: str, working: str, current: CheckResult, language: str,
                    get_llm: Callable[[], LLM], settings: Settings, before: CheckResult,
                    result: RepairResult, on_step: Callable[[Step], None] | None,
                    edited_lines: list[int], searched: dict[tuple[str, str], list], *,
                    partial: bool) -> tuple[str, CheckResult] | None:
    """One verified candidate edit (ranked by the model when there are several) that
    repairs every problem or makes progress; recorded as a step. One place in the file
    takes at most MAX_EDITS_PER_REGION such edits, however many steps they come in:
    six stray characters deleted one by one are not a repair."""
    fast = try_fast_repair(working, language, current, get_llm, time_budget=FAST_PATH_SECONDS,
                           partial=partial, searched=searched)
    if fast is None:
        return None
    lines = [int(n) for n in _EDIT_LINE.findall(fast.candidate.description)] or [fast.candidate.start_line]
    for line in lines:
        near = [n for n in edited_lines + lines if abs(n - line) <= settings.max_problem_distance]
        if len(near) > MAX_EDITS_PER_REGION:
            return None
    after = check(fast.source_after, language)
    if _guard(source, fast.source_after, language, settings, before):
        return None
    edited_lines.extend(lines)
    where = current.problems[0]
    thought = ("a verified small edit fixes every problem" if after.ok else
               f"a verified small edit removes the problem at line {where.line}")
    _record(result, on_step, Step(len(result.steps) + 1, kind="fast_path", thought=thought,
                                  action="apply_fix", input={"description": fast.candidate.description},
                                  observation=_observed(after), ms=fast.seconds * 1000,
                                  prompt_tokens=fast.prompt_tokens))
    if fast.scored:  # one scoring pass, no generation
        result.model_calls += 1
        result.prompt_tokens += fast.prompt_tokens
    result.fast_path = after.ok and len(result.steps) == 1
    return fast.source_after, after


def _rewrite_step(source: str, working: str, current: CheckResult, language: str,
                  get_llm: Callable[[], LLM], settings: Settings, before: CheckResult,
                  result: RepairResult, on_step: Callable[[Step], None] | None
                  ) -> tuple[str, CheckResult] | None:
    """One generated rewrite of the lines around the next problem, recorded as a step;
    kept when the file then parses, or when the problem went and none came, within the
    guard."""
    rewrite = rewrite_window(get_llm(), working, language, current)
    result.model_calls += 1
    result.prompt_tokens += rewrite.prompt_tokens
    result.completion_tokens += rewrite.completion_tokens
    kept: tuple[str, CheckResult] | None = None
    if rewrite.edited is None or rewrite.edited_result is None:
        observation = "The rewrite changes nothing usable; the agent takes over."
    else:
        new_lines = rewrite.new_text.count("\n") + 1
        delta = new_lines - (rewrite.end - rewrite.start + 1)
        if not made_progress(current.problems, rewrite.edited_result.problems, rewrite.start,
                             rewrite.start + new_lines - 1, delta):
            observation = "The rewrite does not remove the problem; the agent takes over."
        elif _guard(source, rewrite.edited, language, settings, before):
            observation = "The rewrite changes too much; the agent takes over."
        else:
            kept = rewrite.edited, rewrite.edited_result
            observation = _observed(rewrite.edited_result)
    _record(result, on_step, Step(len(result.steps) + 1, kind="rewrite",
                                  thought=f"no small edit repairs line {current.problems[0].line}: "
                                  "rewrite the lines around it", action="rewrite_lines",
                                  input={"start": rewrite.start, "end": rewrite.end, "text": rewrite.new_text},
                                  observation=observation, prompt_tokens=rewrite.prompt_tokens,
                                  completion_tokens=rewrite.completion_tokens, ms=rewrite.seconds * 1000))
    return kept


def _observed(after: CheckResult) -> str:
    if after.ok:
        return "No problems: the file parses."
    first = after.problems[0]
    return f"{len(after.problems)} problem(s) left; next at line {first.line}: {first.message}"


def _record(result: RepairResult, on_step: Callable[[Step], None] | None, step: Step) -> None:
    if on_step:
        on_step(step)
    result.steps.append(step)


def _guard(before_source: str, after_source: str, language: str, settings: Settings,
           before: CheckResult) -> str:
    """The minimal-edit and locality guard with the settings' limits."""
    return edit_too_large(before_source, after_source, language,
                          max_lines=settings.max_changed_lines,
                          max_tokens=settings.max_changed_tokens,
                          max_deleted=settings.max_deleted_tokens,
                          problems=before.problems, max_distance=settings.max_problem_distance)
