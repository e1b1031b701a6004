"""``tinycode check [PATH...] | -``: report syntax problems; exit 0 clean, 1 problems, 2 errors.

Folders are walked as ruff does (``.gitignore``, ``exclude``; see ``tinycode/walk.py``);
the default path is ``.``. Each file gets the configuration nearest to it (``exclude``,
language lists, the size cap ``max-check-size``), and model code is never loaded."""

from __future__ import annotations

import argparse
import sys

from ..check import check, render
from ..config import configure_judges
from ..errors import UsageError
from ..judges.table import judges_table
from .display import printable
from .inputs import RunSettings, add_input_arguments, default_paths, iter_inputs, resolve_language
from .output import add_output_arguments, render_report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="PATH",
                        help="files and folders to check (default: .); - reads stdin")
    add_input_arguments(parser, size_default="8M, or max-check-size in the config")
    add_output_arguments(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing; use the exit code")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list which judge checks each language on this machine, and which "
                             "files were skipped and why")
    parser.add_argument("--judges", metavar="LANG=CMD,...",
                        help="each language's own checker, e.g. 'c=clang,bash=off' ('off': tree-sitter only)")


def run(args: argparse.Namespace) -> int:
    if args.statistics and args.output_format not in ("text", "json"):
        raise UsageError("--statistics goes with --output-format text or json")
    lang = resolve_language(args.lang)
    paths = default_paths(args.files, args.stdin_filename)
    settings = RunSettings({"max_check_size": args.max_file_size, "trust_project": args.trust_project,
                            "judges": args.judges})
    # A bad config stops the run before any output; the judges are chosen once per run.
    configure_judges(settings.first(paths, args.stdin_filename))
    if args.verbose and not args.quiet:
        print(judges_table(), file=sys.stderr)
    streaming = args.output_format == "text" and not args.statistics
    reports: list[dict[str, object]] = []
    files_with_problems = problems = errors = 0
    for item in iter_inputs(paths, lang, settings=settings, max_size="max_check_size",
                            ignore_unknown=args.ignore_unknown, stdin_filename=args.stdin_filename):
        if item.skipped is not None:
            if args.verbose:
                print(printable(f"tinycode: note: {item.path}: skipped ({item.skipped})"), file=sys.stderr)
            continue
        if item.error is not None:
            errors += 1
            reports.append({"path": item.path, "error": item.error})
            print(printable(f"tinycode: error: {item.error}"), file=sys.stderr)
            continue
        assert item.source is not None and item.language is not None
        result = check(item.source.text, item.language)
        reports.append({"path": item.path, **result.to_dict()})
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
    if errors:
        return 2
    return 1 if problems else 0
