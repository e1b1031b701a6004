"""tinycode: repair syntax errors with a small local language model, offline."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .check import CheckResult, Problem, check, render
from .version import __version__

__all__ = ["check", "render", "CheckResult", "Problem", "repair", "__version__"]

if TYPE_CHECKING:
    from .engine.loop import RepairResult


def repair(source: str, language: str | None = None, *, llm: Any = None, settings: Any = None,
           on_step: Any = None, **overrides: Any) -> "RepairResult":
    """Repair ``source``; see :func:`tinycode.engine.loop.repair`. Any setting may be
    given by name (``model="1.5b"``, ``timeout=30``, ``max_steps=4``): it overrides
    ``settings`` (default: the defaults). Imported lazily so that ``import tinycode``
    stays as light as the checker."""
    import dataclasses

    from .config import Settings
    from .engine.loop import repair as _repair

    settings = dataclasses.replace(settings or Settings(), **overrides)
    return _repair(source, language, llm=llm, settings=settings, on_step=on_step)
