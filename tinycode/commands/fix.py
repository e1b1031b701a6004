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
import sys
from typing import TYPE_CHECKING, Any, TextIO

from .display import printable, say
from .inputs import add_input_arguments, add_setting_arguments, jobs_count
from .output import add_output_arguments, render_report

if TYPE_CHECKING:
    from ..check import CheckResult
    from ..engine.loop import RepairResult
    from .inputs import Input
    from .workers import Outcome


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
    from .trace_file import open_trace, unsafe_output
    from .workers import Processes, Sequential, Threads, Workers

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
    trace = open_trace(args.trace) if args.trace else None
    report = _Reporter(args, trace, progress)
    inputs = iter_inputs(paths, lang, settings=run_settings, max_size="max_file_size",
                         ignore_unknown=args.ignore_unknown, stdin_filename=args.stdin_filename)
    if jobs == 1:
        workers: Workers = Sequential(options)
    elif settings.backend == "openai":
        workers = Threads(jobs, {**options, "server_slots": settings.server_slots})
    else:
        workers = Processes(jobs, options, settings)
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



class _Reporter:
    """Reports each file in input order: messages, the write (atomic), the diff or
    the source for stdin, the trace and the JSON report; keeps the run's counts."""

    def __init__(self, args: argparse.Namespace, trace: TextIO | None, progress: bool) -> None:
        self.args, self.trace, self.progress = args, trace, progress
        self.reports: list[dict[str, Any]] = []
        self.remaining = self.changed = self.errors = self.model_errors = 0
        self.said_unavailable = False
        self.said_ranking = False  # the first file ranked otherwise than by likelihood, once
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
        from ..sourcefile import write_back
        from .trace_file import write_trace

        args = self.args
        filtering = item.stdin and not args.diff and not args.json  # a filter never loses its input
        if item.skipped is not None:
            if args.verbose:
                say(f"tinycode: note: {item.path}: skipped ({item.skipped})")
            if filtering and item.source is not None:
                sys.stdout.write(item.source.text)
            return
        if item.error is not None:
            self.errors += 1
            say(f"tinycode: error: {item.error}")
            self.reports.append({"path": item.path, "status": "error", "error": item.error})
            return
        assert item.source is not None and item.language is not None and outcome is not None
        text = item.source.text
        for line in outcome.steps_text:
            say(line)
        result = outcome.result
        if result is None:
            self.errors, self.model_errors = self.errors + 1, self.model_errors + 1
            repeated = outcome.unavailable and self.said_unavailable
            self.said_unavailable = self.said_unavailable or outcome.unavailable
            say(f"tinycode: error: {item.path}: "
                 + ("not repaired (the model is unavailable, see above)" if repeated else outcome.error))
            self.reports.append({"path": item.path, "language": item.language, "status": "error",
                                 "reason": outcome.error, "error": outcome.error})
            if filtering:
                sys.stdout.write(text)
            return
        if result.status == "failed" and outcome.model_failure is not None:
            result.status = "error"  # the model failed on this file; the others go on
            self.errors, self.model_errors = self.errors + 1, self.model_errors + 1
            say(f"tinycode: error: {item.path}: not repaired ({result.reason})")
        if not self.said_ranking and result.ranked_by.startswith(("not ranked", "the model's choice")):
            self.said_ranking = True  # each file's "ranked_by" in --json says it too
            if not args.quiet:
                say("tinycode: note: candidate repairs cannot be ranked through the model server ("
                    + result.ranked_by.removeprefix("not ranked: ") + "); the model's rewrite chooses instead"
                    if result.ranked_by.startswith("not") else
                    f"tinycode: note: candidate repairs are ranked by {result.ranked_by}")
        diff = unified_diff(text, result.source, item.path) if result.status == "fixed" else ""
        if self.trace is not None and not write_trace(self.trace, result.steps, item.path):
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
                refused, note = write_back(item.source, result.source, backup=args.backup)
                if refused:
                    self.changed, self.errors = self.changed - 1, self.errors + 1
                    result.status, result.reason = "error", refused
                    say(f"tinycode: error: {item.path}: {refused}")
                elif not args.quiet:
                    # Each file written is named, as black's "reformatted"; the
                    # progress line already names it on a terminal.
                    if not args.json and not self.progress:
                        say(f"{item.path}: fixed" + _unjudged(result)
                            + (f" (rules: {', '.join(result.rules)})" if args.verbose and result.rules else ""))
                    if note:
                        say(f"tinycode: note: {item.path}: {note}")
        elif result.status == "failed":
            self.remaining += 1
            if not args.quiet and not args.json:
                say(f"{item.path}: not fixed ({result.reason})")
                if result.problems_before:  # none known when the deadline came before the first check ended
                    say(render(_problems_before(result), text, path=item.path))
        if result.status != "fixed" and filtering:
            sys.stdout.write(text)
        if self.progress:
            say(f"{item.path}: {result.status} ({len(result.steps)} steps, {result.seconds:.1f} s)")
        report = {
            "path": item.path, "language": result.language, "status": result.status,
            "reason": result.reason, "problems_before": [p.to_dict() for p in result.problems_before],
            "problems_after": [p.to_dict() for p in result.problems_after],
            "steps": len(result.steps), "fast_path": result.fast_path,
            "model_calls": result.model_calls, "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens, "seconds": round(result.seconds, 3),
            "verified_by": result.verified_by if result.status in ("fixed", "clean") else "",
            "rules": result.rules if result.status == "fixed" else [],
            "ranked_by": result.ranked_by, "diff": diff}
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
            say("tinycode: warning: no files to repair under the given paths")
        elif (not args.quiet and not self.progress and (self.changed or self.remaining or self.model_errors)
                and not (paths == ["-"])):
            stopped = f"; {self.model_errors} stopped by a model error" if self.model_errors else ""
            total = self.changed + self.remaining + self.model_errors
            say(f"Fixed {self.changed} of {total} files with problems{stopped}.")
        elif not args.quiet and not self.progress and not self.errors and paths != ["-"] and not args.diff:
            noun = "file" if len(self.reports) == 1 else "files"
            say(f"No problems found in {len(self.reports)} {noun}; nothing to fix.")  # as check says
        if self.errors:
            return 2
        if self.remaining or (args.exit_non_zero_on_fix and self.changed):
            return 1
        return 0


def _unjudged(result: RepairResult) -> str:
    """The word a fixed file's line gets when no tool of its language judged it."""
    return " (checked by tree-sitter only: no judge of its language is installed)" \
        if result.verified_by == "tree-sitter" else ""


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
