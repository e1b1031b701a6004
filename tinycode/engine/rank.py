"""Ranking candidate edits by the model's likelihood of the edited code.

Scoring a few lines is far cheaper than generating them: the lines before the edit
are a shared prefix, evaluated once (and the part of the window every candidate
shares with it), and each candidate then costs only its own tokens. Every candidate
is scored over the same span of the original file, so the scores compare.
"""

from __future__ import annotations

import os
import re
from typing import Sequence

from .candidates import Candidate
from .grammar_space import distance, vocabulary
from ..check import source_lines
from ..languages import comment_prefix
from ..llm.base import LLM

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
    prefix, windows = scoring_texts(source, language, candidates)
    scores = llm.score(prefix, windows)
    known = set(_NAME.findall(source))
    scores = [s - NEW_NAME_PENALTY * bool(_new_names(w, known, language)) for s, w in zip(scores, windows)]
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    return [(candidates[i], scores[i]) for i in order]


def scoring_texts(source: str, language: str, candidates: Sequence[Candidate]) -> tuple[str, list[str]]:
    """The shared prompt (a language line and the lines before the window) and each
    candidate's version of the window: the lines where the candidates differ from each
    other. Edits they all make lie outside it, so a fix that repairs three distant
    errors is scored where the choice is, not over every line in between."""
    texts = [source_lines(c.source_after) for c in candidates]
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
