"""The fast path: apply a parser-verified candidate edit without a generation turn.

When the candidate search finds edits that fix every problem, one is applied
directly: the only one, or the one the model finds likeliest (a scoring pass, far
cheaper than generating). Otherwise the agent takes over.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from .candidates import Candidate, suggest
from .check import CheckResult
from .llm.base import LLM, ScoringUnsupported


@dataclass
class FastRepair:
    candidate: Candidate
    alternatives: int  # other complete fixes that were considered
    margin: float  # log-likelihood lead over the runner-up (0 when unscored)
    seconds: float
    scored: bool


def try_fast_repair(source: str, language: str, result: CheckResult,
                    get_llm: Callable[[], LLM], *, time_budget: float = 0.5) -> FastRepair | None:
    """A complete, verified fix chosen without generation, or None."""
    start = time.perf_counter()
    complete = [c for c in suggest(source, language, limit=8, time_budget=time_budget, result=result)
                if c.fixes_all]
    if not complete:
        return None
    if len(complete) == 1:
        return FastRepair(complete[0], 0, 0.0, time.perf_counter() - start, False)
    from .rank import rank

    try:
        ranked = rank(get_llm(), source, language, complete)
    except ScoringUnsupported:
        return FastRepair(complete[0], len(complete) - 1, 0.0, time.perf_counter() - start, False)
    (best, best_score), (_, second_score) = ranked[0], ranked[1]
    return FastRepair(best, len(complete) - 1, best_score - second_score,
                      time.perf_counter() - start, True)
