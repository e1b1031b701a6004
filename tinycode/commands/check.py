"""``tinycode check [PATH...] | -``: report syntax problems; exit 0 clean, 1 problems, 2 errors.

Folders are walked as ruff does (``.gitignore``, ``exclude``; see ``tinycode/walk.py``);
the default path is ``.``. Each file gets the configuration nearest to it (``exclude``,
language lists, the size cap ``max-check-size``), and model code is never loaded.
``--jobs N`` checks across N processes, only for runs large enough to pay for them;
the output is the same either way."""

from __future__ import annotations

import argparse
import itertools
import sys
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from ..check import check, render
from ..config import RunSettings
from ..judges import configure_from
from ..errors import UsageError
from ..judges.table import judges_table
from .display import printable
from .inputs import (add_input_arguments, add_setting_arguments, default_paths, iter_inputs,
                     jobs_count, resolve_language, say_note, setting_overrides)
from .output import add_output_arguments, render_report

if TYPE_CHECKING:
    from ..check import CheckResult
    from ..config import Settings
    from .inputs import Input

# Files a run must have before worker processes are started. A worker is a fresh
# interpreter that imports tree-sitter, the grammars and finds the judges again, and
# the files are still walked and read here: on 2 busy cores, 1,000 files took 2.3 s in
# one process and 4.3 s with 4 workers, 5,000 files 5.6 s and 7.7 s with 2. Below this
# count processes were not seen to pay.
PARALLEL_MIN_FILES = 10_000
# Files sent to a worker at a time: one round trip per file would cost more than the check.
BATCH = 50


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="PATH",
                        help="files and folders to check (default: .); - reads stdin")
    add_input_arguments(parser)
    add_setting_arguments(parser, "check")  # --max-file-size, --judges, from config.SETTINGS
    add_output_arguments(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing; use the exit code")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list which judge checks each language on this machine, and which "
                             "files were skipped and why")
    parser.add_argument("-j", "--jobs", type=jobs_count, metavar="N",
                        help=f"worker processes (default: the number of CPUs), started only for runs "
                             f"of more than {PARALLEL_MIN_FILES:,} files: below that, starting them "
                             "costs more than it saves")


def run(args: argparse.Namespace) -> int:
    if args.statistics and args.output_format not in ("text", "json"):
        raise UsageError("--statistics goes with --output-format text or json")
    lang = resolve_language(args.lang)
    paths = default_paths(args.files, args.stdin_filename)
    settings = RunSettings(setting_overrides(args, "check"), say_note)
    # A bad config stops the run before any output; the judges are chosen once per run.
    judged_by = settings.first(paths, args.stdin_filename)
    configure_from(judged_by)
    if args.verbose and not args.quiet:
        print(judges_table(), file=sys.stderr)
    streaming = args.output_format == "text" and not args.statistics
    reports: list[dict[str, object]] = []
    files_with_problems = problems = errors = 0
    inputs = iter_inputs(paths, lang, settings=settings, max_size="max_check_size",
                         ignore_unknown=args.ignore_unknown, stdin_filename=args.stdin_filename)
    for item, result in _checked(inputs, args.jobs, judged_by):
        if item.skipped is not None:
            if args.verbose:
                print(printable(f"tinycode: note: {item.path}: skipped ({item.skipped})"), file=sys.stderr)
            continue
        if item.error is not None:
            errors += 1
            reports.append({"path": item.path, "error": item.error})
            print(printable(f"tinycode: error: {item.error}"), file=sys.stderr)
            continue
        assert item.source is not None and item.language is not None and result is not None
        reports.append({"path": item.path, **result.to_dict()})
        if args.verbose and result.note:
            print(printable(f"tinycode: note: {item.path}: {result.note}"), file=sys.stderr)
        if not result.ok:
            files_with_problems += 1
            problems += len(result)
            if streaming and not args.quiet:
                print(printable(render(result, item.source.text, path=item.path)))
                print()
    if not streaming:
        sys.stdout.write(render_report(reports, args.output_format, with_statistics=args.statistics))
    if not args.quiet:
        if problems:
            noun = "problem" if problems == 1 else "problems"
            print(f"Found {problems} {noun} in {files_with_problems} of {len(reports)} files.", file=sys.stderr)
        elif not reports and not errors:
            print("tinycode: warning: no files to check under the given paths", file=sys.stderr)
        elif not errors:  # a clean run still says it ran (ruff's "All checks passed!")
            noun = "file" if len(reports) == 1 else "files"
            print(f"No problems found in {len(reports)} {noun}.", file=sys.stderr)
    if errors:
        return 2
    return 1 if problems else 0


def _checked(inputs: Iterable[Input], jobs: int | None, settings: Settings
             ) -> Iterator[tuple[Input, CheckResult | None]]:
    """Each input with its check result (None for a skipped or unreadable one), in
    input order. The first PARALLEL_MIN_FILES are checked here as they come; the rest,
    if any, across ``jobs`` worker processes (default: one per CPU)."""
    items = iter(inputs)
    for item in itertools.islice(items, PARALLEL_MIN_FILES):
        yield item, _check(item)
    from ..parallel import ProcessPool, cpu_count, in_order

    jobs = jobs or cpu_count()
    if jobs == 1:
        for item in items:
            yield item, _check(item)
        return
    pool: ProcessPool | None = None

    def start(batch: list[Input]) -> Any:
        nonlocal pool
        if pool is None:  # only once a file beyond the threshold exists
            pool = ProcessPool(jobs, _worker_start, (settings,))
        return pool.submit(_check_batch, [_job(item) for item in batch])

    try:
        for batch, task in in_order(_batches(items), start, window=2 * jobs):
            yield from zip(batch, task.result())
    except BaseException:
        if pool is not None:
            pool.close(cancel=True)
        raise
    if pool is not None:
        pool.close()


def _batches(items: Iterable[Input]) -> Iterator[list[Input]]:
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, BATCH)):
        yield batch


def _check(item: Input) -> CheckResult | None:
    if item.skipped is not None or item.error is not None:
        return None
    assert item.source is not None and item.language is not None
    return check(item.source.text, item.language, _location(item))


def _location(item: Input) -> str | None:
    """Where the file is, for judges that read its project (stdin: ``--stdin-filename``)."""
    return None if item.path == "-" else item.path


def _job(item: Input) -> tuple[str, str, str | None] | None:
    if item.skipped is not None or item.error is not None:
        return None
    assert item.source is not None and item.language is not None
    return item.source.text, item.language, _location(item)


def _worker_start(settings: Settings) -> None:
    configure_from(settings)


def _check_batch(jobs: list[tuple[str, str, str | None] | None]) -> list[CheckResult | None]:
    return [None if job is None else check(*job) for job in jobs]
