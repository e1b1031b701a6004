"""What the CLI tests share: a file only the (scripted) model can repair, and a runner."""

from __future__ import annotations

from tinycode.cli import main

NEEDS_AGENT = "def (x):\n    return x\n"  # no one-token edit repairs this: the model must act
FIXED = "def double(x):\n    return x\n"
AGENT_FIX = ('Thought: name the function\nAction: replace_lines\nAction Input: {"start": 1, "end": 1, '
             '"text": "def double(x):"}')


def run(capsys, *argv: str) -> tuple[int, str, str]:  # noqa: ANN001 - pytest's capsys
    """``tinycode ARGV`` in process: (exit code, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
