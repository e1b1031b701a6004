"""JavaScript: node --check judges it where installed."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .base import LanguageSpec, wheel

if TYPE_CHECKING:
    import tree_sitter

# An import or export statement where a statement starts: a line's start, or after a
# ``;`` or ``}`` on it. node's compiler reads either keyword there as module syntax
# whatever follows it (``export}``), unless it is a dynamic ``import(...)``,
# ``import.meta``, or a property or method named so (``export: 1``, ``import() {``).
MODULE_SYNTAX = re.compile(r"(?:^|[;}])[ \t]*(?:import|export)(?![\w$]|[ \t]*[.(:])", re.MULTILINE)


def judge_filename(source: str, filename: str) -> str:
    """node --check passes a .js text with module syntax unread once it sees that
    syntax (node 20.19+ detects modules): such a text is checked as a module."""
    return "input.mjs" if filename.endswith(".js") and MODULE_SYNTAX.search(source) else filename


# Words JSX takes as attribute names (``<label class="x" for="y">``, Preact and Solid
# write them so) and JavaScript reserves; the grammar reads none there.
_RESERVED_ATTRIBUTE = re.compile(
    r"(?<=\s)(?:class|for|default|if|else|new|in|delete|return|this|import|export|function|var|const|"
    r"switch|case|while|do|try|catch|finally|throw|typeof|instanceof|void|with|super|extends|null|"
    r"true|false)(?=\s*=(?!=)\s*[\"'{])")
# ``accessor`` before a class field's name (decorators proposal; TypeScript 4.9): what
# follows a field's name is a type, a value, or the end.
_ACCESSOR = re.compile(r"\baccessor(?=[ \t]+#?[A-Za-z_$][\w$]*[ \t]*[:=;!?\n])")
# What tree-sitter-javascript reads and node (20) does not: decorators (stage 3, which
# Babel and TypeScript compile) and ``using`` declarations (node 24); JSX besides.
_BEYOND_NODE = ("decorator", "using_declaration")


def grammar_readable(source: str) -> str:
    """``source`` as the grammar reads it, the same length: JSX attributes named by
    reserved words renamed (``class`` -> ``_lass``; outside JSX such a word is never
    assigned, so only JSX and the insides of strings change), ``accessor`` blanked."""
    text = _RESERVED_ATTRIBUTE.sub(lambda m: "_" + m.group(0)[1:], source)
    return _ACCESSOR.sub(lambda m: " " * len(m.group(0)), text)


def beyond_node(source: str, parser: "tree_sitter.Parser") -> bool:
    """The text has syntax that tree-sitter-javascript (``parser``) reads and node
    cannot: JSX, a decorator, an ``accessor`` field, a ``using`` declaration."""
    if _ACCESSOR.search(source):
        return True
    if not re.search(r"<[A-Za-z>/]|@|\busing\b", source):
        return False
    stack = [parser.parse(grammar_readable(source).encode("utf-8", "surrogatepass")).root_node]
    while stack:
        node = stack.pop()
        if node.type.startswith("jsx_") or node.type in _BEYOND_NODE:
            return True
        stack.extend(node.children)
    return False


LANGUAGE = LanguageSpec(
    "javascript", wheel("tree_sitter_javascript"), (".js", ".mjs", ".cjs", ".jsx"),
    aliases=("js", "node", "jsx"), interpreters=("node", "nodejs"), comment="//", block_comment=("/*", "*/"),
    words=("javascript", "js", "node", "nodejs", "ecmascript", "jsx"),
    judges=("node", "nodejs"), judge_filename=judge_filename, beyond_judge=beyond_node,
)
