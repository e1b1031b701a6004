"""Does a model server rank candidate repairs as the in-process model does?

For a seeded sample of held-out dev-set cases (odd ids), finds the verified complete
candidates once, ranks them with the model in process and through the server at
``--base-url`` (``/v1/completions`` with echo + logprobs), and prints how often both
choose the same candidate. Only cases with two or more complete candidates count.

    python tools/rank_agreement.py --base-url http://127.0.0.1:8080 --cases 100
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tinycode.engine.candidates import suggest  # noqa: E402
from tinycode.check import check  # noqa: E402
from tinycode.errors import ModelError  # noqa: E402
from tinycode.engine.fastpath import MAX_RANKED  # noqa: E402
from tinycode.llm import load_llm  # noqa: E402
from tinycode.llm.openai_http import RANKINGS, OpenAIHTTPLLM  # noqa: E402
from tinycode.models import resolve_model_path  # noqa: E402
from tinycode.engine.rank import rank  # noqa: E402

DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "so_dev.jsonl"


def odd_cases(path: Path) -> list[dict[str, Any]]:
    """The held-out half of the dev set: cases whose numeric id is odd."""
    cases = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                case = json.loads(line)
                number = re.search(r"(\d+)$", str(case["id"]))
                if number and int(number.group(1)) % 2 == 1:
                    cases.append(case)
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="the OpenAI-compatible server to compare")
    parser.add_argument("--model", default=None,
                        help="GGUF for the in-process side (default: the default model)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ranking", choices=RANKINGS, default=None,
                        help="rank only this way (default: the first the server allows)")
    parser.add_argument("--read-timeout", type=float, default=600.0, help="seconds per server request")
    parser.add_argument("--out", type=Path, default=None, help="JSONL record per case")
    parser.add_argument("--resume", action="store_true",
                        help="keep the cases already in --out, run the rest of the sample after them")
    parser.add_argument("--shard", default="0/1",
                        help="I/N: run every Nth case of the sample from the Ith (one server per shard)")
    args = parser.parse_args(argv)

    cases = odd_cases(args.data)
    sample = random.Random(args.seed).sample(cases, min(args.cases, len(cases)))
    index, _, count = args.shard.partition("/")
    sample = sample[int(index)::int(count or 1)]
    local = load_llm(str(args.model or resolve_model_path(None, offline=True)))
    remote = OpenAIHTTPLLM(args.base_url, read_timeout=args.read_timeout,
                           max_scoring_seconds_per_token=None,
                           rankings=(args.ranking,) if args.ranking else RANKINGS)
    done: dict[str, dict[str, Any]] = {}
    if args.resume and args.out and args.out.exists():
        for line in args.out.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            done[record["id"]] = record
    out = open(args.out, "a" if done else "w", encoding="utf-8") if args.out else None
    same = ranked = 0
    local_seconds: list[float] = []
    remote_seconds: list[float] = []
    for record in done.values():
        if "same" in record:
            ranked += 1
            same += record["same"]
            local_seconds.append(record["local_seconds"])
            remote_seconds.append(record["remote_seconds"])
    try:
        for number, case in enumerate(sample, 1):
            if case["id"] in done:
                continue
            record: dict[str, Any] = {"id": case["id"]}
            source = case["broken"]
            found = suggest(source, "python", limit=MAX_RANKED, result=check(source, "python"))
            complete = [c for c in found if c.fixes_all]
            record["candidates"] = len(complete)
            if len(complete) >= 2:
                try:
                    start = time.perf_counter()
                    mine = rank(local, source, "python", complete)
                    record["local_seconds"] = time.perf_counter() - start
                    start = time.perf_counter()
                    theirs = rank(remote, source, "python", complete)
                    record["remote_seconds"] = time.perf_counter() - start
                except ModelError as exc:
                    record["error"] = str(exc)
                else:
                    ranked += 1
                    record["same"] = mine[0][0] == theirs[0][0]
                    record["local_scores"] = [round(s, 3) for _, s in mine]
                    record["remote_scores"] = [round(s, 3) for _, s in theirs]
                    same += record["same"]
                    local_seconds.append(record["local_seconds"])
                    remote_seconds.append(record["remote_seconds"])
            if out:
                out.write(json.dumps(record) + "\n")
                out.flush()
            print(f"[{number}/{len(sample)}] {case['id']}: {record['candidates']} candidates"
                  + (f", same={record['same']} (local {record['local_seconds']:.1f} s, "
                     f"server {record['remote_seconds']:.1f} s)" if "same" in record else "")
                  + (f", error: {record['error']}" if "error" in record else ""), flush=True)
    finally:
        if out:
            out.close()
        remote.close()
        local.close()
    if not ranked:
        print("no case had two complete candidates")
        return 1
    print(f"agreement: {same}/{ranked} ranked cases = {100 * same / ranked:.1f}% "
          f"({len(sample)} cases sampled, seed {args.seed})")
    print(f"median seconds per ranking: in process {statistics.median(local_seconds):.2f}, "
          f"server {statistics.median(remote_seconds):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
