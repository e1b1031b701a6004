"""How the files of a ``fix`` run are repaired: one after another in this process,
threads against a model server, or worker processes each holding the model
(``tinycode.parallel``'s pools). Each file's outcome is handed back in input order;
workers never write a file.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..llm.file_model import FileModel
from .display import say

if TYPE_CHECKING:
    from ..config import Settings
    from ..engine.loop import RepairResult
    from .inputs import Input


@dataclass
class Outcome:
    """What repairing one file gave, as a worker hands it back: the result, or the
    error that stopped it (``unavailable``: the model could not be loaded at all);
    ``model_failure``: the first model error met while repairing it; ``steps_text``:
    the ``-v`` step descriptions, for workers that cannot print as they go."""

    result: RepairResult | None = None
    error: str = ""
    unavailable: bool = False
    model_failure: str | None = None
    steps_text: list[str] = field(default_factory=list)


def repair_file(model: FileModel, text: str, language: str, settings: Settings,
                on_step: Callable[[Any], None] | None = None, path: str | None = None) -> Outcome:
    """Repair one file's ``text`` (the file at ``path``: its project's headers are read)
    with ``model``; model errors become the outcome."""
    from .. import judges
    from ..engine.loop import repair
    from ..errors import ModelUnavailable, TinycodeError

    model.failure = None
    try:
        with judges.located(None if path == "-" else path):
            result = repair(text, language, llm=model, settings=settings, on_step=on_step)
    except TinycodeError as exc:  # the model could not be loaded or reached: this file only
        return Outcome(error=str(exc), unavailable=isinstance(exc, ModelUnavailable))
    return Outcome(result, model_failure=model.failure)


def _buffered(model: FileModel, text: str, language: str, settings: Settings, path: str,
              verbose: bool) -> Outcome:
    """:func:`repair_file` with the ``-v`` steps kept for the report, not printed."""
    lines: list[str] = []
    on_step = (lambda step: lines.append(f"--- {path}\n{step.describe()}")) if verbose else None
    outcome = repair_file(model, text, language, settings, on_step, path)
    outcome.steps_text = lines
    return outcome


class Workers(ABC):
    """How the files of a run are repaired: one after another, or by a pool. Every
    way hands each file's outcome to the same ``report``, in input order."""

    @abstractmethod
    def run(self, inputs: Iterable[Input], settings: Settings, report: Callable[[Input, Outcome | None], None], *,
            verbose: bool) -> None:
        """Repair what needs it among ``inputs`` and report each, in order."""

    def close(self, *, cancel: bool = False) -> None:
        pass


class _Pooled(Workers):
    """A pool: files are started as the window allows and reported in input order."""

    window: int

    def run(self, inputs: Iterable[Input], settings: Settings, report: Callable[[Input, Outcome | None], None], *,
            verbose: bool) -> None:
        from ..parallel import done, in_order

        def start(item: Input) -> Any:
            if not _needs_repair(item):
                return done(None)
            assert item.source is not None and item.language is not None
            return self._submit(item.source.text, item.language, item.settings or settings,
                                item.path, verbose)

        for item, task in in_order(inputs, start, window=self.window):
            report(item, _task_outcome(task))

    @abstractmethod
    def _submit(self, text: str, language: str, settings: Settings, path: str, verbose: bool) -> Any:
        """A future of the file's Outcome."""


class Sequential(Workers):
    """In this process, one file at a time; ``-v`` steps are printed as they happen."""

    def __init__(self, options: dict[str, Any]) -> None:
        from ..llm.loader import LazyLLM

        self.model = FileModel(LazyLLM(**options))

    def run(self, inputs: Iterable[Input], settings: Settings, report: Callable[[Input, Outcome | None], None], *,
            verbose: bool) -> None:
        for item in inputs:
            report(item, self.repair(item, settings, verbose) if _needs_repair(item) else None)

    def repair(self, item: Input, settings: Settings, verbose: bool) -> Outcome:
        assert item.source is not None and item.language is not None
        on_step = None
        if verbose:
            def on_step(step, path=item.path):  # noqa: ANN001 - a step record
                say(f"--- {path}\n{step.describe()}")
        return repair_file(self.model, item.source.text, item.language, item.settings or settings, on_step,
                           item.path)


class Threads(_Pooled):
    """N threads in this process, for a model server: N requests in flight. Each thread
    has its own client (its own HTTP session); a model found unavailable by one is
    unavailable to all."""

    def __init__(self, jobs: int, options: dict[str, Any]) -> None:
        from ..parallel import ThreadPool

        self.window, self.options = 2 * jobs, options
        self.local = threading.local()
        self.shared: dict[str, str | None] = {"unavailable": None}
        self.pool = ThreadPool(jobs)

    def _model(self) -> FileModel:
        model = getattr(self.local, "model", None)
        if model is None:
            from ..llm.loader import LazyLLM

            model = self.local.model = FileModel(LazyLLM(**self.options), shared=self.shared)
        return model

    def _repair(self, text: str, language: str, settings: Settings, path: str, verbose: bool) -> Outcome:
        return _buffered(self._model(), text, language, settings, path, verbose)

    def _submit(self, text: str, language: str, settings: Settings, path: str, verbose: bool) -> Any:
        return self.pool.submit(self._repair, text, language, settings, path, verbose)

    def close(self, *, cancel: bool = False) -> None:
        self.pool.close(cancel=cancel)


class Processes(_Pooled):
    """N worker processes, for a model in process (llama.cpp is not thread-safe): each
    loads the model once, when a file first needs it, with its share of the CPUs. The
    pool starts with the first file that has problems (clean files are done here), and
    N is capped by memory and CPUs. When the model file cannot be found, or only one
    worker fits, files are repaired here one at a time, exactly as without --jobs."""

    def __init__(self, jobs: int, options: dict[str, Any], settings: Settings) -> None:
        from ..llm.loader import LazyLLM

        self.requested, self.options, self.settings = jobs, options, settings
        self.window = 2 * jobs
        self.here = FileModel(LazyLLM(**options))  # loaded only if no pool is started
        self.pool: Any = None
        self.started = False

    def _start(self) -> None:
        """Find the model file, cap the worker count, and start the pool (or not)."""
        from ..errors import ModelError
        from ..llm import loader
        from ..models import resolve_model_path
        from ..parallel import ProcessPool, cap_workers, cpu_count

        self.started = True
        try:
            path = resolve_model_path(self.options["model"], offline=self.options["offline"],
                                      progress=self.options["progress"]).resolve()
            size = path.stat().st_size
        except (ModelError, OSError):
            return  # each file meets the same error here, reported as without --jobs
        jobs, why = cap_workers(self.requested, size)
        if jobs < self.requested:
            say(f"tinycode: note: --jobs {self.requested} lowered to {jobs} ({why})")
        if jobs == 1:
            return
        # llama.cpp keeps every thread it is given busy: the CPUs are shared out.
        options = {**self.options, "model": str(path), "progress": False,
                   "threads": max(1, cpu_count() // jobs)}
        # The loader as looked up now (tests substitute it) is the one the workers use.
        self.pool = ProcessPool(jobs, _worker_start, (self.settings, options, loader.load_llm))

    def _submit(self, text: str, language: str, settings: Settings, path: str, verbose: bool) -> Any:
        from ..check import check
        from ..parallel import done

        clean = check(text, language, None if path == "-" else path).ok
        if not clean and not self.started:
            self._start()
        if clean or self.pool is None:
            # Done now, but reported in its turn: its -v steps wait with it.
            return done(_buffered(self.here, text, language, settings, path, verbose))
        return self.pool.submit(_worker_repair, text, language, settings, path, verbose)

    def close(self, *, cancel: bool = False) -> None:
        if self.pool is not None:
            self.pool.close(cancel=cancel)


# The model of this worker process (see Processes).
_worker_model: FileModel | None = None


def _worker_start(settings: Settings, options: dict[str, Any], load: Callable[..., Any]) -> None:
    """Once per worker process: the run's judges, and a model loaded on first use."""
    global _worker_model
    from ..judges import configure_from
    from ..llm import loader
    from ..llm.loader import LazyLLM

    configure_from(settings)
    loader.load_llm = load  # the parent's own loader (the same function, but in tests)
    _worker_model = FileModel(LazyLLM(**options))


def _worker_repair(text: str, language: str, settings: Settings, path: str, verbose: bool) -> Outcome:
    assert _worker_model is not None, "_worker_start has not run"
    return _buffered(_worker_model, text, language, settings, path, verbose)


def _task_outcome(task: Any) -> Outcome | None:
    """A pool task's outcome; a worker that died twice on it costs this file only."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        return task.result()
    except BrokenProcessPool:
        return Outcome(error="the worker process repairing it stopped (out of memory?); "
                             "the file is unchanged")


def _needs_repair(item: Input) -> bool:
    return item.skipped is None and item.error is None
