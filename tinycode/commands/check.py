"""``tinycode check FILE... | -``: report syntax problems; exit 0 clean, 1 problems, 2 errors.

Reads the same configuration as ``fix`` (``exclude``, language lists, the size cap
``max-check-size``), and never loads model code."""

from __future__ import annotations

import argparse
import sys

from ..check import check, render
from .display import json_text, printable
from .inputs import add_input_arguments, iter_inputs, resolve_language, settings_for


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="files to check; - reads stdin")
    add_input_arguments(parser, size_default="8M, or max-check-size in the config")
    parser.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing; use the exit code")
    parser.add_argument("-v", "--verbose", action="store_true", help="say which files were skipped and why")


def run(args: argparse.Namespace) -> int:
    lang = resolve_language(args.lang)
    settings = settings_for(args.files, {"max_check_size": args.max_file_size,
                                         "trust_project": args.trust_project})
    reports: list[dict[str, object]] = []
    files_with_problems = problems = errors = 0
    for item in iter_inputs(args.files, lang, settings=settings, max_size=settings.max_check_size,
                            ignore_unknown=args.ignore_unknown):
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
            if not args.json and not args.quiet:
                print(printable(render(result, item.source.text, path=item.path)))
                print()
    if args.json:
        sys.stdout.write(json_text(reports) + "\n")
    elif not args.quiet and problems:
        noun = "problem" if problems == 1 else "problems"
        print(f"Found {problems} {noun} in {files_with_problems} of {len(reports)} files.")
    if errors:
        return 2
    return 1 if problems else 0
