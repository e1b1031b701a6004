"""A scripted model for tests: replies from a queue, and a record of every prompt.

It lives with the tests, not in the package: ``from fake_llm import FakeLLM`` (``tests/`` is
on the path, as for ``scripted``)."""

from __future__ import annotations

import json
from typing import Callable, Iterable, Sequence

from tinycode.llm.base import Completion, Prompt, ScoringUnsupported


class FakeLLM:
    """Returns scripted replies in order; ``prompts`` records what it was asked.

    A reply may be a string or a callable taking the prompt and returning a string.
    Stop strings are honoured like a real backend (the text is cut at the first one).
    ``scorer`` (prompt, continuation) -> float enables :meth:`score`.
    """

    name = "fake"

    def __init__(self, replies: Iterable[str | Callable[[Prompt], str]] = (), *,
                 default: str | None = None,
                 scorer: Callable[[Prompt, str], float] | None = None) -> None:
        self.replies = list(replies)
        self.default = default
        self.scorer = scorer
        self.prompts: list[Prompt] = []
        self.calls: list[dict[str, object]] = []
        self.closed = False

    def complete(self, prompt: Prompt, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = 0) -> Completion:
        self.prompts.append(prompt)
        self.calls.append({"stop": list(stop), "max_tokens": max_tokens, "grammar": grammar})
        if self.replies:
            reply = self.replies.pop(0)
        elif self.default is not None:
            reply = self.default
        else:
            raise AssertionError("FakeLLM ran out of scripted replies")
        text = reply(prompt) if callable(reply) else reply
        for marker in stop:
            if marker and marker in text:
                text = text[: text.index(marker)]
        return Completion(text, self.count_tokens(_prompt_text(prompt)),
                          self.count_tokens(text), 0.0)

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4) if text else 0

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        if self.scorer is None:
            raise ScoringUnsupported("fake model has no scorer")
        self.prompts.append(prompt)
        return [self.scorer(prompt, c) for c in continuations]

    def close(self) -> None:
        self.closed = True


def _prompt_text(prompt: Prompt) -> str:
    return prompt if isinstance(prompt, str) else json.dumps(list(prompt))
