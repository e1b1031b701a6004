"""web_search backends: an offline knowledge base (the default) and, only when asked,
DuckDuckGo's HTML page or a SearxNG instance.

``import tinycode.websearch`` stays light: ``requests`` is imported only when an online
backend is actually used, and ``TINYCODE_OFFLINE=1`` stops that before any socket opens.
"""

from __future__ import annotations

from ..config import WEB_BACKENDS as BACKENDS
from ..network import is_offline
from .base import INVALID_INPUT, UNAVAILABLE, SearchError, SearchResult
from .format import format_results

__all__ = ["BACKENDS", "SearchError", "SearchResult", "format_results", "is_offline", "search"]

MAX_QUERY_CHARS = 300
MAX_K = 10


def search(query: str, k: int = 3, *, backend: str = "offline", offline: bool = False,
           language: str | None = None, use_cache: bool = True) -> list[SearchResult]:
    """Up to ``k`` results for ``query``. ``language`` (optional) prefers that language's
    entries in the offline knowledge base. Raises :class:`SearchError` on any failure."""
    name = (backend or "offline").strip().lower()
    if name not in BACKENDS:
        raise SearchError(INVALID_INPUT, f"unknown search backend {backend!r}",
                          f"use one of: {', '.join(BACKENDS)}")
    text = " ".join(str(query).split())[:MAX_QUERY_CHARS]
    if not text:
        raise SearchError(INVALID_INPUT, "the query is empty", "search for the error message")
    try:
        k = max(1, min(int(k), MAX_K))
    except (TypeError, ValueError):
        raise SearchError(INVALID_INPUT, f"k must be a number, not {k!r}", "use k=3") from None
    if name == "offline":
        from .offline import search_knowledge

        return search_knowledge(text, k, language=language)
    if is_offline(offline):
        raise SearchError(UNAVAILABLE, f"the {name} backend needs the network, which is disabled "
                          "(--offline or TINYCODE_OFFLINE=1)",
                          "continue without search, or use the offline backend")
    return _online(name, text, k, use_cache)


def _online(name: str, query: str, k: int, use_cache: bool) -> list[SearchResult]:
    from . import cache

    if name == "duckduckgo":
        from . import duckduckgo as module
    else:
        from . import searxng as module
    key = f"{name}@{module.endpoint()}"
    if use_cache:
        cached = cache.load(key, query)
        if cached is not None:
            return cached[:k]
    results = module.search(query)
    if use_cache:
        cache.store(key, query, results)
    return results[:k]
