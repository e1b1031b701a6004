"""tinycode: repair syntax errors with a small local language model, offline."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .check import CheckResult, Problem, check, render

__version__ = "0.1.0"
__all__ = ["check", "render", "CheckResult", "Problem", "repair", "__version__"]

if TYPE_CHECKING:
    from .engine.loop import RepairResult


def repair(source: str, language: str | None = None, **options: Any) -> "RepairResult":
    """Repair ``source``; see :func:`tinycode.engine.loop.repair`. Imported lazily so that
    ``import tinycode`` stays as light as the checker."""
    from .engine.loop import repair as _repair

    return _repair(source, language, **options)
