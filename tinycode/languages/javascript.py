"""JavaScript: node --check judges it where installed."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .base import LanguageSpec, wheel

if TYPE_CHECKING:
    import tree_sitter

# An import or export statement at a line's start (not a dynamic ``import(...)``).
MODULE_SYNTAX = re.compile(r"^[ \t]*(?:import[ \t]*[\w{*'\"]|export[ \t]+[\w{*])", re.MULTILINE)


def judge_filename(source: str, filename: str) -> str:
    """node --check passes a .js text with module syntax unread once it sees that
    syntax (node 20.19+ detects modules): such a text is checked as a module."""
    return "input.mjs" if filename.endswith(".js") and MODULE_SYNTAX.search(source) else filename


def has_jsx(source: str, parser: "tree_sitter.Parser") -> bool:
    """The text has JSX, which node cannot read and tree-sitter-javascript (``parser``) can."""
    if not re.search(r"<[A-Za-z>/]", source):
        return False
    stack = [parser.parse(source.encode("utf-8", "surrogatepass")).root_node]
    while stack:
        node = stack.pop()
        if node.type.startswith("jsx_"):
            return True
        stack.extend(node.children)
    return False


LANGUAGE = LanguageSpec(
    "javascript", wheel("tree_sitter_javascript"), (".js", ".mjs", ".cjs", ".jsx"),
    aliases=("js", "node", "jsx"), interpreters=("node", "nodejs"), comment="//",
    words=("javascript", "js", "node", "nodejs", "ecmascript", "jsx"),
    judges=("node", "nodejs"), judge_filename=judge_filename, beyond_judge=has_jsx,
)
