"""Language-model backends behind one small protocol (see ``base.py``).

Backends are imported lazily: building ``llama_cpp`` is the only thing that imports
llama-cpp-python, so the checker and the CLI stay fast.
"""

from __future__ import annotations

from .base import LLM, Completion, Message, ScoringUnsupported

__all__ = ["LLM", "Completion", "Message", "ScoringUnsupported"]
