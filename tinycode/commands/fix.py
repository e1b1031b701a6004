"""``tinycode fix [PATH...] | -``: repair files in place, or show a diff, or filter stdin.

Folders are walked as by ``check`` (``.gitignore``, ``exclude``; default ``.``). Each
file is repaired with the configuration nearest to it (steps, timeout, guard limits);
the model and its backend are chosen once per run, from the configuration nearest the
first path.

Exit codes as ruff: 0 every file is clean at the end, 1 some file still has problems
(or, with ``--exit-non-zero-on-fix``, was changed), 2 usage, model or I/O errors.
The model is loaded once per process, and only if some file needs it.

``--jobs N`` repairs N files at once (threads against a server, worker processes for a
model in process); each file is still reported and written in input order, so the
output and exit code are those of ``--jobs 1``.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, TextIO

from .display import printable
from .inputs import add_input_arguments, add_setting_arguments, jobs_count
from .output import add_output_arguments, render_report

if TYPE_CHECKING:
    from ..check import CheckResult
    from ..config import Settings
    from ..llm.base import LLM
    from ..engine.loop import RepairResult
    from ..sourcefile import SourceFile
    from .inputs import Input


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="PATH",
                        help="files and folders to repair (default: .); - reads stdin")
    parser.add_argument("--diff", action="store_true", help="print a unified diff; write nothing")
    add_output_arguments(parser, statistics=False)
    add_input_arguments(parser)
    add_setting_arguments(parser, "fix")  # --model, --backend, --max-steps, ... from config.SETTINGS
    parser.add_argument("--backup", action="store_true",
                        help="keep FILE.orig (or FILE.N.orig if that exists) before writing")
    parser.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when a file was changed")
    parser.add_argument("--trace", metavar="FILE", help="write every agent step as JSON lines")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="show the agent's steps and skipped files on stderr")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    parser.add_argument("-j", "--jobs", type=jobs_count, metavar="N",
                        help="files repaired at once (default 1): with --backend openai, N requests "
                             "to the server (match its parallel slots: queued requests spend each "
                             "file's --timeout); in process, N worker processes each loading the "
                             "model, capped by memory and CPUs")


def run(args: argparse.Namespace) -> int:
    from ..judges import configure_from
    from ..errors import UsageError
    from ..llm.loader import model_options
    from ..config import RunSettings
    from .inputs import default_paths, iter_inputs, resolve_language, say_note, setting_overrides

    lang = resolve_language(args.lang)
    paths = default_paths(args.files, args.stdin_filename)
    args.json = args.output_format != "text"  # stdout holds the report, not diffs or sources
    if args.json and args.diff and args.output_format != "json":
        raise UsageError(f"--diff goes with --output-format text or json, not {args.output_format}")
    run_settings = RunSettings(setting_overrides(args, "fix"), say_note)
    settings = run_settings.first(paths, args.stdin_filename)
    configure_from(settings)  # the judges are chosen once per run
    if args.trace:  # checked before anything is opened or repaired
        refused = unsafe_output(args.trace, paths)
        if refused:
            raise UsageError(f"--trace {args.trace}: {refused}")
    progress = sys.stderr.isatty() and not args.quiet
    jobs = args.jobs or 1
    options = {**model_options(settings), "progress": progress}
    trace = _open_trace(args.trace) if args.trace else None
    report = _Reporter(args, trace, progress)
    inputs = iter_inputs(paths, lang, settings=run_settings, max_size="max_file_size",
                         ignore_unknown=args.ignore_unknown, stdin_filename=args.stdin_filename)
    if jobs == 1:
        workers: _Workers = _Sequential(options)
    elif settings.backend == "openai":
        workers = _Threads(jobs, {**options, "server_slots": settings.server_slots})
    else:
        workers = _Processes(jobs, options, settings)
    try:
        workers.run(inputs, settings, report, verbose=args.verbose)
    except KeyboardInterrupt:
        # Work not started is dropped and running workers are stopped: they never
        # write; every write happens here, atomically, one file at a time.
        workers.close(cancel=True)
        raise
    else:
        workers.close()
    finally:
        if report.trace is not None:
            report.trace.close()
    return report.finish(paths)



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
    from ..errors import ModelUnavailable, TinycodeError
    from ..engine.loop import repair

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


class _Workers(ABC):
    """How the files of a run are repaired: one after another, or by a pool. Every
    way reports through the same ``_Reporter``, in input order."""

    @abstractmethod
    def run(self, inputs: Iterable[Input], settings: Settings, report: _Reporter, *,
            verbose: bool) -> None:
        """Repair what needs it among ``inputs`` and report each, in order."""

    def close(self, *, cancel: bool = False) -> None:
        pass


class _Pooled(_Workers):
    """A pool: files are started as the window allows and reported in input order."""

    window: int

    def run(self, inputs: Iterable[Input], settings: Settings, report: _Reporter, *,
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


class _Sequential(_Workers):
    """In this process, one file at a time; ``-v`` steps are printed as they happen."""

    def __init__(self, options: dict[str, Any]) -> None:
        from ..llm.loader import LazyLLM

        self.model = FileModel(LazyLLM(**options))

    def run(self, inputs: Iterable[Input], settings: Settings, report: _Reporter, *,
            verbose: bool) -> None:
        for item in inputs:
            report(item, self.repair(item, settings, verbose) if _needs_repair(item) else None)

    def repair(self, item: Input, settings: Settings, verbose: bool) -> Outcome:
        assert item.source is not None and item.language is not None
        on_step = None
        if verbose:
            def on_step(step, path=item.path):  # noqa: ANN001 - a step record
                _say(f"--- {path}\n{step.describe()}")
        return repair_file(self.model, item.source.text, item.language, item.settings or settings, on_step,
                           item.path)


class _Threads(_Pooled):
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


class _Processes(_Pooled):
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
            _say(f"tinycode: note: --jobs {self.requested} lowered to {jobs} ({why})")
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


# The model of this worker process (see _Processes).
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


class _Reporter:
    """Reports each file in input order: messages, the write (atomic), the diff or
    the source for stdin, the trace and the JSON report; keeps the run's counts."""

    def __init__(self, args: argparse.Namespace, trace: TextIO | None, progress: bool) -> None:
        self.args, self.trace, self.progress = args, trace, progress
        self.reports: list[dict[str, Any]] = []
        self.remaining = self.changed = self.errors = self.model_errors = 0
        self.said_unavailable = False
        # On a terminal, a bar counts the files done (the total is not known while the
        # folders are still being walked); elsewhere it prints nothing.
        from tqdm import tqdm  # imported by fix only: every command's parser loads this module

        self.bar = tqdm(desc="tinycode fix", unit=" files", file=sys.stderr, disable=not progress,
                        leave=False, dynamic_ncols=True)

    def __call__(self, item: Input, outcome: Outcome | None) -> None:
        self._report(item, outcome)
        self.bar.update()

    def _report(self, item: Input, outcome: Outcome | None) -> None:
        from ..check import render
        from ..engine.edits import unified_diff

        args = self.args
        filtering = item.stdin and not args.diff and not args.json  # a filter never loses its input
        if item.skipped is not None:
            if args.verbose:
                _say(f"tinycode: note: {item.path}: skipped ({item.skipped})")
            if filtering and item.source is not None:
                sys.stdout.write(item.source.text)
            return
        if item.error is not None:
            self.errors += 1
            _say(f"tinycode: error: {item.error}")
            self.reports.append({"path": item.path, "status": "error", "error": item.error})
            return
        assert item.source is not None and item.language is not None and outcome is not None
        text = item.source.text
        for line in outcome.steps_text:
            _say(line)
        result = outcome.result
        if result is None:
            self.errors, self.model_errors = self.errors + 1, self.model_errors + 1
            repeated = outcome.unavailable and self.said_unavailable
            self.said_unavailable = self.said_unavailable or outcome.unavailable
            _say(f"tinycode: error: {item.path}: "
                 + ("not repaired (the model is unavailable, see above)" if repeated else outcome.error))
            self.reports.append({"path": item.path, "language": item.language, "status": "error",
                                 "reason": outcome.error, "error": outcome.error})
            if filtering:
                sys.stdout.write(text)
            return
        if result.status == "failed" and outcome.model_failure is not None:
            result.status = "error"  # the model failed on this file; the others go on
            self.errors, self.model_errors = self.errors + 1, self.model_errors + 1
            _say(f"tinycode: error: {item.path}: not repaired ({result.reason})")
        diff = unified_diff(text, result.source, item.path) if result.status == "fixed" else ""
        if self.trace is not None and not _write_trace(self.trace, result.steps, item.path):
            self.errors += 1
            self.trace = None
        if result.status == "fixed":
            self.changed += 1
            if args.diff:
                if not args.json:
                    _print_diff(diff)
            elif item.stdin:
                if not args.json:
                    sys.stdout.write(result.source)
            else:
                refused, note = _write_back(item.source, result.source, backup=args.backup)
                if refused:
                    self.changed, self.errors = self.changed - 1, self.errors + 1
                    result.status, result.reason = "error", refused
                    _say(f"tinycode: error: {item.path}: {refused}")
                elif not args.quiet:
                    # Each file written is named, as black's "reformatted"; the
                    # progress line already names it on a terminal.
                    if not args.json and not self.progress:
                        _say(f"{item.path}: fixed")
                    if note:
                        _say(f"tinycode: note: {item.path}: {note}")
        elif result.status == "failed":
            self.remaining += 1
            if not args.quiet and not args.json:
                _say(f"{item.path}: not fixed ({result.reason})")
                _say(render(_problems_before(result), text, path=item.path))
        if result.status != "fixed" and filtering:
            sys.stdout.write(text)
        if self.progress:
            _say(f"{item.path}: {result.status} ({len(result.steps)} steps, {result.seconds:.1f} s)")
        report = {
            "path": item.path, "language": result.language, "status": result.status,
            "reason": result.reason, "problems_before": [p.to_dict() for p in result.problems_before],
            "problems_after": [p.to_dict() for p in result.problems_after],
            "steps": len(result.steps), "fast_path": result.fast_path,
            "model_calls": result.model_calls, "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens, "seconds": round(result.seconds, 3),
            "diff": diff}
        if result.status == "error":
            report["error"] = result.reason
        self.reports.append(report)

    def finish(self, paths: list[str]) -> int:
        """Print the JSON report and the summary; the run's exit code."""
        args = self.args
        self.bar.close()
        if args.json:
            sys.stdout.write(render_report(self.reports, args.output_format))
        if not self.reports and not self.errors and not args.quiet:
            _say("tinycode: warning: no files to repair under the given paths")
        elif (not args.quiet and not self.progress and (self.changed or self.remaining or self.model_errors)
                and not (paths == ["-"])):
            stopped = f"; {self.model_errors} stopped by a model error" if self.model_errors else ""
            total = self.changed + self.remaining + self.model_errors
            _say(f"Fixed {self.changed} of {total} files with problems{stopped}.")
        elif not args.quiet and not self.progress and not self.errors and paths != ["-"] and not args.diff:
            noun = "file" if len(self.reports) == 1 else "files"
            _say(f"No problems found in {len(self.reports)} {noun}; nothing to fix.")  # as check says
        if self.errors:
            return 2
        if self.remaining or (args.exit_non_zero_on_fix and self.changed):
            return 1
        return 0


class FileModel:
    """The run's model as each file sees it. It notes the first model failure of the
    current file (``failure``, reset per file), and once the model could not be loaded
    at all, later files fail at once instead of loading it again. Models of worker
    threads pass one ``shared`` dict, so that holds for all of them."""

    def __init__(self, llm: LLM, shared: dict[str, str | None] | None = None) -> None:
        self._llm = llm
        self.failure: str | None = None
        self._shared: dict[str, str | None] = shared if shared is not None else {"unavailable": None}

    @property
    def unavailable(self) -> str | None:
        return self._shared["unavailable"]

    @unavailable.setter
    def unavailable(self, reason: str | None) -> None:
        self._shared["unavailable"] = reason

    @property
    def name(self) -> str:
        return self._call(lambda: self._llm.name)

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(lambda: self._llm.complete(*args, **kwargs))

    def count_tokens(self, text: str) -> int:
        return self._call(lambda: self._llm.count_tokens(text))

    def score(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(lambda: self._llm.score(*args, **kwargs))

    def close(self) -> None:
        self._llm.close()

    def _call(self, call: Callable[[], Any]) -> Any:
        from ..errors import ModelError, ModelUnavailable

        if self.unavailable is not None:
            raise ModelUnavailable(self.unavailable)
        try:
            return call()
        except ModelUnavailable as exc:
            self.unavailable = str(exc)
            self.failure = self.failure or str(exc)
            raise
        except ModelError as exc:
            self.failure = self.failure or str(exc)
            raise


# Fields every trace record has (``Step.to_dict`` and the file's path): an existing file
# is overwritten only when its first line is such a record.
_TRACE_FIELDS = ("path", "kind", "thought", "action", "observation")


def unsafe_output(path: str, inputs: list[str]) -> str:
    """Why writing an output file at ``path`` could destroy something, or "" when it is
    safe: it is one of the ``inputs``, a file of a type the walk of an input folder
    would read (it would be repaired as one), a directory, a link, or an existing
    file that is not a tinycode trace."""
    from ..languages import detect

    for name in inputs:
        if name == "-":
            continue
        if _same_file(path, name):
            return f"is also an input file ({name}); refusing to overwrite it"
        if os.path.isdir(name) and _inside(path, name) and detect(path) is not None:
            return f"lies in the input folder {name} and would be read as an input; write it elsewhere"
    if os.path.islink(path):
        return "is a symbolic link; refusing to write through it"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        return f"cannot use it ({exc.strerror})"
    if stat.S_ISDIR(info.st_mode):
        return "is a directory"
    if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
        return ""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(65536)
        record = json.loads(first)
    except (OSError, ValueError):
        record = None
    if not isinstance(record, dict) or not all(field in record for field in _TRACE_FIELDS):
        return "exists and is not a tinycode trace; refusing to overwrite it"
    return ""


def _inside(path: str, folder: str) -> bool:
    folder = os.path.realpath(folder)
    return os.path.commonpath([os.path.realpath(path), folder]) == folder


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _open_trace(path: str) -> TextIO:
    from ..errors import UsageError

    try:
        # Never through a link put in its place since it was checked.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
        return open(fd, "w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--trace {path}: cannot write ({exc.strerror or exc})") from None


def _write_trace(trace: TextIO, steps: list[Any], path: str) -> bool:
    """Append ``steps`` to the trace; on a write error say so, close it and return False
    (the repairs go on untraced)."""
    from ..engine.trace import write_jsonl

    try:
        write_jsonl(steps, trace, path=path)
        trace.flush()
    except OSError as exc:
        _say(f"tinycode: error: --trace: cannot write ({exc.strerror or exc}); tracing stopped")
        try:
            trace.close()
        except OSError:
            pass
        return False
    return True


def _write_back(source: SourceFile, text: str, *, backup: bool) -> tuple[str, str]:
    """Write the repaired ``text`` over ``source``'s file. Returns (the reason it was
    not written, or ""; a note for the user, or "")."""
    from ..sourcefile import changed_on_disk, is_read_only, write_atomic, write_backup

    if changed_on_disk(source):
        return "changed while being repaired; not written", ""
    if is_read_only(source.path):
        return "read-only file; not written", ""
    note = ""
    try:
        if backup:
            kept = write_backup(source)
            if kept != source.path + ".orig":
                note = f"{source.path}.orig exists; the backup is {kept}"
        write_atomic(source.path, text, bom=source.bom)
    except FileExistsError as exc:
        return f"no free backup name ({exc.strerror}); the file is unchanged", ""
    except OSError as exc:
        return f"cannot write ({exc.strerror or exc}); the file is unchanged", ""
    return "", note


def _say(text: str) -> None:
    """One message for people on stderr, control characters escaped (above the
    progress bar, when one is shown)."""
    from tqdm import tqdm

    tqdm.write(printable(text), file=sys.stderr)
    sys.stderr.flush()


def _problems_before(result: RepairResult) -> CheckResult:
    """The check of the file as it was before the repair, to show what is still wrong
    with a file left unchanged."""
    from ..check import CheckResult

    return CheckResult(result.language, tuple(result.problems_before))


def _print_diff(diff: str) -> None:
    """The diff as is for a pipe (a patch must apply exactly); on a terminal in
    colour, control characters in it escaped."""
    if sys.stdout.isatty():
        colours = {"+": "\033[32m", "-": "\033[31m", "@": "\033[36m"}
        for line in printable(diff).splitlines(keepends=True):
            colour = colours.get(line[:1]) if not line.startswith(("+++", "---")) else "\033[1m"
            sys.stdout.write(f"{colour}{line.rstrip(chr(10))}\033[0m\n" if colour else line)
    else:
        sys.stdout.write(diff)
