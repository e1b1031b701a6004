"""What the tests share: a file only the (scripted) model can repair, a CLI runner, a
search run as a repair runs it, its first candidate, a repair the search's own order
decides, and a free port for a local server."""

from __future__ import annotations

import socket

from fake_llm import FakeLLM
from tinycode import judges
from tinycode.cli import main
from tinycode.engine.candidates import Candidate, suggest
from tinycode.engine.loop import RepairResult, repair

NEEDS_AGENT = "def (x)):\n    return x\n"  # no one-token edit repairs this: the model must act
FIXED = "def double(x):\n    return x\n"
AGENT_FIX = ('Thought: name the function\nAction: replace_lines\nAction Input: {"start": 1, "end": 1, '
             '"text": "def double(x):"}')


def suggested(source: str, language: str, **options) -> list[Candidate]:  # noqa: ANN003
    """``suggest`` as a repair asks it: the judge's runs accounted, and the input's own
    messages its baseline (any other message a candidate draws is new, a problem)."""
    with judges.account(), judges.baseline(source, language):
        return suggest(source, language, **options)


def first_suggested(source: str, language: str, **options) -> Candidate:  # noqa: ANN003
    """``suggest``'s first candidate for ``source``: the test fails where there is none."""
    found = suggest(source, language, **options)
    assert found, f"no candidate for this {language} text"
    return found[0]


def repaired_unranked(broken: str, language: str) -> RepairResult:
    """``repair`` with a model that prefers no candidate and writes nothing: the search's
    own order decides, and a rewrite changes nothing."""
    return repair(broken, language, llm=FakeLLM(default="", scorer=lambda prompt, text: 0.0))


def first_restores(fixed: str, broken: str, language: str, rule: str) -> bool:
    """``suggest``'s first candidate for ``broken`` is ``fixed`` again, made by ``rule``."""
    first = first_suggested(broken, language)
    return first.source_after == fixed and first.edit.rule == rule


def run(capsys, *argv: str) -> tuple[int, str, str]:  # noqa: ANN001 - pytest's capsys
    """``tinycode ARGV`` in process: (exit code, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (just now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
