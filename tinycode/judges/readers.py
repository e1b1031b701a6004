"""Reading each tool's output into diagnostics, and telling syntax from the rest.

Each reader takes the tool's ``Output``, the file name the tool was given and the text,
and returns diagnostics in the order the tool printed them. Where a tool has its own
classification (clang's ``[Parse Issue]``, PHP's "Parse error" vs "Fatal error") it is
used; gcc has none, so its message text decides.
"""

from __future__ import annotations

import re

from .base import Diagnostic, Output
from ..spelling import distance
from .grammar_gaps import blank

# gcc/clang/swiftc: "file:LINE:COL: error: message [category]"
_CC_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?P<level>fatal error|error):\s*(?P<msg>.*)$",
                      re.MULTILINE)
# The preprocessor's objections to a directive's expression or a macro's use: about the
# text whatever its types (gcc, clang).
PREPROCESSOR = (r"missing binary operator|operator '[^']+' has no (?:right|left) operand|"
                r"macro \"[^\"]+\" (?:passed \d+ arguments, but takes just|requires \d+ arguments, but only) \d+|"
                r"unterminated argument list invoking macro|#(?:el)?if with no expression|"
                r"missing expression between '\(' and '\)'|too (?:many|few) arguments provided to function-like macro|"
                r"'#pragma [^']+' string is badly formed|\"[^\"]+\" cannot be used as a macro name")
# What a C++ compiler says of a name it knows, as a class template or as no template,
# used otherwise: ``struct X<T, true>`` with no ``template<...>`` line before it, or a
# struct used with arguments whose own ``template<...>`` line was lost. No unknown type's
# doing (``unresolved``).
KNOWN_TEMPLATE_MISUSED = r"an explicit specialization must be preceded by|'[\w:]+' is not a (?:class )?template"
# gcc's messages that are about the text's grammar, not its meaning.
_GCC_SYNTAX = re.compile(
    r"^(expected |stray |missing terminating |unterminated |.* without a previous |"
    r"#\w+ without #if|#include expects |found ':' in nested-name-specifier|"
    r"expected ',' or '\)', found |expected parameter name, found |'#' is not followed by a macro parameter|#else after #else|#elif after #else|invalid preprocessing directive|"
    r"empty character constant|extra tokens|unbalanced|expected declaration or statement at end of input|"
    r"invalid suffix|exponent has no digits|invalid digit|missing '\(' |missing binary operator|"
    r"missing '\)' |parameter name omitted|two or more data types|multiple types in one declaration|"
    r"macro names must be identifiers|no macro name given|unknown type name|version control conflict marker|"
    r"a label can only be part of a statement|a function-definition is not allowed here|"
    r"nested function '[^']+' declared '\w+'|two consecutive '\[' shall only introduce an attribute|"
    r"invalid storage class|expected unqualified-id|expected primary-expression|invalid declarator before|"
    r"declaration does not declare anything|template class without a name|" + KNOWN_TEMPLATE_MISUSED + "|"
    r"token \"[^\"]*\" is not valid in preprocessor expressions|" + PREPROCESSOR + ")")
# clang's categories for grammar problems (it prints them with -fdiagnostics-show-category=name).
_CLANG_SYNTAX_CATEGORIES = ("[Parse Issue]", "[Lexical or Preprocessor Issue]")
_GCC_OPTION = re.compile(r"-[fW][\w=+-]*\]$")
_MISSING_HEADER = re.compile(r"^(?:'([^']+)' file not found|([^:]+): No such file or directory)")


# How an error inside a header the file includes begins, put on the file's #include.
IN_HEADER = "in an included header, "


def syntax_in_header(message: str) -> bool:
    """A syntax error a compiler met inside a header the file includes (``IN_HEADER``):
    what the file's own text before the ``#include`` left open runs into the header."""
    return message.startswith(IN_HEADER) and bool(_GCC_SYNTAX.match(message.split(": ", 1)[-1]))


def missing_header(message: str) -> str | None:
    """The header a compiler could not find, from its fatal error message."""
    match = _MISSING_HEADER.match(message)
    return (match.group(1) or match.group(2)) if match else None


# A directive that ends with its argument (``#include <a.h>``, ``#ifndef X``, ``#endif``)
# with a second directive typed onto its line: the compiler only warns ("extra tokens at
# end of #include directive", silenced by ``-w``) and reads neither the second directive
# nor, for ``#include``, what that header declares.
_DIRECTIVE_TYPED_ON = re.compile(
    r"^[ \t]*#[ \t]*(?P<first>include|import|ifndef|ifdef|endif|else|undef)\b(?:[ \t]*(?:<[^>\n]*>|\"[^\"\n]*\"|\w+))?"
    r"[ \t]+(?P<second>#[ \t]*(?:include|import|define|undef|ifndef|ifdef|if|elif|else|endif|pragma)\b)", re.MULTILINE)


# A directive that takes one name (``#ifndef X``) with more after it than a comment: the
# compiler warns the same way ("extra tokens at end of #ifndef directive"); a ``;`` or a
# word there is no C. Not ``#endif`` or ``#else``: a label after them is old, common
# practice, and only warned of by ``-Wendif-labels``.
_AFTER_NAME = re.compile(r"^[ \t]*#[ \t]*(?P<first>ifndef|ifdef|undef)[ \t]+[A-Za-z_$][\w$]*(?![\w$])[ \t]*"
                         r"(?P<second>[^\s\\][^\n]*)$", re.MULTILINE)


def directives_typed_on(text: str, code: str) -> list[Diagnostic]:
    """A syntax problem for each directive line with a second directive typed onto it,
    or more than a comment after the name of one that takes a name (``_AFTER_NAME``, read
    in ``code``: ``text`` with its comments and literals blanked)."""
    found: dict[int, Diagnostic] = {}
    for pattern, read in ((_DIRECTIVE_TYPED_ON, text), (_AFTER_NAME, code)):
        for match in pattern.finditer(read):
            line = text.count("\n", 0, match.start()) + 1
            column = match.start("second") - match.start() + 1
            found.setdefault(line, Diagnostic(line, column, f"extra tokens at end of #{match.group('first')} directive",
                                              True))
    return sorted(found.values(), key=lambda d: d.line)


# The conditional directives, and every directive C and C++ know. A name one typo from
# a conditional one that is no directive (``#eelse``, ``#endiff``) is a conditional
# mistyped: inside a group it does not read, the compiler passes over it without a word
# (clang warns: "invalid preprocessing directive, did you mean '#else'?"), and reads the
# groups around it otherwise than they were written.
_CONDITIONALS = ("ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif")
_DIRECTIVES = frozenset(_CONDITIONALS + ("if", "define", "undef", "include", "include_next", "import", "line",
                                         "error", "warning", "pragma", "ident", "sccs", "assert", "unassert",
                                         "embed"))
_DIRECTIVE_NAME = re.compile(r"^[ \t]*#[ \t]*(?P<name>[A-Za-z_]\w*)", re.MULTILINE)


def directives_mistyped(code: str) -> list[Diagnostic]:
    """A syntax problem for each directive of ``code`` (comments and literals blanked)
    whose name is a conditional one mistyped."""
    found = []
    for match in _DIRECTIVE_NAME.finditer(code):
        name = match.group("name")
        meant = next((c for c in _CONDITIONALS if distance(name, c, 2) <= 1), None)
        if name not in _DIRECTIVES and meant is not None:
            line = code.count("\n", 0, match.start()) + 1
            found.append(Diagnostic(line, match.start("name") - match.start() + 1,
                                    f"invalid preprocessing directive #{name}; did you mean #{meant}?", True))
    return found


# A ``typedef`` of a struct, union or enum whose body is followed by no name
# (``typedef struct { ... };``): the compiler only warns ("useless storage class specifier
# in empty declaration", silenced by ``-w``), and every use of the type's name is then
# unknown, as a missing header's would be.
_TYPEDEF_OPENED = re.compile(r"\btypedef\s+(?:struct|union|enum)\b\s*\w*\s*\{")
# C's and C++'s comments and string and character literals, which hold no code.
COMMENTS_AND_STRINGS = r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
_CODE_ONLY = re.compile(COMMENTS_AND_STRINGS, re.DOTALL)


def code_only(text: str) -> str:
    """``text`` with its comments and literals blanked, each line where it was."""
    return _CODE_ONLY.sub(blank, text)


def typedefs_without_name(code: str) -> list[Diagnostic]:
    """A syntax problem for each ``typedef`` of a struct, union or enum body of ``code``
    (comments and literals blanked) that names no type: at the ``;`` right after its
    closing brace."""
    if "typedef" not in code:
        return []
    found = []
    for match in _TYPEDEF_OPENED.finditer(code):
        depth, at = 0, match.end() - 1
        while at < len(code):
            depth += {"{": 1, "}": -1}.get(code[at], 0)
            if depth == 0:
                break
            at += 1
        after = re.compile(r"\s*;").match(code, at + 1)
        if at < len(code) and after is not None:
            semicolon = after.end() - 1
            line = code.count("\n", 0, semicolon) + 1
            found.append(Diagnostic(line, semicolon - code.rfind("\n", 0, semicolon), "typedef declares no name", True))
    return found


def read_cc(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """gcc, g++, clang, clang++; and the directives with another typed onto their line
    (``directives_typed_on``) and the typedefs that name nothing (``typedefs_without_name``),
    which the compiler only warns of."""
    compiler = _compiler_lines(output, filename, text.split("\n"))
    said = {d.line for d in compiler}
    code = code_only(text)  # once, for the three readers of the text itself
    return _placed_unplaced(output.stderr, filename, directives_typed_on(text, code) + typedefs_without_name(code)
                            + [d for d in directives_mistyped(code) if d.line not in said] + compiler)


def _compiler_lines(output: Output, filename: str, rows: list[str] | None) -> list[Diagnostic]:
    """The messages of a gcc-like compiler ("file:LINE:COL: error: message [category]");
    given the text's ``rows``, gcc's columns made the rows' characters."""
    found: list[Diagnostic] = []
    for match in _CC_LINE.finditer(output.stderr):
        message = match.group("msg").strip()
        # An error inside a header's macro is the file's where it used that macro (an
        # argument lost in ``PyModule_Create(&)``): the notes that follow name the place,
        # with or without the chain of includes a precompiled header leaves out.
        expanded = _expanded_at(output.stderr, match.end(), filename) if match.group("file") != filename else None
        if match.group("file") != filename and expanded is None:
            # An error inside a header it included is put on the file's own #include
            # that led to it: a header that header cannot find stops the compiler there
            # (that line can then be left out); any other is no syntax problem of the
            # file's, but one that a change of the file caused (``#define typedef``
            # before ``#include <X11/Xlib.h>``) is new during a repair.
            line = _included_from(output.stderr, match.start(), filename)
            if line is not None:
                found.append(Diagnostic(line, 1, message if missing_header(message) else
                                        f"{IN_HEADER}{match.group('file').rsplit('/', 1)[-1]}: {message}", False))
            continue
        category_syntax = any(message.endswith(c) for c in _CLANG_SYNTAX_CATEGORIES)
        has_category = message.endswith("]") and " [" in message
        if has_category:
            # (gcc names the option that would make an error a warning, ``[-fpermissive]``:
            # no category, the message says what the error is about)
            has_category = not _GCC_OPTION.match(message[message.rindex(" [") + 2:])
            message = message[:message.rindex(" [")]
        if missing_header(message):
            syntax = False
        elif has_category:
            syntax = category_syntax
        else:
            syntax = bool(_GCC_SYNTAX.match(message))
        own = int(match.group("line")), int(match.group("col") or 1)
        line, column = expanded or (None if _directive_at(rows, *own) else _expanded_at(output.stderr, match.end(),
                                                                                    filename)) or own
        if rows is not None and not has_category:  # gcc: a column on the screen, a tab reaching to its next stop
            column = _character_column(rows, line, column)
        found.append(Diagnostic(line, column, message, syntax))
    return found


def _directive_at(rows: list[str] | None, line: int, column: int) -> bool:
    """A directive's ``#`` is where gcc points in the file's own text (``#define a b
    #define c d``, two lines joined): the error is that line's, not where the macro it
    ended up in is used."""
    if rows is None or not 0 < line <= len(rows):
        return False
    named = _DIRECTIVE_NAME.match(rows[line - 1][_character_column(rows, line, column) - 1:])
    return named is not None and named.group("name") in _DIRECTIVES


TAB_STOP = 8  # gcc's default ``-ftabstop``


def _character_column(rows: list[str], line: int, column: int) -> int:
    """The 1-based character column of gcc's ``column`` on ``line``: gcc 11 and later
    count columns as they show on a screen (``-fdiagnostics-column-unit=display``), a tab
    reaching to the next multiple of ``TAB_STOP``; what is read against the line's text
    (the word it points at, a name beside it) needs its characters."""
    row = rows[line - 1] if 0 < line <= len(rows) else ""
    if "\t" not in row:
        return column
    shown = 0
    for index, char in enumerate(row):
        if shown + 1 >= column:
            return index + 1
        shown = (shown // TAB_STOP + 1) * TAB_STOP if char == "\t" else shown + 1
    return len(row) + 1 + max(0, column - 1 - shown)


# "file:73:1: note: in expansion of macro 'DECL'": where a macro the error lies in was used.
_EXPANSION = re.compile(r"\n(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s*note: in expansion of macro ")


def _expanded_at(stderr: str, end: int, filename: str) -> tuple[int, int] | None:
    """For an error inside a macro's definition (``#define DECL static __host__``, an
    error at each use), the place in ``filename`` where the outermost macro was used,
    from the notes right after it; None when it has none."""
    place = None
    while (note := _EXPANSION.match(stderr, end)) is not None:
        if note.group("file") == filename:
            place = int(note.group("line")), int(note.group("col") or 1)
        end = stderr.find("\n", note.end())
        if end < 0:
            break
    return place


# An error the compiler proper prints without a place ("cc1plus: error: unterminated
# argument list invoking macro "__N""): a macro call left open ran on to the end.
_CC_NOWHERE = re.compile(r"^(?:cc1|cc1plus|cc1obj): error: (?P<msg>.*)$", re.MULTILINE)


def _placed_unplaced(stderr: str, filename: str, found: list[Diagnostic]) -> list[Diagnostic]:
    """``found`` with each error printed without a place put where the compiler ran out
    of input (its first "at end of input" after it), or else where its next error is."""
    for match in _CC_NOWHERE.finditer(stderr):
        following = [m for m in _CC_LINE.finditer(stderr, match.end()) if m.group("file") == filename]
        after = next((m for m in following if "at end of input" in m.group("msg")), following[0] if following else None)
        if after is None:
            continue
        message = match.group("msg").strip()
        placed = Diagnostic(int(after.group("line")), int(after.group("col") or 1), message,
                            bool(_GCC_SYNTAX.match(message)))
        found.insert(next((i for i, d in enumerate(found) if (d.line, d.column) >= (placed.line, placed.column)),
                          len(found)), placed)
    return found


_INCLUDED_FROM = re.compile(r"from (?P<file>[^\n:]+):(?P<line>\d+)[,:]")


def _included_from(stderr: str, before: int, filename: str) -> int | None:
    """The line of ``filename``'s #include through which the message at ``before``
    came ("In file included from input.c:8:"), if it did."""
    start = stderr.rfind("In file included from ", 0, before)
    if start < 0:
        return None
    lines = [int(m.group("line")) for m in _INCLUDED_FROM.finditer(stderr, start, before)
             if m.group("file") == filename]
    return lines[-1] if lines else None


def read_swift(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """``swiftc -parse`` reports only what the parser found."""
    return [Diagnostic(d.line, d.column, d.message, True)
            for d in _placed_unplaced(output.stderr, filename, _compiler_lines(output, filename, None))
            if not missing_header(d.message)]


_NODE_HEAD = re.compile(r"^(?P<file>.+):(?P<line>\d+)$", re.MULTILINE)
_NODE_ERROR = re.compile(r"^(SyntaxError: .*)$", re.MULTILINE)


def read_node(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """``node --check``: "file:LINE", the line, a caret under the column, "SyntaxError: ..."."""
    if output.returncode == 0:
        return []
    error = _NODE_ERROR.search(output.stderr)
    if error is None:
        return [Diagnostic(1, 1, output.stderr.strip().split("\n")[0][:200] or "node --check failed", True)]
    line, column = 1, 1
    head = _NODE_HEAD.search(output.stderr)
    if head is not None and head.start() < error.start():
        line = int(head.group("line"))
        after = output.stderr[head.end():error.start()].split("\n")
        carets = [row for row in after if row.strip() and set(row.strip()) <= {"^"}]
        if carets:
            column = carets[0].index("^") + 1
    return [Diagnostic(line, column, error.group(1).strip(), True)]


_GOFMT = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$", re.MULTILINE)


def read_gofmt(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """``gofmt -l -e``: only the parser runs, so every message is a syntax problem."""
    if output.returncode == 0:
        return []
    return [Diagnostic(int(m.group("line")), int(m.group("col")), m.group("msg").strip(), True)
            for m in _GOFMT.finditer(output.stderr) if m.group("file") == filename]


_RUST_ERROR = re.compile(r"^error(?:\[\w+\])?: (?P<msg>.*)\n\s*--> (?P<file>[^\n]+?):(?P<line>\d+):(?P<col>\d+)",
                         re.MULTILINE)


def read_rustfmt(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """rustfmt: its parse errors on stderr. A module file it cannot find is not a syntax
    problem."""
    found = []
    for match in _RUST_ERROR.finditer(output.stderr):
        if not match.group("file").endswith(filename):
            continue
        message = match.group("msg").strip()
        syntax = not message.startswith(("file not found for module", "couldn't read"))
        found.append(Diagnostic(int(match.group("line")), int(match.group("col")), message, syntax))
    return found


_BASH = re.compile(r"^(?P<file>[^:\n]+): line (?P<line>\d+): (?P<msg>.*)$", re.MULTILINE)
_DASH = re.compile(r"^(?P<file>[^:\n]+): (?P<line>\d+): (?P<msg>.*)$", re.MULTILINE)
# bash reads a here-document never ended to the end of the file and tells of it there:
# the problem is the line that opened it (all the code below it became its text).
_HEREDOC_TO_THE_END = re.compile(r"here-document at line (\d+) delimited by end-of-file")


def read_shell(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """``bash -n`` ("file: line N: syntax error ...") and ``sh -n`` as dash prints it
    ("file: N: Syntax error: ..."). bash echoes the offending line after: skipped."""
    if output.returncode == 0:
        return []
    found = []
    for pattern in (_BASH, _DASH):
        for match in pattern.finditer(output.stderr):
            message = match.group("msg").strip()
            if match.group("file") != filename or message.startswith("`"):
                continue
            opened = _HEREDOC_TO_THE_END.search(message)
            line = int(opened.group(1) if opened else match.group("line"))
            if pattern is _DASH:
                line = _dash_line(line, message, text)
            found.append(Diagnostic(line, 0, message, True))
        if found:
            break
    return found or [Diagnostic(1, 1, output.stderr.strip()[:200] or "syntax error", True)]


# A token dash names as unexpected: ``"fi" unexpected``.
_DASH_UNEXPECTED = re.compile(r'"([^"]+)" unexpected')


def _dash_line(line: int, message: str, text: str) -> int:
    """The line of ``text`` dash's error ``message`` at ``line`` is on. dash reads the text
    of an old-style command substitution (between backquotes) as a script of its own and
    numbers an error in it from the backquote's line: an error on a line inside one
    (which dash, had it been there, would have numbered so) is that many lines below
    its backquote, and so is one it names on a line that does not hold it (a string left
    unterminated is reported where the text ends: in a substitution, at its closing
    backquote)."""
    if "`" not in text:
        return line
    last = text.count("\n") + 1
    spans = _backquote_spans(text, last)
    inside = [(opened, closed) for opened, closed in spans if opened + line - 1 <= closed]
    if not inside:
        return line
    if any(opened < line <= closed for opened, closed in spans):
        return inside[0][0] + line - 1
    rows = text.split("\n")
    named = _DASH_UNEXPECTED.search(message)
    for opened, closed in inside:
        mapped = opened + line - 1
        if named is not None and named.group(1) not in rows[line - 1].split() \
                and named.group(1) in rows[mapped - 1].split():
            return mapped
        if "Unterminated quoted string" in message and line != last and mapped == closed:
            return mapped
    return line


def _backquote_spans(text: str, last: int) -> list[tuple[int, int]]:
    """(the line a backquote opens on, the line of the one that closes it, or ``last``)
    for each old-style command substitution the shell reads in ``text``: backquotes
    outside single quotes and comments, not escaped."""
    spans: list[tuple[int, int]] = []
    row, opened, quoted, at, size = 1, 0, False, 0, len(text)
    while at < size:
        char = text[at]
        if char == "\n":
            row += 1
        elif char == "\\":
            row += text[at + 1:at + 2] == "\n"
            at += 1
        elif char == "`":
            if opened:
                spans.append((opened, row))
                opened = 0
            else:
                opened = row
        elif opened:
            pass  # a substitution's text runs to the next backquote
        elif char == '"':
            quoted = not quoted
        elif char == "'" and not quoted:
            end = text.find("'", at + 1)
            end = size if end < 0 else end
            row += text.count("\n", at, end)
            at = end
        elif char == "#" and not quoted and (at == 0 or text[at - 1] in " \t\n;&|()"):
            end = text.find("\n", at)
            at = size if end < 0 else end - 1
        at += 1
    if opened:
        spans.append((opened, last))
    return spans


_RUBY = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+): (?P<msg>.*)$", re.MULTILINE)


def read_ruby(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """``ruby -c``: "file:LINE: syntax error, unexpected ..." (warnings are silenced),
    perhaps over the line and a caret under the column (``_caret_column``)."""
    if output.returncode == 0:
        return []
    rows = text.split("\n")
    found = [Diagnostic(int(m.group("line")), _caret_column(output.stderr[m.end():], rows, int(m.group("line"))),
                        m.group("msg").strip(), True)
             for m in _RUBY.finditer(output.stderr)
             if m.group("file") == filename and "warning:" not in m.group("msg")]
    return found or [Diagnostic(1, 1, output.stderr.strip()[:200] or "syntax error", True)]


_CARET = re.compile(r"\s*\^~*\s*")


def _caret_column(after: str, rows: list[str], line: int) -> int:
    """The 1-based column a message's caret points at, where the two lines that follow
    it (``after``) are the file's line ``line`` whole and a caret under it; 0 otherwise
    (no caret, or a long line the tool shortened)."""
    shown = after.lstrip("\n").split("\n")[:2]
    if len(shown) < 2 or not 1 <= line <= len(rows) or shown[0].rstrip() != rows[line - 1].rstrip() \
            or not _CARET.fullmatch(shown[1]):
        return 0
    return shown[1].index("^") + 1


# PHP names the token it did not expect ('unexpected variable "$value"'), not its column.
_UNEXPECTED_NAMED = re.compile(r'\bunexpected [\w -]+? "(?P<token>[^"]+)"')


def _named_column(lines: list[str], line: int, message: str) -> int:
    """The column of the token ``message`` says was unexpected, where it stands once on
    the line (0: not said, or not to be told apart)."""
    named = _UNEXPECTED_NAMED.search(message)
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    if named is None:
        return 0
    token = named.group("token")
    # (as a token: ``$value`` is not in ``$values``)
    found = list(re.finditer(("(?<![\\w$])" if token[0] in "$_" or token[0].isalnum() else "") + re.escape(token)
                             + ("(?!\\w)" if token[-1] == "_" or token[-1].isalnum() else ""), text))
    return found[0].start() + 1 if len(found) == 1 else 0


_PHP = re.compile(r"(?P<kind>Parse error|Fatal error):\s+(?P<msg>.*?) in (?P<file>\S+) on line (?P<line>\d+)")


def read_php(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """``php -l``: a "Parse error" is syntax; a compile-time "Fatal error" (a redeclared
    function, a misplaced ``break``) is not."""
    if output.returncode == 0:
        return []
    lines = text.split("\n")
    found = [Diagnostic(int(m.group("line")), _named_column(lines, int(m.group("line")), m.group("msg")),
                        m.group("msg").strip(), m.group("kind") == "Parse error")
             for m in _PHP.finditer(output.stdout + "\n" + output.stderr)]
    seen: set[Diagnostic] = set()
    unique = [d for d in found if not (d in seen or seen.add(d))]  # printed on stdout and stderr
    return unique or [Diagnostic(1, 1, (output.stdout or output.stderr).strip()[:200] or "syntax error", True)]


# javac's parser (``JavaSyntax.java``): "file:LINE:COL: error: message [compiler.err.code]".
_JAVAC = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*?)(?: \[(?P<code>[\w.]+)\])?$",
                    re.MULTILINE)


def read_javac(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """javac's parser alone: every error it reports is a syntax problem. A text it
    could not judge (a Java newer than this JDK) prints only a note: no diagnostics."""
    return [Diagnostic(int(m.group("line")), int(m.group("col")), m.group("msg").strip(), True)
            for m in _JAVAC.finditer(output.stderr) if m.group("file") == filename]


# tinycode's web_syntax.cjs (postcss, html-validate): "file:LINE:COL: error: message".
_WEB_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.MULTILINE)


def read_web(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """postcss, html-validate: every error is the markup's."""
    return [Diagnostic(int(m.group("line")), int(m.group("col")), m.group("msg").strip(), True)
            for m in _WEB_LINE.finditer(output.stderr) if m.group("file") == filename]


# tsc: "file(LINE,COL): error TS1005: message".
_TSC = re.compile(r"^(?P<file>[^(\n]+)\((?P<line>\d+),(?P<col>\d+)\): error TS(?P<code>\d+): (?P<msg>.*)$",
                  re.MULTILINE)


def read_tsc(output: Output, filename: str, text: str) -> list[Diagnostic]:
    """The ``typescript`` package's syntactic diagnostics: the run checks no types, so
    every message placed in the file is about its syntax (TS2657, adjacent JSX
    elements, is the parser's too)."""
    return [Diagnostic(int(m.group("line")), int(m.group("col")), m.group("msg").strip(), True)
            for m in _TSC.finditer(output.stdout + output.stderr) if m.group("file") == filename]
