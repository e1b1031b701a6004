"""JSON: the standard library's ``json`` module is the judge."""

from __future__ import annotations

import json

from .base import LanguageSpec, NoVerdict, OwnVerdict, wheel


def judge(source: str) -> OwnVerdict | None:
    """The ``json`` module's first error, or None when it reads the text."""
    if not source.strip():
        return None  # an empty file has nothing wrong with it
    try:
        json.loads(source)
    except json.JSONDecodeError as exc:
        return OwnVerdict(exc.lineno, exc.colno, exc.lineno, exc.colno, f"JSONDecodeError: {exc.msg}")
    except RecursionError:
        raise NoVerdict from None
    return None


LANGUAGE = LanguageSpec("json", wheel("tree_sitter_json"), (".json",), comment="", words=("json",),
                        own_judge=judge, own_judge_label="json module")
