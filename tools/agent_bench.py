"""Measure the ReAct agent where the other tools fail.

The repair loop (verified candidate edits, the model's rewrite) runs once per case with
the default model; the cases it leaves unrepaired, and the working copy it leaves, are
kept in ``--cases`` (JSON) so that every agent (each --model x --style) starts from the
same copies. For each agent: turns well formed (parsed, naming an offered tool), cases
repaired (clean and within the guard, measured from the original input), seconds.

    python tools/agent_bench.py --corrupt /tmp/realfiles --errors 2 --cases /tmp/stuck.json
    python tools/agent_bench.py --cases /tmp/stuck.json --model 1.5b --style narrow
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from tinycode import judges  # noqa: E402
from tinycode.check import check  # noqa: E402
from tinycode.config import Settings  # noqa: E402
from tinycode.deadline import DeadlineExceeded, until  # noqa: E402
from tinycode.engine.agent.loop import STYLES  # noqa: E402
from tinycode.engine.loop import RepairState, run_agent_on, run_loop  # noqa: E402
from tinycode.errors import ModelError  # noqa: E402
from tinycode.llm import load_llm  # noqa: E402


def stuck_cases(cases: list[dict], settings: Settings, timeout: float) -> list[dict]:
    """The cases the loop leaves unrepaired, with the working copy it leaves."""
    llm = load_llm(settings.model)
    stuck = []
    for n, case in enumerate(cases, 1):
        before = check(case["broken"], case["lang"])
        if before.ok:
            continue
        with judges.baseline(case["broken"], case["lang"]):
            state = RepairState.start(case["broken"], case["lang"], before, settings, llm)
            try:
                with until(time.monotonic() + timeout):
                    clean = run_loop(state)
            except (ModelError, DeadlineExceeded):
                clean = False
        print(f"[{n}/{len(cases)}] {case.get('id', '')} loop {'repaired' if clean else 'stuck'}",
              file=sys.stderr)
        if not clean:
            stuck.append({**case, "working": state.working})
    return stuck


def run_agents(stuck: list[dict], settings: Settings, style_name: str, timeout: float) -> dict:
    llm = load_llm(settings.model)
    style = STYLES[style_name]
    rows, turns, well_formed = [], 0, 0
    for case in stuck:
        language = case["lang"]
        original = check(case["broken"], language)
        with judges.baseline(case["broken"], language):
            state = RepairState.start(case["broken"], language, original, settings, llm)
            state.working, state.current = case["working"], check(case["working"], language)
            started = time.perf_counter()
            try:
                with until(time.monotonic() + timeout):
                    final = run_agent_on(state, style)
            except (ModelError, DeadlineExceeded):
                final = state.working
            seconds = time.perf_counter() - started
            repaired = check(final, language).ok and not state.too_large(final)
        model_steps = [s for s in state.result.steps if s.kind == "model"]
        turns += len(model_steps)
        well_formed += sum(1 for s in model_steps if not s.error and "unknown_tool" not in s.observation)
        rows.append({"id": case.get("id", ""), "repaired": repaired, "seconds": seconds,
                     "turns": len(model_steps)})
        print(f"  {case.get('id', '')}: {'repaired' if repaired else 'not repaired'} "
              f"in {len(model_steps)} turns, {seconds:.1f}s", file=sys.stderr)
    seconds = [r["seconds"] for r in rows]
    repaired = sum(r["repaired"] for r in rows)
    return {"model": settings.model or "default", "style": style_name, "cases": len(rows),
            "repaired": repaired, "turns": turns,
            "well_formed": round(100 * well_formed / turns, 1) if turns else None,
            "median_seconds": round(statistics.median(seconds), 2) if seconds else None,
            "total_seconds": round(sum(seconds), 1),
            "repairs_per_minute": round(60 * repaired / sum(seconds), 2) if seconds and sum(seconds) else 0.0,
            "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", required=True, help="JSON of stuck cases: read if it exists, else made")
    parser.add_argument("--corrupt", help="make cases from the clean files in this folder")
    parser.add_argument("--errors", type=int, default=2)
    parser.add_argument("--data", help="JSONL of cases (so_dev.jsonl)")
    parser.add_argument("--sample", type=int, default=40, help="cases drawn (seeded) from --data or --corrupt")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default=None, help="the agent's model (registry name or .gguf)")
    parser.add_argument("--style", default="open,narrow", help="agent styles, comma-separated")
    parser.add_argument("--max-steps", type=int, default=6)
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds per case (safety bound)")
    parser.add_argument("--out", help="write the rows as JSON here")
    args = parser.parse_args()
    settings = Settings()
    path = Path(args.cases)
    if path.exists():
        stuck = json.loads(path.read_text(encoding="utf-8"))
    else:
        if args.corrupt:
            from corrupt import corrupt_cases

            cases = corrupt_cases(sorted(Path(args.corrupt).glob("*/*")), per_file=1, seed=args.seed,
                                  errors=args.errors)
        else:
            lines = Path(args.data).read_text(encoding="utf-8").splitlines()
            cases = [{**json.loads(line), "lang": "python"} for line in lines if line.strip()]
        cases = random.Random(args.seed).sample(cases, min(args.sample, len(cases)))
        stuck = stuck_cases(cases, settings, args.timeout)
        path.write_text(json.dumps(stuck), encoding="utf-8")
    print(f"{len(stuck)} cases the loop leaves unrepaired", file=sys.stderr)
    agent_settings = replace(settings, model=args.model, max_steps=args.max_steps)
    reports = [run_agents(stuck, agent_settings, style, args.timeout) for style in args.style.split(",")]
    print("| model | style | cases | repaired | turns | well-formed turns | median s | total s | repairs/min |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in reports:
        print(f"| {r['model']} | {r['style']} | {r['cases']} | {r['repaired']} | {r['turns']} | "
              f"{r['well_formed']}% | {r['median_seconds']} | {r['total_seconds']} | {r['repairs_per_minute']} |")
    if args.out:
        Path(args.out).write_text(json.dumps(reports, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
