"""Time `tinycode check` as a pre-commit hook runs it (whole processes).

Targets: one small file <= 150 ms for the whole process; 1,000 files of a few
hundred lines each <= 5 s. Prints medians over repeated runs and exits 1 when a
target is missed.

    python tools/time_check.py [--runs 7]
    python tools/time_check.py --judges   # what each language's own judge adds

With ``--judges``: for every example language whose judge is installed here, the
median time of `tinycode check` on its clean example with the judge and without it
(``--judges LANG=off``).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL_TARGET, MANY_TARGET = 0.150, 5.0


def command() -> list[str]:
    script = shutil.which("tinycode")
    return [script] if script else [sys.executable, "-m", "tinycode"]


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def make_corpus(folder: Path, count: int) -> list[str]:
    """``count`` files of a few hundred lines, cycling through every example language."""
    sources = sorted((ROOT / "examples").glob("*/clean.*"))
    paths = []
    for i in range(count):
        example = sources[i % len(sources)]
        text = example.read_text(encoding="utf-8")
        if example.suffix in (".json", ".html", ".toml", ".yaml"):
            body = text  # these are one document; keep them as they are
        else:
            body = text * max(1, 300 // max(1, text.count("\n")))
        path = folder / f"file{i:04d}{example.suffix}"
        path.write_text(body, encoding="utf-8")
        paths.append(str(path))
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--judges", action="store_true", help="what each installed judge costs")
    args = parser.parse_args()
    cmd = command()
    if args.judges:
        return judge_costs(cmd, args.runs)
    small = str(ROOT / "examples" / "python" / "broken.py")
    timed(cmd + ["check", small])  # warm the file-system cache
    small_times = [timed(cmd + ["check", small]) for _ in range(args.runs)]
    with tempfile.TemporaryDirectory() as folder:
        paths = make_corpus(Path(folder), 1000)
        lines = sum(Path(p).read_text().count("\n") for p in paths)
        many_times = [timed(cmd + ["check", "-q"] + paths) for _ in range(max(3, args.runs // 2))]
    small_median, many_median = statistics.median(small_times), statistics.median(many_times)
    print(f"command: {' '.join(cmd)} check")
    print(f"one small file:  median {small_median * 1000:.0f} ms over {len(small_times)} runs "
          f"(target <= {SMALL_TARGET * 1000:.0f} ms)")
    print(f"1,000 files ({lines:,} lines): median {many_median:.2f} s over {len(many_times)} runs "
          f"(target <= {MANY_TARGET:.0f} s)")
    return 0 if small_median <= SMALL_TARGET and many_median <= MANY_TARGET else 1


def judge_costs(cmd: list[str], runs: int) -> int:
    sys.path.insert(0, str(ROOT))
    from tinycode import judges
    from tinycode.languages import detect

    print("| language | judge | with it, ms | tree-sitter only, ms |\n| --- | --- | ---: | ---: |")
    for example in sorted((ROOT / "examples").glob("*/clean.*")):
        language = detect(str(example), example.read_bytes()[:200])
        judge = judges.judge_name(language, example.read_text(encoding="utf-8")) if language else None
        if judge is None:
            continue
        argv = cmd + ["check", str(example)]
        timed(argv)
        with_judge = statistics.median(timed(argv) for _ in range(runs))
        without = statistics.median(timed(argv + ["--judges", f"{language}=off"]) for _ in range(runs))
        print(f"| {language} | {judge} | {with_judge * 1000:.0f} | {without * 1000:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
