"""Words the grammar admits where a token stands.

tree-sitter records, for every token it read, the parse state it was in before it
(``Node.parse_state``), and its parse table says which tokens have an action in a
state (``Language.lookahead_iterator``) and where reading one leads
(``Language.next_state``). A keyword left out of a line (``func`` before a Go
function's name, ``for`` before a loop's header, ``class`` before a PHP class's name,
``extends`` before a supertype) is one of the few words admitted just before the token
that now follows the gap, and one after which that token is admitted in turn. Of a
grammar's hundred-odd keywords, a handful pass both; each is proposed there, on the
reported lines' first tokens, before the grammar's whole one-token space is searched.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Iterator

from ..check import Problem
from ..languages import get_language, get_parser
from ..problems import char_column, leaves_within
from .edits import Edit
from .grammar_space import insert_word, vocabulary
from .rules import rule

if TYPE_CHECKING:
    import tree_sitter

LEADING_TOKENS = 6  # tokens of a reported line, from its start, before which a keyword is tried
WORDS_AROUND = 200  # lines either side of the first problem whose code words are counted
REPORTED_LINES = 3  # the problems whose lines are looked at, the first (nearest) first
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# A search's runs of the language's own judge for these edits: where tree-sitter's
# recovery from a string left open accepts any word (Ruby), each would take one.
LOST_KEYWORD_JUDGE_RUNS = 24
# The state of a token read in an error's recovery (and of a missing one): none of the
# grammar's. (A token read while the parser followed several paths has none either: a
# number past the table's states.)
NO_STATE = 0


def _admitted(language: "tree_sitter.Language", state: int) -> set[int]:
    """The symbols with an action in ``state``; none in a state the table does not have."""
    iterator = language.lookahead_iterator(state) if state < language.parse_state_count else None
    return set(iterator.symbols()) if iterator is not None else set()


@lru_cache(maxsize=None)
def _follows(language: str, *run: int) -> frozenset[int]:
    """The tokens that may come next after the symbols ``run`` in a row, wherever the
    grammar reads them: what may follow a keyword where the state before it must first
    complete what it read (an LR parser's reduction, which the table does not show) is
    known only this way."""
    grammar = get_language(language)
    states = set(range(grammar.parse_state_count))
    for symbol in run:
        states = {grammar.next_state(state, symbol) for state in states} - {NO_STATE}
    return frozenset(s for state in states for s in _admitted(grammar, state))


class _Rows:
    """The tokens of a parsed text by the row they start on."""

    def __init__(self, lines: list[str], tree: "tree_sitter.Tree") -> None:
        self.encoded = [line.encode("utf-8", "surrogatepass") for line in lines]
        self.starts = [0]
        for line in self.encoded:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.root = tree.root_node

    def tokens(self, first: int, last: int) -> Iterator["tree_sitter.Node"]:
        """The tokens that start on rows ``first..last`` (0-based), in order."""
        start = self.starts[max(first, 0)]
        end = self.starts[min(last + 1, len(self.encoded))]
        return (leaf for leaf in leaves_within(self.root, start, end) if leaf.start_byte >= start)

    def column(self, leaf: "tree_sitter.Node") -> int:
        """``leaf``'s 0-based column in characters."""
        row, byte = leaf.start_point
        return char_column(self.encoded, row, byte) - 1


def _words(language: str, tokens: Iterator["tree_sitter.Node"]) -> tuple[dict[str, set[int]], Counter]:
    """The words that may be left out, each with its grammar symbols: the grammar's
    keywords, and the named tokens written with one text only, more than once, among
    ``tokens`` (JavaScript's ``this``, Java's ``void``: a grammar that names a word's
    node keeps it out of its keywords); and how often each word stands as code there
    (not in a comment)."""
    grammar = get_language(language)
    words: dict[str, set[int]] = {}
    for word in vocabulary(language)[0]:
        symbol = grammar.id_for_node_kind(word, False)
        if symbol is not None:
            words.setdefault(word, set()).add(symbol)
    used: Counter = Counter()
    texts: dict[int, Counter] = {}
    for leaf in tokens:
        if leaf.is_extra:
            continue
        text = leaf.text.decode("utf-8", "replace")
        used[text] += 1
        if leaf.is_named:
            texts.setdefault(leaf.grammar_id, Counter())[text] += 1
    for symbol, seen in texts.items():
        (word, count), *others = seen.most_common()
        if not others and count > 1 and _WORD.fullmatch(word):
            words.setdefault(word, set()).add(symbol)
    return words, used


def admitted_keywords(language: str, leaf: "tree_sitter.Node", words: dict[str, set[int]] | None = None) -> list[str]:
    """Of ``words`` (the grammar's keywords by default), those that may stand just before
    ``leaf`` and after which ``leaf`` may stand, in their order; none where the parser
    kept no state for it."""
    state = leaf.parse_state
    if state == NO_STATE:
        return []
    grammar = get_language(language)
    if words is None:
        words = {w: {grammar.id_for_node_kind(w, False)} for w in vocabulary(language)[0]}
    before = _admitted(grammar, state)
    found = []
    for word, symbols in words.items():
        for symbol in symbols & before:
            after = grammar.next_state(state, symbol)
            follows = _admitted(grammar, after) if after != NO_STATE else _follows(language, symbol)
            if leaf.grammar_id in follows:
                found.append(word)
                break
    return found


def _reads_on(language: str, leaf: "tree_sitter.Node", following: "tree_sitter.Node | None",
              symbols: set[int]) -> bool:
    """After one of ``symbols`` (a keyword put before ``leaf``) and ``leaf``, the token
    ``following`` it is admitted too: the grammar reads two tokens on from the gap.
    (A parser recovering from an error may have read ``following``, a keyword, as a
    name: a keyword's text counts.)"""
    if following is None or leaf.parse_state == NO_STATE:
        return False
    grammar = get_language(language)
    text = following.text.decode("utf-8", "replace")
    keyword = grammar.id_for_node_kind(text, False) if text in vocabulary(language)[0] else None
    wanted = {keyword if keyword is not None else following.grammar_id}
    for symbol in symbols:
        after = grammar.next_state(leaf.parse_state, symbol)
        if after == NO_STATE:  # (a reduction first: wherever the grammar reads the two)
            admitted = _follows(language, symbol, leaf.grammar_id)
        else:
            then = grammar.next_state(after, leaf.grammar_id)
            admitted = frozenset(_admitted(grammar, then)) if then != NO_STATE else frozenset()
        if wanted & admitted:
            return True
    return False


def _positions(rows: _Rows, problems: tuple[Problem, ...]) -> Iterator[tuple[int, "tree_sitter.Node"]]:
    """(line, token) of the reported lines' tokens: on each line the token a problem's
    column points at (a compiler names the word it could not read as a type there),
    then the line's first tokens (a parser reports a declaration that lost its keyword
    at its start, or at the bracket where it gave up); each line's first first."""
    # (Where tree-sitter only names a token it found missing, that token is its guess:
    # the line's first tokens only.)
    reported = [p for p in problems[:REPORTED_LINES] if 1 <= p.line <= len(rows.encoded)]
    on_row = {p.line - 1: [leaf for leaf in rows.tokens(p.line - 1, p.line - 1)
                           if not (leaf.is_extra or leaf.is_missing) and leaf.end_byte > leaf.start_byte]
              for p in reported}
    per_row: dict[int, list[int]] = {row: [] for row in on_row}  # indexes into on_row[row]
    for p in reported:
        row = p.line - 1
        if p.kind != "missing":
            per_row[row] += [i for i, leaf in enumerate(on_row[row]) if rows.column(leaf) == p.column - 1]
    for row, tokens in on_row.items():
        per_row[row] = list(dict.fromkeys(per_row[row] + list(range(min(len(tokens), LEADING_TOKENS)))))
    for depth in range(max(map(len, per_row.values()), default=0)):
        for row, indexes in per_row.items():
            if depth < len(indexes):
                yield row + 1, on_row[row][indexes[depth]]


@rule('lost-keyword', "a keyword the grammar admits before a token of a reported line, and after which that token "
                      "is admitted, inserted there", 'any (not python)', judge_runs=LOST_KEYWORD_JUDGE_RUNS)
def lost_keyword_edits(lines: list[str], problems: tuple[Problem, ...], language: str,
                       leave_out: frozenset[str] = frozenset()) -> Iterator[Edit]:
    if not problems or not lines:
        return
    tree = get_parser(language).parse("\n".join(lines).encode("utf-8", "surrogatepass"))
    rows = _Rows(lines, tree)
    first = min(max(problems[0].line, 1), len(lines)) - 1
    words, used = _words(language, rows.tokens(first - WORDS_AROUND, first + WORDS_AROUND))
    for line_no, leaf in _positions(rows, problems):
        line = lines[line_no - 1]
        col = rows.column(leaf)
        admitted = [w for w in admitted_keywords(language, leaf, words) if w not in leave_out]
        following = next((t for t in rows.tokens(line_no - 1, line_no) if t.start_byte >= leaf.end_byte
                          and not t.is_extra and t.end_byte > t.start_byte), None)
        reads_on = {w for w in admitted if _reads_on(language, leaf, following, words[w])}
        # (those after which the token that follows it is admitted too come first:
        # ``class`` before ``Iterator implements``, not ``function``; a keyword the
        # text around never uses is a guess, unless it is the only one of those:
        # ``rescue`` before ``=> ex``)
        for word in sorted(admitted, key=lambda w: (w not in reads_on, -used[w])):
            yield replace(insert_word(line_no, line, col, word), unfounded=not used[word] and reads_on != {word})
