"""Language-model backends behind one small protocol (see ``base.py``).

Backends are imported lazily: building ``llama_cpp`` is the only thing that imports
llama-cpp-python, so the checker and the CLI stay fast.
"""

from __future__ import annotations

from .base import LLM, Completion, Message, ScoringUnsupported

__all__ = ["LLM", "Completion", "Message", "ScoringUnsupported"]


def load_llm(*args, **kwargs) -> LLM:  # noqa: ANN002, ANN003 - mirrors loader.load_llm
    """Build a backend; see :func:`tinycode.llm.loader.load_llm` (imported on first use)."""
    from . import loader

    return loader.load_llm(*args, **kwargs)


__all__.append("load_llm")
