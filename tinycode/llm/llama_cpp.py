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
            raise ModelError(f"llama.cpp could not load {self.path}: {exc}") from None
        self.load_seconds = time.perf_counter() - start
        self._grammars: dict[str, Any] = {}

    # -- generation ---------------------------------------------------------------

    def complete(self, prompt: Prompt, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = 0) -> Completion:
        options: dict[str, Any] = dict(stop=list(stop) or None, max_tokens=max_tokens,
                                       temperature=temperature, seed=seed,
                                       grammar=self._grammar(grammar) if grammar else None)
        if temperature == 0.0:
            options["top_k"] = 1
        start = time.perf_counter()
        try:
            if isinstance(prompt, str):
                response = self._llm.create_completion(prompt, **options)
                text = response["choices"][0]["text"]
            else:
                response = self._llm.create_chat_completion(list(prompt), **options)
                text = response["choices"][0]["message"]["content"] or ""
        except ValueError as exc:  # e.g. the prompt exceeds the context window
            raise ModelError(f"model call failed: {exc}") from None
        usage = response.get("usage", {})
        return Completion(text=text, prompt_tokens=int(usage.get("prompt_tokens", 0)),
                          completion_tokens=int(usage.get("completion_tokens", 0)),
                          seconds=time.perf_counter() - start,
                          finish_reason=response["choices"][0].get("finish_reason") or "stop")

    def _grammar(self, text: str) -> Any:
        if text not in self._grammars:
            from llama_cpp import LlamaGrammar

            self._grammars[text] = LlamaGrammar.from_string(text, verbose=False)
        return self._grammars[text]

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def apply_chat_template(self, messages: Sequence[dict[str, str]]) -> str:
        """The raw prompt text the model sees for ``messages`` (for scoring after a chat)."""
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = self._llm.metadata.get("tokenizer.chat_template")
        if not template:
            return "\n".join(m["content"] for m in messages)
        formatter = Jinja2ChatFormatter(template, eos_token="", bos_token="")
        return formatter(messages=list(messages)).prompt

    # -- scoring --------------------------------------------------------------------

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        """Log-likelihood of each continuation after ``prompt``, up to one shared constant:
        tokens common to every candidate are evaluated once (and reused from the KV cache)."""
        import numpy as np

        if not continuations:
            return []
        text = prompt if isinstance(prompt, str) else self.apply_chat_template(prompt)
        sequences = [self._llm.tokenize((text + c).encode("utf-8"), add_bos=False, special=True)
                     for c in continuations]
        shared = _common_prefix_length(sequences)
        if shared == 0:
            shared = 1  # the first token has no context to be scored against
        scores = []
        for tokens in sequences:
            # Reuse the cache up to the shared prefix, keeping one token back so its
            # logits (which predict the first differing token) are computed.
            cached = _common_prefix_length([tokens, list(self._llm.input_ids[: self._llm.n_tokens])])
            start = min(cached, shared - 1)
            self._llm.n_tokens = start
            logits = self._eval_with_logits(tokens[start:])
            total = 0.0
            for position in range(shared, len(tokens)):
                row = logits[position - 1 - start]
                peak = float(row.max())
                log_norm = peak + float(np.log(np.exp(row - peak).sum()))
                total += float(row[tokens[position]]) - log_norm
            scores.append(total)
        return scores

    def _eval_with_logits(self, tokens: Sequence[int]) -> "Any":
        """Evaluate ``tokens`` after the current cache position, returning every row of logits."""
        import numpy as np

        llm = self._llm
        rows = []
        llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
        for i in range(0, len(tokens), llm.n_batch):
            batch = list(tokens[i:i + llm.n_batch])
            n_past = llm.n_tokens
            llm._batch.set_batch(batch=batch, n_past=n_past, logits_all=True)
            llm._ctx.decode(llm._batch)
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(len(batch), llm.n_vocab()))
            rows.append(logits.copy())
            llm.input_ids[n_past:n_past + len(batch)] = batch
            llm.n_tokens += len(batch)
        return np.concatenate(rows) if rows else np.zeros((0, llm.n_vocab()), dtype=np.float32)

    def close(self) -> None:
        closer = getattr(self._llm, "close", None)
        if closer is not None:
            closer()


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
