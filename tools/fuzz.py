"""A longer fuzz session than CI's, by hand: random bytes and random mutations of the
clean example in every language through ``check()``, and random or mutated model turns
through the action parser. Counts inputs and crashes (exceptions or a verdict that
differs between two runs); the crashing inputs are written to ``--out``.

    python tools/fuzz.py --minutes 10
"""

from __future__ import annotations

import argparse
import json
import random
import time
import traceback
from pathlib import Path

from tinycode import check, render
from tinycode.engine.agent.parser import parse_turn
from tinycode.errors import InputError
from tinycode.languages import detect
from tinycode.sourcefile import decode

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ["code_check", "view_lines", "replace_lines", "apply_fix", "web_search"]
SYMBOLS = list("(){}[];:,'\"\n\t <>=#/\\`$@") + ["\x00", "\ufeff", "é", "\r\n", "'''", '"""']
TURNS = [
    'Thought: close it\nAction: replace_lines\nAction Input: {"start": 2, "end": 2, "text": "x = (1)"}',
    "Thought: look\nAction: view_lines\nAction Input: {'start': 1, 'end': 5}",
    "Thought: it parses\nFinal Answer: done",
]


def mutate(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 8)):
        i = rng.randint(0, len(chars))
        roll = rng.random()
        if roll < 0.35 and i < len(chars):
            del chars[i]
        elif roll < 0.75:
            chars.insert(i, rng.choice(SYMBOLS))
        elif i < len(chars):
            j = min(len(chars), i + rng.randint(1, 80))
            chars[i:i] = chars[i:j]  # duplicate a stretch
    return "".join(chars)


def check_case(source: str, language: str) -> None:
    first = check(source, language)
    if first != check(source, language):
        raise AssertionError("non-deterministic verdict")
    render(first, source)


def bytes_case(data: bytes) -> None:
    try:
        text, _ = decode(data)
    except InputError:
        return
    check_case(text, "python")


def turn_case(text: str) -> None:
    a, b = parse_turn(text, TOOLS), parse_turn(text, TOOLS)
    if (a.action, a.arguments, a.final, a.error) != (b.action, b.arguments, b.final, b.error):
        raise AssertionError("non-deterministic parse")
    # A name outside TOOLS is passed on: the tool guard answers it with unknown_tool.
    if not a.final and not a.error and (not a.action.isidentifier() or not isinstance(a.arguments, dict)):
        raise AssertionError(f"malformed action {a.action!r} / {a.arguments!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="fuzz-crashes.jsonl")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sources = [(detect(str(p)), p.read_text(encoding="utf-8")) for p in sorted(ROOT.glob("examples/*/clean.*"))]
    counts = {"check": 0, "bytes": 0, "parser": 0}
    crashes: list[dict[str, str]] = []
    deadline = time.monotonic() + args.minutes * 60
    while time.monotonic() < deadline:
        roll = rng.random()
        if roll < 0.6:
            language, source = rng.choice(sources)
            kind, case, run = "check", mutate(source, rng), lambda c, lang=language: check_case(c, lang)
        elif roll < 0.7:
            data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 400)))
            kind, case, run = "bytes", data, bytes_case
        else:
            base = rng.choice(TURNS) if rng.random() < 0.7 else "".join(
                chr(rng.randrange(32, 0x250)) for _ in range(rng.randint(0, 300)))
            kind, case, run = "parser", mutate(base, rng), turn_case
        counts[kind] += 1
        try:
            run(case)
        except Exception:  # every failure is a finding: record it and go on
            crashes.append({"kind": kind, "input": repr(case), "error": traceback.format_exc(limit=3)})
    total = sum(counts.values())
    print(f"fuzz: {total:,} inputs in {args.minutes:g} min (check {counts['check']:,}, "
          f"bytes {counts['bytes']:,}, parser {counts['parser']:,}); crashes: {len(crashes)}")
    if crashes:
        Path(args.out).write_text("".join(json.dumps(c) + "\n" for c in crashes), encoding="utf-8")
        print(f"crashing inputs written to {args.out}")
    return 1 if crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
