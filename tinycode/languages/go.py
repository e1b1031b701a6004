"""Go: gofmt -e judges it; a snippet is given the package clause a file needs."""

from __future__ import annotations

import re

from .base import LanguageSpec, wheel

_PACKAGE = re.compile(r"^\s*package\s", re.MULTILINE)
_DECLARATION = re.compile(r"(?:\s|//[^\n]*\n|/\*.*?\*/)*(?:func|type|var|const|import)\b|\s*$", re.DOTALL)
# Declarations no function body can hold: below a head that is neither a package clause
# nor a declaration, they make the text a file whose package clause is broken.
_FILE_ONLY = re.compile(r"^(?:import\b|func\s+[A-Za-z_]\w*\s*[\[(])", re.MULTILINE)
_PREFIX = "package p; "  # on the snippet's first line, so the other lines keep their numbers


def snippet(source: str) -> tuple[str, str] | None:
    """What makes a snippet a file: declarations get a package clause, statements a
    function around them too. None for a file with its package clause, or one whose
    imports or named functions show it is a file though its head is no clause."""
    if _PACKAGE.search(source):
        return None
    if _DECLARATION.match(source):
        return _PREFIX, ""
    if _FILE_ONLY.search(source):
        return None  # judged as the file it is: a package clause misspelt is the judge's first error
    return _PREFIX + "func _() { ", "\n}"


LANGUAGE = LanguageSpec("go", wheel("tree_sitter_go"), (".go",), aliases=("golang",), comment="//", block_comment=("/*", "*/"),
                        words=("go", "golang"), judges=("gofmt",), snippet=snippet)
