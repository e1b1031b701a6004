"""The offline backend: BM25 over the knowledge base shipped in ``tinycode/data/knowledge``.

One JSON file per language, each a list of entries: the message as the checker or the
compiler shows it (plus ``also``, other wordings), what it means, the usual fix, and a
broken -> fixed example. Pure Python; the index is built once, in milliseconds.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..languages import normalize, records
from .base import SearchResult
from .format import NEWLINE_MARK

K1 = 1.2
B = 0.75
LANGUAGE_BOOST = 2.5   # entries in the language the query names (or the caller gives)
OTHER_LANGUAGE = 0.4   # entries in another language, when a language is known
_FIELD_WEIGHTS = (("message", 3), ("also", 2), ("keywords", 2), ("means", 1), ("fix", 1))
_STOP = frozenset("a an the of in to is it at on for and or be this that did you your was "
                  "line error syntax".split())
_TOKEN = re.compile(r"[a-z_][a-z0-9_]*|\d+|[^\sa-z0-9_'\"`]")
_REWRITES = (("c++", " cpp "), ("g++", " cpp "), ("c#", " csharp "), ("f#", " fsharp "))
_LABEL_COLON = re.compile(r"(?<=[a-z0-9_]):(?=\s|$)")  # "SyntaxError: ...": a label, not code
PHRASE_BOOST = 2.0  # the query holds one of an entry's messages whole, or lies within one



def _language_words() -> dict[str, str]:
    """Words in a query that name a language -> the knowledge base's language name
    (each language's record lists its words)."""
    return {word: record.name for record in records() for word in record.words}


# Words in a query that name a language -> the knowledge base's language name.
LANGUAGE_WORDS = _language_words()
# Languages whose entries also serve a close relative.
FAMILY = {record.name: record.relatives for record in records() if record.relatives}


@dataclass(frozen=True)
class Entry:
    language: str
    id: str
    message: str
    means: str
    fix: str
    broken: str
    fixed: str
    also: tuple[str, ...] = ()
    keywords: str = ""

    def result(self) -> SearchResult:
        example = f"`{_flat(self.broken)}` → `{_flat(self.fixed)}`"
        return SearchResult(f"{self.language}: {self.message}", f"kb:{self.language}/{self.id}",
                            f"{self.means} Fix: {self.fix} Example: {example}")


def tokenize(text: str) -> list[str]:
    text = text.lower()
    for old, new in _REWRITES:
        text = text.replace(old, new)
    text = _LABEL_COLON.sub(" ", text)
    return [t for t in _TOKEN.findall(text) if t not in _STOP]


@lru_cache(maxsize=1)
def entries() -> tuple[Entry, ...]:
    """Every knowledge-base entry, in file order."""
    folder = resources.files("tinycode") / "data" / "knowledge"
    found: list[Entry] = []
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if not item.name.endswith(".json"):
            continue
        language = item.name[: -len(".json")]
        for raw in json.loads(item.read_text(encoding="utf-8")):
            found.append(Entry(language=language, id=raw["id"], message=raw["message"],
                               means=raw["means"], fix=raw["fix"], broken=raw["broken"],
                               fixed=raw["fixed"], also=tuple(raw.get("also", ())),
                               keywords=raw.get("keywords", "")))
    return tuple(found)


class _Index:
    def __init__(self, docs: tuple[Entry, ...]) -> None:
        self.docs = docs
        self.terms: list[Counter[str]] = []
        for entry in docs:
            counts: Counter[str] = Counter()
            for name, weight in _FIELD_WEIGHTS:
                value = getattr(entry, name)
                text = " ".join(value) if isinstance(value, tuple) else value
                for token in tokenize(text):
                    counts[token] += weight
            self.terms.append(counts)
        self.phrases = [[tokenize(m) for m in (entry.message, *entry.also)] for entry in docs]
        self.lengths = [sum(c.values()) for c in self.terms]
        self.average = sum(self.lengths) / max(len(self.lengths), 1)
        frequency: Counter[str] = Counter()
        for counts in self.terms:
            frequency.update(counts.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}

    def scores(self, query: list[str]) -> list[float]:
        wanted = Counter(query)
        out = []
        for counts, length in zip(self.terms, self.lengths):
            score = 0.0
            norm = K1 * (1 - B + B * length / self.average)
            for term, times in wanted.items():
                tf = counts.get(term)
                if tf:
                    score += times * self.idf[term] * tf * (K1 + 1) / (tf + norm)
            out.append(score)
        return out


@lru_cache(maxsize=1)
def index() -> _Index:
    return _Index(entries())


def search_knowledge(query: str, k: int = 3, *, language: str | None = None) -> list[SearchResult]:
    """The ``k`` best entries for ``query``; ``language`` (or a language named in the
    query) ranks that language's entries first."""
    tokens = tokenize(query)
    named = [LANGUAGE_WORDS[t] for t in tokens if t in LANGUAGE_WORDS]
    wanted = _language(language) or (named[0] if named else None)
    terms = [t for t in tokens if t not in LANGUAGE_WORDS]
    if not terms:
        return []
    idx = index()
    ranked = []
    for entry, score, phrases in zip(idx.docs, idx.scores(terms), idx.phrases):
        if score <= 0:
            continue
        if any(terms == phrase for phrase in phrases):
            score *= PHRASE_BOOST * 1.5
        elif any(_phrase_match(terms, phrase) for phrase in phrases):
            score *= PHRASE_BOOST
        if wanted is not None:
            if entry.language == wanted:
                score *= LANGUAGE_BOOST
            elif entry.language in FAMILY.get(wanted, ()):
                score *= LANGUAGE_BOOST / 2
            else:
                score *= OTHER_LANGUAGE
        ranked.append((score, entry))
    ranked.sort(key=lambda pair: -pair[0])
    return [entry.result() for _, entry in ranked[:k]]


def _phrase_match(query: list[str], message: list[str]) -> bool:
    """True if one token list occurs inside the other (at least two tokens long)."""
    short, long = (query, message) if len(query) <= len(message) else (message, query)
    if len(short) < 2:
        return False
    return any(long[i:i + len(short)] == short for i in range(len(long) - len(short) + 1))


def _language(name: str | None) -> str | None:
    if not name:
        return None
    key = normalize(name)
    return LANGUAGE_WORDS.get(key, key)


def _flat(code: str) -> str:
    return code.replace("\n", NEWLINE_MARK)
