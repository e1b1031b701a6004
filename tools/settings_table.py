"""Print the README's table of settings, made from ``SETTINGS`` in ``tinycode/config.py``.

    python tools/settings_table.py          # print it
    python tools/settings_table.py --write  # put it in README.md, between its markers

``tests/test_settings_table.py`` fails when README.md holds anything else, so the
README cannot drift from the table: after changing a setting, run ``--write``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tinycode.config import EARLY_VARIABLES, SETTINGS, Setting, byte_size, human_size  # noqa: E402

BEGIN = "<!-- settings table: made by tools/settings_table.py from SETTINGS in tinycode/config.py -->"
END = "<!-- /settings table -->"
README = ROOT / "README.md"


def render() -> str:
    """The Markdown block, markers included, ending with a newline."""
    lines = [BEGIN,
             "| key | variable | flag | default | values | an untrusted project may set | meaning |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for entry in SETTINGS:
        key = f"`{entry.key}`" if entry.in_config else "— (variable only)"
        variable = f"`{entry.env}`" if entry.env else ""
        flag = f"`{entry.flag}` ({', '.join(entry.commands)})" if entry.flag else ""
        if not entry.in_config:
            trust = "—"
        else:
            trust = entry.trust.allows if entry.trust is not None else "yes"
        cells = (key, variable, flag, _default(entry), entry.values.expects, trust, entry.help)
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    lines += ["", "Read before any setting (where the config and the caches are), or a secret; "
                  "environment only:", "",
              "| variable | what it is |", "| --- | --- |"]
    lines += [f"| `{name}` | {_cell(meaning)} |" for name, meaning in EARLY_VARIABLES]
    lines.append(END)
    return "\n".join(lines) + "\n"


def _default(entry: Setting) -> str:
    value = entry.default
    if value is None:
        return "none"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    if isinstance(value, int) and entry.parse_flag is byte_size:
        return f"`{value}` ({human_size(value)})"
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, (list, dict)) and not value:
        return "`[]`" if isinstance(value, list) else "`{}`"
    return f"`{value}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write(path: Path = README) -> bool:
    """Replace the block in ``path`` with :func:`render`'s; True if it changed."""
    text = path.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END) + 1
    updated = text[:start] + render() + text[end:]
    if updated != text:
        path.write_text(updated, encoding="utf-8")
    return updated != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="update README.md in place")
    args = parser.parse_args(argv)
    if args.write:
        print("README.md updated" if write() else "README.md already up to date", file=sys.stderr)
    else:
        sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
