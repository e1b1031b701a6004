"""``repair(source)``: the whole pipeline for one text.

check -> clean: done, no model loaded. Otherwise the fast path (a verified candidate
edit, ranked by the model when there are several), then the ReAct agent. The result
is the working copy, and it is returned as fixed only when the checker finds no
problem and the edit is small.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from .agent import Step, run_agent
from .check import Problem, check
from .config import Settings
from .fastpath import try_fast_repair
from .guard import edit_too_large
from .languages import normalize
from .llm.base import LLM
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
    fast = try_fast_repair(source, language, before, get_llm)
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
        copy = WorkingCopy(source, language, before)
        outcome = run_agent(get_llm(), copy, max_steps=max_steps or settings.max_steps,
                            deadline=deadline, on_step=on_step, web_backend=settings.web,
                            offline=settings.offline)
        result.steps.extend(outcome.steps)
        result.model_calls = outcome.model_calls
        result.prompt_tokens = outcome.prompt_tokens
        result.completion_tokens = outcome.completion_tokens
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

