"""The one HTTP policy of tinycode: urllib3's ``Retry`` mounted on a ``requests``
session, bounded by the file's deadline. The model server client and the online
search backends both use it.

Retried: connections that could not be made, connections dropped before an answer,
and answers 429, 500, 502, 503 and 504, on GET and on the other idempotent methods,
and on POST only where the caller says a repeat is harmless. The waits double from
``backoff``; a ``Retry-After`` on 429 or 503 replaces them, up to MAX_RETRY_AFTER.
Every wait and every attempt's timeouts are cut to what
:func:`tinycode.deadline.remaining` leaves, and no attempt starts once it is spent
(:class:`~tinycode.deadline.DeadlineExceeded`). Bodies are read in chunks up to a cap,
the deadline checked between chunks. Which hosts may be contacted at all is
``tinycode.network``'s rule, asked by the callers; a server on this machine is reached
directly, never through a proxy from the environment (``HTTP_PROXY``...), which would
carry the code, and any API key, off the machine.
"""

from __future__ import annotations

from typing import Any, Collection

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import InvalidHeader, MaxRetryError, NewConnectionError, ReadTimeoutError
from urllib3.util import Retry, Timeout

from .deadline import ensure_time_left, remaining
from .network import is_loopback

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 10.0  # seconds; a server asking for more is asked again sooner
SAFE_METHODS = Retry.DEFAULT_ALLOWED_METHODS  # GET, HEAD, PUT, DELETE, OPTIONS, TRACE
CHUNK = 65536


class _Retry(Retry):
    """urllib3's Retry with the deadline as the outer bound on every wait; read timeouts
    are retried only where the caller asks (a server that used its whole read timeout
    is not kept waiting for again)."""

    def __init__(self, *args: Any, retry_read_timeouts: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.retry_read_timeouts = retry_read_timeouts

    def new(self, **kwargs: Any) -> "_Retry":
        kwargs.setdefault("retry_read_timeouts", self.retry_read_timeouts)
        return super().new(**kwargs)

    def increment(self, method: str | None = None, url: str | None = None, response: Any = None,
                  error: Exception | None = None, _pool: Any = None, _stacktrace: Any = None) -> "_Retry":
        if isinstance(error, ReadTimeoutError) and not self.retry_read_timeouts:
            raise error
        return super().increment(method, url, response, error, _pool, _stacktrace)

    def get_backoff_time(self) -> float:
        """``backoff``, then twice that, four times ... (urllib3's own schedule would retry
        the first time at once), cut to what the deadline leaves."""
        if not self.history:
            return 0.0
        wait = self.backoff_factor * 2 ** (len(self.history) - 1)
        return max(0.0, min(wait, self.backoff_max, remaining()))

    def get_retry_after(self, response: Any) -> float | None:
        """The server's ``Retry-After`` in seconds (a number, decimals allowed, or an HTTP
        date), capped; None when absent or unreadable (the backoff applies)."""
        value = response.headers.get("Retry-After")
        if value is None:
            return None
        try:
            seconds = float(value)
        except ValueError:
            try:
                seconds = self.parse_retry_after(value)
            except InvalidHeader:
                return None
        if seconds != seconds:  # NaN
            return None
        return min(max(seconds, 0.0), MAX_RETRY_AFTER, remaining())


class _DeadlineTimeout(Timeout):
    """Connect and read timeouts for each attempt, cut to what the deadline leaves at
    its start; urllib3 clones the timeout once per attempt, so that is where an attempt
    past the deadline is refused."""

    def __init__(self, connect: float, read: float, what: str) -> None:
        super().__init__(connect=connect, read=read)
        self.limits = (connect, read)
        self.what = what

    def clone(self) -> Timeout:
        ensure_time_left(self.what)
        left = max(remaining(), 0.001)
        return Timeout(connect=min(self.limits[0], left), read=min(self.limits[1], left))


def session(*, retries: int, backoff: float, methods: Collection[str] = SAFE_METHODS,
            retry_read_timeouts: bool = True) -> requests.Session:
    """A ``requests`` session retrying by this policy: ``retries`` attempts after the
    first, on ``methods`` (add "POST" only where a repeat is harmless)."""
    policy = _Retry(total=retries, backoff_factor=backoff, status_forcelist=RETRY_STATUS,
                    allowed_methods=frozenset(m.upper() for m in methods), raise_on_status=False,
                    respect_retry_after_header=True, retry_read_timeouts=retry_read_timeouts)
    adapter = HTTPAdapter(max_retries=policy)
    client = _Session()
    client.mount("http://", adapter)
    client.mount("https://", adapter)
    return client


class _Session(requests.Session):
    """A session whose requests to this machine use no proxy (see the module's note)."""

    def merge_environment_settings(self, url: Any, proxies: Any, stream: Any, verify: Any,
                                   cert: Any) -> dict[str, Any]:
        settings = super().merge_environment_settings(url, proxies, stream, verify, cert)
        if url and is_loopback(url):
            settings["proxies"] = {}
        return settings


def timeout(connect: float, read: float, what: str) -> Timeout:
    """The ``timeout=`` for a request: these limits, cut by the deadline per attempt;
    ``what`` names the request in the DeadlineExceeded raised once it is spent."""
    return _DeadlineTimeout(connect, read, what)


def attempts(response: requests.Response) -> int:
    """How many attempts the answer took (1 when it came first time)."""
    retry = getattr(response.raw, "retries", None)
    return len(retry.history) + 1 if retry is not None else 1


def failure(exc: requests.RequestException) -> str:
    """What a failed request ran into: "timeout" (no answer within the read timeout),
    "unreachable" (no usable connection could be made: refused, no such host, TLS or
    proxy failure) or "dropped" (the connection broke)."""
    reason: Any = exc.args[0] if exc.args else None
    if isinstance(reason, MaxRetryError):
        reason = reason.reason
    if isinstance(exc, requests.ReadTimeout) or isinstance(reason, ReadTimeoutError):
        return "timeout"
    if isinstance(exc, (requests.ConnectTimeout, requests.exceptions.SSLError,
                        requests.exceptions.ProxyError)) or isinstance(reason, NewConnectionError):
        return "unreachable"
    return "dropped"


def read_body(response: requests.Response, limit: int, what: str) -> tuple[bytes, bool]:
    """The body of a streamed ``response``, at most ``limit`` bytes, and whether there
    was more (reading stops there: a broken or hostile server must not fill the
    memory). Raises DeadlineExceeded when the deadline passes before ``what``."""
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_content(CHUNK):
        ensure_time_left(what)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return b"".join(chunks)[:limit], True
    return b"".join(chunks), False
