"""C: gcc or clang -fsyntax-only judges it, with the file's project's flags."""

from __future__ import annotations

import re

from .base import LanguageSpec, wheel

# What only C++ has: a namespace, a template, a class with a body or bases, access
# specifiers, std::, a standard header without .h.
_CPP_ONLY = re.compile(r"^[ \t]*(?:namespace(?:[ \t]+[\w:]+)?[ \t]*\{|template[ \t]*<|"
                       r"class[ \t]+\w+[ \t]*(?:final[ \t]*)?[:{]|using[ \t]+namespace[ \t]|extern[ \t]+\"C\+\+\"|"
                       r"(?:public|private|protected)[ \t]*:|#[ \t]*include[ \t]*<[a-z_]+>)|\bstd::\w", re.MULTILINE)


def judged_as(source: str) -> str | None:
    """A C++ header named .h (llama.cpp's, googletest's): its C++ compiler judges it."""
    return "cpp" if _CPP_ONLY.search(source) else None


def declare_type(name: str, namespace: str, template: bool) -> str:
    """C has no namespaces or templates: a name unknown as a type is a typedef."""
    return f"typedef int {name};"


LANGUAGE = LanguageSpec(
    "c", wheel("tree_sitter_c"), (".c", ".h"), comment="//", block_comment=("/*", "*/"), words=("c", "gcc", "clang"), relatives=("cpp",),
    named_keywords=("char", "int", "void", "float", "double", "bool"),
    judges=("gcc", "clang", "cc"), dialect=("-x", "c", "-std=gnu17"), judge_input="input.c",
    project=True, judged_as=judged_as, declare_type=declare_type, judge_reports_every_error=True,
)
