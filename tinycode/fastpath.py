"""The fast path: apply a parser-verified candidate edit without a generation turn.

When the candidate search finds edits that fix every problem, one is applied
directly: the only one, or the one the model finds likeliest by a clear margin (a
scoring pass, far cheaper than generating). Otherwise the agent takes over.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from .candidates import Candidate, suggest
from .check import CheckResult, check
from .llm.base import LLM, ScoringUnsupported

# Complete fixes offered to the ranker: each costs its own window's tokens.
MAX_RANKED = 5
# Log-likelihood lead (nats) the best candidate needs over the runner-up; below it the
# choice is left to the agent.
MIN_MARGIN = 0.0


@dataclass
class FastRepair:
    candidate: Candidate
    alternatives: int  # other complete fixes that were considered
    margin: float  # log-likelihood lead over the runner-up (0 when unscored)
    seconds: float
    scored: bool
    prompt_tokens: int = 0  # tokens the scoring pass evaluated (prefix + windows)

    @property
    def source_after(self) -> str:
        return self.candidate.source_after


def try_fast_repair(source: str, language: str, result: CheckResult | None,
                    get_llm: Callable[[], LLM], *, time_budget: float = 0.5,
                    min_margin: float = MIN_MARGIN) -> FastRepair | None:
    """A complete, verified fix chosen without generation, or None. ``get_llm`` is
    called only when there are several complete fixes to choose from."""
    start = time.perf_counter()
    result = result or check(source, language)
    complete = [c for c in suggest(source, language, limit=MAX_RANKED, time_budget=time_budget,
                                   result=result) if c.fixes_all]
    if not complete:
        return None
    if len(complete) == 1:
        return FastRepair(complete[0], 0, 0.0, time.perf_counter() - start, False)
    from .rank import rank, scoring_texts

    llm = get_llm()
    try:
        ranked = rank(llm, source, language, complete)
    except ScoringUnsupported:
        return FastRepair(complete[0], len(complete) - 1, 0.0, time.perf_counter() - start, False)
    (best, best_score), (_, second_score) = ranked[0], ranked[1]
    margin = best_score - second_score
    if margin < min_margin:
        return None
    prefix, windows = scoring_texts(source, language, complete)
    tokens = llm.count_tokens(prefix) + sum(llm.count_tokens(w) for w in windows)
    return FastRepair(best, len(complete) - 1, margin, time.perf_counter() - start, True, tokens)
