"""What a language allows that its tree-sitter grammar rejects, blanked before a
second look by the parser.

Where no tool of the language's own is installed (CSS and HTML have none; PHP's
``php -l`` may be missing), tree-sitter alone decides, and its grammars are stricter
than the languages in places real files use:

- CSS: ``! important`` with a space (the CSS syntax allows whitespace after ``!``), an
  unquoted ``url(./a.svg)`` or ``url(?a=b&c=d)``, Internet Explorer's
  ``progid:...(key='value')`` filters.
- HTML: an ``<?xml ...?>`` declaration or other ``<?...>`` (XHTML's processing
  instructions; HTML reads them as comments), template directives (``{% %}``, ``{{ }}``,
  ``{# #}``) in the templates that HTML files often are, a ``>`` or a lone ``&`` in
  text (HTML reads both as characters; a ``>`` that ends what reads as a tag whose
  ``<`` was lost still counts).
- PHP before 8: braces for string offsets (``$s{0}``), names PHP 8 later reserved
  (``class ReadOnly``, ``function match``).
- C and C++, where the compiler could not say (or did not know the file's types): the
  file's own macros that stand for specifiers or for nothing (tree-sitter expands none).

Each is replaced by text of the same length that the grammar reads (blanks, or the
same construct spelt as the grammar knows it), so lines and columns stay those of
the file. A mistake inside a blanked span goes unseen: each span is one the
language itself does not judge (a template's directive), or whose own form is
checked before it is blanked.
"""

from __future__ import annotations

import re
from typing import Callable

# --- CSS ----------------------------------------------------------------------------

_CSS_IMPORTANT = re.compile(r"!(\s+)(important)\b", re.IGNORECASE)
# An unquoted URL holds no whitespace, quotes or parentheses (CSS Syntax, url-token).
_CSS_URL = re.compile(r"\burl\(([^\s\"'()]+)\)", re.IGNORECASE)
# progid:DXImageTransform.Microsoft.gradient(startColorStr='#f5f5f5', ...) on one line.
# Its quotes must pair: a quote left open there is a mistake the parser still sees.
_CSS_PROGID = re.compile(r"\bprogid:[\w.]+\((?:[^()\n;{}\"']|\"[^\"\n]*\"|'[^'\n]*')*\)", re.IGNORECASE)


def _css(source: str) -> str:
    text = _CSS_IMPORTANT.sub(lambda m: "!" + m.group(2) + m.group(1), source)
    text = _CSS_URL.sub(lambda m: "url(" + "x" * len(m.group(1)) + ")", text)
    return _CSS_PROGID.sub(lambda m: "x" * len(m.group(0)), text)


# --- HTML ---------------------------------------------------------------------------

# A directive ends before the next one opens: a "{{" in text never closed blanks nothing.
_TEMPLATE = re.compile(r"\{%(?:(?!\{%).)*?%\}|\{\{(?:(?!\{\{).)*?\}\}|\{#(?:(?!\{#).)*?#\}", re.DOTALL)
# Elements whose content is text up to their end tag, never markup.
_RAW_TEXT = ("script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes")
_TAG_START = re.compile(r"</?[A-Za-z]")
_NAME = re.compile(r"[A-Za-z][^\s/>]*")
_VALUE = r"(?:\"[^\"<>]*\"|'[^'<>]*'|[^\s\"'<>=`]+)"
# Text before a ``>`` that reads as a tag whose ``<`` was lost: an end tag's ``/name``,
# or a name with attributes, the last one given a value (``div class="x"``; code's
# ``a = b->c`` puts spaces around its ``=``). There the ``>`` ends broken markup.
_LOST_TAG = re.compile(r"(?:^|\s)(?:/[A-Za-z][\w:.-]*\s*|[A-Za-z][\w:.-]*\s[^<>]*[\w-]=" + _VALUE + r"\s*/?)$")
# ``&`` before whitespace or the end is a character; ``&name`` and ``&#...`` are references.
_LONE_AMPERSAND = re.compile(r"&(?=\s|$)")


def _html(source: str) -> str:
    text = _TEMPLATE.sub(_blank, source)
    chars = list(text)
    for start, end in _text_runs(text):
        stray = text.find("<", start, end)  # a "<" that opens no tag: the ">"s after it may close it
        # Right after an end tag, a ">" is that tag's own typed twice (``</a>>``); after a
        # start tag it can begin the element's text (a prompt: ``<span class="prompt">> ``).
        first = start + 1 if text.startswith(">", start) and _ends_end_tag(text, start) else start
        for at in range(first, end if stray < 0 else stray):
            if text[at] == ">" and not _LOST_TAG.search(text[max(start, text.rfind("\n", 0, at) + 1):at]):
                chars[at] = " "
        for match in _LONE_AMPERSAND.finditer(text, start, end):
            chars[match.start()] = " "
    return "".join(chars)


def _text_runs(text: str) -> list[tuple[int, int]]:
    """The (start, end) spans of ``text`` that HTML reads as character data: outside
    tags, comments, declarations (``<!...>``, ``<?...>``) and raw-text elements."""
    runs: list[tuple[int, int]] = []
    at, size, run = 0, len(text), 0
    lowered = text.lower()
    while at < size:
        opening = text.find("<", at)
        if opening < 0:
            runs.append((run, size))
            break
        if not text.startswith(("<!", "<?"), opening) and not _TAG_START.match(text, opening):
            at = opening + 1  # a "<" that opens nothing is a character of the run
            continue
        runs.append((run, opening))
        if text.startswith("<!--", opening):
            close = text.find("-->", opening + 4)
            at = size if close < 0 else close + 3
        elif text.startswith(("<!", "<?"), opening):
            close = text.find(">", opening)
            at = size if close < 0 else close + 1
        else:
            at = _tag_end(text, opening)
            name = _NAME.match(text, opening + 1)
            if name and name.group(0).lower() in _RAW_TEXT and text[opening + 1] != "/":
                close = lowered.find("</" + name.group(0).lower(), at)
                at = size if close < 0 else close
        run = at
    return [(start, end) for start, end in runs if end > start]


def _ends_end_tag(text: str, at: int) -> bool:
    """The text before ``at`` ends with an end tag (``</name>``)."""
    return bool(_END_TAG_BEFORE.search(text, max(0, at - 80), at))


_END_TAG_BEFORE = re.compile(r"</[A-Za-z][\w:.-]*\s*>$")


def _tag_end(text: str, opening: int) -> int:
    """The index after the ``>`` that ends the tag at ``opening``, quotes allowed for."""
    quote = ""
    for at in range(opening + 1, len(text)):
        char = text[at]
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'" and text[at - 1] in "= \t":
            quote = char
        elif char == ">":
            return at + 1
        elif char == "<":
            return at  # a tag never closed: the next one starts here
    return len(text)


def _processing_instructions(text: str) -> str:
    return re.sub(r"<\?.*?\?>", _blank, text, flags=re.DOTALL)


# --- PHP ----------------------------------------------------------------------------

# ``$s{0}``, ``$a[1]{2}``, ``$this->s{$i}``: an offset in braces on one line.
_PHP_BRACE_OFFSET = re.compile(r"((?:\$|->)\w+|\])\{([^{}\n]*)\}")
# Names PHP 8 reserved that older code declares or calls (match: 8.0; readonly: 8.1).
_PHP_RESERVED_LATER = re.compile(
    r"(\b(?:class|interface|trait|function|new|extends|implements|instanceof)\s+|::|->|\\)"
    r"(match|readonly)\b", re.IGNORECASE)


def _php(source: str) -> str:
    text = _PHP_BRACE_OFFSET.sub(lambda m: f"{m.group(1)}[{m.group(2)}]", source)
    return _PHP_RESERVED_LATER.sub(lambda m: m.group(1) + "x" * len(m.group(2)), text)


# --- C and C++ --------------------------------------------------------------------------

# tree-sitter expands no macro. A name the file itself defines, without parameters, as
# nothing or as specifiers and attributes only (``#define API_CONSTEXPR constexpr``,
# ``#define NODISCARD [[nodiscard]]``) stands where the grammar expects none: before a
# constructor it turns the constructor into a function returning that name.
_OBJECT_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(?![\w(])(.*)$", re.MULTILINE)
_SPECIFIERS = re.compile(r"^(?:\s*(?:\[\[[^\[\]]*\]\]|__attribute__\s*\(\([^;{}]*?\)\)|__declspec\s*\([\w\s(),]*\)|"
                         r"constexpr|consteval|constinit|inline|__inline|__forceinline|static|extern|"
                         r"noexcept|explicit|virtual|__host__|__device__))*\s*$")
_COMMENT = re.compile(r"//.*$|/\*.*?\*/")
_DIRECTIVE_LINE = re.compile(r"^[ \t]*#.*$", re.MULTILINE)


def _c_family(source: str) -> str:
    if "#" not in source:
        return source
    bodies: dict[str, bool] = {}
    for name, body in _OBJECT_MACRO.findall(source):
        plain = _COMMENT.sub("", body).rstrip("\\ \t\r")
        bodies[name] = bodies.get(name, True) and bool(_SPECIFIERS.match(plain))
    names = [name for name, specifiers in bodies.items() if specifiers]
    if not names:
        return source
    use = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")
    out, at = [], 0
    for directive in _DIRECTIVE_LINE.finditer(source):  # the definitions themselves stay
        out.append(use.sub(_blank, source[at:directive.start()]))
        out.append(directive.group(0))
        at = directive.end()
    out.append(use.sub(_blank, source[at:]))
    return "".join(out)


# --- the table ------------------------------------------------------------------------

def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


_BLANKERS: dict[str, Callable[[str], str]] = {
    "css": _css,
    "html": lambda source: _html(_processing_instructions(source)),
    "php": _php,
    "c": _c_family,
    "cpp": _c_family,
}


def blanked(source: str, language: str) -> str:
    """``source`` with what ``language`` allows and its grammar rejects replaced by text
    of the same length the grammar reads; ``source`` itself for other languages."""
    blank = _BLANKERS.get(language)
    return blank(source) if blank is not None else source
