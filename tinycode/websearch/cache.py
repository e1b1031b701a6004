"""Online results cached on disk, keyed by backend and normalised query, with an expiry.

Files live in ``$TINYCODE_HOME/search-cache`` (else the user cache directory), sealed
with this user's key (``private.py``) since their text reaches the model. A file that is
not private, fails its tag, or cannot be read or written is skipped, never an error.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from ..paths import user_cache
from ..private import read_sealed, state_dir, write_sealed
from .base import SearchResult

FOLDER = "search-cache"
PURPOSE = "search"


def cache_dir() -> Path:
    return user_cache(FOLDER)


def normalise(query: str) -> str:
    return " ".join(query.lower().split())


def _key(backend: str, query: str) -> str:
    return f"{backend}\n{normalise(query)}"


def path_for(backend: str, query: str) -> Path:
    digest = hashlib.sha256(_key(backend, query).encode()).hexdigest()
    return cache_dir() / f"{digest[:32]}.json"


def ttl() -> float:
    from ..config import from_environment  # the search_cache_ttl setting; a bad value counts as unset

    return float(from_environment("search_cache_ttl", strict=False))


def load(backend: str, query: str, *, now: float | None = None) -> list[SearchResult] | None:
    """The cached results, or None if absent, expired, unreadable or not authentic."""
    path = path_for(backend, query)
    if state_dir(FOLDER) is None:
        return None
    payload = read_sealed(path, PURPOSE, _key(backend, query))
    if payload is None:
        return None
    try:
        data = json.loads(payload.decode("utf-8"))
        if data["backend"] != backend or data["query"] != normalise(query):
            return None
        if (time.time() if now is None else now) - float(data["time"]) > ttl():
            return None
        return [SearchResult.from_dict(item) for item in data["results"]]
    except (ValueError, KeyError, TypeError):
        return None


def store(backend: str, query: str, results: list[SearchResult], *, now: float | None = None) -> None:
    path = path_for(backend, query)
    record = {"backend": backend, "query": normalise(query),
              "time": time.time() if now is None else now,
              "results": [r.to_dict() for r in results]}
    if state_dir(FOLDER) is None:
        return
    payload = json.dumps(record, ensure_ascii=False).encode("utf-8")
    try:
        write_sealed(path.parent, path.name, PURPOSE, _key(backend, query), payload)
    except OSError:
        pass
