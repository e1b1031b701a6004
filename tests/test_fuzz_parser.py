"""Fuzzing the action parser with random model outputs: it never raises, its verdict
is deterministic, and whatever it returns is an action name with an object input,
a final answer, or an error for the model to read."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from tinycode.engine.agent.parser import parse_turn

TOOLS = ["code_check", "view_lines", "replace_lines", "apply_fix", "web_search"]
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALID_TURNS = [
    'Thought: close it\nAction: replace_lines\nAction Input: {"start": 2, "end": 2, "text": "x = (1)"}',
    "Thought: look\nAction: view_lines\nAction Input: {'start': 1, 'end': 5}",
    "Thought: check\nAction: code_check\nAction Input: {}",
    'Action: apply_fix\nAction Input: {"number": 1}',
    "Thought: it parses\nFinal Answer: done",
    'Thought: search\nAction: web_search\nAction Input: {"query": "expected \':\'"}',
]


def assert_well_formed(text: str) -> None:
    turn = parse_turn(text, TOOLS)
    again = parse_turn(text, TOOLS)
    assert (turn.action, turn.arguments, turn.final, turn.error) == \
        (again.action, again.arguments, again.final, again.error)
    if turn.final:
        return
    if turn.error:
        assert isinstance(turn.error, str)
        return
    # A name outside the list is passed on: the tool guard answers it with unknown_tool.
    assert turn.action.isidentifier() and isinstance(turn.arguments, dict)


@FUZZ
@given(st.text(max_size=600))
def test_random_text(text):
    assert_well_formed(text)


@st.composite
def mutated_turns(draw):
    chars = list(draw(st.sampled_from(VALID_TURNS)))
    for _ in range(draw(st.integers(1, 6))):
        position = draw(st.integers(0, len(chars)))
        action = draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if action == "delete" and position < len(chars):
            del chars[position]
        elif action == "insert":
            chars.insert(position, draw(st.sampled_from(list('{}[]():,"\'\n `\\') + ["Action:", "Final Answer:"])))
        elif position < len(chars):
            chars.insert(position, chars[position])
    return "".join(chars)


@FUZZ
@given(mutated_turns())
def test_mutated_valid_turns(text):
    assert_well_formed(text)


@FUZZ
@given(st.sampled_from(VALID_TURNS), st.text(max_size=200))
def test_trailing_babble_after_a_valid_turn(turn, babble):
    assert_well_formed(turn + "\n" + babble)
