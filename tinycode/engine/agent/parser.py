"""Reading a model turn, cheapest layer first: strict JSON, then lenient (json5, the
first balanced ``{...}``), then a regex fallback. What cannot be read becomes a
ParsedTurn with an ``error`` the loop shows back to the model."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

_THOUGHT = re.compile(r"Thought:\s*(.*?)(?=\n\s*(?:Action|Final Answer)\s*:|\Z)", re.S | re.I)
_ACTION = re.compile(r"Action\s*:\s*`*\s*([A-Za-z_][A-Za-z_0-9]*)\s*`*\s*(\(.*)?", re.I)
_INPUT = re.compile(r"Action\s*Input\s*:\s*(.*)", re.S | re.I)
_FINAL = re.compile(r"Final\s*Answer\s*:", re.I)
_FENCE = re.compile(r"```[A-Za-z0-9_]*\n?|```")


@dataclass
class ParsedTurn:
    thought: str = ""
    action: str = ""
    arguments: Any = None
    final: bool = False
    error: str = ""
    layer: str = ""  # which layer read it: "json", "lenient", "regex"


def parse_turn(text: str, tool_names: list[str]) -> ParsedTurn:
    thought_match = _THOUGHT.search(text)
    thought = thought_match.group(1).strip() if thought_match else ""
    action_match = _ACTION.search(text)
    if action_match is None:
        if _FINAL.search(text):
            return ParsedTurn(thought, final=True)
        return ParsedTurn(thought, error="no 'Action:' line found")
    name = action_match.group(1)
    lowered = {n.lower(): n for n in tool_names}
    name = lowered.get(name.lower(), name)
    input_match = _INPUT.search(text, action_match.end())
    raw = input_match.group(1) if input_match else (action_match.group(2) or "")
    raw = _FENCE.sub("", raw).strip()
    if raw.startswith("(") and raw.endswith(")"):
        raw = raw[1:-1].strip()
    arguments, layer, error = _read_arguments(raw)
    return ParsedTurn(thought, name, arguments, error=error, layer=layer)


def _read_arguments(raw: str) -> tuple[Any, str, str]:
    if not raw:
        return {}, "json", ""
    try:
        return json.loads(raw), "json", ""
    except ValueError:
        pass
    block = _first_balanced(raw)
    if block is not None:
        for loader in (json.loads, _json5):
            try:
                return loader(block), "lenient", ""
            except ValueError:
                continue
    pairs = _regex_pairs(raw)
    if pairs:
        return pairs, "regex", ""
    return None, "", f"Action Input is not a JSON object: {raw[:60]!r}"


def _json5(text: str) -> Any:
    import json5

    return json5.loads(text)


def _first_balanced(text: str) -> str | None:
    start = text.find("{")
    if start < 0:
        return None
    depth, quote, escaped = 0, "", False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    return text[start:] + "}" if depth == 1 and not quote else None


_PAIR = re.compile(r"""["']?([A-Za-z_]\w*)["']?\s*[:=]\s*(-?\d+(?![\w.])|"|')""")
_AFTER_STRING = r"""\s*(?:,\s*["']?[A-Za-z_]\w*["']?\s*[:=]|,?\s*[})]*\s*$)"""


def _regex_pairs(text: str) -> dict[str, Any]:
    """Last resort: ``key: number`` and ``key: "string"`` pairs, where a string ends at
    the first quote followed by the next key or the end of the object (so unescaped
    quotes inside code survive)."""
    pairs: dict[str, Any] = {}
    pos = 0
    while True:
        match = _PAIR.search(text, pos)
        if match is None:
            return pairs
        key, value = match.group(1), match.group(2)
        pos = match.end()
        if value not in ("'", '"'):
            pairs.setdefault(key, int(value))
            continue
        end = re.compile(re.escape(value) + _AFTER_STRING).search(text, pos)
        if end is None:
            return pairs
        body = text[pos:end.start()]
        pos = end.start() + 1
        try:
            parsed = json.loads(f'"{body}"') if value == '"' else ast.literal_eval(f"'{body}'")
        except (ValueError, SyntaxError):
            parsed = body.replace("\\n", "\n").replace('\\"', '"').replace("\\'", "'")
        pairs.setdefault(key, parsed)
