"""Compare the outputs of two bench runs: the determinism check.

    python tools/bench.py --split odd --limit 300 --out a.json
    python tools/bench.py --split odd --limit 300 --busy 2 --out b.json
    python tools/compare_runs.py a.json b.json

Lists every case whose output differs (or that only one run has) and exits 1; exits 0
when every output is identical, 2 when a file cannot be read. Outputs are compared by
the SHA-256 that ``bench.py`` keeps for each case.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def differences(first: dict[str, Any], second: dict[str, Any], system: str = "tinycode") -> list[dict[str, Any]]:
    """The cases of ``system`` whose output differs between two bench reports, in the
    first report's order: ``{id, first, second}`` with each run's fingerprint (None: no
    such case, or a record without an output hash)."""
    a = {r["id"]: r for r in first["cases"].get(system, [])}
    b = {r["id"]: r for r in second["cases"].get(system, [])}
    out = []
    for case_id in list(a) + [i for i in b if i not in a]:
        ra, rb = a.get(case_id), b.get(case_id)
        ha, hb = _fingerprint(ra), _fingerprint(rb)
        if ra is None or rb is None or ha is None or ha != hb:
            out.append({"id": case_id, "first": ha, "second": hb,
                        "status": (ra or {}).get("status"), "second_status": (rb or {}).get("status")})
    return out


def report_differences(first: dict[str, Any], second: dict[str, Any], system: str = "tinycode",
                       stream=None, *, sample: bool = False) -> int:
    """Print the differing cases; the exit code (0 identical, 1 not). With ``sample``,
    ``second`` ran a sample of ``first``'s cases: only those are compared."""
    stream = stream or sys.stdout
    if sample:
        ran = {r["id"] for r in second["cases"].get(system, [])}
        first = {**first, "cases": {**first["cases"],
                                    system: [r for r in first["cases"].get(system, []) if r["id"] in ran]}}
    diff = differences(first, second, system)
    total = len({r["id"] for r in first["cases"].get(system, [])} | {r["id"] for r in second["cases"].get(system, [])})
    for row in diff:
        print(f"{row['id']}: {_short(row['first'])} ({row['status']}) != "
              f"{_short(row['second'])} ({row['second_status']})", file=stream)
    print(f"{system}: {total - len(diff)} of {total} outputs identical" + ("" if not diff else
          f", {len(diff)} differ"), file=stream)
    return 1 if diff else 0


def _fingerprint(record: dict[str, Any] | None) -> str | None:
    """The output's hash; a crash is its message, so two runs that crash alike agree."""
    if not record:
        return None
    if record.get("output_sha256"):
        return record["output_sha256"]
    return f"crash: {record['crash']}" if record.get("crash") else None


def _short(digest: str | None) -> str:
    if not digest:
        return "-"
    return digest[:60] if digest.startswith("crash: ") else digest[:12]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", help="bench.json of one run")
    parser.add_argument("second", help="bench.json of the other run")
    parser.add_argument("--system", default="tinycode", help="which system's outputs (tinycode or a baseline)")
    args = parser.parse_args(argv)
    try:
        first, second = (json.loads(Path(p).read_text(encoding="utf-8")) for p in (args.first, args.second))
    except (OSError, ValueError) as exc:
        print(f"compare_runs: {exc}", file=sys.stderr)
        return 2
    return report_differences(first, second, args.system)


if __name__ == "__main__":
    sys.exit(main())
