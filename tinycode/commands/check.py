"""``tinycode check FILE... | -``: report syntax problems; exit 0 clean, 1 problems, 2 errors."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..check import check, render
from ..config import configure_judges, load_settings
from ..judges.table import judges_table
from .inputs import iter_inputs, resolve_language


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="files to check; - reads stdin")
    parser.add_argument("--lang", help="language of the input (default: from the file name)")
    parser.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing; use the exit code")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="first list which judge checks each language on this machine")
    parser.add_argument("--judges", metavar="LANG=CMD,...",
                        help="each language's own checker, e.g. 'c=clang,bash=off' ('off': tree-sitter only)")


def run(args: argparse.Namespace) -> int:
    lang = resolve_language(args.lang)
    first = next((f for f in args.files if f != "-"), ".")
    configure_judges(load_settings({"judges": args.judges}, start=os.path.dirname(os.path.abspath(first))))
    if args.verbose and not args.quiet:
        print(judges_table(), file=sys.stderr)
    reports: list[dict[str, object]] = []
    files_with_problems = problems = errors = 0
    for item in iter_inputs(args.files, lang):
        if item.error is not None:
            errors += 1
            reports.append({"path": item.path, "error": item.error})
            print(f"tinycode: error: {item.error}", file=sys.stderr)
            continue
        assert item.source is not None and item.language is not None
        result = check(item.source.text, item.language)
        reports.append({"path": item.path, **result.to_dict()})
        if not result.ok:
            files_with_problems += 1
            problems += len(result)
            if not args.json and not args.quiet:
                print(render(result, item.source.text, path=item.path))
                print()
    if args.json:
        json.dump(reports, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif not args.quiet and problems:
        noun = "problem" if problems == 1 else "problems"
        print(f"Found {problems} {noun} in {files_with_problems} of {len(reports)} files.")
    if errors:
        return 2
    return 1 if problems else 0
