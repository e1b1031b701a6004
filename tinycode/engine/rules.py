"""Every rule that proposes or makes a change, by id: the table from an id to the one
function that implements it, and the switch that leaves rules out (to measure what
each one earns).

A generator of edits is a rule when it carries ``@rule(id, description, languages)``:
each edit it yields carries that id (``Edit.rule``) unless a rule it called already
gave it one, and a rule that is switched off yields nothing of its own. The changes
that come from no generator have ids of their own: the model's rewrite of a window,
an agent's edit, two edits paired at two places.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator, TypeVar

__all__ = ["AGENT_EDIT", "MODEL_REWRITE", "PAIRED_FIX", "RULES", "Rule", "combined", "is_on", "judge_runs", "rule",
           "switched_off", "switch_off"]


@dataclass(frozen=True)
class Rule:
    id: str
    description: str  # one line
    languages: str  # "any", or the languages (edit families) it serves
    where: str  # module.function that implements it
    # Runs of a language's own judge its edits may take in one search, where they are
    # many guesses that tree-sitter's recovery may let through (None: the search's own).
    judge_runs: int | None = None


RULES: dict[str, Rule] = {}

MODEL_REWRITE = "model-rewrite"
AGENT_EDIT = "agent-edit"
PAIRED_FIX = "paired-fix"
for _id, _description, _where in (
        (MODEL_REWRITE, "the model retypes the lines around the problem", "tinycode.engine.rewrite.rewrite_window"),
        (AGENT_EDIT, "an edit the ReAct agent makes with its tools", "tinycode.engine.agent.workspace.build_tools"),
        (PAIRED_FIX, "two verified edits at two places that only together make progress",
         "tinycode.engine.candidates.paired_fixes")):
    RULES[_id] = Rule(_id, _description, "any", _where)

_off: frozenset[str] = frozenset()

Edits = TypeVar("Edits", bound=Callable[..., Iterator])


def rule(rule_id: str, description: str, languages: str = "any",
         judge_runs: int | None = None) -> Callable[[Edits], Edits]:
    """Register the decorated generator of edits as rule ``rule_id``."""
    def register(generate: Edits) -> Edits:
        if rule_id in RULES:
            raise ValueError(f"rule {rule_id!r} is registered twice")
        RULES[rule_id] = Rule(rule_id, description, languages, f"{generate.__module__}.{generate.__qualname__}",
                              judge_runs)

        @functools.wraps(generate)
        def stamped(*args, **kwargs):  # type: ignore[no-untyped-def]
            for edit in generate(*args, **kwargs):
                if not edit.rule:
                    edit = replace(edit, rule=rule_id)
                if edit.rule not in _off:
                    yield edit
        return stamped  # type: ignore[return-value]
    return register


def judge_runs(rule_id: str) -> int | None:
    """The judge's runs rule ``rule_id``'s edits may take in one search (None: no limit of its own)."""
    found = RULES.get(rule_id)
    return found.judge_runs if found is not None else None


def is_on(rule_id: str) -> bool:
    return rule_id not in _off


def switch_off(rule_ids: Iterable[str]) -> None:
    """Leave these rules out of every repair this process makes (``tools/bench.py
    --without``); an empty list brings every rule back."""
    global _off
    unknown = sorted(set(rule_ids) - set(RULES))
    if unknown:
        raise ValueError(f"no such rule: {', '.join(unknown)}")
    _off = frozenset(rule_ids)


def switched_off() -> frozenset[str]:
    return _off


def combined(rule_ids: Iterable[str]) -> str:
    """The id of a change made of several edits: theirs, each once, joined by '+'."""
    return "+".join(dict.fromkeys(r for r in rule_ids if r))
