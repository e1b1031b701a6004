"""Load: 200 files in one ``tinycode fix`` call and 1,000 files in one ``tinycode check``
call, with the real default model. Reports wall time, peak RSS and the summary, and
checks that every file ended fixed, failed-and-untouched or refused, and that the
bad files among them stopped nothing.

    python tools/load_test.py [--fix-files 200] [--check-files 1000]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import corrupt_cases  # noqa: E402
from time_check import ROOT, command, make_corpus  # noqa: E402

from tinycode.check import check  # noqa: E402

MEMORY_TARGET_MB = 1024
BAD_FILES = {"binary.py": b"\x89PNG\r\n\x1a\n\x00\x00", "latin1.py": b"x = '\xe9'\n", "notes.unknown": b"hello\n"}


def run_measured(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """The finished process, its seconds and its peak RSS in MB (one child at a time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if peak <= before:
        print("note: peak RSS not above an earlier child's; figure is an upper bound", file=sys.stderr)
    return proc, seconds, peak / 1024


def fix_load(folder: Path, count: int, seed: int) -> bool:
    cases = corrupt_cases(sorted(ROOT.glob("examples/*/clean.*")), per_file=max(1, count // 18 + 1), seed=seed)
    random.Random(seed).shuffle(cases)
    cases = cases[:count - len(BAD_FILES)]
    paths, originals = [], {}
    for i, case in enumerate(cases):
        suffix = Path(case["id"].split("#")[0]).suffix
        path = folder / f"case{i:03d}{suffix}"
        path.write_text(case["broken"], encoding="utf-8")
        paths.append(str(path))
        originals[str(path)] = (case["broken"], case["lang"])
    for name, data in BAD_FILES.items():
        (folder / name).write_bytes(data)
        paths.insert(len(paths) // 2, str(folder / name))
    proc, seconds, peak_mb = run_measured(command() + ["fix", "--json", "--quiet", *paths])
    reports = json.loads(proc.stdout)
    statuses: dict[str, int] = {}
    for report in reports:
        statuses[report["status"]] = statuses.get(report["status"], 0) + 1
    consistent = len(reports) == len(paths)
    for report in reports:
        if report["path"] not in originals:
            consistent &= report["status"] == "error"
            continue
        text = Path(report["path"]).read_text(encoding="utf-8")
        broken, language = originals[report["path"]]
        if report["status"] == "fixed":
            consistent &= check(text, language).ok
        else:
            consistent &= text == broken
    print(f"fix: {len(paths)} files ({len(BAD_FILES)} bad) in one call: {seconds:.1f} s, "
          f"peak RSS {peak_mb:.0f} MB, exit {proc.returncode}, statuses {statuses}, "
          f"files consistent with reports: {consistent}")
    return consistent and peak_mb <= MEMORY_TARGET_MB


def check_load(folder: Path, count: int) -> bool:
    paths = make_corpus(folder, count)
    (folder / "binary.py").write_bytes(BAD_FILES["binary.py"])
    paths.insert(count // 2, str(folder / "binary.py"))
    proc, seconds, peak_mb = run_measured(command() + ["check", "--json", *paths])
    results = json.loads(proc.stdout)
    print(f"check: {len(paths)} files in one call: {seconds:.2f} s, peak RSS {peak_mb:.0f} MB, "
          f"exit {proc.returncode}, {len(results)} results")
    return len(results) >= count and peak_mb <= MEMORY_TARGET_MB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fix-files", type=int, default=200)
    parser.add_argument("--check-files", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        ok = check_load(Path(b), args.check_files)
        ok = fix_load(Path(a), args.fix_files, args.seed) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
