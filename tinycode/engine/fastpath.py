"""The fast path: apply a parser-verified candidate edit without a generation turn.

When the candidate search finds edits that fix every problem, one is applied
directly: the only one, or the one the model finds likeliest by a clear margin (a
scoring pass, far cheaper than generating). Otherwise the agent takes over.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable
from .candidates import WORK_BUDGET, Candidate, WorkAccount, suggest
from .edits import kept_ends
from .verifier import REGION
from ..check import CheckResult, check
from ..llm.base import LLM, ScoringUnsupported

# Complete fixes offered to the ranker: each costs its own window's tokens.
MAX_RANKED = 5
# Scoring costs about 1.5x evaluating a prompt (every scored token needs its logits), so
# the candidates ranked stop at this many scored tokens (two are always kept): on the
# dev set a lower cap began to lose the right fix, a higher one only cost time.
MAX_SCORED_TOKENS: int | None = 300
# Two windows of more tokens than this together (candidates that differ at columns far
# apart on a line thousands of characters long) are not scored: the pass would take the
# model most of a file's time, and the search's order decides instead.
MAX_PAIR_TOKENS = 4 * (MAX_SCORED_TOKENS or 300)
# A candidate whose new lines have this many fewer contexts the file never has than
# every other's is chosen without scoring: on 148 one-error files (two seeds of
# tools/corrupt_real.py) the model picked that candidate in all 18 cases with such a lead.
FAMILIAR_LEAD = 2
# A backend that does not say how large its context is is assumed to hold this many
# tokens; a scored text keeps this many free (a token merged at the seam, the BOS).
DEFAULT_CONTEXT = 4096
CONTEXT_MARGIN = 8


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
                    llm: LLM, *, work: int = WORK_BUDGET, partial: bool = False,
                    searched: dict[tuple, list[Candidate]] | None = None,
                    keep: Callable[[Candidate], bool] | None = None,
                    account: WorkAccount | None = None) -> FastRepair | None:
    """A complete, verified fix chosen without generation, or None. With ``partial``,
    failing that, a verified edit that makes progress (fewer problems and none new,
    or CPython's first error moved past it). ``llm`` (a lazy one loads only then) is
    used only when there are several to choose from. ``searched`` remembers searches by
    text and the problem searched for, so asking again for the same (complete fixes
    first, partial ones later) searches once. Only
    the candidates ``keep`` accepts (the caller's guard) are chosen from, so a fix the
    guard would refuse never hides an acceptable one ranked after it."""
    start = time.perf_counter()
    result = result or check(source, language)
    target = (result.problems[0].line, result.problems[0].message) if result.problems else None
    found = None if searched is None else searched.get((language, source, target))
    if found is None:
        found = suggest(source, language, limit=MAX_RANKED, work=work, result=result, account=account)
        if searched is not None:
            searched[(language, source, target)] = found
    complete = [c for c in found if c.fixes_all and (keep is None or keep(c))]
    if not complete and partial:
        progress = [c for c in found if keep is None or keep(c)]
        # Where the compiler knows the file's types after some, their problems are its
        # own count; the others' only tree-sitter's (``_Node.order``).
        progress = [c for c in progress if not c.types_unknown] or progress
        # The language's own judge reads on past the others' next errors, by more than a
        # region, after some: it stops sooner after the rest (a quote put at a line's
        # end, where ``ten`` was meant for ``then``); of those, the fewest problems.
        farthest = max((c.reach for c in progress), default=0)
        progress = [c for c in progress if c.reach >= farthest - REGION]
        fewest = min((c.problems_after for c in progress), default=0)
        complete = [c for c in progress if c.problems_after == fewest]
    if not complete:
        return None
    if len(complete) == 1 or _familiar_lead(complete, source):
        return FastRepair(complete[0], len(complete) - 1, 0.0, time.perf_counter() - start, False)
    from .rank import rank, scoring_passes

    affordable = _affordable(llm, source, language, complete)
    if affordable is None:  # scoring even two would take most of the file's time: the search's order decides
        return FastRepair(complete[0], len(complete) - 1, 0.0, time.perf_counter() - start, False)
    complete = affordable
    if len(complete) < 2:  # the candidates' windows do not fit the context together
        return None
    try:
        ranked = rank(llm, source, language, complete)
    except ScoringUnsupported:
        # Without likelihoods the choice would be blind: the rewrite or the agent decides.
        return None
    (best, best_score), (_, second_score) = ranked[0], ranked[1]
    margin = best_score - second_score
    tokens = sum(llm.count_tokens(scoring.prefix) + sum(llm.count_tokens(w) for w in scoring.windows)
                 for scoring in scoring_passes(source, language, complete))
    return FastRepair(best, len(complete) - 1, margin, time.perf_counter() - start, True, tokens)


def _familiar_lead(candidates: list[Candidate], source: str) -> bool:
    """The first candidate is far more at home in the file than any other. (A deletion
    leaves one token, and so one of its trigrams, fewer than an edit that types one: it
    is weighed on even terms with those.)"""
    first, rest = candidates[0].unfamiliar, candidates[1:]
    if first is None:
        return False
    deletes = _only_deletes(candidates[0], source)
    return all(c.unfamiliar is not None
               and c.unfamiliar - first - int(deletes and not _only_deletes(c, source)) >= FAMILIAR_LEAD for c in rest)


def _only_deletes(candidate: Candidate, source: str) -> bool:
    """``candidate`` only takes text out of ``source``, or a line break (blanks aside)."""
    after = candidate.source_after
    start, end = kept_ends(source, after)
    return len(after) <= len(source) and not after[start:len(after) - end].strip()


def _affordable(llm: LLM, source: str, language: str, complete: list[Candidate]) -> list[Candidate] | None:
    """The candidates, in the search's order, that the model can score together: the
    first two if their texts fit its context, more while the windows fit
    MAX_SCORED_TOKENS; None where the first two's windows exceed MAX_PAIR_TOKENS."""
    from .rank import scoring_passes

    context = int(getattr(llm, "n_ctx", 0) or DEFAULT_CONTEXT) - CONTEXT_MARGIN
    kept: list[Candidate] = []
    for candidate in complete:
        passes = scoring_passes(source, language, kept + [candidate])
        sizes = [[llm.count_tokens(w) for w in scoring.windows] for scoring in passes]
        if any(llm.count_tokens(scoring.prefix) + max(size) > context for scoring, size in zip(passes, sizes)):
            break
        if len(kept) >= 2 and MAX_SCORED_TOKENS is not None and sum(map(sum, sizes)) > MAX_SCORED_TOKENS:
            break
        if len(kept) == 1 and sum(map(sum, sizes)) > MAX_PAIR_TOKENS:
            return None
        kept.append(candidate)
    return kept
