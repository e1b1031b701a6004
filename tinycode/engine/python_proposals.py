"""The edits only Python gets: CPython's own messages acted on (a bracket never closed, a
missing ``except``, ``'=='`` suggested), misspelt keywords, Python 2 prints, whole blocks re-indented."""

from __future__ import annotations

import keyword
import re
from dataclasses import replace
from typing import Iterator

from ..config import setting
from ..check import Problem
from .edits import BRACKETS, OPENER_OF, Edit, insert, replace_token
from .rules import rule
from .layout import INNER_LINES, indent_of, tokens, unmatched_brackets

# Habits from other languages that Python spells differently.
PYTHON_ALTERNATIVES = {
    "&&": ("and", "&"), "||": ("or", "|"), "!": ("not ",), "//": ("#",), "===": ("==",),
    "!==": ("!=",), "<>": ("!=",), "++": (" += 1",), "--": (" -= 1",), "catch": ("except",),
    "true": ("True",), "false": ("False",), "null": ("None",), "nil": ("None",),
    "elseif": ("elif",), "elsif": ("elif",), "function": ("def",), "=": ("==", ":"), ":=": ("=",),
}
_STRAY = {",", ":", ";", ")", "]", "}", ".", "`", "$", "?", "\\"}  # deleted first where CPython points
MAX_BLOCK_LINES = 50  # a block shift longer than this is never a small repair
_PROMPT = re.compile(r"^(>>> ?|\.\.\. ?|> |\$ )")  # interactive prompts, quoted lines
_LINE_START_KEYWORDS = ("def", "for", "if", "while", "with", "class", "import", "return", "elif")
_PY_KEYWORDS = tuple(sorted(set(keyword.kwlist) | {"print"}))
# Keywords that begin a statement: one written for another (``in`` for ``if``).
_STATEMENT_KEYWORDS = ("if", "for", "while", "def", "class", "with", "try", "elif", "else", "import",
                       "from", "return", "del", "pass", "raise", "yield", "assert", "global")
CLOSE_WITHIN = 40  # lines after an unclosed bracket where its closer is tried
MAX_CLOSERS = 4  # brackets left open together that one edit closes at most
OPEN_WITHIN = 30  # lines before an unmatched closer where its opener is tried
_MISMATCH = re.compile(r"^(?:SyntaxError: )?closing parenthesis '([)\]}])' does not match opening "
                       r"parenthesis '([(\[{])'(?: on line (\d+))?")
_UNMATCHED = re.compile(r"^(?:SyntaxError: )?unmatched '([)\]}])'")


def python_edits(lines: list[str], problems: tuple[Problem, ...], anchors: list[int]) -> Iterator[Edit]:
    """The edits for Python's print statements on the ``anchors`` lines, then those for
    what CPython reported first, likeliest first."""
    for line_no in anchors:
        yield from _python_print_edits(lines, line_no)
    if not problems or problems[0].kind != "compiler":
        return
    yield from _mismatched_opener_edits(lines, problems[0])
    yield from _dict_entry_edits(lines, problems[0])
    yield from _comparison_edits(lines, problems[0])
    yield from _python_error_token_edits(lines, problems[0])
    yield from _keyword_name_edits(lines, problems[0])
    yield from _number_name_edits(lines, problems[0])
    yield from _unquoted_literal_edits(lines, problems[0])
    yield from _dangling_keyword_edits(lines, problems[0])
    yield from _declaration_word_edits(lines, problems[0])
    yield from _leading_prose_edits(lines, problems[0])
    yield from _forgot_comma_edits(lines, problems[0])
    yield from _bracket_kind_edits(lines, problems[0])
    yield from _comprehension_target_edits(lines, problems[0])
    yield from _call_parentheses_edits(lines, problems[0])
    yield from _close_bracket_edits(lines, problems[0])
    yield from _close_all_bracket_edits(lines, problems[0])
    yield from _prompt_marker_edits(lines, problems[0])


@rule("py-prompt-markers", "the prompt markers of a pasted interactive session removed", "python")
def _prompt_marker_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A pasted interactive session fails at (or just after) its first prompt marker."""
    total = len(lines)
    near = range(max(0, problem.line - 6), min(total, problem.line + 5))
    if any(_PROMPT.match(lines[n]) for n in near):
        yield Edit(1, total, [_PROMPT.sub("", line, count=1) for line in lines],
                   f"lines 1-{total}: remove interactive prompt markers")


def late_python_edits(lines: list[str], problems: tuple[Problem, ...], anchors: list[int]) -> Iterator[Edit]:
    """The edits tried after all others: misspelt or missing keywords on the first
    ``anchors`` lines, a word deleted where CPython points."""
    for line_no in anchors[:3]:
        yield from _python_keyword_edits(lines[line_no - 1], line_no)
    if problems and problems[0].kind == "compiler":
        yield from _python_error_token_edits(lines, problems[0], late=True)


@rule('py-error-token', "the token CPython points at: another language's habit replaced, or deleted", 'python')
def _python_error_token_edits(lines: list[str], problem: Problem, late: bool = False) -> Iterator[Edit]:
    """Edits of the very token CPython points at: replace a habit from another
    language, fix a misspelt keyword, rename a keyword used as a name; ``late``:
    delete a word there, or keep trailing prose as a comment."""
    if not 1 <= problem.line <= len(lines):
        return
    text = lines[problem.line - 1]
    col = problem.column - 1
    before = ""  # the word before the error token: CPython often points just past a misspelt keyword
    for start, tok in tokens(text):
        if tok.isspace():
            continue
        if not start <= col < start + len(tok):
            before = tok if start < col else before
            continue
        if not late and before.isidentifier() and not keyword.iskeyword(before):
            at = text.rindex(before, 0, start)
            for word in _near_keywords(before) + list(PYTHON_ALTERNATIVES.get(before, ())):
                yield replace_token(text, problem.line, at, before, word)
        if late:
            if tok.isidentifier() or tok[0].isdigit():
                yield replace_token(text, problem.line, start, tok, "")
            rest = text[start:]
            # Prose reads as words: it begins with one (code left over after a
            # statement begins with an operator: ``return a = b``).
            if text[:start].strip() and len(tokens(rest.strip())) >= 3 and not set(rest) & set("()[]{}'\"#") \
                    and (tok.isidentifier() or tok[0].isdigit()):
                yield replace(insert(text, problem.line, start, "# "), whole_repair_only=True)
            return
        for new in PYTHON_ALTERNATIVES.get(tok, ()):
            yield replace_token(text, problem.line, start, tok, new)
        if tok in _STRAY:
            yield replace_token(text, problem.line, start, tok, "")
        if tok.isidentifier():
            for word in _near_keywords(tok):
                yield replace_token(text, problem.line, start, tok, word)
            if keyword.iskeyword(tok):
                if not text[:start].strip():  # a statement begun with the wrong keyword (``in x:``)
                    for word in _STATEMENT_KEYWORDS:
                        if word != tok and _one_typo(tok, word, shortest=2):
                            yield replace_token(text, problem.line, start, tok, word)
                yield replace_token(text, problem.line, start, tok, tok + "_")
        return


_NAME_BEFORE = ("(", ",", "=", "[", "+", "-", "*", "/")  # tokens a name may follow, a keyword seldom
_NAME_AFTER = ("=", ".", ")", ",", "]", "[", "+=", "-=")  # tokens a name may precede
# Keywords that only ever begin a statement or clause, and what begins an operand: such
# a keyword after one of these (``if def:``, ``x == class``) stands for a name too.
_STATEMENT_ONLY = ("def", "class", "import", "from", "global", "nonlocal", "pass", "break", "continue",
                   "del", "try", "except", "finally", "with", "while", "raise", "assert", "elif")
_OPERAND_AFTER = ("if", "elif", "while", "return", "==", "!=", "<", ">", "<=", ">=", "and", "or", "not", "in")


@rule('py-keyword-name', 'a keyword used as a name renamed', 'python')
def _keyword_name_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A keyword used as a name on the error's line (``del = []``, ``f(try)``): it
    renamed, with ``_`` after it, wherever in the file it stands as a name, in one edit."""
    if not 1 <= problem.line <= len(lines):
        return
    done: set[str] = set()
    for word in _used_as_names(lines[problem.line - 1]):
        if word in done:
            continue
        done.add(word)
        changed = {n: _rename_keyword(text, word) for n, text in enumerate(lines, 1)}
        changed = {n: text for n, text in changed.items() if text != lines[n - 1]}
        if len(changed) < 2 and sum(1 for _ in _used_as_names(lines[problem.line - 1])) < 2:
            continue  # one place: the error token's own rename covers it
        top, bottom = min(changed), max(changed)
        if bottom - top >= MAX_BLOCK_LINES:
            continue
        new = [changed.get(n, lines[n - 1]) for n in range(top, bottom + 1)]
        yield Edit(top, bottom - top + 1, new, f"lines {top}-{bottom}: rename {word!r} to {word + '_'!r}",
                   len(changed))


def _used_as_names(text: str) -> list[str]:
    """Keywords on the line that stand where a name would."""
    parts = [t for _, t in tokens(text) if not t.isspace()]
    return [tok for i, tok in enumerate(parts)
            if keyword.iskeyword(tok) and tok not in ("True", "False", "None")
            and ((i and parts[i - 1] in _NAME_BEFORE) or (i + 1 < len(parts) and parts[i + 1] in _NAME_AFTER))]


def _rename_keyword(text: str, word: str) -> str:
    visible = [(c, t) for c, t in tokens(text) if not t.isspace()]
    if any(t == "#" for _, t in visible):
        visible = visible[:[t for _, t in visible].index("#")]  # not in a comment
    out = text
    for i in range(len(visible) - 1, -1, -1):
        col, tok = visible[i]
        if tok == word and ((i and visible[i - 1][1] in _NAME_BEFORE)
                            or (i + 1 < len(visible) and visible[i + 1][1] in _NAME_AFTER)
                            or (word in _STATEMENT_ONLY and i and visible[i - 1][1] in _OPERAND_AFTER)):
            out = out[:col] + word + "_" + out[col + len(word):]
    return out


def _flat_tokens(lines: list[str], first: int, last: int) -> list[tuple[int, int, str]]:
    """(line, column, token) of the code tokens of lines ``first..last``, comments left out."""
    out: list[tuple[int, int, str]] = []
    for line_no in range(max(1, first), min(len(lines), last) + 1):
        for col, tok in tokens(lines[line_no - 1]):
            if tok == "#":
                break
            if not tok.isspace():
                out.append((line_no, col, tok))
    return out


def _edit_tokens(lines: list[str], changes: list[tuple[int, int, str, str]], description: str,
                 size: int) -> Edit:
    """One edit making ``changes`` ((line, column, old, new), any order) to ``lines``."""
    top, bottom = min(c[0] for c in changes), max(c[0] for c in changes)
    new = list(lines[top - 1:bottom])
    for line_no, col, old, text in sorted(changes, key=lambda c: (c[0], c[1]), reverse=True):
        row = new[line_no - top]
        new[line_no - top] = row[:col] + text + row[col + len(old):]
    return Edit(top, bottom - top + 1, new, description, size)


def _error_index(flat: list[tuple[int, int, str]], problem: Problem) -> int | None:
    """The index in ``flat`` of the token the error points at."""
    col = problem.column - 1
    for i, (line_no, start, tok) in enumerate(flat):
        if line_no == problem.line and start <= col < start + len(tok):
            return i
    return None


def _enclosing(flat: list[tuple[int, int, str]], index: int) -> tuple[int | None, int | None]:
    """The indices of the innermost bracket pair around token ``index`` (either may be
    None when not found)."""
    depth, opener = 0, None
    for i in range(index - 1, -1, -1):
        tok = flat[i][2]
        if tok in BRACKETS.values():
            depth += 1
        elif tok in BRACKETS:
            if depth == 0:
                opener = i
                break
            depth -= 1
    if opener is None:
        return None, None
    return opener, next((i for i, tok in _same_level(flat, opener + 1) if tok in BRACKETS.values()), None)


def _bracket_step(tok: str) -> int:
    """How a token changes the bracket depth: 1 for an opener, -1 for a closer."""
    return 1 if tok in BRACKETS else -1 if tok in BRACKETS.values() else 0


def _same_level(flat: list[tuple[int, int, str]], start: int) -> Iterator[tuple[int, str]]:
    """(index, token) of the tokens from ``start`` on at the bracket depth there (what
    lies inside nested brackets skipped), up to the closer that ends that depth, which
    comes last."""
    depth = 0
    for i in range(start, len(flat)):
        tok = flat[i][2]
        if tok in BRACKETS:
            depth += 1
        elif tok in BRACKETS.values():
            if depth == 0:
                yield i, tok
                return
            depth -= 1
        elif depth == 0:
            yield i, tok


@rule('py-bracket-kind', 'the brackets around the error of another kind', 'python')
def _bracket_kind_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """The brackets around the error of another kind, both of them (``[1: 2]`` for
    ``{1: 2}``, ``f[x]`` for ``f(x)``)."""
    flat = _flat_tokens(lines, problem.line - OPEN_WITHIN, problem.line + CLOSE_WITHIN)
    index = _error_index(flat, problem)
    if index is None:
        return
    opener, closer = _enclosing(flat, index)
    if opener is None or closer is None or BRACKETS[flat[opener][2]] != flat[closer][2]:
        return
    (a_line, a_col, a), (b_line, b_col, b) = flat[opener], flat[closer]
    for kind in ("{", "[", "("):
        if kind != a:
            yield _edit_tokens(lines, [(a_line, a_col, a, kind), (b_line, b_col, b, BRACKETS[kind])],
                               f"line {a_line}: replace {a + b!r} with {kind + BRACKETS[kind]!r}", 2)


@rule('py-comprehension-target', "a comprehension's tuple target given its parentheses", 'python')
def _comprehension_target_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A comprehension whose target is a tuple without its parentheses
    (``[a, b for a, b in x]``): the parentheses around it."""
    flat = _flat_tokens(lines, problem.line - 3, problem.line + 3)
    index = _error_index(flat, problem)
    if index is None:
        return
    opener, _ = _enclosing(flat, index)
    if opener is None:
        return
    comma = False
    for i, tok in _same_level(flat, opener + 1):
        if tok in BRACKETS.values():
            return
        if tok == ",":
            comma = True
        elif tok == "for":
            if not comma or i == opener + 1:
                return
            first, last = flat[opener + 1], flat[i - 1]
            yield _edit_tokens(lines, [(first[0], first[1], "", "("), (last[0], last[1] + len(last[2]), "", ")")],
                               f"line {first[0]}: parenthesize the comprehension target", 2)
            return


_OPERAND_START = re.compile(r"""[A-Za-z_0-9"'\[{(-]""")


@rule('py-call-parentheses', 'a name followed by its operand made a call', 'python')
def _call_parentheses_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A name followed by the operand it was meant to be called with (``range n``,
    ``len x``): the parentheses of the call around the operand, up to each place
    where it may end on the line."""
    if not 1 <= problem.line <= len(lines):
        return
    flat = _flat_tokens(lines, problem.line, problem.line)
    index = _error_index(flat, problem)
    if not index:
        return
    name, tok = flat[index - 1][2], flat[index][2]
    if not name.isidentifier() or keyword.iskeyword(name) or not _OPERAND_START.match(tok) \
            or (tok.isidentifier() and keyword.iskeyword(tok)):
        return
    ends = []  # the operand ends before a separator at its depth, or its closer, or the line's end
    for i, word in _same_level(flat, index):
        if word in BRACKETS.values():
            ends.append(i - 1)
            break
        if i > index and word in (":", ",", "=", "for", "if", "in", "else", ";"):
            ends.append(i - 1)
    else:
        ends.append(len(flat) - 1)
    line_no, start = flat[index][0], flat[index][1]
    for end in list(dict.fromkeys(ends))[:4]:
        last = flat[end]
        yield _edit_tokens(lines, [(line_no, flat[index - 1][1] + len(name), lines[line_no - 1][
            flat[index - 1][1] + len(name):start], "("), (last[0], last[1] + len(last[2]), "", ")")],
                           f"line {line_no}: call {name!r} with what follows it", 2)


@rule('py-comparison', "an '=' in an expression made '=='", 'python')
def _comparison_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """CPython suggesting ``==`` for an ``=`` in an expression: every ``=`` of that
    expression (from the error to the end of its brackets) made ``==`` at once, since
    one left alone keeps the same error in the same place."""
    if "'=='" not in problem.message and '"=="' not in problem.message:
        return
    flat = _flat_tokens(lines, problem.line - OPEN_WITHIN, problem.line + CLOSE_WITHIN)
    index = _error_index(flat, problem)
    if index is None:
        return
    opener, _ = _enclosing(flat, index)
    if opener is not None and flat[opener][2] == "{":
        return  # in braces an ``=`` is a dict entry's ``:`` (``_dict_entry_edits``)
    changes = []
    for i, tok in _same_level(flat, index):
        if tok == "=":
            changes.append((flat[i][0], flat[i][1], "=", "=="))
        elif tok in (":", ";"):
            break
    if len(changes) > 1:
        yield _edit_tokens(lines, changes, f"line {problem.line}: replace each '=' with '=='", len(changes))


@rule('py-dict-entry', "a dict entry written as an assignment given its ':'", 'python')
def _dict_entry_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """An error inside braces at an ``=``: a dict entry written as an assignment
    (``{'a' = 1}``), its ``=`` made ``:``."""
    if not 1 <= problem.line <= len(lines):
        return
    col = problem.column - 1
    stack: list[str] = []
    for line_no in range(max(1, problem.line - OPEN_WITHIN), problem.line + 1):
        for start, tok in tokens(lines[line_no - 1]):
            if line_no == problem.line and start >= col:
                break
            if tok == "#":
                break
            if tok in BRACKETS:
                stack.append(tok)
            elif tok in BRACKETS.values() and stack:
                stack.pop()
    if not stack or stack[-1] != "{":
        return
    text, depth = lines[problem.line - 1], 0
    for start, tok in tokens(text):
        if start < col:
            continue
        step = _bracket_step(tok)
        depth += step
        if depth < 0:
            return
        if step:
            continue
        if tok in (",", "#"):
            if depth == 0:
                return
        elif tok == "=" and depth == 0:
            yield replace_token(text, problem.line, start, tok, ":")
            return


@rule('py-close-bracket', 'a bracket never closed closed at the end of one of its lines', 'python')
def _close_bracket_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A bracket "never closed": its closer at the end of the code of one of the lines
    that follow (before a comment there)."""
    closer = BRACKETS.get(problem.text)
    if not closer or "never closed" not in problem.message:
        return
    for line_no in range(problem.line, min(len(lines), problem.line + CLOSE_WITHIN) + 1):
        text = lines[line_no - 1]
        if text.strip():
            yield insert(text, line_no, _line_code_end(text), closer)


@rule('py-close-all-brackets', 'every bracket left open closed where the first one should be', 'python')
def _close_all_bracket_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A bracket "never closed" inside others left open too (CPython names the
    innermost): the closers of it and the brackets around it, together at the end of
    the code of a line that follows; and, when the open brackets lie on several lines,
    each line's own closers at its end (a call left open on each of two lines)."""
    if BRACKETS.get(problem.text) is None or "never closed" not in problem.message \
            or not 1 <= problem.line <= len(lines):
        return
    first = max(1, problem.line - OPEN_WITHIN)
    last = min(len(lines), problem.line + CLOSE_WITHIN)
    openers = [(n, c, b) for n, c, b in unmatched_brackets(lines, first, last, "#") if b in BRACKETS]
    where = [i for i, (n, c, _) in enumerate(openers) if (n, c) == (problem.line, problem.column - 1)]
    if not where:
        return
    openers = openers[where[0]:]  # the named one, then those around it (innermost first)
    for count in range(2, min(len(openers), MAX_CLOSERS) + 1):
        closers = "".join(BRACKETS[b] for _, _, b in openers[:count])
        for line_no in range(problem.line, last + 1):
            text = lines[line_no - 1]
            if text.strip():
                yield replace(insert(text, line_no, _line_code_end(text), closers), size=count)
    own: dict[int, str] = {}
    for n, _, b in openers[:MAX_CLOSERS]:
        own[n] = own.get(n, "") + BRACKETS[b]
    if len(own) > 1:
        top, bottom = min(own), max(own)
        new = [text[:_line_code_end(text)] + own.get(n, "") + text[_line_code_end(text):] if n in own else text
               for n, text in enumerate(lines[top - 1:bottom], top)]
        yield Edit(top, bottom - top + 1, new, f"lines {top}-{bottom}: close each line's brackets",
                   sum(map(len, own.values())))


def _line_code_end(text: str) -> int:
    """Where the code of a line ends: before a trailing comment and the spaces before it."""
    return len(text[:_code_end(text, 0)[0]].rstrip())


@rule('py-mismatched-opener', 'a closer that does not match its opener: one of them changed', 'python')
def _mismatched_opener_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A closer that "does not match opening parenthesis '(' on line N": the opener on
    line N left unclosed there, deleted or made the closer's partner."""
    mismatch = _MISMATCH.match(problem.message)
    if not mismatch or not 1 <= int(mismatch.group(3) or problem.line) <= len(lines):
        return
    closer, opener, line_no = mismatch.group(1), mismatch.group(2), int(mismatch.group(3) or problem.line)
    if 1 <= problem.line <= len(lines):  # the opener's closer just before the closer that came instead
        here = lines[problem.line - 1]
        if here[problem.column - 1:problem.column] == closer:
            yield insert(here, problem.line, problem.column - 1, BRACKETS[opener])
            # The closer then closes the bracket around, and the outermost ones are
            # left open: the line lost its last closers too (``f([g(x)[0])``).
            inserted = here[:problem.column - 1] + BRACKETS[opener] + here[problem.column - 1:]
            left = [b for _, _, b in unmatched_brackets([inserted], 1, 1, "#") if b in BRACKETS]
            if left and len(left) < MAX_CLOSERS:
                end = _line_code_end(inserted)
                yield Edit(problem.line, 1, [inserted[:end] + "".join(BRACKETS[b] for b in left) + inserted[end:]],
                           f"line {problem.line}: insert {BRACKETS[opener]!r} and close the line's brackets",
                           1 + len(left))
    text = lines[line_no - 1]
    for _, col, bracket in unmatched_brackets(lines, line_no, line_no, "#"):
        if bracket == opener:
            yield replace_token(text, line_no, col, opener, "")
            yield replace_token(text, line_no, col, opener, OPENER_OF[closer])


def _near_keywords(word: str) -> list[str]:
    """Keywords one typo away from ``word`` (a letter changed, added, dropped or
    swapped; capitals ignored)."""
    if keyword.iskeyword(word):
        return []
    lower = word.lower()
    return [k for k in _PY_KEYWORDS if k != word and (k.lower() == lower or _one_typo(lower, k.lower()))]


def _one_typo(a: str, b: str, shortest: int = 3) -> bool:
    if len(a) < shortest or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


@rule('py-keyword', 'misspelt keywords on the line, or a keyword left out at its start', 'python')
def _python_keyword_edits(text: str, line_no: int) -> Iterator[Edit]:
    """Misspelt keywords anywhere on the line, and a keyword left out at its start."""
    for col, tok in tokens(text):
        if tok.isidentifier() and len(tok) > 2:
            for word in _near_keywords(tok):
                yield replace_token(text, line_no, col, tok, word)
    indent = text[: len(text) - len(text.lstrip())]
    parts = [(c, t) for c, t in tokens(text) if not t.isspace()]
    if len(parts) > 1 and parts[0][1].isidentifier() and parts[1][1].isidentifier() \
            and not keyword.iskeyword(parts[0][1]):
        # A word before a name that a statement keyword begins (``define f(x):``).
        col, word = parts[0]
        for kw in _LINE_START_KEYWORDS:
            if len(kw) >= 3 and len(word) > len(kw) and word.lower().startswith(kw) and kw not in _near_keywords(word):
                yield replace_token(text, line_no, col, word, kw)
    for word in _LINE_START_KEYWORDS:
        yield Edit(line_no, 1, [indent + word + " " + text[len(indent):]], f"line {line_no}: insert {word!r}")


@rule('py-print', 'a Python 2 print or exec statement made a call', 'python')
def _python_print_edits(lines: list[str], line_no: int) -> Iterator[Edit]:
    """A Python 2 ``print``/``exec`` statement on the line (at its start, or after a
    ``:`` or ``;`` there) as a call: the parentheses around what it prints, before a
    trailing comment, the closer after the last line of a statement that goes on
    over several (an open bracket). ``print x,`` (no newline) becomes ``print(x)``,
    then ``print(x, end=' ')``."""
    text = lines[line_no - 1]
    parts = [(c, t) for c, t in tokens(text) if not t.isspace()]
    for index, (col, tok) in enumerate(parts):
        if tok not in ("print", "exec") or (index and parts[index - 1][1] not in (":", ";")):
            continue
        if index + 1 >= len(parts) or parts[index + 1][1] in ("(", "=", ".", ")", ",", ":", ";", "#") \
                or parts[index + 1][1].endswith("="):
            continue
        start = parts[index + 1][0]
        code_end, depth = _code_end(text, start)
        last, end = line_no, code_end
        while depth > 0 and last < min(len(lines), line_no + INNER_LINES):
            last += 1
            more, extra = _code_end(lines[last - 1], 0)
            depth += extra
            end = more
        if depth > 0:
            continue
        closing = lines[last - 1]
        head = text[:col] + tok + "(" + text[start:]
        body = lines[line_no:last - 1]
        rest = closing[:end].rstrip()
        tail = closing[len(rest):]
        endings = [rest + ")"]
        if tok == "print" and rest.endswith(","):
            endings = [rest[:-1].rstrip() + ")", rest[:-1].rstrip() + ", end=' ')"]
        for ending in endings:
            new_last = ending + tail
            if last == line_no:
                new = [text[:col] + tok + "(" + new_last[start:]]
            else:
                new = [head] + body + [new_last]
            yield Edit(line_no, last - line_no + 1, new, f"line {line_no}: print/exec statement to a call", 2)
        return


def _code_end(text: str, start: int) -> tuple[int, int]:
    """Where the code of ``text`` from ``start`` ends (before a comment) and the
    brackets it leaves open (negative: closes more than it opens)."""
    depth, end = 0, len(text)
    for col, tok in tokens(text):
        if col < start:
            continue
        if tok == "#":
            end = col
            break
        if tok in BRACKETS:
            depth += 1
        elif tok in BRACKETS.values():
            depth -= 1
    return end, depth


@rule('block-indent', 'a line and the lines below it at least as deep shifted together', 'python')
def block_indent_edits(lines: list[str], line_no: int) -> Iterator[Edit]:
    """Shift a line and the lines below it that are indented at least as deeply."""
    text = lines[line_no - 1]
    current = indent_of(text)
    if not text.strip():
        return
    end = line_no
    while end < len(lines) and (not lines[end].strip() or indent_of(lines[end]).startswith(current)):
        end += 1
        if end - line_no >= MAX_BLOCK_LINES:  # far more than any repair may change: not a candidate
            return
    if end == line_no:
        return
    block = lines[line_no - 1:end]
    previous = next((lines[i] for i in range(line_no - 2, -1, -1) if lines[i].strip()), "")
    starts = _statement_starts(block)
    # A pasted block is often longer than the guard lets a repair change, though only
    # the lines that begin statements need to move: those alone first, then.
    code_lines = sum(1 for line in block if line.strip())
    only_starts = code_lines > setting("max_changed_lines").default and starts.count(True) < code_lines
    for target in sorted({indent_of(previous), indent_of(previous) + "    ", ""} - {current}, key=len):
        shifted = [target + line[len(current):] if line.strip() else line for line in block]
        moved = [new if start else old for old, new, start in zip(block, shifted, starts)]
        if only_starts:
            yield Edit(line_no, len(block), moved, f"lines {line_no}-{end}: indent the block's statements "
                       f"to {len(target)} columns")
        yield Edit(line_no, len(block), shifted, f"lines {line_no}-{end}: indent block to {len(target)} columns")


def _statement_starts(block: list[str]) -> list[bool]:
    """For each line of ``block``: does its indentation matter to Python (it begins a
    statement)? Not for blank or comment-only lines, lines inside brackets or a
    triple-quoted string opened above, or lines after a backslash continuation."""
    out: list[bool] = []
    depth, continued, in_string = 0, False, False
    for text in block:
        code = text.strip()
        out.append(bool(code) and not code.startswith("#") and depth <= 0 and not continued and not in_string)
        if not code:
            continue
        for triple in ('"""', "'''"):
            if text.count(triple) % 2:
                in_string = not in_string
        if in_string:
            continue
        end, change = _code_end(text, 0)
        depth += change
        continued = text[:end].rstrip().endswith("\\")
    return out


@rule('py-declaration-word', "another language's declaration word (var, int, let) deleted", 'python')
def _declaration_word_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A declaration from another language (``var x = 1``, ``int n = 0``, ``let s =
    ''``): the word before the assigned name deleted, on every line that begins the
    same way (a habit repeats), in one edit, then on the error's line alone; or the
    two words one name."""
    if not 1 <= problem.line <= len(lines):
        return
    word = _declaration_word(lines[problem.line - 1])
    if word is None:
        return
    changed: dict[int, str] = {}
    reach = MAX_BLOCK_LINES // 2
    for n in range(max(1, problem.line - reach), min(len(lines), problem.line + reach) + 1):
        text = lines[n - 1]
        if _declaration_word(text) == word:
            col = len(indent_of(text))
            changed[n] = text[:col] + text[col + len(word):].lstrip()
    top, bottom = min(changed), max(changed)
    if len(changed) > 1:
        new = [changed.get(n, lines[n - 1]) for n in range(top, bottom + 1)]
        yield Edit(top, bottom - top + 1, new, f"lines {top}-{bottom}: delete {word!r} before each assigned name",
                   len(changed))
    yield Edit(problem.line, 1, [changed[problem.line]], f"line {problem.line}: delete {word!r}", 1)
    # Or a name of two words (``my list = []``): joined by an underscore.
    text = lines[problem.line - 1]
    col = len(indent_of(text))
    rest = text[col + len(word):]
    yield Edit(problem.line, 1, [text[:col] + word + "_" + rest.lstrip()],
               f"line {problem.line}: join {word!r} to the name after it", 2)


def _declaration_word(text: str) -> str | None:
    """The word a line begins with when a name and ``=`` follow it (``var x = 1``),
    the word not a keyword."""
    parts = [t for _, t in tokens(text) if not t.isspace()]
    if len(parts) > 3 and parts[0].isidentifier() and parts[1].isidentifier() and parts[2] == "=" \
            and not keyword.iskeyword(parts[0]) and not keyword.iskeyword(parts[1]) and parts[0] != "print":
        return parts[0]
    return None


MAX_PROSE_WORDS = 3  # words of text pasted before a statement that are deleted at most


@rule('py-leading-prose', 'words pasted before a statement made a comment', 'python')
def _leading_prose_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """Words pasted before a statement on its line (``note this import os``): the
    words before the statement's keyword deleted."""
    if not 1 <= problem.line <= len(lines):
        return
    text = lines[problem.line - 1]
    parts = [(c, t) for c, t in tokens(text) if not t.isspace()]
    for index, (col, tok) in enumerate(parts[:MAX_PROSE_WORDS + 1]):
        if keyword.iskeyword(tok) or tok == "print":
            if index and tok in _STATEMENT_KEYWORDS + ("print",):
                start = parts[0][0]
                yield Edit(problem.line, 1, [text[:start] + text[col:]],
                           f"line {problem.line}: delete the words before {tok!r}", index)
            return
        if not tok.isidentifier() or _near_keywords(tok):  # a misspelt keyword is no prose
            return


@rule('py-forgot-comma', 'the comma CPython says may be missing inserted', 'python')
def _forgot_comma_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """CPython's "Perhaps you forgot a comma?" spans the two items the comma should
    separate, often over several lines (two dicts of a list): a comma where the first
    item ends, after its last token at the end of its line (on one line, the token
    edits find it)."""
    if "forgot a comma" not in problem.message:
        return
    # The search's own checks report where the span begins only.
    last = problem.end_line if problem.end_line > problem.line else problem.line + CLOSE_WITHIN
    flat = _flat_tokens(lines, problem.line, last)
    index = _error_index(flat, problem)
    if index is None:
        return
    depth, found = 0, 0
    for i in range(index, len(flat) - 1):
        tok, after = flat[i][2], flat[i + 1][2]
        if last == problem.end_line and (flat[i][0], flat[i][1]) >= (problem.end_line, problem.end_column - 1):
            return  # past the span
        depth += _bracket_step(tok)
        if depth < 0:
            return
        ends = tok in BRACKETS.values() or tok.isidentifier() and not keyword.iskeyword(tok) \
            or tok[0].isdigit() or tok[0] in "\"'"
        begins = after in BRACKETS or after.isidentifier() and not keyword.iskeyword(after) \
            or after[0].isdigit() or after[0] in "\"'"
        if depth == 0 and ends and begins and flat[i + 1][0] > flat[i][0]:
            line_no, col, _ = flat[i]
            yield insert(lines[line_no - 1], line_no, col + len(tok), ",")
            found += 1
            if found == 2:
                return


_CONTINUED = (".", "+", "-", "*", "/", "and", "or", "if", "else", "%", "==", "|", "&")


# Keywords a statement can never end with: something must follow them on the line.
_NEEDS_MORE = ("and", "as", "assert", "async", "class", "def", "del", "elif", "for", "from", "global",
               "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "while", "with")


@rule('py-dangling-keyword', 'a line that ends with a keyword needing more completed', 'python')
def _dangling_keyword_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A line whose code ends with a keyword that needs more after it (a ``def`` left
    alone, ``x = a and``), where CPython points past that keyword: the keyword deleted."""
    if not 1 <= problem.line <= len(lines):
        return
    text = lines[problem.line - 1]
    flat = _flat_tokens(lines, problem.line, problem.line)
    if not flat or problem.column - 1 < flat[-1][1] + len(flat[-1][2]):
        return
    _, col, word = flat[-1]
    if word in _NEEDS_MORE:
        yield Edit(problem.line, 1, [text[:col].rstrip() + text[col + len(word):]],
                   f"line {problem.line}: delete {word!r}", 1, col, col)


_INTRODUCES = ("import", "from", "as", "def", "class")  # what a name follows where it is first given


@rule('py-number-name', 'a number given as a name replaced by the name the file uses', 'python')
def _number_name_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A number given as a name (``import 2`` with ``2.run()`` below, a placeholder for a
    module's real name): ``_`` before it wherever it stands as that name, in one edit."""
    if not 1 <= problem.line <= len(lines):
        return
    reach = MAX_BLOCK_LINES // 2
    first, last = max(1, problem.line - reach), min(len(lines), problem.line + reach)
    flat = _flat_tokens(lines, first, last)
    given = {tok for i, (_, _, tok) in enumerate(flat) if tok.isdigit() and i and flat[i - 1][2] in _INTRODUCES}
    for number in sorted(given):
        changes = []
        for i, (line_no, col, tok) in enumerate(flat):
            if tok != number:
                continue
            text = lines[line_no - 1]
            after = text[col + len(tok):col + len(tok) + 2]
            if (i and flat[i - 1][2] in _INTRODUCES) or (after[:1] == "." and after[1:].isidentifier()):
                changes.append((line_no, col, tok, "_" + tok))
        if any(line_no == problem.line for line_no, *_ in changes):
            yield _edit_tokens(lines, changes, f"lines {changes[0][0]}-{changes[-1][0]}: rename {number!r} "
                               f"to {'_' + number!r}", len(changes))


_BAD_LITERAL = re.compile(r"invalid (?:decimal|hexadecimal|octal|binary) literal")
_WORD = re.compile(r"[A-Za-z0-9_]+")


@rule('py-unquoted-literal', 'a word that begins with a digit quoted', 'python')
def _unquoted_literal_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A word that begins with a digit where CPython finds no number (a hash, a key
    or an id pasted without its quotes, ``5f3a9c``): the word made a string."""
    if not _BAD_LITERAL.search(problem.message) or not 1 <= problem.line <= len(lines):
        return
    text = lines[problem.line - 1]
    for match in _WORD.finditer(text):
        if match.start() <= problem.column - 1 < match.end() and match.group()[0].isdigit():
            quote = "'" if text.count("'") > text.count('"') else '"'
            yield replace_token(text, problem.line, match.start(), match.group(), quote + match.group() + quote)
            return
