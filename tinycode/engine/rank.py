"""Ranking candidate edits by the model's likelihood of the edited code.

Scoring a few lines is far cheaper than generating them: the lines before the edit
are a shared prefix, evaluated once (and the part of the window every candidate
shares with it), and each candidate then costs only its own tokens. Every candidate
is scored over the same span of the original file, so the scores compare.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Sequence

from .candidates import Candidate
from .edits import changed_hunks
from ..spelling import distance
from .grammar_space import vocabulary
from ..check import source_lines
from ..languages import comment_prefix
from ..llm.base import IN_PROCESS_SCORING, LLM, Prompt, ScoringUnsupported

CONTEXT_BEFORE = 4  # lines of shared prefix
# Summed log-likelihood favours the shorter text, so deleting the separator between two
# names (``Counter(words`` -> ``Counterwords``)
# can outscore the real fix. A name the file never had (nor the grammar as a keyword)
# is rarely what a syntax repair wants: such a candidate pays this many nats.
NEW_NAME_PENALTY = 4.0
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def rank(llm: LLM, source: str, language: str, candidates: Sequence[Candidate]
         ) -> list[tuple[Candidate, float]]:
    """Candidates with their log-likelihood (higher is better), best first. Raises ScoringUnsupported when the backend
    cannot score."""
    if not candidates:
        return []
    known = set(_NAME.findall(source))
    scores = [0.0] * len(candidates)
    new_names = [False] * len(candidates)
    for scoring in scoring_passes(source, language, candidates):
        found = llm.score(scoring.prefix, scoring.windows)
        base = found[0] if scoring.baseline else 0.0
        for members, score, window in zip(scoring.members, found[scoring.baseline:],
                                          scoring.windows[scoring.baseline:]):
            named = bool(_new_names(window, known, language))
            for i in members:
                scores[i] += score - base
                new_names[i] = new_names[i] or named
    scores = [score - NEW_NAME_PENALTY * named for score, named in zip(scores, new_names)]
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    return [(candidates[i], scores[i]) for i in order]


@dataclass(frozen=True)
class ScoringPass:
    """One call of the model's scoring: the shared prompt, the windows, which candidates
    each window is part of (indices), and whether the first window is the file's own
    lines, the baseline each window's score is taken against."""

    prefix: str
    windows: list[str]
    members: list[tuple[int, ...]]
    baseline: bool = False


# A window of more characters than this (about MAX_SCORED_TOKENS of the fast path's
# tokens: two such windows already cost more than the rest of a repair) is scored
# place by place; shorter ones whole, each candidate over the same lines.
PLACE_CHARS = 1200
# Changed lines this far apart or more are different places.
PLACE_GAP = 4


def scoring_passes(source: str, language: str, candidates: Sequence[Candidate]) -> list[ScoringPass]:
    """How ``candidates`` are scored. Where they differ within a few lines, over the
    same span (``scoring_texts``). Where they differ at places far apart (partial
    repairs of different mistakes, or one mistake repaired the same way and another
    not), place by place, each against the file's own lines there: a candidate's score
    is the sum of what its edits add to the likelihood of their places, so they compare
    without scoring every line between (a hundred lines apart, seconds of the model for
    each candidate)."""
    prefix, windows = scoring_texts(source, language, candidates)
    if len(candidates) < 2 or max(len(w) for w in windows) <= PLACE_CHARS:
        return [ScoringPass(prefix, windows, [(i,) for i in range(len(candidates))])]
    lines = source_lines(source)
    hunks = [[(line, len(old), tuple(new)) for line, old, new in changed_hunks(source, c.source_after)]
             for c in candidates]
    passes = []
    for first, last in _places(sorted({(line, line + max(span, 1) - 1) for found in hunks for line, span, _ in found})):
        variants: dict[tuple, list[int]] = {}
        for i, found in enumerate(hunks):
            mine = tuple(h for h in found if first <= h[0] <= last)
            if mine:
                variants.setdefault(mine, []).append(i)
        if len(variants) == 1 and len(next(iter(variants.values()))) == len(candidates):
            continue  # every candidate changes this place alike
        texts = [source] + ["\n".join(_applied(lines, mine)) + "\n" for mine in variants]
        prefix, windows = _window_texts(texts, language)
        passes.append(ScoringPass(prefix, windows, [tuple(v) for v in variants.values()], baseline=True))
    return passes


def _places(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Line spans merged where they lie within PLACE_GAP of each other."""
    places: list[tuple[int, int]] = []
    for first, last in spans:
        if places and first <= places[-1][1] + PLACE_GAP:
            places[-1] = (places[-1][0], max(places[-1][1], last))
        else:
            places.append((first, last))
    return places


def _applied(lines: list[str], hunks: tuple[tuple[int, int, tuple[str, ...]], ...]) -> list[str]:
    """``lines`` with ``hunks`` ((first line, lines replaced, new lines)) applied."""
    lines = list(lines)
    for line, span, new in sorted(hunks, reverse=True):
        lines[line - 1:line - 1 + span] = new
    return lines


def scoring_texts(source: str, language: str, candidates: Sequence[Candidate]) -> tuple[str, list[str]]:
    """The shared prompt (a language line and the lines before the window) and each
    candidate's version of the window: the lines where the candidates differ from each
    other. Edits they all make lie outside it, so a fix that repairs three distant
    errors is scored where the choice is, not over every line in between."""
    return _window_texts([c.source_after for c in candidates], language)


def _window_texts(sources: Sequence[str], language: str) -> tuple[str, list[str]]:
    """The shared prompt and each text's version of the lines where the texts differ."""
    texts = [source_lines(text) for text in sources]
    shortest = min(len(t) for t in texts)
    head = 0
    while head < shortest and all(t[head] == texts[0][head] for t in texts):
        head += 1
    tail = 0
    while tail < shortest - head and all(t[len(t) - 1 - tail] == texts[0][-1 - tail] for t in texts):
        tail += 1
    before = "".join(line + "\n" for line in texts[0][max(0, head - CONTEXT_BEFORE):head])
    marker = comment_prefix(language)
    header = f"{marker} {language}\n" if marker else ""
    windows = ["\n".join(t[head:len(t) - tail]) + "\n" for t in texts]
    if max(len(w) for w in windows) > LONG_WINDOW:
        before, windows = _around_the_change(before, windows)
    return header + before, windows


# Characters of a window past which only the text around the candidates' differences is
# scored (a page or minified code on one line: two 5,000-character windows cost the
# model more than a file's whole budget), with this much shared text before and after.
LONG_WINDOW = 600
AROUND_BEFORE, AROUND_AFTER = 300, 150


def _around_the_change(before: str, windows: list[str]) -> tuple[str, list[str]]:
    """The shared text before (``before`` and the windows' common start, its last
    AROUND_BEFORE characters) and each window cut to where the candidates differ and
    AROUND_AFTER characters of their common end: every candidate is still scored over
    the same span."""
    start = len(os.path.commonprefix(windows))
    end = min(len(os.path.commonprefix([w[::-1] for w in windows])), min(map(len, windows)) - start)
    kept_end = end - min(end, AROUND_AFTER)
    return (before + windows[0][:start])[-AROUND_BEFORE:], [w[start:len(w) - kept_end] for w in windows]


def _new_names(window: str, known: set[str], language: str) -> set[str]:
    """Names in ``window`` the source never had; a keyword of the grammar that is a typo
    away from a word of the source (``return`` for ``retrun``) is the respelt word, not
    a new name (a keyword inserted where there was none, ``def print(x)``, still is)."""
    keywords = set(vocabulary(language)[0])
    return {name for name in set(_NAME.findall(window)) - known
            if name not in keywords or not any(distance(name, word) <= 2 or name.lower() == word.lower()
                                               for word in known if abs(len(word) - len(name)) <= 2)}



class RankingSeen:
    """A repair's model, passed through, noting how its candidates were ranked: ``ranked_by``
    is "" while nothing was ranked, else the backend's way of scoring (its ``scoring``:
    echoed log-probabilities, forced generation; IN_PROCESS_SCORING for the model in process),
    or "not ranked: ..." once a ranking was wanted that the backend could not give, so the
    report says when a file took another path than it would in process."""

    def __init__(self, llm: LLM) -> None:
        self._llm = llm
        self.ranked_by = ""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        try:
            found = self._llm.score(prompt, continuations)
        except ScoringUnsupported as exc:
            self.ranked_by = f"not ranked: {exc}"
            raise
        if not self.ranked_by:
            self.ranked_by = getattr(self._llm, "scoring", IN_PROCESS_SCORING)
        return found
