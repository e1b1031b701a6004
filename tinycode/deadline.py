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


class _Deadline:
    """One ``until`` block's end; ``outer`` is the block around it, so time paused in an
    inner block moves every end out."""

    __slots__ = ("end", "outer")

    def __init__(self, end: float, outer: _Deadline | None) -> None:
        self.end, self.outer = end, outer


_deadline: ContextVar[_Deadline | None] = ContextVar("tinycode_deadline", default=None)


class DeadlineExceeded(TinycodeError):
    """The file's time budget was spent before this step could finish."""


def _end() -> float:
    current = _deadline.get()
    return current.end if current is not None else math.inf


@contextmanager
def until(deadline: float) -> Iterator[None]:
    """Within the block, work must end by ``deadline`` (a ``time.monotonic()`` value);
    a nested deadline can only be earlier."""
    token = _deadline.set(_Deadline(min(deadline, _end()), _deadline.get()))
    try:
        yield
    finally:
        _deadline.reset(token)


@contextmanager
def paused() -> Iterator[None]:
    """Time spent in the block does not count against the deadline: waiting for a turn
    (a server slot another file holds) is not this file's work, and a file must get the
    same budget with ``--jobs 4`` as alone."""
    started = time.monotonic()
    try:
        yield
    finally:
        waited = time.monotonic() - started
        current = _deadline.get()
        while current is not None:
            current.end += waited
            current = current.outer


def remaining() -> float:
    """Seconds left (``math.inf`` when no deadline is set, never negative)."""
    return max(0.0, _end() - time.monotonic())


def expired() -> bool:
    return time.monotonic() >= _end()


def ensure_time_left(what: str) -> None:
    """Raise DeadlineExceeded if the deadline has passed before ``what`` starts."""
    if expired():
        raise DeadlineExceeded(f"time budget spent before {what}")
