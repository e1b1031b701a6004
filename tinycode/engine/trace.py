"""One record per agent step; the trace can be written as JSON lines."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, TextIO


@dataclass
class Step:
    number: int
    # "model" (an agent's turn), "fast_path" (a verified candidate edit, ranked by the
    # model when there were several; no generation), "rewrite" (the model's rewrite of a
    # problem's window), "lookup" (the agent's opening web_search) or "take_back" (a
    # kept step after which nothing repaired the rest, taken back with those after it:
    # ``input["steps"]``)
    kind: str = "model"
    thought: str = ""
    action: str = ""
    input: Any = None
    observation: str = ""
    error: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ms: float = 0.0
    # The id of the rule whose change the step kept (``engine.rules``); "" when the
    # step changed nothing.
    rule: str = ""
    raw: str = field(default="", repr=False)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """The step as a person reads it in ``-v`` output."""
        parts = [f"[step {self.number}] ({self.kind}, {self.ms:.0f} ms, "
                 f"{self.prompt_tokens}+{self.completion_tokens} tokens)"]
        if self.thought:
            parts.append(f"Thought: {self.thought}")
        if self.action:
            parts.append(f"Action: {self.action}")
            parts.append(f"Action Input: {json.dumps(self.input, ensure_ascii=False)}")
        if self.error:
            parts.append(f"Parse error: {self.error}")
        if self.rule:
            parts.append(f"Rule: {self.rule}")
        if self.observation:
            parts.append(f"Observation: {self.observation}")
        return "\n".join(parts)


def write_jsonl(steps: Iterable[Step], handle: TextIO, **context: Any) -> None:
    for step in steps:
        handle.write(json.dumps({**context, **step.to_dict()}, ensure_ascii=False) + "\n")
