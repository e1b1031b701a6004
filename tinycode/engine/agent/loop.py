"""The ReAct loop: model turn -> parse -> guarded tool call -> observation, bounded
by steps, tokens and wall time, and stopped when no progress is made.

The prompt is rebuilt from the step records as chat messages whose stable part (the
system prompt and tool list) comes first, so llama.cpp reuses its KV cache.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Callable

from ...config import Settings
from ...deadline import expired
from ...llm.base import LLM, Message
from .toolkit import ToolGuard, turn_grammar
from .workspace import WorkingCopy, build_tools
from .parser import parse_turn
from ..trace import Step

STOP = ["Observation:", "\nObservation"]
MAX_TURN_TOKENS = 160
# A checker message this vague names no error to look up.
VAGUE_MESSAGES = frozenset({"syntax error", "invalid syntax", "syntaxerror: invalid syntax"})
LOOKUP_THOUGHT = "Look up what the checker's message means before editing."
LOOKUP_RESULTS = 1  # the top entry is the right one for 98% of the dev set's messages


@dataclass(frozen=True)
class Style:
    """How the agent talks to the model: its prompt (``prompts/<prompt>.txt``), the
    tools it offers (None: all), whether each turn is constrained to one tool's own
    schema (a GBNF grammar), and whether the verified candidate fixes are listed with
    the problems, so the model can pick one by number."""

    prompt: str
    tools: tuple[str, ...] | None = None
    constrained: bool = False
    offer_fixes: bool = False


# Every tool, free text: a capable model chooses its own way.
OPEN = Style("react_v1")
# A small model's way: pick a listed verified fix or rewrite lines, in a form it cannot
# get wrong, after a worked example.
NARROW = Style("react_v2", tools=("apply_fix", "replace_lines"), constrained=True, offer_fixes=True)
STYLES = {"open": OPEN, "narrow": NARROW}


def style_for(settings: Settings) -> Style | None:
    """The agent style the settings ask for (None: no agent). ``auto`` is what the
    model's registry entry says pays with it (``tools/agent_bench.py`` measures it), and
    ``open`` for a model not in the registry (a file or a server's). ``agent_only`` runs
    an agent in any case."""
    name = settings.agent
    if name == "auto":
        from ...models import find_model

        info = find_model(settings.model) if settings.backend == "llama_cpp" else None
        name = info.agent if info is not None and info.agent else "open"
    if name == "off":
        return OPEN if settings.agent_only else None
    return STYLES[name]


@dataclass
class AgentOutcome:
    source: str
    fixed: bool
    reason: str = ""
    steps: list[Step] = field(default_factory=list)
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


def system_prompt(language: str, tools_text: str, style: Style = OPEN) -> str:
    template = resources.files("tinycode").joinpath(f"prompts/{style.prompt}.txt").read_text("utf-8")
    return template.format(language=language, tools=tools_text).strip()


def run_agent(llm: LLM, copy: WorkingCopy, *, max_steps: int = 8, token_budget: int = 12_000, on_step: Callable[[Step], None] | None = None,
              web_backend: str = "offline", offline: bool = False, first_step: int = 1,
              lookup: bool = False, style: Style = OPEN) -> AgentOutcome:
    """Repair ``copy`` in ReAct turns. With ``lookup``, the run opens with a web_search
    for the first problem's message, so the model reads what the error means and the
    usual fix before its first turn (a small model seldom chooses to search by itself).
    Off by default: with the 0.5B model it did not raise the agent's repairs."""
    tools = build_tools(copy, web_backend=web_backend, offline=offline)
    if style.tools is not None:
        tools = [t for t in tools if t.name in style.tools]
    guard = ToolGuard(tools)
    names = [t.name for t in tools]
    grammar = turn_grammar(tools) if style.constrained else None
    messages: list[Message] = [
        {"role": "system", "content": system_prompt(copy.language, "\n".join(t.signature() for t in tools),
                                                    style)},
        {"role": "user", "content": "Fix these problems (lines marked █):\n" + copy.problems_text()
         + _fixes(copy, style)},
    ]
    outcome = AgentOutcome(copy.source, False)
    if lookup:
        opening = _opening_lookup(copy, guard, first_step)
        if opening is not None:
            step, found = opening
            outcome.steps.append(step)
            if on_step:
                on_step(step)
            first_step += 1
            if found:  # given as context, not as a turn of the model's: it would imitate it
                messages[1]["content"] += "\nWhat web_search says about the first one:\n" + step.observation
    corrected = False
    stale_turns = 0
    for number in range(first_step, first_step + max_steps):
        if expired():  # the file's deadline (tinycode.deadline), a safety bound
            outcome.reason = "time budget spent"
            break
        if outcome.prompt_tokens + outcome.completion_tokens > token_budget:
            outcome.reason = "token budget spent"
            break
        start = time.perf_counter()
        completion = llm.complete(messages, stop=STOP, max_tokens=MAX_TURN_TOKENS, grammar=grammar)
        outcome.model_calls += 1
        outcome.prompt_tokens += completion.prompt_tokens
        outcome.completion_tokens += completion.completion_tokens
        turn = parse_turn(completion.text, names)
        step = Step(number, thought=turn.thought, action=turn.action, input=turn.arguments,
                    prompt_tokens=completion.prompt_tokens,
                    completion_tokens=completion.completion_tokens, raw=completion.text)
        problems_before = len(copy.result.problems)
        if turn.final:
            observation = ("The file parses. Done." if copy.result.ok else
                           "The file still has problems:\n" + copy.problems_text())
        elif turn.error:
            step.error = turn.error
            hint = ("Write exactly:\nThought: ...\nAction: <tool>\nAction Input: {json object}"
                    if not corrected else "Use replace_lines with start, end and text.")
            corrected = True
            observation = f"Could not read your turn: {turn.error}. {hint}"
        else:
            edits_before = copy.edits
            observation = guard.call(turn.action, turn.arguments).render()
            if copy.edits != edits_before:
                step.rule = copy.last_rule
            if not copy.result.ok:
                observation += _fixes(copy, style)
        step.observation = observation
        step.ms = (time.perf_counter() - start) * 1000
        outcome.steps.append(step)
        if on_step:
            on_step(step)
        if copy.result.ok:
            outcome.fixed = True
            break
        stale_turns = 0 if len(copy.result.problems) < problems_before else stale_turns + 1
        if stale_turns >= 4:
            outcome.reason = "no progress"
            break
        messages.append({"role": "assistant", "content": completion.text.strip()})
        messages.append({"role": "user", "content": "Observation: " + observation})
    else:
        outcome.reason = f"no fix within {max_steps} steps"
    outcome.source = copy.source
    if not outcome.fixed and not outcome.reason:
        outcome.reason = "problems remain"
    return outcome


def _fixes(copy: WorkingCopy, style: Style) -> str:
    """The verified candidate fixes for the copy as it stands, numbered for apply_fix
    (with ``style.offer_fixes``), or ''."""
    if not style.offer_fixes:
        return ""
    listed = copy.list_suggestions()
    return "\nVerified fixes:\n" + listed if listed else ""


def _opening_lookup(copy: WorkingCopy, guard: ToolGuard, number: int) -> tuple[Step, bool] | None:
    """The web_search step for the first problem's message, and whether it found anything;
    None when the message is too vague to look up."""
    if not copy.result.problems:
        return None
    query = copy.result.problems[0].message.strip()
    if not query or query.lower() in VAGUE_MESSAGES:
        return None
    start = time.perf_counter()
    observation = guard.call("web_search", {"query": query, "k": LOOKUP_RESULTS})
    found = observation.error is None and "\n1. " in observation.text
    step = Step(number, kind="lookup", thought=LOOKUP_THOUGHT, action="web_search",
                input={"query": query, "k": LOOKUP_RESULTS}, observation=observation.render(),
                ms=(time.perf_counter() - start) * 1000)
    return step, found
