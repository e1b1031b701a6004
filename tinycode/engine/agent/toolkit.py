"""The tool contract and the guard: validated arguments, structured errors, retry budget.

Errors the model causes (unknown tool, bad arguments, an edit that changes nothing)
come back as observations with a hint, never as exceptions.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

class ToolError(Exception):
    """Raised inside a tool to report a structured failure."""

    def __init__(self, error_class: str, code: str, detail: str, hint: str = "") -> None:
        super().__init__(detail)
        self.error_class, self.code, self.detail, self.hint = error_class, code, detail, hint


@dataclass
class Observation:
    text: str
    error: dict[str, str] | None = None

    def render(self) -> str:
        if self.error is None:
            return self.text
        e = self.error
        hint = f" Hint: {e['hint']}" if e.get("hint") else ""
        return f"Error ({e['error_class']}/{e['code']}): {e['detail']}.{hint}"


@dataclass
class Tool:
    """A tool: its name, what it does, the JSON schema of its inputs, and the function."""

    name: str
    description: str
    parameters: dict[str, Any]  # {"name": {"type": "integer"|"string", "description": ...}}
    function: Callable[..., Observation]
    required: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)  # argument names a model uses instead
    timeout: float = 10.0
    retries: int = 0  # extra attempts for a transient failure

    def grammar(self) -> str:
        """GBNF for this tool's action: its name and an Action Input with exactly its
        parameters, in order, each of its own type."""
        fields = ' ", " '.join(f'"\\"{n}\\": " {_GBNF_TYPES[p["type"]]}' for n, p in self.parameters.items())
        return f'"{self.name}\\nAction Input: {{" {fields} "}}"' if fields else \
            f'"{self.name}\\nAction Input: {{}}"'

    def signature(self) -> str:
        args = ", ".join(f'"{n}": {p["type"]}' for n, p in self.parameters.items())
        return f"{self.name} {{{args}}}: {self.description}"


class ToolGuard:
    """Runs tool calls for one repair: validates, coerces, times, and budgets them."""

    def __init__(self, tools: list[Tool], budget_per_call: int = 3) -> None:
        self.tools = {t.name: t for t in tools}
        self.budget_per_call = budget_per_call
        self.calls: dict[str, int] = {}

    def call(self, name: str, arguments: Any) -> Observation:
        tool = self.tools.get(name)
        if tool is None:
            return _error("unknown_tool", "no_such_tool", f"there is no tool named {name!r}",
                          f"use one of: {', '.join(self.tools)}")
        try:
            args = self._coerce(tool, arguments)
        except ToolError as exc:
            return _error(exc.error_class, exc.code, exc.detail, exc.hint)
        key = f"{name}:{json.dumps(args, sort_keys=True)}"
        self.calls[key] = self.calls.get(key, 0) + 1
        if self.calls[key] > self.budget_per_call:
            return _error("permanent", "retry_budget", f"{name} was already called {self.budget_per_call} "
                          "times with these arguments", "try something different")
        for attempt in range(tool.retries + 1):
            start = time.monotonic()
            try:
                observation = tool.function(**args)
            except ToolError as exc:
                if exc.error_class == "transient" and attempt < tool.retries:
                    continue
                return _error(exc.error_class, exc.code, exc.detail, exc.hint)
            if time.monotonic() - start > tool.timeout:
                return _error("transient", "timeout", f"{name} took too long", "continue without it")
            return observation
        return _error("transient", "failed", f"{name} failed", "continue without it")  # pragma: no cover

    def _coerce(self, tool: Tool, arguments: Any) -> dict[str, Any]:
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            if len(tool.required) == 1:
                arguments = {tool.required[0]: arguments}
            else:
                raise ToolError("invalid_input", "not_an_object", "Action Input must be a JSON object",
                                "e.g. " + tool.signature())
        args: dict[str, Any] = {}
        for key, value in arguments.items():
            name = tool.aliases.get(key, key)
            if name not in tool.parameters:
                continue  # unknown extra keys are ignored, as small models add them
            args[name] = value
        for name, spec in tool.parameters.items():
            if name not in args:
                continue
            value = args[name]
            if spec["type"] == "integer":
                try:
                    args[name] = int(str(value).strip())
                except ValueError:
                    raise ToolError("invalid_input", "bad_type", f"{name} must be a whole number",
                                    tool.signature()) from None
            elif spec["type"] == "string":
                if isinstance(value, list):
                    value = "\n".join(str(v) for v in value)
                args[name] = "" if value is None else str(value)
        missing = [n for n in tool.required if n not in args]
        if missing:
            raise ToolError("invalid_input", "missing_argument", f"missing {', '.join(missing)}",
                            tool.signature())
        return args


_GBNF_TYPES = {"integer": "integer", "string": "string"}
# A turn: a one-line thought, then one of the tools' own actions.
_GBNF_RULES = r'''
thought ::= [^\n]{1,160}
integer ::= [1-9] [0-9]{0,5}
string ::= "\"" ( [^"\\\n] | "\\" ["\\nt] )* "\""
'''


def turn_grammar(tools: list[Tool]) -> str:
    """GBNF that admits exactly one well-formed turn for one of ``tools``."""
    actions = " | ".join(f"( {t.grammar()} )" for t in tools)
    return f'root ::= "Thought: " thought "\\nAction: " ( {actions} )' + _GBNF_RULES


def _error(error_class: str, code: str, detail: str, hint: str = "") -> Observation:
    return Observation("", {"error_class": error_class, "code": code, "detail": detail, "hint": hint})
