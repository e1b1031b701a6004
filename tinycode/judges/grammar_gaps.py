"""What a language allows that its tree-sitter grammar rejects, blanked before a
second look by the parser.

Where no tool of the language's own is installed (CSS and HTML have none; PHP's
``php -l`` may be missing), tree-sitter alone decides, and its grammars are stricter
than the languages in places real files use:

- CSS: ``! important`` with a space (the CSS syntax allows whitespace after ``!``) or in
  capitals, an unquoted ``url(./a.svg)`` or ``url(?a=b&c=d)``, Internet Explorer's
  ``progid:...(key='value')`` filters and ``*zoom`` properties; nesting's ``&`` past a
  selector's start; media and container features in range form (``(width >= 600px)``),
  named containers and ``style()`` queries; ``@import ... layer(x) supports(...)``,
  dotted layer names, an attribute selector's ``i``/``s`` flag, ``@page :first``, empty
  declarations (``;;``), names in letters past ASCII.
- HTML: an ``<?xml ...?>`` declaration or other ``<?...>`` (XHTML's processing
  instructions; HTML reads them as comments), template directives (``{% %}``, ``{{ }}``,
  ``{# #}``) in the templates that HTML files often are, a ``>`` or a lone ``&`` in
  text, a ``<`` or ``&`` in a title or text area (HTML reads all as characters; a ``>`` that ends what reads as a tag whose
  ``<`` was lost still counts).
- PHP before 8: braces for string offsets (``$s{0}``), names PHP 8 later reserved
  (``class ReadOnly``, ``function match``).
- TypeScript (no tool of its own here; its compiler is a package of the project's):
  variance annotations on type parameters (``<in out T>``, 4.7), an ``import("x").Name<T>`` type, ``export type * from`` (5.0), an
  optional destructured parameter in a function type (``({ a }?: T) => void``).
- JavaScript (where node cannot read the file: JSX, decorators) and TypeScript: JSX
  attributes named by a reserved word (``class``, ``for``), ``accessor`` fields
  (``languages.javascript.grammar_readable``).
- C#: conditional directives inside a list or an expression (a parameter list, an enum):
  read as a preprocessor taking each group's first branch reads them.
- Java 25's ``import module``; Rust 1.82's ``safe`` items in an ``unsafe extern`` block.
- C and C++, where the compiler could not say (or did not know the file's types): the
  file's own macros that stand for specifiers or for nothing (tree-sitter expands none);
  an operator called by its name (``this->operator=(other)``).

Each is replaced by text of the same length that the grammar reads (blanks, or the
same construct spelt as the grammar knows it), so lines and columns stay those of
the file. A mistake inside a blanked span goes unseen: each span is one the
language itself does not judge (a template's directive), or whose own form is
checked before it is blanked.
"""

from __future__ import annotations

import re
from typing import Callable

from ..languages.javascript import grammar_readable

# --- CSS ----------------------------------------------------------------------------

_CSS_IMPORTANT = re.compile(r"!(\s*)(important)\b", re.IGNORECASE)
# An unquoted URL holds no whitespace, quotes or parentheses (CSS Syntax, url-token).
_CSS_URL = re.compile(r"\burl\(([^\s\"'()]+)\)", re.IGNORECASE)
# progid:DXImageTransform.Microsoft.gradient(startColorStr='#f5f5f5', ...) on one line.
# Its quotes must pair: a quote left open there is a mistake the parser still sees.
_CSS_PROGID = re.compile(r"\bprogid:[\w.]+\((?:[^()\n;{}\"']|\"[^\"\n]*\"|'[^'\n]*')*\)", re.IGNORECASE)


# A media or container feature in range form: ``(width >= 600px)``, ``(400px < width <= 800px)``.
_CSS_VALUE = r"\s*[\w.%+-]+\s*"
_CSS_RANGE = re.compile(r"\(" + _CSS_VALUE + r"(?:<=?|>=?|=)" + _CSS_VALUE + r"(?:(?:<=?|>=?)" + _CSS_VALUE + r")?\)")
# A container query's ``style(--x: y)`` or ``scroll-state(stuck: top)``, one level deep.
_CSS_QUERY_FUNCTION = re.compile(r"\b(?:style|scroll-state)\([^()\n]*\)")
# The container's name before its query: ``@container card (min-width: 400px)``.
_CSS_CONTAINER_NAME = re.compile(r"(?<=@container)(\s+)(?!(?:not|and|or)\b)([A-Za-z_-][\w-]*)(?=\s*(?:\(|not\b))")
# ``@import url(x.css) layer(base) supports(display: grid)``: the cascade layer and condition.
_CSS_IMPORT = re.compile(r"@import\b[^;{}]*;")
_CSS_IMPORT_CONDITION = re.compile(r"\blayer(?:\([^()]*\))?|\bsupports\((?:[^()]|\([^()]*\))*\)")
_CSS_LAYER_NAMES = re.compile(r"@layer\b[^;{}]*")
# An attribute selector's case flag: ``[data-x="y" i]``.
_CSS_ATTRIBUTE_FLAG = re.compile(r"(\[[^\[\]\n]*?=\s*(?:\"[^\"\n]*\"|'[^'\n]*'|[\w-]+))(\s+[iIsS])(?=\s*\])")
_CSS_PAGE_PSEUDO = re.compile(r"(?<=@page)(\s*[\w-]*\s*)(:(?:first|left|right|blank))\b")
# An empty declaration (``{ ; color: red;; }``), which CSS skips.
_CSS_EMPTY_DECLARATION = re.compile(r"(?<=[{;])(\s*);")
# Internet Explorer's ``*zoom: 1`` (a property only IE 7 and older read).
_CSS_STAR_HACK = re.compile(r"(?<=[{;])(\s*)\*(?=[A-Za-z-]+\s*:)")


def _css(source: str) -> str:
    text = _CSS_IMPORTANT.sub(lambda m: "!important" + m.group(1), source)
    text = _CSS_URL.sub(lambda m: "url(" + "x" * len(m.group(1)) + ")", text)
    text = _CSS_PROGID.sub(lambda m: "x" * len(m.group(0)), text)
    # Nesting: ``&`` stands for the parent's selector, wherever in a selector it is; the
    # grammar reads it only first. A type selector's name reads where it stands.
    text = re.sub(r"&", lambda m: "&" if _begins_selector(text, m.start()) else "a", text)
    text = _CSS_RANGE.sub(_feature, text)
    text = _CSS_QUERY_FUNCTION.sub(_feature, text)
    text = _CSS_CONTAINER_NAME.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)
    text = _CSS_IMPORT.sub(lambda m: _CSS_IMPORT_CONDITION.sub(blank, m.group(0)), text)
    text = _CSS_LAYER_NAMES.sub(lambda m: re.sub(r"(?<=\w)\.(?=[A-Za-z_-])", "-", m.group(0)), text)
    text = _CSS_ATTRIBUTE_FLAG.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)
    text = _CSS_PAGE_PSEUDO.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)
    while True:
        emptied = _CSS_EMPTY_DECLARATION.sub(lambda m: m.group(1) + " ", text)
        if emptied == text:
            break
        text = emptied
    text = _CSS_STAR_HACK.sub(lambda m: m.group(1) + " ", text)
    # Names may hold any letter past ASCII (``font-family: ヒラギノ角ゴ ProN``); the grammar's
    # hold ASCII only.
    return re.sub(r"[^\x00-\x7f]", "a", text)


def _begins_selector(text: str, at: int) -> bool:
    """Is ``at`` where a selector begins (after ``{``, ``}``, ``;``, ``,`` or nothing)?"""
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return at == 0 or text[at - 1] in "{};,"


def _feature(match: re.Match[str]) -> str:
    """A media feature the grammar reads, as long as ``match``: ``(a:xxxx)``."""
    return "(a:" + "x" * (len(match.group(0)) - 4) + ")" if len(match.group(0)) >= 5 else match.group(0)


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
_LONE_AMPERSAND = re.compile(r"&+(?=\s|$)")
# Elements whose content is text with character references, never markup (RCDATA): a
# ``<`` there is a character; tree-sitter reads them as other elements.
_RCDATA = re.compile(r"(<(title|textarea)\b[^<>]*>)(.*?)(?=</\2\s*>)", re.IGNORECASE | re.DOTALL)


def _html(source: str) -> str:
    text = _TEMPLATE.sub(blank, source)
    text = _RCDATA.sub(lambda m: m.group(1) + re.sub(r"[<&]", " ", m.group(3)), text)
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
            chars[match.start():match.end()] = " " * (match.end() - match.start())
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
    return re.sub(r"<\?.*?\?>", blank, text, flags=re.DOTALL)


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


# --- TypeScript -------------------------------------------------------------------------

# ``in``/``out`` before a type parameter's name, in its list (after ``<`` or ``,``).
_TS_VARIANCE = re.compile(r"(?<=[<,])(\s*)((?:in\s+)?out\s+|in\s+)(?=[A-Za-z_$][\w$]*\s*(?:extends\b|=|,|>))")
# ``import("x")`` with a literal module name, then a member: the grammar takes no type
# arguments after it. A name of the same length reads the same.
_TS_IMPORT_TYPE = re.compile(r"(?<![\w$.])import\(\s*([\"'])[^\"'\n]*\1\s*\)(?=\.)")
_TS_EXPORT_TYPE_STAR = re.compile(r"\bexport\s+(type)(?=\s+\*)")
# An optional destructured parameter in a function type: ``({ behavior }?: Options) => void``.
_TS_OPTIONAL_PATTERN = re.compile(r"(?<=[}\]])\?(?=:)")
# A generic call signature on its own line, after a member that ends without ``;``:
# TypeScript reads no type arguments across a line break, the grammar reads
# ``X\n<T = {}>(...)`` as ``X<T ...``. The indentation's first character becomes the ``;``.
_TS_GENERIC_SIGNATURE = re.compile(r"^[ \t](?=[ \t]*<\s*[A-Za-z_$][\w$]*\s*(?:=|extends\b|,|>\s*\())", re.MULTILINE)
_TS_TRAILING_COMMENT = re.compile(r"(?:\s*(?:/\*(?:(?!/\*).)*?\*/|^[ \t]*//[^\n]*))+\s*\Z", re.DOTALL | re.MULTILINE)


def _member_ends_open(text: str, at: int) -> bool:
    """Whether the code before ``at``, comments left out, ends with a name or a closed
    bracket: a member that a ``;`` may end."""
    before = text[:at]
    tail = _TS_TRAILING_COMMENT.search(before[-2000:])
    if tail is not None:
        before = before[:len(before) - len(tail.group(0))]
    before = before.rstrip()
    return bool(before) and (before[-1].isalnum() or before[-1] in "_$>)]")


def _typescript(source: str) -> str:
    text = source
    if "<" in text:
        text = _TS_GENERIC_SIGNATURE.sub(
            lambda m: ";" if _member_ends_open(m.string, m.start()) else m.group(0), text)
    text = _TS_VARIANCE.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)
    text = _TS_IMPORT_TYPE.sub(lambda m: "_" * len(m.group(0)), text)
    text = _TS_OPTIONAL_PATTERN.sub(" ", text)
    return _TS_EXPORT_TYPE_STAR.sub(lambda m: m.group(0)[:m.start(1) - m.start(0)] + "    ", text)


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


# An operator called by name on an object: ``this->operator=(other)``, ``a.operator[](1)``.
_CPP_OPERATOR_CALL = re.compile(r"(?:(?<=->)|(?<=\.))(\s*operator)(\s*(?:\(\)|\[\]|[-+*/%^&|~!<>=,]{1,3}))(?=\s*\()")


# ``extern "C" {`` opened in one conditional and its ``}`` closed in another
# (``#ifdef __cplusplus``): the grammar reads each conditional as a whole, so neither
# brace has its partner. Both are blanked; the compiler still reads them.
_LINKAGE_SPLIT = re.compile(r"(?<=\n)([ \t]*#[ \t]*if[^\n]*\n)([ \t]*(?:extern[ \t]+\"C\"[ \t]*\{|\})[ \t]*)"
                            r"(?=(?://[^\n]*)?\n[ \t]*#[ \t]*endif\b)")


def _in_list(lines: list[str], number: int) -> bool:
    """The code before line ``number`` (comments, directives and blank lines passed
    over) ends with ``,`` or ``(``: a conditional group there is inside a list."""
    for row in reversed(lines[max(0, number - 20):number]):
        code = _COMMENT.sub("", row).strip()
        if code and not code.startswith(("#", "*", "/*")):
            return code.endswith((",", "("))
    return False


# A macro that makes a string beside a string literal: ``STR(NAME) ".Type"``,
# ``"%" PRIu64 "\n"``, ``".V" STR(NAME)``. The two are one string once expanded; the
# grammar sees a call or a name where a string goes on. A string of the same length reads
# the same for it. Only names written as macros are (two capitals at least: not a
# function's call missing its operator, ``g(x) "a"``), and only with a blank between
# (not a literal's suffix, ``"abc"_s``).
_MACRO_LIKE = r"\b(?=\w*[A-Z]\w*[A-Z])[A-Za-z_]\w*"
_CALL_BEFORE_STRING = re.compile(_MACRO_LIKE + r"\s*\([^()\n\"]*\)(?=[ \t]*\")")
_NAME_AFTER_STRING = re.compile(r"(?<=\")([ \t]+)(" + _MACRO_LIKE + r"(?:\s*\([^()\n\"]*\))?)(?=[ \t]*[\",;)])")


def _as_string(text: str) -> str:
    return '"' + "_" * (len(text) - 2) + '"'


def _c_family(source: str) -> str:
    if "operator" in source:
        source = _CPP_OPERATOR_CALL.sub(lambda m: m.group(1) + "_" * len(m.group(2)), source)
    if '"' in source:
        source = _CALL_BEFORE_STRING.sub(lambda m: _as_string(m.group(0)), source)
        source = _NAME_AFTER_STRING.sub(lambda m: m.group(1) + _as_string(m.group(2)), source)
    if "#" not in source:
        return source
    if "extern" in source:
        source = _LINKAGE_SPLIT.sub(lambda m: m.group(1) + " " * len(m.group(2)), "\n" + source)[1:]
    source = first_branches(source, _in_list)
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
        out.append(use.sub(blank, source[at:directive.start()]))
        out.append(directive.group(0))
        at = directive.end()
    out.append(use.sub(blank, source[at:]))
    return "".join(out)


# --- conditional groups: C#, and lists in C and C++ ---------------------------------------

# A conditional directive's line; the grammars read one only between members and
# statements, not inside a list (``#if`` in an initialiser, a parameter list, an enum).
CONDITIONAL = re.compile(r"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b[ \t]*(\S*)")
_NEVER = ("0", "false")  # ``#if 0``: its first branch is the one never read


def first_branches(source: str, inside: Callable[[list[str], int], bool] | None = None) -> str:
    """The text a preprocessor that takes each conditional group's first branch reads
    (the ``#else`` of an ``#if 0``): directive lines and the other branches blanked.
    ``inside(lines, number)`` chooses the groups, by the line of their ``#if``; all when
    None."""
    if "#" not in source:
        return source
    lines = source.split("\n")
    groups: list[list[bool]] = []  # per open group: [chosen, this branch read, a branch read]

    def hidden() -> bool:
        return any(chosen and not reading for chosen, reading, _ in groups)

    for number, line in enumerate(lines):
        directive = CONDITIONAL.match(line)
        if directive is None:
            if hidden():
                lines[number] = " " * len(line)
            continue
        kind = directive.group(1)
        if kind.startswith("if"):
            chosen = hidden() or inside is None or inside(lines, number)
            reading = directive.group(2) not in _NEVER
            groups.append([chosen, reading, reading])
            blanked = chosen
        elif kind == "endif":
            blanked = groups.pop()[0] if groups else False
            blanked = blanked or hidden()
        else:
            if groups:
                group = groups[-1]
                group[1], group[2] = not group[2], True
            blanked = bool(groups) and groups[-1][0]
        if blanked:
            lines[number] = " " * len(line)
    return "\n".join(lines)


# A pointer dereferenced right after a cast (``return *(nint*)(p + 8);``): the grammar
# reads no ``*`` before a cast. The cast alone reads the same for it; only a ``*`` where
# an operand begins is blanked, never a product's.
_CS_DEREFERENCED_CAST = re.compile(r"((?:[=(,;{}?:!]|\breturn)\s*)\*"
                                   r"(?=\s*\((?:\s*\()?\s*[A-Za-z_][\w.]*\s*\**\s*\))")


# --- Java and Rust ----------------------------------------------------------------------

# Java 25's ``import module java.base;``.
_JAVA_IMPORT_MODULE = re.compile(r"^([ \t]*import[ \t]+)(module)(?=[ \t]+[\w.]+[ \t]*;)", re.MULTILINE)
# Rust 1.82's ``safe fn`` / ``safe static`` in an ``unsafe extern`` block.
_RUST_SAFE_ITEM = re.compile(r"\bsafe(?=[ \t]+(?:fn|static)\b)")


# --- the table ------------------------------------------------------------------------

def blank(match: re.Match[str]) -> str:
    """What ``match`` covers, as blanks: every line where it was."""
    return re.sub(r"[^\n]", " ", match.group(0))


_BLANKERS: dict[str, Callable[[str], str]] = {
    "css": _css,
    "html": lambda source: _html(_processing_instructions(source)),
    "php": _php,
    "typescript": lambda source: grammar_readable(_typescript(source)),
    "tsx": lambda source: grammar_readable(_typescript(source)),
    "javascript": grammar_readable,
    "csharp": lambda source: _CS_DEREFERENCED_CAST.sub(lambda m: m.group(1) + " ", first_branches(source)),
    "java": lambda source: _JAVA_IMPORT_MODULE.sub(lambda m: m.group(1) + "      ", source),
    "rust": lambda source: _RUST_SAFE_ITEM.sub("    ", source),
    "c": _c_family,
    "cpp": _c_family,
}


def blanked(source: str, language: str) -> str:
    """``source`` with what ``language`` allows and its grammar rejects replaced by text
    of the same length the grammar reads; ``source`` itself for other languages."""
    blank = _BLANKERS.get(language)
    return blank(source) if blank is not None else source
