"""What the messages of a language's own judge and of tree-sitter say about where an
error begins: read by the proposals (where to look) and by the ``Verifier`` (what an
edit repaired)."""

from __future__ import annotations

import re

from ..check import Problem
from ..problems import AT_THE_END

# "closing parenthesis ']' does not match opening parenthesis '(' on line 49"
_NAMED_LINE = re.compile(r"\bon line (\d+)")


# A judge that read a string on to the end of the file: "unexpected EOF while looking
# for matching `"'" (bash), "Unterminated quoted string", "EOF in backquote substitution"
# (dash), "unterminated string literal" (Python, Rust), "string literal not terminated"
# (Go), "unclosed string literal" (Java), "unterminated string meets end of file" (Ruby).
STRING_TO_THE_END = re.compile(
    r"looking for matching [`'\"]|unterminated|not terminated|EOF in (?:backquote|\$\(|\")|unclosed (?:string|text)|"
    r"EOF while scanning", re.IGNORECASE)


# A judge that read a block comment on to the end of the file ("'*/' expected." from
# TypeScript's parser at the last line, "unterminated comment", "unclosed comment",
# "unterminated block comment"): it read nothing after the comment's opener.
COMMENT_TO_THE_END = re.compile(r"^'\*/' expected|unterminated (?:block )?comment|unclosed comment", re.IGNORECASE)


# A judge that gave up reading at its error (html-validate's tokenizer: "failed to
# tokenize ..."): it read nothing past it, so the errors it reports there once the
# error is repaired are the file's further mistakes, not the edit's.
READ_NO_FURTHER = re.compile(r"^failed to tokenize ")


# A judge that pairs a file's brackets before it reads any of its grammar (rustc's
# lexer, in rustfmt: "unexpected closing delimiter", "mismatched closing delimiter",
# "this file contains an unclosed delimiter"): saying so, it read none of it, so what it
# reports anywhere once the brackets pair is the file's other mistakes, not the edit's.
BRACKETS_FIRST = re.compile(r"(?:unexpected|mismatched) closing delimiter|unclosed delimiter")


# A bracket a message names, quoted or standing alone: "expected ')' before 'b_l'",
# "missing ) after argument list", "mismatched closing delimiter: `)`".
_NAMED_BRACKET = re.compile(r"""['"`‘“][()\[\]{}]['"`’”]|(?:^|\s)[()\[\]{}](?:\s|$)""")


def names_a_bracket(message: str) -> bool:
    """``message`` is about a bracket it names."""
    return bool(_NAMED_BRACKET.search(message))


# A construct reported where it opens and never closed ("unterminated #ifdef",
# "Unclosed '{'"): its closer was due anywhere further on.
UNCLOSED = re.compile(r"unterminated|never closed|unclosed|not closed", re.IGNORECASE)
# A closing directive a compiler reports without its opening one, which was lost anywhere above.
UNOPENED_DIRECTIVE = re.compile(r"#(?:else|elif|endif) without #if")


# The tokens a judge says it expected where it stopped: "expected ';' before '}'" (gcc),
# "';' expected" (javac), 'expecting "done"' (dash), 'expecting ";" or ","' (PHP),
# "expecting `end'" (Ruby), "expected one of `;` or `}`, found ..." (rustfmt).
_EXPECTING = re.compile(r"\bexpect(?:ed|ing)(?: one of)? ((?:(?:, |,? or )?[`'\"][^`'\"\s]{1,8}['`\"])+)"
                        r"|((?:(?:, |,? or )?'[^'\s]{1,8}')+) expected\b")
_QUOTED = re.compile(r"[`'\"]([^`'\"\s]{1,8})['`\"]")


def expected_tokens(message: str) -> frozenset[str]:
    """The tokens ``message`` says were expected (none named: empty)."""
    return frozenset(token for match in _EXPECTING.finditer(message)
                     for token in _QUOTED.findall(match.group(1) or match.group(2)))


# The token a compiler says it stopped before: "expected expression before '=' token".
_BEFORE_TOKEN = re.compile(r"\bbefore '([^'\s]{1,3})'")


def token_before(message: str) -> str:
    """The token ``message`` says the judge stopped before, or ''."""
    found = _BEFORE_TOKEN.search(message)
    return found.group(1) if found else ""


def reported_line(problem: Problem, taken_as_said: bool = False) -> int:
    """Where the error begins: its line, or the earlier line its message names (the
    bracket a mismatch goes back to), so the next error surfacing between the two is
    progress, not a new error. An error noticed only at the end of the file may begin
    anywhere before it, unless the judge names where its errors begin (``taken_as_said``:
    ``LanguageSpec.judge_names_where_errors_begin``)."""
    if not taken_as_said and AT_THE_END.search(problem.message):
        return 1
    return named_line(problem)


def named_line(problem: Problem) -> int:
    """The problem's line, or the earlier line its message names."""
    named = _NAMED_LINE.search(problem.message)
    return min(problem.line, int(named.group(1))) if named else problem.line

# What gcc and clang say of an ``#if`` whose ``#endif`` never came.
UNTERMINATED_CONDITIONAL = re.compile(r"unterminated (?:#(?:if|ifdef|ifndef|elif|else)\b|conditional directive)")
# A C or C++ judge's mistyped <header> (``judges._mistyped_header``): the name, and the one meant.
MEANT_HEADER = re.compile(r"^no header <([^<>]+)>: did you mean <([^<>]+)>\?$")
# A compiler's name it could not resolve, and the one it suggests: "'in' was not declared
# in this scope; did you mean 'int'?" (gcc, g++, clang).
MEANT_NAME = re.compile(r"'(\w+)'.*; did you mean '(\w+)'\?$")
