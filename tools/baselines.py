"""What a user would do without tinycode, with the same model: ask once for the whole
corrected code (``whole``), or do that after showing the compiler's message as a
code_check observation (``react1``, TinyCodeBase's flow)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from tinycode.check import check, render
from tinycode.llm.base import LLM

BASELINES = ("whole", "react1")
_FENCE = re.compile(r"```[\w+#-]*\n(.*?)(?:```|$)", re.S)


@dataclass
class BaselineResult:
    source: str
    seconds: float
    model_calls: int
    prompt_tokens: int
    completion_tokens: int


def run_baseline(kind: str, llm: LLM, source: str, language: str, seed: int = 0) -> BaselineResult:
    """One model call that returns the whole file; the fenced code in it is the answer."""
    start = time.perf_counter()
    system = ("You are an expert programmer. Fix the syntax errors in the user's code. "
              "Reply with the whole corrected code in one fenced code block and nothing else.")
    user = f"```{language}\n{source.rstrip()}\n```"
    if kind == "react1":
        observation = render(check(source, language), source, context=2)
        user += f"\n\nObservation from code_check:\n{observation}\n\nNow return the whole corrected code."
    elif kind != "whole":
        raise ValueError(f"unknown baseline {kind!r}")
    budget = min(3000, 2 * llm.count_tokens(source) + 64)
    reply = llm.complete([{"role": "system", "content": system}, {"role": "user", "content": user}],
                         max_tokens=budget, seed=seed)
    match = _FENCE.search(reply.text)
    answer = match.group(1) if match else reply.text
    if source.endswith("\n") and not answer.endswith("\n"):
        answer += "\n"
    return BaselineResult(answer, time.perf_counter() - start, 1, reply.prompt_tokens, reply.completion_tokens)
