"""The record every language fills in: the same few fields for each.

A record is data and a few small functions of the text; it imports nothing of
tinycode above it, so every other module may read it.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, NamedTuple

if TYPE_CHECKING:
    import tree_sitter

# Loads a language's tree-sitter grammar (offline, only when first needed).
GrammarLoader = Callable[[], "tree_sitter.Language"]


def wheel(module: str, function: str = "language") -> GrammarLoader:
    """The grammar of an official per-language wheel: ``module.function()`` is its pointer."""

    def load() -> "tree_sitter.Language":
        import tree_sitter

        return tree_sitter.Language(getattr(importlib.import_module(module), function)())

    return load


class OwnVerdict(NamedTuple):
    """The first error a language's own in-process judge found (1-based, characters)."""

    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    text: str = ""  # the offending text, where the judge points at some


class NoVerdict(Exception):
    """A language's own judge could not decide (it overflowed), so tree-sitter decides."""


def always() -> bool:
    return True


@dataclass(frozen=True)
class LanguageSpec:
    """The record of one language: everything that differs by language."""

    name: str
    grammar: GrammarLoader
    extensions: tuple[str, ...] = ()
    filenames: tuple[str, ...] = ()  # whole file names: Makefile, Gemfile, .bashrc
    aliases: tuple[str, ...] = ()  # other names users give it: py, golang, c++
    interpreters: tuple[str, ...] = ()  # names on a "#!" line that mean this language
    comment: str = "#"  # line-comment marker ("" when it has none)
    block_comment: tuple[str, str] = ("", "")  # a block comment's opener and closer (none: "")
    words: tuple[str, ...] = ()  # words in a web-search query that name it
    # Words its grammar reads as a named node, not a keyword of its own, that are
    # keywords to a person (C's ``char``, ``int``, ``void``: tree-sitter's primitive types).
    named_keywords: tuple[str, ...] = ()
    relatives: tuple[str, ...] = ()  # languages whose knowledge also serves it
    available: Callable[[], bool] = always  # its grammar can be loaded here
    # Judged in process by CPython itself (check.py): the verdict, and its label.
    own_judge: Callable[[str], OwnVerdict | None] | None = None
    own_judge_label: str = ""
    # Judged in process by a Python parser when importable: its label ("PyYAML").
    in_process: str = ""
    # External judges, the preferred first (the first on PATH is used).
    judges: tuple[str, ...] = ()
    # One run's cost in the judge budgets, in quarters of a C compiler's run on a file
    # of a few hundred lines (a shell's ``-n`` is a quarter of that, a C++ compiler's
    # with its headers four times as much).
    judge_cost: int = 4
    # The judge sees mistakes tree-sitter misses and misses some it sees (postcss reads
    # no selector or value): a text is clean only when both accept it.
    judge_beside_parser: bool = False
    # The tools to look for instead, from the text (a script's "#!" line picks its shell).
    judges_for: Callable[[str], tuple[str, ...]] | None = None
    # What a compiler that reads several languages is told, and the input's name.
    dialect: tuple[str, ...] = ()
    judge_input: str = ""
    # The judge reads the file as its project compiles it (include folders, macros).
    project: bool = False
    # A declaration that makes an unknown name a type to its compiler (name, the
    # namespace it was looked up in or "", whether it is used as a template): what is
    # put before a text whose types are unknown so that the compiler can judge it.
    declare_type: Callable[[str, str, bool], str] | None = None
    # Another language whose judge should read this text, when it says so (a C++ header named .h).
    judged_as: Callable[[str], str | None] | None = None
    # (prefix, suffix) that make a snippet a whole file for the judge, or None: a file already.
    snippet: Callable[[str], tuple[str, str] | None] | None = None
    # The judge's input file name for this text (a JavaScript module is a .mjs).
    judge_filename: Callable[[str, str], str] | None = None
    # The text the judge is given in this one's stead, line for line (Rust's ``mod
    # name;`` made ``mod name {}``: rustfmt would read the module's file, which is not
    # beside the judge's copy and no part of this text's syntax).
    judge_text: Callable[[str], str] | None = None
    # The text (read with the language's parser) has syntax its grammar reads and its
    # judge does not (JSX for node): then the judge's complaints are no verdict.
    beyond_judge: Callable[[str, "tree_sitter.Parser"], bool] | None = None
    # Its judge reports one error at a time (CPython): the search sees only the first,
    # and checks that need the whole list of problems do not apply.
    one_error_at_a_time: bool = False
    # Its judge names the line where each error begins, even one it noticed only at the
    # end of the file, and names an unclosed bracket itself (CPython: "'(' was never
    # closed"): its lines are taken as said, not guessed from the layout.
    judge_names_where_errors_begin: bool = False
    # Python's own tokenize module lexes it, indentation included, for edit sizes.
    python_tokens: bool = False
    # Indentation is syntax: re-indenting a line changes what the text means.
    indentation_is_syntax: bool = False
    # Its grammar reports a line indented too deep lines before it (tree-sitter-yaml),
    # so such lines near the problem are worth an edit too.
    deep_indent_reported_early: bool = False
    # Its grammar's recovery loses its place after an error (tree-sitter-yaml; tree-sitter-bash
    # reports a ``then`` lost on line 57 at line 6): where the
    # judge has read past a line, tree-sitter's objection to it counts for nothing there.
    grammar_loses_place: bool = False
    # Its judge reads the whole file and reports every error it meets (a C compiler):
    # where it reports, tree-sitter's objections to other lines are its own grammar's
    # (a macro it cannot expand, directives inside an enum), not errors the judge missed.
    judge_reports_every_error: bool = False
    # Statements its grammar lets stand at a file's top level (a snippet's), where the
    # language allows only items there (Rust's ``let``): problems wherever tree-sitter judges.
    not_at_top_level: tuple[str, ...] = ()
    # The family of edit proposals of its own ("python", "shell"), or "" for none.
    edit_family: str = ""
    # For a name typed after a token (the lines, the line's number, the token): the
    # names of the elements still open there, innermost first, when the token begins
    # a closer (``</``): what a closer that lost its name closes.
    open_names: Callable[[list[str], int, str], list[str]] | None = None
    # Its here-document's operator where a line may not end on it: the next line's first
    # word would become the document's delimiter (the shell's ``<<``; "" for none).
    heredoc_operator: str = ""
    # What opens its here-documents (the shell's and Ruby's ``<<``, PHP's ``<<<``): an
    # edit with one on its lines is read by the guard as one with a quote is, since a
    # document it opens makes text of the lines below.
    heredoc_marks: tuple[str, ...] = ()
    # Node types of its grammar that mark text read as a mistake without an ERROR
    # (HTML's ``erroneous_end_tag``: an end tag that no open element matches). A file
    # may hold some and be valid; an edit that adds one is no repair.
    misread_nodes: tuple[str, ...] = ()
    # For a problem the judge reports where a construct ends (the lines, its line,
    # column and message): the line above it where that construct began, when the
    # mistake may lie anywhere between (an end tag that found elements left open
    # inside its own: where its element opened), else None.
    begins_above: Callable[[list[str], int, int, str], int | None] | None = None

    def tools_for(self, source: str) -> tuple[str, ...]:
        """The external judges to look for, for ``source``."""
        return self.judges_for(source) if self.judges_for is not None else self.judges


# The interpreter a "#!" line names: "/usr/bin/env -S python3.11 -u" -> "python".
_SHEBANG = re.compile(r"^#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?([A-Za-z_+.-]+?)(?:[0-9.]*)(?:\s|$)")


def interpreter(first_line: str) -> str | None:
    """The interpreter named on a ``#!`` line, lower case, without its version."""
    match = _SHEBANG.match(first_line)
    return match.group(1).lower() if match else None
