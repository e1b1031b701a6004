"""Go: gofmt -e judges it; a snippet is given the package clause a file needs."""

from __future__ import annotations

import re

from .base import LanguageSpec, wheel

_PACKAGE = re.compile(r"^\s*package\s", re.MULTILINE)
_DECLARATION = re.compile(r"(?:\s|//[^\n]*\n|/\*.*?\*/)*(?:func|type|var|const|import)\b|\s*$", re.DOTALL)
_PREFIX = "package p; "  # on the snippet's first line, so the other lines keep their numbers


def snippet(source: str) -> tuple[str, str] | None:
    """What makes a snippet a file: declarations get a package clause, statements a
    function around them too. None for a file with its package clause."""
    if _PACKAGE.search(source):
        return None
    if _DECLARATION.match(source):
        return _PREFIX, ""
    return _PREFIX + "func _() { ", "\n}"


LANGUAGE = LanguageSpec("go", wheel("tree_sitter_go"), (".go",), aliases=("golang",), comment="//", block_comment=("/*", "*/"),
                        words=("go", "golang"), judges=("gofmt",), snippet=snippet)
