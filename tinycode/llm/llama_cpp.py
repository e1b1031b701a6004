"""The default backend: llama.cpp in this process, through llama-cpp-python.

The same prompt gets the same answer whatever ran before it. llama.cpp's sums depend
on how tokens were batched, so no call reuses another's evaluation beyond one prefix
that is always computed the same way: a chat prompt's system message, evaluated alone,
whose KV state is saved (prefix_cache.py) and put back when a later call, or a later
run, starts with it. ``score`` evaluates its shared prefix once per call, each
continuation after it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..deadline import expired, ensure_time_left
from ..errors import ModelError
from .base import Completion, Prompt
from .cores import CoreShare, physical_cores
from .native import extra_buffer_types, extra_buffers_of
from .prefix_cache import PrefixStates

# Scoring batches: a logit row is n_vocab floats (0.6 MB for Qwen) per scored token,
# so a batch of 128 keeps the output buffer under 80 MB.
_SCORE_BATCH = 128
_SCORE_SEQUENCES = 8  # KV sequences in the scoring context: the prefix and 7 continuations
# A system message shorter than this is evaluated again rather than restored.
MIN_SAVED_PREFIX = 32


class LlamaCppLLM:
    """A GGUF model loaded in process. ``gpu_layers=-1`` offloads every layer when
    llama.cpp was built with CUDA or Metal."""

    def __init__(self, model_path: str | Path, *, n_ctx: int = 4096, threads: int | None = None,
                 gpu_layers: int = 0, seed: int = 0, prefix_cache: bool = True,
                 extra_buffers: bool = False) -> None:
        try:
            from llama_cpp import Llama
        except ImportError as exc:  # pragma: no cover - llama-cpp-python is a dependency
            raise ModelError("llama-cpp-python is not installed: pip install llama-cpp-python") from exc
        self.name = Path(model_path).name
        self.path = str(model_path)
        start = time.perf_counter()
        try:
            with extra_buffer_types(extra_buffers):  # off by default: see native.py
                self._llm = Llama(model_path=self.path, n_ctx=n_ctx, n_threads=threads or physical_cores(),
                                  n_gpu_layers=gpu_layers, seed=seed, verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"llama.cpp could not load {self.path} ({exc}): the file is damaged, "
                             "truncated or holds an architecture this llama.cpp does not know") from None
        self.load_seconds = time.perf_counter() - start
        # Threads and batch threads as loaded, each lowered while other processes keep
        # cores busy (``cores.CoreShare``); with layers on a GPU the CPU threads matter little.
        self._cores = CoreShare(self._llm.context_params.n_threads) if not gpu_layers else None
        self.n_ctx = self._llm.n_ctx()
        self._grammars: dict[str, Any] = {}
        self._formatter: Any = None
        self._scorer: Scorer | None = None
        self.extra_buffers = extra_buffers_of(self._llm)  # as loaded (None: the build has none)
        self._prefixes = PrefixStates(self._identity(gpu_layers)) if prefix_cache else None
        self._system: list[int] = []  # the system message's tokens, evaluated alone, at the cache's start
        self.closed = False

    # -- generation ---------------------------------------------------------------

    def complete(self, prompt: Prompt, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = 0) -> Completion:
        self._require_open()
        ensure_time_left("a model call")
        options: dict[str, Any] = dict(stop=list(stop) or None, max_tokens=max_tokens,
                                       temperature=temperature, seed=seed,
                                       grammar=self._grammar(grammar) if grammar else None,
                                       logits_processor=_end_at_deadline(self._llm.token_eos()))
        if temperature == 0.0:
            options["top_k"] = 1
        self._share_cores()
        start = time.perf_counter()
        tokens = self._tokenize(prompt if isinstance(prompt, str) else self.apply_chat_template(prompt))
        self._restore_prefix(prompt, tokens)
        cached = self._cached_prefix(tokens)
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

    def _cached_prefix(self, tokens: list[int]) -> int:
        """Prompt tokens llama-cpp-python will take from the KV cache (it always
        re-evaluates the last prompt token)."""
        llm = self._llm
        if llm.n_tokens == 0:
            return 0
        return _common_prefix_length([tokens[:-1], llm.input_ids[: llm.n_tokens].tolist()])

    # -- the saved system-message prefix ----------------------------------------------

    def _identity(self, gpu_layers: int) -> str:
        """What a saved KV state depends on: the model file, the build, where it ran."""
        import llama_cpp

        stat = os.stat(self.path)
        return (f"{self.path}|{stat.st_size}|{stat.st_mtime_ns}|{llama_cpp.__version__}|gpu={gpu_layers}"
                f"|extra={self.extra_buffers}")

    def _restore_prefix(self, prompt: Prompt, tokens: list[int]) -> None:
        """Have the KV cache hold the tokens of the prompt's system message and nothing
        more: kept from the last call, put back from a saved state, or evaluated now and
        saved. Without one, the cache is emptied.

        Only that much is reused: llama.cpp's sums depend on how the tokens were
        batched, so a longer prefix left by whatever ran before would make the answer
        depend on the calls before it, not only on the prompt."""
        llm = self._llm
        stable = 0
        if self._prefixes is not None and not isinstance(prompt, str) and prompt \
                and prompt[0].get("role") == "system":
            head = self._tokenize(self.apply_chat_template(list(prompt[:1])))
            stable = _common_prefix_length([head, tokens[:-1]])
        prefix = tokens[:stable]
        if stable < MIN_SAVED_PREFIX:
            self._empty_cache()
            return
        if self._system == prefix and llm.input_ids[:stable].tolist() == prefix:
            llm._ctx.kv_cache_seq_rm(-1, stable, -1)
            llm.n_tokens = stable
            return
        data = self._prefixes.get(prefix)
        if data is not None:
            if self._load_sequence(prefix, data):
                self._system = prefix
                return
            self._prefixes.forget(prefix)
        try:
            self._empty_cache()
            llm.eval(prefix)
        except (ValueError, RuntimeError):
            self._empty_cache()
            return  # the call itself reports what is wrong
        self._system = prefix
        data = self._save_sequence()
        if data:
            self._prefixes.put(prefix, data)

    def _empty_cache(self) -> None:
        self._llm.reset()
        self._llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        self._system = []

    def _save_sequence(self) -> bytes:
        import llama_cpp

        ctx = self._llm._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
        return ctypes.string_at(buffer, written) if 0 < written <= size else b""

    def _load_sequence(self, tokens: list[int], data: bytes) -> bool:
        import llama_cpp

        llm = self._llm
        llm.reset()
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        if llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buffer, len(data), 0) != len(data):
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
            return False
        llm.input_ids[: len(tokens)] = tokens
        llm.n_tokens = len(tokens)
        return True

    def _tokenize(self, text: str) -> list[int]:
        return _tokens_of(self._llm, text)

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

        Runs in a second llama.cpp context on the same weights, so the generation
        cache is left as it was. The tokens every sequence shares are evaluated once
        (and kept for the next call); the continuations then go through together, one
        KV sequence each, in as few batches as fit."""
        self._require_open()
        if not continuations:
            return []
        ensure_time_left("a scoring pass")
        text = prompt if isinstance(prompt, str) else self.apply_chat_template(prompt)
        if self._scorer is None:
            self._scorer = Scorer(self._llm, self.n_ctx)
        self._share_cores()
        return self._scorer.score_texts(text, continuations)

    def _share_cores(self) -> None:
        """Both contexts compute with as many threads as the cores other processes
        leave free (``cores.CoreShare``): as loaded on an idle machine."""
        if self._cores is None:
            return
        import llama_cpp

        loaded = self._llm.context_params
        threads = self._cores.threads()
        batch = loaded.n_threads_batch if threads == loaded.n_threads else threads
        llama_cpp.llama_set_n_threads(self._llm._ctx.ctx, threads, batch)
        if self._scorer is not None:
            self._scorer.set_threads(threads, batch)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self._scorer is not None:
                self._scorer.close()  # before the weights it uses
            self._llm.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


def _end_at_deadline(eos: int) -> Any:
    """Once the file's deadline has passed, only the end-of-text token can be sampled,
    so generation ends at the next token (a logits processor, because llama-cpp-python's
    chat completion takes no stopping criteria)."""
    from llama_cpp import LogitsProcessorList

    def processor(_ids: Any, logits: Any) -> Any:
        if expired():
            eos_logit = logits[eos]
            logits[:] = -float("inf")
            logits[eos] = max(eos_logit, 0.0)
        return logits

    return LogitsProcessorList([processor])


def _tokens_of(llama: Any, text: str) -> list[int]:
    """Tokens as llama-cpp-python's own calls make them (BOS only if the model wants one)."""
    return llama.tokenize(text.encode("utf-8"), add_bos=True, special=True)


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


class Scorer:
    """A llama.cpp context sharing the model's weights, with several KV sequences:
    sequence 0 holds the shared prefix, the others one continuation each (copies of
    the prefix cells cost nothing with a unified KV cache). The model in process scores
    with it, and so does ``python -m tinycode.llm.server`` for its clients."""

    def __init__(self, llm: Any, n_ctx: int) -> None:
        import llama_cpp
        from llama_cpp import _internals

        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = params.n_ubatch = _SCORE_BATCH
        params.n_seq_max = _SCORE_SEQUENCES
        params.kv_unified = True
        params.n_threads = llm.context_params.n_threads
        params.n_threads_batch = llm.context_params.n_threads_batch
        self._api = llama_cpp
        self.model = llm  # the Llama whose weights it shares
        self._n_vocab = llm.n_vocab()
        self.n_ctx = n_ctx
        try:
            self._ctx = _internals.LlamaContext(model=llm._model, params=params, verbose=False)
            self._batch = _internals.LlamaBatch(n_tokens=_SCORE_BATCH, embd=0, n_seq_max=1, verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"llama.cpp could not make a scoring context: {exc}") from None

    def reset(self) -> None:
        self._api.llama_memory_clear(self._ctx.memory, True)

    def set_threads(self, threads: int, batch: int) -> None:
        self._api.llama_set_n_threads(self._ctx.ctx, threads, batch)

    def close(self) -> None:
        self._batch.close()
        self._ctx.close()

    def score_texts(self, text: str, continuations: Sequence[str]) -> list[float]:
        """Sum of log-probabilities of each continuation's tokens after ``text``."""
        prompt_tokens = _tokens_of(self.model, text)
        sequences = [_tokens_of(self.model, text + c) for c in continuations]
        longest = max(len(s) for s in sequences)
        if longest > self.n_ctx:
            raise ModelError(f"scoring needs {longest} tokens, the context holds {self.n_ctx}")
        # First scored token: where the prompt ends (a token merged across the
        # boundary counts as the continuation's); token 0 has nothing to predict it.
        begin = max(1, min(_common_prefix_length([prompt_tokens, s]) for s in sequences))
        try:
            return self.score(sequences, begin)
        except RuntimeError as exc:
            self.reset()
            raise ModelError(f"scoring failed: {exc}") from None

    def score(self, sequences: list[list[int]], begin: int) -> list[float]:
        shared = _common_prefix_length(sequences)
        totals = [0.0] * len(sequences)
        # Every call starts from an empty cache. llama.cpp's sums depend on how the
        # tokens were batched and where their cells lie, so reusing an earlier call's
        # prefix would make a score (and the edit chosen) depend on what was scored
        # before: the same file would not always get the same repair.
        self.reset()
        # Sequence 0: the shared tokens, scored from ``begin`` on. The prediction
        # made at its last position is the first differing token of every sequence.
        prefix = sequences[0][:shared]
        entries = [(0, pos, prefix[pos], pos >= begin - 1) for pos in range(shared)]
        last_row = None
        for rows, wanted in self._run(entries):
            for row, (_, pos, _, _) in zip(rows, wanted):
                if pos + 1 < shared:
                    lp = _log_softmax_at(row, prefix[pos + 1])
                    totals = [t + lp for t in totals]
                else:
                    last_row = row.copy()
        if last_row is not None:
            for i, tokens in enumerate(sequences):
                if len(tokens) > shared:
                    totals[i] += _log_softmax_at(last_row, tokens[shared])
        # The continuations: each in its own KV sequence, packed into shared batches.
        free = list(range(1, _SCORE_SEQUENCES))
        active: dict[int, int] = {}  # sequence id -> index into ``sequences``
        entries = []
        for index, tokens in enumerate(sequences):
            own = tokens[shared:-1]
            if not own:
                continue
            cells = sum(len(sequences[i]) - shared for i in active.values())
            if not free or shared + cells + len(own) > self.n_ctx:
                self._flush(entries, sequences, totals, active, free)
                entries = []
            seq = free.pop(0)
            active[seq] = index
            self._api.llama_memory_seq_cp(self._ctx.memory, 0, seq, 0, shared)
            entries += [(seq, shared + j, token, True) for j, token in enumerate(own)]
        self._flush(entries, sequences, totals, active, free)
        return totals

    def _flush(self, entries: list, sequences: list[list[int]], totals: list[float],
               active: dict[int, int], free: list[int]) -> None:
        for rows, wanted in self._run(entries):
            for row, (seq, pos, _, _) in zip(rows, wanted):
                index = active[seq]
                totals[index] += _log_softmax_at(row, sequences[index][pos + 1])
        for seq in list(active):
            self._api.llama_memory_seq_rm(self._ctx.memory, seq, -1, -1)
            free.append(seq)
            del active[seq]
        free.sort()

    def _run(self, entries: list) -> Iterator[tuple[Any, list]]:
        """Decode (seq, pos, token, wants_logits) entries in batches; yield the logit
        rows with the entries they belong to."""
        import numpy as np

        batch = self._batch.batch
        for start in range(0, len(entries), _SCORE_BATCH):
            ensure_time_left("a scoring pass")  # a long pass stops between batches, as generation does between tokens
            chunk = entries[start:start + _SCORE_BATCH]
            for i, (seq, pos, token, wanted) in enumerate(chunk):
                batch.token[i] = token
                batch.pos[i] = pos
                batch.seq_id[i][0] = seq
                batch.n_seq_id[i] = 1
                batch.logits[i] = wanted
            batch.n_tokens = len(chunk)
            self._ctx.decode(self._batch)
            wanted_entries = [e for e in chunk if e[3]]
            if wanted_entries:
                rows = np.ctypeslib.as_array(self._ctx.get_logits(), shape=(len(wanted_entries), self._n_vocab))
                yield rows, wanted_entries


def _log_softmax_at(row: Any, token: int) -> float:
    import numpy as np

    peak = float(row.max())
    return float(row[token]) - peak - float(np.log(np.exp(row - peak, dtype=np.float32).sum(dtype=np.float64)))
