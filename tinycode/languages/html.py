"""HTML: html-validate judges it beside tree-sitter where it is installed (``npm install -g
html-validate``): end tags that close the wrong element, attributes left open."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from .base import LanguageSpec, wheel

# Elements that never have an end tag, and those whose content is not markup.
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
RAW_TEXT = frozenset(("script", "style"))
_COMMENT = re.compile(r"<!--.*?-->", re.S)
TAG_NAME = r"[A-Za-z][\w:.-]*"  # an element's name in a tag
_TAG = re.compile(r"<(/?)(" + TAG_NAME + r")((?:\s+[^\s=>/]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*)\s*(/?)>")


def _tags(text: str) -> Iterator[tuple[bool, str, int]]:
    """(is an end tag, name, offset) of each tag of ``text`` that is markup (not inside a
    comment, a ``<script>`` or a ``<style>``), self-closing and void ones left out."""
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)  # offsets kept
    raw = ""
    for match in _TAG.finditer(text):
        closing, name, self_closing = bool(match.group(1)), match.group(2).lower(), match.group(4)
        if raw and not (closing and name == raw):
            continue  # inside <script> or <style>: text, not tags
        raw = name if name in RAW_TEXT and not closing else ""
        if closing or not (self_closing or name in VOID):
            yield closing, name, match.start()


def _still_open(text: str) -> list[tuple[str, int]]:
    """The elements ``text`` opens and does not close, outermost first, each with the
    offset of its start tag (an end tag closes the elements opened inside its own that
    were left open, as a browser's parser does)."""
    stack: list[tuple[str, int]] = []
    for closing, name, at in _tags(text):
        names = [n for n, _ in stack]
        if not closing:
            stack.append((name, at))
        elif name in names:
            del stack[len(names) - 1 - names[::-1].index(name):]
    return stack


def open_names(lines: list[str], line_no: int, before: str) -> list[str]:
    """The name a tag that lost it most likely had. After ``</``: the elements the
    lines above ``line_no`` open and do not close, innermost first. After ``<``: the
    elements the file has more end tags of than start tags, the most first."""
    if before == "</":
        return [name for name, _ in _still_open("\n".join(lines[:max(line_no - 1, 0)]))][::-1]
    if before != "<":
        return []
    balance: Counter[str] = Counter()
    for closing, name, _ in _tags("\n".join(lines)):
        balance[name] += 1 if closing else -1
    return [name for name, n in balance.most_common() if n > 0]


_LEFT_OPEN = re.compile(r"End tag '</(" + TAG_NAME + r")>' seen but there were open elements")


def begins_above(lines: list[str], line_no: int, column: int, message: str) -> int | None:
    """For an end tag the judge found closing elements left open inside its own (at
    ``column`` of ``line_no``, its ``/``): the line where the element it closes opened.
    The end tag of one left open was lost or broken anywhere from there on."""
    match = _LEFT_OPEN.search(message)
    if match is None or not 1 <= line_no <= len(lines):
        return None
    text = "\n".join(lines[:line_no - 1] + [lines[line_no - 1][:max(column - 2, 0)]])
    opened = [at for name, at in _still_open(text) if name == match.group(1).lower()]
    return text.count("\n", 0, opened[-1]) + 1 if opened else None


LANGUAGE = LanguageSpec("html", wheel("tree_sitter_html"), (".html", ".htm", ".xhtml"), comment="", block_comment=("<!--", "-->"), words=("html",),
                        open_names=open_names, begins_above=begins_above, judges=("html-validate",), judge_input="input.html", judge_cost=2,
                        judge_beside_parser=True, edit_family="markup",
                        misread_nodes=("erroneous_end_tag",))
