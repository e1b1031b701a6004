"""What a C or C++ compiler's messages still say about syntax when it does not know
the file's types.

C cannot be parsed without knowing which names are types: ``(size_t) n`` is a cast
or a call, ``foo_t * p;`` a declaration or a product. A compiler that cannot find a
header, or meets a type it was never shown, answers with ``unknown type name``,
``expected ')' before 'n'``, ``expected primary-expression before ')'``: messages
about the file's grammar that are wrong about the file. tree-sitter's grammar needs no
types, but its error recovery misses real errors and its verdict is not the
compiler's.

So in a file whose types are unknown, a message counts as a syntax problem only where
both agree: the compiler reports a syntax error on a line and tree-sitter sees an
error within a line of it (or the message is lexical and cannot come from a missing
type: a string never closed, a malformed ``#include``). Where they agree, tree-sitter's
view is kept too: it often names the place better.

Macros from headers that are not there mislead both at the same place:
``GGML_API int f(void);``, ``G_BEGIN_DECLS``, ``FOREACH(item, list) {``,
``int f(void) G_GNUC_CONST;``. An error beside a macro-like name (capitals) the file
never defines, in a declaration's specifiers or after its declarator, or on a line
such a name opens, is taken for the macro's doing.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Callable, Iterable

from . import grammar_gaps
from ..spelling import FUSED_PART, distance, fused
from .base import Diagnostic
from .registry import ERROR_LIMIT
from .readers import COMMENTS_AND_STRINGS, IN_HEADER, KNOWN_TEMPLATE_MISUSED, PREPROCESSOR, missing_header, syntax_in_header

if TYPE_CHECKING:
    from ..problems import Problem

NOTE = "types unknown: checked by the parser only"
# Said (not as a syntax problem) where the compiler still stopped at a missing header
# after every header before it was left out: it read nothing past that line.
UNREAD = "the compiler read no further (headers missing): the rest checked by the parser only"
# What says that a line comment hides a declaration typed onto its end (``declared_in_comments``).
DECLARED_IN_COMMENT = "a declaration typed onto a comment: "
# A compiler's message that it cannot resolve a name (gcc, g++, clang).
UNRESOLVED = re.compile(r"^(?:'[^']+' (?:undeclared|was not declared|has not been declared|is not a type|"
                        r"is not a (?:class|namespace|template)|(?:in namespace '[^']+' )?does not name a "
                        r"(?:type|template type)|is not a member of)|use of undeclared identifier|"
                        r"unknown type name|no type named|no template named|"
                        r"variable or field '[^']+' declared void|"
                        r"expected constructor, destructor, or type conversion)")
# The name a compiler suggests for one it could not resolve.
_MEANT = re.compile(r"did you mean '(\w+)'\?")


def unresolved_name(message: str) -> tuple[str, str] | None:
    """(the name, the name the compiler suggests or "") of a message that the compiler
    cannot resolve a name, or None for any other message."""
    name = _first_name(message) if UNRESOLVED.match(message) else ""
    if not name:
        return None
    meant = _MEANT.search(message)
    return name, meant.group(1) if meant else ""


# Messages that are about the text itself whatever its types: a token the lexer cannot
# finish, a preprocessor directive that is malformed or unbalanced.
_LEXICAL = re.compile(r"^(?:missing terminating |unterminated |missing '\)' after \"defined\"|missing '\)' in expression|#include expects |#include nested|"
                      r"#\w+ without #if|#else after #else|extra tokens at end of #\w+ directive|#elif after #else|invalid preprocessing directive|"
                      r"stray '[^']*' in program|empty character constant|"
                      r"macro names must be identifiers|no macro name given|expected ',' or '\)', found |"
                      r"expected parameter name, found |'#' is not followed by a macro parameter|"
                      r"token \"[^\"]*\" is not valid in preprocessor expressions|"
                      # (said of a name it knows as a namespace or class: no unknown type's doing)
                      r"found ':' in nested-name-specifier|"
                      # (a declarator followed by a comparison or a compound assignment)
                      r"expected (?:'=', ',', ';', 'asm' or '__attribute__'|initializer) before "
                      r"'(?:==|!=|<=|>=|&&|\|\||[-+*/%&|^]=|<<=|>>=)' token|" + DECLARED_IN_COMMENT + "|"
                      + KNOWN_TEMPLATE_MISUSED + "|" + PREPROCESSOR + ")")
NEAR = 1  # lines between a compiler's message and a tree-sitter error that agree


def types_unknown(diagnostics: Iterable[Diagnostic], text: str | None = None,
                  known: Callable[[], frozenset[str]] | None = None) -> bool:
    """The compiler could not see every type the file uses: a header it could not
    find, a name it never met, or (given the ``text``) a syntax message beside a
    macro-like name the file never defines (``int f(void) G_GNUC_CONST;`` in a header
    that leaves its macros to the file including it), nor do its headers (``known``,
    asked only then: ``__THROW`` is glibc's)."""
    diagnostics = list(diagnostics)
    if any(missing_header(d.message) for d in diagnostics):
        return True
    lines = text.split("\n") if text is not None else []
    defined = _declared_here(text) if text is not None else set()

    def macro(d: Diagnostic, defined: set[str]) -> bool:
        return 0 < d.line <= len(lines) and _beside_unknown_macro(lines[d.line - 1], d.column, d.message, defined)

    beside = [d for d in diagnostics if d.syntax and not UNRESOLVED.match(d.message) and macro(d, defined)]
    if beside and (known is None or any(macro(d, defined | known()) for d in beside)):
        return True
    # The names a real syntax error leaves unknown after it ("unknown type name 'count'"
    # once an 'else' lost its 'if') are its consequence: only those before it count.
    # So are names the compiler knows in another scope ("did you mean 'std::__detail'?"):
    # a brace typed twice closed the namespace they are in.
    first = min((d.line for d in diagnostics if d.syntax and not UNRESOLVED.match(d.message)), default=None)
    elsewhere = {name for d in diagnostics for name in _KNOWN_ELSEWHERE.findall(d.message)}
    return any(UNRESOLVED.match(d.message) and (first is None or d.line <= first)
               and not (keyword_mistake(d, text) if text is not None else misspelt_keyword(d.message))
               and _first_name(d.message) not in elsewhere
               for d in diagnostics)


# A compiler's hint that a name it did not find here is declared in a namespace or class.
_KNOWN_ELSEWHERE = re.compile(r"did you mean '[\w:]*::(\w+)'")


def _first_name(message: str) -> str:
    quoted = _QUOTED.search(message)
    return quoted.group(1) if quoted else ""


def _scrambled_keyword(message: str) -> bool:
    """The name a message says is unknown has exactly a keyword's letters in another
    order (``retrun``, ``whiel``, ``esle``): a keyword typed with two letters swapped,
    not a type from a header the compiler was not shown, so its messages are the file's."""
    name = _first_name(message)
    return len(name) >= 3 and name not in KEYWORDS and sorted(name) in _KEYWORD_LETTERS


def misspelt_keyword(message: str, text: str | None = None) -> bool:
    """The name a message says is unknown is a keyword in other letters' case
    (``Namespace detail {``, ``Return x;``, ``UNSIGNED char c;``), with its letters in
    another order (``vodi``, ``retrun``), the keyword the compiler itself suggests for
    it (``'in' was not declared in this scope; did you mean 'int'?``), or, given the
    ``text``, a long keyword with one letter typed, lost or changed in a type's place
    (``_typed_keyword``)."""
    name = _first_name(message)
    meant = _MEANT.search(message)
    return name not in KEYWORDS and (name.lower() in KEYWORDS or _scrambled_keyword(message)
                                     or (meant is not None and meant.group(1) in KEYWORDS)
                                     or (text is not None and (_typed_keyword(message, text)
                                                               or _fused_names(message, text))))


# In a type's place, where every header is found, a name the text uses once that is one
# letter from a keyword this long is no one's type: it is that keyword mistyped.
_TYPED_KEYWORD_LENGTH = 4
# What a compiler says of a name in a type's place: where a keyword such as ``typename``,
# ``struct`` or ``unsigned`` stands.
_IN_A_TYPES_PLACE = re.compile(r"^'\w+' (?:has not been declared|does not name a type|is not a type)|^unknown type name")


def _typed_keyword(message: str, text: str) -> bool:
    """The name a message says is unknown, in a type's place, is one letter typed into,
    lost from or changed in a keyword of four letters or more (``typenaame _ATraits``,
    ``ypename Cmp_Fn``, ``chaar``, ``car``), and the text uses it only there."""
    name = _first_name(message)
    return bool(_IN_A_TYPES_PLACE.match(message)) \
        and any(len(keyword) >= _TYPED_KEYWORD_LENGTH and distance(name, keyword, cap=2) == 1 for keyword in KEYWORDS) \
        and len(re.findall(rf"\b{re.escape(name)}\b", text)) == 1  # (the text searched last: it is the dearest)



def _fused_names(message: str, text: str) -> bool:
    """The name a message says is unknown, used only there, is two words of the text
    typed together, the space between them lost (``typenameTraits``,
    ``value_typesize_type``, ``is_pointertypename``): no header declares a name the
    text spells of its own two."""
    name = _first_name(message)
    if len(name) < 2 * FUSED_PART or len(re.findall(rf"\b{re.escape(name)}\b", text)) != 1:
        return False
    return fused(name, _words(text).__contains__) is not None


@functools.lru_cache(maxsize=8)
def _words(text: str) -> frozenset[str]:
    """The names and keywords ``text`` uses (remembered: each message asks)."""
    return frozenset(_WORDS.findall(_CODE_NOISE.sub(" ", text))) | KEYWORDS


# A name the text declares or uses as a tag (``struct link_map``, ``enum mode``).
_TAG = re.compile(r"\b(?:struct|union|enum)\s+(\w+)")
# gcc's own hint that the name is a tag it knows: "use 'struct' keyword to refer to the type".
_TAG_HINT = re.compile(r"use '(?:struct|union|enum)' keyword")


@functools.lru_cache(maxsize=8)
def _tags(text: str) -> frozenset[str]:
    return frozenset(_TAG.findall(_CODE_NOISE.sub(" ", text)))


def tag_without_keyword(message: str, tags: frozenset[str]) -> bool:
    """C's compiler says a name is no type (``link_map *r_map;``) that the file itself
    writes as a tag elsewhere (``struct link_map``; ``tags``), or that it knows as one:
    its ``struct`` was left out, which no header that is not there explains."""
    return message.startswith("unknown type name") and (_first_name(message) in tags or bool(_TAG_HINT.search(message)))


def misspelt_keywords(diagnostics: list[Diagnostic], text: str) -> list[Diagnostic]:
    """``diagnostics`` with each message that a name is unknown, where the name is a
    misspelt keyword (``misspelt_keyword``) the text does not define, made a syntax
    problem: g++ says only that ``vodi`` "does not name a type", and tree-sitter reads
    ``inline vodi`` as a declaration. Only where the compiler found every header the
    text includes: a platform header that is not there may define such a name (``BOOL``,
    ``CONST``, X11's ``Bool``); but none declares a sentence (``_sentence_line``)."""
    if any(missing_header(d.message) or d.message == UNREAD for d in diagnostics):
        return [Diagnostic(d.line, d.column, d.message, True)
                if not d.syntax and UNRESOLVED.match(d.message) and _sentence_line(d, _lines(text)) else d
                for d in diagnostics]
    defined = set(_DEFINE.findall(text))
    names = [d for d in diagnostics if not d.syntax and UNRESOLVED.match(d.message)]
    # A variable of the file's counts only where the compiler knew every other name: a
    # type it does not know makes it read a declaration as an expression, whose names
    # are then "not declared" (``buffer_new(arena_t *arena, ...)``).
    variables = all(keyword_mistake(d, text) or _variable_unresolved(d, text) for d in names)
    return [Diagnostic(d.line, d.column, d.message, True)
            if d in names and (keyword_mistake(d, text) or variables and _variable_unresolved(d, text))
            and _first_name(d.message) not in defined else d
            for d in diagnostics]


def keyword_mistake(d: Diagnostic, text: str) -> bool:
    """The name ``d`` says is unknown is a keyword misspelt (``misspelt_keyword``), a
    tag without its keyword (``tag_without_keyword``), a word right before a keyword
    that begins a statement of its own (``_before_a_statement_keyword``), or a variable
    the file declares elsewhere that ``misspelt_keywords`` made a syntax problem
    (``_variable_unresolved``): a mistake of the file's, which no header the compiler
    was not shown explains."""
    return misspelt_keyword(d.message, text) or tag_without_keyword(d.message, _tags(text)) \
        or _before_a_statement_keyword(d, _lines(text)) or (d.syntax and _variable_unresolved(d, text)) \
        or _sentence_line(d, _lines(text))


# What a compiler says of a name it finds nowhere in scope, in a type's place or an
# expression's.
NOT_DECLARED = re.compile(r"^'(\w+)' (?:has not been declared|was not declared in this scope)")
# Words that stand before a name without declaring it (``return n;``, ``case n:``), on top
# of the keywords that are no type.
_TYPE_KEYWORDS = frozenset("""auto bool char char8_t char16_t char32_t const double float int long short signed
unsigned void volatile wchar_t""".split())


def _variable_unresolved(d: Diagnostic, text: str) -> bool:
    """The name ``d`` says is not declared (g++'s "has not been declared", "was not
    declared in this scope") is one the file declares as a variable or a parameter on
    another line (``std::size_t n)``, ``const T& value)``): no header declares the file's
    own variable, so the message is about the file's text where it points (``twice(n
    std::size_t)``: two tokens swapped; ``put(const T&) { (void)value; }``: the name
    lost from the parameter). Lines of ``typedef`` or ``using`` declare types, not
    variables."""
    found = NOT_DECLARED.match(d.message)
    if found is None:
        return False
    name = found.group(1)
    if name in KEYWORDS or _MACRO_NAME.match(name):
        return False
    declared = _declared_as_variable(name)
    for n, line in enumerate(_code_lines(text), 1):
        if n == d.line or name not in line or re.search(r"\b(?:typedef|using)\b", line):
            continue
        for match in declared.finditer(line):
            word = match.group("word")
            if word is None or word in _TYPE_KEYWORDS or word not in KEYWORDS:
                return True
    return False


@functools.lru_cache(maxsize=8)
def _code_lines(text: str) -> list[str]:
    """The lines of ``text`` with its comments, strings and directives blanked
    (remembered: each message asks)."""
    return _CODE_NOISE.sub(grammar_gaps.blank, text).split("\n")


@functools.lru_cache(maxsize=64)
def _declared_as_variable(name: str) -> re.Pattern[str]:
    """``name`` declared after a type (a word, a template's ``>``, a ``*`` or ``&``),
    and followed by what ends a declarator."""
    return re.compile(rf"(?:\b(?P<word>[A-Za-z_]\w*)|(?<=[\w>])>|[*&])[ \t]*[*&]*[ \t]*(?<![.:>-])\b{re.escape(name)}\b"
                      rf"[ \t]*(?=[,;=)\[{{]|$)")


@functools.lru_cache(maxsize=8)
def _lines(text: str) -> list[str]:
    return text.split("\n")


# A sentence's end and the next one's first word (``respectively.  If not``): prose.
_SENTENCE_BREAK = re.compile(r"[a-z0-9][.!?]\s+[A-Z][a-z]+\b")
_CODE_MARKS = re.compile(r"[;{}()=<>\[\]]")


def _sentence_line(d: Diagnostic, lines: list[str]) -> bool:
    """The name the message says is unknown begins a line that is prose: words with a
    sentence's end and the next one's beginning in them, and none of code's marks (a
    comment's line split, its rest read as code: ``COPYING3 and COPYING.RUNTIME
    respectively.  If not, see``). No header declares a sentence."""
    line = lines[d.line - 1] if 1 <= d.line <= len(lines) else ""
    first = _LINE_START.match(line)
    return first is not None and first.group(1) == _first_name(d.message) and first.end(1) >= d.column \
        and _SENTENCE_BREAK.search(line) is not None and _CODE_MARKS.search(line) is None


# Keywords that begin a statement or a declaration of their own: no type, name or
# macro's use stands right before one on its line (``std using::tr1::is_same;``,
# ``total return;``: two tokens swapped, a line joined).
_STATEMENT_KEYWORDS = ("using", "namespace", "return", "typedef", "template", "goto", "break", "continue",
                       "switch", "case", "while", "for", "if")
# ... or, where a type was expected, a member's access: no type or macro is followed by
# one (``file.`` under a comment whose sentence it ends).
_BEFORE_STATEMENT_KEYWORD = re.compile(r"(\w+)(?:[ \t]+(?:%s)\b|(?=\.(?!\.)|->))" % "|".join(_STATEMENT_KEYWORDS))
_TYPES_PLACE = re.compile(r"^'\w+' does not name a type")


def _before_a_statement_keyword(d: Diagnostic, lines: list[str]) -> bool:
    """The name the message says is unknown stands, where the message points, right
    before a keyword that begins a statement or declaration of its own, or, where the
    compiler wanted a type, before a ``.`` or ``->``. (Not a macro-like name: ``LIB_API
    using ...`` may expand to an attribute.)"""
    line = lines[d.line - 1] if 1 <= d.line <= len(lines) else ""
    found = _BEFORE_STATEMENT_KEYWORD.match(line, max(d.column - 1, 0))
    if found is None or found.group(1) != _first_name(d.message) or _MACRO_NAME.match(found.group(1)):
        return False
    return found.group(0) != found.group(1) or bool(_TYPES_PLACE.match(d.message))


# A line comment whose sentence ends (a mark, then a blank) before a declaration of a
# tag or type that ends the line as a declaration does: ``/// ... thrown). struct
# insert_error : public container_error { };``.
_COMMENT_DECLARATION = re.compile(r"//.*?[.!?;:)][ \t]+(?P<code>(?:template[ \t]*<[^>\n]*>[ \t]*)?"
                                  r"(?:struct|class|union|enum|typedef)\b[^\n]*[;{][ \t]*(?:}[ \t]*;)?)[ \t]*$",
                                  re.MULTILINE)


def declared_in_comments(diagnostics: list[Diagnostic], text: str) -> list[Diagnostic]:
    """``diagnostics`` and a syntax problem on each line comment that holds, typed onto
    its end, the declaration of a name the compiler cannot resolve: a line joined onto
    the comment above it hid it, and the compiler reports only its uses."""
    unknown = {named[0] for d in diagnostics for named in [unresolved_name(d.message)] if named}
    if not unknown or "//" not in text:
        return diagnostics
    added = []
    for match in _COMMENT_DECLARATION.finditer(text):
        code = match.group("code")
        name = next((word for word in re.findall(r"\w+", code) if word in unknown), None)
        if name is not None:
            line = text.count("\n", 0, match.start()) + 1
            column = match.start("code") - (text.rfind("\n", 0, match.start()) + 1) + 1
            added.append(Diagnostic(line, column, f"{DECLARED_IN_COMMENT}'{name}'", True))
    return sorted(diagnostics + added, key=lambda d: d.line) if added else diagnostics


def agreed(diagnostics: list[Diagnostic], text: str, language: str,
           known: frozenset[str] = frozenset()) -> list[Diagnostic]:
    """``diagnostics`` (a compiler's, on a file whose types are unknown) with only the
    syntax problems that tree-sitter corroborates or that are lexical marked as syntax;
    tree-sitter's own errors next to a compiler error are added, as syntax problems.
    Neither counts where an unknown macro explains it (``_beside_unknown_macro``)."""
    from ..problems import tree_sitter_problems

    lines = text.split("\n")
    defined = _declared_here(text) | known  # (``known``: the macros its headers define)

    def explained(line: int, column: int, message: str = "", known: set[str] = defined) -> bool:
        row = lines[line - 1] if 0 < line <= len(lines) else ""
        above = lines[line - 2] if 1 < line <= len(lines) + 1 else ""
        return _lone_word(above, known) or _beside_unknown_macro(row, column, message, known)

    # (the file's own specifier macros blanked: tree-sitter would not expand them)
    parsed = parser_only(tree_sitter_problems(grammar_gaps.blanked(text, language), language), text)
    # An ERROR node can span a whole function: its first lines are where it went wrong.
    spans = [(p.line - NEAR, max(p.line, min(p.end_line, p.line + 2)) + NEAR) for p in parsed]

    def seen_by_parser(line: int) -> bool:
        return any(start <= line <= end for start, end in spans)

    unpaired_marks = functools.cache(lambda: _unpaired(text))  # counted once, when a message names a bracket
    functions = functools.cache(lambda: _functions(_COMMENT.sub(" ", text)))
    stopped = _stopped_at(diagnostics) or len(lines) + 1
    skipped = _skipped_bodies(diagnostics, lines)
    out: list[Diagnostic] = []
    said: list[int] = []  # lines with an error of the compiler's that no unknown macro explains
    last_explained = False  # the compiler's previous message was an unknown macro's doing
    for d in diagnostics:
        if d.message == UNREAD or d.message.startswith(IN_HEADER):
            out.append(d)
            continue
        # (a keyword misspelt: no unknown type's doing, see misspelt_keywords)
        lexical = bool(_LEXICAL.match(d.message)) or (d.syntax and keyword_mistake(d, text)) \
            or _comma_before_closer(d, lines)
        # a name it does not know: not a grammar problem
        name = bool(UNRESOLVED.match(d.message)) and not lexical
        grammar = not (name or missing_header(d.message)) and (lexical or not (
            explained(d.line, d.column, d.message) or (last_explained and _CASCADE.match(d.message))))
        if not name:
            last_explained = not grammar
        if grammar or name:
            # (g++ says only "'int64_t' does not name a type" of ``int64_t n = a->ne 2];``)
            said.append(d.line)
        named = _NAMED_BRACKET.findall(d.message) if d.syntax and not name else []
        unpaired = bool(named) and bool(set(named) & unpaired_marks())
        if d.syntax and not (lexical or unpaired or (grammar and (seen_by_parser(d.line)
                                                                 or _string_before_function(d, lines, functions)))):
            d = Diagnostic(d.line, d.column, d.message, False, doubtful=True)
        out.append(d)
    covered = {d.line for d in out if d.syntax}
    for p, (start, end) in zip(parsed, spans):
        if (any(start <= line <= end for line in said) or p.line > stopped
                or any(start <= p.line <= end for start, end in skipped)) \
                and not any(abs(p.line - line) <= NEAR for line in covered):
            out.append(Diagnostic(p.line, p.column, p.message, True))
            covered.add(p.line)
    out.sort(key=lambda d: (d.line, d.column))
    return out


_EXPRESSION_BEFORE_CLOSER = re.compile(r"^expected expression before '\)' token")


def _comma_before_closer(d: Diagnostic, lines: list[str]) -> bool:
    """The compiler expected an expression before a ``)`` that a ``,`` stands right before
    (``f(&module,)``): an argument list's trailing comma, whatever the types."""
    if not _EXPRESSION_BEFORE_CLOSER.match(d.message) or not 1 <= d.line <= len(lines):
        return False
    row = lines[d.line - 1]
    return row[d.column - 1:d.column] == ")" and row[:d.column - 1].rstrip().endswith(",")


# gcc names the word it met where it expected something else.
_BEFORE_NAME = re.compile(r"^expected .* before '([A-Za-z_]\w*)'")
_STRING_END = re.compile(r"\"\s*$")


def _string_before_function(d: Diagnostic, lines: list[str], functions: Callable[[], set[str]]) -> bool:
    """gcc expected something before a name right after a string literal, and the file
    declares that name a function (``{"_io" PyInit__io}``, a ',' lost): tree-sitter reads
    the two as one string, the name a macro that brings more of it, which it is not."""
    named = _BEFORE_NAME.match(d.message)
    row = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
    return named is not None and row[max(d.column - 1, 0):].startswith(named.group(1)) \
        and _STRING_END.search(row[:max(d.column - 1, 0)]) is not None and named.group(1) in functions()


def _skipped_bodies(diagnostics: list[Diagnostic], lines: list[str]) -> list[tuple[int, int]]:
    """The lines of each function body the compiler did not read: a definition that
    starts with a type it does not know ("'T' does not name a type" at the line's first
    word, g++), or one of whose parameters has such a type ("unknown type name 'T'"
    inside the parentheses, gcc), is skipped up to its closing brace, so tree-sitter's
    problems there count as they are, as where no compiler ran."""
    bodies = []
    for d in diagnostics:
        row = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
        before = row[:max(d.column - 1, 0)]
        starts = _NOT_A_TYPE.match(d.message) and d.column == len(row) - len(row.lstrip()) + 1
        parameter = d.message.startswith("unknown type name") and before.count("(") > before.count(")")
        if not (starts or parameter):
            continue
        body = _body_after(lines, d.line)
        if body is not None:
            bodies.append(body)
    return bodies


def _body_after(lines: list[str], line: int) -> tuple[int, int] | None:
    """(first, last) line of the braces of the definition that starts on ``line``;
    None where a ';' comes first (a declaration) or the braces never close."""
    depth, first = 0, None
    for number in range(line, len(lines) + 1):
        for char in lines[number - 1]:
            if char == ";" and first is None:
                return None
            if char == "{":
                depth += 1
                first = number if first is None else first
            elif char == "}" and first is not None:
                depth -= 1
                if depth == 0:
                    return first, number
    return None


_NOT_A_TYPE = re.compile(r"^'[^']+' (?:in namespace '[^']+' )?does not name a type")


# A bracket a message names: "expected '}' at end of input", "before '{' token".
_NAMED_BRACKET = re.compile(r"'([{}()])'")
_CODE_NOISE = re.compile(COMMENTS_AND_STRINGS + r"|^[ \t]*#(?:[^\n\\]|\\.)*", re.DOTALL | re.MULTILINE)


def _unpaired(text: str) -> set[str]:
    """The brackets of the kinds the file opens and closes unequally often (comments,
    strings, directives and all but each conditional's first branch left out): a count
    no unknown type changes, so a message naming one is about the file's syntax."""
    code = _CODE_NOISE.sub(" ", grammar_gaps.first_branches(text))
    return {mark for pair in ("{}", "()") if code.count(pair[0]) != code.count(pair[1]) for mark in pair}


def _stopped_at(diagnostics: list[Diagnostic]) -> int | None:
    """The line past which the compiler read nothing, when it stopped at its error limit
    (an unknown type on every line of a long table) or at a header it could not find
    (``UNREAD``): the rest of the file is as unread
    as where no compiler ran, and tree-sitter's problems there count as they are."""
    told = [d for d in diagnostics if not missing_header(d.message) and d.message != UNREAD]
    stops = [d.line for d in diagnostics if d.message == UNREAD]
    if len(told) >= ERROR_LIMIT:
        stops.append(max(d.line for d in told) + NEAR)
    return min(stops, default=None)


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE)
_ENUM_BODY = re.compile(r"\benum\b[^;{}()]*\{([^{}]*)\}")
# An enumerator's name: first in its item, or first on its line (a ``,`` lost before it).
_ENUMERATOR = re.compile(r"(?:^|,)\s*([A-Za-z_]\w*)\s*(?=[=,]|$)", re.MULTILINE)
_TEMPLATE_PARAMETER = re.compile(r"\b(?:class|typename)\s+([A-Za-z_]\w*)\s*(?=[,>=])")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
# A name, its parenthesised list, then a body's brace or a ';': a function's definition or
# declaration when each of the list's parts is a type and a name (``_MM_GET_EXCEPTION_STATE
# (void)``, ``PyObject* PyInit__io(void);``), not a macro's arguments (``FOREACH(item, list) {``).
_FUNCTION_HEAD = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^(){};]*)\)\s*[;{]")
_PARAMETER = re.compile(r"^(?:void|\.\.\.|(?:const\s+|struct\s+|unsigned\s+)*[A-Za-z_][\w:<>]*[\s*&]+[A-Za-z_]\w*(?:\[\w*\])*)$")


def _declared_here(text: str) -> set[str]:
    """The names the text itself gives a meaning that no header need supply: its macros
    (``#define``), its enumerators (``OP_MODULO = 59,``), its templates' parameters
    (``template<class _E>``) and its functions (``_MM_GET_ROUNDING_MODE (void) {``),
    which look like macros' names and are none."""
    code = _COMMENT.sub(" ", text)
    names = set(_DEFINE.findall(text)) | set(_TEMPLATE_PARAMETER.findall(code))
    for body in _ENUM_BODY.finditer(code):
        names.update(_ENUMERATOR.findall(body.group(1)))
    return names | _functions(code)


def _functions(code: str) -> set[str]:
    """The functions the text (without its comments) defines or declares (``_FUNCTION_HEAD``)."""
    return {name for name, parameters in _FUNCTION_HEAD.findall(code)
            if name not in KEYWORDS and all(_PARAMETER.match(part.strip()) for part in parameters.split(","))}
_MACRO_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*[A-Z][A-Z0-9_]*$")  # GGML_API, G_BEGIN_DECLS, FOREACH
# A macro-like name that ends a declaration (``int f(void) G_GNUC_CONST;``): not an
# argument (``f(g2 NULL, NULL)``).
_TRAILING_ANNOTATION = re.compile(r"\b[A-Z_][A-Z0-9_]*[A-Z][A-Z0-9_]*\s*[;{]?\s*$")
_LONE_WORD = re.compile(r"^\s*([A-Za-z_]\w*)\s*$")
_WORD_BEFORE = re.compile(r"([A-Za-z_]\w*)\s*$")
# A name that ends in capitals joined by '_' (``PyObject_HEAD_INIT``, ``G_DEFINE_TYPE``).
_CAPITAL_TAIL = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]$")
_WORDS = re.compile(r"[A-Za-z_]\w*")
_WORD_AT = re.compile(r"\s*([A-Za-z_]\w*)")
_LINE_START = re.compile(r"^\s*([A-Za-z_]\w*)\s*(\()?")
# Only words and stars before the problem on its line: a declaration's specifiers.
_DECLARATION_PREFIX = re.compile(r"^[\w\s*]*$")
# gcc names the word after a declarator it did not expect there.
_AFTER_DECLARATOR = re.compile(r"^expected (?:declaration specifiers|initializer|"
                               r"'=', ',', ';', 'asm' or '__attribute__') before '(\w+)'")
# gcc's words for a declaration that starts with a type it does not know, at file scope.
_UNKNOWN_TYPE_AT_FILE_SCOPE = re.compile(r"^expected '=', ',', ';', 'asm' or '__attribute__' before '(\w+)'")
KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void
volatile while _Bool _Complex _Atomic _Alignas _Alignof _Noreturn _Static_assert _Thread_local bool true false
class namespace template typename public private protected virtual override final operator new delete this
using friend explicit mutable constexpr consteval constinit decltype noexcept nullptr static_assert
thread_local try catch throw co_await co_return co_yield concept requires export import module
wchar_t char8_t char16_t char32_t""".split())

_KEYWORD_LETTERS = [sorted(word) for word in KEYWORDS if len(word) >= 3]
_QUOTED = re.compile(r"'(\w+)'")


# What follows a macro that opens a declaration or stands alone (``GGML_API int``,
# ``G_BEGIN_DECLS``, ``EXPORT *p``, ``FOREACH(x) {``): no operator such as ``-`` or ``.``,
# which only an expression has (``IBM-HRL.``: prose, not a macro's use).
_AFTER_MACRO = re.compile(r"\s*(?:$|[\w*&(\[{;,:<])")


def _beside_unknown_macro(row: str, column: int, message: str, defined: set[str]) -> bool:
    """A problem at ``column`` of the line ``row`` that an unknown macro or type can
    explain: it is on or right after a macro-like name the file never defines
    (``GGML_API struct ...``, ``G_BEGIN_DECLS``), on a line a macro opens that is not a
    plain call (``FOREACH(item, list) {``, ``LIST_HEAD(h, e) head = ...``), or gcc
    says a declaration starts with a name it does not know as a type (``GType f(void);``)."""
    def unknown(word: str, macro_only: bool = True) -> bool:
        return word not in KEYWORDS and word not in defined and (not macro_only or bool(_MACRO_NAME.match(word)))

    at = max(column - 1, 0)
    before, after = _WORD_BEFORE.search(row[:at]), _WORD_AT.match(row[at:])
    opens = after is not None and unknown(after.group(1)) and _AFTER_MACRO.match(row, at + after.end()) is not None
    annotates = any(unknown(word) for word in _WORDS.findall(row[:at])) and _AFTER_MACRO.match(row, at) is not None
    if _DECLARATION_PREFIX.match(row[:at]) and (annotates or opens):
        return True  # GGML_API struct, static GGML_INLINE int, G_BEGIN_DECLS, static G_TLS T x
    named = _AFTER_DECLARATOR.match(message)
    if named and unknown(named.group(1)):
        return True  # int f(void) G_GNUC_CONST;
    # (a macro that opens the line explains nothing past the ';' that ends its statement)
    start = _LINE_START.match(row) if ";" not in row[:at] else None
    if start and start.group(2) and _CAPITAL_TAIL.search(start.group(1)) and start.group(1) not in defined \
            and not row[_balanced_end(row, start.end(2) - 1):].strip():
        return True  # PyVarObject_HEAD_INIT(NULL, 0) alone on its line: it brings its own ','
    if start and unknown(start.group(1)):
        if not start.group(2):
            rest = row[start.end():].lstrip()
            if not rest or rest[0].isalpha() or rest[0] in "_*":
                return True  # an annotation: GGML_API int f(void);
        else:
            rest = row[_balanced_end(row, start.end(2) - 1):].strip()
            if rest and (rest[0] == "{" or rest[0].isalpha() or rest[0] == "_"):
                return True  # FOREACH(...) {, LIST_HEAD(...) head: not a call statement
    file_scope = _UNKNOWN_TYPE_AT_FILE_SCOPE.match(message)
    if file_scope and before and unknown(before.group(1), macro_only=False):
        return True
    return False


# What gcc says next when a macro after a function's declarator made it read the
# following lines as old-style parameter declarations (``int f(void) G_GNUC_CONST;``).
_CASCADE = re.compile(r"^expected (?:'=', ',', ';', 'asm' or '__attribute__' before '\{' token|'\{' at end of input)")


def run_into_headers(diagnostics: list[Diagnostic], text: str, language: str) -> list[Diagnostic]:
    """``diagnostics`` and, for each syntax error the compiler met inside a header the
    file includes (``syntax_in_header``), tree-sitter's last error above that
    ``#include`` as a syntax problem: what the file's own text there left open (a
    comment's closer typed as ``*/**``) runs into the header. Where tree-sitter sees
    none above, the header's error is its own (one that needs another included first);
    where the compiler reports that line already, it has said what is wrong there."""
    including = sorted({d.line for d in diagnostics if syntax_in_header(d.message)})
    if not including:
        return diagnostics
    from ..problems import tree_sitter_problems

    parsed = parser_only(tree_sitter_problems(grammar_gaps.blanked(text, language), language), text)
    added: dict[tuple[int, int], Diagnostic] = {}
    for line in including:
        above = [p for p in parsed if p.line < line]
        if above and (above[-1].line, above[-1].column) not in added \
                and not any(d.syntax and d.line == above[-1].line for d in diagnostics):
            p = above[-1]
            added[p.line, p.column] = Diagnostic(p.line, p.column, f"{p.message}: it runs into the header included "
                                                 f"on line {line}", True)
    return sorted(diagnostics + list(added.values()), key=lambda d: d.line) if added else diagnostics


def parser_only(problems: list[Problem], text: str) -> list[Problem]:
    """tree-sitter's ``problems`` of a C or C++ ``text`` without those a macro can
    explain. tree-sitter expands no macro: to it, even those the file defines are
    unknown; and its error may span the macro (``int f(void) G_GNUC_CONST``)."""
    lines = text.split("\n")
    # (its enumerators and templates' parameters it reads as what they are)
    declared = _declared_here(text) - set(_DEFINE.findall(text)) if problems else set()
    out = []
    for p in problems:
        row = _row(lines, p.line)
        above = _row(lines, p.line - 1)
        if _lone_word(above, declared) or _beside_unknown_macro(row, p.column, "", declared) \
                or _TRAILING_ANNOTATION.search(p.text) or _TRAILING_ANNOTATION.match(row[p.column - 1:].lstrip()):
            continue
        out.append(p)
    return out


def _lone_word(row: str, known: set[str]) -> bool:
    """A line of one name that is no keyword: a macro before a declaration
    (``G_BEGIN_DECLS``, ``PyMODINIT_FUNC`` above ``PyInit_x(void)``)."""
    lone = _LONE_WORD.match(row)
    return bool(lone and lone.group(1) not in KEYWORDS and lone.group(1) not in known)


def _row(lines: list[str], line: int) -> str:
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _balanced_end(row: str, opening: int) -> int:
    """The index after the ``)`` matching the ``(`` at ``opening`` (the line's end if none)."""
    depth = 0
    for index in range(opening, len(row)):
        depth += {"(": 1, ")": -1}.get(row[index], 0)
        if depth == 0:
            return index + 1
    return len(row)
