"""Models for :class:`tinycode.llm.contained.ContainedLLM` tests, built in its child
process: one that crashes that process in native code, as llama.cpp can."""

from __future__ import annotations

import ctypes
import os
import time
from typing import Sequence

from tinycode.deadline import expired, remaining
from tinycode.errors import ModelError
from tinycode.llm.base import Completion, Prompt


def segfault() -> None:
    """A real native crash: read address 0 (SIGSEGV ends the process)."""
    ctypes.string_at(0)


class CrashingLLM:
    """Counts tokens; generating or scoring crashes the process with a segfault."""

    name = "crashing"
    n_ctx = 4096

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4) if text else 0

    def complete(self, prompt: Prompt, **options: object) -> Completion:
        segfault()
        raise AssertionError("unreachable")

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        segfault()
        raise AssertionError("unreachable")

    def close(self) -> None:
        pass


class EchoLLM:
    """Answers with what it was given, and what the child process sees."""

    name = "echo"
    n_ctx = 512

    def __init__(self, greeting: str = "hello") -> None:
        self.greeting = greeting

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def complete(self, prompt: Prompt, **options: object) -> Completion:
        if prompt == "fail":
            raise ModelError("the prompt asked to fail")
        if prompt == "bug":
            raise KeyError("a bug in the backend")
        if prompt == "exit":
            os._exit(3)
        if prompt == "hang":
            time.sleep(3600)
        if prompt == "slow":  # works until its deadline, as generation does, checking often
            while not expired():
                time.sleep(0.01)
            return Completion("stopped at its deadline", 1, 1)
        left = remaining()
        return Completion(f"{self.greeting} {prompt} pid={os.getpid()} left={left:.0f}", 1, 1)

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        return [-float(len(c)) for c in continuations]


def broken_model(path: str) -> None:
    """A model that cannot be loaded: a ModelError in the child, not a crash."""
    raise ModelError(f"cannot load {path}")


def load_crashing(*args: object, **kwargs: object) -> object:
    """A stand-in for ``load_llm`` (picklable, for worker processes): the crashing
    model in a contained process."""
    from tinycode.llm.contained import ContainedLLM

    return ContainedLLM(CrashingLLM)
