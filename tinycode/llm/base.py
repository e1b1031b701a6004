"""The ``LLM`` protocol every backend implements, and its result type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, TypedDict, Union, runtime_checkable


class Message(TypedDict):
    role: str  # "system" | "user" | "assistant"
    content: str


Prompt = Union[str, Sequence[Message]]


@dataclass
class Completion:
    """What one model call returned, with its cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    finish_reason: str = "stop"  # "stop" | "length"
    cached_tokens: int = 0  # prompt tokens served from the KV cache, when known


# How the model in process ranks candidates, in the words a server's ``scoring`` uses.
IN_PROCESS_SCORING = "the model in process"


class ScoringUnsupported(Exception):
    """The backend cannot return log-likelihoods (callers fall back to generation)."""


@runtime_checkable
class LLM(Protocol):
    """A text generator. ``prompt`` is either raw text or chat messages (the backend
    applies the model's own chat template to messages)."""

    name: str

    def complete(self, prompt: Prompt, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = 0) -> Completion:
        """Generate a continuation. ``grammar`` is GBNF text; backends without grammar
        support ignore it."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes in this model's vocabulary (an estimate for remote models)."""
        ...

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        """Sum of log-probabilities of each continuation after ``prompt``; the shared
        prompt is evaluated once. Raises ScoringUnsupported where not available."""
        ...

    def close(self) -> None:
        """Free the model's memory or connections."""
        ...
