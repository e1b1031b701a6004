"""One deadline per file, seen by every stage that can wait: the candidate search, the
scoring pass, generation, the agent's turns and every HTTP request.

``repair()`` opens it with :func:`until`; code below reads :func:`remaining`. A
context variable rather than a parameter, so the model backends (which serve many
callers) need no deadline argument in their protocol, and threads each see their own.
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from .errors import TinycodeError

_deadline: ContextVar[float] = ContextVar("tinycode_deadline", default=math.inf)


class DeadlineExceeded(TinycodeError):
    """The file's time budget was spent before this step could finish."""


@contextmanager
def until(deadline: float) -> Iterator[None]:
    """Within the block, work must end by ``deadline`` (a ``time.monotonic()`` value);
    a nested deadline can only be earlier."""
    token = _deadline.set(min(deadline, _deadline.get()))
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining() -> float:
    """Seconds left (``math.inf`` when no deadline is set, never negative)."""
    return max(0.0, _deadline.get() - time.monotonic())


def expired() -> bool:
    return time.monotonic() >= _deadline.get()


def ensure_time_left(what: str) -> None:
    """Raise DeadlineExceeded if the deadline has passed before ``what`` starts."""
    if expired():
        raise DeadlineExceeded(f"time budget spent before {what}")
