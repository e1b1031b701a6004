"""Many files at once: worker pools whose results come back in input order.

Threads serve a model server (the work is waiting on HTTP); processes serve a model in
process (llama.cpp is not thread-safe, and each worker holds its own copy). Workers
only compute; the caller reports and writes each file in input order, so output,
summaries and exit codes do not depend on which worker finished first.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import queue
import signal
import threading
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool, ProcessPoolExecutor
from typing import Any, Callable, Generic, Iterable, Iterator, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MB = 1024 * 1024
# What one in-process worker needs: the mapped weights plus llama.cpp's context and
# compute buffers (about 0.8x the file for the 0.5B model at n_ctx 4096), plus the
# interpreter, tree-sitter grammars and the judges.
MODEL_MEMORY_FACTOR = 1.8
WORKER_OVERHEAD = 300 * MB


def cpu_count() -> int:
    """CPUs this process may run on (its affinity mask, where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def available_memory() -> int | None:
    """Bytes the system can give without swapping (``MemAvailable``), or None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def worker_memory(model_bytes: int) -> int:
    """Bytes one worker process holding a model file of ``model_bytes`` needs."""
    return int(model_bytes * MODEL_MEMORY_FACTOR) + WORKER_OVERHEAD


def cap_workers(requested: int, model_bytes: int, *, memory: int | None = None,
                cpus: int | None = None) -> tuple[int, str]:
    """How many in-process model workers fit: (count, why it is below ``requested``, or "").

    Each worker holds its own copy of the model, and llama.cpp keeps every core it is
    given busy, so neither more workers than memory allows nor than CPUs pays."""
    memory = available_memory() if memory is None else memory
    cpus = cpu_count() if cpus is None else cpus
    count, why = requested, ""
    if memory is not None:
        fit = max(1, memory // worker_memory(model_bytes))
        if fit < count:
            count = fit
            why = (f"{memory / MB:,.0f} MB available and each worker needs about "
                   f"{worker_memory(model_bytes) / MB:,.0f} MB")
    if cpus < count:
        count, why = cpus, f"{cpus} CPUs"
    return count, why


def done(value: T) -> Future[T]:
    """A future that already holds ``value`` (work that needed no worker)."""
    future: Future[T] = Future()
    future.set_result(value)
    return future


def in_order(items: Iterable[T], start: Callable[[T], Any], window: int) -> Iterator[tuple[T, Any]]:
    """``(item, start(item))`` in the order of ``items``, keeping at most ``window``
    started and not yet handed back: the workers stay busy while the caller waits on
    the oldest, and a long run never holds every file in memory."""
    pending: collections.deque[tuple[T, Any]] = collections.deque()
    for item in items:
        pending.append((item, start(item)))
        while len(pending) > window:
            yield pending.popleft()
    while pending:
        yield pending.popleft()


class ThreadPool:
    """``jobs`` daemon threads. Daemon, so that Ctrl-C ends the run at once instead of
    waiting for requests in flight (a worker never writes a file: nothing is lost)."""

    def __init__(self, jobs: int) -> None:
        self._tasks: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None] = \
            queue.SimpleQueue()
        self._threads = [threading.Thread(target=self._work, name=f"tinycode-job-{i}", daemon=True)
                         for i in range(jobs)]
        for thread in self._threads:
            thread.start()

    def submit(self, fn: Callable[..., R], *args: Any) -> Future[R]:
        future: Future[R] = Future()
        self._tasks.put((future, fn, args))
        return future

    def _work(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                return
            future, fn, args = task
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # handed to whoever waits on the future
                future.set_exception(exc)

    def close(self, *, cancel: bool = False) -> None:
        """Stop the threads once the queue is empty (``cancel``: drop what has not started)."""
        if cancel:
            try:
                while True:
                    task = self._tasks.get_nowait()
                    if task is not None:
                        task[0].cancel()
            except queue.Empty:
                pass
        for _ in self._threads:
            self._tasks.put(None)


def _ignore_interrupts(initializer: Callable[..., None] | None, args: tuple[Any, ...]) -> None:
    # Ctrl-C reaches every process of the terminal's foreground group: the parent alone
    # decides what stops, and stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*args)


class ProcessTask(Generic[R]):
    """One job in a :class:`ProcessPool`; :meth:`result` retries it once on a fresh
    pool if a worker process died (a crash or the kernel's out-of-memory killer), so
    one dead worker does not cost the other files their results."""

    def __init__(self, pool: ProcessPool, fn: Callable[..., R], args: tuple[Any, ...]) -> None:
        self._pool, self._fn, self._args = pool, fn, args
        self._future = pool._submit(fn, args)

    def result(self) -> R:
        try:
            return self._future.result()
        except BrokenProcessPool:
            return self._pool._submit(self._fn, self._args, fresh=True).result()


class ProcessPool:
    """``jobs`` worker processes started with ``spawn`` (a fork of a process holding
    llama.cpp or threads is unsafe), each running ``initializer(*initargs)`` once."""

    def __init__(self, jobs: int, initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        self._jobs, self._initializer, self._initargs = jobs, initializer, initargs
        self._executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self._jobs, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_ignore_interrupts,
                                   initargs=(self._initializer, self._initargs))

    def submit(self, fn: Callable[..., R], *args: Any) -> ProcessTask[R]:
        return ProcessTask(self, fn, args)

    def _submit(self, fn: Callable[..., R], args: tuple[Any, ...], *, fresh: bool = False) -> Future[R]:
        if fresh and getattr(self._executor, "_broken", False):
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = self._start()
        return self._executor.submit(fn, *args)

    def close(self, *, cancel: bool = False) -> None:
        """Wait for the workers to finish, or (``cancel``) drop pending work and stop
        the running workers now: they compute, they never write a file."""
        if not cancel:
            self._executor.shutdown(wait=True)
            return
        self._executor.shutdown(wait=False, cancel_futures=True)
        terminate = getattr(self._executor, "terminate_workers", None)  # Python 3.14
        if terminate is not None:
            terminate()
            return
        for process in list((getattr(self._executor, "_processes", None) or {}).values()):
            process.terminate()
