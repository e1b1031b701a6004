"""Online results cached on disk, keyed by backend and normalised query, with an expiry.

Files live in ``$TINYCODE_HOME/search-cache`` (else the user cache directory). A cache
that cannot be read or written is skipped, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

from ..paths import user_cache
from .base import SearchResult

TTL = 7 * 24 * 3600.0  # seconds a cached answer stays good
ENV_TTL = "TINYCODE_SEARCH_CACHE_TTL"


def cache_dir() -> Path:
    return user_cache("search-cache")


def normalise(query: str) -> str:
    return " ".join(query.lower().split())


def path_for(backend: str, query: str) -> Path:
    digest = hashlib.sha256(f"{backend}\n{normalise(query)}".encode()).hexdigest()
    return cache_dir() / f"{digest[:32]}.json"


def ttl() -> float:
    try:
        return float(os.environ.get(ENV_TTL, TTL))
    except ValueError:
        return TTL


def load(backend: str, query: str, *, now: float | None = None) -> list[SearchResult] | None:
    """The cached results, or None if absent, expired, or unreadable."""
    path = path_for(backend, query)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["backend"] != backend or data["query"] != normalise(query):
            return None
        if (time.time() if now is None else now) - float(data["time"]) > ttl():
            return None
        return [SearchResult.from_dict(item) for item in data["results"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(backend: str, query: str, results: list[SearchResult], *, now: float | None = None) -> None:
    path = path_for(backend, query)
    record = {"backend": backend, "query": normalise(query),
              "time": time.time() if now is None else now,
              "results": [r.to_dict() for r in results]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(record, handle, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass
