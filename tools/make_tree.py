"""Build the folder the walk and ``check .`` targets are measured on.

1,000 files cycling through every built-in language's ``examples/*/clean.*``, 50 of
them broken (one corruption each, by ``tools/corrupt.py``), plus a vendored folder of
100 more broken files that a ``.gitignore`` excludes. The folder is a git repository
when ``git`` is installed. Writes ``expected.json`` beside it: the broken paths that
``tinycode check`` must report.

    python tools/make_tree.py DEST [--files 1000] [--broken 50] [--vendored 100] [--seed 0]
    cd DEST && time tinycode check . --output-format json >/dev/null
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from corrupt import cases_from_file  # noqa: E402


def build(dest: Path, files: int = 1000, broken: int = 50, vendored: int = 100, seed: int = 0) -> list[str]:
    """Write the tree under ``dest`` (which must not exist); return the broken paths
    outside the vendored folder, relative to ``dest``, sorted."""
    rng = random.Random(seed)
    sources = sorted((ROOT / "examples").glob("*/clean.*"))
    cases = {path: cases_from_file(path, 8, rng) for path in sources}
    breakable = [path for path in sources if cases[path]]
    dest.mkdir(parents=True)
    (dest / ".gitignore").write_text("/third_party/\n")
    broken_at = set(rng.sample(range(files), broken))
    expected = []
    for i in range(files):
        example = breakable[i % len(breakable)] if i in broken_at else sources[i % len(sources)]
        folder = dest / f"pkg{i % 20:02d}" / example.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"file{i:04d}{example.suffix}"
        if i in broken_at:
            path.write_text(rng.choice(cases[example])["broken"], encoding="utf-8")
            expected.append(path.relative_to(dest).as_posix())
        else:
            shutil.copyfile(example, path)
    for i in range(vendored):
        example = breakable[i % len(breakable)]
        folder = dest / "third_party" / example.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"vendored{i:03d}{example.suffix}").write_text(rng.choice(cases[example])["broken"],
                                                                 encoding="utf-8")
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(dest)], check=True)
    expected.sort()
    (dest.parent / f"{dest.name}.expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    return expected


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--broken", type=int, default=50)
    parser.add_argument("--vendored", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.dest.exists():
        parser.error(f"{args.dest} exists")
    expected = build(args.dest, args.files, args.broken, args.vendored, args.seed)
    print(f"{args.dest}: {args.files} files, {len(expected)} broken, {args.vendored} broken in "
          f"third_party/ (ignored); expected list in {args.dest.name}.expected.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
