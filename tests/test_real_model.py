"""The real default model (Qwen2.5-Coder-0.5B Q4_K_M): the llama.cpp backend, the
OpenAI-compatible backend against llama-cpp-python's own server, and repairs of the
broken examples. Marked `model`; CI runs them."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tinycode import check, repair
from tinycode.deadline import cancellable
from tinycode.engine.edits import changed_lines

from scripted import free_port

pytestmark = pytest.mark.model
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_cached_model_loads_fast_and_completes(real_llm, model_path):
    assert real_llm.load_seconds < 5
    messages = [{"role": "system", "content": "Answer with one word."},
                {"role": "user", "content": "What language uses def to define functions?"}]
    completion = real_llm.complete(messages, max_tokens=8)
    assert "python" in completion.text.lower()
    assert completion.prompt_tokens > 10 and 0 < completion.completion_tokens <= 8
    assert real_llm.count_tokens("def f(): pass") > 3


def test_grammar_constrains_the_output(real_llm):
    completion = real_llm.complete("Is the sky green? Answer:", grammar='root ::= " yes" | " no"', max_tokens=4)
    assert completion.text in (" yes", " no")


def test_score_prefers_the_correct_continuation(real_llm):
    prefix = "def area(width, height):\n    return width * height\n\nprint(area(2, 3)"
    right, wrong = real_llm.score(prefix, [")\n", "]\n"])
    assert right > wrong


@pytest.mark.parametrize("language,name", [("python", "broken.py"), ("javascript", "broken.js"),
                                           ("go", "broken.go")])
def test_broken_examples_are_repaired_with_small_diffs(real_llm, language, name):
    source = (EXAMPLES / language / name).read_text(encoding="utf-8")
    result = repair(source, language, llm=real_llm)
    assert result.status == "fixed", result.reason
    assert check(result.source, language).ok
    assert 1 <= len(changed_lines(source, result.source)) <= 2


def _with_errors(clean: str, *mistakes: tuple[str, str]) -> str:
    broken = clean
    for right, wrong in mistakes:
        assert broken.count(right) == 1
        broken = broken.replace(right, wrong)
    return broken


MULTI_PY = "".join(f"def f{n}(values):\n    total = sum(values)\n    return total * {n}\n\n\n" for n in range(8))
MULTI_JS = "".join(f"function f{n}(values) {{\n  const total = values.length;\n  return total * {n};\n}}\n\n"
                   for n in range(8))


@pytest.mark.parametrize("language,clean,mistakes", [
    ("python", MULTI_PY, [("def f1(values):", "def f1(values)"), ("total * 4", "total * (4"),
                          ("def f7(values):", "def f7(values)")]),
    ("javascript", MULTI_JS, [("function f2(values) {", "function f2(values) "),
                              ("return total * 6;", "return total * 6;;)")]),
])
def test_files_with_several_errors_are_repaired(real_llm, language, clean, mistakes):
    broken = _with_errors(clean, *mistakes)
    assert not check(broken, language).ok
    result = repair(broken, language, llm=real_llm)
    assert result.status == "fixed", result.reason
    assert check(result.source, language).ok
    assert len(changed_lines(broken, result.source)) <= len(mistakes) + 1


def test_the_same_file_gets_the_same_repair_whatever_ran_before(real_llm):
    """The model's scores and the judges' budgets do not depend on earlier calls: a file
    repaired again, after another file, takes the same path to the same output."""
    broken = _with_errors(MULTI_JS, ("function f2(values) {", "function f2(values) "),
                          ("return total * 6;", "return total * 6;;)"))
    first = repair(broken, "javascript", llm=real_llm)
    repair(_with_errors(MULTI_PY, ("total * 4", "total * (4")), "python", llm=real_llm)
    again = repair(broken, "javascript", llm=real_llm)
    assert (again.source, again.model_calls, len(again.steps)) == (first.source, first.model_calls, len(first.steps))


NO_NAME = "def (values):\n    return sum(values)\n"  # the function's name is the model's to write


def test_the_rewrite_step_repairs_with_the_real_model(real_llm):
    # The rewrite step itself: the loop reaches it only where no small edit verifies
    # (here one does: a swap gives "def values():").
    from tinycode.engine.rewrite import rewrite_window

    rewrite = rewrite_window(real_llm, NO_NAME, "python", check(NO_NAME, "python"))
    assert rewrite.source is not None and check(rewrite.source, "python").ok
    assert len(changed_lines(NO_NAME, rewrite.source)) == 1


def test_agent_turns_with_the_real_model(real_llm):
    from tinycode.engine.agent import run_agent
    from tinycode.engine.agent.workspace import WorkingCopy

    outcome = run_agent(real_llm, WorkingCopy(NO_NAME, "python"), max_steps=4)
    assert outcome.model_calls >= 1
    assert outcome.steps[0].kind == "model" and outcome.steps[0].raw
    if outcome.fixed:
        assert check(outcome.source, "python").ok
    else:
        assert outcome.reason  # a failed run says why


def test_openai_backend_against_a_real_server(model_server):
    from tinycode.llm import load_llm

    remote = load_llm(backend="openai", base_url=model_server)
    completion = remote.complete([{"role": "user", "content": "Say hello."}], max_tokens=8)
    assert completion.text.strip() and completion.completion_tokens > 0
    raw = remote.complete("def add(a, b):\n    return", max_tokens=6, stop=["\n"])
    assert raw.text.strip()


def test_openai_backend_unreachable_is_a_model_error():
    from tinycode.errors import ModelError
    from tinycode.llm import load_llm

    remote = load_llm(backend="openai", base_url=f"http://127.0.0.1:{free_port()}")
    remote.retries, remote.backoff = 1, 0.01
    with pytest.raises(ModelError, match="cannot reach"):
        remote.complete("hi", max_tokens=2)


def test_a_cancelled_generation_stops_at_the_next_token_and_the_model_stays(real_llm):
    switch = threading.Event()
    threading.Timer(1.0, switch.set).start()
    started = time.monotonic()
    with cancellable(switch):
        answer = real_llm.complete("Write a long story about a lighthouse keeper.", max_tokens=500)
    # About 30 tokens a second on an idle machine: it stopped within a few tokens of the
    # cancellation, not at the 500 asked for (a busy machine makes each token slower).
    assert answer.completion_tokens < 100
    assert time.monotonic() - started < 30
    again = real_llm.complete("Say hello.", max_tokens=4)  # not cancelled: the switch was this call's
    assert again.completion_tokens > 0
