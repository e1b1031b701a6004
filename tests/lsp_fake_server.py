"""``tinycode lsp`` with the tests' scripted model in place of a real one, for the
language-server tests that need no real model: ``python lsp_fake_server.py [ARGS]``.

The model prefers the shortest candidate; ``FAKE_SCORE_SECONDS`` makes each scoring
pass take that long (stopping early, as the real backend does, once its deadline has
passed), so that a test can act while a repair runs."""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fake_llm import FakeLLM  # noqa: E402

import tinycode.llm.loader as loader  # noqa: E402
from tinycode.cli import main  # noqa: E402
from tinycode.deadline import DeadlineExceeded, expired  # noqa: E402

SECONDS = float(os.environ.get("FAKE_SCORE_SECONDS", "0"))


def _score(prompt: object, text: str) -> float:
    return -len(text)


class SlowFakeLLM(FakeLLM):
    def score(self, prompt, continuations):  # noqa: ANN001, ANN201 - the LLM protocol
        end = time.monotonic() + SECONDS
        while time.monotonic() < end:
            if expired():
                raise DeadlineExceeded("time budget spent while scoring")
            time.sleep(0.02)
        return super().score(prompt, continuations)


def _load(*args: object, **kwargs: object) -> FakeLLM:
    print("tinycode lsp test: the scripted model is loaded", file=sys.stderr)
    return SlowFakeLLM(default="", scorer=_score)


loader.load_llm = _load

if __name__ == "__main__":
    sys.exit(main(["lsp", *sys.argv[1:]]))
