"""The language server's repairs: the loop run on a document's text in a thread of its
own, one repair at a time, with the model loaded on the first repair and kept warm.

Requests for the same text share one repair; a repair whose every requester has gone
(cancelled, or its document changed) is cancelled through its deadline
(:func:`tinycode.deadline.cancellable`), so it stops at the loop's next check. A call
already in the model's process is not interrupted: it ends at its own deadline.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from .. import judges
from ..deadline import cancellable
from ..errors import ModelUnavailable, TinycodeError

if TYPE_CHECKING:
    from ..config import Settings
    from ..engine.loop import RepairResult
    from ..engine.trace import Step

log = logging.getLogger("tinycode.lsp")

# Repairs remembered by text: a code action per diagnostic of one version, and its
# resolve, all read the same repair.
_REMEMBERED = 16


@dataclass
class Job:
    """One repair, running or done: its result future, the switch that cancels it, and
    how many requests still wait for it."""

    key: tuple[str, str]
    future: Future = field(default_factory=Future)
    cancel: threading.Event = field(default_factory=threading.Event)
    waiting: int = 0
    label: str = ""


class Repairs:
    """Runs repairs with one model, loaded lazily with ``options`` (those of
    :func:`tinycode.llm.loader.load_llm`) and kept for the life of the server."""

    def __init__(self, options: dict[str, Any]) -> None:
        self._options = options
        self._llm: Any = None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="tinycode-repair")
        self._jobs: OrderedDict[tuple[str, str], Job] = OrderedDict()
        self._lock = threading.Lock()
        self._closed = False

    def start(self, text: str, language: str, settings: Settings, label: str,
              on_step: Callable[[Step], None] | None = None, path: str | None = None) -> Job:
        """The repair of ``text`` (the file at ``path``, if it is one: a C or C++ compiler
        then reads its project's headers): a running or finished one for the same text,
        else a new one queued. The caller must :meth:`release` it when it stops waiting."""
        key = (language, text, path)
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and not job.cancel.is_set():
                self._jobs.move_to_end(key)
                job.waiting += 1
                return job
            job = Job(key, waiting=1, label=label)
            job.future = self._pool.submit(self._run, job, text, language, settings, on_step, path)
            self._jobs[key] = job
            while len(self._jobs) > _REMEMBERED:
                old_key, old = next(iter(self._jobs.items()))
                if not old.future.done():
                    break
                del self._jobs[old_key]
        return job

    def release(self, job: Job, *, cancel: bool = False) -> None:
        """One requester of ``job`` stops waiting; with ``cancel``, the repair stops when
        no requester is left."""
        with self._lock:
            job.waiting -= 1
            if cancel and job.waiting <= 0 and not job.future.done():
                job.cancel.set()
                self._jobs.pop(job.key, None)
                log.info("%s: repair cancelled", job.label)

    def cancel_all(self, reason: str) -> None:
        """Stop every repair that has not finished (the client went away)."""
        with self._lock:
            for job in self._jobs.values():
                if not job.future.done():
                    job.cancel.set()
                    log.info("%s: repair cancelled: %s", job.label, reason)
            self._jobs.clear()

    def close(self) -> None:
        self._closed = True
        self.cancel_all("the server is stopping")
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._llm is not None:
            self._llm.close()

    def _run(self, job: Job, text: str, language: str, settings: Settings,
             on_step: Callable[[Step], None] | None, path: str | None) -> RepairResult:
        from ..engine.loop import RepairResult, repair

        if job.cancel.is_set() or self._closed:
            return RepairResult(text, "failed", language, reason="cancelled")
        llm = self._model()
        try:
            with cancellable(job.cancel), judges.located(path):
                result = repair(text, language, llm=llm, settings=settings, on_step=on_step)
        except ModelUnavailable as exc:
            # The next repair loads the model again (a crashed process is not reused).
            log.error("%s: the model is unavailable: %s", job.label, exc)
            self._drop_model()
            return RepairResult(text, "failed", language, reason=f"model unavailable: {exc}")
        except TinycodeError as exc:
            log.error("%s: repair failed: %s", job.label, exc)
            return RepairResult(text, "failed", language, reason=str(exc))
        if job.cancel.is_set():
            result.reason = "cancelled"
        return result

    def _model(self) -> Any:
        if self._llm is None:
            from ..llm.loader import LazyLLM

            self._llm = LazyLLM(**self._options)
        return self._llm

    def _drop_model(self) -> None:
        llm, self._llm = self._llm, None
        if llm is not None:
            try:
                llm.close()
            except TinycodeError:
                pass
