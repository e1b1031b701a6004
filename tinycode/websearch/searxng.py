"""A SearxNG instance's JSON API at ``TINYCODE_SEARXNG_URL``."""

from __future__ import annotations

import json

from . import http
from .base import UNAVAILABLE, SearchError, SearchResult

MAX_RESULTS = 10


def endpoint() -> str:
    """The instance's search URL, from the ``searxng_url`` setting (``TINYCODE_SEARXNG_URL``)."""
    from ..config import from_environment, setting
    from ..errors import ConfigError

    variable = setting("searxng_url").env
    try:
        base = from_environment("searxng_url")
    except ConfigError as exc:
        raise SearchError(UNAVAILABLE, str(exc), f"continue without search, or fix {variable}") from None
    if not base:
        raise SearchError(UNAVAILABLE, f"no SearxNG instance configured ({variable} is not set)",
                          f"continue without search, or set {variable}")
    return str(base).rstrip("/") + "/search"


def search(query: str) -> list[SearchResult]:
    try:
        reply = http.get(endpoint(), params={"q": query, "format": "json"},
                         headers={"Accept": "application/json"})
    except SearchError as exc:
        if "HTTP 403" in exc.detail:
            raise SearchError(UNAVAILABLE, exc.detail + " (is 'json' in search.formats of its "
                              "settings.yml?)", exc.hint) from None
        raise
    if reply.truncated:
        raise SearchError(UNAVAILABLE, "SearxNG's answer was larger than the size cap")
    return parse(reply.text)


def parse(text: str) -> list[SearchResult]:
    """Results from SearxNG's ``format=json`` answer; ``SearchError`` if it is not one."""
    try:
        data = json.loads(text)
    except ValueError:
        raise SearchError(UNAVAILABLE, "SearxNG did not answer with JSON") from None
    items = data.get("results") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise SearchError(UNAVAILABLE, "SearxNG's answer has no result list")
    results = []
    for item in items:
        if not isinstance(item, dict):
            continue
        url, title = item.get("url"), item.get("title")
        if isinstance(url, str) and isinstance(title, str) and url.startswith(("http://", "https://")):
            content = item.get("content")
            results.append(SearchResult(" ".join(title.split()), url,
                                        " ".join(content.split()) if isinstance(content, str) else ""))
        if len(results) == MAX_RESULTS:
            break
    return results
