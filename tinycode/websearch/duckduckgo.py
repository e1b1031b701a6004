"""DuckDuckGo's HTML endpoint (no key), parsed with the standard library."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

from . import http
from .base import UNAVAILABLE, SearchError, SearchResult

MAX_RESULTS = 10


def endpoint() -> str:
    """The page to ask: the ``duckduckgo_url`` setting (``TINYCODE_DUCKDUCKGO_URL``)."""
    from ..config import from_environment
    from ..errors import ConfigError

    try:
        return str(from_environment("duckduckgo_url"))
    except ConfigError as exc:
        raise SearchError(UNAVAILABLE, str(exc), "continue without search") from None


def search(query: str) -> list[SearchResult]:
    reply = http.get(endpoint(), params={"q": query}, headers={"Accept": "text/html"})
    return parse(reply.text)


def parse(page: str) -> list[SearchResult]:
    """The organic results of a result page; ``SearchError`` if it is not one (a block
    page, a changed layout, garbage)."""
    parser = _ResultParser()
    try:
        parser.feed(page)
        parser.close()
    except Exception:  # html.parser is lenient; anything it still rejects is not a result page
        raise SearchError(UNAVAILABLE, "DuckDuckGo sent a page that cannot be read") from None
    results = [r for r in parser.results if r.title and r.url][:MAX_RESULTS]
    if not results and not parser.no_results:
        raise SearchError(UNAVAILABLE, "DuckDuckGo sent a page without results "
                          "(blocked, or its layout changed)")
    return results


def resolve(href: str) -> str | None:
    """The target of a result link (DuckDuckGo wraps it in ``/l/?uddg=``); None for ads."""
    if href.startswith("//"):
        href = "https:" + href
    parts = urlsplit(href)
    if parts.path.startswith("/y.js"):
        return None
    if parts.path.startswith("/l/"):
        target = parse_qs(parts.query).get("uddg")
        if not target:
            return None
        href = target[0]
        parts = urlsplit(href)
    return href if parts.scheme in ("http", "https") and parts.netloc else None


class _ResultParser(HTMLParser):
    """Collects ``a.result__a`` (title, link) and the ``.result__snippet`` after it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.results: list[SearchResult] = []
        self.no_results = False
        self._field: str | None = None  # "title" | "snippet" while inside one
        self._tag = ""
        self._depth = 0
        self._text: list[str] = []
        self._url: str | None = None
        self._title = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._field is not None:
            if tag == self._tag:
                self._depth += 1
            return
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if "no-results" in classes:
            self.no_results = True
        if tag == "a" and "result__a" in classes:
            self._flush()
            self._url = resolve(values.get("href") or "")
            self._start("title", tag)
        elif "result__snippet" in classes and self._title:
            self._start("snippet", tag)

    def handle_endtag(self, tag: str) -> None:
        if self._field is None or tag != self._tag:
            return
        if self._depth:
            self._depth -= 1
            return
        text = " ".join("".join(self._text).split())
        if self._field == "title":
            self._title = text
        else:
            self._add(text)
        self._field = None

    def handle_data(self, data: str) -> None:
        if self._field is not None:
            self._text.append(data)

    def close(self) -> None:
        super().close()
        self._flush()

    def _start(self, field: str, tag: str) -> None:
        self._field, self._tag, self._depth, self._text = field, tag, 0, []

    def _add(self, snippet: str) -> None:
        if self._url and self._title:
            self.results.append(SearchResult(self._title, self._url, snippet))
        self._url, self._title = None, ""

    def _flush(self) -> None:
        if self._title:
            self._add("")
