"""Edits for a shell script's block structure: the ``then``/``do``/``fi``/``done``/``}``/
``esac`` or closing quote that went missing.

``bash -n`` and ``sh -n`` report such a mistake where the parser noticed, often many
lines after it (a ``;`` dropped before ``then`` is seen at the matching ``fi``), and
tree-sitter-bash can point lines before it. So the script's keywords are scanned as a
stack, and the edits offered are the missing word on the opener it belongs to, or the
missing closer where the opener's indentation returns. Nothing here checks anything:
``candidates.py`` keeps the edits the judge accepts.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Iterator

from ..check import Problem
from ..languages.bash import CLOSER, KEYWORD, Block, code_of, unclosed, blocks
from .edits import Edit, replace_token
from ..spelling import distance
from .rules import rule

_NEEDS = {"if": "then", "elif": "then", "while": "do", "until": "do", "for": "do", "select": "do", "case": "in"}
# The shell's brackets, as the guard sees them: a block's closing word may be put back
# far below where the shell reports it missing, its opening word far above.
CLOSING_WORDS = frozenset(CLOSER.values())
OPENING_WORDS = frozenset(_NEEDS.values())
# Lines tried for a missing closer, per unclosed opener: the first where the opener's
# indentation returns is the likeliest; spots far apart would make ranking score every
# line between them.
MAX_CLOSER_SPOTS = 2
MAX_QUOTE_LINES = 3  # lines whose string runs on, each tried for its closing quote


def shell_edits(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    """The structural edits for the first problem, likeliest first."""
    if not problems:
        return
    # tree-sitter-bash often sees a structural mistake somewhere else, or sees more
    # errors once it is repaired: these few edits go straight to the shell's own judge.
    for edit in _structural(lines, problems):
        yield replace(edit, direct=True)


def _structural(lines: list[str], problems: tuple[Problem, ...]) -> Iterator[Edit]:
    first = problems[0]
    message = first.message
    # (A shell that names the closer it expects at the file's end, ``(expecting "fi")``,
    # asks for no ``then`` or ``do``: the block's closer is what was lost or misspelt.)
    if re.search(r"expecting \"(then|do)\"|unexpected token `(fi|else|elif|done)'|unexpected end of file"
                 r"|end of file unexpected|\"(fi|else|elif|done)\" unexpected", message) \
            and not re.search(r"end of file unexpected \(expecting \"(fi|done|esac|\})\"\)", message):
        yield from _missing_word_edits(lines, first.line)
    elif "near unexpected token" in message:  # a case's first pattern, where its 'in' was expected
        yield from _missing_word_edits(lines, first.line, only="in")
    if re.search(r"[Uu]nterminated quoted string|matching `[\"']'|unexpected EOF", message):
        yield from _quote_edits(lines)
    # (dash reads a backquote's text as a script of its own: a quote in it that the
    # stray backquote paired wrongly is "Unterminated", at a line counted from there.)
    if re.search(r"backquote|matching ``'", message) or (re.search(r"[Uu]nterminated quoted string", message)
                                                        and _live_backquotes(lines) % 2):
        yield from _stray_backquote_edits(lines)
    yield from _missing_closer_edits(lines, first.line)
    yield from _lost_delimiter_edits(lines, first.line)
    yield from _joined_heredoc_edits(lines, first.line)
    yield from _lost_program_quote_edits(lines, first.line)
    yield from _lost_opener_edits(lines, first.line)
    yield from _bare_opener_edits(lines, first.line)
    if "quot" not in message:
        yield from _quote_edits(lines)
    yield from _close_line_edits(lines, first.line)


@rule('sh-missing-word', "'then', 'do' or a case's 'in' put back on the nearest opener that lacks it", 'shell')
def _missing_word_edits(lines: list[str], error_line: int, only: str | None = None) -> Iterator[Edit]:
    """``then``/``do`` on the nearest openers above the error that lack it, or respelt
    where a word a slip away from it ends the line (``; thenn``, ``; Do``); a ``case``'s
    ``in``. ``only``: that word alone."""
    low = max(1, error_line - 60)
    for n in range(min(error_line, len(lines)), low - 1, -1):
        code = code_of(lines[n - 1])
        words = [m.group(1) for m in KEYWORD.finditer(code)]
        if not words or words[0] not in _NEEDS:
            continue
        need = _NEEDS[words[0]]
        if need in words or (only is not None and need != only):
            continue
        text = lines[n - 1]
        end = len(code) if code else len(text.rstrip())
        if need == "in":  # ``case $(uname -s -m)``: the word follows, no ';' before it
            yield _at(text, n, end, " in", f"line {n}: insert 'in'")
            continue
        glued = re.search(rf"\s({need})$", code)
        if glued:  # "while : do": the word is there, the ";" before it is not
            stray = re.search(rf";(\s*)([^\w\s;\"'`]+)\s+{need}$", code)
            if stray:  # "if x;$ then": a character typed after the ";" hides the word
                start = stray.start(2)
                rest = text[stray.end(2):]
                yield Edit(n, 1, [text[:start] + (rest.lstrip(" ") if stray.group(1) else rest)],
                           f"line {n}: delete {stray.group(2)!r}", 1, start + 1, start)
            yield _at(text, n, glued.start(), ";", f"line {n}: insert ';' before {need!r}")
            continue
        typo = re.search(r";\s*([A-Za-z]+)$", code)
        if typo and (typo.group(1).lower() == need or distance(typo.group(1), need, cap=2) <= 1):
            # "if x; thenn": the word is there, misspelt (else it becomes a command)
            yield replace_token(text, n, typo.start(1), typo.group(1), need)
            continue
        indent = text[:len(text) - len(text.lstrip())]
        own_line = Edit(n, 1, [text, indent + need], f"line {n + 1}: insert {need!r} on its own line")
        if _own_line_style(lines, need):  # the script's own style decides: one candidate, not two
            yield own_line
        elif code.endswith(";"):
            yield _at(text, n, end, f" {need}", f"line {n}: insert {need!r}")
        else:
            yield _at(text, n, end, f"; {need}", f"line {n}: insert '; {need}'")


def _own_line_style(lines: list[str], word: str) -> bool:
    """Does the script put ``then``/``do`` on a line of its own more often than after ``;``?"""
    alone = sum(1 for line in lines if line.strip() == word)
    after = sum(1 for line in lines if re.search(rf";\s*{word}\b", line))
    return alone > after


def _at(text: str, line_no: int, col: int, insert: str, description: str) -> Edit:
    return Edit(line_no, 1, [text[:col] + insert + text[col:]], description, 1, col + len(insert) + 1, col)


@rule('sh-missing-closer', "a closer (fi, done, esac, '}') for an opener left unclosed", 'shell')
def _missing_closer_edits(lines: list[str], error_line: int) -> Iterator[Edit]:
    """A closer for each opener left unclosed (innermost first), where its indentation
    returns: the first lines after it indented no deeper than it, and the file's end; a
    lone word there a typo away from the closer respelt as it first, and the closer
    typed onto the end of the block's last line split off before one is put in."""
    for opener in unclosed(lines):
        closer = CLOSER[opener.kind]
        opening = lines[opener.line - 1]
        pad = opening[:len(opening) - len(opening.lstrip())]  # its own tabs or spaces
        spots = 0
        for n in range(opener.line + 1, len(lines) + 1):
            text = lines[n - 1]
            if not text.strip():
                continue
            indent = len(text.expandtabs(8)) - len(text.expandtabs(8).lstrip())
            if indent <= opener.indent and text.split()[0] not in _MIDDLE:  # (``then`` on its own line goes on)
                word = text.strip()
                if word != closer and (word.lower() == closer or distance(word, closer) == 1) \
                        and word[:1].lower() == closer[0] and indent == opener.indent:
                    # Where the block's indentation returns, a lone word a typo away from its
                    # closer, as it begins (``fii``, ``Fi``, ``}#``; not ``if``, nor ``:``):
                    # the closer, misspelt, not a command after it.
                    # (at the word's column in characters: ``indent`` counts a tab as eight)
                    yield replace_token(text, n, len(text) - len(text.lstrip()), word, closer)
                    spots += 1
                    if spots >= MAX_CLOSER_SPOTS:
                        break
                    continue
                body_end = n - 1  # the closer goes right after the block's last line
                while body_end > opener.line and not lines[body_end - 1].strip():
                    body_end -= 1
                last = lines[body_end - 1]
                joined = re.search(rf"[ \t]{re.escape(closer)}[ \t]*$", last)
                if joined and body_end > opener.line and not last[:joined.start()].rstrip().endswith((";", "&")):
                    # The closer typed onto the block's last line, an argument there (``exit 2 fi``):
                    # split off onto a line of its own, not put in again there or further on.
                    yield Edit(body_end, 1, [last[:joined.start()].rstrip(), pad + closer],
                               f"line {body_end}: split {closer!r} off onto a line of its own")
                    spots += 1
                    break
                if body_end < n - 1:
                    yield Edit(body_end, 1, [lines[body_end - 1], pad + closer],
                               f"line {body_end + 1}: insert {closer!r}")
                else:
                    yield Edit(n, 1, [pad + closer, text], f"line {n}: insert {closer!r} before it")
                spots += 1
                if spots >= MAX_CLOSER_SPOTS:
                    break
        if not spots:  # the block runs to the end of the file
            last = len(lines)
            while last > 1 and not lines[last - 1].strip():
                last -= 1
            yield Edit(last, 1, [lines[last - 1], pad + closer], f"line {last + 1}: insert {closer!r} at the end")


def unmatched_blocks(lines: list[str]) -> int:
    """The script's blocks opened and never closed, and its closers that close nothing
    (``languages.bash.blocks``): its keywords' brackets left unmatched."""
    lost, stray = blocks(lines)
    return len(lost) + len(stray)


# The words that open each kind of block, the likeliest first.
_OPENING = {"if": ("if",), "case": ("case",), "loop": ("while", "for", "until"), "{": ()}
_MIDDLE = frozenset({"then", "else", "elif", "do"})
LOST_OPENERS = 2  # closers that close nothing, nearest the error first


@rule('sh-lost-opener', "the word that opens a block put back on the line indented as deeply above a closer "
      "(fi, done, esac) that closes nothing", 'shell')
def _lost_opener_edits(lines: list[str], error_line: int) -> Iterator[Edit]:
    """``    "$1" in`` four lines above an ``esac`` that closes nothing: the block's first
    line lost its word, and the shell reports the first item below it. That line (the
    nearest above the closer indented as deeply, past ``else`` and its kin) gets each
    word that opens such a block."""
    stray = sorted(blocks(lines)[1], key=lambda closer: abs(closer.line - error_line))
    for closer in stray[:LOST_OPENERS]:
        header = _header(lines, closer)
        if header is None:
            continue
        text = lines[header - 1]
        at = len(text) - len(text.lstrip())
        for word in _OPENING[closer.kind]:
            yield _at(text, header, at, word + " ", f"line {header}: put back {word!r}")


# Words that open a block only with more after them (a condition, a name, a word list).
_BARE = frozenset({"if", "while", "until", "for", "select", "case"})
BARE_OPENERS = 2  # lines of a lone opening word, nearest above the error first


@rule('sh-bare-opener', "a block's closer (fi, done, esac) for an opening word alone on its line", 'shell')
def _bare_opener_edits(lines: list[str], error_line: int) -> Iterator[Edit]:
    """``if`` alone on a line, where ``fi`` belongs: no block opens with its word alone,
    so the line is taken for the closer of the innermost block still open above it,
    the likeliest misspelling of the two. The whole file above the error is read: the
    shell reports the block left open where the file ends, however far below."""
    tried = 0
    for n in range(min(error_line, len(lines)), 0, -1):
        text = lines[n - 1]
        if code_of(text).strip() not in _BARE:
            continue
        still_open = blocks(lines[:n - 1])[0]
        if not still_open:
            continue
        closer = CLOSER[max(still_open, key=lambda opener: opener.line).kind]
        at = len(text) - len(text.lstrip())
        word = text.strip().split()[0]
        yield Edit(n, 1, [text[:at] + closer + text[at + len(word):]], f"line {n}: replace {word!r} with {closer!r}",
                   1, at + len(closer) + 1, at)
        tried += 1
        if tried >= BARE_OPENERS:
            return


def _header(lines: list[str], closer: Block) -> int | None:
    """The first line of the block ``closer`` ends: the nearest line above it indented as
    deeply that begins no block word (None where one begins one, or a shallower line
    comes first)."""
    for n in range(closer.line - 1, 0, -1):
        text = lines[n - 1]
        code = code_of(text).strip()
        if not code:
            continue
        indent = len(text.expandtabs(8)) - len(text.expandtabs(8).lstrip())
        if indent > closer.indent:
            continue
        if indent < closer.indent:
            return None
        first = KEYWORD.match(code)
        if first is not None and first.group(1) in _MIDDLE:
            continue
        return None if first is not None else n
    return None


# A backquote the shell reads: not escaped, not inside a single-quoted string on its line.
_LIVE_BACKQUOTE = re.compile(r"'[^']*'|\\.|(`)")


def _live_backquotes(lines: list[str]) -> int:
    """The backquotes the shell reads in ``lines`` (``_LIVE_BACKQUOTE``), comments' aside."""
    return sum(1 for text in lines if not text.lstrip().startswith("#")
               for match in _LIVE_BACKQUOTE.finditer(text) if match.group(1))


@rule('sh-stray-backquote', "a backquote alone on its line taken out where the shell reads a command "
      "substitution on to the file's end", 'shell')
def _stray_backquote_edits(lines: list[str]) -> Iterator[Edit]:
    """The shell reports a backquote never closed only at the file's end ("EOF in
    backquote substitution"): on the first lines with an odd number of live backquotes
    (a character typed into a here-document's text, or a string's), each is deleted."""
    tried = 0
    for n, text in enumerate(lines, 1):
        marks = [m.start(1) for m in _LIVE_BACKQUOTE.finditer(text) if m.group(1)]
        if len(marks) % 2 == 0 or text.lstrip().startswith("#"):
            continue
        for col in marks:
            yield replace_token(text, n, col, "`", "")
        tried += 1
        if tried >= MAX_QUOTE_LINES:
            return


PROGRAM_LINES = 60  # lines below the error searched for the end of a quoted program
PROGRAM_START_LINES = 4  # lines at and above the error tried for the program's opening quote
# A command that takes a program as its argument: its line is likeliest the program's first.
_PROGRAM_COMMAND = re.compile(r"^\s*(?:\w+=\S*\s+)*(?:[\w./-]*/)?(?:[gmn]?awk|sed|perl|python3?|ruby|jq|node|"
                              r"(?:ba|da|z)?sh)\b")


# A here-document's operator with no delimiter after it, at a line's end.
_BARE_HEREDOC = re.compile(r"<<(-?)[ \t]*$")
_DELIMITER = re.compile(r"[ \t]*([A-Za-z_]\w*)[ \t]*$")


@rule('sh-lost-delimiter', "a here-document's delimiter put back after its '<<': the first word below it that "
      "stands alone on its line", 'shell')
def _lost_delimiter_edits(lines: list[str], error_line: int) -> Iterator[Edit]:
    """``cat >&2 <<`` over the document's text and its ``EOF``: the shell says a newline
    was unexpected after the ``<<``. The delimiter is the first line below that holds a
    word alone (indented by tabs only after ``<<-``)."""
    for n in range(max(1, error_line - 1), min(len(lines), error_line + 1) + 1):
        text = code_of(lines[n - 1])
        bare = _BARE_HEREDOC.search(text)
        if bare is None:
            continue
        for below in lines[n:]:
            word = _DELIMITER.fullmatch(below)
            if word is not None and (below[:word.start(1)].strip("\t") == "" if bare.group(1) else word.start(1) == 0):
                yield _at(lines[n - 1], n, len(lines[n - 1].rstrip()), word.group(1),
                          f"line {n}: put back the delimiter {word.group(1)!r}")
                break
        return


# A here-document's operator and its delimiter word, quoted or not.
_HEREDOC_OPENER = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z_]\w*)\2")


@rule('sh-heredoc-joined', "a here-document's first line typed onto its opener split off after the delimiter, "
      "where a line below holds the delimiter alone", 'shell')
def _joined_heredoc_edits(lines: list[str], error_line: int) -> Iterator[Edit]:
    """``cat <<-EOF usage: $me <args>`` over the document's text and its ``EOF``: the
    document's first line joined onto the line that opens it, where the shell reads it as
    the command's words (a ``<`` in it a redirection). It goes back onto a line of its own.
    The shell reads the document before the rest of the command's line, and may report the
    mistake where the document ends: each such opener whose document reaches the error."""
    for n in range(min(len(lines), error_line + 1), 0, -1):
        text = lines[n - 1]
        for opener in _HEREDOC_OPENER.finditer(code_of(text)):
            rest = text[opener.end():]
            if not rest.strip() or not rest[:1].isspace():
                continue
            word = opener.group(3)
            end = next((below for below in range(n + 1, len(lines) + 1)
                        if (alone := _DELIMITER.fullmatch(lines[below - 1])) is not None and alone.group(1) == word),
                       None)
            if end is not None and end >= error_line - 1:
                yield Edit(n, 1, [text[:opener.end()], rest.lstrip()],
                           f"line {n}: split the here-document's first line off after {word!r}")


@rule('sh-program-quote', "the opening quote of a program in single quotes (awk, sed, a here-string) put back "
      "at the end of a line at or above the error, where a line below ends it", 'shell')
def _lost_program_quote_edits(lines: list[str], error_line: int) -> Iterator[Edit]:
    """``awk`` over ``BEGIN {`` ... ``}' file``: a program passed in single quotes that
    lost its opening one is read as shell code, and the shell reports its first brace or
    keyword. Where a line below the error leaves a single quote open (the program's
    end), the quote goes at the end of the error's line or of a few lines above it, a
    command that takes a program (``awk``, ``sed``...) first."""
    below = range(error_line + 1, min(len(lines), error_line + PROGRAM_LINES) + 1)
    end = next((n for n in below if code_of(lines[n - 1]).count("'") % 2), None)
    if end is None:
        return
    spots = range(min(error_line, len(lines)), max(0, error_line - PROGRAM_START_LINES), -1)
    for n in sorted(spots, key=lambda n: _PROGRAM_COMMAND.match(lines[n - 1]) is None):
        text = lines[n - 1]
        if text.strip() and not text.lstrip().startswith("#") and not code_of(text).count("'") % 2:
            at = _at(text, n, len(text.rstrip()), " '", f"line {n}: insert \"'\" at the end")
            yield replace(at, string_ends_at=end)


@rule('sh-quote', 'a closing \'"\' where a double-quoted string runs on past its line', 'shell')
def _quote_edits(lines: list[str]) -> Iterator[Edit]:
    """A closing ``"`` on the first lines where a double-quoted string runs on past its
    line: after each word that follows the opening quote, then at the line's end."""
    tried = 0
    open_at: tuple[int, int] | None = None
    for n, text in enumerate(lines, 1):
        col = 0
        while col < len(text):
            char = text[col]
            if open_at is None:
                if char == "#" and (col == 0 or text[col - 1].isspace()):
                    break
                if char == "\\":
                    col += 2
                    continue
                if char == "'":
                    end = text.find("'", col + 1)
                    col = len(text) if end < 0 else end + 1
                    continue
                if char == '"':
                    open_at = (n, col)
            elif char == "\\":
                col += 2
                continue
            elif char == '"':
                open_at = None
            col += 1
        if open_at is not None and open_at[0] == n:
            start = open_at[1]
            for match in re.finditer(r"[^\s\"'(){};|&]+(?=[\s(){};|&]|$)", text[start + 1:]):
                spot = start + 1 + match.end()
                yield _at(text, n, spot, '"', f"line {n}: insert '\"' after {match.group()!r}")
            # Or the quote it takes for an opener closed a string whose opener was lost.
            for match in reversed(list(re.finditer(r"(?<![^\s=(])[^\s\"'(){};|&]+", text[:start]))):
                yield _at(text, n, match.start(), '"', f"line {n}: insert '\"' before {match.group()!r}")
            tried += 1
            open_at = None  # look for the next run-on string as if this one had been closed
            if tried >= MAX_QUOTE_LINES:
                return


MAX_CUT_LINES = 2  # lines above the error that leave a substitution open, nearest first


@rule('sh-close-line', "a line cut short inside a substitution ('\"$(cmd \"$x') given the closers of all it "
      "left open, at its end", 'shell')
def _close_line_edits(lines: list[str], error_line: int) -> Iterator[Edit]:
    """``GDBPATH="$(cygpath -am "$GDBPATH``: a line cut short inside a ``$(`` or ``${``
    within a string runs on to the next quote, and the shell reports where the quotes
    pair up wrongly, lines below. Each of the nearest such lines above the error gets
    what closes everything it left open (``")"``), innermost first."""
    tried = 0
    for n in range(min(error_line, len(lines)), 0, -1):
        text = lines[n - 1]
        if text.rstrip().endswith("\\"):
            continue
        closers = _left_open(text)
        if ")" not in closers and "}" not in closers:
            continue
        yield _at(text.rstrip(), n, len(text.rstrip()), closers, f"line {n}: close it with {closers!r}")
        tried += 1
        if tried >= MAX_CUT_LINES:
            return


def _left_open(text: str) -> str:
    """What closes the quotes and substitutions (``$(``, ``${``) that ``text`` leaves
    open at its end, innermost first: '' when it closes all it opens."""
    stack: list[str] = []
    col = 0
    while col < len(text):
        char, top = text[col], (stack[-1] if stack else None)
        if top == "'":
            if char == "'":
                stack.pop()
        elif char == "\\":
            col += 2
            continue
        elif text.startswith(("$(", "${"), col):
            stack.append(")" if text[col + 1] == "(" else "}")
            col += 2
            continue
        elif char == '"':
            if top == '"':
                stack.pop()
            else:
                stack.append('"')
        elif top != '"' and char == "'":
            stack.append("'")
        elif char in ")}" and top == char:
            stack.pop()
        elif top is None and char == "#" and (col == 0 or text[col - 1].isspace()):
            break
        col += 1
    return "".join(reversed(stack))
