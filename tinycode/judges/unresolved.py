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
both agree: the compiler reports an error on a line and tree-sitter sees an error
within a line of it (or the message is lexical and cannot come from a missing type: a
string never closed, a malformed ``#include``). Where they agree, tree-sitter's view is
kept too, since the compiler may only say that a name is unknown
(``ofr (size_t i = 0; ...)`` is, to g++, a call to an undeclared ``ofr``).
"""

from __future__ import annotations

import re
from typing import Iterable

from .base import Diagnostic
from .readers import missing_header

NOTE = "types unknown: checked by the parser only"
# A compiler's message that it cannot resolve a name (gcc, g++, clang).
UNRESOLVED = re.compile(r"^(?:'[^']+' (?:undeclared|was not declared|has not been declared|is not a type|"
                        r"is not a (?:class|namespace|template)|(?:in namespace '[^']+' )?does not name a "
                        r"(?:type|template type)|is not a member of)|use of undeclared identifier|"
                        r"unknown type name|no type named|no template named|"
                        r"variable or field '[^']+' declared void|"
                        r"expected (?:constructor, destructor, or type conversion|class-name|type-specifier|"
                        r"template-name|nested-name-specifier))")
# Messages that are about the text itself whatever its types: a token the lexer cannot
# finish, a preprocessor directive that is malformed or unbalanced.
_LEXICAL = re.compile(r"^(?:missing terminating |unterminated |#include expects |#include nested|"
                      r"#\w+ without #if|#else after #else|#elif after #else|invalid preprocessing directive|"
                      r"stray '[^']*' in program|empty character constant|"
                      r"macro names must be identifiers|no macro name given)")
NEAR = 1  # lines between a compiler's message and a tree-sitter error that agree


def types_unknown(diagnostics: Iterable[Diagnostic]) -> bool:
    """The compiler could not see every type the file uses: a header it could not
    find, or a name it never met."""
    return any(missing_header(d.message) or UNRESOLVED.match(d.message) for d in diagnostics)


def agreed(diagnostics: list[Diagnostic], text: str, language: str) -> list[Diagnostic]:
    """``diagnostics`` (a compiler's, on a file whose types are unknown) with only the
    syntax problems that tree-sitter corroborates or that are lexical marked as syntax;
    tree-sitter's own errors next to a compiler error are added, as syntax problems."""
    from ..check import tree_sitter_problems

    parsed = tree_sitter_problems(text, language)
    # An ERROR node can span a whole function: its first lines are where it went wrong.
    spans = [(p.line - NEAR, max(p.line, min(p.end_line, p.line + 2)) + NEAR) for p in parsed]

    def seen_by_parser(line: int) -> bool:
        return any(start <= line <= end for start, end in spans)

    out: list[Diagnostic] = []
    for d in diagnostics:
        if d.syntax and not (_LEXICAL.match(d.message) or (not UNRESOLVED.match(d.message)
                                                             and seen_by_parser(d.line))):
            d = Diagnostic(d.line, d.column, d.message, False, doubtful=True)
        out.append(d)
    said = [d.line for d in diagnostics if not missing_header(d.message)]
    covered = {d.line for d in out if d.syntax}
    for p, (start, end) in zip(parsed, spans):
        if any(start <= line <= end for line in said) \
                and not any(abs(p.line - line) <= NEAR for line in covered):
            out.append(Diagnostic(p.line, p.column, p.message, True))
            covered.add(p.line)
    out.sort(key=lambda d: (d.line, d.column))
    return out
