"""Ranking candidate edits by the model's likelihood of the edited code.

Scoring a few lines is far cheaper than generating them: the lines before the edit
are a shared prefix, evaluated once (and the part of the window every candidate
shares with it), and each candidate then costs only its own tokens. Every candidate
is scored over the same span of the original file, so the scores compare.
"""

from __future__ import annotations

import re
from typing import Sequence

from .candidates import Candidate
from .check import source_lines
from .languages import comment_prefix
from .llm.base import LLM

CONTEXT_BEFORE = 4  # lines of shared prefix
CONTEXT_AFTER = 0  # lines after the last edited one, scored with each candidate (measured: no gain)
# Summed log-likelihood favours the shorter text, so deleting the separator between two
# names (``Counter(words`` -> ``Counterwords``)
# can outscore the real fix. A name the file never had is rarely what a syntax repair
# wants: such a candidate pays this many nats.
NEW_NAME_PENALTY = 4.0
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def rank(llm: LLM, source: str, language: str, candidates: Sequence[Candidate], *,
         normalise: bool = False) -> list[tuple[Candidate, float]]:
    """Candidates with their log-likelihood (higher is better), best first; with
    ``normalise``, per scored token. Raises ScoringUnsupported when the backend
    cannot score."""
    if not candidates:
        return []
    prefix, windows = scoring_texts(source, language, candidates)
    scores = llm.score(prefix, windows)
    known = set(_NAME.findall(source))
    scores = [s - NEW_NAME_PENALTY * bool(set(_NAME.findall(w)) - known) for s, w in zip(scores, windows)]
    if normalise:
        scores = [s / max(1, llm.count_tokens(w)) for s, w in zip(scores, windows)]
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    return [(candidates[i], scores[i]) for i in order]


def scoring_texts(source: str, language: str, candidates: Sequence[Candidate]) -> tuple[str, list[str]]:
    """The shared prompt (a language line and the lines before the window) and each
    candidate's version of the window."""
    original = source_lines(source)
    first = min(c.start_line for c in candidates)
    last = min(len(original), max(c.end_line for c in candidates) + CONTEXT_AFTER)
    before = original[max(0, first - 1 - CONTEXT_BEFORE):first - 1]
    marker = comment_prefix(language)
    header = f"{marker} {language}\n" if marker else ""
    prefix = header + "".join(line + "\n" for line in before)
    windows = []
    for c in candidates:
        lines = source_lines(c.source_after)
        end = last + len(lines) - len(original)  # every edit lies inside the window
        windows.append("\n".join(lines[first - 1:max(first - 1, end)]) + "\n")
    return prefix, windows
