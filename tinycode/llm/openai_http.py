"""The ``openai`` backend: any OpenAI-compatible server (llama.cpp's ``llama-server``,
``python -m llama_cpp.server``, vLLM, Ollama) over plain HTTP with ``requests``.

Many tinycode clients can share one server this way. Transient failures (429, 5xx,
dropped connections) are retried with backoff; an unreachable server is a clear
ModelError.
"""

from __future__ import annotations

import os
import time
from typing import Any, Sequence

from ..errors import ModelError
from .base import Completion, Prompt, ScoringUnsupported

RETRY_STATUS = {429, 500, 502, 503, 504}


class OpenAIHTTPLLM:
    def __init__(self, base_url: str, *, model: str | None = None, api_key_env: str = "TINYCODE_API_KEY",
                 connect_timeout: float = 5.0, read_timeout: float = 120.0, retries: int = 3,
                 backoff: float = 0.5) -> None:
        import requests

        self.base_url = base_url.rstrip("/")
        if not self.base_url.endswith("/v1"):
            self.base_url += "/v1"
        self.model = model or "default"
        self.name = f"openai:{self.model}"
        self.timeout = (connect_timeout, read_timeout)
        self.retries = retries
        self.backoff = backoff
        self._session = requests.Session()
        key = os.environ.get(api_key_env)
        if key:
            self._session.headers["Authorization"] = f"Bearer {key}"

    def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        import requests

        url = f"{self.base_url}{path}"
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * (2 ** (attempt - 1)))
            try:
                response = self._session.post(url, json=payload, timeout=self.timeout)
            except requests.ConnectionError:
                last = f"cannot reach the model server at {self.base_url}"
                continue
            except requests.Timeout:
                last = f"the model server at {self.base_url} timed out"
                continue
            if response.status_code in RETRY_STATUS:
                last = f"the model server answered HTTP {response.status_code}"
                continue
            if response.status_code != 200:
                raise ModelError(f"the model server answered HTTP {response.status_code}: "
                                 f"{response.text[:200]}")
            try:
                return response.json()
            except ValueError:
                raise ModelError(f"the model server at {url} did not answer JSON") from None
        raise ModelError(f"{last} (after {self.retries + 1} attempts)")

    def complete(self, prompt: Prompt, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = 0) -> Completion:
        payload: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens,
                                   "temperature": temperature, "stop": list(stop) or None}
        if seed is not None:
            payload["seed"] = seed
        if grammar:
            payload["grammar"] = grammar  # llama.cpp servers honour it; others ignore it
        start = time.perf_counter()
        if isinstance(prompt, str):
            data = self._post("/completions", {**payload, "prompt": prompt})
            text = data["choices"][0].get("text", "")
        else:
            data = self._post("/chat/completions", {**payload, "messages": list(prompt)})
            text = (data["choices"][0].get("message") or {}).get("content") or ""
        usage = data.get("usage") or {}
        return Completion(text=text, prompt_tokens=int(usage.get("prompt_tokens", 0)),
                          completion_tokens=int(usage.get("completion_tokens", 0)),
                          seconds=time.perf_counter() - start,
                          finish_reason=data["choices"][0].get("finish_reason") or "stop")

    def count_tokens(self, text: str) -> int:
        """An estimate (about four characters a token): servers differ in how to ask."""
        return max(1, len(text) // 4) if text else 0

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        raise ScoringUnsupported("the openai backend does not return prompt log-probabilities")

    def close(self) -> None:
        self._session.close()
