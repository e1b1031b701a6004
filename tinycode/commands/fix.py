"""``tinycode fix FILE... | -``: repair files in place, or show a diff, or filter stdin.

Exit codes as ruff: 0 every file is clean at the end, 1 some file still has problems
(or, with ``--exit-non-zero-on-fix``, was changed), 2 usage, model or I/O errors.
The model is loaded once per process, and only if some file needs it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..sourcefile import SourceFile


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="files to repair; - reads stdin")
    parser.add_argument("--diff", action="store_true", help="print a unified diff; write nothing")
    parser.add_argument("--json", action="store_true", help="print one JSON report per file")
    parser.add_argument("--lang", help="language of the input (default: from the file name)")
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
    parser.add_argument("--backup", action="store_true", help="keep FILE.orig before writing")
    parser.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when a file was changed")
    parser.add_argument("--trace", metavar="FILE", help="write every agent step as JSON lines")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the agent's steps on stderr")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    parser.add_argument("--judges", metavar="LANG=CMD,...",
                        help="each language's own checker, e.g. 'c=clang,bash=off' ('off': tree-sitter only)")


def run(args: argparse.Namespace) -> int:
    from ..check import render
    from ..config import configure_judges, load_settings
    from ..edits import unified_diff
    from ..errors import TinycodeError
    from ..pipeline import repair
    from .inputs import iter_inputs, resolve_language

    lang = resolve_language(args.lang)
    overrides = {"model": args.model, "backend": args.backend, "base_url": args.base_url,
                 "max_steps": args.max_steps, "timeout": args.timeout, "gpu_layers": args.gpu_layers,
                 "web": args.web, "offline": args.offline, "agent_only": args.agent_only,
                 "lookup": args.lookup}
    first = next((f for f in args.files if f != "-"), ".")
    settings = load_settings(dict(overrides, judges=args.judges), start=os.path.dirname(os.path.abspath(first)))
    configure_judges(settings)
    progress = sys.stderr.isatty() and not args.quiet
    from ..llm.loader import LazyLLM

    llm = LazyLLM(model=settings.model, backend=settings.backend, base_url=settings.base_url,
                  gpu_layers=settings.gpu_layers, offline=settings.offline, progress=progress)
    trace = open(args.trace, "w", encoding="utf-8") if args.trace else None
    reports: list[dict[str, Any]] = []
    remaining = changed = errors = 0
    try:
        for item in iter_inputs(args.files, lang):
            if item.error is not None:
                errors += 1
                print(f"tinycode: error: {item.error}", file=sys.stderr)
                reports.append({"path": item.path, "status": "error", "error": item.error})
                continue
            assert item.source is not None and item.language is not None
            if item.path != "-" and settings.skips(item.path, item.language):
                continue
            on_step = None
            if args.verbose:
                def on_step(step, path=item.path):  # noqa: ANN001 - a step record
                    print(f"--- {path}\n{step.describe()}", file=sys.stderr, flush=True)
            try:
                result = repair(item.source.text, item.language, llm=llm, settings=settings,
                                on_step=on_step)
            except TinycodeError as exc:  # the model could not be loaded or reached
                print(f"tinycode: error: {exc}", file=sys.stderr)
                return 2
            text = item.source.text
            diff = unified_diff(text, result.source, item.path) if result.status == "fixed" else ""
            if trace:
                from ..agent.trace import write_jsonl

                write_jsonl(result.steps, trace, path=item.path)
            if result.status == "fixed":
                changed += 1
                if args.diff:
                    if not args.json:
                        _print_diff(diff)
                elif item.path == "-":
                    sys.stdout.write(result.source)
                else:
                    refused = _write_back(item.source, result.source, backup=args.backup)
                    if refused:
                        changed, errors = changed - 1, errors + 1
                        result.status, result.reason = "error", refused
                        print(f"tinycode: error: {item.path}: {refused}", file=sys.stderr)
            elif result.status == "failed":
                remaining += 1
                if item.path == "-" and not args.diff:
                    sys.stdout.write(text)  # a filter never loses its input
                if not args.quiet and not args.json:
                    print(f"{item.path}: not fixed ({result.reason})", file=sys.stderr)
                    print(render(_still(result), text, path=item.path), file=sys.stderr)
            elif item.path == "-" and not args.diff:
                sys.stdout.write(text)
            if progress:
                print(f"{item.path}: {result.status} ({len(result.steps)} steps, "
                      f"{result.seconds:.1f} s)", file=sys.stderr)
            reports.append({
                "path": item.path, "language": result.language, "status": result.status,
                "reason": result.reason, "problems_before": [p.to_dict() for p in result.problems_before],
                "problems_after": [p.to_dict() for p in result.problems_after],
                "steps": len(result.steps), "fast_path": result.fast_path,
                "model_calls": result.model_calls, "prompt_tokens": result.prompt_tokens,
                "completion_tokens": result.completion_tokens, "seconds": round(result.seconds, 3),
                "diff": diff})
    finally:
        if trace:
            trace.close()
    if args.json:
        json.dump(reports, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif not args.quiet and not progress and (changed or remaining) and not (args.files == ["-"]):
        print(f"Fixed {changed} of {changed + remaining} files with problems.", file=sys.stderr)
    if errors:
        return 2
    if remaining or (args.exit_non_zero_on_fix and changed):
        return 1
    return 0


def _write_back(source: SourceFile, text: str, *, backup: bool) -> str:
    """Write the repaired ``text`` over ``source``'s file; the reason it was not
    written, or "" when it was."""
    from ..sourcefile import changed_on_disk, is_read_only, write_atomic

    if changed_on_disk(source):
        return "changed while being repaired; not written"
    if is_read_only(source.path):
        return "read-only file; not written"
    try:
        if backup:
            shutil.copy2(source.path, source.path + ".orig")
        write_atomic(source.path, text, bom=source.bom)
    except OSError as exc:
        return f"cannot write ({exc.strerror or exc}); the file is unchanged"
    return ""


def _still(result):  # noqa: ANN001, ANN202 - a RepairResult
    from ..check import CheckResult

    return CheckResult(result.language, tuple(result.problems_before))


def _print_diff(diff: str) -> None:
    if sys.stdout.isatty():
        colours = {"+": "\033[32m", "-": "\033[31m", "@": "\033[36m"}
        for line in diff.splitlines(keepends=True):
            colour = colours.get(line[:1]) if not line.startswith(("+++", "---")) else "\033[1m"
            sys.stdout.write(f"{colour}{line.rstrip(chr(10))}\033[0m\n" if colour else line)
    else:
        sys.stdout.write(diff)
