"""Single-error cases from clean shell scripts, broken the way people break them.

One mistake per case: a ``;`` dropped before ``then`` or ``do``, a ``then``, ``fi``,
``done`` or ``}`` left out, a closing quote lost. A case is kept when the script's own
shell (``bash -n``, or ``sh -n`` for a ``#!/bin/sh`` script) rejects it, so each is an
error a person would really hit, and when the clean script is 1-4 tokens from it. Writes JSONL ``{id, lang, broken, fixed, category}``.

    python tools/shell_cases.py /usr/bin/gzexe /etc/init.d/dbus --per-file 2 > shell.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tinycode.engine.edits import token_distance  # noqa: E402

Corruption = Callable[[list[str], int], list[str] | None]


def _sub(pattern: str, repl: str) -> Corruption:
    def apply(lines: list[str], n: int) -> list[str] | None:
        new = re.sub(pattern, repl, lines[n], count=1)
        return None if new == lines[n] else lines[:n] + [new] + lines[n + 1:]
    return apply


def _drop_line(word: str) -> Corruption:
    def apply(lines: list[str], n: int) -> list[str] | None:
        return lines[:n] + lines[n + 1:] if lines[n].strip() in (word, word + ";") else None
    return apply


def _drop_closing_quote(lines: list[str], n: int) -> list[str] | None:
    match = re.search(r'"[^"\n\\$`]{1,30}"', lines[n])
    if not match:
        return None
    cut = match.end() - 1
    return lines[:n] + [lines[n][:cut] + lines[n][cut + 1:]] + lines[n + 1:]


KINDS: dict[str, Corruption] = {
    "drop ; before then": _sub(r";(\s*then\b)", r"\1"),
    "drop ; before do": _sub(r";(\s*do\b)", r"\1"),
    "drop then": _sub(r";?\s*\bthen\b", ""),
    "drop fi": _drop_line("fi"),
    "drop done": _drop_line("done"),
    "drop closing quote": _drop_closing_quote,
    "drop }": _drop_line("}"),
}


def rejected(text: str, shell: str) -> bool:
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as handle:
        handle.write(text)
    done = subprocess.run([shell, "-n", handle.name], capture_output=True, timeout=10, check=False)
    Path(handle.name).unlink()
    return done.returncode != 0


def cases(path: Path, per_file: int, rng: random.Random) -> list[dict[str, str]]:
    text = path.read_text(encoding="utf-8", errors="replace")
    shell = "sh" if re.match(r"#!\s*/bin/sh\b", text) else "bash"
    if rejected(text, shell):
        return []
    lines = text.split("\n")
    code = [n for n, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    out: list[dict[str, str]] = []
    kinds = list(KINDS)
    rng.shuffle(kinds)
    for kind in kinds:
        spots = code[:]
        rng.shuffle(spots)
        for n in spots:
            broken = KINDS[kind](lines, n)
            if broken is None:
                continue
            broken_text = "\n".join(broken)
            # As in corrupt.py: only where the clean script itself would score as a repair
            # (a quote dropped before a long string moves many tokens, and nothing could).
            if 1 <= token_distance(broken_text, text, "bash", cap=5) <= 4 and rejected(broken_text, shell):
                out.append({"id": f"{path.name}-{len(out)}", "lang": "bash", "broken": broken_text,
                            "fixed": text, "category": kind, "error": ""})
            break
        if len(out) >= per_file:
            break
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--per-file", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    for path in args.files:
        for case in cases(path, args.per_file, rng):
            sys.stdout.write(json.dumps(case) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
