"""``repair(source)``: the whole pipeline for one text.

check -> clean: done, no model loaded. Otherwise the fast path (a verified candidate
edit, ranked by the model when there are several), then one generated rewrite of the
lines around the problem, then the ReAct agent. The result
is the working copy, and it is returned as fixed only when the checker finds no
problem and the edit is small.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from . import judges
from .agent import Step, run_agent
from .check import CheckResult, Problem, check
from .config import Settings
from .fastpath import try_fast_repair
from .guard import edit_too_large
from .languages import normalize
from .llm.base import LLM
from .rewrite import rewrite_window
from .tools.workspace import WorkingCopy


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
            from .llm import load_llm

            loaded.append(load_llm(model or settings.model, backend=settings.backend,
                                   base_url=settings.base_url, gpu_layers=settings.gpu_layers,
                                   offline=settings.offline))
        return loaded[0]

    result = RepairResult(source, "failed", language, problems_before=list(before.problems))
    fast = None if settings.agent_only else try_fast_repair(source, language, before, get_llm)
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
        final_source = fast.candidate.source_after
    else:
        final_source = (None if settings.agent_only else
                        _rewrite_step(get_llm(), source, language, before, settings, result, on_step))
        if final_source is None:
            copy = WorkingCopy(source, language, before)
            outcome = run_agent(get_llm(), copy, max_steps=max_steps or settings.max_steps,
                                deadline=deadline, on_step=on_step, web_backend=settings.web,
                                offline=settings.offline, first_step=len(result.steps) + 1,
                                lookup=settings.lookup)
            result.steps.extend(outcome.steps)
            result.model_calls += outcome.model_calls
            result.prompt_tokens += outcome.prompt_tokens
            result.completion_tokens += outcome.completion_tokens
            final_source = outcome.source
            if not outcome.fixed:
                result.reason = outcome.reason
    result.seconds = time.monotonic() - started
    after = check(final_source, language)
    result.problems_after = list(after.problems)
    if not after.ok:
        result.reason = result.reason or "problems remain"
        return result
    too_large = edit_too_large(source, final_source, language,
                               max_lines=settings.max_changed_lines,
                               max_tokens=settings.max_changed_tokens,
                               max_deleted=settings.max_deleted_tokens)
    if too_large:
        result.reason = f"edit too large ({too_large})"
        return result
    result.source, result.status, result.reason = final_source, "fixed", ""
    return result



def _rewrite_step(llm: LLM, source: str, language: str, before: CheckResult, settings: Settings,
                  result: RepairResult, on_step: Callable[[Step], None] | None) -> str | None:
    """One generated rewrite of the lines around the first problem, recorded as a step;
    the repaired source when it parses and passes the guard, else None."""
    rewrite = rewrite_window(llm, source, language, before)
    result.model_calls += 1
    result.prompt_tokens += rewrite.prompt_tokens
    result.completion_tokens += rewrite.completion_tokens
    accepted = rewrite.source is not None and not edit_too_large(
        source, rewrite.source, language, max_lines=settings.max_changed_lines,
        max_tokens=settings.max_changed_tokens, max_deleted=settings.max_deleted_tokens)
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
