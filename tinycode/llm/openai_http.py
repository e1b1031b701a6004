"""The ``openai`` backend: any OpenAI-compatible server (llama.cpp's ``llama-server``,
``python -m llama_cpp.server``, vLLM, Ollama) over plain HTTP with ``requests``.

Many tinycode clients can share one server this way. Transient failures (429, 5xx,
dropped connections) are retried with backoff; an unreachable server is a clear
ModelError. Redirects are not followed (the answer must come from the server the user
named), offline mode allows loopback servers only, and the API key never travels over
plain http off this machine (``tinycode.network``).
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Sequence

from ..deadline import ensure_time_left, remaining
from ..errors import ModelError
from ..network import refusal
from .base import Completion, Prompt, ScoringUnsupported

RETRY_STATUS = {429, 500, 502, 503, 504}
MAX_RETRY_AFTER = 10.0
MAX_RESPONSE_BYTES = 4_000_000  # a completion is a few kilobytes


class OpenAIHTTPLLM:
    """A model behind ``{base_url}/v1``. ``model`` is the server's name for it (None:
    the first one ``/v1/models`` lists); the API key, if any, is read from ``api_key_env``."""

    def __init__(self, base_url: str, *, model: str | None = None, api_key_env: str = "TINYCODE_API_KEY",
                 connect_timeout: float = 5.0, read_timeout: float = 120.0, retries: int = 3,
                 backoff: float = 0.5, offline: bool = False) -> None:
        import requests

        key = os.environ.get(api_key_env)
        refused = refusal(base_url, offline=offline, sends_secret=bool(key))
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
        self._session = requests.Session()
        if key:
            self._session.headers["Authorization"] = f"Bearer {key}"
        self._tokenizer: str | None = None  # which tokenize endpoint answered, "" = none

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

    def _request(self, method: str, path: str, payload: dict[str, Any] | None = None, *,
                 root: bool = False, retries: int | None = None) -> dict[str, Any]:
        import requests

        url = f"{self.root if root else self.base_url}{path}"
        attempts = (self.retries if retries is None else retries) + 1
        last = ""
        for attempt in range(attempts):
            if attempt:
                time.sleep(min(self.backoff * (2 ** (attempt - 1)), remaining()))
            ensure_time_left(f"a request to {self.root}")
            left = remaining()
            timeout = (min(self.timeout[0], left), min(self.timeout[1], left))
            try:
                response = self._session.request(method, url, json=payload, timeout=timeout,
                                                 stream=True, allow_redirects=False)
                body = _read_capped(response, url)
            except requests.ConnectionError:
                last = (f"cannot reach the model server at {self.root} "
                        "(is it running? see 'Using a model server' in the README)")
                continue
            except requests.Timeout:
                raise ModelError(f"the model server at {self.root} did not answer within "
                                 f"{timeout[1]:g} s") from None
            except requests.RequestException:  # the connection dropped mid-answer
                last = f"the model server at {self.root} dropped the connection"
                continue
            if response.status_code in RETRY_STATUS:
                last = f"the model server at {self.root} answered HTTP {response.status_code}"
                wait = _retry_after(response)
                if wait and attempt + 1 < attempts:
                    time.sleep(min(wait, remaining()))
                continue
            if 300 <= response.status_code < 400:
                raise ModelError(f"the model server at {self.root} redirected to "
                                 f"{response.headers.get('Location', '?')!r}; not followed "
                                 "(set --base-url to the server itself)")
            if response.status_code != 200:
                raise ModelError(f"the model server answered HTTP {response.status_code} for {url}: "
                                 f"{body[:200].decode('utf-8', 'replace')}")
            try:
                data = json.loads(body)
            except ValueError:
                raise ModelError(f"the model server at {url} did not answer JSON") from None
            if not isinstance(data, dict):
                raise ModelError(f"the model server at {url} answered unexpected JSON")
            return data
        raise ModelError(f"{last} (after {attempts} attempts)")

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
        raise ScoringUnsupported("the openai backend does not return prompt log-probabilities")

    def close(self) -> None:
        self._session.close()


def _retry_after(response: Any) -> float:
    value = response.headers.get("Retry-After", "")
    try:
        return min(MAX_RETRY_AFTER, max(0.0, float(value)))
    except ValueError:
        return 0.0


def _read_capped(response: Any, url: str) -> bytes:
    """The response body, refused past MAX_RESPONSE_BYTES (a broken or hostile server
    must not fill the memory)."""
    chunks, size = [], 0
    for chunk in response.iter_content(65536):
        ensure_time_left(f"the answer from {url} arrived")
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            response.close()
            raise ModelError(f"the model server at {url} sent more than {MAX_RESPONSE_BYTES:,} bytes; "
                             "answer refused")
        chunks.append(chunk)
    return b"".join(chunks)
