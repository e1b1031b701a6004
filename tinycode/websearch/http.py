"""One robust GET for the online backends: timeouts, retries with backoff, a size cap.

Every network or HTTP failure becomes a :class:`SearchError`; nothing else escapes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Mapping

from .. import __version__
from ..deadline import remaining as time_left
from .base import TRANSIENT, UNAVAILABLE, SearchError

CONNECT_TIMEOUT = 3.0
READ_TIMEOUT = 5.0
RETRIES = 2            # extra attempts after a transient failure
BACKOFF = 0.5          # seconds before the first retry; doubles each time
DEADLINE = 12.0        # wall time for all attempts together (the agent tool allows 15 s)
MAX_BYTES = 1_000_000  # the body is read in chunks and cut here
USER_AGENT = f"tinycode/{__version__} (+https://pypi.org/project/tinycode/)"
_RETRY_STATUS = (429, 500, 502, 503, 504)


@dataclass(frozen=True)
class Response:
    status: int
    text: str
    url: str
    content_type: str
    truncated: bool  # the body was longer than the cap and was cut


def get(url: str, *, params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None, max_bytes: int | None = None) -> Response:
    """GET ``url``; retry timeouts, dropped connections and 5xx/429 answers; raise
    ``SearchError`` ("transient" once retries run out, "unavailable" for 4xx or a bad URL)."""
    import requests

    cap = MAX_BYTES if max_bytes is None else max_bytes
    budget = min(DEADLINE, time_left())  # the file's deadline, when one is set, is the outer bound
    sent_headers = {"User-Agent": USER_AGENT, "Accept-Language": "en"}
    sent_headers.update(headers or {})
    start = time.monotonic()
    problem = ""
    for attempt in range(RETRIES + 1):
        if attempt:
            delay = BACKOFF * 2 ** (attempt - 1)
            if time.monotonic() - start + delay >= budget:
                break
            time.sleep(delay)
        remaining = budget - (time.monotonic() - start)
        if remaining <= 0:
            problem = "the file's time budget is spent"
            break
        timeout = (min(CONNECT_TIMEOUT, remaining), min(READ_TIMEOUT, remaining))
        try:
            with requests.get(url, params=params, headers=sent_headers, timeout=timeout,
                              stream=True, allow_redirects=True) as reply:
                if reply.status_code in _RETRY_STATUS or reply.status_code >= 500:
                    problem = f"the server answered HTTP {reply.status_code}"
                    continue
                if reply.status_code >= 400:
                    raise SearchError(UNAVAILABLE, f"{_host(url)} answered HTTP {reply.status_code}")
                body, truncated = _read(reply, cap, start, budget)
                return Response(reply.status_code, _decode(body, reply.headers.get("Content-Type", "")),
                                reply.url, reply.headers.get("Content-Type", ""), truncated)
        except (requests.exceptions.InvalidURL, requests.exceptions.MissingSchema,
                requests.exceptions.InvalidSchema, requests.exceptions.InvalidHeader) as exc:
            raise SearchError(UNAVAILABLE, f"bad search URL {url!r}: {exc}",
                              "continue without search; check the backend's URL setting") from None
        except requests.exceptions.Timeout:
            problem = f"{_host(url)} did not answer in time"
        except _Overtime:
            problem = f"{_host(url)} was too slow to send its answer"
        except requests.exceptions.RequestException as exc:
            problem = f"cannot reach {_host(url)} ({type(exc).__name__})"
    raise SearchError(TRANSIENT, f"{problem}, after {RETRIES + 1} attempts",
                      "continue without search; it may work later")


class _Overtime(Exception):
    """The server kept the body trickling past the deadline."""


def _read(reply, cap: int, start: float, budget: float = DEADLINE) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    for chunk in reply.iter_content(chunk_size=65536):
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            return b"".join(chunks)[:cap], True
        if time.monotonic() - start > budget:
            raise _Overtime()
    return b"".join(chunks), False


def _decode(body: bytes, content_type: str) -> str:
    charset = "utf-8"
    for part in content_type.split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.lower() == "charset" and value:
            charset = value.strip('"\' ')
    try:
        return body.decode(charset, errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).netloc or url
