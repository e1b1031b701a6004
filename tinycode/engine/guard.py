"""The minimal-edit guard: a repair may only be small, and only near a problem.

A repair that changes many lines or many tokens has stopped being a repair (the model
rewrote code to make the parser happy), and one that removes more than a few tokens
deleted code the parser choked on, so both are refused and the input is left as it
was. A change far from every problem the checker reported is not a repair at all: code
comments are model input, and an instruction planted in one must not reach a line the
error does not touch. Each agent edit must also repair rather than rewrite the lines it touches
(``rewrites_instead_of_repairing``). The limits come from the settings (`max-changed-lines`,
`max-changed-tokens`, `max-deleted-tokens`, `max-problem-distance`).
"""

from __future__ import annotations

import bisect
from collections import Counter
import re
from typing import Iterable, Sequence

from ..check import Problem, source_lines
from ..judges.grammar_gaps import CONDITIONAL
from ..problems import leaves_within
from ..languages import comment_prefix, spec
from ..config import setting
from .edits import BRACKETS, apply_hunks, changed_hunks, kept_ends, changed_lines, code_tokens, original_line, token_distance
from .layout import HEADER_SCAN, misplaced_closers, open_strings, unmatched_brackets
from .messages import UNCLOSED, UNOPENED_DIRECTIVE
from ..spelling import distance
from .grammar_space import MARKUP_MARKS, address_rest, comment_split, marks_only, sentence_goes_on, tree_of, vocabulary
from .proposals import comments_over_openers, edit_family, mends_comment_opener

QUOTES = "\"'`"
_COMMENT_GAP = 3  # lines from a file's first line to the comment below it (``_in_comment_block``)
_WORD = re.compile(r"\w+|\S")

# The limits' defaults are the settings' (tinycode.config), defined there once.
MAX_CHANGED_LINES: int = setting("max_changed_lines").default
MAX_CHANGED_TOKENS: int = setting("max_changed_tokens").default
MAX_DELETED_TOKENS: int = setting("max_deleted_tokens").default
MAX_PROBLEM_DISTANCE: int = setting("max_problem_distance").default


def edit_too_large(before: str, after: str, language: str, *,
                   max_lines: int = MAX_CHANGED_LINES,
                   max_tokens: int = MAX_CHANGED_TOKENS,
                   max_deleted: int = MAX_DELETED_TOKENS,
                   problems: Sequence[Problem] | None = None,
                   max_distance: int = MAX_PROBLEM_DISTANCE) -> str:
    """Why the edit from ``before`` to ``after`` breaks the guard, or "" when it is small
    enough (and, given the ``problems`` of ``before``, near enough to one of them).

    The size limits hold per repaired region (changes at most ``max_distance`` lines
    apart): three small repairs in three places are fine, one large rewrite is not."""
    if problems is not None:
        far = far_from_problems(before, after, language, problems, max_distance)
        if far:
            return far
    for first, lines, old, new in _regions(before, after, max_distance):
        where = f" near line {first}"
        if lines > max_lines:
            return f"{lines} lines changed{where}, limit {max_lines}"
        distance = token_distance(old, new, language, cap=max_tokens + 1)
        if distance > max_tokens:
            return f"more than {max_tokens} tokens changed{where}, limit {max_tokens}"
        deleted = len(code_tokens(old, "other", strings=False)) - len(code_tokens(new, "other", strings=False))
        if deleted > max_deleted:
            return f"{deleted} tokens of code deleted{where}, limit {max_deleted}"
    return ""


# --- a repair never hides code ---------------------------------------------------------

# Nodes whose text is not code: comments, and strings outside their interpolations.
_INSIDE_STRING_CODE = ("interpolation", "substitution", "expansion", "embedded")
_WORDS_ONLY = re.compile(r"\w+")
_PROSE_WORD = re.compile(r"[^\W\d_]+|\d+")
_CODE_ENDS = frozenset({";", "{", "}"})
_SPLIT_TEXT = re.compile(r"[^\W\d_]+|\d+|[^\s\w]+")
_RULE = re.compile(r"\*+!?|!|([=#~-])\1{2,}")
_BLOCK_MARKS = ("/*", "*/", "<!--", "-->")
_CLOSERS = ("*/", "-->")
_CLOSER_REACH = 3  # lines a comment put back before a stray closer may span


def hides_code(before: str, after: str, language: str) -> str:
    """What code of ``before`` the edit to ``after`` turns into a comment or a string
    (a string closed early, a comment opened, a ``*/`` taken away), or "".

    tree-sitter reads both texts; a token of ``before`` that was code (not inside a
    comment or a string) and lies, in ``after``, inside a comment or string that the
    edit opened (the edit sits between that span's line start and the token) is
    hidden. Closing an open string or comment after its text hides nothing (the edit
    comes after it), and neither does putting a comment marker back before prose: words
    alone, or mostly words where the parser could not read a line of them (a token in
    an ERROR)."""
    flipped = _flips_a_conditional(before, after, language)
    if flipped:
        return flipped
    delimiter = _heredoc_at_line_end(before, after, language)
    if delimiter:
        return delimiter
    record = spec(language)
    marks = tuple(QUOTES) + _BLOCK_MARKS + _CODE_TAGS + ("#",) \
        + ((comment_prefix(language),) if comment_prefix(language) else ()) \
        + (record.heredoc_marks if record is not None else ())
    original = source_lines(before)
    every = changed_hunks(before, after)
    hunks = [hunk for hunk in every if any(mark in line for line in hunk[1] + hunk[2] for mark in marks)]
    # A comment's broken opener made whole again hides only that comment's own lines.
    every = [hunk for hunk in every if not mends_comment_opener(before, *hunk, language)]
    hunks = [hunk for hunk in hunks if hunk in every]
    if not hunks:
        return ""
    for hunk in hunks:
        if _rejoins_a_comment(hunk, language):
            continue
        one = apply_hunks(original, [hunk], before.endswith("\n"))
        stray = _takes_stray_quote(hunk)
        hidden = _hidden_tokens(before.encode("utf-8", "surrogatepass"), one.encode("utf-8", "surrogatepass"),
                                language, quote_typed=bool(_quote_typed_lines([hunk])), pairs_quotes=_pairs_quotes(hunk),
                                pairs_slash=_pairs_lone_slash(hunk), stray_quote=stray,
                                odd_in_file=_odd_in_file(before, stray))
        if hidden and not all(map(_is_word, hidden)):
            return f"it turns code into a comment or string near line {hunk[0]}: {' '.join(hidden)[:60]}"
    # Only an edit that places or takes away a delimiter can make a new string or comment.
    if all("".join(old).count(mark) == "".join(new).count(mark) for _, old, new in hunks for mark in marks):
        return ""
    return _encloses_code(before, after, language, every)


def _rejoins_a_comment(hunk: tuple[int, list[str], list[str]], language: str) -> bool:
    """The hunk joins a line to the comment above it, inside a quoted or bracketed span
    the comment left open and the line closes (``comment_split``), or to a line that is
    all comment and stops mid-sentence, where the line is the sentence's rest
    (``sentence_goes_on``: ``// ... found in the LICENSE`` over ``file.``), or of marks
    alone (``marks_only``: ``// -*- C`` over ``++ -*-``): the comment's line was split
    there, and what the join hides was the comment's own text."""
    _, old, new = hunk
    marker = comment_prefix(language)
    if not marker or len(old) != 2 or len(new) != 1:
        return False
    whole_line = old[0].lstrip().startswith(marker)
    if not (comment_split(old[0], old[1], marker)
            or whole_line and (sentence_goes_on(old[0], old[1], *vocabulary(language)) or marks_only(old[1]))):
        return False
    return _joined(old, new)


def _joined(old: list[str], new: list[str]) -> bool:
    """The one new line is the two old ones joined, with a blank between or none."""
    if len(old) != 2 or len(new) != 1:
        return False
    left, right = old[0].rstrip(), old[1].lstrip()
    return new[0] in (left + right, left + " " + right)


def _flips_a_conditional(before: str, after: str, language: str) -> str:
    """Where the grammar has a preprocessor: a conditional directive of ``before``
    (``#ifndef X``, ``#else``, ``#endif``) that the edit made another one, or no
    directive (``#`` alone is one, the null directive); one that opens or turns a
    conditional (``#ifdef X``) made of a line that was none, nor a directive mistyped
    (``ifdef X``, ``#ifdf X``); or code put where the compiler reads none of it, after
    an ``#else``, an ``#endif`` or an ``#ifdef X``'s name. Each changes which lines the compiler reads: those
    it leaves out are hidden as a comment's are. (An ``#endif`` put back closes what
    the input left open; a line split before a directive typed onto it, ``#else #
    ifdef X``, makes it the line it was.)"""
    if "#if" not in vocabulary(language)[1]:
        return ""
    keywords = vocabulary(language)[0]
    for first, old, new in changed_hunks(before, after):
        was = [m.group(1) for m in map(CONDITIONAL.match, old) if m]
        now = [m.group(1) for m in map(CONDITIONAL.match, new) if m]
        if len(old) == len(new):
            for n, (line, edited) in enumerate(zip(old, new)):
                directive, kept = CONDITIONAL.match(line), CONDITIONAL.match(edited)
                if directive is not None and (kept is None or kept.group(1) != directive.group(1)):
                    return f"it changes which lines are compiled at line {first + n}: {line.strip()[:40]!r}"
                if directive is None and kept is not None and kept.group(1) != "endif" \
                        and not _mistyped_directive(line, kept.group(1), keywords):
                    return f"it makes line {first + n} a conditional directive: {edited.strip()[:40]!r}"
        elif len(new) > len(old) and " ".join(old).split() == " ".join(new).split() \
                and not Counter(was) - Counter(now):
            continue  # a line split, not a character changed: the directive typed onto it is one again
        else:
            lost = Counter(was) - Counter(now)
            gained = Counter(now) - Counter(was)
            plain = [line for line in old if not CONDITIONAL.match(line)]
            if lost or any(name != "endif" and not any(_mistyped_directive(line, name, keywords) for line in plain)
                           for name in gained):
                return f"it changes which lines are compiled near line {first}"
        if sum(map(_code_after_directive, new)) > sum(map(_code_after_directive, old)):
            return f"it puts code where the compiler reads none, on a directive's line near line {first}"
        macro = _joined_to_a_macro(old, new)
        if macro:
            return f"it makes line {first + 1} part of the macro {macro!r}"
    return ""


# A macro defined with a body, on one line: ``#define MM_NRECOV MM_NRECOV``.
_DEFINED = re.compile(r"\s*#\s*define\s+(\w+)(?:\([^)]*\))?\s+\S")


def _heredoc_at_line_end(before: str, after: str, language: str) -> str:
    """A here-document the edit opens (``LanguageSpec.heredoc_operator``: the shell's
    ``<<``) that hides code: a line left ending on the operator, which it did not end on
    before (the next line's first word becomes the delimiter); or a delimiter that is a
    keyword of the language (``<<-fi``) or that no line below ends the document with.
    Every line down to the delimiter, or to the file's end, becomes the document's text
    (the shell only warns of a document the file's end closes; tree-sitter reads on)."""
    record = spec(language)
    if record is None or not record.heredoc_operator:
        return ""
    operator = re.escape(record.heredoc_operator)
    at_end = re.compile(operator + r"-?\s*$")
    opened = re.compile(rf"(?<!<){operator}(?!<)-?[ \t]*(['\"]?)(\w+)\1")
    keywords = vocabulary(language)[0]
    rows = after.split("\n")
    for first, old, new in changed_hunks(before, after):
        ended = sum(bool(at_end.search(line)) for line in old)
        if sum(bool(at_end.search(line)) for line in new) > ended:
            return f"it makes the line after line {first} a here-document's delimiter"
        gained = Counter(m.group(2) for line in new for m in opened.finditer(line)) \
            - Counter(m.group(2) for line in old for m in opened.finditer(line))
        for word in gained:
            start = next((n for n, line in enumerate(rows) if any(m.group(2) == word for m in opened.finditer(line))), 0)
            if word in keywords or not any(line.strip() == word for line in rows[start + 1:]):
                return f"it opens a here-document near line {first} that hides the lines below: {word!r}"
    return ""


def _joined_to_a_macro(old: list[str], new: list[str]) -> str:
    """The name of the macro whose complete one-line definition (a name and a body, no
    ``\\`` at its end) the lines below it were joined onto, or "": its body grows by
    them, and what they held is no longer read where it stood. (A ``#define`` that
    lost its body to a line break has none to join to; nor one whose body leaves a
    bracket open, ``#define TOTAL (``: the break cut it.)"""
    if len(new) != 1 or len(old) < 2:
        return ""
    defined = _DEFINED.match(old[0])
    if defined is None or old[0].rstrip().endswith("\\") or _leaves_open(old[0][defined.end() - 1:]) \
            or not any(line.strip() and not line.lstrip().startswith(("//", "/*", "*")) for line in old[1:]):
        return ""
    if " ".join(old).split() != new[0].split() and "".join("".join(old).split()) != "".join(new[0].split()):
        return ""  # not a join: the line was rewritten
    return defined.group(1)


def _leaves_open(body: str) -> bool:
    """``body`` leaves a bracket open (outside its strings)."""
    return any(bracket in BRACKETS for _, _, bracket in unmatched_brackets([body], 1, 1, ""))


_DIRECTIVE_WORD = re.compile(r"\s*(#?)\s*(\w+)")
_COMMENT_START = re.compile(r"\s*(?:/[/*]|$)")
_NAME = re.compile(r"[ \t]*\w+")


def _mistyped_directive(text: str, name: str, keywords: Sequence[str]) -> bool:
    """``text`` begins with the directive ``name`` typed with a slip: its ``#`` left out
    (not where the word is the language's own, as ``if`` and ``else`` are C's), or a
    letter wrong (one in a short name), or after its ``#`` and the word that follows it
    (``#__USE_GNU ifdef``: the two swapped)."""
    word = _DIRECTIVE_WORD.match(text)
    if word is None:
        return False
    hash_mark, typed = word.group(1), word.group(2)
    if not hash_mark:
        return typed == name and name not in keywords
    if text[word.end():].split()[:1] == [name]:
        return True
    return distance(typed.lower(), name) <= (1 if len(name) <= 4 else 2)


def _code_after_directive(text: str) -> bool:
    """An ``#else`` or ``#endif`` line with code after its word, an ``#ifdef X`` or
    ``#ifndef X`` line with code after its name (a line joined to it, a stray ``,``):
    the compiler only warns of it, and reads none of it."""
    directive = CONDITIONAL.match(text)
    if directive is None or directive.group(1) not in ("else", "endif", "ifdef", "ifndef"):
        return False
    end = directive.end(1)
    if directive.group(1) in ("ifdef", "ifndef"):
        name = _NAME.match(text, end)
        end = name.end() if name is not None else end
    return _COMMENT_START.match(text, end) is None


def _encloses_code(before: str, after: str, language: str, hunks: list) -> str:
    """What code the edit as a whole encloses in a string or comment whose delimiter it
    placed, spanning lines it did not change, or "".

    Each hunk alone may enclose nothing: a quote put in one place and its partner ten
    lines below make a string only together. And where ``before`` had a quote never
    closed, its parser read the rest of the file as that string (or not at all), so
    ``before`` is read as the code it is without that quote. ``hunks``: the edit's."""
    encoded = before.encode("utf-8", "surrogatepass")
    reading = _as_code(encoded, language)
    edited = after.encode("utf-8", "surrogatepass")
    new_tree = tree_of(edited, language)
    starts = [0] + [at + 1 for at, byte in enumerate(edited) if byte == 10]
    changed_after, to_before = _line_maps(before, hunks)
    original = before.split("\n")
    typed_quote = _quote_typed_lines(hunks)
    code_by_line: dict[int, list] | None = None
    seen: set[tuple[int, int]] = set()
    lines = sorted(changed_after)
    at_edits = (leaf for line in lines if line <= len(starts)
                for leaf in leaves_within(new_tree.root_node, starts[line - 1],
                                           starts[line] if line < len(starts) else len(edited)))
    for leaf in at_edits:
        span = _quiet(leaf)
        if span is None or span in seen:
            continue
        seen.add(span)
        first, last = bisect.bisect_right(starts, span[0]), bisect.bisect_right(starts, span[1] - 1)
        if last - first < 2 or not ({first, last} & changed_after):
            continue
        inside = [to_before[line] for line in range(first + 1, last) if line in to_before]
        if not inside or (first in typed_quote and last in to_before
                          and _ends_at_lone_quote(edited, span, original[to_before[last] - 1])):
            continue  # (or the string's opening quote put back: see ``_hidden_tokens``)
        if code_by_line is None:
            code_by_line = {}
            for old in _leaves(reading.root_node):
                if old.text.strip(QUOTES.encode() + b" \t\n") and _quiet(old) is None:
                    code_by_line.setdefault(old.start_point[0] + 1, []).append(old)
        found = [leaf for line in inside for leaf in code_by_line.get(line, [])]
        hidden = [leaf.text.decode("utf-8", "replace") for leaf in found]
        if not hidden or all(map(_is_word, hidden)):
            continue
        rows = [_prose_tokens(code_by_line.get(line, []), encoded) for line in inside]
        if any(map(_in_error, found)) and _mostly_prose(rows, language):
            continue  # prose, as in ``_hidden_tokens``
        return f"it turns code into a string or comment from line {inside[0]}: {' '.join(hidden)[:60]}"
    return ""


def _as_code(text: bytes, language: str):
    """tree-sitter's reading of ``text`` with a quote it never saw closed made a space
    (the parser read all that follows as that string, or gave up on it); its reading
    of ``text`` itself where no quote ran to the end."""
    tree = tree_of(text, language)
    leaves = list(_leaves(tree.root_node))
    end = len(text.rstrip())
    if not leaves:
        return tree
    last = leaves[-1]
    quote = None
    if last.end_byte < end and last.text and last.text.strip(QUOTES.encode()) == b"":
        quote = (last.start_byte, last.end_byte)  # a lone quote, the rest unread
    else:
        span = _quiet(last)
        if span is not None and span[1] >= end and text[span[0]:span[0] + 1] in (b'"', b"'", b"`") \
                and b"\n" in text[span[0]:span[1]].rstrip():
            opener = tree.root_node.descendant_for_byte_range(span[0], span[0] + 1)
            quote = (opener.start_byte, opener.end_byte if opener.child_count == 0 else span[0] + 1)
    if quote is None:
        return tree
    return tree_of(text[:quote[0]] + b" " * (quote[1] - quote[0]) + text[quote[1]:], language)


def _pairs_quotes(hunk: tuple[int, list[str], list[str]]) -> bool:
    """The hunk edits one line into one whose quotes all pair up, no string left open
    (``vlink="#840084' alink="#0000FF">`` made ``vlink="#840084" ...``; ``<th width
    "100%">`` given its ``=``)."""
    _, old, new = hunk
    return len(old) == len(new) == 1 and open_strings(new[0]) == 0


def _takes_stray_quote(hunk: tuple[int, list[str], list[str]]) -> str:
    """The quote the hunk takes out of one line that had an odd count of its kind,
    leaving the line's quotes all paired, or ""."""
    _, old, new = hunk
    if not (len(old) == len(new) == 1 and len(old[0]) == len(new[0]) + 1):
        return ""
    start = next((i for i, (a, b) in enumerate(zip(old[0], new[0])) if a != b), len(new[0]))
    quote = old[0][start]
    stray = quote in QUOTES and old[0][:start] + old[0][start + 1:] == new[0] and old[0].count(quote) % 2 == 1 \
        and open_strings(new[0]) == 0
    return quote if stray else ""


def _odd_in_file(text: str, quote: str) -> bool:
    """``text`` has an odd number of ``quote`` (not counting escaped ones): one of them
    pairs with none, and the string it opens runs on to the end."""
    return bool(quote) and (text.count(quote) - text.count("\\" + quote)) % 2 == 1


def _pairs_lone_slash(hunk: tuple[int, list[str], list[str]]) -> bool:
    """The hunk types one ``/`` into one line that had one more than pairs."""
    _, old, new = hunk
    return len(old) == len(new) == 1 and old[0].count("/") % 2 == 1 and new[0].count("/") == old[0].count("/") + 1


def _in_slash_regex(tree, span: tuple[int, int]) -> bool:
    """The byte ``span`` of the text ``tree`` read lies in a regular expression between
    ``/`` and ``/``."""
    node = tree.root_node.descendant_for_byte_range(span[0], span[0])
    while node is not None and "regex" not in node.type:
        node = node.parent
    return node is not None and node.text[:1] == b"/" and node.text[-1:] == b"/"


def _hidden_tokens(before: bytes, after: bytes, language: str, quote_typed: bool = False,
                   pairs_quotes: bool = False, pairs_slash: bool = False, stray_quote: str = "",
                   odd_in_file: bool = False) -> list[str]:
    prefix, suffix = kept_ends(before, after)
    old_tree, new_tree = tree_of(before, language), tree_of(after, language)
    shift = len(after) - len(before)
    record = spec(language)
    closer = record.block_comment[1].encode() if record is not None else b""
    # A token after the edit is hidden only inside a comment or string of ``after`` that
    # begins on the edit's line or above it: none lies past where the last such ends,
    # and the tokens of the file beyond that line are not read.
    line_end = after.find(b"\n", prefix)
    reach = _quiet_reach(new_tree.root_node, len(after) if line_end < 0 else line_end, len(after) - suffix)
    if reach < 0:
        return []
    last_row = before.count(b"\n", 0, max(0, reach - shift))
    by_line: dict[int, list] = {}  # row -> the hidden leaves on it
    leaves = []
    for leaf in _leaves(old_tree.root_node, len(before) - suffix):
        if leaf.start_point[0] > last_row:
            break
        if leaf.start_byte >= len(before) - suffix:
            leaves.append(leaf)
    spans = set()
    for leaf in leaves:
        if not leaf.text.strip(QUOTES.encode() + b" \t\n") or _quiet(leaf) is not None:
            continue  # only what follows the edit, unchanged, and was not a comment, string or quote
        at = leaf.start_byte + shift
        span = _quiet(new_tree.root_node.descendant_for_byte_range(at, at + 1))
        if span is not None and closer and span[1] - len(closer) <= at and after[span[1] - len(closer):span[1]] == closer:
            continue  # (the comment's closer itself, made whole: ``* /`` made ``*/``)
        if span is not None and pairs_quotes and after[span[0]:span[0] + 1].decode("latin-1") in QUOTES \
                and not span[0] <= prefix <= len(after) - suffix <= span[1]:
            # The edit leaves its line's quotes paired: a string there that it neither
            # opened nor lies in is one between quotes the line had, the author's
            # (``alink="#0000FF"``, read as code while a quote before it had no partner;
            # ``width "100%"``, an attribute's name until its ``=`` came back).
            continue
        if span is not None and after.rfind(b"\n", 0, span[0]) < prefix <= at:
            by_line.setdefault(leaf.start_point[0], []).append(leaf)
            spans.add(span)
    # Text tree-sitter could not read as code (a token of it in an ERROR, or a line it
    # read only by inventing tokens: ``way to signal the end`` as declarations, each
    # given its ``;``) that is mostly words is prose: a comment's text that lost its marker.
    hidden = [token for _, row in sorted(by_line.items()) for token in _prose_tokens(row, before)]
    unread = {leaf.start_point[0] for leaf in leaves if _in_error(leaf) or leaf.is_missing}
    if unread & set(by_line) and _mostly_prose([_prose_tokens(row, before) for row in by_line.values()], language):
        return []
    # A line that is all one address (``.org/licenses/>.``) is a comment's, split from it.
    if by_line and all(address_rest(_line_at(before, leaves[0].start_byte)) for leaves in by_line.values()):
        return []
    if hidden and _in_comment_block(before, set(by_line), comment_prefix(language)):
        return []
    # A string's opening quote put back (``quote_typed``: the one quote the edit typed)
    # before its text: the string ends at a quote that ``before`` left open on its line
    # (``awk`` over the lines of a program and its ``}' file``), so only what its lost
    # opener had left unquoted is quoted again.
    if hidden and quote_typed \
            and all(_ends_at_lone_quote(after, span, _line_at(before, span[1] - 1 - shift)) for span in spans):
        return []
    # A regular expression's opening '/' put back (``if ^(\\d+)/`` made ``if /^(\\d+)/``):
    # it ends at the '/' the line had alone, and what it quotes the parser could not
    # read as code before (not a division's operands).
    if hidden and pairs_slash and set(by_line) <= unread and all(_in_slash_regex(new_tree, span) for span in spans):
        return []
    # A quote typed into a string taken away (``\\`.` +``): what it had let out of the
    # string, the parser could not read as code, and it named nothing (marks alone).
    if hidden and stray_quote and set(by_line) <= unread and not any(_WORDS_ONLY.search(token) for token in hidden):
        return []
    # A quote the whole file has one too many of (``odd_in_file``), taken away where it
    # stood alone on its line: the string it opened ran on past its line to the file's
    # end, and what the parser could not read below, now in the string the quote stood in
    # (``eval "... read` _RET ..."``), had been in that string before the quote was typed.
    if hidden and stray_quote and odd_in_file and set(by_line) <= unread \
            and max(by_line) > before.count(b"\n", 0, prefix):
        return []
    # A macro's body cut by a line break where it left a bracket open (``#define TOTAL (``
    # over the rest of its expression): joined again, what the lines below held is the
    # body they were cut from.
    if hidden and spans and all(_completes_macro_body(before, after, span) for span in spans):
        return []
    # A block comment's closer that the original had as code, where nothing opened it
    # (``/`` at a line's end, ``* visual */,`` on the next): the edit put back the
    # comment it closes, within a few lines.
    if hidden and max(by_line) - min(by_line) < _CLOSER_REACH and _ends_with_closer(before, max(by_line), hidden):
        return []
    return hidden


def _ends_at_lone_quote(after: bytes, span: tuple[int, int], line: str) -> bool:
    """The string ``span`` of ``after`` opens with a lone quote at its line's end (a
    program or text on the lines below: ``awk '``), and ends with a quote that stood on
    ``line`` (its line in the text before the edit) leaving a string open there: its
    partner was lost, and the edit put it back."""
    quote = after[span[1] - 1:span[1]]
    return bool(quote) and quote.decode("latin-1") in QUOTES and after[span[0]:span[0] + 2] == quote + b"\n" \
        and open_strings(line) > 0


def _quote_typed_lines(hunks) -> set[int]:
    """The lines (of the edited text) of each hunk that only typed one quote: a string's
    opener put back (``_ends_at_lone_quote``)."""
    lines: set[int] = set()
    shift = 0
    for first, old, new in hunks:
        was, now = (list("".join("".join(text).split())) for text in (old, new))
        if len(now) == len(was) + 1 and _grows_by(was, now, set(QUOTES)):
            lines.update(range(first + shift, first + shift + len(new)))
        shift += len(new) - len(old)
    return lines


def _completes_macro_body(before: bytes, after: bytes, span: tuple[int, int]) -> bool:
    """``span`` of ``after`` is the body of a macro whose definition's line, in
    ``before``, left a bracket open that the body now closes."""
    start = after.rfind(b"\n", 0, span[0]) + 1
    defined, was = _DEFINED.match(_line_at(after, start)), _DEFINED.match(_line_at(before, start))
    return defined is not None and was is not None and was.group(1) == defined.group(1) \
        and _leaves_open(_line_at(before, start)[was.end() - 1:]) \
        and not _leaves_open(after[span[0]:span[1]].decode("utf-8", "replace"))


def _line_at(text: bytes, at: int) -> str:
    """The line of ``text`` that byte ``at`` lies on."""
    start = text.rfind(b"\n", 0, at) + 1
    stop = text.find(b"\n", at)
    return text[start:len(text) if stop < 0 else stop].decode("utf-8", "replace")


def _ends_with_closer(before: bytes, row: int, hidden: list[str]) -> bool:
    """The hidden tokens end with a block comment's closer (``*/``; ``-->``, of which
    HTML reads ``--`` as text), which ends the 0-based ``row`` of ``before``."""
    line = before.split(b"\n")[row].decode("utf-8", "replace").rstrip() if row < before.count(b"\n") + 1 else ""
    return "".join(hidden).endswith(_CLOSERS) or any(
        line.endswith(closer) and closer.endswith(hidden[-1]) for closer in _CLOSERS)


def _in_comment_block(before: bytes, rows: set[int], marker: str) -> bool:
    """Each of the 0-based ``rows`` of ``before`` begins with the first character of the
    line-comment ``marker`` and lies below such a comment, and above another or at the
    end of their block (a blank line, the file's end): ``/< /http://...`` among ``//``
    lines, a comment whose marker was mistyped. Or it is the file's first line of text,
    the next a comment (``/ -*- C++ -*-`` over a licence)."""
    if not marker:
        return False
    lines = before.decode("utf-8", "replace").split("\n")

    def comment(row: int) -> bool:
        return 0 <= row < len(lines) and lines[row].lstrip().startswith(marker)

    def block_ends(row: int) -> bool:
        return row >= len(lines) or not lines[row].strip()

    def heads_the_file(row: int) -> bool:
        below = next((n for n in range(row + 1, min(row + 1 + _COMMENT_GAP, len(lines))) if lines[n].strip()), None)
        return not any(line.strip() for line in lines[:row]) and below is not None and comment(below)

    return all(0 <= row < len(lines) and lines[row].lstrip().startswith(marker[0]) and not comment(row)
               and ((comment(row - 1) and (comment(row + 1) or block_ends(row + 1))) or heads_the_file(row))
               for row in rows)


def _line_maps(before: str, hunks) -> tuple[set[int], dict[int, int]]:
    """The lines of the edited text that the ``hunks`` changed, and each unchanged line
    of it mapped to its line in ``before`` (1-based)."""
    changed: set[int] = set()
    to_before: dict[int, int] = {}
    shift = 0
    at = 1  # next unmapped line of ``before``
    for first, old, new in hunks:
        for line in range(at, first):
            to_before[line + shift] = line
        changed.update(range(first + shift, first + shift + max(len(new), 1)))
        at = first + len(old)
        shift += len(new) - len(old)
    for line in range(at, len(source_lines(before)) + 2):
        to_before[line + shift] = line
    return changed, to_before


def _prose_tokens(leaves: list, text: bytes) -> list[str]:
    """The texts of ``leaves`` (of ``text``), without a comment's markup: a ``+``, ``*``
    or backquote that touches a word on one side and a blank or the line's edge on the
    other (RDoc's ``+user+``, a ``*word*`` stressed)."""
    tokens = []
    for leaf in leaves:
        token = leaf.text.decode("utf-8", "replace")
        if len(token) == 1 and token in MARKUP_MARKS:
            left, right = text[leaf.start_byte - 1:leaf.start_byte] if leaf.start_byte else b"", \
                text[leaf.end_byte:leaf.end_byte + 1]
            if _touches_word(left) != _touches_word(right) and min(left.strip(), right.strip(), key=len) == b"":
                continue
        tokens.append(token)
    return tokens


def _touches_word(char: bytes) -> bool:
    return char.isalnum() or char == b"_"


def _is_word(token: str) -> bool:
    return _WORDS_ONLY.fullmatch(token) is not None


def _mostly_prose(rows: list[list[str]], language: str) -> bool:
    """At least half the tokens of the ``rows`` (each a line's) are a prose's words:
    letters, or a number; a name joined with ``_`` or with digits in it (``__ftw_func_t``,
    ``x2``) is code's. The grammar's keywords count for neither: prose has ``for`` and
    ``long``, and a declaration is no sentence for being ``extern int f (struct``. A
    line that ends as a statement or a block does (``;``, ``{``, ``}``) is code, and so
    are names each given a value (``width="100%" cellspacing="3"``: every other token an
    ``=``)."""
    if any(row and row[-1] in _CODE_ENDS for row in rows):
        return False
    if any(len(row) >= 4 and all(token == "=" for token in row[1::2]) and all(map(_is_word, row[::2]))
           for row in rows):
        return False
    keywords = set(vocabulary(language)[0])
    # A token with blanks in it is text read as one (a slash read as a regular expression's
    # start takes the rest of the line): its words count one by one. A comment's rules and
    # boxes (``*! *****``, ``=====``) are neither words nor code.
    tokens = [word for row in rows for token in row
              for word in (_SPLIT_TEXT.findall(token) if any(c.isspace() for c in token.strip()) else [token])
              if not _RULE.fullmatch(word) and word not in keywords]
    return bool(tokens) and 2 * sum(_PROSE_WORD.fullmatch(token) is not None for token in tokens) >= len(tokens)


def _leaves(root, from_byte: int = 0) -> Iterable:
    """The leaves of ``root`` in the text's order, from the first that ends at or
    after ``from_byte`` (the subtrees that end before it are not walked)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.end_byte < from_byte:
            continue
        if node.child_count == 0:
            yield node
        else:
            stack.extend(reversed(node.children))


def _quiet_reach(root, starts_by: int, ends_from: int) -> int:
    """The furthest end of a comment, string or other quiet span (``_quiet``'s kinds)
    that begins at or before byte ``starts_by`` and ends at or after ``ends_from``; -1
    when there is none. Only the nodes spanning both bytes are walked."""
    reach = -1
    stack = [root]
    while stack:
        node = stack.pop()
        if node.start_byte > starts_by or node.end_byte < ends_from:
            continue
        if _quiet_kind(node.type) or _inline_text(node):
            reach = max(reach, node.end_byte)
        stack.extend(node.children)
    return reach


def _quiet_kind(kind: str) -> bool:
    return ("comment" in kind or "string" in kind or "heredoc" in kind or kind.endswith("char_literal")
            or "quote" in kind or kind in _UNREAD_TEXT)


def _in_error(node) -> bool:
    """``node`` lies in an ERROR: tree-sitter could not read it as code."""
    while node is not None:
        if node.is_error:
            return True
        node = node.parent
    return False


# Text that is neither comment nor string and is not read as code where it stands: a
# character, the body of a C macro (``#define extern Void f(void);`` compiles whatever
# follows the name).
_UNREAD_TEXT = frozenset({"character_literal", "preproc_arg"})
_CODE_TAGS = ("<?", "?>")  # where a template language's code starts and ends (``_inline_text``)


def _inline_text(node) -> bool:
    """Text a template language outputs as it is, outside its code tags (PHP's
    before ``<?php`` or after ``?>``): no code is read there."""
    return node.type == "text" and node.parent is not None and node.parent.type in ("program", "text_interpolation")


# Strings that name a file rather than hold text (``#include <features.h>``).
_READ_STRINGS = frozenset({"system_lib_string"})


def _quiet(node) -> tuple[int, int] | None:
    """The byte span of the comment, string (a quoted value or scalar too) or macro body ``node`` lies in (the
    outermost string, not a run of strings written one after another: each of those has
    its own quotes), or None where it is code (a string's interpolation is code)."""
    while node is not None:
        kind = node.type
        if any(part in kind for part in _INSIDE_STRING_CODE):
            return None
        if (_quiet_kind(kind) and kind not in _READ_STRINGS) or _inline_text(node):
            while node.parent is not None and ("string" in node.parent.type or "heredoc" in node.parent.type) \
                    and "concatenated" not in node.parent.type:
                node = node.parent
            return node.start_byte, node.end_byte
        node = node.parent
    return None


def _regions(before: str, after: str, max_distance: int) -> list[tuple[int, int, str, str]]:
    """The repaired regions: runs of changed lines at most ``max_distance`` lines apart,
    each as (its first line, lines of ``before`` it changes, its text before, after)."""
    original = source_lines(before)
    groups: list[list[tuple[int, list[str], list[str]]]] = []
    for hunk in changed_hunks(before, after):
        if groups:
            first, old, _ = groups[-1][-1]
            if hunk[0] - (first + len(old)) <= max_distance:
                groups[-1].append(hunk)
                continue
        groups.append([hunk])
    regions = []
    for group in groups:
        start, (last, last_old, _) = group[0][0], group[-1]
        end = last + len(last_old)  # one past the region's last line in ``before``
        new_lines: list[str] = []
        at = start
        for first, old, new in group:
            new_lines += original[at - 1:first - 1] + new
            at = first + len(old)
        changed = sum(max(len(old), 1) for _, old, _ in group)
        regions.append((start, changed, "\n".join(original[start - 1:end - 1]), "\n".join(new_lines)))
    return regions


def far_from_problems(before: str, after: str, language: str, problems: Sequence[Problem],
                      max_distance: int) -> str:
    """Why some run of lines the edit changes lies more than ``max_distance`` lines from
    every problem the checker reported, or "".

    A checker may report one error at a time (CPython does), so the problems count as
    they surface: once the changes near a reported problem are applied, the problems
    of that text (in the original's line numbers) count too. Far from every problem a
    line may only gain what a block or string lost at its other end (``_puts_back``)."""
    from ..check import check, tree_sitter_problems

    hunks = changed_hunks(before, after)
    spans = [(p.line, max(p.line, p.end_line)) for p in problems]
    # Where a compiler reported, tree-sitter's error there says how far the damage runs
    # (an ``#ifdef`` reported unterminated at its start, which lost its ``#endif`` at
    # the end of what tree-sitter could not parse). CPython points at its errors itself.
    record = spec(language)
    taken_as_said = record is not None and record.judge_names_where_errors_begin
    compiled = [] if taken_as_said else [p.line for p in problems if p.kind == "compiler"]
    spans += [(p.line, p.end_line) for p in tree_sitter_problems(before, language)
              if p.end_line > p.line and any(abs(p.line - a) <= max_distance for a in compiled)]
    # A construct a compiler reports unclosed where it opens lost its closer anywhere
    # below. (CPython's "'(' was never closed" is left as it is: its fix lies at the
    # bracket, and the search for Python is tuned to that.)
    total = before.count("\n") + 1
    if not taken_as_said:
        spans += [(p.line, total) for p in problems if UNCLOSED.search(p.message)]
        spans += [(1, p.line) for p in problems if p.kind == "compiler" and UNOPENED_DIRECTIVE.search(p.message)]
    original = source_lines(before)
    spans += _begun_above(original, problems, language, max_distance)
    # A block comment whose closer broke runs on over code: a problem reported just below
    # that code may lie anywhere from the comment's first line.
    over = [(before.count("\n", 0, start) + 1, before.count("\n", 0, end) + 1)
            for start, end in comments_over_openers(before, language)]
    spans += [(first, last) for first, last in over if any(a - max_distance <= last <= b for a, b in spans)]
    applied: list[int] = []
    pending = list(range(len(hunks)))
    while pending:
        near = [i for i in pending if _near(hunks[i], spans, max_distance, language)
                or _drops_doubled_closer(hunks[i], spans, original, language)]
        if not near:
            first, old, _ = hunks[pending[0]]
            line = first
            nearest = min((max(0, a - line, line - b) for a, b in spans), default=None)
            where = "no problem reported" if nearest is None else f"{nearest} lines from the nearest problem"
            return f"line {line} changed, {where}, limit {max_distance}"
        applied = sorted(applied + near)
        pending = [i for i in pending if i not in near]
        if pending:
            kept = [hunks[i] for i in applied]
            text = apply_hunks(original, kept, before.endswith("\n"))
            surfaced = check(text, language).problems
            spans += [(original_line(a, kept), original_line(b, kept))
                      for a, b in [(p.line, max(p.line, p.end_line)) for p in surfaced]
                      + _begun_above(source_lines(text), surfaced, language, max_distance)]
    return ""


def _begun_above(lines: list[str], problems: Sequence[Problem], language: str,
                 max_distance: int) -> list[tuple[int, int]]:
    """The lines from where each problem reported at a construct's end may have begun
    (``LanguageSpec.begins_above``) to where it was reported. The construct's mistake
    lies at or after its start: the ``max_distance`` lines every span may reach beyond
    its ends do not reach above that line (the span starts that much lower)."""
    record = spec(language)
    if record is None or record.begins_above is None:
        return []
    starts = [(record.begins_above(lines, p.line, p.column, p.message), p.line) for p in problems]
    return [(min(start + max_distance, line), line) for start, line in starts if start is not None]


def _near(hunk: tuple[int, list[str], list[str]], spans: list[tuple[int, int]], max_distance: int,
          language: str) -> bool:
    first, old, new = hunk
    lines = range(first, first + max(len(old), 1))
    if all(any(max(0, a - line, line - b) <= max_distance for a, b in spans) for line in lines):
        return True
    above = any(first < b for _, b in spans)
    below = any(first > a for a, _ in spans)
    return _puts_back(old, new, language, below=below, above=above) \
        or above and (_frees_a_block_word(old, new, language) or _comments_a_stray_quote(old, new, language)
                      or _joins_a_block_header(old, new, language)) \
        or (below or above) and _frees_a_block_word(old, new, language, closer=True)


def _drops_doubled_closer(hunk: tuple[int, list[str], list[str]], spans: list[tuple[int, int]],
                          original: list[str], language: str) -> bool:
    """The hunk deletes, above a problem, only a closer typed twice: the second of a
    line of closers (``}}``), closing an opener on a line indented less than its own
    (``misplaced_closers``). The block it ended too early is noticed only where that
    block goes on, lines below."""
    first, old, new = hunk
    if len(old) != 1 or len(new) != 1 or not any(first < a for a, _ in spans):
        return False
    text = old[0]
    doubled = misplaced_closers(original, max(1, first - HEADER_SCAN), first, comment_prefix(language))
    return any(line == first and text[:col] + text[col + 1:] == new[0] for line, col, _ in doubled)


def _puts_back(old: list[str], new: list[str], language: str, *, below: bool, above: bool) -> bool:
    """A block's or a string's partner may be far from where the checker reports it
    missing. A closer (``)``, a shell ``fi``) may go below an unclosed opener the
    checker reports, or above the end of the file where it reports the closer missing
    (a triple quote's too, on a line of quotes alone);
    an opener may go above a closer that lost it (``(``, a shell ``then``), and a
    closing quote above the line where the string that runs on from it is noticed, with
    the closers of what it opened inside that string (``")"`` at the end of ``"$(cmd
    "$x``); or a stray quote above may go, whose string ran on to where it is noticed.
    Such lines may gain those characters and words, or lose a quote, only."""
    closers, openers = set(BRACKETS.values()), set(BRACKETS.keys()) | set(QUOTES)
    family = edit_family(language)  # words that close or open blocks as brackets do
    closers |= family.closers
    openers |= family.openers
    return (below or above) and (_only_adds(old, new, closers) or _respells_as(old, new, family.closers)
                                 or _quotes_only(new) and _only_adds(old, new, set(QUOTES))) \
        or above and (_only_adds(old, new, openers) or _respells_as(old, new, family.openers)
                      or _unmasks(old, new, family.openers - {";"})
                      or _only_adds(old, new, closers | set(QUOTES)) or _swaps_a_quote(old, new)
                      or _only_adds(new, old, set(QUOTES)))


def _quotes_only(lines: list[str]) -> bool:
    """Every line holds quotes only (a triple-quoted string's closer alone on its line)."""
    return all(line.strip() and not line.strip().strip("\"'`") for line in lines)


def _respells_as(old: list[str], new: list[str], words: Iterable[str]) -> bool:
    """The one line is the old one with one word respelt as one of ``words``, a typo
    away (``endd`` -> ``end``, ``fii`` -> ``fi``): the block word was there, misspelt, and
    its block noticed unclosed as far off as one whose word was lost."""
    if len(old) != 1 or len(new) != 1:
        return False
    before, after = _WORD.findall(old[0]), _WORD.findall(new[0])
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    if len(before) != len(after) or len(changed) != 1 or changed[0][1] not in set(words):
        return False
    typo, word = changed[0]
    same_rest = old[0].replace(typo, "", 1) == new[0].replace(word, "", 1)
    return same_rest and (typo.lower() == word.lower() or distance(typo, word, cap=2) <= 1)


def _unmasks(old: list[str], new: list[str], words: Iterable[str]) -> bool:
    """The one line is the old one without a stray run of punctuation just before one of
    ``words`` (``if x;$ then``): the shell read that word as an argument of the stray
    one, and its block is noticed unopened as far off as one whose word was lost."""
    if len(old) != 1 or len(new) != 1 or not words:
        return False
    found = re.search(rf"([^\w\s\"'`;]+)(\s*)(?:{'|'.join(map(re.escape, words))})\b", old[0])
    return found is not None and new[0] in (old[0][:found.start(1)] + old[0][found.end(1):],
                                              old[0][:found.start(1)] + old[0][found.end(2):])


def _joins_a_block_header(old: list[str], new: list[str], language: str) -> bool:
    """The hunk joins a keyword left alone on its line to the line below it, which opens
    a block (``interface`` over ``Array<T> {``): a judge may meet what the block then
    cannot hold anywhere in it, far below (rule ``split-header``)."""
    return len(old) == 2 and len(new) == 1 and old[0].strip() in vocabulary(language)[0] and "{" in old[1] \
        and new[0] == old[0].rstrip() + " " + old[1].lstrip()


def _frees_a_block_word(old: list[str], new: list[str], language: str, *, closer: bool = False) -> bool:
    """A line comment split where a line of code typed onto its end begins, and that
    line opens a block (``// Tokens. type Slice struct {``) or, with ``closer``, closes
    one (``// ... treat like normal char }``): its partner, far off, is where the checker
    noticed the word lost, as with an opener or a closer put back. Only a line break is
    added."""
    marker = comment_prefix(language)
    if not marker or len(old) != 1 or len(new) != 2 or marker not in new[0] or marker in new[1]:
        return False
    if "".join(old[0].split()) != "".join("".join(new).split()):
        return False
    code = new[1].strip()
    if closer:
        closers = set(BRACKETS.values()) | edit_family(language).closers
        return any(code.startswith(word) and (len(word) == 1 or code[len(word):][:1] in ("", " ", "\t", ";"))
                   for word in closers)
    openers = set(BRACKETS) | edit_family(language).openers
    return any(code.endswith(opener) and (len(opener) == 1 or code[:-len(opener)][-1:] in ("", " ", "\t"))
               for opener in openers)


def _comments_a_stray_quote(old: list[str], new: list[str], language: str) -> bool:
    """A line that leaves a quote open joined back to the line comment above it (``file
    defines the system's error numbers,`` under ``# This machine-generated``): as with a
    stray quote taken away, the string that ran on from it is noticed far below. Only a
    join, with a blank or none."""
    marker = comment_prefix(language)
    return bool(marker) and _joined(old, new) and old[0].lstrip().startswith(marker) \
        and marker not in old[1] and bool(open_strings(old[1]))


def _swaps_a_quote(old: list[str], new: list[str]) -> bool:
    """The one line is the old one with one quote made the other kind: a string closed
    with the wrong quote runs on to where the checker notices it, lines below."""
    if len(old) != 1 or len(new) != 1 or len(old[0]) != len(new[0]):
        return False
    changed = [(a, b) for a, b in zip(old[0], new[0]) if a != b]
    return len(changed) == 1 and all(c in QUOTES for c in changed[0])


def _only_adds(old: list[str], new: list[str], allowed: Iterable[str]) -> bool:
    """The new lines are the old ones with some of ``allowed`` added (and spacing):
    single characters anywhere (a bracket may go inside a word), words as whole words."""
    allowed = set(allowed)
    chars = {a for a in allowed if len(a) == 1}
    return _grows_by(list("".join("".join(old).split())), list("".join("".join(new).split())), chars) \
        or len(allowed) > len(chars) and _grows_by(_WORD.findall("\n".join(old)), _WORD.findall("\n".join(new)),
                                                  allowed)


def _grows_by(old: list[str], new: list[str], allowed: set[str]) -> bool:
    """``new`` is ``old`` with some items of ``allowed`` inserted."""
    if len(new) <= len(old):
        return False
    i = 0
    for item in new:
        if i < len(old) and item == old[i]:
            i += 1
        elif item not in allowed:
            return False
    return i == len(old)


def rewrites_instead_of_repairing(before: str, after: str, language: str) -> bool:
    """One step's rule (the limits above are the whole repair's): True when an edit
    replaces code rather than repairing it: more tokens changed
    than half of what the touched lines held (and more than a handful)."""
    distance = token_distance(before, after, language, cap=200)
    if distance <= 6:
        return False
    touched = changed_lines(before, after)
    lines = source_lines(before)
    original = "\n".join(lines[i - 1] for i in touched if 0 < i <= len(lines))
    return distance > max(6, len(code_tokens(original, "other")) // 2)
