"""The one-shot rewrite of the lines around the first problem, with a scripted model."""

from __future__ import annotations

import json

from tinycode import check
from fake_llm import FakeLLM
from tinycode import repair
from tinycode.engine.rewrite import rewrite_window

NO_SMALL_FIX = "def (x)):\n    return x\n"  # no one-token edit repairs it


def test_indented_window_is_sent_dedented_and_put_back_indented():
    lines = [f"        x{i} = {i}" for i in range(20)]
    lines.insert(10, "        y = (1")  # file line 13: the window is lines 10-16
    source = "class A:\n    def f(self):\n" + "\n".join(lines) + "\n"
    llm = FakeLLM(["```python\nx7 = 7\nx8 = 8\nx9 = 9\ny = (1)\nx10 = 10\nx11 = 11\nx12 = 12\n```"])
    rewrite = rewrite_window(llm, source, "python", check(source, "python"))
    assert (rewrite.edit.line, rewrite.edit.end_line) == (10, 16)
    assert rewrite.source == source.replace("y = (1\n", "y = (1)\n")
    prompt = llm.prompts[0][-1]["content"]
    assert "\nx8 = 8\n" in prompt and "x0 = 0" not in prompt  # the window only, dedented


def test_prompt_size_does_not_grow_with_the_file():
    def prompt_chars(filler: int) -> int:
        source = "".join(f"a{i} = {i}\n" for i in range(filler)) + "def (x)):\n    return x\n" + \
            "".join(f"b{i} = {i}\n" for i in range(filler))
        llm = FakeLLM(["no answer"])
        rewrite_window(llm, source, "python", check(source, "python"))
        return len(json.dumps(llm.prompts[0]))

    assert abs(prompt_chars(5_000) - prompt_chars(50)) < 40  # only the digits of the names differ


def test_an_answer_without_a_code_block_or_that_does_not_parse_is_none():
    result = check(NO_SMALL_FIX, "python")
    assert rewrite_window(FakeLLM(["def f(x):"]), NO_SMALL_FIX, "python", result).source is None
    assert rewrite_window(FakeLLM(["```python\ndef (x)\n```"]), NO_SMALL_FIX, "python", result).source is None


def test_crlf_lines_keep_their_endings():
    source = NO_SMALL_FIX.replace("\n", "\r\n")
    llm = FakeLLM(["```python\ndef f(x):\n    return x\n```"])
    rewrite = rewrite_window(llm, source, "python", check(source, "python"))
    assert rewrite.source == "def f(x):\r\n    return x\r\n"


def test_pipeline_uses_the_rewrite_before_the_agent():
    llm = FakeLLM(["```python\ndef f(x):\n    return x\n```"])
    result = repair(NO_SMALL_FIX, "python", llm=llm, agent="open")
    assert result.status == "fixed" and result.source == "def f(x):\n    return x\n"
    assert [s.kind for s in result.steps] == ["rewrite"] and result.model_calls == 1


def test_a_rewrite_that_changes_too_much_hands_over_to_the_agent():
    source = NO_SMALL_FIX + "".join(f"v{i} = {i}\n" for i in range(6))
    agent_fix = ('Thought: name it\nAction: replace_lines\nAction Input: '
                 '{"start": 1, "end": 1, "text": "def f(x):"}')
    llm = FakeLLM(["```python\ndef f(x):\n    return x\n```", agent_fix])  # drops the v lines
    result = repair(source, "python", llm=llm, agent="open")
    assert result.status == "fixed" and result.source == source.replace("def (x)):", "def f(x):")
    assert [s.kind for s in result.steps] == ["rewrite", "model"]
    assert "changes too much" in result.steps[0].observation


def test_a_window_too_long_to_retype_narrows_then_is_not_asked_for():
    long_line = "x = [" + ", ".join(str(n) for n in range(150)) + "]"  # about 700 characters
    lines = [f"a{i} = {i}" for i in range(30)]
    lines[14:17] = [long_line, "y = (1", long_line]
    source = "\n".join(lines) + "\n"
    llm = FakeLLM(["no answer"])
    rewrite = rewrite_window(llm, source, "python", check(source, "python"))
    assert (rewrite.edit.line, rewrite.edit.end_line) == (16, 16)  # the problem's line alone
    lines[16] = lines[16] + ", 1" * 200  # its line itself too long
    source = "\n".join(lines).replace("y = (1", "y = (1" + ", 1" * 400) + "\n"
    llm = FakeLLM([])
    assert rewrite_window(llm, source, "python", check(source, "python")) is None
    assert llm.prompts == []
