"""Benchmark tinycode's repairs: how often, how exactly, how fast.

Runs ``tinycode.repair`` (model loaded once) over a JSONL of cases
``{id, broken, fixed?, lang?, error?}`` and scores each output after BIFI: success =
the language's checker accepts it and the token edit distance from ``broken`` is
1-4; exact = its tokens equal the human fix's. Writes bench.json, bench.md and
bench.png to ``--out``.

    python tools/bench.py --limit 100 --baseline react1
    python tools/bench.py --data none --corrupt examples --scaling
    python tools/bench.py --data ../shared/data/c_dev.jsonl --lang c --judge gcc --split odd --sample 150

``--judge CMD`` scores with a language's own tool run here (``gcc``: ``gcc
-fsyntax-only``; ``bash``: ``bash -n``; ``node``: ``node --check``) instead of
tinycode's checker, so that the system measured is not also the referee.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from baselines import BASELINES, run_baseline  # noqa: E402
from corrupt import SCALING_ERRORS, corrupt_cases, scaling_pair  # noqa: E402
from pngchart import grouped_bars  # noqa: E402

from tinycode.check import check  # noqa: E402
from tinycode.engine.edits import code_tokens, token_distance  # noqa: E402

DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "so_dev.jsonl"
CHART_GROUPS = 8


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cases = load_cases(args)
    if not cases and not args.scaling:
        print("no cases to run", file=sys.stderr)
        return 2
    from tinycode.llm import load_llm

    from tinycode.config import Settings

    settings = Settings(agent_only=args.agent_only, lookup=args.lookup, offline=True)
    started = time.perf_counter()
    llm = load_llm(args.model, offline=True)
    runs: dict[str, list[dict[str, Any]]] = {"tinycode": []}
    systems: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = [
        ("tinycode", lambda case: run_tinycode(llm, case, args.timeout, settings))]
    if args.baseline:
        runs[args.baseline] = []
        systems.append((args.baseline, lambda case: run_baseline_case(args.baseline, llm, case, args.seed)))
    for number, case in enumerate(cases, 1):
        for name, run in systems:
            record = _guarded(run, case)
            runs[name].append(record)
        if not args.quiet:
            line = "  ".join(f"{name}: {'ok' if runs[name][-1]['success'] else '--'} "
                             f"{runs[name][-1]['seconds']:.2f}s" for name, _ in systems)
            print(f"[{number}/{len(cases)}] {case['id']}  {line}", file=sys.stderr)
    report: dict[str, Any] = {
        "config": {"data": str(args.data), "cases": len(cases), "model": llm.name, "seed": args.seed,
                   "baseline": args.baseline, "split": args.split, "limit": args.limit,
                   "sample": args.sample, "judge": args.judge, "lang": args.lang,
                   "corrupt": args.corrupt, "agent_only": args.agent_only, "lookup": args.lookup,
                   "machine": platform.platform(), "python": platform.python_version()},
        "systems": {name: summarise(records) for name, records in runs.items()},
        "by_category": {name: grouped(records, "category") for name, records in runs.items()},
        "by_language": {name: grouped(records, "lang") for name, records in runs.items()},
    }
    if args.baseline:
        ours, theirs = report["systems"]["tinycode"], report["systems"][args.baseline]
        report["speed_ratio"] = (theirs["median_seconds"] / ours["median_seconds"]
                                 if ours["median_seconds"] else None)
    if args.scaling:
        report["scaling"] = run_scaling(llm, args.timeout)
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report["wall_seconds"] = time.perf_counter() - started
    report["cases"] = runs
    (out / "bench.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    (out / "bench.md").write_text(markdown(report), encoding="utf-8")
    chart(report, out / "bench.png")
    print(markdown(report))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="JSONL of cases ('none' for no file)")
    parser.add_argument("--limit", type=int, default=0, help="run only the first N cases of the file")
    parser.add_argument("--split", choices=("all", "even", "odd"), default="all",
                        help="cases whose numeric id is even (tuning) or odd (held out)")
    parser.add_argument("--sample", type=int, default=0,
                        help="a random sample of N cases (after --split and --limit), drawn with --seed")
    parser.add_argument("--lang", default=None, help="language of cases that do not name one (default python)")
    parser.add_argument("--judge", default=None, metavar="CMD",
                        help="score with this tool instead of tinycode's checker (gcc, g++, clang, bash, sh, node)")
    parser.add_argument("--model", default=None, help="registry name or .gguf path (default model)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", choices=BASELINES, default=None)
    parser.add_argument("--corrupt", action="append", default=[], metavar="DIR",
                        help="also make single-error cases from the clean files in DIR "
                             "('examples' = examples/*/clean.*)")
    parser.add_argument("--per-file", type=int, default=6, help="corrupted cases per clean file")
    parser.add_argument("--errors", type=int, default=1,
                        help="corruptions per corrupted case, at least 12 lines apart (success: 1-4 tokens each)")
    parser.add_argument("--scaling", action="store_true", help="time one error in a 100- and a 5,000-line file")
    parser.add_argument("--agent-only", action="store_true",
                        help="skip the fast path and the rewrite: measure the ReAct agent alone")
    parser.add_argument("--lookup", action="store_true",
                        help="the agent opens with a web_search for the first error")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per repair")
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--quiet", action="store_true")
    return parser


def load_cases(args: argparse.Namespace) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    if args.data and args.data != "none":
        with open(args.data, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    case = json.loads(line)
                    number = re.search(r"(\d+)$", str(case["id"]))
                    if args.split != "all" and number and int(number.group(1)) % 2 != (args.split == "odd"):
                        continue
                    cases.append(case)
        if args.limit:
            cases = cases[:args.limit]
        if args.sample and args.sample < len(cases):
            cases = random.Random(args.seed).sample(cases, args.sample)
    for directory in args.corrupt:
        paths = sorted((ROOT / "examples").glob("*/clean.*")) if directory == "examples" else [Path(directory)]
        cases += corrupt_cases(paths, args.per_file, args.seed, args.errors)
    global JUDGE
    JUDGE = args.judge
    for case in cases:
        case.setdefault("lang", args.lang or "python")
        case.setdefault("category", category(case))
    return cases


def category(case: dict[str, Any]) -> str:
    """The checker's message with names and line numbers taken out."""
    message = case.get("error") or ""
    if not message:
        result = check(case["broken"], case["lang"])
        message = result.problems[0].message if result.problems else "clean"
    message = re.sub(r"\s*\(line \d+\)$", "", message)
    message = re.sub(r"^(SyntaxError|IndentationError|TabError): ", "", message)
    message = re.sub(r"'[^'\s]{4,}'", "'_'", message)  # names, not brackets
    message = re.sub(r"\. (Perhaps|Did|Maybe).*$", "", message)
    return re.sub(r"\bline \d+\b", "line N", message)[:60]


JUDGE: str | None = None  # --judge: the referee's command, else tinycode's own checker
_JUDGE_ARGS = {"gcc": ["-fsyntax-only", "-w", "-x", "c"], "clang": ["-fsyntax-only", "-w", "-x", "c"],
               "g++": ["-fsyntax-only", "-w", "-x", "c++"], "clang++": ["-fsyntax-only", "-w", "-x", "c++"],
               "bash": ["-n"], "sh": ["-n"], "dash": ["-n"], "node": ["--check"]}
_JUDGE_SUFFIX = {"node": ".js"}


def accepted(output: str, language: str) -> bool:
    """Does the referee accept ``output``: the --judge tool when given, else tinycode's check."""
    if JUDGE is None:
        return check(output, language).ok
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("input" + _JUDGE_SUFFIX.get(JUDGE, ".txt"))
        path.write_text(output, encoding="utf-8")
        done = subprocess.run([JUDGE, *_JUDGE_ARGS.get(JUDGE, []), str(path)], cwd=folder,
                              capture_output=True, timeout=60, check=False)
        return done.returncode == 0


def score(case: dict[str, Any], output: str) -> dict[str, Any]:
    language = case["lang"]
    parsed = accepted(output, language)
    fixed = case.get("fixed")
    exact = bool(fixed) and parsed and code_tokens(output, language) == code_tokens(fixed, language)
    errors = int(case.get("errors", 1))  # several errors: up to 4 tokens for each
    distance = token_distance(case["broken"], output, language, cap=4 * errors + 1)
    return {"parsed": parsed, "distance": distance, "success": parsed and 1 <= distance <= 4 * errors,
            "exact": exact}


def run_tinycode(llm, case: dict[str, Any], timeout: float, settings=None) -> dict[str, Any]:
    from tinycode import repair

    start = time.perf_counter()
    result = repair(case["broken"], case["lang"], llm=llm, timeout=timeout, settings=settings)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "status": result.status, "reason": result.reason,
            "model_calls": result.model_calls, "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens, "steps": len(result.steps),
            "fast_path": bool(getattr(result, "fast_path", False)),
            "lookup": any(step.kind == "lookup" for step in result.steps), **score(case, result.source)}


def run_baseline_case(kind: str, llm, case: dict[str, Any], seed: int) -> dict[str, Any]:
    result = run_baseline(kind, llm, case["broken"], case["lang"], seed)
    return {"seconds": result.seconds, "status": "answered", "model_calls": result.model_calls,
            "prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens,
            **score(case, result.source)}


def _guarded(run: Callable[[dict[str, Any]], dict[str, Any]], case: dict[str, Any]) -> dict[str, Any]:
    """A case that raises is a crash: recorded and counted, never the end of the run."""
    start = time.perf_counter()
    try:
        record = run(case)
        record["crash"] = None
    except Exception as exc:  # noqa: BLE001 - the benchmark must survive any case
        record = {"seconds": time.perf_counter() - start, "status": "crash", "parsed": False,
                  "success": False, "exact": False, "distance": None, "model_calls": 0,
                  "prompt_tokens": 0, "completion_tokens": 0,
                  "crash": "".join(traceback.format_exception_only(type(exc), exc)).strip()}
    record.update(id=case["id"], lang=case["lang"], category=case["category"])
    return record


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(records)
    seconds = sorted(r["seconds"] for r in records) or [0.0]
    with_fix = [r for r in records if r.get("status") != "crash"]
    return {
        "n": n,
        "success": _rate(records, "success"), "exact": _rate(records, "exact"), "parse": _rate(records, "parsed"),
        "median_seconds": statistics.median(seconds),
        "p95_seconds": seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))],
        "mean_model_calls": statistics.fmean(r["model_calls"] for r in records) if n else 0.0,
        "mean_prompt_tokens": statistics.fmean(r["prompt_tokens"] for r in records) if n else 0.0,
        "mean_completion_tokens": statistics.fmean(r["completion_tokens"] for r in records) if n else 0.0,
        "fast_path": _rate(records, "fast_path"),
        "crashes": sum(1 for r in records if r.get("crash")),
        "end_states": _counts(r.get("status", "") for r in with_fix),
    }


def _rate(records: list[dict[str, Any]], key: str) -> float:
    return sum(1 for r in records if r.get(key)) / len(records) if records else 0.0


def _counts(values) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values:
        out[value] = out.get(value, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def grouped(records: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        groups.setdefault(record[key], []).append(record)
    return {name: summarise(rows) for name, rows in sorted(groups.items(), key=lambda kv: -len(kv[1]))}


def run_scaling(llm, timeout: float, repeats: int = 3) -> dict[str, Any]:
    """Each scaling error in the small and the large file: median seconds, the model's
    prompt tokens (they must not grow with the file) and the large/small time ratio."""
    clean = (ROOT / "examples" / "python" / "clean.py").read_text(encoding="utf-8")
    out: dict[str, Any] = {}
    for error in SCALING_ERRORS:
        row: dict[str, Any] = {}
        for case in scaling_pair(clean, error):
            records = [_guarded(lambda c: run_tinycode(llm, c, timeout), case) for _ in range(repeats)]
            row[case["id"].split("-")[1]] = {
                "lines": case["broken"].count("\n"), "median_seconds": statistics.median(r["seconds"] for r in records),
                "prompt_tokens": records[0]["prompt_tokens"], "model_calls": records[0]["model_calls"],
                "success": all(r["success"] for r in records)}
        small, large = row["100"]["median_seconds"], row["5000"]["median_seconds"]
        row["ratio"] = large / small if small else None
        out[error] = row
    return out


def markdown(report: dict[str, Any]) -> str:
    systems = report["systems"]
    lines = [f"# tinycode bench — {report['config']['cases']} cases, model {report['config']['model']}", "",
             "| system | n | success | exact | parse | median s | p95 s | model calls | prompt tok | gen tok "
             "| fast path | crashes |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, s in systems.items():
        lines.append(f"| {name} | {s['n']} | {s['success']:.1%} | {s['exact']:.1%} | {s['parse']:.1%} | "
                     f"{s['median_seconds']:.2f} | {s['p95_seconds']:.2f} | {s['mean_model_calls']:.2f} | "
                     f"{s['mean_prompt_tokens']:.0f} | {s['mean_completion_tokens']:.0f} | "
                     f"{s['fast_path']:.1%} | {s['crashes']} |")
    if report.get("speed_ratio"):
        lines += ["", f"Speed ratio (baseline median / tinycode median): {report['speed_ratio']:.1f}x"]
    for title, key in (("category", "by_category"), ("language", "by_language")):
        names = list(report[key])
        lines += ["", f"## By {title}", "",
                  f"| {title} | n | " + " | ".join(f"{n} success | {n} exact | {n} median s" for n in names) + " |",
                  "| --- | ---: |" + " ---: | ---: | ---: |" * len(names)]
        for group, s in report[key]["tinycode"].items():
            cells = []
            for name in names:
                g = report[key][name].get(group)
                cells.append(f"{g['success']:.0%} | {g['exact']:.0%} | {g['median_seconds']:.2f}" if g else "- | - | -")
            lines.append(f"| {group} | {s['n']} | " + " | ".join(cells) + " |")
    if "scaling" in report:
        lines += ["", "## Scaling", "", "| error | lines | median s | model calls | prompt tok | success | large / small |",
                  "| --- | ---: | ---: | ---: | ---: | --- | ---: |"]
        for error, row in report["scaling"].items():
            for size in ("100", "5000"):
                r = row[size]
                ratio = f"{row['ratio']:.2f}x" if size == "5000" and row["ratio"] else ""
                lines.append(f"| {error} | {r['lines']} | {r['median_seconds']:.3f} | {r['model_calls']} | "
                             f"{r['prompt_tokens']} | {r['success']} | {ratio} |")
    lines += ["", f"Peak RSS: {report['peak_rss_mb']:.0f} MB; wall time {report['wall_seconds']:.0f} s."]
    return "\n".join(lines) + "\n"


def chart(report: dict[str, Any], path: Path) -> None:
    names = list(report["systems"])
    by_category = report["by_category"]
    groups = ["all"] + list(by_category["tinycode"])[:CHART_GROUPS - 1]

    def values(metric: str, scale: float) -> list[list[float]]:
        rows = []
        for name in names:
            row = []
            for group in groups:
                s = report["systems"][name] if group == "all" else by_category[name].get(group)
                row.append((s[metric] * scale) if s else 0.0)
            rows.append(row)
        return rows

    grouped_bars(path, groups, names, [("success %", values("success", 100), ".0f"),
                                       ("median seconds", values("median_seconds", 1), ".1f")])


if __name__ == "__main__":
    sys.exit(main())
