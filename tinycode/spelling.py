"""How far apart two words are in typing: one measure for the engine's spelling
proposals and for the judges' reading of a name that is a keyword mistyped; and the
two words a name is when the space between them was lost."""

from __future__ import annotations

from typing import Callable

FUSED_PART = 3  # letters, at least, of each of two words typed together


def distance(a: str, b: str, cap: int = 3) -> int:
    """Damerau-Levenshtein (optimal string alignment) distance, ``cap`` when larger."""
    if abs(len(a) - len(b)) >= cap:
        return cap
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return min(previous[-1], cap)


def fused(name: str, known: Callable[[str], bool], part: int = FUSED_PART) -> tuple[str, str] | None:
    """The two ``known`` words ``name`` is, typed together with the space between them
    lost (``typenameTraits``: ``typename`` and ``Traits``), each of ``part`` letters or
    more; None when it is no two. The first split from the left that is."""
    for at in range(part, len(name) - part + 1):
        if known(name[:at]) and known(name[at:]):
            return name[:at], name[at:]
    return None
