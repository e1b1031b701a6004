"""The ``llama_cpp`` backend with the real default model (marked ``model``), plus the
parts that need no model: thread counting and bad model files."""

from __future__ import annotations

import os
import re

import pytest

from tinycode.errors import ModelError
from tinycode.llm import load_llm
from tinycode.llm.cores import physical_cores
from tinycode.llm.llama_cpp import _common_prefix_length


def test_physical_cores_is_a_sane_count():
    assert 1 <= physical_cores() <= (os.cpu_count() or 1)


def test_common_prefix_length():
    assert _common_prefix_length([[1, 2, 3], [1, 2, 4], [1, 2]]) == 2
    assert _common_prefix_length([[5], [6]]) == 0
    assert _common_prefix_length([[1, 2], [1, 2]]) == 2
    assert _common_prefix_length([]) == 0


def test_bad_files_never_reach_llama_cpp(tmp_path):
    text = tmp_path / "model.gguf"
    text.write_text("not a model at all, " * 100)
    with pytest.raises(ModelError, match="not a GGUF"):
        load_llm(str(text))
    with pytest.raises(ModelError, match="no such file"):
        load_llm(str(tmp_path / "absent.gguf"))


# --- the real model ------------------------------------------------------------------------------

def test_extra_buffer_types_are_switched_only_within_the_block():
    llama_cpp = pytest.importorskip("llama_cpp")
    from tinycode.llm.native import EXTRA_BUFFERS_FIELD, extra_buffer_types

    original = llama_cpp.llama_cpp.llama_model_default_params
    if not hasattr(original(), EXTRA_BUFFERS_FIELD):
        pytest.skip("this llama-cpp-python has no extra buffer types")
    with extra_buffer_types(False):
        assert getattr(llama_cpp.llama_cpp.llama_model_default_params(), EXTRA_BUFFERS_FIELD) is False
    with extra_buffer_types(True):
        assert getattr(llama_cpp.llama_cpp.llama_model_default_params(), EXTRA_BUFFERS_FIELD) is True
    assert llama_cpp.llama_cpp.llama_model_default_params is original


@pytest.mark.model
def test_extra_buffer_types_are_off_in_the_loaded_model(real_llm, model_path):
    """As llama.cpp loaded it: the parameters the ``Llama`` object kept (``model_params``),
    read in the process that holds the model, and in one loaded here directly."""
    from tinycode.llm.llama_cpp import LlamaCppLLM

    assert real_llm.extra_buffers is False  # the default, contained model
    here = LlamaCppLLM(model_path, n_ctx=256, prefix_cache=False)
    try:
        assert here._llm.model_params.use_extra_bufts is False
        assert here.complete("def add(a, b):\n    return", max_tokens=3).text  # decodes: no AMX crash
    finally:
        here.close()


@pytest.mark.model
def test_the_model_is_loaded_once_per_process(real_llm, model_path):
    assert load_llm(str(model_path)) is real_llm
    assert load_llm(None) is real_llm  # the default name resolves to the same cached file
    assert real_llm.load_seconds < 3  # about 0.5 s on two cores


@pytest.mark.model
def test_text_completion_counts_tokens_and_honours_stop(real_llm):
    prompt = "def add(a, b):\n    return"
    result = real_llm.complete(prompt, max_tokens=16, stop=["\n"])
    assert "a + b" in result.text and "\n" not in result.text
    assert result.prompt_tokens == real_llm.count_tokens(prompt)  # no BOS for Qwen
    assert 0 < result.completion_tokens <= 16
    assert result.finish_reason == "stop" and result.seconds > 0
    cut = real_llm.complete("# a long comment about", max_tokens=3)
    assert cut.completion_tokens == 3 and cut.finish_reason == "length"


@pytest.mark.model
def test_chat_uses_the_template_from_the_gguf(real_llm):
    messages = [{"role": "system", "content": "Answer with one word."},
                {"role": "user", "content": "Which language defines functions with def?"}]
    template = real_llm.apply_chat_template(messages)
    assert template.startswith("<|im_start|>system\nAnswer with one word.<|im_end|>")
    assert template.endswith("<|im_start|>assistant\n")
    result = real_llm.complete(messages, max_tokens=8)
    assert "python" in result.text.lower()
    assert result.prompt_tokens == real_llm.count_tokens(template)


@pytest.mark.model
def test_only_the_system_message_is_reused_between_calls(real_llm):
    system = {"role": "system", "content": "Repair the Python file below.\n"
              + "".join(f"value_{i} = {i}\n" for i in range(20))}
    shared = "Here is the file.\n" * 10
    first = real_llm.complete([system, {"role": "user", "content": shared + "print(value_1)"}], max_tokens=4)
    second = real_llm.complete([system, {"role": "user", "content": shared + "print(value_2)"}], max_tokens=4)
    assert first.prompt_tokens == second.prompt_tokens
    system_tokens = real_llm.count_tokens(real_llm.apply_chat_template([system]))
    # Counted in tokens, not timed (a busy machine makes any call slow). The user
    # message's shared lines are evaluated again: reusing them would make the answer
    # depend on the call before.
    assert system_tokens - 4 <= second.cached_tokens <= system_tokens  # its end: the template's turn marks
    assert real_llm.complete("value_3 = 3\n" * 30 + "#", max_tokens=4).cached_tokens == 0


@pytest.mark.model
def test_a_score_does_not_depend_on_what_was_scored_before(real_llm):
    prompt = "# python\nimport os\nfor i in range(3):\n"
    candidates = ["    print(i)\n", "    print(i))\n", "    print(i,)\n", "    prin(i)\n"]
    first = real_llm.score(prompt, candidates)
    real_llm.score(prompt, candidates[:2])  # a longer shared prefix, batched differently
    real_llm.score("# python\nimport os\nx = [1, 2\nfor j in foo:\n", ["    a\n", "    b = 1\n"])
    real_llm.complete([{"role": "user", "content": prompt}], max_tokens=2)
    assert real_llm.score(prompt, candidates) == first  # bit for bit


@pytest.mark.model
def test_the_system_message_state_is_restored_in_a_new_instance(model_path, tinycode_home):
    from tinycode.llm.llama_cpp import LlamaCppLLM

    system = {"role": "system", "content": "You repair Python code. " + " ".join(f"Rule {i}: keep edits small."
                                                                                    for i in range(12))}
    question = [system, {"role": "user", "content": "Fix: print('a'"}]
    plain = LlamaCppLLM(model_path, n_ctx=1024, prefix_cache=False).complete(question, max_tokens=12)
    first = LlamaCppLLM(model_path, n_ctx=1024)
    assert first.complete(question, max_tokens=12).text == plain.text
    assert list((tinycode_home / "kv-cache").glob("*.kv"))
    system_tokens = first.count_tokens(first.apply_chat_template([system]))
    # A new instance (as in a new run) starts with the saved state, and answers the same.
    second = LlamaCppLLM(model_path, n_ctx=1024)
    again = second.complete(question, max_tokens=12)
    assert again.cached_tokens >= system_tokens - 8 and again.text == plain.text
    # After another prompt took the cache over, the state is put back from memory.
    second.complete("def f():\n    return", max_tokens=2)
    other = second.complete([system, {"role": "user", "content": "Fix: x = [1, 2"}], max_tokens=8)
    assert other.cached_tokens >= system_tokens - 8
    for model in (first, second):
        model.close()


@pytest.mark.model
def test_grammar_constrains_the_output(real_llm):
    grammar = 'root ::= "line " [1-9] [0-9]? ": " ("insert" | "delete" | "replace")'
    result = real_llm.complete("Which line of `x = (1,\\nprint(x)` is broken and what fixes it?\nAnswer: ",
                          grammar=grammar, max_tokens=12)
    assert re.fullmatch(r"line [1-9][0-9]?: (insert|delete|replace)", result.text), result.text
    with pytest.raises(ModelError, match="grammar"):
        real_llm.complete("x", grammar="root ::= (", max_tokens=2)


@pytest.mark.model
def test_score_ranks_the_correct_continuation_first(real_llm):
    prompt = "def area(width, height):\n    return width * height\n\nprint(area(2, 3)"
    right, wrong, worse = real_llm.score(prompt, [")\n", "]\n", "}}}\n"])
    assert right > wrong and right > worse
    assert all(s < 0 for s in (right, wrong, worse))
    assert real_llm.score(prompt, []) == []


@pytest.mark.model
def test_score_matches_evaluating_each_sequence_from_scratch(real_llm):
    prompt = "items = [1, 2, 3\nprint(items)\n# corrected first line:\n"
    continuations = ["items = [1, 2, 3]\n", "items = [1, 2, 3\n", "items = (1, 2, 3]\n"]
    shared = real_llm.score(prompt, continuations)
    alone = []
    for continuation in continuations:
        real_llm.complete("unrelated", max_tokens=1)  # empty the KV cache of the prompt
        alone.append(real_llm.score(prompt, [continuation])[0])
    # llama.cpp's CPU kernels round differently for different batch shapes: close, same order.
    assert shared == pytest.approx(alone, abs=0.5)
    assert sorted(range(3), key=shared.__getitem__) == sorted(range(3), key=alone.__getitem__)


@pytest.mark.model
def test_scoring_leaves_the_generation_cache_alone(real_llm):
    prompt = "def greet(name):\n    return"
    before = real_llm.complete(prompt, max_tokens=10, stop=["\n"])
    assert real_llm.score(prompt, [" name", " 'hello ' + name", " None"])
    after = real_llm.complete(prompt, max_tokens=10, stop=["\n"])
    assert after.text == before.text


@pytest.mark.model
def test_scoring_reuses_its_prefix_and_handles_many_and_uneven_continuations(real_llm):
    prompt = "# Python\n" + "\n".join(f"def f{i}(x):\n    return x + {i}" for i in range(12))
    continuations = [f"\nprint(f{i}(1))\n" for i in range(10)] + ["", "\n" + "y = 1\n" * 30]
    first = real_llm.score(prompt, continuations)
    assert len(first) == 12 and first[10] == 0.0  # nothing to score
    assert first[11] < min(first[:10])  # thirty more lines cost more
    again = real_llm.score(prompt, continuations)  # the prefix comes from the cache this time
    assert again == pytest.approx(first, abs=0.5)
    assert max(range(12), key=first.__getitem__) == max(range(12), key=again.__getitem__)


@pytest.mark.model
def test_too_long_prompts_are_model_errors(model_path):
    small = load_llm(str(model_path), n_ctx=256)
    long_text = "x = 1\n" * 400
    with pytest.raises(ModelError):
        small.complete(long_text, max_tokens=4)
    with pytest.raises(ModelError, match="context"):
        small.score(long_text, ["a", "b"])
    assert small.complete("def f():\n    return", max_tokens=2).completion_tokens >= 1


@pytest.mark.model
def test_damaged_gguf_is_a_model_error_not_a_crash(model_path, tmp_path):
    truncated = tmp_path / "truncated.gguf"
    with open(model_path, "rb") as source, open(truncated, "wb") as out:
        out.write(source.read(8_000_000))
    with pytest.raises(ModelError, match="could not load"):
        load_llm(str(truncated))


@pytest.mark.model
def test_closed_model_is_reloaded(model_path):
    from tinycode.llm.llama_cpp import LlamaCppLLM

    own = LlamaCppLLM(model_path, n_ctx=512)
    own.close()
    with pytest.raises(ModelError, match="closed"):
        own.complete("x", max_tokens=1)
    first = load_llm(str(model_path), n_ctx=512)
    first.close()
    second = load_llm(str(model_path), n_ctx=512)
    assert second is not first and second.complete("def", max_tokens=1).completion_tokens == 1


@pytest.mark.model
def test_a_long_scoring_pass_stops_at_the_deadline_between_batches(real_llm):
    import time

    from tinycode.deadline import DeadlineExceeded, until

    long = "".join(f"    total += values[{n}] * {n}\n" for n in range(150))  # about 2,000 tokens
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        with until(started + 1.0):
            real_llm.score("# python\ndef f(values):\n    total = 0\n", [long, long.replace("*", "+")])
    assert time.monotonic() - started < 10  # not the whole pass (a minute on two cores)
    assert real_llm.score("# python\nx = 1\n", ["y = 2\n"])  # and the model goes on


def test_threads_are_the_cpus_other_processes_left_idle():
    from tinycode.llm.cores import threads_for

    # Two CPUs over 100 ticks each: one kept busy by another process leaves one thread.
    assert threads_for(2, 2, (0, 0), (100, 200)) == 1
    assert threads_for(2, 2, (0, 0), (20, 200)) == 2  # a little background work
    assert threads_for(2, 2, (0, 0), (200, 200)) == 1  # never none
    assert threads_for(8, 4, (0, 0), (100, 800)) == 4  # never more than loaded with
    assert threads_for(2, 2, (50, 50), (50, 50)) == 2  # no time passed: as loaded


def test_cpu_ticks_are_read_for_the_usable_cpus_only(tmp_path, monkeypatch):
    from tinycode.llm import cores

    stat = tmp_path / "stat"
    stat.write_text("cpu  30 0 10 160 0 0 0 0 0 0\n"
                    "cpu0 10 0 5 80 5 0 0 0 0 0\n"
                    "cpu1 20 0 5 75 0 0 0 0 0 0\n"
                    "intr 12345 0 0\nctxt 999\n")
    monkeypatch.setattr(cores, "_STAT", str(stat))
    assert cores._cpu_ticks({0}) == (15, 100)  # iowait is idle
    assert cores._cpu_ticks({0, 1}) == (40, 200)
    monkeypatch.setattr(cores, "_STAT", str(tmp_path / "missing"))
    assert cores._cpu_ticks({0}) is None
    assert cores.CoreShare(3).threads() == 3  # the system does not say: as loaded


@pytest.mark.model
def test_the_thread_count_changes_no_answer(model_path, monkeypatch):
    import llama_cpp

    from tinycode.llm.llama_cpp import LlamaCppLLM

    llm = LlamaCppLLM(model_path, n_ctx=1024, threads=2, prefix_cache=False)
    prompt = [{"role": "user", "content": "Fix the syntax error:\n```c\nint f(int a,)\n{\n    return a\n}\n```"}]
    candidates = ["int f(int a)\n", "int f(int a,int b)\n", "int f(int a,)\n"]
    answers = []
    try:
        for threads in (1, 2):
            monkeypatch.setattr(llm._cores, "threads", lambda threads=threads: threads)
            answer = llm.complete(prompt, max_tokens=24)
            scores = llm.score("```c\n", candidates)
            assert llama_cpp.llama_n_threads(llm._llm._ctx.ctx) == threads
            answers.append((answer.text, scores))
    finally:
        llm.close()
    assert answers[0] == answers[1]  # bit for bit
