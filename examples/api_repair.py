"""Repair source code from Python with ``tinycode.repair``.

    python examples/api_repair.py                         # the bundled broken Python file
    python examples/api_repair.py examples/go/broken.go   # any file; language from its name

Prints each agent step on stderr and the unified diff of the repair on stdout.
Nothing is written: the corrected source is returned to the caller.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import tinycode
from tinycode.config import load_settings
from tinycode.languages import detect

if TYPE_CHECKING:
    from tinycode.engine.trace import Step

HERE = Path(__file__).resolve().parent


def show_step(step: Step) -> None:
    """Called after every agent step with its record (thought, action, observation, ms)."""
    print(step.describe(), file=sys.stderr)


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else HERE / "python" / "broken.py"
    source = path.read_text(encoding="utf-8")
    language = detect(path)

    # The same settings `tinycode fix` would use here: [tool.tinycode], then TINYCODE_* variables.
    settings = load_settings(start=path.parent)
    result = tinycode.repair(source, language, settings=settings, max_steps=6, on_step=show_step)

    reason = f" ({result.reason})" if result.reason else ""
    print(f"{path}: {result.status}{reason}; problems {len(result.problems_before)} -> "
          f"{len(result.problems_after)}; {len(result.steps)} steps, {result.model_calls} model calls, "
          f"{result.prompt_tokens}+{result.completion_tokens} tokens, {result.seconds:.1f} s",
          file=sys.stderr)
    if result.status == "fixed":
        sys.stdout.writelines(difflib.unified_diff(
            source.splitlines(keepends=True), result.source.splitlines(keepends=True),
            fromfile=f"a/{path.name}", tofile=f"b/{path.name}"))
    return 0 if result.status in ("fixed", "clean") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
