"""What the model does can neither reach far from the error, sink a batch, pick a fix
blindly nor outlast the file's deadline."""

from __future__ import annotations

import json
import time

import pytest

from test_llm_openai import CHAT_REPLY, Scripted

from tinycode import repair
from tinycode.check import check
from tinycode.cli import main
from tinycode.config import Settings
from tinycode.deadline import DeadlineExceeded
from tinycode.errors import ModelError
from tinycode.engine.fastpath import try_fast_repair
from tinycode.engine.guard import edit_too_large
from fake_llm import FakeLLM
from tinycode.llm.openai_http import OpenAIHTTPLLM

SEVERAL = "def f(values):\n    total = sum(values\n    return total\n"


def turn(action: str, arguments: str) -> str:
    return f"Thought: fix it\nAction: {action}\nAction Input: {arguments}\n"


def admin_file() -> str:
    body = "".join(f"    audit(u, {i})\n" for i in range(600))
    return ("def grant(u):\n    if not u.admin:\n        raise PermissionError(u)\n" + body
            + "    return u\n\n\ndef revoke(u)\n    u.admin = False\n")


def test_injected_edit_far_from_the_error_is_refused():
    source = admin_file()
    error_line = source.splitlines().index("def revoke(u)") + 1
    assert error_line > 600
    far = turn("replace_lines", '{"start": 2, "end": 2, "text": "    if u.admin:"}')
    fix = turn("replace_lines", json.dumps({"start": error_line, "end": error_line, "text": "def revoke(u):"}))
    llm = FakeLLM([far, fix], default="Thought: done\nAction: code_check\nAction Input: {}\n")
    result = repair(source, "python", llm=llm, settings=Settings(agent_only=True))
    assert result.status == "fixed" and "    if not u.admin:\n" in result.source
    assert "edit_too_far" in result.steps[0].observation
    # The same two changes handed to the final guard: refused, whoever made them.
    both = source.replace("    if not u.admin:", "    if u.admin:").replace("def revoke(u)\n", "def revoke(u):\n")
    assert check(both, "python").ok
    refused = edit_too_large(source, both, "python", problems=check(source, "python").problems)
    assert "line 2 changed" in refused and "limit 6" in refused
    assert edit_too_large(source, both, "python", problems=check(source, "python").problems,
                          max_distance=1000) == ""


def test_errors_reported_one_at_a_time_each_count_as_they_surface():
    # CPython reports the first error only; the second surfaces once it is fixed.
    body = "".join(f"    step({i})\n" for i in range(20))
    source = "def a(x)\n" + body + "def b(y)\n    return y\n"
    assert len(check(source, "python").problems) == 1
    fixed = source.replace("def a(x)\n", "def a(x):\n").replace("def b(y)\n", "def b(y):\n")
    problems = check(source, "python").problems
    assert edit_too_large(source, fixed, "python", problems=problems) == ""
    tampered = fixed.replace("    step(10)\n", "    step(-10)\n")
    assert "line 12 changed" in edit_too_large(source, tampered, "python", problems=problems)
    # Far from every problem, a line may gain a closing bracket and nothing else.
    unclosed = "total = sum([\n" + "".join(f"    {i},\n" for i in range(20)) + "]\n"
    closed = unclosed.replace("]\n", "])\n")
    assert check(closed, "python").ok
    assert edit_too_large(unclosed, closed, "python", problems=check(unclosed, "python").problems) == ""


class SmallContextLLM(FakeLLM):
    """Scores like the real backend: a text longer than its context is an error."""

    n_ctx = 512

    def score(self, prompt, continuations):
        longest = max(self.count_tokens(prompt + c) for c in continuations)
        if longest > self.n_ctx:
            raise ModelError(f"scoring needs {longest} tokens, the context holds {self.n_ctx}")
        return super().score(prompt, continuations)


def three_errors_far_apart(gap: int = 150) -> str:
    filler = "".join(f"    step_{i} = compute(values, {i})  # keep the pipeline moving\n" for i in range(gap))
    return (SEVERAL.replace("    return total\n", filler + "    return total\n")
            + "\n\ndef g(x)\n    return x\n" + filler.replace("step_", "more_")
            + "\n\nclass K\n    pass\n")


def test_ranking_fits_the_context_instead_of_raising():
    # Every complete fix repairs all three errors; the lines between them would not fit
    # the context, the lines where the fixes differ do.
    source = three_errors_far_apart(gap=60)
    llm = SmallContextLLM(scorer=lambda prompt, text: 0.0 if "sum(values)" in text else -3.0)
    fast = try_fast_repair(source, "python", None, llm, work=10**6)
    assert fast is not None and fast.scored and fast.alternatives >= 1
    assert "    total = sum(values)\n" in fast.source_after and check(fast.source_after, "python").ok
    assert fast.prompt_tokens < SmallContextLLM.n_ctx


def test_a_model_failure_ends_one_file_not_the_run():
    def broken_server(prompt):
        raise ModelError("the model server answered HTTP 500")

    result = repair(SEVERAL, "python", llm=FakeLLM(default=broken_server))
    assert result.status == "failed" and "HTTP 500" in result.reason and result.source == SEVERAL


def test_server_without_likelihoods_never_applies_a_blind_pick():
    # A real HTTP server that cannot rank: the several verified fixes go to the rewrite
    # (and the agent), never straight to the first one.
    with Scripted((200, CHAT_REPLY)) as server:
        llm = OpenAIHTTPLLM(server.url, model="m", backoff=0.01)
        result = repair(SEVERAL, "python", llm=llm, settings=Settings(max_steps=1))
        chat = [r for r in server.requests if r["path"] == "/v1/chat/completions"]
    assert not result.fast_path and chat
    assert result.status == "failed" and result.source == SEVERAL


def test_slow_server_is_cut_off_at_the_file_deadline():
    with Scripted((200, CHAT_REPLY, 20, {})) as server:
        llm = OpenAIHTTPLLM(server.url, model="m", backoff=0.01, read_timeout=120)
        started = time.monotonic()
        result = repair(SEVERAL, "python", llm=llm, settings=Settings(timeout=1.0))
        elapsed = time.monotonic() - started
    assert result.status == "failed" and result.source == SEVERAL
    assert elapsed < 10, elapsed  # the server would have taken 20 s per request
    assert "1 s" in result.reason or "time budget" in result.reason


@pytest.mark.model
def test_three_errors_in_a_long_file_do_not_sink_the_batch(tmp_path, capsys):
    big, small = tmp_path / "big.py", tmp_path / "small.py"
    big.write_text(three_errors_far_apart(), encoding="utf-8")
    small.write_text("def f(x)\n    return x\n", encoding="utf-8")
    code = main(["fix", "--json", "--timeout", "30", str(big), str(small)])
    reports = json.loads(capsys.readouterr().out)
    assert [r["path"] for r in reports] == [str(big), str(small)]
    assert reports[1]["status"] == "fixed" and small.read_text(encoding="utf-8") == "def f(x):\n    return x\n"
    assert reports[0]["status"] in ("fixed", "failed") and code in (0, 1)


@pytest.mark.model
def test_generation_stops_at_the_deadline():
    from tinycode.deadline import until
    from tinycode.llm import load_llm

    llm = load_llm()
    prompt = [{"role": "user", "content": "Count from 1 to 400, one number per line."}]
    with until(time.monotonic() + 2.0):
        cut = llm.complete(prompt, max_tokens=400)
    # About 30 tokens a second here: 2 s leave room for 60 at most, never the 400 asked.
    assert cut.completion_tokens < 150, cut
    with until(time.monotonic() - 1):
        with pytest.raises(DeadlineExceeded):
            llm.complete(prompt, max_tokens=5)


def test_time_spent_waiting_for_a_turn_moves_every_enclosing_deadline_out():
    from tinycode.deadline import paused, remaining, until

    with until(time.monotonic() + 0.5):
        with until(time.monotonic() + 0.4):
            with paused():
                time.sleep(0.6)  # longer than either budget: neither is spent by it
            assert 0.2 < remaining() <= 0.4
        assert 0.3 < remaining() <= 0.5
    with until(time.monotonic() + 0.2):
        time.sleep(0.3)
        assert remaining() == 0.0  # waiting outside paused() is spent


def test_web_search_requests_respect_the_file_deadline():
    from tinycode.deadline import until
    from tinycode.websearch import SearchError
    from tinycode.websearch.http import get

    with Scripted((200, {"results": []}, 8)) as server:
        started = time.monotonic()
        with until(time.monotonic() + 1.0), pytest.raises(SearchError):
            get(server.url + "/search")
        assert time.monotonic() - started < 4  # the server takes 8 s; the search allows 12


def test_stray_characters_deleted_one_by_one_are_not_a_repair():
    # Each deletion is verified progress, but six of them in one place are garbage
    # removal, not a repair: the loop stops at four edits a place.
    result = repair("this is $$$ not ??? python\n", "python", llm=FakeLLM(default="no"),
                    settings=Settings(max_steps=1))
    assert result.status == "failed" and result.source == "this is $$$ not ??? python\n"
