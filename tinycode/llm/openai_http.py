"""The ``openai`` backend: any OpenAI-compatible server (llama.cpp's ``llama-server``,
``python -m llama_cpp.server``, vLLM, Ollama) over plain HTTP with ``requests``.

Many tinycode clients can share one server this way, and rank candidates through it
(``score``): where it echoes the prompt's log-probabilities (vLLM, llama-cpp-python's
server), from the echo; where it does not (llama.cpp's ``llama-server``), by making it
generate exactly each candidate's tokens, under a grammar of those tokens, and reading
the log-probability of each. Transient failures (429,
5xx, dropped connections) are retried by tinycode's one HTTP policy (``tinycode.http``),
POST included; a read timeout is not retried; an unreachable server is a clear
ModelError. Redirects are not followed (the answer must come from the server the user
named), offline mode allows loopback servers only, and the API key never travels over
plain http off this machine (``tinycode.network``).
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from typing import Any, Sequence

import requests

from .. import http
from ..deadline import paused, remaining
from ..errors import ModelError
from ..network import is_offline, refusal
from .base import Completion, Prompt, ScoringUnsupported

MAX_RESPONSE_BYTES = 4_000_000  # a completion is a few kilobytes
# A text every model predicts well: the probe that finds how a server aligns the echoed
# log-probabilities with the tokens.
PROBE_TEXT = "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20"
# Alternatives asked for per token where the server's rows are shifted by one: the
# log-probability of the next token is read from them (see ``_token_logprobs``). With
# 100, tokens of broken code fell outside often enough to flip rankings; with 1000 the
# values equal a plain llama.cpp evaluation to 0.001 but for a few text collisions.
SHIFTED_TOP = 1000
# An echo with SHIFTED_TOP alternatives per token is about 25 kB a token.
MAX_SCORING_BYTES = 32_000_000
# A server slower than this at echoing log-probabilities is not asked to rank: a
# ranking echoes a few hundred tokens, and past this the rewrite is cheaper.
# (llama-cpp-python's server sorts the vocabulary in Python per token: ~0.5 s here.)
MAX_SCORING_SECONDS_PER_TOKEN = 0.05
ALIGNED, SHIFTED, FORCED, OWN, CHOICE = "aligned", "shifted", "forced", "own", "choice"
# The ways to rank, in the order a client tries them (ALIGNED and SHIFTED: "echo").
RANKINGS = ("own", "echo", "forced", "choice")
# A choice among more candidates than this would need numbers of two tokens.
MAX_CHOICES = 9
# Alternatives asked for with the chosen number (20 is the most Ollama and OpenAI give).
CHOICE_TOP = 20
# ``python -m tinycode.llm.server``'s route that scores with tinycode's own scorer (OWN).
SCORE_PATH = "/tinycode/score"
MAX_SCORED_CONTINUATIONS = 256  # per request to it (a ranking asks for far fewer)
# A forced token less likely than float32 can hold comes back as -3.4e38: counted as this
# (the log of float32's least positive value), as the in-process sum would nearly.
FLOOR_LOGPROB = -103.3

# One gate per server for the whole process: ``--jobs N`` gives each thread its own
# client, and they must share the server's slots.
_gates: dict[str, threading.BoundedSemaphore] = {}
_gates_lock = threading.Lock()


class ServerAnswered(ModelError):
    """The server answered, with an HTTP status other than 200."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class OpenAIHTTPLLM:
    """A model behind ``{base_url}/v1``. ``model`` is the server's name for it (None:
    the first one ``/v1/models`` lists); the API key, if any, is read from ``api_key_env``."""

    def __init__(self, base_url: str, *, model: str | None = None, api_key_env: str = "TINYCODE_API_KEY",
                 connect_timeout: float = 5.0, read_timeout: float = 120.0, retries: int = 3,
                 backoff: float = 0.5, offline: bool = False, slots: int | None = None,
                 max_scoring_seconds_per_token: float | None = MAX_SCORING_SECONDS_PER_TOKEN,
                 rankings: Sequence[str] = RANKINGS) -> None:
        key = os.environ.get(api_key_env)
        refused = refusal(base_url, offline=is_offline(offline), sends_secret=bool(key))
        if refused:
            raise ModelError(refused)
        root = base_url.rstrip("/")
        if root.endswith("/v1"):
            root = root[: -len("/v1")]
        self.root = root
        self.base_url = root + "/v1"
        self._model = model
        self.timeout = (connect_timeout, read_timeout)
        self.retries = retries
        self.backoff = backoff
        self.max_scoring_seconds_per_token = max_scoring_seconds_per_token
        unknown = set(rankings) - set(RANKINGS)
        if unknown:
            raise ValueError(f"unknown ways to rank: {sorted(unknown)} (known: {', '.join(RANKINGS)})")
        self.rankings = tuple(rankings)  # the ways to rank this client may try, in RANKINGS' order
        # Requests this process sends the server at once: None = no limit (one caller),
        # 0 = as many as the server says it serves (llama-server's /props), else 1.
        self.slots = slots
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._sessions: dict[tuple[int, float], requests.Session] = {}
        self._lock = threading.Lock()
        self._tokenizer: str | None = None  # which tokenize endpoint answered, "" = none
        # How echoed log-probabilities line up (ALIGNED, SHIFTED), "" when the server
        # cannot score; None until probed.
        self._scoring: str | None = None
        self._scoring_reason = ""

    @property
    def model(self) -> str:
        if self._model is None:
            self._model = self._first_model()
        return self._model

    @property
    def name(self) -> str:
        return f"openai:{self._model or 'default'}"

    def _first_model(self) -> str:
        data = self._request("GET", "/models")
        models = data.get("data") or []
        if models and isinstance(models[0], dict) and models[0].get("id"):
            return str(models[0]["id"])
        return "default"

    # -- HTTP ---------------------------------------------------------------------

    def _session(self, retries: int) -> requests.Session:
        """The session retrying ``retries`` times with the current backoff (one per
        policy in use, shared by the threads that share this client)."""
        key = (retries, self.backoff)
        with self._lock:
            session = self._sessions.get(key)
            if session is None:
                # POST too: a completion asked again is the same completion.
                session = self._sessions[key] = http.session(
                    retries=retries, backoff=self.backoff, methods={"GET", "POST"},
                    retry_read_timeouts=False)
            return session

    def _gate(self) -> threading.BoundedSemaphore | None:
        if self.slots is None:
            return None
        with _gates_lock:  # the first caller asks the server; the others wait for its answer
            if self.root not in _gates:
                _gates[self.root] = threading.BoundedSemaphore(self.slots or self._server_slots())
            return _gates[self.root]

    def _server_slots(self) -> int:
        """The parallel slots the server reports (llama-server's ``/props``), else 1: a
        server that does not say may answer one request at a time (llama-cpp-python's
        does), and a request queued there spends its file's time."""
        try:
            data = self._send("GET", "/props", root=True, retries=0)
        except ModelError:
            return 1
        slots = data.get("total_slots")
        return slots if isinstance(slots, int) and slots > 0 else 1

    def _request(self, method: str, path: str, payload: dict[str, Any] | None = None, *,
                 root: bool = False, retries: int | None = None,
                 max_bytes: int | None = None) -> dict[str, Any]:
        """One request, once a slot of the server is free: waiting for it does not
        count against the file's deadline."""
        gate = self._gate()
        if gate is None:
            return self._send(method, path, payload, root=root, retries=retries, max_bytes=max_bytes)
        with paused():
            gate.acquire()
        try:
            return self._send(method, path, payload, root=root, retries=retries, max_bytes=max_bytes)
        finally:
            gate.release()

    def _send(self, method: str, path: str, payload: dict[str, Any] | None = None, *,
              root: bool = False, retries: int | None = None,
              max_bytes: int | None = None) -> dict[str, Any]:
        url = f"{self.root if root else self.base_url}{path}"
        tries = (self.retries if retries is None else retries) + 1
        read_timeout = min(self.timeout[1], remaining())
        try:
            response = self._session(tries - 1).request(
                method, url, json=payload, headers=self._headers, stream=True, allow_redirects=False,
                timeout=http.timeout(*self.timeout, what=f"a request to {self.root}"))
        except requests.RequestException as exc:
            kind = http.failure(exc)
            if kind == "timeout":
                raise ModelError(f"the model server at {self.root} did not answer within "
                                 f"{read_timeout:g} s") from None
            if kind == "unreachable":
                raise ModelError(f"cannot reach the model server at {self.root} (is it running? see "
                                 f"'Using a model server' in the README) (after {tries} attempts)") from None
            raise ModelError(f"the model server at {self.root} dropped the connection "
                             f"(after {tries} attempts)") from None
        with response:
            try:
                body, over = http.read_body(response, max_bytes or MAX_RESPONSE_BYTES,
                                            f"the answer from {url} arrived")
            except requests.RequestException:
                raise ModelError(f"the model server at {self.root} dropped the connection "
                                 "while answering") from None
        status = response.status_code
        if over:
            raise ModelError(f"the model server at {url} sent more than "
                             f"{max_bytes or MAX_RESPONSE_BYTES:,} bytes; answer refused")
        if status in http.RETRY_STATUS:
            raise ServerAnswered(f"the model server at {self.root} answered HTTP {status} "
                                 f"({body[:200].decode('utf-8', 'replace')}) "
                                 f"(after {http.attempts(response)} attempts)", status)
        if 300 <= status < 400:
            raise ModelError(f"the model server at {self.root} redirected to "
                             f"{response.headers.get('Location', '?')!r}; not followed "
                             "(set --base-url to the server itself)")
        if status != 200:
            raise ServerAnswered(f"the model server answered HTTP {status} for {url}: "
                                 f"{body[:200].decode('utf-8', 'replace')}", status)
        try:
            data = json.loads(body)
        except ValueError:
            raise ModelError(f"the model server at {url} did not answer JSON") from None
        if not isinstance(data, dict):
            raise ModelError(f"the model server at {url} answered unexpected JSON")
        return data

    # -- the LLM protocol -------------------------------------------------------------

    def complete(self, prompt: Prompt, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = 0) -> Completion:
        payload: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens,
                                   "temperature": temperature}
        if stop:
            payload["stop"] = list(stop)
        if seed is not None:
            payload["seed"] = seed
        if grammar:
            payload["grammar"] = grammar  # llama.cpp servers honour it; others ignore it
        start = time.perf_counter()
        if isinstance(prompt, str):
            data = self._request("POST", "/completions", {**payload, "prompt": prompt})
        else:
            data = self._request("POST", "/chat/completions", {**payload, "messages": list(prompt)})
        try:
            choice = data["choices"][0]
            if isinstance(prompt, str):
                text = choice.get("text") or ""
            else:
                text = (choice.get("message") or {}).get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ModelError(f"the model server at {self.root} answered without choices") from None
        usage = data.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        return Completion(text=text, prompt_tokens=int(usage.get("prompt_tokens") or 0),
                          completion_tokens=int(usage.get("completion_tokens") or 0),
                          seconds=time.perf_counter() - start,
                          finish_reason=choice.get("finish_reason") or "stop",
                          cached_tokens=int(details.get("cached_tokens") or 0))

    def count_tokens(self, text: str) -> int:
        """Exact where the server can tokenize (llama-server ``/tokenize``, llama-cpp-python
        ``/extras/tokenize/count``), else an estimate of four characters a token."""
        if not text:
            return 0
        if self._tokenizer is None:
            self._tokenizer = ""
            for endpoint in ("/tokenize", "/extras/tokenize/count"):
                try:
                    count = self._count_with(endpoint, text)
                except ModelError:
                    continue
                if count is not None:
                    self._tokenizer = endpoint
                    return count
        if self._tokenizer:
            try:
                count = self._count_with(self._tokenizer, text)
            except ModelError:
                count = None
            if count is not None:
                return count
        return max(1, len(text) // 4)

    def _count_with(self, endpoint: str, text: str) -> int | None:
        if endpoint == "/tokenize":
            data = self._request("POST", endpoint, {"content": text}, root=True, retries=0)
            tokens = data.get("tokens")
            return len(tokens) if isinstance(tokens, list) else None
        data = self._request("POST", endpoint, {"input": text}, root=True, retries=0)
        count = data.get("count")
        return int(count) if isinstance(count, int) else None

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        """Sum of log-probabilities of each continuation's tokens after ``prompt``, from
        ``/v1/completions`` with ``echo`` and ``logprobs``, or else by forced generation
        (``_score_forced``); one request per continuation.

        Scored like the in-process backend: a token merged across the end of the prompt
        counts as the continuation's, and every continuation is scored from the same
        token on. Raises ScoringUnsupported, at the cost of one probe per client, when
        the server can do neither."""
        if not continuations:
            return []
        if not isinstance(prompt, str):
            raise ScoringUnsupported("chat prompts are not scored through a server (the chat "
                                     "template is applied on the server side)")
        mode = self._scoring_mode()
        if mode == OWN:
            return self._score_own(prompt, continuations)
        if mode == FORCED:
            return self._score_forced(prompt, continuations)
        if mode == CHOICE:
            return self._score_choice(prompt, continuations)
        top = SHIFTED_TOP if mode == SHIFTED else 1
        try:
            echoes = [_echoed(self._echo(prompt + c, top), prompt + c) for c in continuations]
        except _Unusable as exc:  # it did echo for the probe
            raise ModelError(f"the model server at {self.root} answered a scoring request "
                             f"without the prompt's log-probabilities ({exc})") from None
        # First scored token: the first one that does not lie wholly inside the prompt,
        # in the sequence where that comes earliest; token 0 has nothing to predict it.
        begin = max(1, min(_inside(echo, len(prompt)) for echo in echoes))
        totals = []
        for echo, continuation in zip(echoes, continuations):
            values = _token_logprobs(echo, mode, top)
            end = _inside(echo, len(prompt) + len(continuation))  # generated tokens excluded
            totals.append(float(sum(values[begin:end])))
        return totals

    def _echo(self, text: str, top: int) -> dict[str, Any]:
        payload = {"model": self.model, "prompt": text, "echo": True, "logprobs": top,
                   # 0 means "no limit" to llama-cpp-python: one token is the least
                   "max_tokens": 1, "temperature": 0.0}
        return self._request("POST", "/completions", payload,
                             max_bytes=MAX_SCORING_BYTES if top > 1 else None)

    def _scoring_mode(self) -> str:
        """ALIGNED or SHIFTED, found once per client with a probe; ScoringUnsupported
        (cached) when the server does not echo usable prompt log-probabilities.

        ALIGNED: ``token_logprobs[i]`` is log p(token i | tokens before it), as OpenAI
        and vLLM return them. SHIFTED: row i holds the distribution for token i+1, as
        llama-cpp-python 0.3 returns them for models without a BOS token (Qwen)."""
        if self._scoring is None:
            self._scoring, self._scoring_reason = self._probe()
        if not self._scoring:
            raise ScoringUnsupported(self._scoring_reason)
        return self._scoring

    def _probe(self) -> tuple[str, str]:
        """How this server can score: with tinycode's own route, from echoed prompt
        log-probabilities, by forced generation, by a choice among the candidates, or
        not (with the reasons), trying only ``self.rankings``."""
        reasons = []
        if "own" in self.rankings and self._probe_own():
            return OWN, ""
        if "echo" in self.rankings:
            mode, reason, echoes = self._probe_echo()
            if mode or echoes:  # one that echoes too slowly, or oddly, would not force better
                return mode, reason
            reasons.append(reason)
        if "forced" in self.rankings:
            forced, why_not = self._probe_forced()
            if forced:
                return FORCED, "; ".join(reasons)  # why the echo could not be used
            reasons.append(why_not)
        if "choice" in self.rankings:
            chooses, why_not = self._probe_choice()
            if chooses:
                return CHOICE, "; ".join(reasons)
            reasons.append(why_not)
        return "", "; ".join(reasons) or "no way to rank was allowed"

    @property
    def scoring_reason(self) -> str:
        """Why the server ranks the way ``scoring`` says (why not from an echo), "" when
        it echoes."""
        try:
            self._scoring_mode()
        except ScoringUnsupported:
            pass
        return self._scoring_reason

    @property
    def scoring(self) -> str:
        """How this server ranks candidates, in a few words, or why it cannot (probed
        once per client)."""
        try:
            mode = self._scoring_mode()
        except ScoringUnsupported as exc:
            return f"not ranked: {exc}"
        return {OWN: "tinycode's own scoring on the server (as in process)",
                ALIGNED: "echoed prompt log-probabilities",
                SHIFTED: "echoed prompt log-probabilities (shifted by one token)",
                FORCED: "forced generation of each candidate's tokens (a grammar of token ids)",
                CHOICE: "the model's choice among the numbered candidates (not their likelihood)"}[mode]

    def _probe_echo(self) -> tuple[str, str, bool]:
        """ALIGNED, SHIFTED or "" with the reason, and whether the server echoed at all."""
        payload = {"model": self.model, "prompt": PROBE_TEXT, "echo": True, "logprobs": 1,
                   "max_tokens": 1, "temperature": 0.0}
        started = time.perf_counter()
        try:
            # A server without prompt log-probabilities may answer 500 (llama-cpp-python
            # without logits_all): retried once, then taken as its answer.
            data = self._request("POST", "/completions", payload, retries=min(1, self.retries))
        except ServerAnswered as exc:
            return "", f"the model server cannot return prompt log-probabilities ({exc})", False
        try:
            echo = _echoed(data, PROBE_TEXT)
        except _Unusable as exc:
            return "", f"the model server at {self.root} does not echo prompt log-probabilities ({exc})", False
        tokens, tops = echo["tokens"], echo["top_logprobs"]
        end = _inside(echo, len(PROBE_TEXT))
        per_token = (time.perf_counter() - started) / max(1, len(tokens))
        if self.max_scoring_seconds_per_token is not None and per_token > self.max_scoring_seconds_per_token:
            return "", (f"the model server at {self.root} takes {per_token:.2f} s a token to echo "
                        "log-probabilities: too slow to rank, the rewrite is cheaper"), True
        aligned = sum(_best(tops[j]) == tokens[j] for j in range(1, end))
        shifted = sum(_best(tops[j - 1]) == tokens[j] for j in range(1, end))
        if aligned > shifted and aligned >= (end - 1) / 2:
            return ALIGNED, "", True
        if shifted > aligned and shifted >= (end - 1) / 2:
            return SHIFTED, "", True
        return "", (f"the model server at {self.root} echoes log-probabilities that match neither "
                    f"the tokens nor the next tokens ({aligned} and {shifted} of {end - 1} on a probe)"), True

    # -- tinycode's own scoring (python -m tinycode.llm.server) ---------------------

    def _own(self, prompt: str, continuations: Sequence[str], *, retries: int | None = None) -> list[float]:
        data = self._request("POST", SCORE_PATH, {"model": self.model, "prompt": prompt,
                                                  "continuations": list(continuations)},
                             root=True, retries=retries)
        scores = data.get("scores")
        values = [_number(v) for v in scores] if isinstance(scores, list) else []
        if len(values) != len(continuations) or any(v is None for v in values):
            raise _Unusable(f"{SCORE_PATH} answered without a score for each continuation")
        return [float(v) for v in values if v is not None]

    def _probe_own(self) -> bool:
        """Whether the server is tinycode's own, scoring as the model in process does."""
        try:
            return len(self._own(PROBE_TEXT[:8], [PROBE_TEXT[8:]], retries=0)) == 1
        except (ServerAnswered, _Unusable):
            return False

    def _score_own(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        scores: list[float] = []
        try:
            for start in range(0, len(continuations), MAX_SCORED_CONTINUATIONS):
                scores += self._own(prompt, continuations[start:start + MAX_SCORED_CONTINUATIONS])
        except _Unusable as exc:  # it scored the probe
            raise ModelError(f"the model server at {self.root} answered a scoring request "
                             f"in an unexpected way ({exc})") from None
        return scores

    # -- forced generation (llama.cpp's llama-server) -------------------------------

    def _tokens(self, text: str, *, retries: int | None = None) -> list[int]:
        """``text`` in the model's tokens, as the in-process backend makes them (BOS
        only if the model wants one), from llama-server's ``/tokenize``."""
        data = self._request("POST", "/tokenize", {"content": text, "add_special": True,
                                                   "parse_special": True}, root=True, retries=retries)
        tokens = data.get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(t, int) and not isinstance(t, bool)
                                                   for t in tokens):
            raise _Unusable("/tokenize answered without a list of token ids")
        return tokens

    def _forced(self, prefix: list[int], forced: list[int]) -> list[float]:
        """log p(token | the tokens before it) for each of ``forced`` after ``prefix``:
        llama-server's ``/completion`` generates exactly those tokens (a grammar of their
        ids, greedy) and reports each one's probability before sampling. The prefix is
        kept in the server's cache for the next candidate."""
        grammar = "root ::= " + " ".join(f"<[{token}]>" for token in forced)
        payload = {"prompt": prefix, "grammar": grammar, "n_predict": len(forced), "n_probs": 1,
                   "post_sampling_probs": False, "temperature": 0.0, "cache_prompt": True,
                   "return_tokens": True, "stream": False}
        data = self._request("POST", "/completion", payload, root=True)
        probs = data.get("completion_probabilities")
        if data.get("tokens") != forced or not isinstance(probs, list) or len(probs) != len(forced):
            raise _Unusable("the grammar of token ids did not make it generate exactly those tokens")
        values = []
        for entry in probs:
            value = _number(entry.get("logprob")) if isinstance(entry, dict) else None
            if value is None:
                raise _Unusable("a generated token came without its log-probability")
            values.append(max(value, FLOOR_LOGPROB))
        return values

    def _probe_forced(self) -> tuple[bool, str]:
        """Whether the server generates exactly the tokens a grammar of their ids names
        and reports their log-probabilities, which a model predicts well on the probe."""
        try:
            # A server without it answers 404, or 500 (llama-cpp-python): asked again once.
            tokens = self._tokens(PROBE_TEXT, retries=min(1, self.retries))
            if len(tokens) < 8:
                return False, "its /tokenize split the probe into too few tokens"
            values = self._forced(tokens[:4], tokens[4:])
        except (ServerAnswered, _Unusable) as exc:
            return False, f"nor does it generate under a grammar of token ids ({exc})"
        if sum(values) / len(values) < -2.0:
            return False, ("its log-probabilities of forced tokens are not the model's "
                           f"(a mean of {sum(values) / len(values):.1f} on a counting probe)")
        return True, ""

    def _score_forced(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        """As the in-process backend scores: the prompt and each continuation tokenized
        together, every continuation scored from the same token on (a token merged
        across the end of the prompt counts as the continuation's)."""
        try:
            prompt_tokens = self._tokens(prompt)
            sequences = [self._tokens(prompt + c) for c in continuations]
            begin = max(1, min(_common_prefix_length(prompt_tokens, s) for s in sequences))
            # The tokens every sequence shares are generated once (their values are the
            # same in each), then each sequence's own from there: one after the other,
            # so a score does not depend on what else the server's step batched with it.
            shared = max(begin, min(_common_prefix_length(sequences[0], s) for s in sequences))
            common = math.fsum(self._forced(sequences[0][:begin], sequences[0][begin:shared])) \
                if shared > begin else 0.0
            return [common + (math.fsum(self._forced(s[:shared], s[shared:])) if len(s) > shared else 0.0)
                    for s in sequences]
        except _Unusable as exc:  # it did generate exactly for the probe
            raise ModelError(f"the model server at {self.root} answered a scoring request "
                             f"in an unexpected way ({exc})") from None

    # -- a choice among the candidates (servers with neither: Ollama) ----------------

    def _choose(self, messages: list[dict[str, str]]) -> dict[str, float]:
        """The log-probabilities of the first token the model answers ``messages`` with,
        and of its alternatives, by their text (stripped), from the chat route's logprobs."""
        payload = {"model": self.model, "messages": messages, "max_tokens": 1, "temperature": 0.0,
                   "logprobs": True, "top_logprobs": CHOICE_TOP, "seed": 0}
        data = self._request("POST", "/chat/completions", payload)
        try:
            first = data["choices"][0]["logprobs"]["content"][0]
            rows = [first, *first.get("top_logprobs", [])]
        except (KeyError, IndexError, TypeError, AttributeError):
            raise _Unusable("the chat answer came without the log-probabilities of its token") from None
        values: dict[str, float] = {}
        for row in rows:
            value = _number(row.get("logprob")) if isinstance(row, dict) else None
            if value is not None and isinstance(row.get("token"), str):
                key = row["token"].strip()
                values[key] = max(values.get(key, value), value)
        if not values:
            raise _Unusable("the chat answer's log-probabilities name no token")
        return values

    def _probe_choice(self) -> tuple[bool, str]:
        """Whether the chat route returns the log-probabilities of an answer's token and
        its alternatives (OpenAI's ``logprobs``/``top_logprobs``)."""
        try:
            self._choose(_choice_messages("x = (", ["1)", "1"]))
        except (ServerAnswered, _Unusable) as exc:
            return False, f"nor does it give the log-probabilities of a chat answer ({exc})"
        return True, ""

    def _score_choice(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        """Each continuation's score is the log-probability that the model, shown them all
        numbered, answers with its number: a choice, not a likelihood of the code."""
        if len(continuations) > MAX_CHOICES:
            raise ScoringUnsupported(f"a choice among more than {MAX_CHOICES} candidates")
        try:
            values = self._choose(_choice_messages(prompt, continuations))
        except _Unusable as exc:
            raise ModelError(f"the model server at {self.root} answered a choice "
                             f"in an unexpected way ({exc})") from None
        floor = min(values.values()) - 1.0  # below every alternative it listed
        return [values.get(str(number), floor) for number in range(1, len(continuations) + 1)]

    def close(self) -> None:
        with self._lock:
            for session in self._sessions.values():
                session.close()
            self._sessions.clear()


class _Unusable(Exception):
    """An answer without what scoring needs (the prompt's echoed log-probabilities, the
    forced tokens, a score for each continuation...)."""


def _echoed(data: dict[str, Any], text: str) -> dict[str, list]:
    """The echoed tokens of ``text`` from a completions answer: ``tokens``,
    ``text_offset``, ``token_logprobs`` and ``top_logprobs``, checked for shape."""
    try:
        logprobs = data["choices"][0]["logprobs"]
        echo = {key: list(logprobs[key]) for key in ("tokens", "text_offset", "token_logprobs")}
        echo["top_logprobs"] = list(logprobs.get("top_logprobs") or [None] * len(echo["tokens"]))
    except (KeyError, IndexError, TypeError, AttributeError):
        raise _Unusable("no logprobs with tokens, text_offset and token_logprobs") from None
    count = len(echo["tokens"])
    if any(len(values) != count for values in echo.values()):
        raise _Unusable("logprobs lists of different lengths")
    offsets = echo["text_offset"]
    if not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets) \
            or any(b < a for a, b in zip(offsets, offsets[1:])):
        raise _Unusable("text_offset is not a rising list of integers")
    # The prompt's own tokens must be there, not only the generated one.
    if not offsets or offsets[0] != 0 or _inside(echo, len(text)) < 2:
        raise _Unusable("the prompt's tokens were not echoed")
    return echo


def _inside(echo: dict[str, list], limit: int) -> int:
    """How many leading tokens end at or before character ``limit`` of the text."""
    offsets = echo["text_offset"]
    count = 0
    for j, token in enumerate(echo["tokens"]):
        end = offsets[j + 1] if j + 1 < len(offsets) else offsets[j] + len(str(token))
        if end > limit:
            break
        count += 1
    return count


def _choice_messages(prompt: str, continuations: Sequence[str]) -> list[dict[str, str]]:
    """A chat asking which numbered continuation of ``prompt`` is right, answered with a number."""
    versions = "\n".join(f"{number}.\n```\n{text}\n```" for number, text in enumerate(continuations, 1))
    return [{"role": "system", "content": "You pick the correct version of a piece of code. "
                                          "Answer with the version's number only."},
            {"role": "user", "content": f"The code so far:\n```\n{prompt}\n```\nWhat comes next, "
                                        f"in {len(continuations)} versions:\n{versions}\n"
                                        "Which version is correct code? Answer with its number."}]


def _common_prefix_length(first: Sequence[int], second: Sequence[int]) -> int:
    length = 0
    for a, b in zip(first, second):
        if a != b:
            break
        length += 1
    return length


def _number(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _best(top: Any) -> Any:
    """The token a ``top_logprobs`` entry ranks first (None for an empty or null entry)."""
    if not isinstance(top, dict):
        return None
    ranked = [(v, k) for k, v in top.items() if _number(v) is not None]
    return max(ranked)[1] if ranked else None


def _token_logprobs(echo: dict[str, list], mode: str, top: int) -> list[float]:
    """log p(token j | tokens before j) for each echoed token (0.0 for token 0).

    SHIFTED: the value sits in row j-1's ``top`` alternatives under token j's text
    (``_shifted_value``). Row 0 is sent as null, so token 1 counts 0.0 there: only a
    prompt of at most one token (ranking's starts with a comment naming the language)
    is scored without it."""
    tokens, values = echo["tokens"], [0.0]
    for j in range(1, len(tokens)):
        if mode == ALIGNED:
            value = _number(echo["token_logprobs"][j])
            if value is None:
                raise ModelError(f"the model server sent no log-probability for token {j} ({tokens[j]!r})")
        else:
            row = echo["top_logprobs"][j - 1]
            value = _shifted_value(row if isinstance(row, dict) else {}, str(tokens[j]), top)
        values.append(value)
    return values


def _shifted_value(row: dict[str, Any], token: str, top: int) -> float:
    """``token``'s log-probability from a row of alternatives keyed by text, best first.

    llama-cpp-python builds the row as a dict in rank order, so a later, likelier-to-be
    junk token with the same text (a partial UTF-8 byte decodes to "") overwrites the
    value but keeps the place: a value below the next one's was overwritten. The true
    one lies between its neighbours; the probability the others leave places it. A
    token outside the row takes the least value there (an upper bound)."""
    ranked = [(key, v) for key, v in ((k, _number(v)) for k, v in row.items()) if v is not None][:top]
    keys = [key for key, _ in ranked]
    values = [v for _, v in ranked]
    if token not in keys:
        extra = _number(row.get(token))  # the entry added for the row's own token
        return extra if extra is not None else (values[-1] if values else 0.0)
    place = keys.index(token)
    value = values[place]
    following = values[place + 1] if place + 1 < len(values) else None
    if following is None or value >= following:
        return value
    upper = max(values[place - 1], following) if place else 0.0
    others = math.fsum(math.exp(v) for i, v in enumerate(values) if i != place)
    left = 1.0 - others
    estimate = math.log(left) if left > 0 else following
    return min(max(estimate, following), upper)
