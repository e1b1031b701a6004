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

import time
from dataclasses import dataclass, field
from typing import Callable

from .agent import Step, run_agent
from .check import CheckResult, Problem, check
from .config import Settings
from .deadline import DeadlineExceeded, remaining, until
from .errors import ModelError, ModelUnavailable
from .fastpath import try_fast_repair
from .guard import edit_too_large
from .languages import normalize
from .llm.base import LLM
from .rewrite import rewrite_window
from .tools.workspace import WorkingCopy

# Wall-time cap of the candidate search; the file's deadline can make it shorter.
FAST_PATH_SECONDS = 0.5


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
            from .llm import load_llm

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
    """The fast path, then the rewrite, then the agent; the working copy they end with."""
    fast = None if settings.agent_only else try_fast_repair(
        source, language, before, get_llm, time_budget=min(FAST_PATH_SECONDS, remaining()))
    if fast is not None:
        step = Step(1, kind="fast_path", thought="a verified small edit fixes every problem",
                    action="apply_fix", input={"description": fast.candidate.description},
                    observation="No problems: the file parses.", ms=fast.seconds * 1000,
                    prompt_tokens=fast.prompt_tokens)
        if on_step:
            on_step(step)
        result.steps.append(step)
        result.fast_path = True
        if fast.scored:  # one scoring pass, no generation
            result.model_calls, result.prompt_tokens = 1, fast.prompt_tokens
        return fast.candidate.source_after
    final_source = (None if settings.agent_only else
                    _rewrite_step(get_llm(), source, language, before, settings, result, on_step))
    if final_source is not None:
        return final_source
    copy = WorkingCopy(source, language, before, max_distance=settings.max_problem_distance)
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


def _guard(before_source: str, after_source: str, language: str, settings: Settings,
           before: CheckResult) -> str:
    """The minimal-edit and locality guard with the settings' limits."""
    return edit_too_large(before_source, after_source, language,
                          max_lines=settings.max_changed_lines,
                          max_tokens=settings.max_changed_tokens,
                          max_deleted=settings.max_deleted_tokens,
                          problems=before.problems, max_distance=settings.max_problem_distance)


def _rewrite_step(llm: LLM, source: str, language: str, before: CheckResult, settings: Settings,
                  result: RepairResult, on_step: Callable[[Step], None] | None) -> str | None:
    """One generated rewrite of the lines around the first problem, recorded as a step;
    the repaired source when it parses and passes the guard, else None."""
    rewrite = rewrite_window(llm, source, language, before)
    result.model_calls += 1
    result.prompt_tokens += rewrite.prompt_tokens
    result.completion_tokens += rewrite.completion_tokens
    accepted = rewrite.source is not None and not _guard(source, rewrite.source, language,
                                                         settings, before)
    if accepted:
        observation = "No problems: the file parses."
    elif rewrite.source is not None:
        observation = "The rewrite parses but changes too much; the agent takes over."
    else:
        observation = "The rewrite does not parse; the agent takes over."
    step = Step(len(result.steps) + 1, kind="rewrite", thought="no small edit fixes every problem: "
                "rewrite the lines around the first one", action="rewrite_lines",
                input={"start": rewrite.start, "end": rewrite.end, "text": rewrite.new_text},
                observation=observation, prompt_tokens=rewrite.prompt_tokens,
                completion_tokens=rewrite.completion_tokens, ms=rewrite.seconds * 1000)
    if on_step:
        on_step(step)
    result.steps.append(step)
    return rewrite.source if accepted else None
