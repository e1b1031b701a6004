"""Print the table of repair rules, made from ``RULES`` in ``tinycode/engine/rules.py``.

    python tools/rules_table.py          # print it
    python tools/rules_table.py --write  # write it to docs/rules.md

``tests/test_rules.py`` fails when docs/rules.md holds anything else: after adding,
renaming or deleting a rule, run ``--write``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import tinycode.engine.proposals  # noqa: E402,F401  (registers every generator's rule)
from tinycode.engine.rules import RULES  # noqa: E402

DOC = ROOT / "docs" / "rules.md"


def render() -> str:
    lines = ["# Repair rules", "",
             "Every change tinycode makes comes from one of these rules. Each edit carries its",
             "rule's id: `--trace` has a `rule` field on each step that changes the text, `fix",
             "--json` a `rules` list per file, and `-v` prints them. Made by",
             "`tools/rules_table.py` from `RULES` in `tinycode/engine/rules.py`.", "",
             "| id | languages | what it does | where |", "| --- | --- | --- | --- |"]
    for entry in sorted(RULES.values(), key=lambda r: (r.where.rsplit(".", 1)[0], r.id)):
        lines.append(f"| `{entry.id}` | {entry.languages} | {entry.description} | `{entry.where}` |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write docs/rules.md")
    args = parser.parse_args()
    if args.write:
        DOC.write_text(render(), encoding="utf-8")
    else:
        sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
