"""Building a backend from settings; a model file is loaded once per process."""

from __future__ import annotations

import atexit
import threading
from typing import Any

from ..config import BACKENDS
from ..errors import ModelError, ModelUnavailable
from .base import IN_PROCESS_SCORING, LLM

_loaded: dict[tuple, LLM] = {}
_lock = threading.Lock()


def load_llm(model: str | None = None, *, backend: str = "llama_cpp", base_url: str | None = None,
             gpu_layers: int = 0, n_ctx: int = 4096, threads: int | None = None,
             offline: bool = False, progress: bool = False, server_slots: int | None = None,
             extra_buffers: bool = False) -> LLM:
    """The model named by ``model`` on ``backend``; raises ModelError.

    For ``llama_cpp``, ``model`` is a registry name, an alias or a ``.gguf`` path
    (None = the registry default); the same file and options give the same object for
    the life of the process. For ``openai``, ``model`` is the server's model name
    (None = the first model the server lists), and ``server_slots`` the requests this
    process sends it at once (None: no limit, 0: what the server reports).

    A model in process is served from a process of its own (``contained.py``): a crash
    in llama.cpp raises ModelCrashed here instead of ending this process.
    ``extra_buffers`` turns on llama.cpp's extra buffer types (``native.py``)."""
    if backend == "openai":
        from .openai_http import OpenAIHTTPLLM

        if not base_url:
            raise ModelError("the openai backend needs a base URL (--base-url or TINYCODE_BASE_URL)")
        return OpenAIHTTPLLM(base_url, model=model, offline=offline, slots=server_slots)
    if backend != "llama_cpp":
        raise ModelError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if n_ctx < 256:
        raise ModelError(f"context size {n_ctx} is too small (at least 256 tokens)")
    from ..models import resolve_model_path

    path = resolve_model_path(model, offline=offline, progress=progress).resolve()
    key = (str(path), gpu_layers, n_ctx, threads, extra_buffers)
    with _lock:
        llm = _loaded.get(key)
        if llm is None or getattr(llm, "closed", False):
            from .contained import ContainedLLM
            from .llama_cpp import LlamaCppLLM

            llm = _loaded[key] = ContainedLLM(LlamaCppLLM, path, n_ctx=n_ctx, threads=threads,
                                              gpu_layers=gpu_layers, extra_buffers=extra_buffers)
        return llm


def model_options(settings: Any) -> dict[str, Any]:
    """The :func:`load_llm` options a run's settings choose."""
    return {"model": settings.model, "backend": settings.backend, "base_url": settings.base_url,
            "gpu_layers": settings.gpu_layers, "offline": settings.offline,
            "extra_buffers": settings.extra_buffers}


def unload_all() -> None:
    """Close every model this process loaded (they are rebuilt on the next load_llm)."""
    with _lock:
        for llm in _loaded.values():
            llm.close()
        _loaded.clear()


# llama-cpp-python frees a model in __del__, which fails once the interpreter has
# started tearing modules down; closing first keeps exit quiet.
atexit.register(unload_all)


class LazyLLM:
    """Loads the model on first use, then serves every later call: a command that
    repairs many files loads the model once, and not at all when no file needs it."""

    def __init__(self, **options: object) -> None:
        self._options = options
        self._llm: LLM | None = None

    def _get(self) -> LLM:
        if self._llm is None:
            load = load_llm  # looked up at call time, so tests can substitute it

            try:
                self._llm = load(**self._options)
            except ModelUnavailable:
                raise
            except ModelError as exc:
                raise ModelUnavailable(str(exc)) from None
        return self._llm

    @property
    def name(self) -> str:
        return self._get().name

    def complete(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201 - the LLM protocol
        return self._get().complete(*args, **kwargs)

    def count_tokens(self, text: str) -> int:
        return self._get().count_tokens(text)

    def score(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        return self._get().score(*args, **kwargs)

    @property
    def scoring(self) -> str:
        """How the model ranks candidates (a server's ``scoring``), once it is loaded."""
        return getattr(self._get(), "scoring", IN_PROCESS_SCORING)

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()
