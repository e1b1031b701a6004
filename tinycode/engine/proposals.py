"""The small edits worth trying around a syntax problem, likeliest first.

Nothing here checks anything: ``candidates.py`` keeps the edits the checker accepts.
An edit replaces ``span`` lines from ``line`` with ``new_lines``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import chain
from typing import Callable, Iterator, Mapping, Sequence

from ..check import Problem, source_lines
from ..problems import AT_THE_END
from ..judges.unresolved import NOT_DECLARED
from ..languages import comment_prefix, spec
from ..languages.html import TAG_NAME, open_names
from .edits import BRACKETS, OPENER_OF, Edit, insert, kept_ends, replace_token
from .rules import rule
from .grammar_space import (Spacing, closed_comments, early_edits, familiar_edits, habits, late_edits, lost_breaks,
                            in_spans, prose, sentence_goes_on, strings_over_lines, text_spans, tree_of, vocabulary, words_of)
from .lookahead import lost_keyword_edits
from .layout import (HEADER_SCAN, opener_at_end, INNER_LINES, block_header, deeper_closers, indent_of, lost_closers,
                     misplaced_closers, mismatched_pairs, open_strings, tokens, unmatched_brackets)
from .messages import (MEANT_HEADER, MEANT_NAME, UNCLOSED, UNOPENED_DIRECTIVE, UNTERMINATED_CONDITIONAL, named_line,
                       token_before)
from .python_proposals import PYTHON_ALTERNATIVES, block_indent_edits, late_python_edits, python_edits
from . import end_block_proposals as end_blocks
from .shell_proposals import CLOSING_WORDS, OPENING_WORDS, shell_edits, unmatched_blocks

INSERTABLE = (")", "]", "}", ":", ",", ";", "(", "[", "{", '"', "'", ".", "+", "=", "()")
REPLACEABLE = (")", "]", "}", ":", ",", ";", "(", "[", "{", "=", "==", ".")
_WORD_END = re.compile(r"[^\s\"'(){}\[\],;:<>]+(?=[\s(){}\[\],;:<>]|$)")  # "<>": markup
QUOTE_LINES_BEFORE = 30  # lines before a problem searched for a dropped closing quote
BRACKET_SCAN = 60  # lines before and after a problem searched for an unmatched bracket
# gcc, clang, gofmt: "expected ';' before 'x'", "expected ';', ',' or ')' before 'int'", "expected ')'"
_EXPECTED = re.compile(r"^(?:SyntaxError: )?expected ((?:'[^'\s]{1,2}'(?:, | or |, or )?)+)(?: before| after|,|$)")
_QUOTED = re.compile(r"'([^'\s]{1,2})'")
_WORD_CHARS = re.compile(r"\w")
_NEXT_TOKEN = re.compile(r"(\s*)(\w+|[^\w\s])")
_EXPECTED_NAME = re.compile(r"\bexpected (?:an )?identifier\b")


FamilyEdits = Callable[[list[str], tuple[Problem, ...], list[int]], Iterator[Edit]]


@dataclass(frozen=True)
class EditFamily:
    """The edits a family of languages (``LanguageSpec.edit_family``) has of its own,
    and the general ones it leaves out."""

    # Before every other edit: the script's own block structure where its judge reports
    # a missing ``then``/``fi``/``done`` lines after it; markup's end tag that lost its
    # ``/``, reported where an enclosing element ends, lines below.
    first: Callable[[list[str], tuple[Problem, ...]], Iterator[Edit]] | None = None
    own: FamilyEdits | None = None  # after the grammar's typos, on the problem's lines
    late: FamilyEdits | None = None  # after every other edit of the problem's lines
    block_indent: bool = False  # a line shifted with the lines below it indented as deeply
    alternatives: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # a mark typed for another
    # Words that close or open a block as brackets do (the shell's ``fi``, ``then``):
    # a block's partner may be far from where the judge reports it missing.
    closers: frozenset[str] = frozenset()
    openers: frozenset[str] = frozenset()
    # Keywords the grammar admits where one was left out (``lookahead``); a family whose
    # judge names the keyword it expects proposes its own.
    lost_keywords: bool = True
    # The blocks its keywords open and never close, and close and never opened (the
    # shell's ``if`` without its ``fi``): unmatched as brackets are.
    unmatched_blocks: Callable[[list[str]], int] | None = None


# An end tag whose '/' became another character (``<code>Rc< code>``): text to the
# parser, so the element stays open.
_SLASHLESS_END_TAG = re.compile(r"<[ \\|](\w+)>")
END_TAG_LINES_BEFORE = 30  # lines above a markup problem searched for an end tag gone wrong
SLASHLESS_END_TAGS = 4  # slashless end tags made whole, the nearest the problem first (up to the file's start)


@rule('end-tag-slash', "an end tag whose '/' became another character: the '/' put back", 'html')
def _end_tag_slash_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """``<code>Rc< code>`` leaves the element open, and the judge reports it only where
    an enclosing element ends, lines below, as far as the document's end: on the
    problem's line and those above it, the nearest SLASHLESS_END_TAGS such texts of an
    element the file opens are made its end tag."""
    if not problems:
        return
    text = "\n".join(lines)
    first = problems[0].line
    made = 0
    for line_no in range(min(first, len(lines)), 0, -1):
        row = lines[line_no - 1]
        for match in _SLASHLESS_END_TAG.finditer(row):
            tag = f"</{match.group(1)}>"
            if re.search(f"<{match.group(1)}[\\s/>]", text):
                yield Edit(line_no, 1, [row[:match.start()] + tag + row[match.end():]],
                           f"line {line_no}: replace {match.group()!r} with {tag!r}", 1)
                made += 1
                if made == SLASHLESS_END_TAGS:
                    return


NAMELESS_END_TAGS = 2  # nameless end tags nearest the first problem given a name


@rule('end-tag-name', "an end tag that lost its name ('</>') given the innermost element still open before it",
      'html')
def _end_tag_name_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """``</>`` where ``</div>`` was: the elements opened before it and not yet ended
    (``html.open_names``), the innermost first, each name in turn."""
    if not problems:
        return
    nameless = sorted(((n, m.start()) for n, row in enumerate(lines, 1) for m in re.finditer("</>", row)),
                      key=lambda at: abs(at[0] - problems[0].line))
    for line_no, column in nameless[:NAMELESS_END_TAGS]:
        row = lines[line_no - 1]
        before = lines[:line_no - 1] + [row[:column]]  # (the text before it, its own line's too)
        for name in list(dict.fromkeys(open_names(before, line_no + 1, "</")))[:2]:
            yield replace_token(row, line_no, column, "</>", f"</{name}>")


# An end tag whose '>' was lost: its name, then a blank and more than a '>' (an end tag
# takes no attributes).
_OPEN_END_TAG = re.compile(r"</([A-Za-z][\w:-]*)(?=\s+[^\s>])")


@rule('end-tag-closer', "an end tag whose '>' was lost ('</code will be') given it after its name", 'html')
def _end_tag_closer_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """``</code will be created``: the tokenizer reads the words after the name as the
    tag's attributes and fails where they run into the next tag. On the problem's line
    and those above it, each such end tag gets its ``>``, the nearest first."""
    if not problems:
        return
    first = problems[0].line
    for line_no in range(min(first, len(lines)), max(0, first - END_TAG_LINES_BEFORE), -1):
        row = lines[line_no - 1]
        for match in _OPEN_END_TAG.finditer(row):
            yield replace(insert(row, line_no, match.end(), ">"),
                          description=f"line {line_no}: close '</{match.group(1)}' with '>'")


_END_TAG = re.compile(r"</(" + TAG_NAME + r")\s*>")
_START_TAG_NAME = re.compile("<(" + TAG_NAME + ")")


@rule('end-tag-case', "an end tag whose name is written in another case than its element's start tags, "
      "respelt as they are", 'html')
def _end_tag_case_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """``<span ...>x</Span>``: a judge that tells the case of names apart reads the end
    tag as closing nothing, and reports the element left open only where an enclosing
    element ends, lines below. On the problem's line and those above it, an end tag
    whose name the file's start tags never write so, but write in another case, is
    respelt as they write it (the most often, where they differ)."""
    if not problems:
        return
    starts = Counter(_START_TAG_NAME.findall("\n".join(lines)))
    first = problems[0].line
    for line_no in range(min(first, len(lines)), max(0, first - END_TAG_LINES_BEFORE), -1):
        row = lines[line_no - 1]
        for match in _END_TAG.finditer(row):
            name = match.group(1)
            if starts[name]:
                continue
            written = [(n, other) for other, n in starts.items() if other.lower() == name.lower()]
            if written:
                yield replace_token(row, line_no, match.start(1), name, max(written)[1])


def _markup_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    yield from _end_tag_slash_edits(lines, problems)
    yield from _end_tag_case_edits(lines, problems)
    yield from _end_tag_name_edits(lines, problems)
    yield from _end_tag_closer_edits(lines, problems)


GENERAL = EditFamily()
# The families of edits, by the name a language's record gives (one table, as the records are).
EDIT_FAMILIES: dict[str, EditFamily] = {
    "python": EditFamily(own=python_edits, late=late_python_edits, block_indent=True,
                         alternatives=PYTHON_ALTERNATIVES, lost_keywords=False),
    "shell": EditFamily(first=shell_edits, closers=CLOSING_WORDS, openers=OPENING_WORDS | {";"},
                        unmatched_blocks=unmatched_blocks),
    "markup": EditFamily(first=_markup_edits),
    "end": EditFamily(first=end_blocks.end_block_edits, closers=end_blocks.CLOSING_WORDS,
                      openers=end_blocks.OPENING_WORDS),
}


def edit_family(language: str) -> EditFamily:
    """The family of edit proposals of ``language``'s record (``GENERAL`` for none)."""
    record = spec(language)
    return EDIT_FAMILIES.get(record.edit_family, GENERAL) if record is not None else GENERAL


def proposals(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """Edits to try for ``problems`` (the first, and the two nearest it), likeliest first;
    none that only changes a comment's words, which no parser reads, nor one that fuses
    two words into one the file has nowhere (``_fuses_words``)."""
    comments: dict[int, list[tuple[int, int]]] | None = None
    text = ""
    for edit in _proposals(lines, problems, language):
        if edit.span == 1 and len(edit.new_lines) == 1 and 1 <= edit.line <= len(lines):
            if comments is None:
                text = "\n".join(lines)
                comments = closed_comments(text, language)
            old, new = lines[edit.line - 1], edit.new_lines[0]
            if _only_a_comment_s_words(old, new, comments.get(edit.line, ()), language) \
                    or _fuses_words(old, new, text, language):
                continue
        yield edit


def _fuses_words(old: str, new: str, text: str, language: str) -> bool:
    """``new`` is ``old``, a line of ``text``, with what stood between two words of the
    file taken away (``scopes==nil`` made ``scopesnil``; each word used elsewhere too, or
    a keyword), and the word they make is none the file has: no repair, a new name. (A
    character typed into a name, ``my_va#lue``, taken away gives back a name whose halves
    are no words.)"""
    start, end = kept_ends(old, new)
    if len(new) != start + end or start == len(old) - end or not start or not end:
        return False  # not a deletion inside the line
    left = re.search(r"[A-Za-z_]\w*$", new[:start])
    right = re.match(r"\w+", new[start:])
    if left is None or right is None or left.end() != start:
        return False
    words, keywords = words_of(text), vocabulary(language)[0]

    def known(word: str) -> bool:
        return word in keywords or words[word] >= 2
    return known(left.group()) and known(right.group()) \
        and not (left.group() + right.group() in keywords or words[left.group() + right.group()])


def _only_a_comment_s_words(old: str, new: str, spans: Sequence[tuple[int, int]], language: str) -> bool:
    """``old`` made ``new`` only inside one of the comment ``spans`` of its line, with no
    comment mark or quote typed or taken away (``abort.`` made ``abort abort.``)."""
    if not spans or old == new:
        return False
    start, end = kept_ends(old, new)
    changed = old[start:len(old) - end] + new[start:len(new) - end]
    record = spec(language)
    marks = [m for m in (comment_prefix(language), *(record.block_comment if record is not None else ())) if m]
    if any(m in changed or m[:1] in changed or old.count(m) != new.count(m) for m in marks) \
            or any(q in changed for q in "\"'`"):
        return False  # (a mark made whole by what was taken from inside it, ``*x/``, too)
    return any(first < start and len(old) - end < last for first, last in spans)


def _proposals(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    total = len(lines)
    if not total:
        return
    problems = _nearest_first(problems)
    family = edit_family(language)
    record = spec(language)
    guess = record is None or not record.judge_names_where_errors_begin  # edits guessed from the layout
    if family.first is not None:
        yield from family.first(lines, problems)
    # Directives the compiler finds unpaired or unknown: tree-sitter parses every branch
    # of a conditional as code and pairs no directive, so only the compiler can judge
    # an edit of them (and the same split found by ``lost_breaks`` is asked of it too).
    for edit in chain(_endif_at_the_end(lines, problems), _endif_remnants(lines, problems),
                      _directives_joined_edits(lines, problems), _directive_swapped_edits(lines, problems),
                      _guard_name_edits(lines, problems), _undef_name_edits(lines, problems),
                      _tested_name_edits(lines, problems)):
        yield replace(edit, direct=True)
    # A string closed with the other quote runs on to the next quote of its kind, maybe
    # far below, where the judge reports: the judge decides at once.
    for edit in chain(_string_run_on_edits(lines, problems, language), _stray_quote_edits(lines, problems, language)):
        yield replace(edit, direct=True)
    for edit in chain(_sibling_end_edits(lines, problems), _split_header_edits(lines, problems, language)):
        yield replace(edit, direct=True)
    if record is not None and not record.comment and not record.block_comment[0]:
        yield from _foreign_comment_edits(lines, problems)
    # A block comment's closer that closes nothing: the comment lost its opener.
    yield from _lost_comment_opener_edits(lines, problems, language)
    # A line in a block comment with only a broken closer: the comment swallowed code.
    yield from _lost_comment_closer_edits(lines, problems, language)
    # A line among line comments whose marker broke.
    yield from _lost_comment_marker_edits(lines, problems, language)
    # Two lines typed as one: the few splits that change no token.
    yield from lost_breaks(lines, problems, language)
    if problems:
        yield from _two_pairs_edits(lines, problems[0])
    if problems and guess:  # the layout says where a closer was lost: before the parser's guess
        yield from _lost_closer_edits(lines, problems[0], comment_prefix(language))
    yield from _named_missing_edits(lines, problems)
    yield from _meant_header_edits(lines, problems)
    yield from _meant_name_edits(lines, problems)
    yield from _unresolved_swap_edits(lines, problems)
    yield from _unresolved_declared_edits(lines, problems)
    # A name the compiler points at is deleted only after the one-token edits around it:
    # "expected ')' before 'ch'" more often lost a ',' before the name than gained the name.
    names_pointed: list[Edit] = []
    keywords = vocabulary(language)[0]
    if problems and guess:  # (before the closer the judge points at is deleted)
        yield from _opener_in_comment_edits(lines, problems[0], language)
    for p in problems[:1]:
        if guess:
            yield from _expected_token_edits(lines, p)
        if p.kind == "compiler" and guess and 1 <= p.line <= total:
            pointed = next((t for c, t in tokens(lines[p.line - 1]) if c == p.column - 1), "")
            deleted = _delete_pointed(lines[p.line - 1], p.line, p.column - 1, token_before(p.message))
            if _IDENTIFIER.fullmatch(pointed) and pointed not in keywords:
                names_pointed.extend(deleted)
            else:
                yield from deleted
    if problems and guess:
        yield from _lost_opener_edits(lines, problems[0], comment_prefix(language))
    if problems:
        yield from _regex_opener_edits(lines, problems[0], language)
    if problems:
        yield from _lost_continuation_edits(lines, problems[0])
    # The grammar's own small-edit neighbourhood: typos of words and of token order first.
    yield from early_edits(lines, problems, language)
    yield from familiar_edits(lines, problems, language)
    # Unexpected text that holds a quote: a string ended in the wrong place, most often
    # because a closing quote lines before it was lost; try that before token edits here.
    # (A tool that names only a line, as php -l does, leaves the text to tree-sitter.)
    first_text = problems[0].text if problems and not guess else next((p.text for p in problems if p.text), "")
    quoted = bool(problems) and (any(q in first_text for q in "\"'`")
                                 or _odd_quotes_above(lines, problems[0], comment_prefix(language))
                                 or _both_quotes_open_above(lines, problems[0]))
    # A keyword left out, where no string left open explains the error (a closing word
    # left out is a block left open: not one of these).
    if family.lost_keywords and not quoted:
        yield from lost_keyword_edits(lines, problems, language, family.closers)
    anchors = _anchor_lines(lines, problems)
    if record is not None and record.deep_indent_reported_early and problems:  # tree-sitter-yaml reports such a mistake lines earlier
        anchors += [n for n in _yaml_unexpected_indents(lines, problems[0]) if n not in anchors]
    if family.own is not None:
        yield from family.own(lines, problems, anchors)
    for line_no in anchors:
        yield from _indent_edits(lines, line_no)
    if problems:
        for line_no in _odd_indent_lines(lines, problems[0], anchors):
            yield from _indent_edits(lines, line_no)
    if family.block_indent:
        for line_no in anchors[:2]:
            yield from block_indent_edits(lines, line_no)
    if problems:
        yield from _line_end_edits(lines, problems[0], anchors)
        for line_no in anchors[:2]:
            yield from _bare_key_edits(lines[line_no - 1], line_no, vocabulary(language)[0])
    if quoted:
        yield from _unbalanced_quote_edits(lines, problems[0])
        yield from _cut_closer_edits(lines, problems[0])
    spacing = habits("\n".join(lines), language)[0]
    for line_no in anchors:
        yield from _token_edits(lines[line_no - 1], line_no, family.alternatives, spacing)
    for line_no in _inner_lines(problems, total, anchors):
        yield from _token_edits(lines[line_no - 1], line_no, family.alternatives, spacing)
    yield from names_pointed
    if problems:
        if not quoted:
            yield from _unbalanced_quote_edits(lines, problems[0])
            yield from _cut_closer_edits(lines, problems[0])
        if guess:  # CPython names an unclosed bracket itself
            yield from _unmatched_bracket_edits(lines, problems[0], comment_prefix(language))
            yield from _other_kind_bracket_edits(lines, problems[0], comment_prefix(language))
    if family.late is not None:
        yield from family.late(lines, problems, anchors)
    # Then every one-token insertion, deletion and substitution from the grammar's vocabulary.
    yield from late_edits(lines, problems, language)


@rule('named-missing', 'the token the parser names as missing inserted where it says')
def _named_missing_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """A token the parser named as missing, inserted exactly there."""
    total = len(lines)
    for p in problems:
        if p.kind == "missing" and p.message.startswith("missing "):
            token = p.message[len("missing "):].strip("'\"")
            if not token or len(token) > 8:
                continue
            if p.line > total:  # at the end of the file: a line of its own
                yield Edit(total, 1, [lines[-1], token], f"line {total + 1}: insert {token!r}")
            elif p.line >= 1:
                yield insert(lines[p.line - 1], p.line, p.column - 1, token)


@rule('header-name', "an <angled> header name the compiler has a header one character away from, made that one",
      'c, cpp')
def _meant_header_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """The ``#include`` a judge found mistyped (``judges._mistyped_header``) naming the header
    it meant, with any text typed after the ``>`` that belongs inside it."""
    for p in problems:
        meant = MEANT_HEADER.match(p.message)
        if meant is None or not 1 <= p.line <= len(lines):
            continue
        text = lines[p.line - 1]
        start, end = text.find("<"), text.find(">")
        if start < 0 or end < start:
            continue
        name, near = meant.groups()
        after = text[end + 1:]
        rest = "" if near == name + after.strip() else after
        yield Edit(p.line, 1, [f"{text[:start]}<{near}>{rest}"], f"line {p.line}: include <{near}>")


@rule('meant-name', "a name the compiler cannot resolve made the one it suggests", 'c, cpp')
def _meant_name_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """The name a judge's message says it cannot resolve, where it points, made the one
    it suggests (``'in' ...; did you mean 'int'?``)."""
    for p in problems:
        meant = MEANT_NAME.search(p.message)
        if meant is None or not 1 <= p.line <= len(lines):
            continue
        name, near = meant.groups()
        text = lines[p.line - 1]
        at = p.column - 1
        if text[at:at + len(name)] == name and not text[at + len(name):at + len(name) + 1].isalnum():
            yield replace_token(text, p.line, at, name, near)


# The tokens of a type that may follow a name swapped with it: qualified names, template
# arguments, ``*``/``&``, ``const``.
_TYPE_RUN = re.compile(r"(?:[ \t]*(?:::|[A-Za-z_]\w*|<[^<>;(){}]*>|[*&]))+")


def _named_unresolved(lines: list[str], p: Problem) -> tuple[str, int] | None:
    """The name a compiler's message says is not declared, and its column on the
    problem's line, where the message points at it."""
    found = NOT_DECLARED.match(p.message) if p.kind == "compiler" else None
    if found is None or not 1 <= p.line <= len(lines):
        return None
    name, text, at = found.group(1), lines[p.line - 1], p.column - 1
    if text[at:at + len(name)] != name or _WORD_CHARS.match(text[at + len(name):at + len(name) + 1] or " "):
        return None
    return name, at


@rule('unresolved-swap', "a name the compiler finds undeclared where it points swapped with the type after it "
      "('twice(n std::size_t)')", 'c, cpp')
def _unresolved_swap_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """The name a judge says is not declared (``judges.unresolved``: a variable the file
    declares elsewhere) swapped with the type that follows it, up to the declarator's
    end (``n std::size_t)`` made ``std::size_t n)``)."""
    for p in problems[:2]:
        named = _named_unresolved(lines, p)
        if named is None:
            continue
        name, at = named
        text = lines[p.line - 1]
        after = at + len(name)
        run = _TYPE_RUN.match(text, after)
        typed = run.group().strip() if run is not None else ""
        if not typed:
            continue
        blank = run.group()[:len(run.group()) - len(run.group().lstrip())]  # between the name and the type
        end = after + len(run.group().rstrip())
        yield Edit(p.line, 1, [text[:at] + typed + (blank or " ") + name + text[end:]],
                   f"line {p.line}: swap {name!r} with {typed!r}", 2, end + 1, at)


@rule('unresolved-declared', "a name the compiler finds undeclared typed back, on its line or the two above, "
      "between two tokens the file declares it between ('const T&)' made 'const T& value)')", 'c, cpp')
def _unresolved_declared_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """The name a judge says is not declared, lost where it was declared: a parameter's
    (``put(const T&) { (void)value; }``). The file declares it elsewhere between two
    tokens (``& value )``); where the same two tokens stand together on the problem's
    line or the two above it, the name is put back between them."""
    for p in problems[:2]:
        named = _named_unresolved(lines, p)
        if named is None:
            continue
        name = named[0]
        pairs = set()
        for n, text in enumerate(lines, 1):
            toks = [t for t in tokens(text) if not t[1].isspace()]
            for i, (_, tok) in enumerate(toks):
                if tok == name and 0 < i < len(toks) - 1 and n != p.line:
                    pairs.add((toks[i - 1][1], toks[i + 1][1]))
        for line_no in range(p.line, max(0, p.line - 3), -1):
            text = lines[line_no - 1]
            toks = [t for t in tokens(text) if not t[1].isspace()]
            for (c1, t1), (c2, t2) in zip(toks, toks[1:]):
                if (t1, t2) in pairs and name not in (t1, t2):
                    col = c1 + len(t1)
                    yield insert(text, line_no, col, name if t1 in "([" else " " + name)


_DIRECTIVE = re.compile(r"#\s*(?:if|ifdef|ifndef|elif|elifdef|elifndef|else|endif|define|undef|include|"
                        r"include_next|import|line|error|warning|pragma)\b")


def _remnant(word: str) -> bool:
    """``word`` (a stripped line) is one word with a ``#`` that is no directive
    (``#``, ``#endf``, ``endif#``, ``# endif$``: ``$`` is a letter to gcc): what is
    left of one."""
    return "#" in word and re.fullmatch(r"[#\w$]+|#\s+[\w$]+", word) is not None and not _DIRECTIVE.fullmatch(word)


def _as_endif(text: str) -> str:
    """The line ``text`` (a remnant) made ``#endif``, with the blanks it had after its ``#``."""
    kept = re.match(r"\s*#\s*(?=\w)", text)
    return kept.group(0).lstrip() + "endif" if kept else "#endif"


@rule('endif-at-the-end', "an '#endif' for a conditional the compiler reports unterminated, at the file's end",
      'c, cpp')
def _endif_at_the_end(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """An ``#if`` reported unterminated where it opens lost its ``#endif`` below it, most
    often at the end of the file (an include guard): the last line made ``#endif`` when
    it is one word with a ``#`` that is no other directive (``#``, ``#endf``, ``endif#``),
    else an ``#endif`` on a line of its own after it."""
    if not any(p.kind == "compiler" and UNTERMINATED_CONDITIONAL.search(p.message) for p in problems):
        return
    last = next((n for n in range(len(lines), 0, -1) if lines[n - 1].strip()), None)
    if last is None:
        return
    text = lines[last - 1]
    if _remnant(text.strip()):
        yield Edit(last, 1, [_as_endif(text)], f"line {last}: replace {text.strip()!r} with {_as_endif(text)!r}")
    yield Edit(last, 1, [text, "#endif"], f"line {last + 1}: insert '#endif' at the end")


@rule('endif-remnant', "a directive's remnant ('#', '#endf', 'endif#') below a conditional the compiler "
      "reports unterminated made '#endif'", 'c, cpp')
def _endif_remnants(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """A directive cut short or mistyped to a word that is none (a lone ``#``, the null
    directive) between an unterminated conditional and the file's last line (which
    ``_endif_at_the_end`` answers for): the ``#endif`` it was, nearest first. Not a
    ``#`` whose next line begins with a directive's name: a line split after it."""
    last = next((n for n in range(len(lines), 0, -1) if lines[n - 1].strip()), 0)
    seen: set[int] = set()
    for p in problems:
        if p.kind != "compiler" or not UNTERMINATED_CONDITIONAL.search(p.message):
            continue
        for n in range(p.line + 1, last):
            word = lines[n - 1].strip()
            split = word == "#" and _DIRECTIVE.match("#" + lines[n].strip())  # ``#`` / ``include <x.h>``
            if n not in seen and _remnant(word) and not split:
                seen.add(n)
                endif = _as_endif(lines[n - 1])
                yield Edit(n, 1, [endif], f"line {n}: replace {word!r} with {endif!r}")


_GUARD_TEST = re.compile(r"^\s*#\s*ifndef\s+(\w+)\s*$")
_GUARD_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)(?:\s+1)?\s*$")
_NAMELESS_DEFINE = re.compile(r"^(\s*#\s*define)\s*$")
_NAMELESS_TEST = re.compile(r"^(\s*#\s*ifndef)\s*$")


@rule('guard-name', "an include guard's '#define' or '#ifndef' that lost its name given the name the other has",
      'c, cpp')
def _guard_name_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """``#define`` with no name (the compiler: "no macro name given") right under
    ``#ifndef NAME``, blank lines or comments between, or ``#ifndef`` with none right
    over ``#define NAME``: a header's guard, which defines the name it tests."""
    for p in problems:
        if p.kind != "compiler" or "no macro name given" not in p.message or not 1 <= p.line <= len(lines):
            continue
        text = lines[p.line - 1]
        code = [n for n in range(1, len(lines) + 1)
                if lines[n - 1].strip() and not lines[n - 1].lstrip().startswith(("//", "/*", "*"))]
        above = next((lines[n - 1] for n in reversed(code) if n < p.line), "")
        below = next((lines[n - 1] for n in code if n > p.line), "")
        for nameless, partner in ((_NAMELESS_DEFINE.match(text), _GUARD_TEST.match(above)),
                                  (_NAMELESS_TEST.match(text), _GUARD_DEFINE.match(below))):
            if nameless and partner:
                yield Edit(p.line, 1, [f"{nameless.group(1)} {partner.group(1)}"],
                           f"line {p.line}: name it {partner.group(1)!r}")


def _nameless(lines: list[str], problems: tuple[Problem, ...],
              directive: re.Pattern[str]) -> Iterator[tuple[Problem, re.Match[str]]]:
    """Each problem where the compiler says no macro name was given, on a line that is
    ``directive`` with no name, and that match."""
    for p in problems:
        if p.kind == "compiler" and "no macro name given" in p.message and 1 <= p.line <= len(lines):
            nameless = directive.match(lines[p.line - 1])
            if nameless is not None:
                yield p, nameless


_NAMELESS_UNDEF = re.compile(r"^(\s*#\s*undef)\s*$")
_DEFINES = re.compile(r"^\s*#\s*define\s+(\w+)")
_UNDEFINES = re.compile(r"^\s*#\s*undef\s+(\w+)")
MAX_UNDEF_NAMES = 3  # the macros still defined, nearest above first, an #undef's lost name is looked for among


@rule('undef-name', "an '#undef' that lost its name given a macro the file defines above it and has not undefined "
      "(its include guard's aside)", 'c, cpp')
def _undef_name_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """``#undef`` with no name (the compiler: "no macro name given"): a file undefines the
    macros it defined for its own use, after their last use; the name is one it still
    has defined there, most likely the one defined last. Its include guard (``#ifndef``
    right over the ``#define``) stays defined."""
    for p, nameless in _nameless(lines, problems, _NAMELESS_UNDEF):
        defined: dict[str, int] = {}  # name -> the line of its #define, while it stays defined
        for n in range(1, p.line):
            undone = _UNDEFINES.match(lines[n - 1])
            if undone:
                defined.pop(undone.group(1), None)
                continue
            made = _DEFINES.match(lines[n - 1])
            guard = made and n > 1 and _GUARD_TEST.match(lines[n - 2])
            if made and not (guard and guard.group(1) == made.group(1)):
                defined[made.group(1)] = n
        for name in sorted(defined, key=lambda k: -defined[k])[:MAX_UNDEF_NAMES]:
            yield Edit(p.line, 1, [f"{nameless.group(1)} {name}"], f"line {p.line}: name it {name!r}")


_NAMELESS_CONDITIONAL = re.compile(r"^(\s*#\s*(?:ifdef|ifndef))\s*$")
_CONDITIONAL = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b")
_TESTED = re.compile(r"^\s*#\s*(?:ifdef|ifndef)\s+(\w+)|\bdefined\s*\(?\s*(\w+)")
MAX_TESTED_NAMES = 4  # the names the file's other conditionals test that a nameless one is given


@rule('tested-name', "an '#ifdef' or '#ifndef' that lost its name given a name the file's other conditionals test "
      "(those at its own depth first, the nearest first)", 'c, cpp')
def _tested_name_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """``#ifdef`` with no name (the compiler: "no macro name given in #ifdef directive")
    that is not an include guard (``guard-name``): a file tests the same few macros
    again and again (``__USE_GNU``, ``__cplusplus``), those at its own depth of nesting
    likelier than those inside another conditional. Its include guard's name aside."""
    for p, nameless in _nameless(lines, problems, _NAMELESS_CONDITIONAL):
        depths: list[int] = []
        depth = 0
        for text in lines:
            kind = _CONDITIONAL.match(text)
            if kind and kind.group(1) == "endif":
                depth = max(depth - 1, 0)
            depths.append(depth - 1 if kind and kind.group(1) in ("elif", "else") else depth)
            if kind and kind.group(1) in ("if", "ifdef", "ifndef"):
                depth += 1
        guards = {m.group(1) for n, text in enumerate(lines[:-1]) for m in [_GUARD_TEST.match(text)]
                  if m and (d := _GUARD_DEFINE.match(lines[n + 1])) and d.group(1) == m.group(1)}
        tested: dict[str, tuple[bool, int]] = {}
        for n, text in enumerate(lines, 1):
            if n == p.line or not _CONDITIONAL.match(text):
                continue
            for found in _TESTED.finditer(text):
                name = found.group(1) or found.group(2)
                rank = (depths[n - 1] != depths[p.line - 1], abs(n - p.line))
                if name not in guards and rank < tested.get(name, (True, len(lines) + 1)):
                    tested[name] = rank
        for name in sorted(tested, key=tested.__getitem__)[:MAX_TESTED_NAMES]:
            yield Edit(p.line, 1, [f"{nameless.group(1)} {name}"], f"line {p.line}: name it {name!r}")


# What a compiler says when a conditional directive lost its partner (an ``#else`` that
# met an ``#else`` before it belongs to an ``#if`` the preprocessor did not see).
_UNPAIRED_DIRECTIVE = re.compile(UNTERMINATED_CONDITIONAL.pattern + "|" + UNOPENED_DIRECTIVE.pattern
                                 + r"|#(?:else|elif) after #else")
# A directive that begins after other text on a line: ``#else # ifdef X``.
_SECOND_DIRECTIVE = re.compile(r"(?<=\S)\s+(" + _DIRECTIVE.pattern + ")")


@rule('directives-joined', "a line holding a second preprocessor directive ('#else # ifdef X') split before it, "
      "where the compiler reports a conditional unpaired", 'c, cpp')
def _directives_joined_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """Two directive lines typed as one hide the second from the preprocessor, which
    then finds a conditional without its partner, often far from the joined line: each
    line of the file that has a directive after other text (not a ``#define``'s body,
    where ``#`` makes a string; a line comment's, ``// ... possible. #if X``, too) is
    split before it, the second line unindented as directives are, nearest the
    reported line first."""
    reported = [p.line for p in problems if p.kind == "compiler" and _UNPAIRED_DIRECTIVE.search(p.message)]
    if not reported:
        return
    joined = []
    for n, text in enumerate(lines, 1):
        if "#" not in text or re.match(r"\s*#\s*define\b", text):
            continue
        match = _SECOND_DIRECTIVE.search(text)
        if match is not None and "/*" not in text[:match.start()]:
            joined.append((min(abs(n - r) for r in reported), n, match))
    for _, n, match in sorted(joined)[:MAX_JOINED_DIRECTIVES]:
        text = lines[n - 1]
        yield Edit(n, 1, [text[:match.start()], match.group(1).lstrip() + text[match.end(1):]],
                   f"line {n}: split before {match.group(1).strip()!r}")


MAX_JOINED_DIRECTIVES = 3
_INVALID_DIRECTIVE = re.compile(r"invalid preprocessing directive #?(\w+)")


@rule('directive-swapped', "a directive's name swapped back with the word before it ('#MM_ERROR define', "
      "'#NeedWidePrototypes if'), where the compiler reports an invalid directive", 'c, cpp')
def _directive_swapped_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """``#MM_ERROR define MM_ERROR``: the compiler takes the first word for the
    directive's name and knows no such directive. When the word after it is one, the
    two change places."""
    for p in problems:
        match = _INVALID_DIRECTIVE.search(p.message) if p.kind == "compiler" else None
        if match is None or not 1 <= p.line <= len(lines):
            continue
        text = lines[p.line - 1]
        swapped = re.match(r"(\s*#\s*)(\w+)(\s+)(\w+)\b", text)
        if swapped is None or swapped.group(2) != match.group(1) or not _DIRECTIVE.match("#" + swapped.group(4)):
            continue
        lead, first, gap, second = swapped.groups()
        yield Edit(p.line, 1, [lead + second + gap + first + text[swapped.end():]],
                   f"line {p.line}: swap {first!r} and {second!r}")


@rule('expected-token', 'the token a compiler says it expected inserted where it points, put in place of '
                        'the mark it points at that doubles or cuts it short, or swapped with it from after it',
      'any (not python)')
def _expected_token_edits(lines: list[str], p: Problem) -> Iterator[Edit]:
    """A compiler naming the token it expected: inserted after the token before, where a
    person types it; when the pointed token begins its line, at the end of the line
    above, then where it points; before those, the mark it points at made the one it
    expected that it doubles or cuts short (``methods[] == {``). Or the token after the
    mark, the one expected, swapped with it."""
    expected = _EXPECTED.match(p.message)
    if p.kind != "compiler" or not 1 <= p.line <= len(lines) \
            or not (expected or _EXPECTED_NAME.search(p.message)):
        return
    tokens = _QUOTED.findall(expected.group(1)) if expected else []
    text, col = lines[p.line - 1], p.column - 1
    pointed = next((mark for mark in (p.text, token_before(p.message))
                    if mark and text.startswith(mark, col) and not _WORD_CHARS.search(mark)), "")
    # The mark it points at (or names: "before '==' token"), one it expected doubled or
    # cut short (``==`` for ``=``).
    yield from (replace_token(text, p.line, col, pointed, token) for token in tokens
                if pointed and token != pointed and (token in pointed or pointed in token))
    places = [(p.line, len(lines[p.line - 1][:p.column - 1].rstrip()))]
    if not places[0][1]:
        above = next((n for n in range(p.line - 1, 0, -1) if lines[n - 1].strip()), None)
        places = ([(above, len(lines[above - 1].rstrip()))] if above else []) + [(p.line, p.column - 1)]
    for line_no, at in places:
        for token in tokens:
            yield insert(lines[line_no - 1], line_no, at, token)
    # The token it expected is the one after the mark, typed after it (``.= m_slots
    # slots`` for ``.m_slots = slots``): the two swapped.
    after = _NEXT_TOKEN.match(text, col + len(pointed)) if pointed else None
    if after is not None and (after.group(2) in tokens or (_WORD_CHARS.match(after.group(2)) is not None
                                                           and _EXPECTED_NAME.search(p.message) is not None)):
        word = after.group(2)
        yield Edit(p.line, 1, [text[:col] + word + after.group(1) + pointed + text[after.end():]],
                   f"line {p.line}: swap {pointed!r} and {word!r}", 2, after.end() + 1, col)


CONTINUATION_LINES_BEFORE = 6  # lines above a problem searched for a run of continued lines broken


@rule('lost-continuation', "a line inside a run of lines continued with '\\' that lost its own: joined to the "
                           "next, or given its '\\'")
def _lost_continuation_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A macro's or a command's lines each end with ``\\``, but one between them does
    not (a line split inside it, or its ``\\`` lost): the run ends there, and the
    lines after it are read as code on their own, where the parser objects. That line is
    joined to the next, or gets its ``\\`` back, the nearest above the problem first."""
    last = min(len(lines) - 1, max(problem.line, problem.end_line))
    for n in range(last, max(1, problem.line - CONTINUATION_LINES_BEFORE), -1):
        above, text, below = lines[n - 2], lines[n - 1], lines[n]
        if above.rstrip().endswith("\\") and below.rstrip().endswith("\\") and text.strip() \
                and not text.rstrip().endswith("\\"):
            yield Edit(n, 2, [text.rstrip() + " " + below.lstrip()], f"line {n}: join line {n + 1} to it", 1)
            yield Edit(n, 1, [text.rstrip() + " \\"], f"line {n}: end it with '\\'", 1)


@rule('line-end-insert', 'a token inserted at the end of the line before the problem')
def _line_end_edits(lines: list[str], p: Problem, anchors: list[int]) -> Iterator[Edit]:
    """A problem at the start of its line: a missing token most often belongs at the
    end of the line before."""
    text = lines[p.line - 1] if 1 <= p.line <= len(lines) else ""
    if p.column - 1 <= len(text) - len(text.lstrip()) and len(anchors) > 1:
        before = lines[anchors[1] - 1]
        for token in INSERTABLE:
            yield insert(before, anchors[1], len(before.rstrip()), token)


def _nearest_first(problems: tuple[Problem, ...], count: int = 3) -> tuple[Problem, ...]:
    """The first problem and the ``count - 1`` others nearest it. With several errors in a
    file, the ones listed next may be other mistakes far away (tree-sitter's, in line
    order, under a judge that reports only the first): what the parser saw near the
    first is what locates its edit."""
    if not problems:
        return problems
    first = problems[0]
    return (first, *sorted(problems[1:], key=lambda p: abs(p.line - first.line))[:count - 1])


_GLUE = ("(", "[")  # the brackets that stand between two words
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@rule('delete-pointed', 'the token a compiler points at deleted, keyword or not', 'any (not python)')
def _delete_pointed(text: str, line_no: int, col: int, named: str = "") -> Iterator[Edit]:
    """Delete the token a compiler points at, keyword or not (an ``else`` without an
    ``if``, a stray ``*/``): the token edits elsewhere never delete words. Not a
    string: one left open is closed, not thrown away with the rest of its line. Where
    the compiler's token (``named`` by its message) is the end of a longer one of ours
    (the ``=`` of ``!==``), that token."""
    parts = [(c, t) for c, t in tokens(text) if not t.isspace()]
    if named and text.startswith(named, col) and not any(start == col for start, _ in parts) \
            and any(start < col < start + len(tok) for start, tok in parts if tok[0] not in "\"'"):
        yield replace_token(text, line_no, col, named, "")
        return
    for i, (start, tok) in enumerate(parts):
        if start == col and not (tok[0] in "\"'" and len(tok) > 1):
            yield replace_token(text, line_no, start, tok, "")
            if text[start - 1:start + 1] == "*/" and start:  # gcc points at the "/" of a stray "*/"
                yield replace_token(text, line_no, start - 1, "*/", "")
            if tok in BRACKETS.values() and i and parts[i - 1][1] in (",", ";"):
                # "expected expression before ')'": the separator before it has nothing to separate
                yield replace_token(text, line_no, parts[i - 1][0], parts[i - 1][1], "")
            return


def _anchor_lines(lines: list[str], problems: tuple[Problem, ...]) -> list[int]:
    """The problem lines, the previous non-blank line (a missing token often belongs
    at its end), then the lines around."""
    total = len(lines)
    out: list[int] = []
    for p in problems:
        previous = next((n for n in range(min(p.line, total + 1) - 1, 0, -1) if lines[n - 1].strip()), 0)
        around = (p.line, previous, p.end_line, p.line - 1, p.line + 1, p.end_line + 1)
        begins = named_line(p)
        if begins != p.line:  # a mismatched bracket: where the message says it opened, first
            around = (begins, begins - 1, begins + 1) + around
        for line in around:
            if 1 <= line <= total and line not in out:
                out.append(line)
    return out


ODD_QUOTE_REACH = 2  # lines above a problem where a string left open makes quote edits go first


def _odd_quotes_above(lines: list[str], problem: Problem, comment: str) -> bool:
    """The problem's line or one just above it leaves a string open (an odd number of
    some quote, outside a trailing comment): the problem is likely where it ends."""
    for line_no in range(max(1, problem.line - ODD_QUOTE_REACH), min(problem.line, len(lines)) + 1):
        code = lines[line_no - 1]
        if comment and code.lstrip().startswith(comment):
            continue
        if comment and f" {comment} " in code:
            code = code.split(f" {comment} ", 1)[0]
        if open_strings(code) or code.count("`") % 2:
            return True
    return False


def _both_quotes_open_above(lines: list[str], problem: Problem) -> bool:
    """A line at most QUOTE_LINES_BEFORE above the problem leaves both kinds of quote
    open: a string closed with the other quote, which runs on to where it is reported."""
    first = max(1, problem.line - QUOTE_LINES_BEFORE)
    return any(len(_odd_quotes(text)) > 1 for text in lines[first - 1:min(problem.line, len(lines))])


def _odd_quotes(text: str, kinds: str = "\"'") -> list[str]:
    """The ``kinds`` of quote ``text`` has an odd number of, not counting escaped ones."""
    return [q for q in kinds if (text.count(q) - text.count("\\" + q)) % 2]


# A line of two pairs: a key, its separator and value, then a second key and separator.
_TWO_PAIRS = re.compile(r"^(\s*(?:- +)?)([\w$@]+(?:[.\-/@][\w$@]+)*)(:|\s*=)( +\S.*?)??( +)"
                        r"([\w$@]+(?:[.\-/@][\w$@]+)*)(:(?: |$)|\s*=)")


@rule('two-pairs', "a line holding two key-value pairs split before the second: beside the first, or under it")
def _two_pairs_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """``name: x help: |``, ``subnet: name: y``: two lines of a data file typed as one.
    The second pair goes on a line of its own beside the first, or nested under it
    (first where the first key has no value of its own)."""
    for line_no in dict.fromkeys((problem.line, problem.line - 1)):
        if not 1 <= line_no <= len(lines):
            continue
        text = lines[line_no - 1]
        match = _TWO_PAIRS.match(text)
        if match is None:
            continue
        beside = " " * len(match.group(1))
        under = beside + " " * (_indent_step(lines) or 2)
        cut = match.start(6)
        for indent in ([under, beside] if match.group(4) is None else [beside, under]):
            yield Edit(line_no, 1, [text[:match.end(4) if match.group(4) else match.end(3)].rstrip(),
                                    indent + text[cut:]], f"line {line_no}: split before {match.group(6)!r}", 1)


# A key: a line's first text, words (a pattern's ``*`` among their letters: ``tests/*.py``)
# joined by blanks, '-', '.', '/' or '@', up to a ``:`` or ``=`` that is no part of a
# longer operator (``*=``). (a path's key may begin with dots: ".", "./index.js", ".eslintrc")
_KEY = re.compile(r"^(\s*)((?:\.+/?)?[\w$@*]+(?:[ .\-/@]+[\w$@*]+)*|\.)\s*(?<![<>!=+\-/%&|^~?])(?<![^*]\*)[:=](?![:=])")


ORPHAN_CLOSERS = 3  # block-comment closers that close nothing, nearest the first problem first
COMMENT_REACH = 60  # lines a block comment may span
REPORTED = 3  # problems whose lines are looked at


@rule('lost-comment-opener', "a block comment's opener put back where a line begins with what is left of it and "
                             "its closer follows", 'languages with block comments')
def _lost_comment_opener_edits(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """``/ Copyright (C) ...`` fifteen lines above a ``*/``: a block comment's opener
    lost a character (or gained one: ``/\\**``, or was typed backwards: ``*/``), and the
    prose after it reads as code.
    A line that begins with the opener less one character, or with one more inside
    it, where the closer comes before any other opener, gets it whole: a line a
    problem is reported on, or one above a closer that closes nothing (the topmost
    first: a comment begins on its first line)."""
    record = spec(language)
    opener, closer = record.block_comment if record is not None else ("", "")
    if not opener or not problems:
        return
    line_comment = comment_prefix(language)
    candidates = [p.line for p in problems[:REPORTED] if 1 <= p.line <= len(lines)]
    first = problems[0].line
    orphans = sorted(_orphan_closers("\n".join(lines), opener, closer, line_comment), key=lambda o: abs(o[0] - first))
    for line_no, _ in orphans[:ORPHAN_CLOSERS]:
        above = []
        for number in range(line_no - 1, max(0, line_no - COMMENT_REACH), -1):
            if opener in lines[number - 1] or closer in lines[number - 1]:
                break
            above.append(number)
        candidates += [line_no] + above[::-1]
    for number in dict.fromkeys(candidates):
        text = lines[number - 1]
        stripped = text.lstrip()
        at = len(text) - len(stripped)
        backwards = _backwards_opener(stripped, opener, closer) and (number, at) in orphans
        if (stripped.startswith((opener, closer)) and not backwards) \
                or (line_comment and stripped.startswith(line_comment)):
            continue
        remnant = closer if backwards else broken_opener(stripped, opener)
        if remnant is None:
            continue
        rest = "\n".join([text[at + len(remnant):]] + lines[number:number + COMMENT_REACH])
        closes, opens = rest.find(closer), rest.find(opener)
        if closes >= 0 and (opens < 0 or closes < opens):
            # (tree-sitter's recovery may have read the comment's lines as any code: the
            # judge alone decides)
            yield replace(replace_token(text, number, at, remnant, opener), direct=True)


def _backwards_opener(text: str, opener: str, closer: str) -> bool:
    """``text`` begins with the comment's ``opener`` typed backwards, which is its
    ``closer`` (``*/`` for ``/*``)."""
    return closer == opener[::-1] and text.startswith(closer)


def broken_opener(text: str, opener: str) -> str | None:
    """The start of ``text`` that is a block comment's ``opener`` with one character
    typed into it (``/\\**``), or less one (``/``, ``*``), or None."""
    for i in range(1, len(opener)):
        if not text[i:i + 1].isspace() and text[:i] + text[i + 1:len(opener) + 1] == opener:
            return text[:len(opener) + 1]
    return next((r for r in sorted({opener[:i] + opener[i + 1:] for i in range(len(opener))}, key=len, reverse=True)
                 if text.startswith(r)), None)


def mends_comment_opener(before: str, first: int, old: list[str], new: list[str], language: str) -> bool:
    """Line ``first`` of ``before`` (``old``, made ``new``) began with a block comment's
    broken opener (``broken_opener``; or the opener typed backwards, a closer that
    closed nothing), now made whole, and the comment it opens ends at
    a closer that closed nothing: the lines between were that comment's all along."""
    record = spec(language)
    opener, closer = record.block_comment if record is not None else ("", "")
    if not opener or len(old) != 1 or len(new) != 1:
        return False
    stripped = old[0].lstrip()
    at = len(old[0]) - len(stripped)
    lines = source_lines(before)
    orphans = _orphan_closers(before, opener, closer, comment_prefix(language))
    remnant = closer if _backwards_opener(stripped, opener, closer) and (first, at) in orphans \
        else broken_opener(stripped, opener)
    if remnant is None or new[0] != old[0][:at] + opener + stripped[len(remnant):]:
        return False
    rest = "\n".join([old[0][at + len(remnant):]] + lines[first:])
    closes = rest.find(closer)
    if closes < 0 or 0 <= rest.find(opener) < closes:
        return False
    line = first + rest.count("\n", 0, closes)
    column = closes - (rest.rfind("\n", 0, closes) + 1) + (at + len(remnant) if line == first else 0)
    return (line, column) in orphans


COMMENT_NEIGHBOURS = 2  # lines above a broken comment line where the line comment before it is looked for


@rule('lost-comment-marker', "a line among line comments that a problem is reported on made a comment again: "
                             "its marker's characters swapped back, completed, or put back", 'languages with line comments')
def _lost_comment_marker_edits(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """``/< /http://www.gnu.org/licenses/>.`` between ``//`` lines: the comment's marker
    broke (two characters swapped, one lost, or all of it), and its prose reads as code
    where the problem is reported. The line beside comments gets its marker back: the
    swap that makes it, else its missing characters, else the whole marker."""
    marker = comment_prefix(language)
    if not marker:
        return
    for number in dict.fromkeys(p.line for p in problems[:REPORTED]):
        if not 1 <= number <= len(lines) or not _among_line_comments(lines, number, marker):
            continue
        text = lines[number - 1]
        at = len(text) - len(text.lstrip())
        body = text[at:]
        if not body or body.startswith(marker):
            continue
        head = len(marker) + 2  # the characters a swap may reach
        swaps = [body[:i] + body[j] + body[i + 1:j] + body[i] + body[j + 1:]
                 for i in range(min(head, len(body))) for j in range(i + 1, min(head, len(body)))]
        made = [s for s in dict.fromkeys(swaps) if s.startswith(marker)]
        kept = next((k for k in range(len(marker) - 1, 0, -1) if body.startswith(marker[:k])), 0)
        if kept:
            made.append(marker + body[kept:])
        elif prose(body, *vocabulary(language)):  # a sentence, not code that a marker would hide
            made.append(marker + " " + body)
        for new in made:
            yield Edit(number, 1, [text[:at] + new], f"line {number}: make it a comment again ({new[:12]!r})",
                       direct=True)


def _among_line_comments(lines: list[str], number: int, marker: str) -> bool:
    """The nearest line with text above line ``number`` (within ``COMMENT_NEIGHBOURS``)
    is a line comment; at the file's start, with no text above, the nearest below
    (``/ -*- C++ -*-`` over a licence's ``//`` lines)."""
    def nearest(numbers: range) -> str:
        return next((lines[n - 1].strip() for n in numbers if 1 <= n <= len(lines) and lines[n - 1].strip()), "")
    if not any(line.strip() for line in lines[:number - 1]):
        return nearest(range(number + 1, number + 1 + COMMENT_NEIGHBOURS)).startswith(marker)
    above = nearest(range(number - 1, number - 1 - COMMENT_NEIGHBOURS, -1))
    return above.startswith(marker)


BROKEN_CLOSERS = 3  # block-comment closers broken inside a comment, nearest the first problem first


@rule('lost-comment-closer', "a block comment's closer put back on a line of the comment that holds only what is "
                             "left of it, code after it; or made whole at the end of a line of a comment that runs "
                             "on over another comment's opener or to the file's end", 'languages with block comments')
def _lost_comment_closer_edits(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """`` /*`` where `` */`` ended a comment: the comment runs on over the code after it to
    the next closer, and the file breaks where that code's block ends. A line inside a
    comment that holds only the closer less a character, or its two characters swapped,
    and after which the next line does not go on as the comment's lines do (a ``*``),
    gets the closer whole; so does one that ends a line of a comment running on over
    another comment's opener (``/* Values ... *`/`` over ``enum {``), with a character
    typed into it or its two characters swapped, or of a comment that runs on to the
    file's end, with a character or a blank typed into it (``***** /``)."""
    record = spec(language)
    opener, closer = record.block_comment if record is not None else ("", "")
    if not opener or not problems:
        return
    first = problems[0].line
    source = "\n".join(lines)
    line_comment = comment_prefix(language)
    broken = sorted(_broken_closers(source, opener, closer, line_comment), key=lambda line_no: abs(line_no - first))
    for line_no in broken[:BROKEN_CLOSERS]:
        text = lines[line_no - 1]
        at = len(text) - len(text.lstrip())
        remnant = text.strip()
        yield replace(replace_token(text, line_no, at, remnant, closer), direct=True)
    ends = sorted(_broken_closers_at_line_ends(source, opener, closer, line_comment),
                  key=lambda end: abs(end[0] - first))
    for line_no, column, remnant in ends[:BROKEN_CLOSERS] + list(_broken_closers_of_unclosed(
            source, opener, closer, line_comment)[:BROKEN_CLOSERS]):
        yield replace(replace_token(lines[line_no - 1], line_no, column, remnant, closer), direct=True)


def comments_over_openers(source: str, language: str) -> tuple[tuple[int, int], ...]:
    """(start, end) offsets of each block comment of ``source`` that runs on over
    another comment's opener: its own closer broke, and it swallowed the code down to
    the other comment's closer."""
    record = spec(language)
    opener, closer = record.block_comment if record is not None else ("", "")
    if not opener:
        return ()
    spans = _comment_spans(source, opener, closer, comment_prefix(language))
    return tuple((start, end) for start, end in spans if source.find(opener, start + len(opener), end) >= 0)


@lru_cache(maxsize=16)
def _broken_closers_at_line_ends(source: str, opener: str, closer: str,
                                 line_comment: str) -> tuple[tuple[int, int, str], ...]:
    """(line, 0-based column, remnant) of a closer with one character typed into it that
    ends a line of a comment running on over another comment's opener, before that
    opener; or of that opener itself where it ends its line (the closer swapped).
    Remembered, as ``_broken_closers``: a search proposes edits for the same text many times."""
    typed = _typed_closer(closer, r"\s")  # (the character typed not a blank nor one of the closer's)
    found = []
    for start, end in _comment_spans(source, opener, closer, line_comment):
        inner = source.find(opener, start + len(opener), end)
        if inner < 0:
            continue
        line_end = source.find("\n", inner)
        if closer[::-1] == opener and not source[inner + len(opener):line_end if line_end >= 0 else None].strip():
            # (the opener it runs over ends a line: the closer, its two characters swapped)
            line_start = source.rfind("\n", 0, inner) + 1
            found.append((source.count("\n", 0, inner) + 1, inner - line_start, opener))
            continue
        first = source.count("\n", 0, start) + 1
        body = source[start + len(opener):inner]
        offset = start + len(opener)
        for index, line in enumerate(body.split("\n")):
            stripped = line.rstrip()
            remnant = typed.search(stripped)
            if remnant is not None:
                line_start = source.rfind("\n", 0, offset) + 1
                found.append((first + index, offset - line_start + remnant.start(), remnant.group()))
            offset += len(line) + 1
    return tuple(found)


@lru_cache(maxsize=16)
def _broken_closers(source: str, opener: str, closer: str, line_comment: str) -> tuple[int, ...]:
    """The lines inside block comments that hold only a remnant of the closer (one
    character lost, or two swapped) and are followed by a line that does not begin as
    the comment's own lines do."""
    remnants = {closer[:i] + closer[i + 1:] for i in range(len(closer))}
    remnants |= {closer[:i] + closer[i + 1] + closer[i] + closer[i + 2:] for i in range(len(closer) - 1)}
    remnants -= {"", closer}
    lines = source.split("\n")
    found = []
    for start, end in _comment_spans(source, opener, closer, line_comment):
        first, last = source.count("\n", 0, start) + 1, source.count("\n", 0, end) + 1
        for number in range(first + 1, min(last, len(lines))):
            after = next((line.strip() for line in lines[number:last] if line.strip()), "")
            if lines[number - 1].strip() in remnants and after and not after.startswith(closer[0]):
                found.append(number)
    return tuple(found)


def _typed_closer(closer: str, not_typed: str) -> re.Pattern[str]:
    """A line's end with ``closer`` there, one character typed inside it: none of the
    closer's own, nor of ``not_typed`` (a character class's contents)."""
    return re.compile("|".join(re.escape(closer[:i]) + "[^" + not_typed + re.escape(closer) + "]" + re.escape(closer[i:])
                               for i in range(1, len(closer))) + "$")


@lru_cache(maxsize=16)
def _broken_closers_of_unclosed(source: str, opener: str, closer: str,
                                line_comment: str) -> tuple[tuple[int, int, str], ...]:
    """(line, 0-based column, remnant) of a closer with one character or a blank typed
    into it that ends a line of a block comment never closed, in the file's order: the
    comment ran on from there over the code to the file's end."""
    start = _block_comments(source, opener, closer, line_comment)[2]
    if start < 0:
        return ()
    typed = _typed_closer(closer, r"\n")
    lines = source.split("\n")
    first = source.count("\n", 0, start) + 1
    after_opener = start - (source.rfind("\n", 0, start) + 1) + len(opener)  # its column on its line
    found = []
    for number in range(first, len(lines) + 1):
        remnant = typed.search(lines[number - 1].rstrip(), after_opener if number == first else 0)
        if remnant is not None:
            found.append((number, remnant.start(), remnant.group()))
    return tuple(found)


def _comment_spans(source: str, opener: str, closer: str, line_comment: str) -> tuple[tuple[int, int], ...]:
    """(start, end) offsets of each block comment."""
    return _block_comments(source, opener, closer, line_comment)[0]


def _orphan_closers(source: str, opener: str, closer: str, line_comment: str) -> tuple[tuple[int, int], ...]:
    """(line, 0-based column) of each block-comment closer outside any comment or string."""
    return _block_comments(source, opener, closer, line_comment)[1]


@lru_cache(maxsize=16)
def _block_comments(source: str, opener: str, closer: str, line_comment: str
                    ) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...], int]:
    """The block comments of ``source`` as (start, end) offsets, its closers outside
    any comment or string as (line, 0-based column), and the offset of an opener whose
    closer never comes (-1 if none); strings and line comments skipped (a string is
    taken to end with its line). Remembered: a search proposes edits for the same text
    many times."""
    marks = [re.escape(opener), re.escape(closer)] + ([re.escape(line_comment) + r"[^\n]*"] if line_comment else [])
    marks += [rf"{q}(?:[^{q}\\\n]|\\.)*{q}?" for q in "\"'`"]
    pattern = re.compile("|".join(marks))
    spans, orphans = [], []
    at, unclosed = 0, -1
    while (match := pattern.search(source, at)) is not None:
        at = match.end()
        if match.group() == opener:
            end = source.find(closer, at)
            if end < 0:
                unclosed = match.start()
                break
            spans.append((match.start(), end))
            at = end + len(closer)
        elif match.group() == closer:
            line_start = source.rfind("\n", 0, match.start()) + 1
            orphans.append((source.count("\n", 0, match.start()) + 1, match.start() - line_start))
    return tuple(spans), tuple(orphans), unclosed


# Another language's comment: a line of one (``// note``, ``# note``, ``/* x */``), or one
# after a value at a line's end (after the last quote, so no string's ``//`` is taken).
_WHOLE_LINE_COMMENT = re.compile(r"\s*(?://|#|/\*.*\*/\s*$)")
_TRAILING_COMMENT = re.compile(r"^(?P<kept>[^\"]*(?:\"(?:[^\"\\]|\\.)*\"[^\"]*?)*?)\s*(?://|#|/\*.*\*/\s*$)")


@rule('foreign-comment', "a comment where the language has none (JSON), on the problem's line or the one "
      "before it, taken out")
def _foreign_comment_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """``// see below`` in a JSON file (as JSONC, tsconfig and editors' settings allow) is an
    error to a strict reader, reported where the comment stands or on the next value:
    the comment's line deleted, or the comment after a value on it cut off."""
    seen: set[int] = set()
    for p in problems[:3]:
        for n in (p.line, p.line - 1):
            if n in seen or not 1 <= n <= len(lines):
                continue
            seen.add(n)
            text = lines[n - 1]
            if _WHOLE_LINE_COMMENT.match(text):
                yield Edit(n, 1, [], f"line {n}: delete the comment {text.strip()[:30]!r}")
                continue
            trailing = _TRAILING_COMMENT.match(text)
            if trailing is not None and trailing.group("kept").strip():
                yield Edit(n, 1, [trailing.group("kept").rstrip()], f"line {n}: delete the comment at its end")


@rule('bare-key', "a line's key typed without its quotes (a space or '-' in it, a data file's key) quoted")
def _bare_key_edits(text: str, line_no: int, keywords: Sequence[str]) -> Iterator[Edit]:
    """``Issue tracker = "..."``, ``version: "1.0"`` in JSON: a key some languages take
    bare only when it is one word of letters, or never, quoted as a string: with
    double quotes, then single. Not words of code: a key holds none of the grammar's
    keywords (``else if x:`` is no key)."""
    match = _KEY.match(text)
    if match is None or set(re.findall(r"\w+", match.group(2))) & set(keywords):
        return
    start, key = match.end(1), match.group(2)
    for quote in "\"'":
        yield Edit(line_no, 1, [text[:start] + quote + key + quote + text[start + len(key):]],
                   f"line {line_no}: quote {key!r}", 2, start + len(key) + 2, start)


@rule('quote-left-open', 'a closing quote put back on a line above the problem with an odd count of it')
def _unbalanced_quote_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A dropped closing quote is often reported lines later, where the string it
    opened finally ends: on the lines before the problem with an odd number of some
    quote, the quote after each word."""
    last = min(len(lines), max(problem.end_line, problem.line))
    counts = _quote_counts(lines)
    for line_no in range(last, max(0, problem.line - QUOTE_LINES_BEFORE), -1):
        text = lines[line_no - 1]
        yield from _other_quote_edits(text, line_no, counts)
        for triple in ('"""', "'''"):  # an unclosed docstring: close it where its line ends
            if text.count(triple) % 2:
                yield insert(text, line_no, len(text.rstrip()), triple)
        for quote in _odd_quotes(text, "\"'`"):
            for match in _WORD_END.finditer(text):
                yield replace(insert(text, line_no, match.end(), quote),
                              description=f"line {line_no}: insert {quote!r} after {match.group()!r}")


@rule('triple-quote-cut', "a triple quote left open closed where a line holds only its closer's start (\"\")")
def _cut_closer_edits(lines: list[str], problem: Problem) -> Iterator[Edit]:
    """A triple-quoted string whose closer lost a quote (``""`` alone under a docstring)
    runs on to the next triple quote or the file's end: where the file has an odd
    number of a triple quote, a line below the problem's that holds only the start of
    one is made whole, the nearest first."""
    for triple in ('"""', "'''"):
        if sum(line.count(triple) for line in lines) % 2 == 0:
            continue
        for line_no in range(max(problem.line, 1), len(lines) + 1):
            text = lines[line_no - 1]
            if text.strip() and text.strip() != triple and triple.startswith(text.strip()):
                yield Edit(line_no, 1, [indent_of(text) + triple], f"line {line_no}: {text.strip()} made {triple}")


def _quote_counts(lines: Sequence[str]) -> dict[str, int]:
    """How many of each quote the file's ``lines`` have."""
    return {quote: sum(line.count(quote) for line in lines) for quote in "\"'`"}


@rule('quote-of-the-other-kind', 'a string closed with the other quote: on a line above the problem with an odd '
      'count of two kinds of quote, one made the other')
def _other_quote_edits(text: str, line_no: int, counts: Mapping[str, int] | None = None) -> Iterator[Edit]:
    """``'/url")``: the string runs on to the next quote of its kind, lines below, where
    the problem is reported. Where a line leaves both kinds of quote open, each of
    them made the other kind: the one the file has fewer of first (``counts``, by
    ``_quote_counts``)."""
    odd = _odd_quotes(text)
    if len(odd) < 2:
        return
    for quote in sorted(odd, key=lambda q: counts.get(q, 0)) if counts else odd:
        other = next(q for q in odd if q != quote)
        for col, char in enumerate(text):
            if char == quote and not (col and text[col - 1] == "\\"):
                yield replace_token(text, line_no, col, quote, other)


def _judged(problems: tuple[Problem, ...]) -> list[Problem]:
    """The language's own judge's messages among the first problems."""
    return [p for p in problems[:3] if p.kind == "compiler"]


def _string_run_on_edits(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """``'addBcc");`` forty lines above ``'mail', ...`` where the judge reports: tree-sitter
    reads one string from the first line to the second, ending on (or just above) the
    line of the judge's report. On the line the string begins, with two kinds of quote
    left open, one made the other (``quote-of-the-other-kind``)."""
    judged = _judged(problems)
    if not judged:
        return
    marker = comment_prefix(language)
    for first in _strings_run_on_to(lines, judged, language):
        yield from _other_quote_edits(lines[first - 1], first, _quote_counts(lines))
        # A comment's sentence split where its rest holds an apostrophe (``file defines
        # the system's error numbers,`` under ``# This machine-generated``): joined back.
        above = lines[first - 2] if first >= 2 else ""
        if marker and above.lstrip().startswith(marker) \
                and sentence_goes_on(above, lines[first - 1], *vocabulary(language)):
            yield Edit(first - 1, 2, [above.rstrip() + " " + lines[first - 1].lstrip()],
                       f"line {first - 1}: join line {first} to it", 1, rule="line-join")


def _strings_run_on_to(lines: list[str], judged: Sequence[Problem], language: str) -> list[int]:
    """The first lines of the strings tree-sitter reads over several lines that end on (or
    just above) the line of one of the ``judged`` problems. (A judge that names a string
    left unterminated may read it on further than tree-sitter does: Ruby's, to the
    file's end.)"""
    return [first for first, last in strings_over_lines("\n".join(lines), language)
            if first < last and any(last <= p.line <= last + 1 or (last <= p.line and _UNTERMINATED.search(p.message))
                                    for p in judged)]


STRAY_QUOTE_LINES = 3  # lines with a quote left open tried for a stray one, from the top
_WORD_CHAR = re.compile(r"\w")


@rule('stray-quote', "a quote typed alone deleted, on a line where a string begins that runs on to the "
      "judge's report of one never closed")
def _stray_quote_edits(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """``raise` ArgumentError, "..."``: a quote typed by mistake opens a string that runs
    on to the next quote of its kind, far below, or to the file's end, where the judge
    reports it and cannot say where it began. On the line tree-sitter reads such a
    string from, and, where the judge met a string never closed at the file's end, on
    the first lines (``STRAY_QUOTE_LINES``) that leave open a kind of quote the whole
    file has an odd number of: a quote of the one kind the line leaves open that pairs
    with none of the line's others (an even number of them before it) and stands where
    no string opens, glued to the end of a word, is deleted. One that opens a word
    (``"$f ;;``) lost its partner, which other rules put back."""
    judged = _judged(problems)
    if not judged:
        return
    starts = _strings_run_on_to(lines, judged, language)
    if any(_UNTERMINATED.search(p.message) or (UNCLOSED.search(p.message) and AT_THE_END.search(p.message))
           for p in judged):
        marker = comment_prefix(language)
        codes = [text.split(f" {marker}", 1)[0] if marker and not text.lstrip().startswith(marker) else
                 "" if marker else text for text in lines]
        odd = set(_odd_quotes("".join(codes), "\"'`"))
        starts += [n for n, code in enumerate(codes, 1) if odd & set(_odd_quotes(code, "\"'`"))][:STRAY_QUOTE_LINES]
    for line_no in dict.fromkeys(starts):
        text = lines[line_no - 1]
        kinds = _odd_quotes(text, "\"'`")
        if len(kinds) != 1:
            continue
        marks = [col for col, char in enumerate(text) if char == kinds[0] and not (col and text[col - 1] == "\\")]
        for col in marks[::2]:
            if col and _WORD_CHAR.match(text[col - 1]) and not _WORD_CHAR.match(text[col + 1:col + 2]):
                yield replace_token(text, line_no, col, kinds[0], "")


MIN_SIBLINGS = 3  # lines that begin with the same word and end with the same mark, at least
SIBLING_EDITS = 3  # lines unlike their siblings given the mark, the nearest the problem first
_FIRST_WORD = re.compile(r"\s*([A-Za-z_][\w-]*)\b")


@rule('sibling-end', "a line that begins as many others do and lost the quote or bracket they all end with, "
      "where the judge meets a string or block never closed at the file's end")
def _sibling_end_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """``test_expect_success 'name'`` among a script's ``test_expect_success 'name' '``:
    the quote that opens each test's body lost at a line's end, so every quote below
    pairs with the wrong one, and the judge meets a string never closed only at the
    file's end, where it cannot say where it began. A line whose first word begins at
    least MIN_SIBLINGS others, all of which end with the same quote or opener standing
    alone, and that ends otherwise, is given it."""
    judged = [p for p in _judged(problems) if UNCLOSED.search(p.message)
              and AT_THE_END.search(p.message)]
    if not judged:
        return
    ends: dict[str, Counter[str]] = {}
    begins: dict[int, str] = {}
    for n, text in enumerate(lines, 1):
        word = _FIRST_WORD.match(text)
        if word and text.rstrip():
            begins[n] = word.group(1)
            ends.setdefault(word.group(1), Counter())[text.split()[-1]] += 1
    found = []
    for n, word in begins.items():
        text = lines[n - 1].rstrip()
        mark, count = ends[word].most_common(1)[0]
        if mark in ("'", '"', "(", "{", "[") and count >= MIN_SIBLINGS and count == sum(ends[word].values()) - 1 \
                and text.split()[-1] != mark:
            found.append((abs(n - judged[0].line), n, text, mark))
    for _, n, text, mark in sorted(found)[:SIBLING_EDITS]:
        edit = Edit(n, 1, [text + " " + mark], f"line {n}: end it with {mark!r} as the lines like it end", 1)
        if mark in "'\"":  # a string's opening quote: it ends on the next line that leaves one open
            end = next((m for m in range(n + 1, len(lines) + 1) if open_strings(lines[m - 1])), 0)
            if not end:
                continue
            edit = replace(edit, string_ends_at=end)
        yield edit


HEADER_LEVELS = 3  # blocks around the judge's error whose opening line is looked at, the innermost first


@rule('split-header', "the line that opens a block around the judge's error joined to a keyword left alone on "
      "the line above it")
def _split_header_edits(lines: list[str], problems: tuple[Problem, ...], language: str) -> Iterator[Edit]:
    """``interface`` over ``Array<T> {``: where a line's end may end a statement
    (TypeScript, JavaScript), a declaration's keyword left alone on its line is a
    statement of its own, and the block below reads as something else until, far into
    it, the judge meets what that cannot hold. The lines that open the blocks around the
    judge's first error, the innermost first, each joined to a keyword alone above it."""
    judged = _judged(problems)
    if not judged or not lines:
        return
    keywords = vocabulary(language)[0]
    line = min(judged[0].line, len(lines))
    openers = [n for n, _, bracket in unmatched_brackets(lines, max(1, line - HEADER_SCAN), line,
                                                         comment_prefix(language)) if bracket == "{"]
    for n in openers[:HEADER_LEVELS]:
        if n >= 2 and lines[n - 2].strip() in keywords:
            yield Edit(n - 1, 2, [lines[n - 2].rstrip() + " " + lines[n - 1].lstrip()],
                       f"line {n - 1}: join line {n} to it", 1)


_NAMED_QUOTE = re.compile(r"matching ([`'\"])|(backquote)")
_UNTERMINATED = re.compile(r"\bunterminated (?:quoted )?string\b", re.IGNORECASE)


def _bracket_window(lines: list[str], problem: Problem) -> tuple[int, int]:
    """The lines around ``problem`` searched for a bracket without its partner (``BRACKET_SCAN``)."""
    first = max(1, problem.line - BRACKET_SCAN)
    return first, min(len(lines), max(problem.line, problem.end_line, first + BRACKET_SCAN) + BRACKET_SCAN)


@rule('unmatched-bracket', 'a bracket left unmatched near the problem given its partner, or deleted', 'any (not python)')
def _unmatched_bracket_edits(lines: list[str], problem: Problem, comment: str) -> Iterator[Edit]:
    """A bracket left unmatched near the problem: its partner at each token boundary
    after it (an opener) or before it (a closer) on its own line, or the bracket
    deleted (one typed twice). tree-sitter often reports such a mistake far from it,
    or as one ERROR over the whole file."""
    first, last = _bracket_window(lines, problem)
    for line_no, col, bracket in unmatched_brackets(lines, first, last, comment):
        text = lines[line_no - 1]
        code_end = len(text.rstrip())
        bounds = sorted({c for c, _ in tokens(text)} | {code_end})
        if bracket in BRACKETS:
            partner, spots = BRACKETS[bracket], [code_end] + [b for b in bounds if col < b < code_end]
        else:
            partner = OPENER_OF[bracket]
            spots = [b for b in reversed(bounds) if b <= col]
        for spot in spots:
            yield insert(text, line_no, spot, partner)
        yield replace_token(text, line_no, col, bracket, "")
        header = block_header(lines, line_no, col) if bracket not in BRACKETS else None
        if header:  # the line that begins the block this closer ends lost its opener
            yield opener_at_end(lines, header, partner)
    for line_no, col, bracket in misplaced_closers(lines, first, last, comment):
        yield replace_token(lines[line_no - 1], line_no, col, bracket, "")


@rule('bracket-other-kind', 'a bracket of the other kind: where a closer near the problem meets an opener of '
      "another kind, the opener made the closer's partner, or the closer the opener's", 'any (not python)')
def _other_kind_bracket_edits(lines: list[str], problem: Problem, comment: str) -> Iterator[Edit]:
    """``"files": {`` over ``"index.js"`` and ``]``: the parser reports the closer, or the
    text inside that does not belong in the opener's kind of bracket; the mistake may be
    either bracket, lines apart."""
    first, last = _bracket_window(lines, problem)
    for (o_line, o_col, opener), (c_line, c_col, closer) in mismatched_pairs(lines, first, last, comment):
        yield replace_token(lines[o_line - 1], o_line, o_col, opener, OPENER_OF[closer])
        yield replace_token(lines[c_line - 1], c_line, c_col, closer, BRACKETS[opener])


# Where an expression may begin: after one of these a '/' opens a regular expression.
_EXPRESSION_START = re.compile(r"(?:^|[=(\[{,!~&|?:;]|\b(?:if|unless|when|while|until|return|and|or|not|in))\s*$")


@lru_cache(maxsize=None)
def _slash_regexes(language: str) -> bool:
    """The language's grammar reads ``/a/`` where an expression begins as a regular
    expression (Ruby's, JavaScript's)."""
    try:
        root = tree_of(b"x = /a/\n", language).root_node
    except (LookupError, ValueError):
        return False
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "regex":
            return True
        stack.extend(node.children)
    return False


@rule('regex-opener', "a regular expression's opening '/' put back where an expression begins before a line's "
      "lone '/'", 'any (not python)')
def _regex_opener_edits(lines: list[str], problem: Problem, language: str) -> Iterator[Edit]:
    """``if ^(\\d+)/ =~ status``: a line whose code holds one ``/`` more than pairs (outside
    strings and comments), in a language of ``/``-delimited regular expressions, gets the
    expression's opening ``/`` at each token before it that an expression may begin with."""
    if not 1 <= problem.line <= len(lines) or lines[problem.line - 1].count("/") % 2 == 0 \
            or not _slash_regexes(language):
        return
    text = lines[problem.line - 1]
    quiet = text_spans(text, language, strings="all")
    slashes = [col for col, ch in enumerate(text) if ch == "/" and not in_spans(quiet, 1, col)]
    if len(slashes) % 2 == 0:
        return
    lone = slashes[-1]
    keywords = vocabulary(language)[0]
    for match in re.finditer(r"\S+", text[:lone]):
        word = re.match(r"\w+", match.group())
        if _EXPRESSION_START.search(text[:match.start()]) and not match.group().startswith("/") \
                and not (word and word.group() in keywords):  # (a keyword read as the expression's text)
            yield insert(text, problem.line, match.start(), "/")


@rule('lost-opener', 'the opener of an indented block whose closer closes nothing put back', 'any (not python)')
def _lost_opener_edits(lines: list[str], problem: Problem, comment: str) -> Iterator[Edit]:
    """The problem lies inside a block laid out by indentation whose closer closes
    nothing: the block's first line lost its opener (a function's ``{``), and the
    parser only objects a few statements in; or a block above it was closed twice.
    Tried before the token edits, which would otherwise spend the judge's runs on the
    lines around the report."""
    first = max(1, problem.line - BRACKET_SCAN)
    last = min(len(lines), problem.line + HEADER_SCAN)  # a function's body may be long
    for line_no, col, bracket in unmatched_brackets(lines, first, last, comment):
        if bracket in BRACKETS or line_no < problem.line:
            continue
        header = block_header(lines, line_no, col)
        if header and header <= problem.line:
            yield opener_at_end(lines, header, OPENER_OF[bracket])
    # Or a closer that begins its line is indented deeper than the opener it closes:
    # the block it was meant for, between the two, lost its opener.
    for line_no, col, bracket in deeper_closers(lines, first, min(last, problem.line + BRACKET_SCAN), comment):
        header = block_header(lines, line_no, col)
        if header and header <= problem.line <= line_no:
            yield opener_at_end(lines, header, OPENER_OF[bracket])
    # Or the block ended too early: a closer typed twice above the problem (``}}``
    # ending a class after its first method), the nearest first. Its deletion makes
    # tree-sitter see the block's contents anew, so the judge alone decides.
    for line_no, col, bracket in sorted(misplaced_closers(lines, first, min(problem.line, len(lines)), comment),
                                        reverse=True):
        yield replace(replace_token(lines[line_no - 1], line_no, col, bracket, ""), direct=True)


# A sentence's end inside a comment: a mark, then a blank, before a word.
_SENTENCE_END = re.compile(r"[.!?:;\"'][ \t]+(?=[\w$@])")
OPENER_SPLITS = 3  # places after a comment's sentences, and its last words, where a block's first line typed onto it is split off
_WORD_START = re.compile(r"(?<=[ \t])[\w$@]")


@rule('opener-in-comment', "a block's first line typed onto a line comment made code again, where a closer "
                           "closes nothing", 'languages with line comments and braces')
def _opener_in_comment_edits(lines: list[str], problem: Problem, language: str) -> Iterator[Edit]:
    """A file with a closer that closes nothing, and a block (lines indented deeper,
    then a closer that begins its line) that begins under a line comment as shallow as
    its closer whose text ends with the closer's opener (``# dh_setup () {`` over a
    function's body; ``// spec: "..." for _, l := range ls {``): the block's first line
    was typed onto the comment, or commented out alone. It is split off after the
    comment's marker, or the marker is taken away. (The closer that closes nothing may
    be an outer block's, which the block's own closer took.)"""
    comment = comment_prefix(language)
    if not comment:
        return
    keywords, symbols = vocabulary(language)
    first, last = max(1, problem.line - BRACKET_SCAN), min(len(lines), problem.line + BRACKET_SCAN)
    stray = {bracket for _, _, bracket in unmatched_brackets(lines, 1, last, comment) if bracket not in BRACKETS}
    for line_no in range(first, last + 1):
        closer = lines[line_no - 1].lstrip()[:1]
        if closer not in stray:
            continue
        opener = OPENER_OF[closer]
        depth = len(indent_of(lines[line_no - 1]).expandtabs(8))
        header = next((n for n in range(line_no - 1, 0, -1) if lines[n - 1].strip()
                       and len(indent_of(lines[n - 1]).expandtabs(8)) <= depth), None)
        if header is None or header + 1 >= line_no:
            continue
        text = lines[header - 1]
        indent = indent_of(text)
        body = text.strip()
        if len(indent.expandtabs(8)) != depth or not body.startswith(comment) or not body.endswith(opener):
            continue
        words = body[len(comment):].strip()
        if not words or words.startswith(comment) or len(indent_of(lines[header]).expandtabs(8)) <= depth:
            continue
        # Where the code begins: after the comment's last sentences (a mark, then a blank),
        # the latest first; at its last words, where no sentence ends before them
        # (``our custom timeout options timeouts: {``); or right after the marker.
        sentences = [m.end() for m in _SENTENCE_END.finditer(words)][::-1][:OPENER_SPLITS]
        last_words = [m.start() for m in _WORD_START.finditer(words)][::-1][:OPENER_SPLITS]
        for start in dict.fromkeys(sentences + last_words + [0]):
            code = words[start:]
            if start and prose(code, keywords, symbols):
                continue
            kept = words[:start].rstrip()
            yield Edit(header, 1, [indent + comment + (" " + kept if kept else ""), indent + code],
                       f"line {header}: split {code!r} off the comment", 1)
        yield Edit(header, 1, [indent + words], f"line {header}: take the comment marker away from {words!r}", 1)


LOST_CLOSERS = 2  # blocks that lost their closer above a problem, the nearest first, given one back


@rule('lost-closer', 'the closer of an indented block that ends while still open put back', 'any (not python)')
def _lost_closer_edits(lines: list[str], problem: Problem, comment: str) -> Iterator[Edit]:
    """A block laid out by indentation that ends (a line as shallow as the block's
    first line follows its body) while its opener is still open: its closer was lost
    there. The parser only objects where the enclosing block should end, often far
    below. The closer goes on a line of its own, at the first line's indentation.
    tree-sitter's recovery may count more problems after it (an opener typed twice
    further on now shows), so the judge alone decides."""
    first = max(1, problem.line - BRACKET_SCAN)
    last = min(len(lines), max(problem.line, problem.end_line))
    for before, closer, header in lost_closers(lines, first, last, comment)[:LOST_CLOSERS]:
        line = indent_of(lines[header - 1]) + closer
        if lines[before - 1].strip()[:1] in (",", ";", "."):  # what followed the closer is still there
            text = lines[before - 1]
            yield replace(insert(text, before, len(indent_of(text)), closer), direct=True)
        elif before > 1 and not lines[before - 2].strip():  # the blank line the closer left
            yield Edit(before - 1, 1, [line], f"line {before - 1}: put back the {closer!r} of line {header}",
                       direct=True)
        else:
            yield Edit(before, 1, [line, lines[before - 1]], f"line {before}: insert {closer!r} for line {header}",
                       direct=True)
    # Or the other way round: an opener typed twice where a line ends (``{{``) leaves
    # one open to the end of the file.
    if any(bracket in BRACKETS for _, _, bracket in unmatched_brackets(lines, 1, len(lines), comment)):
        for line_no in range(last, first - 1, -1):
            code = lines[line_no - 1].rstrip()
            if len(code) >= 2 and code[-1] in BRACKETS and code[-2] == code[-1]:
                yield replace(replace_token(lines[line_no - 1], line_no, len(code) - 1, code[-1], ""), direct=True)


def _yaml_unexpected_indents(lines: list[str], problem: Problem) -> list[int]:
    """Lines near the problem indented deeper than the line before them although that
    line opens no block (it does not end with ':', '|' or '>', nor start a '- ' item
    whose content they continue), each with the line before it."""
    out: list[int] = []
    previous = 0
    first = max(1, problem.line - BRACKET_SCAN)
    for n in range(first, min(len(lines), problem.end_line + 2 * BRACKET_SCAN) + 1):
        code = lines[n - 1].split(" #")[0].rstrip()
        if not code.strip() or code.lstrip().startswith("#"):
            continue
        if previous:
            before = lines[previous - 1].split(" #")[0].rstrip()
            indent = len(code) - len(code.lstrip())
            opens = re.search(r"(:|[|>][-+0-9]*)$", before) is not None
            deeper = indent > len(before) - len(before.lstrip())
            # Where the content of each "- " on the line before begins; a new "- " item
            # lined up with the innermost content would be a second value.
            items = [m.end() for m in re.finditer(r"- +", re.match(r"\s*(?:- +)*", before).group())]
            lined_up = indent in items and not (indent == items[-1] and code.lstrip().startswith("- "))
            if deeper and not opens and not lined_up:
                out += [m for m in (n, previous) if m not in out]
        previous = n
    return out


def _inner_lines(problems: tuple[Problem, ...], total: int, anchors: list[int]) -> list[int]:
    """Lines inside a problem that spans several (tree-sitter's ERROR nodes often
    cover a whole block around the real mistake)."""
    out: list[int] = []
    for p in problems:
        if p.end_line - p.line <= INNER_LINES:
            out += [n for n in range(p.line + 1, min(p.end_line, total + 1)) if n not in anchors and n not in out]
    return out


def _odd_indent_lines(lines: list[str], problem: Problem, anchors: list[int]) -> list[int]:
    """Lines a little above the problem whose indentation the rest of the file does not
    use: a tab among spaces (or spaces among tabs), or a width off the file's grid (3
    spaces where every other line steps by 4). The error such a line makes may be
    reported lines after it (Python's, once the block it began ends)."""
    tabs = sum(1 for line in lines if line.startswith("\t"))
    spaces = sum(1 for line in lines if line.startswith(" "))
    odd = "\t" if spaces > 2 * tabs else " " if tabs > 2 * spaces else ""
    step = _indent_step(lines)

    def off(text: str) -> bool:
        indent = indent_of(text)
        return bool(odd) and odd in indent or bool(step) and "\t" not in indent and len(indent) % step != 0

    last = min(len(lines), max(problem.line, problem.end_line))
    return [n for n in range(last, max(0, problem.line - QUOTE_LINES_BEFORE), -1)
            if n not in anchors and lines[n - 1].strip() and off(lines[n - 1])]


def _indent_step(lines: list[str]) -> int:
    """The step of the file's indentation by spaces: the widest (4 or 2) that all lines
    indented by spaces but one in ten (or one) keep to; 0 for none."""
    widths = [len(indent_of(line)) for line in lines if line.startswith(" ") and line.strip()]
    return next((unit for unit in (4, 2)
                 if len(widths) > 2 and sum(w % unit != 0 for w in widths) <= max(1, len(widths) // 10)), 0)


@rule('reindent-line', 'one line re-indented to a neighbouring level')
def _indent_edits(lines: list[str], line_no: int) -> Iterator[Edit]:
    """Re-indent one line to a neighbouring level, one level in or out, or to none."""
    text = lines[line_no - 1]
    if not text.strip():
        return
    body, current = text.lstrip(), indent_of(text)
    levels: list[str] = []
    step = _indent_step(lines) if current.startswith(" ") and "\t" not in current else 0
    if step and len(current) % step:  # off the file's grid: onto it first
        levels += [" " * (len(current) // step * step), " " * (len(current) // step * step + step)]
    for neighbour in (line_no - 1, line_no + 1, line_no - 2):
        if 1 <= neighbour <= len(lines) and lines[neighbour - 1].strip():
            levels.append(indent_of(lines[neighbour - 1]))
    unit = "\t" if current.startswith("\t") else "    "
    levels += ["", current + unit, current[: -len(unit)] if current.endswith(unit) else current[:-1]]
    levels += _enclosing_levels(lines, line_no)
    done = {current}
    for level in levels:
        if level not in done:
            done.add(level)
            yield Edit(line_no, 1, [level + body], f"line {line_no}: indent to {len(level)} columns")


ENCLOSING_LEVELS = 6  # indentation levels of the blocks around a line offered to it


def _enclosing_levels(lines: list[str], line_no: int) -> list[str]:
    """The indentation of each block the lines above are nested in, innermost first: a
    line knocked out of its block (an ``elif`` at column 0) belongs at one of them."""
    levels: list[str] = []
    for text in reversed(lines[:line_no - 1]):
        if text.strip() and (not levels or len(indent_of(text)) < len(levels[-1])):
            levels.append(indent_of(text))
            if len(levels) == ENCLOSING_LEVELS or not levels[-1]:
                break
    return levels


@rule('line-token-edits', "on the problem's lines: a symbol deleted or replaced, a token inserted at a boundary")
def _token_edits(text: str, line_no: int, alternatives: Mapping[str, tuple[str, ...]],
                 spacing: Spacing) -> Iterator[Edit]:
    """Delete a symbol, insert a token at each token boundary (end of line first),
    replace a symbol, close an unterminated string. The few deletions first: where
    only a compiler can tell (tree-sitter sees nothing there) its runs go in this order.
    A mark the file always puts blanks around (``a = b``) is inserted with them."""
    parts = tokens(text)
    marks = [(col, tok) for col, tok in parts
             if not (tok.isspace() or tok.isidentifier() or tok[0].isdigit() or (tok[0] in "\"'" and len(tok) > 1))]
    for col, tok in marks:
        yield replace_token(text, line_no, col, tok, "")
    code_end = len(text.rstrip())
    boundaries = sorted({code_end} | {c for c, t in parts if not t.isspace()} | {c + len(t) for c, t in parts})
    for col in [code_end] + [b for b in boundaries if b != code_end]:
        for token in INSERTABLE:
            if spacing.spaced(token) == (True, True):
                left = " " if 0 < col and not text[col - 1].isspace() else ""
                right = " " if col < len(text) and not text[col].isspace() else ""
                yield replace(insert(text, line_no, col, left + token + right),
                              description=f"line {line_no}: insert {token!r}")
            else:
                yield insert(text, line_no, col, token)
    for col, tok in marks:
        for other in REPLACEABLE:
            if other != tok:
                yield replace_token(text, line_no, col, tok, other)
        for other in alternatives.get(tok, ()):
            yield replace_token(text, line_no, col, tok, other)
    for col, tok in parts:
        if tok[:1] in "\"'" and (len(tok) == 1 or tok[-1] != tok[0]):
            yield Edit(line_no, 1, [text.rstrip() + tok[0]], f"line {line_no}: close the string")
            # Or where a word inside it ends: the string ran on past its closing quote.
            for match in _WORD_END.finditer(tok, 1):
                yield replace(insert(text, line_no, col + match.end(), tok[0]),
                              description=f"line {line_no}: close the string after {match.group()!r}")
