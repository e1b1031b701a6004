"""Candidate edits derived from the language's grammar, not from a list of error kinds.

The vocabulary is the grammar's own: the anonymous node kinds of the tree-sitter
``Language`` (its keywords, operators and punctuation), plus the identifiers of the
file itself. Around the located error every small edit of the token sequence is
proposed: a word replaced by a spelling neighbour (edit distance <= 2 to a keyword or
to a name the file uses), two adjacent tokens swapped, a token deleted, two lines
joined or one split, and one vocabulary token inserted or substituted. Nothing here
judges: the candidate search (``candidates.py``) filters by tree-sitter's re-parse,
the language's own judge gives the verdict and the model ranks the survivors.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from functools import lru_cache
from typing import Callable, Iterable, Iterator, Sequence

from ..check import Problem, tree_sitter_problems
from ..languages import comment_prefix, get_language, get_parser, spec
from ..spelling import distance, fused
from .edits import OPENER_OF, Edit, differing_span
from .rules import rule
from .layout import indent_of, open_strings
from .messages import UNCLOSED

_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# A grammar token worth proposing: printable, no whitespace, short (tree-sitter also
# lists tokens such as "\n", external scanner names and regex-like literals).
_TOKEN_TEXT = re.compile(r"^[!-~]{1,4}$|^#?[A-Za-z_][A-Za-z_0-9]{0,15}$")
NEAR_TOKENS = 3  # tokens either side of the error's column where insertions and substitutions are tried
TYPO_REACH = 16  # tokens either side of it where a long line's typos, swaps and quotes are looked for
SPELLING_LINES = 2  # the error's line and the non-blank line before it
MIN_SPELLING_WORD = 2  # shorter words are everyone's neighbour


@lru_cache(maxsize=16)
def words_of(text: str) -> Counter[str]:
    """How often ``text`` uses each name or keyword (remembered: a search proposes edits
    for the same text with several rules). Not to be changed by the caller."""
    return Counter(_WORD.findall(text))


@lru_cache(maxsize=None)
def vocabulary(language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(keywords, symbols): the grammar's visible anonymous tokens, in its own order, and
    the words its language's record names as keywords the grammar reads as named nodes."""
    lang = get_language(language)
    keywords: list[str] = []
    symbols: list[str] = []
    for kind_id in range(lang.node_kind_count):
        if lang.node_kind_is_named(kind_id) or not lang.node_kind_is_visible(kind_id):
            continue
        kind = lang.node_kind_for_id(kind_id)
        # A backslash continues the line: that is a join, proposed as one.
        if not kind or not _TOKEN_TEXT.match(kind) or "\\" in kind:
            continue
        target = keywords if _WORD.fullmatch(kind) else symbols
        if kind not in target:
            target.append(kind)
    record = spec(language)
    keywords += [word for word in (record.named_keywords if record is not None else ()) if word not in keywords]
    return tuple(keywords), tuple(symbols)


_CHARACTER_LITERALS = ("char_literal", "character_literal", "rune_literal")


def _one_character(text: str) -> bool:
    """``text`` is one character, or one escaped."""
    return len(text) == 1 or (len(text) == 2 and text[0] == "\\")


@lru_cache(maxsize=None)
def quotes_characters(language: str) -> bool:
    """The language's ``'`` quotes one character (C's, Java's, Go's rune), not a string:
    its grammar has a character literal."""
    lang = get_language(language)
    return any(lang.node_kind_for_id(i) in _CHARACTER_LITERALS for i in range(lang.node_kind_count))


def spelling_neighbours(word: str, keywords: Sequence[str], names: Counter) -> list[str]:
    """Keywords, then names the file uses more than once, within a typo of ``word``
    (case aside, one edit for words up to four letters, two beyond), nearest first."""
    if len(word) < MIN_SPELLING_WORD:
        return []
    found: list[tuple[int, int, str]] = []
    for rank, pool in enumerate((keywords, [n for n, c in names.most_common() if c > 1])):
        for other in pool:
            if other == word or other in {f for _, _, f in found}:
                continue
            d = 0 if other.lower() == word.lower() else distance(word, other)
            limit = 1 if min(len(other), len(word)) <= 4 else 2
            if d <= limit and len(other) >= MIN_SPELLING_WORD:
                found.append((d, rank, other))
    return [w for _, _, w in sorted(found)]


def _tokens(text: str, symbols: Sequence[str]) -> list[tuple[int, str]]:
    """(column, token) of one line: words, numbers, quoted strings and the grammar's
    symbols by longest match."""
    out: list[tuple[int, str]] = []
    longest = sorted(symbols, key=len, reverse=True)
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        match = _WORD.match(text, i) or re.compile(r"\d[\w.]*").match(text, i)
        if match is None and ch in "\"'`":
            end = text.find(ch, i + 1)
            while end > 0 and text[end - 1] == "\\":
                end = text.find(ch, end + 1)
            token = text[i:end + 1] if end > 0 else text[i:]
        elif match is not None:
            token = match.group()
        else:
            token = next((s for s in longest if text.startswith(s, i)), ch)
        out.append((i, token))
        i += len(token)
    return out


def _grammar_token(token: str, keywords: Sequence[str], symbols: Sequence[str]) -> bool:
    """A keyword or a mark of the grammar, not a name or literal of the file."""
    if token in keywords or token in symbols:
        return True
    return not (_WORD.fullmatch(token) or token[0].isalnum() or token[0] in "\"'`")


def _swap(line_no: int, text: str, c1: int, t1: str, c2: int, t2: str) -> Edit:
    swapped = text[:c1] + t2 + text[c1 + len(t1):c2] + t1 + text[c2 + len(t2):]
    return Edit(line_no, 1, [swapped], f"line {line_no}: swap {t1!r} and {t2!r}", 2, c2 + len(t2) + 1, c1)


SEAM_PART = 2  # letters, at least, of each of two words a mark was swapped out of the seam of


def _mark_into_seam(line_no: int, text: str, toks: list[tuple[int, str]], i: int, known: Callable[[str], bool],
                    symbols: Sequence[str]) -> Iterator[Edit]:
    """Where a mark of the grammar touches the word ``toks[i]``, and the word is two
    ``known`` words typed together (of ``SEAM_PART`` letters or more: the mark tells where
    the seam is), the mark put between them: a mark swapped with the word beside it
    (``.thisinc`` for ``this.inc``, ``->pbgetAppId`` for ``pb->getAppId``)."""
    col, tok = toks[i]
    before = i and toks[i - 1][0] + len(toks[i - 1][1]) == col and toks[i - 1][1] in symbols
    after = i + 1 < len(toks) and col + len(tok) == toks[i + 1][0] and toks[i + 1][1] in symbols
    parts = fused(tok, known, SEAM_PART) if before or after else None
    if parts is None:
        return
    for (_, mark), begins, ends in ([(toks[i - 1], toks[i - 1][0], col + len(tok))] if before else []) \
            + ([(toks[i + 1], col, toks[i + 1][0] + len(toks[i + 1][1]))] if after else []):
        moved = parts[0] + mark + parts[1]
        yield Edit(line_no, 1, [text[:begins] + moved + text[ends:]],
                   f"line {line_no}: move {mark!r} between {parts[0]!r} and {parts[1]!r}", 2, begins + len(moved) + 1, begins)


def _line_edit(line_no: int, text: str, col: int, old: str, new: str, what: str) -> Edit:
    rest = text[col + len(old):]
    new_text = text[:col] + new + ("" if new and not old and rest.isspace() else rest)  # no trailing blank
    return Edit(line_no, 1, [new_text], f"line {line_no}: {what}", 1, col + len(new) + 1, col)


class Spacing:
    """How the file spaces each mark: whether it is mostly typed with a blank before
    it and after it (``a = b`` but ``f(x)``), so an inserted or deleted token leaves
    the line as its author would have typed it."""

    def __init__(self, lines: Sequence[str], symbols: Sequence[str]) -> None:
        self.before: Counter = Counter()
        self.after: Counter = Counter()
        self.seen: Counter = Counter()
        for text in lines:
            for col, tok in _tokens(text, symbols):
                if _WORD.fullmatch(tok) or tok[0].isalnum() or tok[0] in "\"'`":
                    continue
                self.seen[tok] += 1
                self.before[tok] += col > 0 and text[col - 1].isspace()
                self.after[tok] += col + len(tok) < len(text) and text[col + len(tok)].isspace()

    def offbeat(self, lines: Sequence[str], language: str) -> int:
        """The marks of ``lines`` spaced otherwise than the file mostly spaces them."""
        symbols = vocabulary(language)[1]
        count = 0
        for text in lines:
            for col, tok in _tokens(text, symbols):
                n = self.seen[tok]
                if n and col > 0 and _firm(self.before[tok], n):
                    count += text[col - 1].isspace() != (2 * self.before[tok] > n)
                if n and col + len(tok) < len(text) and _firm(self.after[tok], n):
                    count += text[col + len(tok)].isspace() != (2 * self.after[tok] > n)
        return count

    def spaced(self, mark: str) -> tuple[bool, bool]:
        """(a blank before, a blank after) ``mark``, as the file mostly has it."""
        n = self.seen[mark]
        return (2 * self.before[mark] > n, 2 * self.after[mark] > n) if n else (False, False)


def _firm(spaced: int, seen: int) -> bool:
    """A habit the file keeps at least three times in four, either way."""
    return 4 * spaced >= 3 * seen or 4 * spaced <= seen


def _inserts(line_no: int, text: str, col: int, new: str, spacing: Spacing) -> Iterator[Edit]:
    """``new`` inserted at ``col``: first with the blanks the file puts around it and
    the line lacks there (a word apart from its neighbours, ``a = b`` where the file
    spaces ``=``), then as it is, when that differs (``/*`` is no ``/ *``)."""
    if _WORD.match(new) or new[0].isalnum() or new[0] in "\"'`":
        yield insert_word(line_no, text, col, new)
        return
    before, after = spacing.spaced(new)
    left = " " if before and col > 0 and not text[col - 1].isspace() else ""
    right = " " if after and col < len(text) and not text[col].isspace() else ""
    yield _line_edit(line_no, text, col, "", left + new + right, f"insert {new!r}")
    if left or right:
        yield _line_edit(line_no, text, col, "", new, f"insert {new!r}")


def insert_word(line_no: int, text: str, col: int, word: str) -> Edit:
    """``word`` inserted at ``col``, apart from the words and marks beside it as a person types it."""
    return _line_edit(line_no, text, col, "", _spaced(text, col, word), f"insert {word!r}")


def _delete(line_no: int, text: str, col: int, old: str, what: str, contexts: "Contexts | None" = None) -> Edit:
    """``old`` deleted at ``col`` with the blanks around it as a person leaves them:
    one where it stood between blanks, none before a closer or separator, nor between
    a name and its opening bracket (``f (x)`` after a repeated name); where it touched
    one neighbour only, as the file spaces the two it stood between (``contexts``, when
    it has habits: ``;, }`` gives ``; }`` or ``;}``); none at the line's end; the
    indentation stays."""
    start, end = col, col + len(old)
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    while end < len(text) and text[end] in " \t":
        end += 1
    if end == len(text) and start > 0:  # the line's last token: no blank left at its end
        return Edit(line_no, 1, [text[:start]], f"line {line_no}: {what}", 1, start + 1, start)
    if start == 0 or (start == col and end == col + len(old)):
        return _line_edit(line_no, text, col, old, "", what)
    left_blank, right_blank = start < col, end > col + len(old)
    right = text[end]
    gap = "" if right in ")]},;." or (right == "(" and left_blank and not right_blank) else " "
    if contexts is not None and contexts.enough and left_blank != right_blank:
        left_tokens, right_tokens = _tokens(text[:start], contexts.symbols), _tokens(text[end:], contexts.symbols)
        if left_tokens and right_tokens:
            gap = " " if contexts.blank(left_tokens[-1][1], right_tokens[0][1], gap == " ") else ""
    return Edit(line_no, 1, [text[:start] + gap + text[end:]], f"line {line_no}: {what}", 1, start + 1, start)


def _error_lines(lines: list[str], problem: Problem) -> list[int]:
    """The error's line, then the non-blank lines before and after it."""
    total = len(lines)
    line = min(max(problem.line, 1), total)
    out = [line]
    above = next((n for n in range(line - 1, 0, -1) if lines[n - 1].strip()), None)
    below = next((n for n in range(line + 1, total + 1) if lines[n - 1].strip()), None)
    out += [n for n in (above, below) if n]
    return out


def _span_ends(lines: list[str], problem: Problem, language: str) -> list[int]:
    """The last lines of the errors that begin at the reported one and run on past it:
    a construct reported where it opens (``unterminated #ifdef``, a block never
    closed) most often went wrong where tree-sitter's error over it ends."""
    text = "\n".join(lines)
    ends = [p.end_line for p in [problem, *tree_sitter_problems(text, language)]
            if p.line <= problem.line + 1 and problem.line + 1 < p.end_line <= len(lines)]
    return sorted(set(ends))


LONE_TYPOS = 3  # keywords misspelt far from the error that are tried, the nearest first


@rule('keyword-typo', 'a keyword misspelt anywhere in the file (a word it has once, one typo away)')
def _lone_typos(lines: list[str], problem: Problem, language: str, searched: set[int],
                names: Counter) -> Iterator[Edit]:
    """A keyword misspelt anywhere in the file: a word it has once, one typo (or its
    case) away from a keyword, outside comments (``fii``, ``Fi``). A block left open
    by it is often noticed only at the file's end, far below."""
    keywords, symbols = vocabulary(language)
    marker = comment_prefix(language)
    found = []
    words = text_spans("\n".join(lines), language)
    for line_no, text in enumerate(lines, 1):
        if line_no in searched:
            continue
        for col, tok in _tokens(text, symbols):
            if marker and text.startswith(marker, col):
                break
            if in_spans(words, line_no, col):
                continue
            if names[tok] == 1 and _WORD.fullmatch(tok) and tok not in keywords:
                other = keyword_typo(tok, language)
                if other:
                    found.append((abs(line_no - problem.line), line_no, col, tok, other))
    for _, line_no, col, tok, other in sorted(found)[:LONE_TYPOS]:
        yield _line_edit(line_no, lines[line_no - 1], col, tok, other, f"respell {tok!r} as {other!r}")


@lru_cache(maxsize=8)
def text_spans(text: str, language: str, strings: str = "one-line",
               comments: bool = True) -> dict[int, list[tuple[int, int]]]:
    """line -> (start, end) columns of its comments (unless not ``comments``) and
    strings as tree-sitter reads them: words there are no code (``To`` in a sentence,
    ``consts`` in a header's name). ``strings``: "one-line" (a string over several
    lines may be one a lost quote left open over code), "all" or "none"."""
    def wanted(node) -> bool | None:
        kind = node.type
        if ("comment" in kind and comments) or ("string" in kind and (
                strings == "all" or (strings == "one-line" and node.start_point[0] == node.end_point[0]))):
            return True
        return None
    return _spans(text, language, wanted)


@lru_cache(maxsize=8)
def closed_comments(text: str, language: str) -> dict[int, list[tuple[int, int]]]:
    """line -> (start, end) columns of the comments tree-sitter reads in ``text`` that
    end where a comment ends: a line comment, or a block comment with its closer (not one
    left open, which may hold the code after it)."""
    record = spec(language)
    closer = record.block_comment[1] if record is not None and record.block_comment[1] else None

    def wanted(node) -> bool | None:
        if "comment" not in node.type:
            return None
        body = node.text.decode("utf-8", "replace").rstrip()
        return not (node.has_error or (closer and "\n" in body and not body.endswith(closer)))
    return _spans(text, language, wanted)


def _spans(text: str, language: str, wanted: Callable[..., bool | None]) -> dict[int, list[tuple[int, int]]]:
    """line -> (start, end) columns of the nodes of tree-sitter's reading of ``text``
    that ``wanted`` takes (True); it passes over those it answers False, and looks
    inside the others (None)."""
    tree = tree_of(text.encode("utf-8", "surrogatepass"), language)
    lines = text.split("\n")
    spans: dict[int, list[tuple[int, int]]] = {}

    def column(row: int, byte: int) -> int:
        return len(lines[row].encode("utf-8", "surrogatepass")[:byte].decode("utf-8", "ignore"))
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        verdict = wanted(node)
        if verdict is None:
            stack.extend(node.children)
        elif verdict:
            (first, start), (last, end) = node.start_point, node.end_point
            for row in range(first, min(last, len(lines) - 1) + 1):
                spans.setdefault(row + 1, []).append((column(row, start) if row == first else 0,
                                                      column(row, end) if row == last else len(lines[row])))
    return spans


def tree_of(data: bytes, language: str):
    """tree-sitter's tree of ``data``, read once for all that ask of the same text (a
    file's proposals, the guard's look at each candidate) in each thread: a tree, like a
    parser, serves one."""
    return _tree_in(data, language, threading.get_ident())


@lru_cache(maxsize=8)
def _tree_in(data: bytes, language: str, thread: int):
    return get_parser(language).parse(data)


@lru_cache(maxsize=4)
def strings_over_lines(text: str, language: str) -> tuple[tuple[int, int], ...]:
    """(first, last) lines of each string (a markup attribute's quoted value too)
    tree-sitter reads over several lines."""
    found = []
    stack = [tree_of(text.encode("utf-8", "surrogatepass"), language).root_node]
    while stack:
        node = stack.pop()
        if ("string" in node.type or "quoted" in node.type) and "comment" not in node.type:
            if node.end_point[0] > node.start_point[0]:
                found.append((node.start_point[0] + 1, node.end_point[0] + 1))
        else:
            stack.extend(node.children)
    return tuple(sorted(found))


def in_spans(spans: dict[int, list[tuple[int, int]]], line_no: int, col: int) -> bool:
    """Column ``col`` of line ``line_no`` lies in one of ``spans`` (``text_spans``)."""
    return any(start <= col < end for start, end in spans.get(line_no, ()))


@lru_cache(maxsize=4096)
def keyword_typo(word: str, language: str) -> str:
    """The keyword ``word`` is one typo away from (or spelt in another case), or ''.
    Of keywords in another case, the one fewest letters away (``End``: ``end``, not Ruby's
    ``END``)."""
    if len(word) < MIN_SPELLING_WORD:
        return ""
    found = [keyword for keyword in vocabulary(language)[0]
             if len(keyword) >= MIN_SPELLING_WORD and abs(len(keyword) - len(word)) <= 1
             and (keyword.lower() == word.lower() or distance(word, keyword, cap=2) <= 1)]
    cased = [keyword for keyword in found if keyword.lower() == word.lower()]
    if cased:
        return min(cased, key=lambda keyword: sum(a != b for a, b in zip(word, keyword)))
    return found[0] if found else ""


ODD_ABOVE, ODD_BELOW = 6, 2  # lines around an error where the file's oddest line is looked for
ODD_UNSEEN = 2  # contexts the file has nowhere else that make a line odd


def _odd_line(lines: list[str], problem: Problem, language: str) -> list[int]:
    """The line near the error with the largest share of token contexts the rest of the
    file never has (``$prev in`` in a script whose every other ``in`` follows ``case $x`` or ``for
    x``): where a parser notices a mistake a few lines late, the line that reads
    unlike the file is where a person looks. None in a file too short to have habits."""
    contexts = contexts_of("\n".join(lines), language)
    if not contexts.enough:
        return []
    line = min(max(problem.line, 1), len(lines))
    best, most = None, 0.0
    for n in range(max(1, line - ODD_ABOVE), min(len(lines), line + ODD_BELOW) + 1):
        grams = contexts.per_line[n - 1]
        unseen = sum(count for gram, count in grams.items() if contexts.total[gram] == count)
        share = unseen / sum(grams.values()) if unseen >= ODD_UNSEEN else 0.0
        if share > most or (share == most and best is not None and abs(n - line) < abs(best - line)):
            best, most = n, share
    return [best] if best is not None else []


def _rows(lines: list[str], problem: Problem, language: str) -> list[int]:
    """The lines where typos are looked for: the error's and the one before it, then
    the ends of the errors that run on past it, and for a construct never closed the
    file's last line (where a mistyped closer such as ``endif#`` ends it)."""
    rows = _error_lines(lines, problem)[:SPELLING_LINES]
    rows += [n for n in _odd_line(lines, problem, language) if n not in rows]
    ends = _span_ends(lines, problem, language)
    last = next((n for n in range(len(lines), 0, -1) if lines[n - 1].strip()), None)
    if UNCLOSED.search(problem.message) and last:
        ends.append(last)
    return rows + [n for n in dict.fromkeys(ends) if n not in rows]


QUOTE_REACH = 12  # lines above an error in a string's text where the string may have opened


def _string_left_open(lines: list[str], problem: Problem) -> list[int]:
    """The nearest line above an error the parser reports in a string's text (``unexpected
    "Name'"``) that leaves a string open: a string closed with the other quote runs on
    to the next quote, lines below, where the parser notices."""
    if not any(q in problem.text for q in "\"'`"):
        return []
    top = max(1, problem.line - QUOTE_REACH)
    return next(([n] for n in range(min(problem.line, len(lines)) - 1, top - 1, -1)
                 if open_strings(lines[n - 1])), [])


OPEN_STRING_LINES = 3  # lines of code that leave a string open, the nearest the error first


def _open_string_lines(lines: list[str], problem: Problem, language: str) -> list[int]:
    """The lines of code nearest the error that leave a string open: a string closed
    with the other quote runs on, and a parser may report where its recovery began (a
    class's first line), or the whole stretch from there, not the string's line."""
    marker = comment_prefix(language)
    found = []
    for line_no, text in enumerate(lines, 1):
        code = text.strip()
        if not code or code.startswith(("*", "/*")) or (marker and code.startswith(marker)):
            continue  # a comment's words ("can't")
        if marker and f" {marker} " in code:
            code = code.split(f" {marker} ", 1)[0]
        if open_strings(code):
            found.append(line_no)
    found.sort(key=lambda n: (abs(n - problem.line), n))
    return found[:OPEN_STRING_LINES]


def _near(tokens: list[tuple[int, str]], column: int, reach: int = NEAR_TOKENS) -> list[int]:
    """Indexes of the tokens within ``reach`` of the one at ``column`` (0-based)."""
    if not tokens:
        return []
    at = max((i for i, (c, _) in enumerate(tokens) if c <= column), default=0)
    return list(range(max(0, at - reach), min(len(tokens), at + reach + 1)))


def _within_reach(tokens: list[tuple[int, str]], line_no: int, problems: tuple[Problem, ...]) -> range | list[int]:
    """Indexes of the tokens of line ``line_no`` where a typo is looked for: every one
    of a line of ordinary length; of a longer one (a page of markup on one line,
    minified code), the TYPO_REACH either side of a column reported on it, else its
    last ones on a line above the error and its first on one below, nearest it."""
    width = 2 * TYPO_REACH + 1
    if len(tokens) <= width:
        return range(len(tokens))
    columns = [p.column - 1 for p in problems if p.line == line_no]
    if columns:
        return sorted({i for c in columns for i in _near(tokens, c, TYPO_REACH)})
    return range(len(tokens) - width, len(tokens)) if line_no < problems[0].line else range(width)


@rule('word-typo', 'a word near the error respelt as a keyword or a name of the file, or split into two of them, '
      'or two tokens swapped')
def early_edits(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """The few edits of a word or of token order that a typo makes: each word near the
    error replaced by its spelling neighbours or split into two words of the file,
    adjacent tokens swapped, a word typed twice deleted, a quote of the other kind, two
    lines joined or one split at the error."""
    if not problems or not lines:
        return
    keywords, symbols = vocabulary(language)
    names = words_of("\n".join(lines))
    contexts = contexts_of("\n".join(lines), language)
    problem = problems[0]
    rows = _rows(lines, problem, language)
    # A misspelt word where any of the parsers reports (tree-sitter often nearer the
    # typo than a judge that notices at the block's end) or on the lines around.
    spelt = rows + [n for p in problems[1:3] for n in _error_lines(lines, p) if n not in rows]
    lowered = {k.lower(): k for k in keywords}
    words = text_spans("\n".join(lines), language)

    def known(word: str) -> bool:
        return word in keywords or names[word] > 0
    for line_no in dict.fromkeys(spelt):
        text = lines[line_no - 1]
        toks = _tokens(text, symbols)
        for i in _within_reach(toks, line_no, problems):
            col, tok = toks[i]
            if in_spans(words, line_no, col):
                continue  # a comment's or a string's word
            if _WORD.fullmatch(tok) and tok not in keywords and names[tok] <= 1:
                for other in spelling_neighbours(tok, keywords, names):
                    yield _line_edit(line_no, text, col, tok, other, f"respell {tok!r} as {other!r}")
                # (two words of the file typed together: the space between them lost)
                parts = fused(tok, known)
                if parts is not None:
                    yield _line_edit(line_no, text, col, tok, " ".join(parts), f"split {tok!r} into {parts[0]!r} and {parts[1]!r}")
                yield from _mark_into_seam(line_no, text, toks, i, known, symbols)
            elif tok.lower() in lowered and tok not in keywords:
                # A keyword in another case, though the file has the word as a name too
                # (``Func(n ir.Node) {`` in a file with a function ``Func``).
                other = lowered[tok.lower()]
                yield _line_edit(line_no, text, col, tok, other, f"respell {tok!r} as {other!r}")
    yield from _lone_typos(lines, problem, language, set(spelt), names)
    for line_no in rows:
        text = lines[line_no - 1]
        toks = _tokens(text, symbols)
        for i in _within_reach(toks, line_no, problems):
            if i + 1 == len(toks):
                break
            (c1, t1), (c2, t2) = toks[i], toks[i + 1]
            if t1 == t2:
                yield _delete(line_no, text, c2, t2, f"delete the repeated {t2!r}", contexts)
            elif (_grammar_token(t1, keywords, symbols) and _grammar_token(t2, keywords, symbols)) \
                    or (c2 == c1 + len(t1) and (t2 + t1 in symbols or t2 + t1 in keywords)) \
                    or (_WORD.fullmatch(t1) and t1 not in keywords and t2 in keywords):
                # (Touching tokens whose swap spells one of the grammar's: ``endif#``;
                # a keyword typed after the name it goes before: ``std using::size_t``.)
                yield _swap(line_no, text, c1, t1, c2, t2)
    # The grammar's quotes; where its lexer keeps them to itself (Python's strings), the
    # quotes the file uses.
    quotes = [q for q in symbols if q in ("\"", "'", "`")] or [q for q in "\"'" if q in "".join(lines)]
    for line_no in dict.fromkeys(rows[:SPELLING_LINES] + _string_left_open(lines, problem)
                                 + _open_string_lines(lines, problem, language)):
        # a string opened or closed with the wrong quote
        text = lines[line_no - 1]
        toks = _tokens(text, symbols)
        reach = [toks[i] for i in _within_reach(toks, line_no, problems)]
        start, end = (reach[0][0], reach[-1][0] + len(reach[-1][1])) if len(reach) < len(toks) else (0, len(text))
        for col, ch in enumerate(text[start:end], start):  # any quote typed, for one of the grammar's
            if ch in "\"'`":
                for other in quotes:
                    if other != ch:
                        yield _line_edit(line_no, text, col, ch, other, f"replace {ch!r} with {other!r}")
        quoting = _APOSTROPHE.sub(" ", text)  # (a word's apostrophe quotes nothing: ``you'll``)
        for col, ch in enumerate(quoting[start:end], start):
            # or typed into a string, which it ends early: the line has an odd count of
            # its kind, and it closes one (not one of three, a docstring's)
            if ch in quotes and quoting.count(ch) % 2 and quoting.count(ch, 0, col) % 2 \
                    and quoting[col - 1:col] != ch and quoting[col + 1:col + 2] != ch:
                yield _line_edit(line_no, text, col, ch, "", f"delete the stray {ch!r}")
        for col, tok in reach:  # or a whole string quoted with the other kind
            if len(tok) >= 2 and tok[0] in "\"'`" and tok[-1] == tok[0]:
                for other in quotes:
                    # (never a string of several characters made one character's literal)
                    if other != tok[0] and other not in tok \
                            and not (other == "'" and not _one_character(tok[1:-1]) and quotes_characters(language)):
                        yield _line_edit(line_no, text, col, tok, other + tok[1:-1] + other,
                                         f"quote {tok} with {other!r}")
    # A line break lost or typed: join, or split at the error; where each parser reports
    # (a judge may report a wrapped line where the statement holding it began).
    for reported in dict.fromkeys(min(max(p.line, 1), len(lines)) for p in (problem, *problems[1:3])):
        yield from _joins(lines, reported, language, keywords, symbols)
    line = min(max(problem.line, 1), len(lines))
    text = lines[line - 1]
    for col, _ in _tokens(text, symbols)[1:]:
        if abs(col - (problem.column - 1)) <= 1 and problem.line == line:
            yield _split(line, text, col, indent_of(text), f"split before column {col + 1}")


MAX_BREAKS = 6  # places where a lost line break is tried, nearest the errors first
_SAME, _DEEPER, _SHALLOWER = 0, 1, -1
_BEFORE, _AFTER = "before", "after"


def _break_mark(token: str, keywords: Sequence[str], symbols: Sequence[str]) -> bool:
    """A token that may mark where a line begins or ends: one of the grammar's, or the
    empty string a triple quote reads as (a docstring's first line). A name or a
    literal is no such sign: any line may begin or end with one."""
    return _grammar_token(token, keywords, symbols) or token in ('""', "''")


class _LineBreaks:
    """Where the file breaks its lines: the tokens it begins lines with (``fi``,
    ``def``, ``}``) and ends them with (``{``, ``;``, ``:``) and seldom has inside one,
    how it indents the line after such a break (as the line before, deeper, or back to
    an outer block), and where such a token stands inside a line, code not prose
    after it, even in a comment (a line typed onto the end of one)."""

    def __init__(self, lines: Sequence[str], language: str) -> None:
        keywords, symbols = vocabulary(language)
        marker = comment_prefix(language)
        counts = {_BEFORE: Counter(), _AFTER: Counter()}  # at a line's start, at its end
        elsewhere = {_BEFORE: Counter(), _AFTER: Counter()}
        self.shift: dict[tuple[str, str], Counter] = {}
        # Tokens that begin a line only at column 0, however deep the code around
        # (``#endif``): the count of such lines, or -1 once one is indented.
        self.flush: dict[str, int] = {}
        steps: Counter = Counter()
        # (an apostrophe inside a word, a comment's ``type's``, opens no character literal)
        line_tokens = [_tokens(_APOSTROPHE.sub(" ", text), symbols) for text in lines]
        # The habits are code's: a comment's or a docstring's words (``with``, ``for``)
        # say nothing of where the file breaks its lines (its lines still place the
        # next one's indentation).
        prose_spans = text_spans("\n".join(lines), language, strings="all")
        previous: tuple[str, str] | None = None  # the last code line's indentation and last token
        for line_no, (text, toks) in enumerate(zip(lines, line_tokens), 1):
            if not toks:
                continue
            code = [not in_spans(prose_spans, line_no, col) for col, _ in toks]
            indent = indent_of(text)
            if previous is not None:
                way = _SAME if indent == previous[0] else _DEEPER if len(indent) > len(previous[0]) else _SHALLOWER
                first = toks[0][1] if code[0] else ""
                if first and self.flush.get(first, 0) >= 0:
                    self.flush[first] = self.flush.get(first, 0) + 1 if not indent else -1
                for side, tok in ((_BEFORE, first), (_AFTER, previous[1])):
                    if tok and _break_mark(tok, keywords, symbols):
                        counts[side][tok] += 1
                        self.shift.setdefault((side, tok), Counter())[way] += 1
                if indent.startswith(previous[0]) and indent != previous[0]:
                    steps[indent[len(previous[0]):]] += 1
            elsewhere[_BEFORE].update(t for (_, t), is_code in zip(toks[1:], code[1:]) if is_code)
            elsewhere[_AFTER].update(t for (_, t), is_code in zip(toks[:-1], code[:-1]) if is_code)
            previous = indent, toks[-1][1] if code[-1] else ""
        self.step = steps.most_common(1)[0][0] if steps else "    "
        # Mostly at a line's edge; a token seen there once and nowhere else (the
        # script's one ``done``) too.
        marks = {side: {t for t, n in found.items() if 3 * (elsewhere[side][t] - 1) <= n}
                 for side, found in counts.items()}
        self.places: list[tuple[int, int, str, str]] = []  # (line, column of the split, token, side)
        # A line split inside a string or a block comment changes no code (nor closes a
        # string a lost quote left open); a line comment may have code typed onto its end.
        quiet = text_spans("\n".join(lines), language, strings="all")
        comments = text_spans("\n".join(lines), language, strings="none")
        block_opener = record.block_comment[0] if (record := spec(language)) is not None else ""
        for line_no, (text, toks) in enumerate(zip(lines, line_tokens), 1):
            comment = _comment_column(text, toks, marker, comments.get(line_no, ()), block_opener)
            for i, (col, tok) in enumerate(toks):  # (a line's first token may end one: ``end self``)
                if (comment is None or col < comment) and in_spans(quiet, line_no, col):
                    continue
                if _code_after_sentence(text, toks, i, comment, marks[_AFTER], keywords, symbols):
                    side, rest, after = _BEFORE, text[col:], text[col:]
                elif tok in marks[_BEFORE] and i:
                    side, rest, after = _BEFORE, text[col:], text[col + len(tok):]
                elif tok in marks[_AFTER] and i + 1 < len(toks):
                    side, rest = _AFTER, text[toks[i + 1][0]:]
                    after = rest
                else:
                    continue
                if comment is not None and col > comment and prose(after, keywords, symbols):
                    continue  # a comment's sentence, not code typed onto it
                if comment is not None and col < comment < len(text) - len(rest):
                    continue  # the comment would end up on the new line: not where it was typed
                self.places.append((line_no, len(text) - len(rest), tok, side))

    def indents(self, lines: Sequence[str], line_no: int, token: str, side: str) -> list[str]:
        """The indentations for the line split off line ``line_no`` at ``token``, the
        file's most usual way first."""
        indent = indent_of(lines[line_no - 1])
        outer = next((indent_of(lines[n - 1]) for n in range(line_no - 1, 0, -1)
                      if lines[n - 1].strip() and len(indent_of(lines[n - 1])) < len(indent)), "")
        by_way = {_SAME: indent, _DEEPER: indent + self.step, _SHALLOWER: outer}
        ways = [w for w, _ in self.shift.get((side, token), Counter()).most_common()]
        first = [""] if side == _BEFORE and self.flush.get(token, 0) >= 2 else []
        return list(dict.fromkeys(first + [by_way[w] for w in ways + [_SAME, _DEEPER, _SHALLOWER]]))


# A line that ends with an opening bracket goes on below: code, whatever the file's habit.
_OPENERS = frozenset("([{")


def _code_after_sentence(text: str, toks: list[tuple[int, str]], i: int, comment: int | None,
                         line_ends: set[str], keywords: Sequence[str], symbols: Sequence[str]) -> bool:
    """Token ``i`` of a comment's line begins a line of code typed onto the comment's
    end: a sentence ends before it (a mark, then a blank), and from it the line reads as
    code and ends with a token that ends the file's lines (``// Tokens. type Slice struct {``)
    or with an opening bracket (``// A copy. vfsStream::create([``), whatever token begins it."""
    if comment is None or toks[i][0] <= comment or i < 2 or (comment and not text[comment - 1].isspace()):
        return False  # (a marker inside a word is none: bash's ``${#files[@]}``)
    (mark_col, mark), (col, _) = toks[i - 1], toks[i]
    if mark not in _SENTENCE_ENDS or mark_col + len(mark) >= col or toks[-1][1] not in line_ends | _OPENERS:
        return False
    return not prose(text[col:], keywords, symbols)


@lru_cache(maxsize=4)
def _line_breaks(text: str, language: str) -> _LineBreaks:
    return _LineBreaks(text.split("\n"), language)


@rule('lost-break', 'two lines typed as one split where no token changes')
def lost_breaks(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """A line break lost, two lines typed as one: a line split before a token that
    begins the file's lines or after one that ends them, and seldom stands inside one
    (``unset x fi``, ``class A: def f():``, ``} x = 1``, ``// note } finally {``),
    nearest the reported errors first, each error's in turn (a block left open may be
    reported at its end, far below). Only whitespace changes: no token is added or lost. Where indentation
    is syntax, each way the file indents such a line is tried; elsewhere the file's
    usual one."""
    if not problems or not lines:
        return
    breaks = _line_breaks("\n".join(lines), language)
    reported = list(dict.fromkeys(min(max(p.line, 1), len(lines)) for p in problems[:3]))
    # Each reported error's nearest places in turn: one error among many places (a list
    # of imports, each ``{`` and ``}`` a place) does not crowd out another's.
    nearest = [sorted(breaks.places, key=lambda at: (abs(at[0] - r), at)) for r in reported]
    places = list(dict.fromkeys(at for row in zip(*nearest) for at in row))
    record = spec(language)
    every_indent = record is not None and record.indentation_is_syntax
    for line_no, col, tok, side in places[:MAX_BREAKS]:
        indents = breaks.indents(lines, line_no, tok, side)
        for indent in indents if every_indent else indents[:1]:
            yield _split(line_no, lines[line_no - 1], col, indent, f"split {side} {tok!r}")


def _comment_column(text: str, toks: list[tuple[int, str]], marker: str,
                    comments: Iterable[tuple[int, int]] = (), block_opener: str = "") -> int | None:
    """Where the line's comment begins, or None: a token that starts with the comment
    marker, or else a comment tree-sitter reads from it to the line's end that no block
    comment's opener begins (PHP's ``#`` beside its ``//``)."""
    marked = next((col for col, tok in toks if marker and tok[0] not in "\"'`" and text.startswith(marker, col)), None)
    if marked is not None:
        return marked
    return next((col for col, tok in toks for start, end in comments if col == start and end >= len(text.rstrip())
                 and not (block_opener and text.startswith(block_opener, col))), None)


def _split(line_no: int, text: str, col: int, indent: str, what: str) -> Edit:
    """Line ``text`` split before column ``col``, the second part indented by ``indent``."""
    return Edit(line_no, 1, [text[:col].rstrip(), indent + text[col:]], f"line {line_no}: {what}", 1)


def sentence_goes_on(comment: str, below: str, keywords: Sequence[str], symbols: Sequence[str]) -> bool:
    """A comment's line that stops mid-sentence (on a word, or a quoted one) over a line
    of a few words and sentence marks that does not end as a statement or block does:
    the rest of the sentence (``// ... the GCC Runtime Library`` over ``Exception,
    version``; ``// It is provided "as is"`` over ``without express or implied``). (A
    ``)`` or a ``,`` ends commented-out code as often: ``#addstr(str(x))``.)"""
    text = below.strip()
    last = comment.rstrip()[-1:]
    return (last.isalnum() or last in MID_SENTENCE) and text[-1:] not in (";", "{", "}") \
        and prose(text, keywords, symbols, run_of=1)


def marks_only(text: str) -> bool:
    """A line of marks alone that no code line is (``++ -*-`` under ``// -*- C``: the
    rest of a comment's line split inside its marks): no word, number or quote, two
    kinds of mark at least (``---`` is YAML's, ``**`` a comment block's), and more than
    brackets and separators (``};``, ``)``) or a comment's or a tag's delimiter."""
    line = text.strip()
    return _MARKS.fullmatch(line) is not None and len(set(line) - {" ", "\t"}) >= 2 \
        and _CODE_MARKS.fullmatch(line) is None and not any(d in line for d in _DELIMITERS)


_MARKS = re.compile(r"[^\w\s\"'`]+(?:[ \t]+[^\w\s\"'`]+)*")
_CODE_MARKS = re.compile(r"[()\[\]{}<>;,.:\s]+")  # brackets and separators only: code's closers
_DELIMITERS = ("/*", "*/", "<!--", "-->", "<?", "?>", "<%", "%>")


# A comment's line that ends on one of these may go on below: a quoted word's, or a
# hyphenated word or a dash split after its hyphen (``plural-rules#TOC-Determining-``).
MID_SENTENCE = "\"'-"


_MEMBER = re.compile(r"\.[A-Za-z_]")  # a line that begins with a member's or an extension's dot
# An ``#include`` line whose header's name is not closed on it.
_OPEN_HEADER_NAME = re.compile(r'^\s*#\s*(?:include|import)\s*(?:<[^>]*|"[^"]*)$')
# The rest of an address or a path that a comment's line was split inside
# (``en-us/visualstudio/install/workload-and-component-ids``): no blank, at least one ``/``,
# perhaps the bracket that encloses it and a sentence's mark after (``.org/licenses/>.``).
_PATH = re.compile(r"[\w.~%-]+(?:/[\w.~%#?=&+-]*)+[>)\]]?[.,]?")


@rule('line-join', 'a line joined to the line above or below')
def _joins(lines: list[str], line: int, language: str, keywords: Sequence[str],
           symbols: Sequence[str]) -> Iterator[Edit]:
    """``line`` joined to the line above, and the line below joined to it."""
    marker = comment_prefix(language)
    for first in (line - 1, line):
        address = first < len(lines) and address_rest(lines[first])
        if marker and marker in lines[first - 1 if 1 <= first else 0] and not (
                first < len(lines) and (address or _ends_on_a_bare_marker(lines[first - 1], marker)
                                        or prose(lines[first], keywords, symbols)
                                        or sentence_goes_on(lines[first - 1], lines[first], keywords, symbols)
                                        or marks_only(lines[first])
                                        or comment_split(lines[first - 1], lines[first], marker))):
            continue  # joined to a comment, the code would be commented out (prose, an address's rest
            # or a line of marks alone is no code; a line that ends on a marker with nothing after it is a comment's
            # line split right after it)
        if 1 <= first < len(lines) and lines[first - 1].strip() and lines[first].strip():
            left, right = lines[first - 1].rstrip(), lines[first].lstrip()
            # (after a bare comment marker, the blanks the comments around put after theirs)
            gap = _gap_after(lines, first, marker) if marker and _ends_on_a_bare_marker(left, marker) else " "
            spaced = Edit(first, 2, [left + gap + right], f"line {first}: join line {first + 1} to it", 1)
            if _WORD.match(left[-1:]) and _WORD.match(right[:1]):
                yield spaced
                continue
            # A mark split in two (``/`` ``/``), or an address or a header's name split
            # (``#include <ext`` over ``/pb_ds/tree_policy.hpp>``): no blank between.
            close = Edit(first, 2, [left + right], f"line {first}: join line {first + 1} to it, no space", 1)
            # (a closer or a sentence's mark goes against the word before it: ``"License");``;
            # a member's or an extension's dot against its name, ``launch`` over ``.json``;
            # an opener or a tag's ``<`` against what it opens, ``Sized<`` over ``/a>``)
            split_name = (address and (left.endswith(("/", "-", ".")) or right.startswith(("/", "-", ".")))) \
                or _OPEN_HEADER_NAME.search(left) is not None or right[:1] in ")]},;" \
                or _WORD.match(left[-1:]) is not None and _MEMBER.match(right) is not None or left[-1:] in "([<."
            yield from (close, spaced) if split_name else (spaced, close)


def _ends_on_a_bare_marker(line: str, marker: str) -> bool:
    """The line ends on a comment ``marker`` with nothing after it, outside a string
    (``//``, ``"ab"     #``)."""
    text = line.rstrip()
    return text.endswith(marker) and not open_strings(text[:-len(marker)])


def _gap_after(lines: list[str], line_no: int, marker: str) -> str:
    """The blanks the comments on the lines around ``line_no`` most often put after
    their ``marker`` (``#  0x20 -> SPACE``: two); one where they have none."""
    gaps = Counter(found.group(1) for n in range(max(1, line_no - 2), min(len(lines), line_no + 3))
                   if n not in (line_no, line_no + 1)
                   for found in [re.search(re.escape(marker) + r"( +)\S", lines[n - 1])] if found)
    return gaps.most_common(1)[0][0] if gaps else " "


def address_rest(line: str) -> bool:
    """The line is all one address or path (``_PATH``): the rest of a comment's line
    split inside it."""
    return _PATH.fullmatch(line.strip()) is not None


def comment_split(comment: str, below: str, marker: str) -> bool:
    """A comment's line split inside a quoted or bracketed span: its text leaves a quote
    open (not an apostrophe in a word: ``don't``) that ``below``, a line with one quote
    of that kind, closes (``// `` and a backquote over ``${childData} === undefined` +``):
    the quote there ends a word, and no word follows it (``x = 'abc`` opens a string
    instead); or a line that is all comment leaves a bracket open, and ``below`` is its
    closer and a sentence's marks (``# ... (the "License"`` over ``);``)."""
    text = _APOSTROPHE.sub("", comment[comment.index(marker) + len(marker):]) if marker in comment else ""
    for quote in "\"'`":
        if text.count(quote) % 2 and below.count(quote) == 1:
            at = below.index(quote)
            if at and not below[at - 1].isspace() and not (below[at + 1:at + 2].isalnum() or below[at + 1:at + 2] in "_$"):
                return True
    rest = _CLOSER_AND_MARKS.fullmatch(below.strip())
    if rest is None or not comment.lstrip().startswith(marker):
        return False
    closer = rest.group(1)
    opener = OPENER_OF[closer]
    return text.count(opener) > text.count(closer)


# A line that is only a bracket's closer and a sentence's marks: ``);``, ``).``, ``]``.
_CLOSER_AND_MARKS = re.compile(r"([)\]}])[.,;:!?]*")


FAMILIAR_EDITS = 12  # one-token edits the file's own token contexts put first
# Trigrams a file needs before its contexts order the repairs: a 10-line snippet has
# `else` nowhere but where it was misspelt.
FAMILIAR_FROM = 200
FAMILIAR_NAMES = 8  # names tried where the file has a name between the same two tokens
OPEN_NAMES = 2  # of those, the innermost elements still open there (``LanguageSpec.open_names``)


class Contexts:
    """The file's own token trigrams: each token with the one before and the one after
    it on its line, names and literals as their kind. An edit whose tokens sit among
    neighbours the file already has them among (``$obj->pb getTime()`` gets ``->``,
    which this file puts between names a hundred times, not ``.``) is likelier the
    author's than one that makes a context nowhere else in it. The lines being
    edited are left out of the counts."""

    def __init__(self, lines: Sequence[str], language: str) -> None:
        self.lines = list(lines)
        self.keywords, self.symbols = vocabulary(language)
        self.per_line: list[Counter] = []
        self.total: Counter = Counter()
        self.pairs: Counter = Counter()  # two tokens side by side on a line
        self.touching: Counter = Counter()  # of those, the times they touch (``->getTime``)
        self._grams: dict[str, Counter] = {}  # a line's trigrams by its text
        for text in lines:
            toks = _tokens(text, self.symbols)
            self.per_line.append(self._grams.setdefault(text, self._trigrams(toks)))
            self.total.update(self.per_line[-1])
            for (c1, a), (c2, b) in zip(toks, toks[1:]):
                self.pairs[a, b] += 1
                self.touching[a, b] += c2 == c1 + len(a)

    def kind(self, token: str) -> str:
        """A grammar token stands for itself; a name, a number or a string for its kind."""
        if token in self.keywords or token in self.symbols:
            return token
        if _WORD.fullmatch(token):
            return _NAME_KIND
        if token[0].isdigit():
            return "0"
        return '"' if token[0] in "\"'`" else token

    def _trigrams(self, toks: list[tuple[int, str]]) -> Counter:
        kinds = ["^"] + [self.kind(t) for _, t in toks] + ["$"]
        return Counter(zip(kinds, kinds[1:], kinds[2:]))

    @property
    def enough(self) -> bool:
        """Whether the file is long enough for its contexts to be habits, not chance."""
        return sum(self.total.values()) >= FAMILIAR_FROM

    def unseen(self, edited: Sequence[str]) -> int:
        """How many more trigrams that this file has nowhere else ``edited`` (the whole
        file after an edit) has than this file: counted on the lines where the two
        differ, new lines against old, so that edits on different lines compare as the
        whole files would (a long, rare line is as rare before its edit as after)."""
        start, end, end_after = differing_span(self.lines, edited)
        # The span runs from one edit to the last: for several errors far apart, much
        # of the file. Its trigrams are counted once, not once a trigram.
        old: Counter = Counter()
        for grams in self.per_line[start:end]:
            old.update(grams)

        def rare(gram: tuple[str, str, str]) -> bool:
            return self.total[gram] - old[gram] <= 0
        after = sum(1 for text in edited[start:end_after] for gram in self._line_grams(text) if rare(gram))
        before = sum(n for gram, n in old.items() if rare(gram))
        return after - before

    def _line_grams(self, text: str) -> Counter:
        grams = self._grams.get(text)
        if grams is None:
            grams = self._grams[text] = self._trigrams(_tokens(text, self.symbols))
        return grams

    def blank(self, first: str, second: str, otherwise: bool) -> bool:
        """Whether the file mostly puts a blank between ``first`` and ``second``; when
        it never has them side by side, between them as tokens of their kinds (``</``
        and a name: ``</html>`` as ``</div>``); ``otherwise`` when it has neither."""
        n = self.pairs[first, second]
        if n:
            return 2 * self.touching[first, second] < n
        kinds = (self.kind(first), self.kind(second))
        n = touching = 0
        for (a, b), count in self.pairs.items():
            if (self.kind(a), self.kind(b)) == kinds:
                n, touching = n + count, touching + self.touching[a, b]
        return 2 * touching < n if n else otherwise

    def seen(self, before: str, kind: str, after: str, line_no: int) -> int:
        """How often the file, the line ``line_no`` aside, has a token of ``kind``
        between tokens of the kinds ``before`` and ``after``."""
        key = (before, kind, after)
        return self.total[key] - self.per_line[line_no - 1][key]


_NAME_KIND = "N"


@rule('familiar-token', 'one-token edits after which every token has neighbours it has elsewhere in the file')
def familiar_edits(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """The one-token edits near the error after which every token around the change
    sits between neighbours the file has it between elsewhere, the most familiar
    first: a grammar token inserted or put for another, a token deleted, two swapped;
    for a name, the names the file has after the same token."""
    if not problems or not lines:
        return
    contexts = contexts_of("\n".join(lines), language)
    if not contexts.enough:  # a short snippet's few trigrams are chance, not habits
        return
    problem = problems[0]
    rows = _error_lines(lines, problem)[:SPELLING_LINES]
    rows += [n for n in _odd_line(lines, problem, language) if n not in rows]
    scored: list[tuple[tuple[int, int], int, tuple]] = []  # (familiarity, row, edit)
    structural: list[tuple[int, tuple]] = []  # (row, edit): a tag's name the file's structure asks for
    record = spec(language)

    def open_names(line_no: int, before: str) -> list[str]:
        # A closer that lost its name most likely closes what is open there.
        return record.open_names(lines, line_no, before)[:OPEN_NAMES] if record and record.open_names else []
    for order, line_no in enumerate(rows):
        text = lines[line_no - 1]
        toks = _tokens(text, contexts.symbols)
        near = _near(toks, problem.column - 1 if line_no == problem.line else len(text))
        kinds = ["^"] + [contexts.kind(t) for _, t in toks] + ["$"]

        def rate(changed: list[str], at: int, width: int) -> tuple[int, int]:
            # the trigrams that hold a changed token: the least seen, then all of them
            counts = [contexts.seen(*changed[j:j + 3], line_no) for j in range(max(0, at - 2), at + width)
                      if j + 3 <= len(changed)]
            return (min(counts), sum(counts)) if counts else (0, 0)

        places = sorted({i for i in near} | {i + 1 for i in near}) if toks else [0]
        for i in places:  # an insertion before token i (i == len(toks): at the end)
            for new in contexts.keywords + contexts.symbols:
                scored.append((rate(kinds[:i + 1] + [new] + kinds[i + 1:], i + 1, 1), order, ("insert", i, new)))
            named = rate(kinds[:i + 1] + [_NAME_KIND] + kinds[i + 1:], i + 1, 1)
            if i and named[0]:  # which name: those still open (a closer's), those the file has after the same token
                raw = toks[i - 1][1]
                names = [(c, w) for (a, w), c in contexts.pairs.items() if a == raw and contexts.kind(w) == _NAME_KIND]
                opened = open_names(line_no, raw)
                structural += [(order, ("insert", i, name)) for name in opened]
                ranked = [w for _, w in sorted(names, key=lambda x: (-x[0], x[1])) if w not in opened]
                for name in ranked[:FAMILIAR_NAMES - len(opened)]:
                    scored.append((named, order, ("insert", i, name)))
        for i in near:
            tok = toks[i][1]
            if i + 1 < len(toks) and tok != toks[i + 1][1]:
                swapped = kinds[:i + 1] + [kinds[i + 2], kinds[i + 1]] + kinds[i + 3:]
                scored.append((rate(swapped, i + 1, 2), order, ("swap", i, "")))
            if not _grammar_token(tok, contexts.keywords, contexts.symbols):
                continue
            scored.append((rate(kinds[:i + 1] + kinds[i + 2:], i + 1, 0), order, ("delete", i, "")))
            for new in (contexts.keywords if _WORD.fullmatch(tok) else contexts.symbols):
                if new != tok:
                    scored.append((rate(kinds[:i + 1] + [new] + kinds[i + 2:], i + 1, 1), order, ("replace", i, new)))
    scored = [s for s in scored if s[0][0] > 0]
    scored.sort(key=lambda s: (-s[0][0], -s[0][1], s[1]))
    spacing = habits("\n".join(lines), language)[0]
    # The names the structure asks for (the element left open, the one whose end tags
    # outnumber its start tags) before those only the neighbours suggest.
    for order, (what, i, new) in structural + [(order, edit) for _, order, edit in scored[:FAMILIAR_EDITS]]:
        yield _familiar_edit(lines[rows[order] - 1], rows[order], contexts, spacing, what, i, new)


def _familiar_edit(text: str, line_no: int, contexts: Contexts, spacing: Spacing, what: str, i: int,
                   new: str) -> Edit:
    """The edit ``what`` (insert, replace, delete, swap) at token ``i`` of line ``text``."""
    toks = _tokens(text, contexts.symbols)
    if what == "swap":
        return _swap(line_no, text, *toks[i], *toks[i + 1])
    if what == "delete":
        return _delete(line_no, text, toks[i][0], toks[i][1], f"delete {toks[i][1]!r}", contexts)
    if what == "replace":
        return _line_edit(line_no, text, toks[i][0], toks[i][1], new, f"replace {toks[i][1]!r} with {new!r}")
    # Inserted between two tokens, with blanks as the file has them around the new one.
    start = toks[i - 1][0] + len(toks[i - 1][1]) if i else len(text) - len(text.lstrip())
    end = toks[i][0] if i < len(toks) else len(text)
    if _WORD.fullmatch(new):
        left = not _spaced(text, start, new).startswith(new)
        right = _spaced(text, end, new).endswith(" ")
    else:
        left, right = spacing.spaced(new)
    if i:
        left = contexts.blank(toks[i - 1][1], new, left)
    if i < len(toks):
        right = contexts.blank(new, toks[i][1], right)
    placed = text[:start] + " " * (left and 0 < i) + new + " " * (right and i < len(toks)) + text[end:]
    return Edit(line_no, 1, [placed], f"line {line_no}: insert {new!r}", 1, start + len(new) + 2, start)


@lru_cache(maxsize=4)
def contexts_of(text: str, language: str) -> Contexts:
    return Contexts(text.split("\n"), language)


PROSE_RUN = 3  # names in a row, none the grammar's, that only a sentence has


def prose(text: str, keywords: Sequence[str], symbols: Sequence[str], run_of: int = PROSE_RUN) -> bool:
    """A line of words, not code: nothing but names, numbers, quoted words and sentence
    marks, with a run of names that are not the grammar's keywords (a comment's
    sentence wrapped by an editor onto a line of its own: ``the License, Version 2.0
    (the "License");``). A sentence may name an operator, standing apart (``If LT is
    <=, and LT.semver does not satisfy every C``); code has them too, so a line that
    names one reads as a sentence only with a run of ``PROSE_RUN`` names."""
    run = longest = 0
    end = -1  # where the token before ends
    named = False  # an operator named between blanks
    text = _APOSTROPHE.sub("", text)  # (``TSAN's``, ``don't``: one word, no quote opened)
    text = _SLASHED.sub("", text)  # (``save/restore``, ``and/or``: one word)
    text = _MARKUP.sub("", text)  # (RDoc's ``+user+``, a ``*word*`` stressed: the word)
    text = _ESCAPE.sub(" ", text)  # (``matched by \s.``: a pattern's escape named in a sentence)
    for col, tok in _tokens(text, symbols):
        if tok == "(" and col == end and longest < run_of:
            # A call (``getch()``): a sentence puts a blank before its parenthesis, unless
            # it names a call after its words (``no way to signal EOF from available()``).
            return False
        if _WORD.fullmatch(tok) and tok not in keywords:
            run += 1
            longest = max(longest, run)
        elif _WORD.fullmatch(tok) or tok in _SENTENCE_MARKS or tok[:1].isdigit() \
                or (len(tok) > 2 and tok[0] in "\"'" and tok[-1] == tok[0] and _QUOTED_WORDS.fullmatch(tok[1:-1])):
            run = 0
        elif col > end and _NAMED_OPERATOR_AFTER.match(text, col + len(tok)) and tok in symbols:
            run, named = 0, True
        else:
            return False
        end = col + len(tok)
    return longest >= (max(run_of, PROSE_RUN) if named else run_of)


# A quoted word, phrase or escape named in a sentence (``"simple producer"``, ``'\\n'``).
_QUOTED_WORDS = re.compile(r"(?:[A-Za-z_0-9]+(?: [A-Za-z_0-9]+)*|\\[A-Za-z0-9])")
_NAMED_OPERATOR_AFTER = re.compile(r"[,.]?(?:\s|$)")  # what follows an operator a sentence names
_APOSTROPHE = re.compile(r"(?<=[A-Za-z])'(?=[A-Za-z])")
_SLASHED = re.compile(r"(?<=[A-Za-z])/(?=[A-Za-z])")  # two words a slash joins, no blank
_ESCAPE = re.compile(r"(?<=\s)\\[A-Za-z](?![A-Za-z])")  # ``\s``, ``\n`` after a blank
# A comment's markup: a ``+``, ``*`` or backquote that touches a word on one side and a
# blank or the line's edge on the other.
MARKUP_MARKS = "+*`"
_MARK = f"[{re.escape(MARKUP_MARKS)}]"
_MARKUP = re.compile(rf"(?:(?<=\s)|^){_MARK}(?=\w)|(?<=\w){_MARK}(?=\s|$)")
_SENTENCE_MARKS = (",", ".", "'", "-", ":", ";", "(", ")", "!", "?")
_SENTENCE_ENDS = (".", ":", ";", "!", "?")


@rule('grammar-token', 'every insertion, deletion and substitution of one token of the grammar near the error')
def late_edits(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """Every deletion, insertion and substitution of one grammar token (or a name of
    the file) among the tokens nearest the error. The few swaps and deletions of every
    row come before the many insertions: a token too many on the line above is as
    likely as one too few on the error's own."""
    if not problems or not lines:
        return
    keywords, symbols = vocabulary(language)
    problem = problems[0]
    spacing, vocab = habits("\n".join(lines), language)
    contexts = contexts_of("\n".join(lines), language)
    rows = []
    for line_no in _rows(lines, problem, language):
        text = lines[line_no - 1]
        toks = _tokens(text, symbols)
        near = _near(toks, problem.column - 1 if line_no == problem.line else len(text))
        rows.append((line_no, text, toks, near))
    for line_no, text, toks, near in rows:
        for i in near[:-1]:
            (c1, t1), (c2, t2) = toks[i], toks[i + 1]
            if t1 != t2 and not (_grammar_token(t1, keywords, symbols) and _grammar_token(t2, keywords, symbols)):
                yield _swap(line_no, text, c1, t1, c2, t2)
        # The file's own names and literals are its data: a repair that deletes or
        # overwrites one "parses" by throwing code away (``[1 2 3]`` -> ``[1 , 3]``).
        # Only the grammar's tokens near the error are deleted: the neighbourhood stays
        # where the error is.
        for i in near:
            col, tok = toks[i]
            if _grammar_token(tok, keywords, symbols):
                yield _delete(line_no, text, col, tok, f"delete {tok!r}", contexts)
    for line_no, text, toks, near in rows:
        boundaries = _boundaries(toks, near)
        for new in vocab:  # the tokens the file uses most, at every place, first
            for col in boundaries:
                yield from _inserts(line_no, text, col, new, spacing)
        for i in near:  # a word for a word, a mark for a mark
            col, tok = toks[i]
            if _grammar_token(tok, keywords, symbols):
                for new in (keywords if _WORD.fullmatch(tok) else symbols):
                    if new != tok:
                        yield _line_edit(line_no, text, col, tok, new, f"replace {tok!r} with {new!r}")
        # A value or name left out is most often one the lines around it use too
        # (``= true`` on the line below a ``=`` that lost it).
        for col in _boundaries(toks, near):
            for new in _nearby_values(lines, line_no, keywords, symbols):
                yield from _inserts(line_no, text, col, new, spacing)


def _boundaries(toks: list[tuple[int, str]], near: list[int]) -> list[int]:
    """The columns before and after each of the ``near`` tokens."""
    return sorted({toks[i][0] for i in near} | {toks[i][0] + len(toks[i][1]) for i in near})


@lru_cache(maxsize=4)
def habits(text: str, language: str) -> tuple[Spacing, list[str]]:
    """How the file spaces its marks, and the grammar's tokens, those the file uses most
    first, marks and keywords alike (the token left out is likelier one its author types
    than one they never do), then the rest in the grammar's order, marks first. A
    search asks again for each text it reaches."""
    keywords, symbols = vocabulary(language)
    lines = text.split("\n")
    spacing = Spacing(lines, symbols)
    words = Counter(w for line in lines for w in _WORD.findall(line))
    used = {**{t: spacing.seen[t] for t in symbols}, **{t: words[t] for t in keywords}}
    order = {t: i for i, t in enumerate(list(symbols) + list(keywords))}
    return spacing, sorted(order, key=lambda t: (-used[t], order[t]))


NEARBY_LINES = 3  # lines either side of the error whose names and literals may be inserted
MAX_NEARBY = 12


def _nearby_values(lines: list[str], line_no: int, keywords: Sequence[str], symbols: Sequence[str]) -> list[str]:
    """The names and literals of the lines around ``line_no``, nearest lines first."""
    found: list[str] = []
    order = sorted(range(max(1, line_no - NEARBY_LINES), min(len(lines), line_no + NEARBY_LINES) + 1),
                   key=lambda n: (abs(n - line_no), n))
    for n in order:
        for _, tok in _tokens(lines[n - 1], symbols):
            if not _grammar_token(tok, keywords, symbols) and tok not in found and len(tok) <= 40:
                found.append(tok)
    return found[:MAX_NEARBY]


def _spaced(text: str, col: int, new: str) -> str:
    """``new`` as a person types it at ``col`` of ``text``: a word is kept apart from
    the words and marks around it by one space, except after an opening bracket and
    before a closing one or a separator."""
    if not (_WORD.match(new) or new[0].isalnum() or new[0] in "\"'`"):
        return new
    before, after = text[col - 1:col] if col else "", text[col:col + 1]
    left = " " if before and not before.isspace() and before not in "([{." else ""
    right = " " if after and not after.isspace() and after not in ")]},;:." else ""
    return left + new + right
