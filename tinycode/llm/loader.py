"""Building a backend from settings; a model is loaded once per process."""

from __future__ import annotations

from functools import lru_cache

from ..errors import ModelError
from .base import LLM

BACKENDS = ("llama_cpp", "openai")


def load_llm(model: str | None = None, *, backend: str = "llama_cpp", base_url: str | None = None,
             gpu_layers: int = 0, n_ctx: int = 4096, threads: int | None = None,
             offline: bool = False, progress: bool = False) -> LLM:
    """The model named by ``model`` (registry name, alias or ``.gguf`` path) on ``backend``."""
    if backend == "openai":
        from .openai_http import OpenAIHTTPLLM

        if not base_url:
            raise ModelError("the openai backend needs a base URL (--base-url or TINYCODE_BASE_URL)")
        return OpenAIHTTPLLM(base_url, model=model)
    if backend != "llama_cpp":
        raise ModelError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    from ..models import resolve_model_path

    path = resolve_model_path(model, offline=offline, progress=progress)
    return _load_llama_cpp(str(path), gpu_layers, n_ctx, threads)


@lru_cache(maxsize=2)
def _load_llama_cpp(path: str, gpu_layers: int, n_ctx: int, threads: int | None) -> LLM:
    from .llama_cpp import LlamaCppLLM

    return LlamaCppLLM(path, n_ctx=n_ctx, threads=threads, gpu_layers=gpu_layers)
