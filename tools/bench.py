"""Benchmark tinycode's repairs: how often, how exactly, how fast.

Runs ``tinycode.repair`` (model loaded once) over a JSONL of cases
``{id, broken, fixed?, lang?, error?}`` and scores each output after BIFI: success =
the language's checker accepts it and the token edit distance from ``broken`` is
1-4; exact = its tokens equal the human fix's. Writes bench.json, bench.md and
bench.png to ``--out`` (a folder, or ``NAME.json`` with ``NAME.md``/``NAME.png`` beside it).

    python tools/bench.py --split odd --limit 300 --out odd300.json
    python tools/bench.py --limit 100 --baseline react1
    python tools/bench.py --data none --corrupt examples --scaling
    python tools/bench.py --data ../shared/data/c_dev.jsonl --lang c --judge gcc --split odd --limit 150
    python tools/bench.py --clean-files --per-language 40 --out clean.json

``--clean-files`` measures no repair: it checks clean real files installed on this
machine as the pre-commit hook does, alone and inside their project, and one broken
twin of each (``tools/clean_files.py``): false alarms beside detection, per language.

``--limit N`` runs a seeded random sample of N cases (``--seed``) of those left after
``--split``, kept in file order: so_dev.jsonl is ordered by difficulty, so its first N
would measure only the easy head. Rows per human-fix distance (1, 2, 3+ tokens) and per
snippet length (lines) come with every run.

Rules (``docs/rules.md``): ``--without ID ...`` leaves those rules out of every repair;
``--leave-one-out`` runs the cases with every rule, then, for each rule, the cases whose
repair used it again without it, and prints what each rule earns (repairs and exact
repairs lost without it, and the time of those cases with and without it). A case
whose repair did not use a rule is not rerun without it: leaving a rule out changes
the candidates of such a case at most in their order, which a deletion's full rerun
then shows.

Determinism: every case's output is kept (text and SHA-256) in the JSON; ``--busy N``
runs N busy-looping processes beside the bench, and ``--compare EARLIER.json`` (or
``tools/compare_runs.py A.json B.json``) lists the cases whose output differs and exits 1.

The referee is the language's own tool run here (``tools/referee.py``: CPython,
``gcc -fsyntax-only`` with the file's include folders, ``javac`` stopped after parsing,
``tsc``'s grammar errors...), never tinycode's check, except for a language with no
such tool here (C#, CSS, HTML), which each report names. Each report counts, per
language, outputs called fixed that the referee rejects ("false fixed") and broken
files called clean ("false clean"). ``--judge CMD`` names the referee for a set of
one language (``gcc``: ``gcc -fsyntax-only``; ``bash``: ``bash -n``; ``node``:
``node --check``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
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
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
if not __package__:  # run as a script: the repository (tinycode and tools/) first on the path
    sys.path.insert(0, str(ROOT))

from tools.baselines import BASELINES, run_baseline  # noqa: E402
from tools.compare_runs import report_differences  # noqa: E402
from tools.corrupt import SCALING_ERRORS, corrupt_cases, scaling_pair  # noqa: E402
from tools.pngchart import grouped_bars  # noqa: E402
from tools import referee  # noqa: E402

from tinycode.check import check  # noqa: E402
from tinycode.engine.edits import code_tokens, token_distance  # noqa: E402

DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "so_dev.jsonl"
CHART_GROUPS = 8
# Snippet length in lines. so_dev.jsonl: median 4 lines, deciles 1,1,2,3,4,5,6,8,10, only 3
# of 1,145 longer than 30, so its rows are 1-2 / 3-5 / 6-10 / 11-30 (about 30/35/25/10%);
# whole files (--corrupt, 30-400 lines) fall in the last two.
LENGTH_BINS = ((2, "1-2"), (5, "3-5"), (10, "6-10"), (30, "11-30"), (100, "31-100"), (None, "101+"))
DISTANCE_BINS = ("0", "1", "2", "3+", "no fix")  # tokens from broken to the human fix
BUSY_LOOP = ("import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n"
             "    for _ in range(1_000_000):\n        pass\n")  # ends when the bench does


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.jobs < 1 or (args.jobs > 1 and not args.base_url):
        parser.error("--jobs N (N >= 1) goes with --base-url: the model in process repairs one case at a time")
    json_path, md_path, png_path = output_paths(args.out)
    if args.clean_files:
        from tools import clean_files

        report = clean_files.run(args.per_language, args.seed, args.only, progress=not args.quiet)
        json_path.write_text(json.dumps(report, indent=1), encoding="utf-8")
        md_path.write_text(clean_files.markdown(report), encoding="utf-8")
        print(clean_files.markdown(report))
        return 0
    earlier = json.loads(Path(args.compare).read_text(encoding="utf-8")) if args.compare else None
    cases = load_cases(args)
    if not cases and not args.scaling:
        print("no cases to run", file=sys.stderr)
        return 2
    from tinycode.engine import rules

    try:
        rules.switch_off(args.without)
    except ValueError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    busy = start_busy(args.busy)
    try:
        report = run_bench(args, cases)
        if args.leave_one_out:
            report["leave_one_out"] = leave_one_out(args, cases, report)
    finally:
        stop_busy(busy)
    json_path.write_text(json.dumps(report, indent=1), encoding="utf-8")
    md_path.write_text(markdown(report), encoding="utf-8")
    chart(report, png_path)
    print(markdown(report))
    if earlier is not None:
        return report_differences(earlier, report, sample=bool(args.limit))
    return 0


def output_paths(out: str) -> tuple[Path, Path, Path]:
    """bench.json/.md/.png in the folder ``out``, or ``out`` itself when it names a .json file."""
    path = Path(out)
    if path.suffix == ".json":
        path.parent.mkdir(parents=True, exist_ok=True)
        return path, path.with_suffix(".md"), path.with_suffix(".png")
    path.mkdir(parents=True, exist_ok=True)
    return path / "bench.json", path / "bench.md", path / "bench.png"


def start_busy(count: int) -> list[subprocess.Popen]:
    """``count`` processes that spin on a core each, as a busy machine (CI, a build) would."""
    return [subprocess.Popen([sys.executable, "-c", BUSY_LOOP], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(count)]


def stop_busy(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.kill()
    for process in processes:
        process.wait()


def run_bench(args: argparse.Namespace, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Every system over every case (and the scaling runs): the report, without writing it."""
    from tinycode.config import Settings

    settings = Settings(agent_only=args.agent_only, lookup=args.lookup, offline=True)
    started = time.perf_counter()
    llm = _bench_llm(args)
    runs: dict[str, list[dict[str, Any]]] = {"tinycode": []}
    systems: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = [
        ("tinycode", lambda case: run_tinycode(llm, case, args.timeout, settings))]
    if args.baseline:
        runs[args.baseline] = []
        systems.append((args.baseline, lambda case: run_baseline_case(args.baseline, llm, case, args.seed)))
    def run_case(case: dict[str, Any]) -> list[dict[str, Any]]:
        return [_guarded(run, case) for _, run in systems]

    if args.jobs > 1:  # threads against a server; the records stay in the cases' order
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(args.jobs)
        results = pool.map(run_case, cases)
    else:
        pool, results = None, map(run_case, cases)
    for number, (case, records) in enumerate(zip(cases, results), 1):
        for (name, _), record in zip(systems, records):
            runs[name].append(record)
        if not args.quiet:
            line = "  ".join(f"{name}: {'ok' if runs[name][-1]['success'] else '--'} "
                             f"{runs[name][-1]['seconds']:.2f}s" for name, _ in systems)
            print(f"[{number}/{len(cases)}] {case['id']}  {line}", file=sys.stderr)
    if pool is not None:
        pool.shutdown()
    report: dict[str, Any] = {
        "config": {"data": str(args.data), "cases": len(cases), "model": llm.name, "seed": args.seed,
                   "base_url": args.base_url, "jobs": args.jobs, "rankings": args.ranking,
                   "ranking": getattr(llm, "scoring", "in process"),
                   "baseline": args.baseline, "split": args.split, "limit": args.limit,
                   "judge": args.judge, "lang": args.lang, "busy": args.busy,
                   "corrupt": args.corrupt, "agent_only": args.agent_only, "lookup": args.lookup,
                   "without": sorted(args.without),
                   "machine": platform.platform(), "python": platform.python_version()},
        "systems": {name: summarise(records) for name, records in runs.items()},
        "by_fix_distance": {name: grouped(records, "fix_distance", DISTANCE_BINS)
                            for name, records in runs.items()},
        "by_length": {name: grouped(records, "length", [label for _, label in LENGTH_BINS])
                      for name, records in runs.items()},
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
    return report


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="JSONL of cases ('none' for no file)")
    parser.add_argument("--clean-files", action="store_true",
                        help="no repairs: check clean real files installed here, and one broken twin of "
                             "each, as the hook does, alone and in their project (false alarms, detection)")
    parser.add_argument("--per-language", type=int, default=40, metavar="N",
                        help="--clean-files: clean files a language (default 40)")
    parser.add_argument("--only", nargs="+", metavar="LANG", help="--clean-files: only these languages")
    parser.add_argument("--limit", "--sample", type=int, default=0, metavar="N",
                        help="a random sample of N of the file's cases (after --split), drawn with --seed and "
                             "run in file order; the file's first N would be its easy head")
    parser.add_argument("--split", choices=("all", "even", "odd"), default="all",
                        help="cases whose numeric id is even (tuning) or odd (held out)")
    parser.add_argument("--lang", default=None, help="language of cases that do not name one (default python)")
    parser.add_argument("--judge", default=None, metavar="CMD",
                        help="score with this tool instead of tinycode's checker (gcc, g++, clang, bash, sh, node)")
    parser.add_argument("--model", default=None, help="registry name or .gguf path (default model); "
                        "with --base-url, the server's name for its model")
    parser.add_argument("--base-url", default=None, metavar="URL",
                        help="repair through this OpenAI-compatible model server (--backend openai) "
                        "instead of the model in process")
    parser.add_argument("--ranking", nargs="*", default=None, metavar="WAY",
                        help="with --base-url: rank only these ways (own, echo, forced, choice; "
                        "none at all when empty); default: the first the server allows")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="with --base-url: N cases at once, sharing the server's slots as "
                        "'tinycode fix --jobs N' does")
    parser.add_argument("--seed", type=int, default=0, help="for --limit's sample and the corruptions (0)")
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
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="run N busy-looping processes beside the bench (the determinism check)")
    parser.add_argument("--without", nargs="+", default=[], metavar="RULE",
                        help="leave these rules (docs/rules.md) out of every repair")
    parser.add_argument("--leave-one-out", action="store_true",
                        help="then, for each rule, rerun the cases whose repair used it without it: "
                             "what each rule earns")
    parser.add_argument("--compare", default=None, metavar="EARLIER.json",
                        help="after the run, list the cases whose output differs from that run's (with --limit, "
                             "among the cases sampled); exit 1 if any")
    parser.add_argument("--out", default="bench-out", help="a folder, or NAME.json (NAME.md and NAME.png beside it)")
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
        if args.limit and args.limit < len(cases):
            chosen = random.Random(args.seed).sample(range(len(cases)), args.limit)
            cases = [cases[index] for index in sorted(chosen)]
    for directory in args.corrupt:
        paths = sorted((ROOT / "examples").glob("*/clean.*")) if directory == "examples" else [Path(directory)]
        cases += corrupt_cases(paths, args.per_file, args.seed, args.errors)
    global JUDGE
    JUDGE = args.judge
    for case in cases:
        case.setdefault("lang", args.lang or "python")
        case.setdefault("category", category(case))
        case.setdefault("fix_distance", fix_distance(case))
        case.setdefault("length", length_bin(case["broken"]))
    return cases


def fix_distance(case: dict[str, Any]) -> str:
    """How far the human fix is from ``broken``, in tokens: "1", "2", "3+" (or "0", "no fix")."""
    if not case.get("fixed"):
        return "no fix"
    distance = token_distance(case["broken"], case["fixed"], case["lang"], cap=3)
    return "3+" if distance >= 3 else str(distance)


def length_bin(source: str) -> str:
    lines = len(source.splitlines()) or 1
    return next(label for top, label in LENGTH_BINS if top is None or lines <= top)


def category(case: dict[str, Any]) -> str:
    """The checker's message with names and line numbers taken out."""
    message = case.get("error") or ""
    if not message:
        result = check(case["broken"], case["lang"])
        message = result.problems[0].message if result.problems else "clean"
    message = message.split("\n", 1)[0]  # the first message of several
    message = re.sub(r"^\d+-\d+ ", "", message)  # c_dev.jsonl's "LINE-COLUMN " prefix
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


def accepted(output: str, language: str, path: str | None = None) -> bool:
    """Does the referee accept ``output`` (the file at ``path``, when the case names it):
    the --judge tool when given, else the language's own tool (``tools/referee.py``),
    else, where the machine has none, tinycode's check."""
    if JUDGE is None:
        verdict = referee.confirm(output, path or _input_name(language), language)
        return check(output, language).ok if verdict is None else verdict
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("input" + _JUDGE_SUFFIX.get(JUDGE, ".txt"))
        path.write_text(output, encoding="utf-8")
        done = subprocess.run([JUDGE, *_JUDGE_ARGS.get(JUDGE, []), str(path)], cwd=folder,
                              capture_output=True, timeout=60, check=False)
        return done.returncode == 0


def _input_name(language: str) -> str:
    from tinycode.languages import spec

    record = spec(language)
    return "input" + (record.extensions[0] if record is not None and record.extensions else ".txt")


def referee_name(language: str) -> str:
    """Who scored ``language``'s outputs in this run."""
    if JUDGE is not None:
        return JUDGE
    own = referee.name(language)
    return own if own != "none" else "tinycode check (no own tool here)"


def score(case: dict[str, Any], output: str) -> dict[str, Any]:
    language = case["lang"]
    source = case.get("source")
    # (a member of an archive: its name, for the tool, without its folders)
    parsed = accepted(output, language, source if source and os.path.isfile(source) else
                      (os.path.basename(source) if source else None))
    fixed = case.get("fixed")
    exact = bool(fixed) and parsed and code_tokens(output, language) == code_tokens(fixed, language)
    errors = int(case.get("errors", 1))  # several errors: up to 4 tokens for each
    distance = token_distance(case["broken"], output, language, cap=4 * errors + 1)
    return {"parsed": parsed, "distance": distance, "success": parsed and 1 <= distance <= 4 * errors,
            "exact": exact}


def _bench_llm(args: argparse.Namespace):
    """The model in process, or the one behind ``--base-url`` (its slots shared by the
    ``--jobs`` threads, as ``fix --jobs`` shares them)."""
    from tinycode.llm import load_llm

    if args.base_url:
        from tinycode.llm.openai_http import OpenAIHTTPLLM

        if args.ranking is None:
            return load_llm(args.model, backend="openai", base_url=args.base_url, offline=True,
                            server_slots=0 if args.jobs > 1 else None)
        return OpenAIHTTPLLM(args.base_url, model=args.model, offline=True,
                             slots=0 if args.jobs > 1 else None, rankings=args.ranking)
    return load_llm(args.model, offline=True)


def run_tinycode(llm, case: dict[str, Any], timeout: float, settings=None) -> dict[str, Any]:
    from tinycode import repair

    start = time.perf_counter()
    result = repair(case["broken"], case["lang"], llm=llm, timeout=timeout, settings=settings)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, **_output(result.source), "status": result.status, "reason": result.reason,
            "verified_by": getattr(result, "verified_by", ""), "referee": referee_name(case["lang"]),
            "model_calls": result.model_calls, "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens, "steps": len(result.steps),
            "work": getattr(result, "work", 0), "judge_work": getattr(result, "judge_work", 0),
            "fast_path": bool(getattr(result, "fast_path", False)),
            "lookup": any(step.kind == "lookup" for step in result.steps),
            "rules": list(getattr(result, "rules", [])), **score(case, result.source)}


def leave_one_out(args: argparse.Namespace, cases: list[dict[str, Any]],
                  report: dict[str, Any]) -> list[dict[str, Any]]:
    """Per rule: the cases whose repair used it, rerun with it left out (and
    whatever else ``--without`` leaves out): repairs and exact repairs lost, seconds."""
    from tinycode.config import Settings
    from tinycode.engine import rules

    import tinycode.engine.proposals  # noqa: F401  (registers every rule)

    settings = Settings(agent_only=args.agent_only, lookup=args.lookup, offline=True)
    llm = _bench_llm(args)
    records = report["cases"]["tinycode"]
    kept = set(args.without)
    rows = []
    for rule_id in sorted(set(rules.RULES) - kept):
        used = [(case, record) for case, record in zip(cases, records) if rule_id in record.get("rules", [])]
        row = {"rule": rule_id, "used": len(used), "lost": 0, "exact_lost": 0, "gained": 0,
               "seconds_with": sum(r["seconds"] for _, r in used), "seconds_without": 0.0}
        rules.switch_off(kept | {rule_id})
        try:
            for case, record in used:
                again = _guarded(lambda c: run_tinycode(llm, c, args.timeout, settings), case)
                row["seconds_without"] += again["seconds"]
                row["lost"] += int(record["success"] and not again["success"])
                row["gained"] += int(again["success"] and not record["success"])
                row["exact_lost"] += int(record["exact"] and not again["exact"])
        finally:
            rules.switch_off(kept)
        if not args.quiet:
            print(f"[without {rule_id}] used {row['used']}, lost {row['lost']}, exact lost {row['exact_lost']}",
                  file=sys.stderr)
        rows.append(row)
    return rows


def run_baseline_case(kind: str, llm, case: dict[str, Any], seed: int) -> dict[str, Any]:
    result = run_baseline(kind, llm, case["broken"], case["lang"], seed)
    return {"seconds": result.seconds, **_output(result.source), "status": "answered",
            "model_calls": result.model_calls,
            "prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens,
            **score(case, result.source)}


def _output(source: str) -> dict[str, str]:
    """The output kept for the determinism check: its text and its SHA-256."""
    return {"output": source, "output_sha256": hashlib.sha256(source.encode("utf-8")).hexdigest()}


def _guarded(run: Callable[[dict[str, Any]], dict[str, Any]], case: dict[str, Any]) -> dict[str, Any]:
    """A case that raises is a crash: recorded and counted, never the end of the run."""
    start = time.perf_counter()
    try:
        record = run(case)
        record["crash"] = None
    except Exception as exc:  # noqa: BLE001 - the benchmark must survive any case
        record = {"seconds": time.perf_counter() - start, "output": None, "output_sha256": None,
                  "status": "crash", "parsed": False,
                  "success": False, "exact": False, "distance": None, "model_calls": 0,
                  "prompt_tokens": 0, "completion_tokens": 0,
                  "crash": "".join(traceback.format_exception_only(type(exc), exc)).strip()}
    record.update(id=case["id"], lang=case["lang"], category=case["category"],
                  fix_distance=case.get("fix_distance", "no fix"),
                  length=case.get("length") or length_bin(case.get("broken", "")))
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
        # Called fixed, but the referee rejects the output; called clean, but broken (every
        # case is broken); refused: left as it was, "not fixed".
        "false_fixed": sum(1 for r in records if r.get("status") == "fixed" and not r.get("parsed")),
        "false_clean": sum(1 for r in records if r.get("status") == "clean"),
        "refused": sum(1 for r in records if r.get("status") == "failed"),
        "referees": sorted({r["referee"] for r in records if r.get("referee")}),
        "end_states": _counts(r.get("status", "") for r in with_fix),
    }


def _rate(records: list[dict[str, Any]], key: str) -> float:
    return sum(1 for r in records if r.get(key)) / len(records) if records else 0.0


def _counts(values) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values:
        out[value] = out.get(value, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def grouped(records: list[dict[str, Any]], key: str, order: Sequence[str] = ()) -> dict[str, dict[str, Any]]:
    """Summaries per value of ``key``: in ``order`` when given (bins), else largest first."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        groups.setdefault(record[key], []).append(record)
    rank = {name: index for index, name in enumerate(order)}
    items = sorted(groups.items(), key=lambda kv: (rank.get(kv[0], len(rank)), -len(kv[1]))) if order \
        else sorted(groups.items(), key=lambda kv: -len(kv[1]))
    return {name: summarise(rows) for name, rows in items}


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
    if report.get("leave_one_out"):
        lines += ["", "## Each rule left out", "",
                  "Cases whose repair used the rule, rerun without it.", "",
                  "| rule | used by | repairs lost | exact lost | gained | seconds with / without |",
                  "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for row in sorted(report["leave_one_out"], key=lambda r: (-r["lost"], -r["exact_lost"], -r["used"], r["rule"])):
            lines.append(f"| `{row['rule']}` | {row['used']} | {row['lost']} | {row['exact_lost']} | {row['gained']} | "
                         f"{row['seconds_with']:.1f} / {row['seconds_without']:.1f} |")
    for title, key, column in (("human-fix distance (tokens)", "by_fix_distance", "tokens"),
                               ("snippet length (lines)", "by_length", "lines")):
        if key not in report:
            continue
        names = list(report[key])
        prefixes = [f"{n} " if len(names) > 1 else "" for n in names]
        lines += ["", f"## By {title}", "",
                  f"| {column} | " + " | ".join(f"{p}n | {p}success | {p}exact | {p}median s | {p}p95 s"
                                            for p in prefixes) + " |",
                  "| --- |" + " ---: | ---: | ---: | ---: | ---: |" * len(names)]
        for group in report[key]["tinycode"]:
            cells = []
            for name in names:
                g = report[key][name].get(group)
                cells.append(f"{g['n']} | {g['success']:.1%} | {g['exact']:.1%} | {g['median_seconds']:.2f} | "
                             f"{g['p95_seconds']:.2f}" if g else "- | - | - | - | -")
            lines.append(f"| {group} | " + " | ".join(cells) + " |")
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
    if "by_language" in report and "tinycode" in report["by_language"]:
        lines += ["", "## What tinycode said, against the referee", "",
                  "| language | n | fixed | false fixed | false clean | not fixed | referee |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
        for group, g in report["by_language"]["tinycode"].items():
            fixed = g["end_states"].get("fixed", 0)
            lines.append(f"| {group} | {g['n']} | {fixed} | {g['false_fixed']} | {g['false_clean']} | "
                         f"{g['refused']} | {', '.join(g['referees']) or '-'} |")
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
