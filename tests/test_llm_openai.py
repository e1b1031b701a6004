"""The ``openai`` backend against small local HTTP servers on 127.0.0.1 (retries,
timeouts, errors), and against llama-cpp-python's own server with the real model."""

from __future__ import annotations

import http.server
import json
import math
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tinycode.errors import ModelError
from tinycode.llm import ScoringUnsupported, load_llm
from tinycode.llm.openai_http import SCORE_PATH, OpenAIHTTPLLM

from scripted import free_port, run

CHAT_REPLY = {"choices": [{"message": {"role": "assistant", "content": "fixed"}, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 12, "completion_tokens": 3,
                        "prompt_tokens_details": {"cached_tokens": 8}}}
TEXT_REPLY = {"choices": [{"text": " return a + b", "finish_reason": "length"}],
              "usage": {"prompt_tokens": 6, "completion_tokens": 5}}


class _QuietServer(http.server.ThreadingHTTPServer):
    """A client that hangs up before its answer is written (its timeout or deadline
    came first) is expected here: not worth a traceback on stderr, which the tests
    compare."""

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Scripted:
    """An HTTP server answering from a script: each entry is (status, body), optionally
    followed by a delay in seconds and then a dict of headers, or "drop" (close the
    connection without an answer); the last entry repeats. ``routes`` answer their paths
    instead, with an entry or a function of the request's JSON that makes one."""

    def __init__(self, *script, routes: dict | None = None) -> None:
        self.script = list(script)
        # Like any server but tinycode's own, it has no route for tinycode's scoring.
        self.routes = {SCORE_PATH: (404, {"detail": "Not Found"}), **(routes or {})}
        self.requests: list[dict] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802
                self._answer()

            def do_POST(self):  # noqa: N802
                self._answer()

            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"null")
                outer.requests.append({"method": self.command, "path": self.path, "json": body,
                                       "auth": self.headers.get("Authorization")})
                if self.path in outer.routes:
                    entry = outer.routes[self.path]
                    if callable(entry):  # an answer made from the request
                        entry = entry(body)
                else:
                    entry = outer.script.pop(0) if len(outer.script) > 1 else outer.script[0]
                if entry == "drop":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                status, reply, *rest = entry
                delay = rest[0] if rest else 0
                headers = rest[1] if len(rest) > 1 else {}
                time.sleep(delay)
                data = reply.encode() if isinstance(reply, str) else json.dumps(reply).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    @property
    def asked(self) -> list[dict]:
        """The requests but those for tinycode's own scoring (which a client asks first)."""
        return [r for r in self.requests if r["path"] != SCORE_PATH]

    def __enter__(self) -> "Scripted":
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def client(url: str, **options) -> OpenAIHTTPLLM:
    options.setdefault("backoff", 0.01)
    options.setdefault("model", "served-model")
    return OpenAIHTTPLLM(url, **options)


def test_chat_messages_go_to_chat_completions():
    with Scripted((200, CHAT_REPLY)) as server:
        llm = client(server.url)
        messages = [{"role": "user", "content": "fix x = (1"}]
        result = llm.complete(messages, stop=["\nObservation:"], max_tokens=40, grammar='root ::= "x"', seed=7)
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["json"]["messages"] == messages
    assert request["json"]["model"] == "served-model"
    assert request["json"]["max_tokens"] == 40 and request["json"]["temperature"] == 0.0
    assert request["json"]["stop"] == ["\nObservation:"] and request["json"]["seed"] == 7
    assert request["json"]["grammar"] == 'root ::= "x"'
    assert (result.text, result.prompt_tokens, result.completion_tokens) == ("fixed", 12, 3)
    assert result.cached_tokens == 8 and result.finish_reason == "stop" and result.seconds >= 0


def test_text_goes_to_completions_and_base_url_may_end_in_v1():
    with Scripted((200, TEXT_REPLY)) as server:
        for base in (server.url, server.url + "/v1/", server.url + "/"):
            result = client(base).complete("def add(a, b):\n", max_tokens=5)
            assert result.text == " return a + b" and result.finish_reason == "length"
    assert [r["path"] for r in server.requests] == ["/v1/completions"] * 3
    assert server.requests[0]["json"]["prompt"] == "def add(a, b):\n"
    assert "stop" not in server.requests[0]["json"]


def test_server_errors_are_retried_until_success():
    with Scripted((500, "boom"), (503, "busy"), "drop", (200, CHAT_REPLY)) as server:
        result = client(server.url, retries=3).complete([{"role": "user", "content": "hi"}])
    assert result.text == "fixed" and len(server.requests) == 4


def test_429_honours_retry_after():
    with Scripted((429, "slow down", 0, {"Retry-After": "0.4"}), (200, TEXT_REPLY)) as server:
        started = time.monotonic()
        result = client(server.url).complete("x")
        elapsed = time.monotonic() - started
    assert result.text == " return a + b" and len(server.requests) == 2
    assert elapsed >= 0.4


def test_persistent_5xx_gives_up_with_a_clear_error():
    with Scripted((502, "bad gateway")) as server:
        with pytest.raises(ModelError, match="HTTP 502 .*after 3 attempts"):
            client(server.url, retries=2).complete("x")
    assert len(server.requests) == 3


def test_client_errors_are_not_retried():
    with Scripted((400, {"error": "context length exceeded"})) as server:
        with pytest.raises(ModelError, match="HTTP 400.*context length exceeded"):
            client(server.url).complete("x")
    assert len(server.requests) == 1


def test_read_timeout_is_a_model_error_without_retry():
    with Scripted((200, TEXT_REPLY, 1.5)) as server:
        started = time.monotonic()
        with pytest.raises(ModelError, match="did not answer within 0.3 s"):
            client(server.url, read_timeout=0.3).complete("x")
        assert time.monotonic() - started < 1.2
    assert len(server.requests) == 1


def test_unreachable_server_is_a_model_error():
    llm = client(f"http://127.0.0.1:{free_port()}", retries=2)
    started = time.monotonic()
    with pytest.raises(ModelError, match="cannot reach the model server .*after 3 attempts"):
        llm.complete([{"role": "user", "content": "hi"}])
    assert time.monotonic() - started < 5


def test_garbage_answers_are_model_errors():
    with Scripted((200, "<html>not json</html>")) as server:
        with pytest.raises(ModelError, match="did not answer JSON"):
            client(server.url).complete("x")
    with Scripted((200, {"object": "error"})) as server:
        with pytest.raises(ModelError, match="without choices"):
            client(server.url).complete("x")


def test_a_huge_answer_is_refused_not_read_whole():
    from tinycode.llm import openai_http

    huge = "x" * (openai_http.MAX_RESPONSE_BYTES + 100_000)
    with Scripted((200, huge)) as server:
        with pytest.raises(ModelError, match="sent more than"):
            client(server.url).complete("x")


def test_api_key_comes_from_the_environment(monkeypatch):
    with Scripted((200, TEXT_REPLY)) as server:
        client(server.url).complete("x")
        monkeypatch.setenv("TINYCODE_API_KEY", "sekrit")
        client(server.url).complete("x")
    assert [r["auth"] for r in server.requests] == [None, "Bearer sekrit"]


def test_model_defaults_to_the_first_one_the_server_lists():
    models = {"object": "list", "data": [{"id": "qwen-coder-served"}, {"id": "other"}]}
    with Scripted((200, TEXT_REPLY), routes={"/v1/models": (200, models)}) as server:
        llm = load_llm(backend="openai", base_url=server.url)
        llm.complete("x")
        llm.complete("y")
    assert [r["path"] for r in server.requests] == ["/v1/models", "/v1/completions", "/v1/completions"]
    assert server.requests[1]["json"]["model"] == "qwen-coder-served"
    assert llm.name == "openai:qwen-coder-served"


def test_count_tokens_uses_the_server_tokenizer_when_there_is_one():
    with Scripted((404, "no"), routes={"/tokenize": (200, {"tokens": [1, 2, 3, 4, 5, 6, 7]})}) as server:
        llm = client(server.url)
        assert llm.count_tokens("def f(): pass") == 7
        assert llm.count_tokens("x") == 7  # the server answered, not the estimate
    assert server.requests[-1]["json"] == {"content": "x"}
    with Scripted((404, "no"), routes={"/extras/tokenize/count": (200, {"count": 4})}) as server:
        assert client(server.url).count_tokens("def f(): pass") == 4
    with Scripted((404, "no")) as server:
        llm = client(server.url)
        assert llm.count_tokens("a" * 40) == 10 and llm.count_tokens("b" * 8) == 2
        assert llm.count_tokens("") == 0
    assert len(server.requests) == 2  # probed once, then the estimate


def test_bad_settings_are_errors():
    with pytest.raises(ModelError, match="base URL"):
        load_llm(backend="openai")
    with pytest.raises(ModelError, match="unknown backend 'vllm'"):
        load_llm(backend="vllm")


# --- scoring from echoed prompt log-probabilities ----------------------------------------------

PROBE_TOKENS = ["0", ",", " ", "1", ",", " ", "2", ",", " ", "3"]


def echo_reply(tokens: list[str], values: list[float], *, shifted: bool = False,
               alternatives: dict[int, dict[str, float]] | None = None) -> dict:
    """A ``/v1/completions`` answer echoing ``tokens`` (plus one generated token) where
    ``values[j]`` is log p(token j | tokens before j). Aligned as OpenAI and vLLM send
    it, or ``shifted`` as llama-cpp-python sends it for models without a BOS token:
    row j holds the distribution of token j+1, ``token_logprobs[j]`` is token j's entry
    in it, and ``top_logprobs[j]`` has that row's best alternatives plus token j."""
    tokens = tokens + ["<gen>"]
    values = values + [-0.5]
    offsets = [sum(len(t) for t in tokens[:j]) for j in range(len(tokens))]
    top: list = []
    logprobs: list = []
    for j, token in enumerate(tokens):
        if shifted:
            row = {tokens[j + 1]: values[j + 1]} if j + 1 < len(tokens) else {"\n": -0.1}
            row.update((alternatives or {}).get(j, {}))
            own = -30.0 - j  # token j under the distribution of token j+1: meaningless
            logprobs.append(own)
            top.append({**row, token: own})
        else:
            logprobs.append(values[j])
            top.append({token: values[j], **(alternatives or {}).get(j, {})})
    logprobs[0] = top[0] = None
    return {"choices": [{"text": "".join(tokens), "finish_reason": "length",
                         "logprobs": {"tokens": tokens, "text_offset": offsets,
                                      "token_logprobs": logprobs, "top_logprobs": top}}],
            "usage": {"prompt_tokens": len(tokens) - 1, "completion_tokens": 1}}


def probe_reply(*, shifted: bool = False) -> dict:
    return echo_reply(PROBE_TOKENS, [0.0] + [-0.05] * (len(PROBE_TOKENS) - 1), shifted=shifted)


# Prompt "zab", continuations "c d" and "x": the first merges "b" and "c" into one token,
# so both are scored from token 2 on, as the in-process backend does.
MERGED = (["z", "a", "bc", " d"], [0.0, -0.25, -2.0, -1.0])
PLAIN = (["z", "a", "b", "x"], [0.0, -0.25, -0.5, -3.0])


@pytest.mark.parametrize("shifted", [False, True])
def test_scores_come_from_the_echoed_prompt_log_probabilities(shifted):
    replies = [probe_reply(shifted=shifted), echo_reply(*MERGED, shifted=shifted),
               echo_reply(*PLAIN, shifted=shifted)]
    with Scripted(*[(200, r) for r in replies]) as server:
        llm = client(server.url)
        scores = llm.score("zab", ["c d", "x"])
    assert scores == pytest.approx([-3.0, -3.5])
    probe, first, second = (r["json"] for r in server.asked)
    assert probe["prompt"].startswith("0, 1, 2") and probe["echo"] is True
    assert [first["prompt"], second["prompt"]] == ["zabc d", "zabx"]
    for request in (probe, first, second):
        assert request["echo"] is True and request["max_tokens"] == 1 and request["model"] == "served-model"
    # Shifted rows keep the next token only among the alternatives: ask for many.
    assert first["logprobs"] == (1000 if shifted else 1)


def test_a_server_too_slow_at_echoing_is_not_asked_to_rank():
    # 10 probe tokens in 1 s: 0.1 s a token, past the limit; asked once, then cached.
    with Scripted((200, probe_reply(), 1.0)) as server:
        llm = client(server.url)
        for _ in range(2):
            with pytest.raises(ScoringUnsupported, match="too slow to rank"):
                llm.score("zab", ["c d", "x"])
        assert len(server.asked) == 1


def test_a_shifted_token_outside_the_alternatives_takes_their_least_value():
    # Row 1 (for token 2, " d") lacks " d": its alternatives' least value stands in,
    # not the entry llama-cpp-python adds for token 1 itself.
    reply = echo_reply(["z", "a", "b", " d"], [0.0, -0.25, -1.0, -9.0], shifted=True,
                       alternatives={2: {" e": -0.2, " f": -4.0}})
    del reply["choices"][0]["logprobs"]["top_logprobs"][2][" d"]
    with Scripted((200, probe_reply(shifted=True)), (200, reply)) as server:
        llm = client(server.url)
        import tinycode.llm.openai_http as backend

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(backend, "SHIFTED_TOP", 2)
            assert llm.score("za", ["b d"]) == pytest.approx([-1.0 - 4.0])


def test_a_shifted_value_overwritten_by_a_same_text_token_is_recovered():
    # llama-cpp-python keys alternatives by text: a rarer token that decodes to the same
    # text overwrites the value but keeps the place (first), below the next one's.
    reply = echo_reply(["z", "a", "b", " d"], [0.0, -0.25, -1.0, -0.7], shifted=True)
    reply["choices"][0]["logprobs"]["top_logprobs"][2] = {" d": -9.0, " e": -1.0, " f": -2.0, "b": -30.0}
    with Scripted((200, probe_reply(shifted=True)), (200, reply)) as server:
        scores = client(server.url).score("za", ["b d"])
    assert scores == pytest.approx([-1.0 + math.log(1 - math.exp(-1.0) - math.exp(-2.0))])


def test_a_server_that_does_not_echo_cannot_score_and_is_asked_once():
    # llama.cpp's llama-server: logprobs for the generated token only, prompt not echoed.
    generated_only = {"choices": [{"text": " 21", "finish_reason": "length",
                                   "logprobs": {"tokens": [" 21"], "text_offset": [len("0, 1")],
                                                "token_logprobs": [-0.1], "top_logprobs": [{" 21": -0.1}]}}]}
    for reply in (generated_only, TEXT_REPLY):
        with Scripted((200, reply)) as server:
            llm = client(server.url)
            with pytest.raises(ScoringUnsupported, match="does not echo"):
                llm.score("x = (", ["1)\n", "1\n"])
            probes = len(server.asked)
            with pytest.raises(ScoringUnsupported):
                llm.score("y = [", ["2]\n"])
        # The echo, llama-server's /tokenize (answered with no tokens), a chat answer's
        # log-probabilities (none): once.
        assert [r["path"] for r in server.asked] == ["/v1/completions", "/tokenize", "/v1/chat/completions"]
        assert probes == len(server.asked)


def test_a_scoring_answer_without_the_echo_after_a_good_probe_is_a_model_error():
    with Scripted((200, probe_reply()), (200, TEXT_REPLY)) as server:
        with pytest.raises(ModelError, match="without the prompt's log-probabilities"):
            client(server.url).score("zab", ["x"])


def test_a_server_refusing_logprobs_cannot_score():
    # llama-cpp-python without --logits_all answers 500: retried once, then taken as said.
    refusal = {"error": {"message": "logprobs is not supported for models created with logits_all=False"}}
    with Scripted((500, refusal)) as server:
        llm = client(server.url)
        with pytest.raises(ScoringUnsupported, match="logits_all=False"):
            llm.score("x = (", ["1)\n"])
        with pytest.raises(ScoringUnsupported):
            llm.score("x = (", ["1)\n"])
    # The echo and the /tokenize of forced generation, each asked twice, and the chat of a
    # choice (its failures retried as any request's), then never again.
    paths = [r["path"] for r in server.asked]
    assert paths[:4] == ["/v1/completions"] * 2 + ["/tokenize"] * 2
    assert set(paths[4:]) == {"/v1/chat/completions"}


def test_log_probabilities_that_fit_no_alignment_cannot_score():
    noise = probe_reply()
    for row in noise["choices"][0]["logprobs"]["top_logprobs"][1:]:
        row["nothing-like-it"] = 0.0
    with Scripted((200, noise)) as server:
        with pytest.raises(ScoringUnsupported, match="match neither"):
            client(server.url).score("a", ["b"])


class LlamaServerLike:
    """What llama.cpp's llama-server answers, in miniature: it refuses ``echo``; its
    ``/tokenize`` gives a token per character, but "bc" is one token (so a token can
    merge across the end of a prompt); its ``/completion`` generates exactly the tokens
    a grammar of token ids names, each with a log-probability that depends on the token
    and its position."""

    MERGED_BC = 1000

    def tokenize(self, text: str) -> list[int]:
        tokens, i = [], 0
        while i < len(text):
            if text.startswith("bc", i):
                tokens.append(self.MERGED_BC)
                i += 2
            else:
                tokens.append(ord(text[i]))
                i += 1
        return tokens

    @staticmethod
    def logprob(token: int, position: int) -> float:
        return -((token + position) % 7) / 4

    def complete(self, body: dict) -> tuple[int, dict]:
        forced = [int(t) for t in re.findall(r"<\[(\d+)\]>", body["grammar"])]
        start = len(body["prompt"])
        probs = [{"id": t, "logprob": self.logprob(t, start + j), "top_logprobs": []}
                 for j, t in enumerate(forced[: body["n_predict"]])]
        return 200, {"content": "", "tokens": forced, "completion_probabilities": probs}

    def routes(self) -> dict:
        return {"/v1/completions": (400, {"error": {"message": "Only no echo is supported"}}),
                "/tokenize": lambda body: (200, {"tokens": self.tokenize(body["content"])}),
                "/completion": self.complete}


def test_a_server_that_does_not_echo_scores_by_generating_each_candidate_exactly():
    like = LlamaServerLike()
    with Scripted((404, "{}"), routes=like.routes()) as server:
        llm = client(server.url)
        scores = llm.score("zab", ["c d", "x"])
        assert llm.scoring.startswith("forced generation")
    # Scored from token 2 on, as in process: "bc" merged across the end of the prompt.
    first = [like.MERGED_BC, ord(" "), ord("d")]
    second = [ord("b"), ord("x")]
    assert scores == pytest.approx([sum(like.logprob(t, 2 + j) for j, t in enumerate(first)),
                                    sum(like.logprob(t, 2 + j) for j, t in enumerate(second))])
    completions = [r["json"] for r in server.requests if r["path"] == "/completion"][1:]  # after the probe
    assert [c["prompt"] for c in completions] == [[ord("z"), ord("a")]] * 2
    assert completions[0]["grammar"] == "root ::= <[1000]> <[32]> <[100]>"
    for request in completions:
        assert request["n_probs"] == 1 and request["post_sampling_probs"] is False
        assert request["cache_prompt"] is True and request["temperature"] == 0.0


def test_tokens_every_candidate_shares_are_generated_once():
    like = LlamaServerLike()
    with Scripted((404, "{}"), routes=like.routes()) as server:
        scores = client(server.url).score("zab", ["xy", "xz"])
    x, y, z = ord("x"), ord("y"), ord("z")
    assert scores == pytest.approx([like.logprob(x, 3) + like.logprob(y, 4),
                                    like.logprob(x, 3) + like.logprob(z, 4)])
    completions = [r["json"] for r in server.requests if r["path"] == "/completion"][1:]
    assert [(len(c["prompt"]), c["grammar"]) for c in completions] == [
        (3, f"root ::= <[{x}]>"), (4, f"root ::= <[{y}]>"), (4, f"root ::= <[{z}]>")]


def test_a_server_that_does_not_generate_what_the_grammar_names_cannot_score():
    like = LlamaServerLike()
    routes = {**like.routes(),
              "/completion": lambda body: (200, {"tokens": [1, 2], "completion_probabilities": []})}
    with Scripted((404, "{}"), routes=routes) as server:
        llm = client(server.url)
        with pytest.raises(ScoringUnsupported, match="grammar of token ids"):
            llm.score("zab", ["x"])
        assert llm.scoring.startswith("not ranked: ")


def test_tinycode_s_own_server_scores_with_its_own_route():
    def own(body: dict) -> tuple[int, dict]:
        return 200, {"scores": [-1.0 * len(c) for c in body["continuations"]]}

    with Scripted((500, "{}"), routes={SCORE_PATH: own}) as server:
        llm = client(server.url)
        assert llm.score("x = (", ["1)\n", "1\n"]) == [-3.0, -2.0]
        assert llm.scoring.startswith("tinycode's own scoring")
    probe, asked = server.requests
    assert probe["path"] == asked["path"] == SCORE_PATH
    assert asked["json"] == {"model": "served-model", "prompt": "x = (", "continuations": ["1)\n", "1\n"]}


def chat_choice_reply(values: dict[str, float]) -> dict:
    """A one-token chat answer with its log-probabilities, in the shape OpenAI's chat API
    documents and Ollama's OpenAI routes return (``logprobs.content[0].top_logprobs``)."""
    ranked = sorted(values.items(), key=lambda item: -item[1])
    top = [{"token": token, "logprob": value, "bytes": list(token.encode())} for token, value in ranked]
    return {"choices": [{"message": {"role": "assistant", "content": ranked[0][0]}, "finish_reason": "length",
                         "logprobs": {"content": [{**top[0], "top_logprobs": top}]}}]}


def test_a_server_with_neither_echo_nor_grammar_ranks_by_the_model_s_choice():
    # Ollama: completions without echoed log-probabilities, no /tokenize, chat logprobs.
    routes = {"/v1/completions": (200, TEXT_REPLY), "/tokenize": (404, {"error": "not found"}),
              "/v1/chat/completions": (200, chat_choice_reply({"2": -0.3, "1": -1.5, " 3": -4.0}))}
    with Scripted((404, "{}"), routes=routes) as server:
        llm = client(server.url)
        assert llm.score("x = (", ["1)", "1", "1))", "(1)"]) == [-1.5, -0.3, -4.0, -5.0]
        assert llm.scoring.startswith("the model's choice among the numbered candidates")
        with pytest.raises(ScoringUnsupported, match="more than 9"):
            llm.score("x = (", ["1)"] * 10)
    asked = [r["json"] for r in server.requests if r["path"] == "/v1/chat/completions"][-1]
    assert asked["max_tokens"] == 1 and asked["logprobs"] is True and asked["top_logprobs"] == 20
    question = asked["messages"][-1]["content"]
    assert "x = (" in question and "1.\n```\n1)\n```" in question and "4.\n```\n(1)\n```" in question


@pytest.mark.parametrize("chat", ["choice", "no logprobs"])
def test_fix_says_once_when_files_are_not_ranked_by_likelihood(tmp_path, chat):
    # Ollama-like: no echo, no /tokenize; its chat answers with logprobs, or without.
    reply = chat_choice_reply({"2": -0.3, "1": -1.5}) if chat == "choice" else CHAT_REPLY
    routes = {"/v1/completions": (200, TEXT_REPLY), "/tokenize": (404, {"error": "not found"}),
              "/v1/models": (200, {"data": [{"id": "served-model"}]}), "/v1/chat/completions": (200, reply)}
    names = []
    for i, source in enumerate(RANKED_SNIPPETS[:3]):
        names.append(f"s{i}.py")
        (tmp_path / names[-1]).write_text(source)
    with Scripted((404, "{}"), routes=routes) as server:
        done = subprocess.run([sys.executable, "-m", "tinycode", "fix", "--backend", "openai", "--base-url",
                               server.url, "--output-format", "json", *names],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
    notes = [line for line in done.stderr.splitlines() if line.startswith("tinycode: note: candidate repairs")]
    ranked = {report["ranked_by"] for report in json.loads(done.stdout)}
    assert len(notes) == 1, done.stderr
    if chat == "choice":
        assert "ranked by the model's choice" in notes[0]
        assert ranked == {"the model's choice among the numbered candidates (not their likelihood)"}
    else:
        assert "cannot be ranked" in notes[0] and "rewrite chooses instead" in notes[0]
        assert all(r.startswith("not ranked: ") for r in ranked) and ranked


def test_a_client_may_be_told_which_ways_to_rank():
    like = LlamaServerLike()
    routes = {**like.routes(), "/v1/chat/completions": (200, chat_choice_reply({"1": -0.1}))}
    with Scripted((404, "{}"), routes=routes) as server:
        assert client(server.url, rankings=("choice",)).scoring.startswith("the model's choice")
        assert client(server.url, rankings=()).scoring.startswith("not ranked")
    with pytest.raises(ValueError, match="unknown ways to rank"):
        client("http://127.0.0.1:1", rankings=("psychic",))


def test_doctor_says_how_a_server_ranks_and_why(capsys):
    with Scripted((404, "{}"), routes={**LlamaServerLike().routes(),
                                       "/v1/models": (200, {"data": [{"id": "served-model"}]})}) as server:
        code, out, _ = run(capsys, "doctor", "--base-url", server.url)
    assert code == 0
    assert f"server: {server.url}; model: served-model" in out
    assert "ranking: forced generation" in out and "because" in out and "echo" in out
    with Scripted((500, {"error": {"message": "logits_all=False"}}),
                  routes={"/v1/models": (200, {"data": [{"id": "served-model"}]})}) as server:
        code, out, _ = run(capsys, "doctor", "--base-url", server.url)
    assert code == 0 and "ranking: not ranked: " in out and "rewrite instead" in out
    code, _, err = run(capsys, "doctor", "--base-url", f"http://127.0.0.1:{free_port()}")
    assert code == 2 and "cannot reach the model server" in err


def test_scoring_needs_no_request_for_nothing_or_for_chat():
    with Scripted((200, probe_reply())) as server:
        llm = client(server.url)
        assert llm.score("x", []) == []
        with pytest.raises(ScoringUnsupported, match="chat"):
            llm.score([{"role": "user", "content": "x"}], ["a"])
    assert server.requests == []


def test_an_unreachable_server_is_a_model_error_not_a_verdict():
    llm = client(f"http://127.0.0.1:{free_port()}", retries=0)
    for _ in range(2):  # not cached: the server may come up
        with pytest.raises(ModelError, match="cannot reach"):
            llm.score("x", ["a"])


# --- the real default model behind llama-cpp-python's server ----------------------------------

@pytest.mark.model
def test_real_server_chat_text_grammar_and_tokens(model_server, model_path):
    llm = load_llm(backend="openai", base_url=model_server)
    chat = llm.complete([{"role": "system", "content": "Answer with one word."},
                         {"role": "user", "content": "Which language defines functions with def?"}],
                        max_tokens=8)
    assert llm.model == "tinycode-test"
    assert "python" in chat.text.lower()
    assert chat.prompt_tokens > 10 and 0 < chat.completion_tokens <= 8
    text = llm.complete("def add(a, b):\n    return", max_tokens=12, stop=["\n"])
    assert "a + b" in text.text and "\n" not in text.text
    constrained = llm.complete("Is the sky green? Answer:", grammar='root ::= " yes" | " no"', max_tokens=4)
    assert constrained.text in (" yes", " no")

    import llama_cpp

    vocab = llama_cpp.Llama(model_path=str(model_path), vocab_only=True, verbose=False)
    snippet = "def area(width, height):\n    return width * height\n"
    try:
        assert llm.count_tokens(snippet) == len(vocab.tokenize(snippet.encode(), add_bos=False, special=True))
    finally:
        vocab.close()


# Broken snippets with two or more verified complete fixes each.
RANKED_SNIPPETS = [
    "def f(values):\n    total = sum(values\n    return total\n",
    "x = 2\nif x = 1:\n    print(x)\n",
    "names = ['a', 'b', 'c']\nprint(names\n",
    "print 'hello'\n",
    "items = [1, 2, 3\nprint(items)\n",
    "class A:\ndef f(self):\n    pass\n",
    "x = 3\nif x > 1:\nprint(x)\n",
    "result = max(1, 2))\n",
    "def g(a, b):\n    return (a + b\n",
    "total = 0\nfor n in [1, 2]:\ntotal += n\n",
]


@pytest.mark.model
def test_real_server_ranks_candidates_as_the_model_in_process_does(model_server, real_llm):
    from tinycode.engine.candidates import suggest
    from tinycode.engine.rank import rank

    # The server sorts the vocabulary per echoed token: slow, so asked to rank regardless;
    # and asked for the echo, not for tinycode's own scoring, which it also offers.
    remote = OpenAIHTTPLLM(model_server, read_timeout=600, max_scoring_seconds_per_token=None)
    remote._probe_own = lambda: False
    assert remote.scoring.startswith("echoed")
    for source in RANKED_SNIPPETS:
        complete = [c for c in suggest(source, "python", limit=3, work=10**5) if c.fixes_all]
        assert len(complete) >= 2, source
        mine = rank(real_llm, source, "python", complete)
        theirs = rank(remote, source, "python", complete)
        assert theirs[0][0] == mine[0][0], source
        # The same numbers for the two that decide the pick, not only the same order
        # (KV batching differs slightly). A candidate far behind may differ more: one
        # that starts with a lone space (" async def") tokenizes across the prefix in an
        # echo of the whole text (1.8 nats here, 23 nats behind the pick).
        best = [c for c, _ in mine[:2]]
        assert scores(theirs, best) == pytest.approx(scores(mine, best), abs=0.5), source


@pytest.mark.model
def test_tinycode_s_own_server_scores_as_the_model_in_process_does(model_server, real_llm):
    remote = OpenAIHTTPLLM(model_server, read_timeout=600)
    assert remote.scoring.startswith("tinycode's own scoring")
    for source in RANKED_SNIPPETS:
        windows = [source, source.replace("(", "[", 1), source + "pass\n", " " + source]
        assert remote.score("# python\n", windows) == pytest.approx(real_llm.score("# python\n", windows),
                                                                   abs=1e-3), source


def scores(ranked: list, candidates: list) -> list[float]:
    """The score ``ranked`` gives each of ``candidates``, in their order."""
    return [next(score for c, score in ranked if c == candidate) for candidate in candidates]


# --- the real default model behind llama.cpp's own llama-server -------------------------

@pytest.mark.model
def test_llama_server_ranks_candidates_as_the_model_in_process_does(llama_server, real_llm):
    from tinycode.engine.candidates import suggest
    from tinycode.engine.rank import rank

    remote = OpenAIHTTPLLM(llama_server, read_timeout=600)
    assert remote.scoring.startswith("forced generation")  # it does not echo the prompt
    for source in RANKED_SNIPPETS:
        complete = [c for c in suggest(source, "python", limit=3, work=10**5) if c.fixes_all]
        mine = rank(real_llm, source, "python", complete)
        theirs = rank(remote, source, "python", complete)
        assert theirs[0][0] == mine[0][0], source
        # A token at a time there, a batch here: the sums differ by a few hundredths of
        # a nat a token, not by what separates the candidates.
        best = [c for c, _ in mine[:2]]
        assert scores(theirs, best) == pytest.approx(scores(mine, best), abs=0.5), source


@pytest.mark.model
def test_fix_through_llama_server_writes_what_the_model_in_process_writes(llama_server, real_llm, tmp_path):
    from tinycode import repair

    sources = {f"s{i}.py": source for i, source in enumerate(RANKED_SNIPPETS[:5])}
    for name, source in sources.items():
        (tmp_path / name).write_text(source)
    # (what is compared is the repairs, not their time: a busy machine does not cut a file short)
    done = subprocess.run([sys.executable, "-m", "tinycode", "fix", "--backend", "openai", "--base-url",
                           llama_server, "--jobs", "2", "--timeout", "600", "--output-format", "json",
                           *sorted(sources)], cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    reports = {Path(r["path"]).name: r for r in json.loads(done.stdout)}
    ranked = 0
    for name, source in sources.items():
        mine = repair(source, "python", llm=real_llm)
        assert (tmp_path / name).read_text() == mine.source, name
        assert reports[name]["status"] == "fixed"
        if mine.ranked_by:  # ranked in process: ranked the same way there, and it says how
            ranked += 1
            assert reports[name]["ranked_by"].startswith("forced generation"), reports[name]
    assert ranked, "none of the files needed a ranking"


@pytest.mark.model
def test_llama_server_answers_a_choice_with_its_log_probabilities(llama_server):
    # The way Ollama is ranked, through a server that runs here and answers the same shape.
    remote = OpenAIHTTPLLM(llama_server, read_timeout=600, rankings=("choice",))
    assert remote.scoring.startswith("the model's choice")
    values = remote.score("def f(x):\n    return (x + 1\n", ["print(f(2))\n", "print f(2)\n", "f(2\n"])
    assert len(values) == 3 and all(math.isfinite(v) and v <= 0 for v in values)
    assert max(values) > -3.0  # one of the numbers is among its likely answers
