"""Ranking candidate edits by the model's likelihood of the edited code.

Scoring a few lines is far cheaper than generating them: the lines before the edit
are a shared prefix, evaluated once, and each candidate's window is scored after it.
"""

from __future__ import annotations

from typing import Sequence

from .candidates import Candidate
from .check import source_lines
from .llm.base import LLM

CONTEXT_BEFORE = 6  # lines of shared prefix
CONTEXT_AFTER = 2


def rank(llm: LLM, source: str, language: str,
         candidates: Sequence[Candidate]) -> list[tuple[Candidate, float]]:
    """Candidates with their log-likelihood (higher is better), best first.
    Raises ScoringUnsupported when the backend cannot score."""
    if not candidates:
        return []
    original = source_lines(source)
    start = max(1, min(c.start_line for c in candidates) - CONTEXT_BEFORE)
    prefix = "\n".join(original[start - 1:min(c.start_line for c in candidates) - 1])
    first = min(c.start_line for c in candidates)
    windows = []
    for c in candidates:
        lines = source_lines(c.source_after)
        # Same span of the original file for every candidate: lines grow or shrink with the edit.
        delta = len(lines) - len(original)
        last = max(x.end_line for x in candidates) + CONTEXT_AFTER + delta
        windows.append("\n" + "\n".join(lines[first - 1:max(first, last)]) + "\n")
    header = f"# {language}\n"
    scores = llm.score(header + prefix, windows)
    ranked = sorted(zip(candidates, scores), key=lambda pair: -pair[1])
    return ranked
