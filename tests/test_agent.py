"""The ReAct loop, its tools and its turn parser, driven by a scripted fake model."""

from __future__ import annotations

import re

import pytest

from tinycode import check, repair
from tinycode.engine.agent.parser import parse_turn
from tinycode.engine.agent.loop import run_agent
from fake_llm import FakeLLM
from tinycode.engine.agent.toolkit import Tool, ToolGuard, Observation
from tinycode.engine.agent.workspace import WorkingCopy

# Two errors no single candidate edit fixes together, so the agent must act.
BROKEN = "def total(values):\n    result = 0\n    for v in values\n        result += v\n    return result\n"
FIXED_LINE = "    for v in values:"


def turn(action: str, arguments: str, thought: str = "fix the marked line") -> str:
    return f"Thought: {thought}\nAction: {action}\nAction Input: {arguments}\n"


def agent(replies, source=BROKEN, language="python", **kwargs):
    llm = FakeLLM(replies)
    copy = WorkingCopy(source, language)
    return run_agent(llm, copy, **kwargs), llm, copy


def test_fixed_in_one_edit():
    outcome, llm, copy = agent([turn("replace_lines", f'{{"start": 3, "end": 3, "text": "{FIXED_LINE}"}}')])
    assert outcome.fixed and copy.result.ok
    assert copy.source == BROKEN.replace("    for v in values\n", FIXED_LINE + "\n")
    assert outcome.model_calls == 1
    first_prompt = llm.prompts[0]
    assert first_prompt[0]["role"] == "system" and "replace_lines" in first_prompt[0]["content"]
    assert "█3|" in first_prompt[1]["content"]
    assert llm.calls[0]["stop"] and "Observation:" in llm.calls[0]["stop"]


@pytest.mark.parametrize("reply,layer", [
    (turn("replace_lines", '{"start": 3, "end": 3, "text": "    for v in values:"}'), "json"),
    (turn("replace_lines", "{'start': 3, 'end': 3, 'text': '    for v in values:',}"), "lenient"),
    (turn("replace_lines", '```json\n{"line": 3, "code": "    for v in values:"}\n```'), "json"),
    ("Thought: x\nAction: replace_lines({\"start\": 3, \"text\": \"    for v in values:\"})", "json"),
    (turn("replace_lines", "start=3, end=3, text='    for v in values:'"), "regex"),
])
def test_each_parser_layer_reads_a_malformed_turn(reply, layer):
    parsed = parse_turn(reply, ["replace_lines"])
    assert parsed.layer == layer and not parsed.error
    outcome, _, copy = agent([reply])
    assert outcome.fixed and copy.result.ok


def test_unreadable_turn_gets_one_correction_then_recovers():
    outcome, llm, _ = agent(["I think the colon is missing.",
                             turn("replace_lines", '{"start": 3, "end": 3, "text": "    for v in values:"}')])
    assert outcome.fixed
    assert outcome.steps[0].error
    assert "Could not read your turn" in llm.prompts[1][-1]["content"]


def test_unknown_tool_and_invalid_arguments_become_observations():
    outcome, llm, _ = agent([turn("delete_file", '{"path": "/etc/passwd"}'),
                             turn("replace_lines", '{"start": "three", "text": "x"}'),
                             turn("replace_lines", '{"start": 3, "end": 3, "text": "    for v in values:"}')])
    assert outcome.fixed
    assert "unknown_tool" in outcome.steps[0].observation
    assert "invalid_input" in outcome.steps[1].observation


def test_edit_that_makes_things_worse_is_rejected():
    worse = turn("replace_lines", '{"start": 2, "end": 2, "text": "    result = (0"}')
    outcome, _, copy = agent([worse, turn("replace_lines",
                                          '{"start": 3, "end": 3, "text": "    for v in values:"}')])
    assert "edit_rejected" in outcome.steps[0].observation
    assert outcome.fixed and "result = 0" in copy.source


def test_rewriting_code_away_is_rejected():
    rewrite = turn("replace_lines", '{"start": 3, "end": 4, "text": "    pass"}')
    outcome, _, copy = agent([rewrite], max_steps=1)
    assert "edit_too_large" in outcome.steps[0].observation
    assert copy.source == BROKEN


def test_retry_budget_and_no_progress_stop():
    same = turn("view_lines", '{"start": 1, "end": 2}')
    outcome, llm, _ = agent([same] * 8, max_steps=8)
    assert not outcome.fixed
    assert outcome.reason == "no progress"
    assert any("retry_budget" in s.observation for s in outcome.steps)
    assert llm.replies == [same] * (8 - len(outcome.steps))


def test_max_steps():
    replies = [turn("view_lines", f'{{"start": {i}, "end": {i}}}') for i in range(1, 4)]
    outcome, _, _ = agent(replies, max_steps=3)
    assert not outcome.fixed and len(outcome.steps) == 3


def test_final_answer_with_problems_left_continues():
    outcome, llm, _ = agent(["Thought: done\nFinal Answer: done",
                             turn("replace_lines", '{"start": 3, "end": 3, "text": "    for v in values:"}')])
    assert outcome.fixed
    assert "still has problems" in outcome.steps[0].observation


def test_dropped_indentation_is_restored_on_a_one_line_edit():
    outcome, _, copy = agent([turn("replace_lines", '{"start": 3, "end": 3, "text": "for v in values:"}')])
    assert outcome.fixed and FIXED_LINE in copy.source


def test_suggest_and_apply_fix_tools():
    outcome, _, copy = agent([turn("suggest_fixes", "{}"), turn("apply_fix", '{"number": 1}')])
    assert "1." in outcome.steps[0].observation
    assert outcome.fixed and copy.result.ok


def test_web_search_without_backend_is_structured():
    guard_copy = WorkingCopy(BROKEN, "python")
    from tinycode.engine.agent.workspace import build_tools

    tools = {t.name: t for t in build_tools(guard_copy)}
    observation = ToolGuard(list(tools.values())).call("web_search", {"query": "expected ':'"})
    assert observation.error is None or observation.error["error_class"] in ("permanent", "unavailable",
                                                                             "transient")


def test_guard_coerces_and_validates():
    seen = {}

    def echo(n: int) -> Observation:
        seen["n"] = n
        return Observation(str(n))

    guard = ToolGuard([Tool("echo", "echo", {"n": {"type": "integer"}}, echo, required=("n",),
                            aliases={"number": "n"})])
    assert guard.call("echo", {"number": "7"}).text == "7" and seen["n"] == 7
    assert guard.call("echo", 5).text == "5"
    assert guard.call("echo", {}).error["code"] == "missing_argument"
    assert guard.call("nope", {}).error["error_class"] == "unknown_tool"


def test_prompt_does_not_grow_with_file_size():
    long_source = "".join(f"value_{i} = {i}\n" for i in range(5000)) + BROKEN
    short = agent([turn("view_lines", '{"start": 1, "end": 1}')], max_steps=1)[1].prompts[0]
    long = agent([turn("view_lines", '{"start": 1, "end": 1}')], source=long_source, max_steps=1)[1].prompts[0]
    size = lambda prompt: sum(len(m["content"]) for m in prompt)  # noqa: E731
    assert size(long) < size(short) * 1.5


def test_repair_clean_file_never_loads_a_model(monkeypatch):
    import tinycode.llm.loader as loader

    monkeypatch.setattr(loader, "load_llm", lambda *a, **k: pytest.fail("model loaded"))
    result = repair("x = 1\n", "python")
    assert result.status == "clean" and result.model_calls == 0


def test_repair_fast_path_scores_but_never_generates():
    llm = FakeLLM(scorer=lambda prompt, text: -len(text))
    result = repair("x = [1, 2, 3\n", "python", llm=llm)
    assert result.status == "fixed" and result.fast_path
    assert llm.calls == [] and result.model_calls == 1  # one scoring pass, no generation
    assert check(result.source, "python").ok


def test_repair_through_the_agent_with_a_fake_model():
    source = "items = [1, 2\nfor i in items print(i)\n"
    llm = FakeLLM([turn("replace_lines", '{"start": 1, "end": 2, "text": "items = [1, 2]\\nfor i in items: print(i)"}')],
                  scorer=lambda prompt, text: -len(text))
    result = repair(source, "python", llm=llm)
    assert result.status == "fixed"
    assert result.problems_before and not result.problems_after


def test_failed_repair_returns_the_input_unchanged():
    llm = FakeLLM(default=turn("view_lines", '{"start": 1, "end": 1}'))
    source = "this is not python at all (\n"
    result = repair(source, "python", llm=llm, max_steps=2)
    assert result.status == "failed" and result.source == source and result.reason


# --- the opening lookup: a web_search for the first message before the first turn ---

def test_the_run_opens_with_a_lookup_of_the_first_message():
    outcome, llm, copy = agent([turn("replace_lines", f'{{"start": 3, "end": 3, "text": "{FIXED_LINE}"}}')],
                               lookup=True)
    assert outcome.fixed and outcome.model_calls == 1
    lookup, edit = outcome.steps
    message = WorkingCopy(BROKEN, "python").result.problems[0].message
    assert (lookup.number, lookup.kind, lookup.action) == (1, "lookup", "web_search")
    assert lookup.input == {"query": message, "k": 1} and "expected ':'" in message
    assert "<search_results" in lookup.observation and "kb:python/" in lookup.observation
    assert (edit.number, edit.kind) == (2, "model")
    assert lookup.observation.count("(kb:") == 1  # the top entry only: every token counts
    # The model reads the answer beside the problems, not as a turn of its own to imitate.
    sent = llm.prompts[0]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[1]["content"].endswith(lookup.observation) and "█3|" in sent[1]["content"]


def test_a_vague_message_is_not_looked_up():
    source = "x = = 1\n"
    assert WorkingCopy(source, "python").result.problems[0].message == "SyntaxError: invalid syntax"
    outcome, llm, _ = agent([turn("replace_lines", '{"start": 1, "end": 1, "text": "x = 1"}')],
                            source=source, lookup=True)
    assert outcome.fixed and [s.kind for s in outcome.steps] == ["model"]
    assert len(llm.prompts[0]) == 2


def test_a_failed_lookup_is_shown_but_not_given_to_the_model():
    outcome, llm, _ = agent([turn("replace_lines", f'{{"start": 3, "end": 3, "text": "{FIXED_LINE}"}}')],
                            lookup=True, web_backend="duckduckgo", offline=True)
    lookup = outcome.steps[0]
    assert lookup.kind == "lookup" and "unavailable" in lookup.observation
    assert outcome.fixed and len(llm.prompts[0]) == 2


def test_repair_passes_the_lookup_setting_through():
    from tinycode.config import Settings

    reply = turn("replace_lines", f'{{"start": 3, "end": 3, "text": "{FIXED_LINE}"}}')
    kinds = {}
    for lookup in (True, False):
        result = repair(BROKEN, "python", llm=FakeLLM([reply]),
                        settings=Settings(agent_only=True, lookup=lookup))
        kinds[lookup] = [s.kind for s in result.steps]
        assert result.status == "fixed"
    assert kinds == {True: ["lookup", "model"], False: ["model"]}


def test_an_end_past_the_file_replaces_as_many_lines_as_the_text_has():
    # "line 3:23" read as lines 3 to 23: the one-line text replaces line 3 only.
    outcome, _, copy = agent([turn("replace_lines", f'{{"start": 3, "end": 23, "text": "{FIXED_LINE}"}}')])
    assert outcome.fixed and copy.source == BROKEN.replace("    for v in values\n", FIXED_LINE + "\n")


def test_the_model_sees_line_numbers_without_columns():
    _, llm, _ = agent([turn("replace_lines", f'{{"start": 3, "end": 3, "text": "{FIXED_LINE}"}}')])
    first = llm.prompts[0][1]["content"]
    assert "line 3: SyntaxError: expected ':'" in first and not re.search(r"\d:\d", first)


def test_a_range_longer_than_the_text_is_fitted_when_that_alone_repairs():
    # Lines 3-4 for one corrected line would delete line 4: refused; line 3 alone repairs.
    outcome, _, copy = agent([turn("replace_lines", f'{{"start": 3, "end": 4, "text": "{FIXED_LINE}"}}')])
    assert outcome.fixed and copy.source == BROKEN.replace("    for v in values\n", FIXED_LINE + "\n")
    assert outcome.steps[0].observation.startswith("Applied to lines 3-3")


def test_the_narrow_style_lists_verified_fixes_and_constrains_each_turn():
    from tinycode.engine.agent.loop import NARROW

    outcome, llm, copy = agent([turn("apply_fix", '{"number": 1}')], style=NARROW)
    first_prompt = llm.prompts[0]
    assert "Verified fixes:\n1. " in first_prompt[1]["content"]
    assert "web_search" not in first_prompt[0]["content"]  # only the tools the style offers
    grammar = llm.calls[0]["grammar"]
    assert '"apply_fix\\nAction Input: {" "\\"number\\": " integer "}"' in grammar
    assert "web_search" not in grammar and "view_lines" not in grammar
    assert outcome.steps[0].observation.startswith("Edit applied")


def test_the_turn_grammar_is_valid_gbnf_with_each_tools_own_schema():
    from llama_cpp import LlamaGrammar

    from tinycode.engine.agent.toolkit import turn_grammar
    from tinycode.engine.agent.workspace import build_tools

    tools = build_tools(WorkingCopy(BROKEN, "python"))
    grammar = turn_grammar(tools)
    for tool in tools:
        assert tool.grammar() in grammar
    assert '"\\"start\\": " integer ", " "\\"end\\": " integer ", " "\\"text\\": " string' in grammar
    LlamaGrammar.from_string(grammar, verbose=False)  # raises on a grammar llama.cpp cannot read
