"""Load, prompt and generation speed of a model in process, with llama.cpp's extra buffer
types off and on. Each setting runs in a child process, so a crash (exit 139 on CPUs
with AMX, with them on) is a row of the table, not the end of the run.

    python tools/model_speed.py                 # the default model, both settings
    python tools/model_speed.py --model 1.5b --repeat 5
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# A fixed prompt of real code (this repository's repair loop), the same on every run.
PROMPT_SOURCE = ROOT / "tinycode" / "engine" / "loop.py"
PROMPT_CHARS = 2400
GENERATED = 128


def measure(model: str | None, extra_buffers: bool, repeat: int) -> dict[str, float]:
    """In this process: load the model, then time ``repeat`` prompt evaluations and
    generations; medians."""
    from tinycode.llm.llama_cpp import LlamaCppLLM
    from tinycode.models import resolve_model_path

    llm = LlamaCppLLM(resolve_model_path(model, offline=True), extra_buffers=extra_buffers,
                      prefix_cache=False)
    tokens = llm._tokenize(PROMPT_SOURCE.read_text()[:PROMPT_CHARS])
    prompt_rates, generation_rates = [], []
    for _ in range(repeat):
        llm._llm.reset()
        started = time.perf_counter()
        llm._llm.eval(tokens)
        prompt_rates.append(len(tokens) / (time.perf_counter() - started))
        llm._llm.reset()
        answer = llm.complete("def fibonacci(n):", max_tokens=GENERATED)
        generation_rates.append(answer.completion_tokens / answer.seconds)
    return {"load_s": llm.load_seconds, "prompt_tokens": len(tokens),
            "prompt_tps": statistics.median(prompt_rates), "generation_tps": statistics.median(generation_rates),
            "extra_buffers": llm.extra_buffers}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="registry name, alias or .gguf path (default: the default model)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", choices=("off", "on"), help=argparse.SUPPRESS)  # the child's part
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.model, args.one == "on", args.repeat)))
        return 0
    print("| extra buffer types | load | prompt | generation |")
    print("| --- | --- | --- | --- |")
    for setting in ("off", "on"):
        command = [sys.executable, __file__, "--one", setting, "--repeat", str(args.repeat)]
        if args.model:
            command += ["--model", args.model]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode == 0:
            row = json.loads(run.stdout.strip().splitlines()[-1])
            print(f"| {setting} | {row['load_s']:.2f} s | {row['prompt_tps']:.0f} tokens/s "
                  f"({row['prompt_tokens']} tokens) | {row['generation_tps']:.0f} tokens/s |")
        elif run.returncode < 0:
            name = signal.Signals(-run.returncode).name
            print(f"| {setting} | crashed: {name} (exit {128 - run.returncode}) | — | — |")
        else:
            last = (run.stderr.strip().splitlines() or ["?"])[-1]
            print(f"| {setting} | failed (exit {run.returncode}): {last} | — | — |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
