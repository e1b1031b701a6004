"""One deadline per file, seen by every stage that can wait: the candidate search, the
scoring pass, generation, the agent's turns and every HTTP request.

``repair()`` opens it with :func:`until`; code below reads :func:`remaining`. A
context variable rather than a parameter, so the model backends (which serve many
callers) need no deadline argument in their protocol, and threads each see their own.
Work run under :func:`cancellable` also ends when its switch is set (the language
server's ``$/cancelRequest``): every deadline inside has then passed.
"""

from __future__ import annotations

import math
import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from .errors import TinycodeError


class _Deadline:
    """One ``until`` block's end; ``outer`` is the block around it, so time paused in an
    inner block moves every end out. ``cancel``: the switch of the :func:`cancellable`
    block around it, if any, inherited by every block inside."""

    __slots__ = ("end", "outer", "cancel")

    def __init__(self, end: float, outer: _Deadline | None, cancel: threading.Event | None = None) -> None:
        self.end, self.outer = end, outer
        self.cancel = cancel if cancel is not None else (outer.cancel if outer is not None else None)


_deadline: ContextVar[_Deadline | None] = ContextVar("tinycode_deadline", default=None)


class DeadlineExceeded(TinycodeError):
    """The file's time budget was spent before this step could finish."""


def _end() -> float:
    current = _deadline.get()
    if current is None:
        return math.inf
    if current.cancel is not None and current.cancel.is_set():
        return -math.inf
    return current.end


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
def cancellable(switch: threading.Event) -> Iterator[None]:
    """Within the block, every deadline has passed as soon as ``switch`` is set, so the
    work stops at its next check as if its time were spent."""
    token = _deadline.set(_Deadline(_end(), _deadline.get(), switch))
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
