"""HTML: html-validate judges it beside tree-sitter where it is installed (``npm install -g
html-validate``): end tags that close the wrong element, attributes left open."""

from __future__ import annotations

import re

from .base import LanguageSpec, wheel

# Elements that never have an end tag, and those whose content is not markup.
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
RAW_TEXT = frozenset(("script", "style"))
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*)\s*(/?)>")


def open_names(lines: list[str], line_no: int, before: str) -> list[str]:
    """After ``</``: the elements the lines above ``line_no`` open and do not close,
    innermost first (an end tag closes the elements opened inside its own that were
    left open, as a browser's parser does)."""
    if before != "</":
        return []
    text = _COMMENT.sub("", "\n".join(lines[:max(line_no - 1, 0)]))
    stack: list[str] = []
    raw = ""
    for match in _TAG.finditer(text):
        closing, name, self_closing = match.group(1), match.group(2).lower(), match.group(4)
        if raw and not (closing and name == raw):
            continue  # inside <script> or <style>: text, not tags
        if closing:
            if name in stack:
                del stack[len(stack) - 1 - stack[::-1].index(name):]
            raw = ""
        elif not self_closing and name not in VOID:
            stack.append(name)
            raw = name if name in RAW_TEXT else ""
    return stack[::-1]


LANGUAGE = LanguageSpec("html", wheel("tree_sitter_html"), (".html", ".htm", ".xhtml"), comment="", block_comment=("<!--", "-->"), words=("html",),
                        open_names=open_names, judges=("html-validate",), judge_input="input.html", judge_cost=2,
                        judge_beside_parser=True, edit_family="markup")
