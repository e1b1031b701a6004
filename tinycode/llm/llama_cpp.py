"""The default backend: llama.cpp in this process, through llama-cpp-python.

llama-cpp-python keeps the KV cache of the longest common token prefix between
consecutive calls, so callers put the stable part of a prompt first. ``score`` uses
the same cache: the shared prefix is evaluated once, each continuation after it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Sequence

from ..errors import ModelError
from .base import Completion, Prompt

# Logit rows are n_vocab floats (about 0.6 MB for Qwen); llama.cpp keeps one per
# requested output token, so scoring asks for them a few dozen at a time.
_SCORE_CHUNK = 32


def physical_cores() -> int:
    """Cores this process may use, counting each physical core once where we can tell."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        usable = os.cpu_count() or 1
    siblings = _threads_per_core()
    return max(1, usable // siblings if usable >= siblings else usable)


def _threads_per_core() -> int:
    try:
        with open("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list") as handle:
            text = handle.read().strip()
    except OSError:
        return 1
    count = 0
    for part in text.split(","):
        low, _, high = part.partition("-")
        count += int(high) - int(low) + 1 if high else 1
    return max(1, count)


class LlamaCppLLM:
    """A GGUF model loaded in process. ``gpu_layers=-1`` offloads every layer when
    llama.cpp was built with CUDA or Metal."""

    def __init__(self, model_path: str | Path, *, n_ctx: int = 4096, threads: int | None = None,
                 gpu_layers: int = 0, seed: int = 0) -> None:
        try:
            from llama_cpp import Llama
        except ImportError as exc:  # pragma: no cover - llama-cpp-python is a dependency
            raise ModelError("llama-cpp-python is not installed: pip install llama-cpp-python") from exc
        self.name = Path(model_path).name
        self.path = str(model_path)
        start = time.perf_counter()
        try:
            self._llm = Llama(model_path=self.path, n_ctx=n_ctx, n_threads=threads or physical_cores(),
                              n_gpu_layers=gpu_layers, seed=seed, verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"llama.cpp could not load {self.path} ({exc}): the file is damaged, "
                             "truncated or holds an architecture this llama.cpp does not know") from None
        self.load_seconds = time.perf_counter() - start
        self.n_ctx = self._llm.n_ctx()
        self._grammars: dict[str, Any] = {}
        self._formatter: Any = None
        self.closed = False

    # -- generation ---------------------------------------------------------------

    def complete(self, prompt: Prompt, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = 0) -> Completion:
        self._require_open()
        options: dict[str, Any] = dict(stop=list(stop) or None, max_tokens=max_tokens,
                                       temperature=temperature, seed=seed,
                                       grammar=self._grammar(grammar) if grammar else None)
        if temperature == 0.0:
            options["top_k"] = 1
        cached = self._cached_prefix(prompt)
        start = time.perf_counter()
        try:
            if isinstance(prompt, str):
                response = self._llm.create_completion(prompt, **options)
                text = response["choices"][0]["text"]
            else:
                response = self._llm.create_chat_completion(list(prompt), **options)
                text = response["choices"][0]["message"]["content"] or ""
        except (ValueError, RuntimeError) as exc:  # e.g. the prompt exceeds the context window
            raise ModelError(f"model call failed: {exc}") from None
        usage = response.get("usage", {})
        return Completion(text=text, prompt_tokens=int(usage.get("prompt_tokens", 0)),
                          completion_tokens=int(usage.get("completion_tokens", 0)),
                          seconds=time.perf_counter() - start,
                          finish_reason=response["choices"][0].get("finish_reason") or "stop",
                          cached_tokens=cached)

    def _require_open(self) -> None:
        if self.closed:
            raise ModelError(f"the model {self.name} was closed")

    def _grammar(self, text: str) -> Any:
        if text not in self._grammars:
            from llama_cpp import LlamaGrammar

            import llama_cpp

            # llama.cpp parses the grammar only when sampling starts and crashes on one
            # it cannot parse, so parse it here first.
            sampler = llama_cpp.llama_sampler_init_grammar(self._llm._model.vocab, text.encode("utf-8"),
                                                           b"root")
            if not sampler:
                raise ModelError("invalid grammar: llama.cpp could not parse it (GBNF with a root rule)")
            llama_cpp.llama_sampler_free(sampler)
            self._grammars[text] = LlamaGrammar.from_string(text, verbose=False)
        return self._grammars[text]

    def _cached_prefix(self, prompt: Prompt) -> int:
        """Prompt tokens llama-cpp-python will take from the KV cache (it always
        re-evaluates the last prompt token)."""
        llm = self._llm
        if llm.n_tokens == 0:
            return 0
        text = prompt if isinstance(prompt, str) else self.apply_chat_template(prompt)
        tokens = self._tokenize(text)
        return _common_prefix_length([tokens[:-1], llm.input_ids[: llm.n_tokens].tolist()])

    def _tokenize(self, text: str) -> list[int]:
        """Tokens as llama-cpp-python's own calls make them (BOS only if the model wants one)."""
        return self._llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def apply_chat_template(self, messages: Sequence[dict[str, str]]) -> str:
        """The raw prompt text the model sees for ``messages``, generation prompt included."""
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            template = self._llm.metadata.get("tokenizer.chat_template")
            if not template:
                return "\n".join(m["content"] for m in messages)
            vocab = self._llm._model
            self._formatter = Jinja2ChatFormatter(
                template, eos_token=vocab.token_get_text(self._llm.token_eos()),
                bos_token=vocab.token_get_text(self._llm.token_bos()))
        return self._formatter(messages=list(messages)).prompt

    # -- scoring --------------------------------------------------------------------

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        """Sum of log-probabilities of each continuation's tokens after ``prompt``.

        The tokens every sequence shares are evaluated once (and taken from the KV
        cache when a previous call left them there); each continuation then costs only
        its own tokens. Logits are requested only where they are read."""
        self._require_open()
        if not continuations:
            return []
        llm = self._llm
        text = prompt if isinstance(prompt, str) else self.apply_chat_template(prompt)
        prompt_tokens = self._tokenize(text)
        sequences = [self._tokenize(text + c) for c in continuations]
        longest = max(len(s) for s in sequences)
        if longest > self.n_ctx:
            raise ModelError(f"scoring needs {longest} tokens, the context holds {self.n_ctx}")
        shared = _common_prefix_length(sequences)
        # First scored token: where the prompt ends (a token merged across the
        # boundary counts as the continuation's); token 0 has nothing to predict it.
        begin = max(1, min(_common_prefix_length([prompt_tokens, s]) for s in sequences))
        try:
            common: list[float] = []
            last_row = None
            if shared:
                reuse = _common_prefix_length([sequences[0][:shared], llm.input_ids[: llm.n_tokens].tolist()])
                self._rewind(min(reuse, begin - 1))
                common, last_row = self._append(sequences[0][llm.n_tokens:shared], begin - 1, None)
            scores = []
            for tokens in sequences:
                total = sum(common)
                if len(tokens) > shared:
                    if last_row is not None:
                        total += float(last_row[tokens[shared]])
                    self._rewind(shared)
                    own, _ = self._append(tokens[shared:-1], begin - 1, tokens[-1])
                    total += sum(own)
                scores.append(total)
        except RuntimeError as exc:
            self._rewind(0)
            raise ModelError(f"scoring failed: {exc}") from None
        return scores

    def _rewind(self, n_tokens: int) -> None:
        """Forget the KV cache after the first ``n_tokens`` tokens."""
        llm = self._llm
        llm.n_tokens = n_tokens
        llm._ctx.kv_cache_seq_rm(-1, n_tokens, -1)

    def _append(self, tokens: Sequence[int], want_from: int,
                following: int | None) -> tuple[list[float], Any]:
        """Evaluate ``tokens`` after the cache. For each position >= ``want_from``, the
        log-probability of the token after it (``following`` after the last one); with
        no ``following``, the last position's full log-probability row is returned too."""
        import numpy as np

        llm = self._llm
        batch = llm._batch
        logprobs: list[float] = []
        last_row = None
        tokens = list(tokens)
        i = 0
        while i < len(tokens):
            n_past = llm.n_tokens
            if n_past < want_from:  # context only: big chunks, one logit row (llama.cpp's default)
                size = min(llm.n_batch, want_from - n_past, len(tokens) - i)
                batch.set_batch(batch=tokens[i:i + size], n_past=n_past, logits_all=False)
                llm._ctx.decode(batch)
                llm.input_ids[n_past:n_past + size] = tokens[i:i + size]
                llm.n_tokens += size
                i += size
                continue
            size = min(_SCORE_CHUNK, len(tokens) - i)
            batch.set_batch(batch=tokens[i:i + size], n_past=n_past, logits_all=True)
            llm._ctx.decode(batch)
            llm.input_ids[n_past:n_past + size] = tokens[i:i + size]
            llm.n_tokens += size
            rows = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(size, llm.n_vocab()))
            peak = rows.max(axis=1, keepdims=True)
            norms = peak[:, 0].astype(np.float64) + np.log(np.exp(rows - peak).sum(axis=1, dtype=np.float64))
            for k in range(size):
                nxt = i + k + 1
                if nxt < len(tokens):
                    logprobs.append(float(rows[k, tokens[nxt]]) - float(norms[k]))
                elif following is not None:
                    logprobs.append(float(rows[k, following]) - float(norms[k]))
                else:
                    last_row = rows[k].astype(np.float64) - float(norms[k])
            i += size
        return logprobs, last_row

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._llm.close()


def _common_prefix_length(sequences: Sequence[Sequence[int]]) -> int:
    if not sequences:
        return 0
    length = min(len(s) for s in sequences)
    first = sequences[0]
    for i in range(length):
        token = first[i]
        if any(s[i] != token for s in sequences[1:]):
            return i
    return length
