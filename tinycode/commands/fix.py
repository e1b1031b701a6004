"""``tinycode fix [PATH...] | -``: repair files in place, or show a diff, or filter stdin.

Folders are walked as by ``check`` (``.gitignore``, ``exclude``; default ``.``). Each
file is repaired with the configuration nearest to it (steps, timeout, guard limits);
the model and its backend are chosen once per run, from the configuration nearest the
first path.

Exit codes as ruff: 0 every file is clean at the end, 1 some file still has problems
(or, with ``--exit-non-zero-on-fix``, was changed), 2 usage, model or I/O errors.
The model is loaded once per process, and only if some file needs it.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from typing import TYPE_CHECKING, Any, Callable, TextIO

from .display import printable
from .inputs import add_input_arguments
from .output import add_output_arguments, render_report

if TYPE_CHECKING:
    from ..llm.base import LLM
    from ..sourcefile import SourceFile


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="PATH",
                        help="files and folders to repair (default: .); - reads stdin")
    parser.add_argument("--diff", action="store_true", help="print a unified diff; write nothing")
    add_output_arguments(parser, statistics=False)
    add_input_arguments(parser, size_default="2M, or max-file-size in the config")
    parser.add_argument("--model", help="registry name or alias, or a path to a .gguf file")
    parser.add_argument("--backend", choices=("llama_cpp", "openai"), help="model backend")
    parser.add_argument("--base-url", help="OpenAI-compatible server URL (openai backend)")
    parser.add_argument("--max-steps", type=int, help="agent steps per file (default 8)")
    parser.add_argument("--timeout", type=float, help="seconds per file (default 60)")
    parser.add_argument("--gpu-layers", type=int, help="layers on the GPU (-1 = all)")
    parser.add_argument("--web", choices=("offline", "duckduckgo", "searxng"), help="web_search backend")
    parser.add_argument("--offline", action="store_true", default=None, help="no network access at all")
    parser.add_argument("--agent-only", action="store_true", default=None,
                        help="skip the fast path and the rewrite: the ReAct agent does the repair")
    parser.add_argument("--lookup", action="store_true", default=None,
                        help="open the agent's run with a web_search for the first error")
    parser.add_argument("--backup", action="store_true",
                        help="keep FILE.orig (or FILE.N.orig if that exists) before writing")
    parser.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when a file was changed")
    parser.add_argument("--trace", metavar="FILE", help="write every agent step as JSON lines")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="show the agent's steps and skipped files on stderr")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    parser.add_argument("--judges", metavar="LANG=CMD,...",
                        help="each language's own checker, e.g. 'c=clang,bash=off' ('off': tree-sitter only)")


def run(args: argparse.Namespace) -> int:
    from ..check import render
    from ..config import configure_judges
    from ..edits import unified_diff
    from ..errors import ModelUnavailable, TinycodeError, UsageError
    from ..pipeline import repair
    from .inputs import RunSettings, default_paths, iter_inputs, resolve_language

    lang = resolve_language(args.lang)
    paths = default_paths(args.files, args.stdin_filename)
    args.json = args.output_format != "text"  # stdout holds the report, not diffs or sources
    if args.json and args.diff and args.output_format != "json":
        raise UsageError(f"--diff goes with --output-format text or json, not {args.output_format}")
    overrides = {"model": args.model, "backend": args.backend, "base_url": args.base_url,
                 "max_steps": args.max_steps, "timeout": args.timeout, "gpu_layers": args.gpu_layers,
                 "web": args.web, "offline": args.offline, "agent_only": args.agent_only,
                 "lookup": args.lookup, "max_file_size": args.max_file_size,
                 "trust_project": args.trust_project, "judges": args.judges}
    run_settings = RunSettings(overrides)
    settings = run_settings.first(paths, args.stdin_filename)
    configure_judges(settings)  # the judges are chosen once per run
    if args.trace:  # checked before anything is opened or repaired
        refused = unsafe_output(args.trace, paths)
        if refused:
            raise UsageError(f"--trace {args.trace}: {refused}")
    progress = sys.stderr.isatty() and not args.quiet
    from ..llm.loader import LazyLLM

    model = FileModel(LazyLLM(model=settings.model, backend=settings.backend, base_url=settings.base_url,
                              gpu_layers=settings.gpu_layers, offline=settings.offline, progress=progress))
    trace = _open_trace(args.trace) if args.trace else None
    reports: list[dict[str, Any]] = []
    remaining = changed = errors = model_errors = 0
    said_unavailable = False
    try:
        for item in iter_inputs(paths, lang, settings=run_settings, max_size="max_file_size",
                                ignore_unknown=args.ignore_unknown, stdin_filename=args.stdin_filename):
            if item.skipped is not None:
                if args.verbose:
                    _say(f"tinycode: note: {item.path}: skipped ({item.skipped})")
                if item.stdin and item.source is not None and not args.diff and not args.json:
                    sys.stdout.write(item.source.text)  # a filter never loses its input
                continue
            if item.error is not None:
                errors += 1
                _say(f"tinycode: error: {item.error}")
                reports.append({"path": item.path, "status": "error", "error": item.error})
                continue
            assert item.source is not None and item.language is not None
            text = item.source.text
            on_step = None
            if args.verbose:
                def on_step(step, path=item.path):  # noqa: ANN001 - a step record
                    _say(f"--- {path}\n{step.describe()}")
            model.failure = None
            try:
                result = repair(text, item.language, llm=model, settings=item.settings or settings,
                                on_step=on_step)
            except TinycodeError as exc:  # the model could not be loaded or reached: this file only
                errors, model_errors = errors + 1, model_errors + 1
                repeated = isinstance(exc, ModelUnavailable) and said_unavailable
                said_unavailable = said_unavailable or isinstance(exc, ModelUnavailable)
                _say(f"tinycode: error: {item.path}: "
                     + ("not repaired (the model is unavailable, see above)" if repeated else str(exc)))
                reports.append({"path": item.path, "language": item.language, "status": "error",
                                "reason": str(exc), "error": str(exc)})
                if item.stdin and not args.diff and not args.json:
                    sys.stdout.write(text)  # a filter never loses its input
                continue
            if result.status == "failed" and model.failure is not None:
                result.status = "error"  # the model failed on this file; the others go on
                errors, model_errors = errors + 1, model_errors + 1
                _say(f"tinycode: error: {item.path}: not repaired ({result.reason})")
            diff = unified_diff(text, result.source, item.path) if result.status == "fixed" else ""
            if trace is not None and not _write_trace(trace, result.steps, item.path):
                errors += 1
                trace = None
            if result.status == "fixed":
                changed += 1
                if args.diff:
                    if not args.json:
                        _print_diff(diff)
                elif item.stdin:
                    if not args.json:
                        sys.stdout.write(result.source)
                else:
                    refused, note = _write_back(item.source, result.source, backup=args.backup)
                    if refused:
                        changed, errors = changed - 1, errors + 1
                        result.status, result.reason = "error", refused
                        _say(f"tinycode: error: {item.path}: {refused}")
                    elif note and not args.quiet:
                        _say(f"tinycode: note: {item.path}: {note}")
            elif result.status == "failed":
                remaining += 1
                if not args.quiet and not args.json:
                    _say(f"{item.path}: not fixed ({result.reason})")
                    _say(render(_still(result), text, path=item.path))
            if result.status != "fixed" and item.stdin and not args.diff and not args.json:
                sys.stdout.write(text)  # a filter never loses its input
            if progress:
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
            reports.append(report)
    finally:
        if trace is not None:
            trace.close()
    if args.json:
        sys.stdout.write(render_report(reports, args.output_format))
    if not reports and not errors and not args.quiet:
        _say("tinycode: warning: no files to repair under the given paths")
    elif (not args.quiet and not progress and (changed or remaining or model_errors)
            and not (paths == ["-"])):
        stopped = f"; {model_errors} stopped by a model error" if model_errors else ""
        _say(f"Fixed {changed} of {changed + remaining + model_errors} files with problems{stopped}.")
    if errors:
        return 2
    if remaining or (args.exit_non_zero_on_fix and changed):
        return 1
    return 0


class FileModel:
    """The run's model as each file sees it. It notes the first model failure of the
    current file (``failure``, reset per file), and once the model could not be loaded
    at all, later files fail at once instead of loading it again."""

    def __init__(self, llm: LLM) -> None:
        self._llm = llm
        self.failure: str | None = None
        self.unavailable: str | None = None

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


def unsafe_output(path: str, inputs: list[str]) -> str:
    """Why writing an output file at ``path`` could destroy something, or "" when it is
    safe: it is one of the ``inputs``, a directory, or an existing file that is not a
    tinycode trace (JSON lines)."""
    for name in inputs:
        if name != "-" and _same_file(path, name):
            return f"is also an input file ({name}); refusing to overwrite it"
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
    if not isinstance(record, dict):
        return "exists and is not a tinycode trace; refusing to overwrite it"
    return ""


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _open_trace(path: str) -> TextIO:
    from ..errors import UsageError

    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--trace {path}: cannot write ({exc.strerror or exc})") from None


def _write_trace(trace: TextIO, steps: list[Any], path: str) -> bool:
    """Append ``steps`` to the trace; on a write error say so, close it and return False
    (the repairs go on untraced)."""
    from ..agent.trace import write_jsonl

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
    """One message for people on stderr, control characters escaped."""
    print(printable(text), file=sys.stderr, flush=True)


def _still(result):  # noqa: ANN001, ANN202 - a RepairResult
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
