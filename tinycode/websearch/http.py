"""One GET for the online backends, by tinycode's one HTTP policy (``tinycode.http``):
timeouts, retries with backoff, a size cap, within the search's own time bound.

Every network or HTTP failure becomes a :class:`SearchError`; nothing else escapes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Mapping

import requests

from ..deadline import DeadlineExceeded, until
from ..http import attempts, failure, read_body, session, timeout
from ..version import __version__
from .base import TRANSIENT, UNAVAILABLE, SearchError

CONNECT_TIMEOUT = 3.0
READ_TIMEOUT = 5.0
RETRIES = 2            # extra attempts after a transient failure
BACKOFF = 0.5          # seconds before the first retry; doubles each time
DEADLINE = 12.0        # wall time for all attempts together (the agent tool allows 15 s)
MAX_BYTES = 1_000_000  # the body is read in chunks and cut here
USER_AGENT = f"tinycode/{__version__} (+https://pypi.org/project/tinycode/)"
_LATER = "continue without search; it may work later"


@dataclass(frozen=True)
class Response:
    text: str
    truncated: bool  # the body was longer than the cap and was cut


def get(url: str, *, params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None, max_bytes: int | None = None) -> Response:
    """GET ``url``, following redirects; retry timeouts, dropped connections and
    429/5xx answers; raise ``SearchError`` ("transient" once retries or time run out,
    "unavailable" for 4xx or a bad URL)."""
    cap = MAX_BYTES if max_bytes is None else max_bytes
    sent_headers = {"User-Agent": USER_AGENT, "Accept-Language": "en"}
    sent_headers.update(headers or {})
    host = _host(url)
    tries = RETRIES + 1
    # The file's deadline, when one is set, stays the outer bound.
    with until(time.monotonic() + DEADLINE), session(retries=RETRIES, backoff=BACKOFF) as client:
        try:
            reply = client.get(url, params=params, headers=sent_headers, stream=True,
                               timeout=timeout(CONNECT_TIMEOUT, READ_TIMEOUT, f"a request to {host}"))
        except (requests.exceptions.InvalidURL, requests.exceptions.MissingSchema,
                requests.exceptions.InvalidSchema, requests.exceptions.InvalidHeader) as exc:
            raise SearchError(UNAVAILABLE, f"bad search URL {url!r}: {exc}",
                              "continue without search; check the backend's URL setting") from None
        except requests.RequestException as exc:
            kind = failure(exc)
            problem = (f"{host} did not answer in time" if kind == "timeout" else
                       f"cannot reach {host} ({type(exc).__name__})" if kind == "unreachable" else
                       f"{host} dropped the connection")
            raise SearchError(TRANSIENT, f"{problem}, after {tries} attempts", _LATER) from None
        except DeadlineExceeded:
            raise SearchError(TRANSIENT, f"{host} did not answer in the time left", _LATER) from None
        with reply:
            if reply.status_code >= 500 or reply.status_code == 429:
                raise SearchError(TRANSIENT, f"the server answered HTTP {reply.status_code}, "
                                  f"after {attempts(reply)} attempts", _LATER)
            if reply.status_code >= 400:
                raise SearchError(UNAVAILABLE, f"{host} answered HTTP {reply.status_code}")
            try:
                body, truncated = read_body(reply, cap, f"the answer from {host} arrived")
            except DeadlineExceeded:
                raise SearchError(TRANSIENT, f"{host} was too slow to send its answer", _LATER) from None
            except requests.RequestException as exc:
                problem = (f"{host} did not answer in time" if failure(exc) == "timeout"
                           else f"{host} dropped the connection while answering")
                raise SearchError(TRANSIENT, problem, _LATER) from None
    return Response(_decode(body, reply.headers.get("Content-Type", "")), truncated)


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
