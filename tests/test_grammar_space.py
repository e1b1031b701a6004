"""The candidate space derived from each grammar: its vocabulary, the spelling
neighbourhood, the edits proposed around an error, and repairs it makes exactly."""

from __future__ import annotations

import re
import shutil
from collections import Counter

import pytest

from fake_llm import FakeLLM
from scripted import run, suggested
from tinycode import judges, repair
from tinycode.check import Problem, check, source_lines
from tinycode.engine.candidates import suggest
from tinycode.engine.edits import Edit
from tinycode.engine.guard import hides_code
from tinycode.engine.grammar_space import early_edits, late_edits, spelling_neighbours, vocabulary
from tinycode.spelling import distance


@pytest.mark.parametrize("language, keywords, symbols", [
    ("python", {"def", "return", "else", "lambda"}, {"(", ":", "->", "**"}),
    ("javascript", {"function", "return", "const", "typeof"}, {"=>", "===", "{", ";"}),
    ("c", {"return", "struct", "while"}, {"->", "&&", ";"}),
    ("json", set(), {"{", ":", ","}),
])
def test_vocabulary_is_the_grammars_own_tokens(language, keywords, symbols):
    words, marks = vocabulary(language)
    assert keywords <= set(words) and symbols <= set(marks)
    assert not set(words) & set(marks)
    assert all(" " not in t and "\n" not in t for t in words + marks)


def test_distance_counts_a_transposition_as_one_edit():
    assert distance("retrun", "return") == 1
    assert distance("esle", "else") == 1
    assert distance("fucntion", "function") == 1
    assert distance("whle", "while") == 1
    assert distance("abc", "xyz") == 3


def test_spelling_neighbours_put_keywords_first_then_the_files_names():
    keywords, _ = vocabulary("python")
    assert spelling_neighbours("retrun", keywords, Counter())[0] == "return"
    assert spelling_neighbours("Return", keywords, Counter())[0] == "return"
    names = Counter({"counter": 3, "count": 1})
    assert "counter" in spelling_neighbours("coutner", keywords, names)
    assert "count" not in spelling_neighbours("coutn", keywords, names)  # used once: no evidence
    assert spelling_neighbours("x", keywords, names) == []  # too short to be anyone's typo


def test_early_edits_respell_swap_and_join_at_the_error():
    source = "def f(x):\n    if x:\n        retrun x\n    return 0\n"
    lines = source_lines(source)
    problems = tuple(check(source, "python").problems)
    descriptions = [e.description for e in early_edits(lines, problems, "python")]
    assert "line 3: respell 'retrun' as 'return'" in descriptions
    assert any("join" in d for d in descriptions)
    swapped = "int f(void) {\n  return 1;\n})\n;\n"  # two marks swapped: early
    problems = tuple(check(swapped, "c").problems)
    assert any("swap" in e.description for e in early_edits(source_lines(swapped), problems, "c"))


def test_swaps_with_the_files_names_come_late():
    source = "def f(x):\n    return (x\n"
    lines = source_lines(source)
    problems = tuple(check(source, "python").problems)
    name_swap = "line 2: swap '(' and 'x'"
    assert name_swap not in [e.description for e in early_edits(lines, problems, "python")]
    assert name_swap in [e.description for e in late_edits(lines, problems, "python")]


def test_late_edits_insert_and_substitute_grammar_tokens_near_the_error():
    source = "let a = [1, 2 3];\n"
    lines = source_lines(source)
    problems = tuple(check(source, "javascript").problems)
    edits = list(late_edits(lines, problems, "javascript"))
    texts = {e.new_lines[0] for e in edits}
    assert "let a = [1, 2, 3];" in texts
    assert any(e.description.startswith("line 1: replace") for e in edits)


@pytest.mark.parametrize("language, broken, fixed", [
    ("python", "def f(x):\n    if x:\n        retrun x\n    esle:\n        return 0\n",
     "def f(x):\n    if x:\n        return x\n    else:\n        return 0\n"),
    ("javascript", "fucntion f(x) {\n  return x + 1;\n}\n", "function f(x) {\n  return x + 1;\n}\n"),
    ("c", "int main(void) {\n  int x = 1;\n  retrun x;\n}\n", "int main(void) {\n  int x = 1;\n  return x;\n}\n"),
    ("json", "{\n  \"a\": 1,\n  'b': 2\n}\n", "{\n  \"a\": 1,\n  \"b\": 2\n}\n"),
])
def test_the_search_finds_the_exact_respelling(language, broken, fixed):
    found = [c.source_after for c in suggest(broken, language)]
    assert fixed in found


@pytest.mark.parametrize("name, broken, fixed", [
    ("a.py", "def double(x):\n    retrun x * 2\n\n\nprint(double(2))\n",
     "def double(x):\n    return x * 2\n\n\nprint(double(2))\n"),
    ("a.js", "fucntion double(x) {\n  return x * 2;\n}\nconsole.log(double(2));\n",
     "function double(x) {\n  return x * 2;\n}\nconsole.log(double(2));\n"),
])
def test_fix_restores_a_misspelt_keyword_exactly(capsys, tmp_path, model, name, broken, fixed):
    path = tmp_path / name
    path.write_text(broken)
    code, _, _ = run(capsys, "fix", str(path))
    assert code == 0
    assert path.read_text() == fixed


# --- what the compiler can verify where tree-sitter is misled ---------------------

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
EVEN = lambda prompt, text: 0.0  # noqa: E731

HEAP = """// Constructors of the heap.

#ifdef HEAP_CLASS_C_DEC

HEAP_CLASS_T_DEC
HEAP_CLASS_C_DEC::
pairing_heap()
{ HEAP_ASSERT_VALID((*this)) }

HEAP_CLASS_T_DEC
HEAP_CLASS_C_DEC::
pairing_heap(const Cmp_Fn& r_cmp_fn)
: base_type(r_cmp_fn)
{ HEAP_ASSERT_VALID((*this)) }

HEAP_CLASS_T_DEC
void
HEAP_CLASS_C_DEC::
swap(HEAP_CLASS_C_DEC& other)
{
  HEAP_ASSERT_VALID((*this))
  base_type::swap(other);
}

#endif
"""


@needs_gxx
def test_a_directive_never_closed_is_repaired_where_its_closer_was_mistyped():
    # g++ reports the #ifdef where it opens; the #endif typed backwards is 22 lines
    # below, and putting it back uncovers macro code tree-sitter cannot parse.
    source = HEAP.replace("#endif\n", "endif#\n")
    assert check(source, "cpp").problems[0].message == "unterminated #ifdef"
    result = repair(source, "cpp", llm=FakeLLM(scorer=EVEN))
    assert result.status == "fixed" and result.source == HEAP


SLOTS = """#include <Python.h>

static PyObject *language(PyObject *self, PyObject *args) {
    return PyCapsule_New(tree_sitter_x(), "tree_sitter.Language", NULL);
}

static struct PyModuleDef_Slot slots[] = {
#ifdef Py_GIL_DISABLED
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL}
};
"""


@needs_gcc
def test_a_fix_tree_sitter_misreads_below_still_reaches_the_compiler():
    # Once ']' is back, tree-sitter stumbles on the #ifdef inside the initialiser two
    # lines below; gcc, which knows directives, accepts the file.
    source = SLOTS.replace("slots[]", "slots[)")
    result = repair(source, "c", llm=FakeLLM(scorer=EVEN))
    assert result.status == "fixed" and result.source == SLOTS


FRAGMENT = """/* These pointers are kept in a table for the
   other modules to use
*/

void *table_api[] = {
        (void *) table_version,
        NULL,
        (void *) &table_type,
        (void *) table_lookup,
};
"""


@needs_gcc
def test_names_a_fragment_never_declares_are_not_the_repairs_doing():
    # While the comment is broken gcc skips the whole declaration; repaired, it reads
    # on and finds names the fragment never declares, on lines the repair left alone.
    source = FRAGMENT.replace("/* These", "/ These")
    result = repair(source, "c", llm=FakeLLM(scorer=EVEN))
    assert result.status == "fixed" and result.source == FRAGMENT


def test_a_value_left_out_is_one_the_lines_around_use():
    clean = "[tool]\nstrict = true\nwarn_unused = true\nwarn_return = true\n"
    source = clean.replace("warn_unused = true", "warn_unused = ")
    found = [c.source_after for c in suggest(source, "toml") if c.fixes_all]
    assert clean in found


@pytest.mark.parametrize("text, col, new, expected", [
    ("x = ", 3, "true", "x = true"),  # no blank left at the end of the line
    ("f(a)", 2, "b", "f(b a)"),
    ("if x:", 0, "elif", "elif if x:"),
    ("a b", 1, "+", "a+ b"),
])
def test_an_inserted_word_is_spaced_as_a_person_types_it(text, col, new, expected):
    from tinycode.engine.grammar_space import _line_edit, _spaced

    assert _line_edit(1, text, col, "", _spaced(text, col, new), "insert").new_lines == [expected]


@pytest.mark.parametrize("text, col, old, expected", [
    ("    return total total", 17, "total", "    return total"),  # no blank left at the end
    ("  a b c", 4, "b", "  a c"),  # one blank, not two
    ("x = = 1", 4, "=", "x = 1"),
    ("run  run(a)", 5, "run", "run(a)"),  # none before an opening bracket
])
def test_a_deleted_token_leaves_the_blanks_a_person_would(text, col, old, expected):
    from tinycode.engine.grammar_space import _delete

    assert _delete(1, text, col, old, "delete").new_lines == [expected]


def test_a_mark_is_inserted_spaced_as_the_file_spaces_it():
    from tinycode.engine.grammar_space import Spacing, _inserts, vocabulary

    lines = ["const first = 1;", "const second = 2;", "const third 3;"]
    spacing = Spacing(lines, vocabulary("javascript")[1])
    assert spacing.spaced("=") == (True, True) and spacing.spaced(";") == (False, False)
    texts = [e.new_lines[0] for e in _inserts(3, lines[2], len("const third"), "=", spacing)]
    assert texts[0] == "const third = 3;"


def test_a_stray_mark_before_a_blank_leaves_the_blank():
    from tinycode.engine.grammar_space import _delete

    assert _delete(1, "  -$ *location", 3, "$", "delete").new_lines == ["  - *location"]


def test_a_string_closed_with_the_other_quote_is_looked_for_where_it_opened():
    # tree-sitter notices lines below, where the next quote ends what the wrong one began
    lines = ["<?php", "class T {", "  function a() {", "    $this->fail('Failed\", Api::FAILED);", "  }",
             "", "  function b() {", "    $this->fail('NotFound', Api::NOT_FOUND);", "  }", "}"]
    problems = tuple(check("\n".join(lines) + "\n", "php").problems)
    assert problems[0].line > 4
    fixed = [e for e in early_edits(lines, problems, "php") if e.line == 4 and e.new_lines[0].count("'") == 2]
    assert fixed and fixed[0].new_lines == ["    $this->fail('Failed', Api::FAILED);"]


TOKENS_JS = """const src = []
const createToken = (name, value) => {
  src.push(value)
}

createToken('MAIN', `(${src[1]})\\\\.` +
                    `(${src[2]})\\\\.` +
                    `(${src[3]})`)
createToken('LOOSE', `(${src[4]})\\\\.`)
"""


def test_no_stray_quote_is_seen_in_a_word_s_apostrophe_or_a_docstring_s_quotes():
    lines = ['def f():', '    """Set it to \'\\r\\n\', you\'ll see.', '    """', '    return 1 2']
    problems = (Problem(4, 14, 4, 15, "unexpected '2'", "2", "error", "tree-sitter"),
                Problem(2, 1, 3, 8, "unexpected", "", "error", "tree-sitter"))
    assert not [e for e in early_edits(lines, problems, "python") if "stray" in e.description]


def test_a_quote_typed_into_a_string_is_taken_away():
    broken = TOKENS_JS.replace("`(${src[2]})\\\\.`", "`(${src[2]})\\\\`.`")
    assert broken != TOKENS_JS
    found = suggested(broken, "javascript")
    assert found and found[0].source_after == TOKENS_JS  # not the string quoted with '"'


@pytest.mark.parametrize("language, quoted", [("c", False), ("java", False), ("go", False), ("javascript", True)])
def test_a_string_of_several_characters_is_quoted_with_the_other_quote_only_where_that_makes_no_character(
        language, quoted):
    lines = ['x = f("language", 1 2);']
    problems = (Problem(1, 22, 1, 23, "unexpected '2'", "2", "error", "tree-sitter"),)
    made = {e.new_lines[0] for e in early_edits(lines, problems, language)}
    assert ("x = f('language', 1 2);" in made) == quoted


def _php_class(broken_line: str) -> str:
    """A PHP class of thirty methods that reach their fields through ``->``, with
    ``broken_line`` in the middle one."""
    methods = [f"  public function get{n}() {{\n    return $this->pb->get{n}();\n  }}\n" for n in range(30)]
    methods[15] = f"  public function getTime() {{\n{broken_line}\n  }}\n"
    return "<?php\nclass Timer {\n" + "".join(methods) + "}\n"


def test_familiar_edits_put_the_token_the_file_has_between_the_same_neighbours_first(tree_sitter_only):
    from tinycode.engine.grammar_space import familiar_edits

    source = _php_class("    return $this->pb getTime();")
    lines = source_lines(source)
    problems = tuple(check(source, "php").problems)
    first = [e.new_lines for e in familiar_edits(lines, problems, "php")][:2]
    assert ["    return $this->pb->getTime();"] in first  # blanks as the file has them
    css = "".join(f".c{n} {{\n  font-weight: bold;\n  margin-top: {n}px;\n}}\n" for n in range(20))
    css += ".x {\n  font style: normal;\n}\n"
    problems = tuple(check(css, "css").problems)
    first = next(familiar_edits(source_lines(css), problems, "css"))
    assert first.new_lines == ["  font-style: normal;"]


def test_of_complete_repairs_the_one_in_the_files_own_contexts_comes_first(tree_sitter_only):
    source = _php_class("    return $this->pb getTime();")
    found = [c for c in suggest(source, "php", limit=10) if c.fixes_all]
    assert len(found) > 1  # `;`, `.` and `->` all parse
    assert found[0].source_after == _php_class("    return $this->pb->getTime();")


def test_a_short_snippet_has_no_habits_to_rank_by():
    from tinycode.engine.grammar_space import contexts_of

    from tinycode.engine.grammar_space import familiar_edits

    assert not contexts_of("def f(x):\n    if x:\n        return x\n", "python").enough
    snippet = "def top(path):\n    counts = Counter(words(handle.read())\n    return counts\n"
    assert list(familiar_edits(source_lines(snippet), tuple(check(snippet, "python").problems), "python")) == []
    assert contexts_of(_php_class("    return 1;"), "php").enough


def test_a_sentence_wrapped_out_of_its_comment_goes_back_into_it():
    source = ("function f(x) {\n  // These urls are sometimes login urls so we have to\n"
              "  turn off redaction to standard output\n  return x;\n}\n")
    lines = source_lines(source)
    problems = tuple(check(source, "javascript").problems)
    joined = [e.new_lines for e in early_edits(lines, problems, "javascript") if "join" in e.description]
    assert ["  // These urls are sometimes login urls so we have to turn off redaction to standard output"] in joined
    # A sentence with its own marks: a version number, a parenthesis, a quoted word.
    source = ('# Licensed under\nthe Apache License, Version 2.0 (the "License");\n'
              '# you may not use this file except in compliance with it.\necho ok\n')
    joined = [e.new_lines for e in early_edits(source_lines(source), tuple(check(source, "bash").problems), "bash")
              if "join" in e.description]
    assert ['# Licensed under the Apache License, Version 2.0 (the "License");'] in joined
    snippet = "def main():\n    #addstr(str(x))\n    getch()enter code here\n    return 0\n"  # a call is code
    problems = tuple(check(snippet, "python").problems)
    assert not any("#addstr" in "".join(e.new_lines) and "getch" in "".join(e.new_lines)
                   for e in early_edits(source_lines(snippet), problems, "python") if "join" in e.description)
    code = "function f(x) {\n  // add one\n  x = x +\n  return x;\n}\n"  # code is never commented out
    problems = tuple(check(code, "javascript").problems)
    assert not any("//" in "".join(e.new_lines) and "x = x" in "".join(e.new_lines)
                   for e in early_edits(source_lines(code), problems, "javascript") if "join" in e.description)


def test_a_python_string_closed_with_the_other_quote_gets_its_own_back():
    # tree-sitter-python's lexer keeps its quotes to itself: the file's quotes are used.
    source = 'def main():\n    pass\n\n\nif __name__ == "__main__\':\n    main()\n'
    problems = tuple(check(source, "python").problems)
    edits = [e.new_lines for e in early_edits(source_lines(source), problems, "python")]
    assert ['if __name__ == "__main__":'] in edits


def test_edits_on_different_lines_compare_as_the_whole_files_would():
    # A long line that is rare in the file stays as rare once repaired: what counts is
    # what the edit changes, not how unusual the line was, or a junk edit on a common
    # short line would look more at home than the repair of the rare one.
    from tinycode.engine.grammar_space import contexts_of

    body = "".join(f"  total = add(total, {n});\n" for n in range(40))
    rare = '  report.render({title: "t"}, [1, 2], (x) => x ? y : z);'
    broken = "function f() {\n" + body + rare.replace('"t"}', '"t"') + "\n}\n"
    lines = broken.split("\n")
    at = next(n for n, line in enumerate(lines) if "report" in line)
    repaired = lines[:at] + [rare] + lines[at + 1:]
    junk = lines[:5] + [lines[5].replace("add(", "add(;")] + lines[6:]
    contexts = contexts_of(broken, "javascript")
    assert contexts.enough and contexts.unseen(repaired) < contexts.unseen(junk)


def test_a_closer_that_lost_its_name_gets_that_of_the_element_still_open():
    from tinycode.languages.html import open_names

    rows = "".join(f'      <li class="item"><a href="/p/{n}">Page {n}</a></li>\n' for n in range(30))
    page = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n  <title>T</title>\n"
            "  <script>if (a < b) { x = '<div>'; }</script>\n</head>\n<body>\n  <div class=\"main\">\n"
            "    <!-- <section> -->\n    <ul>\n" + rows + "    </ul>\n  </div>\n</body>\n</>\n")
    lines = source_lines(page)
    assert open_names(lines, len(lines), "</") == ["html"]  # void, raw-text and commented tags aside
    assert open_names(lines, 13, "</") == ["ul", "div", "body", "html"]
    assert open_names(lines, 13, "<") == []  # only a closer's name
    found = suggest(page, "html")
    assert found[0].source_after == page.replace("</>", "</html>")


def test_a_line_break_is_looked_for_where_each_parser_reports():
    # CPython reports the tuple's first line ("Perhaps you forgot a comma?"); tree-sitter
    # the comment's wrapped words, where the break was typed.
    rows = "".join(f"    '\\x{n:02x}'     #  0x{n:02X} -> CONTROL CHARACTER\n" for n in range(20))
    source = ("decoding_table = (\n" + rows + "    '\\x20'     #  0x20 ->\n    DATA LINK ESCAPE\n"
              + rows.replace("CONTROL", "OTHER") + ")\n")
    result = check(source, "python")
    assert result.problems[0].line == 2 and any(p.line == 23 for p in result.problems[1:3])
    found = suggest(source, "python", result=result)
    assert found and found[0].source_after == source.replace("->\n    DATA", "-> DATA")


# A header whose macros tree-sitter does not know, its #endif typed onto the line before.
_DECLS = "".join(f"extern int check_{n} (void (*abort_{n})(enum status)) __THROW;\n" for n in range(8))
_ENUM = "enum status\n  {\n    DISABLED = -1,   /* not turned on.  */\n    OK,              /* fine.  */\n  };\n\n"
HEADER = "#ifndef _X_H\n#define _X_H 1\n\n#include <features.h>\n\n__BEGIN_DECLS\n\n" + _ENUM + _DECLS + \
    "\n__END_DECLS\n#endif /* x.h */\n"
HEADER_JOINED = HEADER.replace("__END_DECLS\n#endif", "__END_DECLS #endif")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_an_edit_where_a_long_tree_sitter_error_ends_goes_to_the_judge():
    from tinycode.engine import candidates as C

    broken = HEADER_JOINED
    lines = source_lines(broken)
    joined = next(n for n, line in enumerate(lines, 1) if line.startswith("__END_DECLS #endif"))
    split = Edit(joined, 1, ["__END_DECLS", lines[joined - 1][len("__END_DECLS "):]], f"line {joined}: split")
    judge = C._ReparseVerdicts(C._Node(lines, True, tuple(check(broken, "c").problems), (), 0), "c")
    # tree-sitter sees the same error over the same lines after the split as before it
    assert judge.verdict(split) == C.FIXED


# A script whose blocks close on lines of their own, one closer typed onto the line before.
SCRIPT = ("#!/bin/bash\nset -e\n\nif [ -n \"$A\" ]; then\n    echo a\nfi\n\n"
          "for f in *.txt; do\n    wc -l \"$f\"\ndone\n\n"
          "if [ -n \"$B\" ]; then\n    export B\n    unset OLD_B\nfi\n\nwhile read -r x; do\n    echo \"$x\"\ndone\n")


def _long_script() -> str:
    """SCRIPT and four more of its blocks: long enough to have habits."""
    return SCRIPT + "".join(SCRIPT.split("\n", 2)[2].replace("$A", f"$A{n}").replace("$B", f"$B{n}")
                            for n in range(4))


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_a_closer_typed_onto_the_line_before_goes_back_to_a_line_of_its_own():
    script = _long_script()
    broken = script.replace("unset OLD_B\nfi", "unset OLD_B fi", 1)
    found = suggested(broken, "bash")
    assert found and found[0].source_after == script  # not another `fi` inserted


def test_a_line_typed_onto_a_block_opener_is_split_off_with_the_files_indentation():
    methods = "".join(f"    def m{n}(self):\n        return {n}\n\n" for n in range(4))
    fixed = "class A:\n    def f(self, x):\n        return x\n\n" + methods + "\nclass B(A):\n" + methods
    broken = fixed.replace("class A:\n    def f", "class A: def f")
    found = suggest(broken, "python")
    assert found and found[0].source_after == fixed


def test_a_line_that_begins_with_a_token_lines_end_with_is_split_after_it():
    from tinycode.engine.grammar_space import lost_breaks

    # Ruby's ``end`` ends this file's lines: ``end self`` is a block's end with the
    # method's last line typed onto it.
    body = "".join(f"  def m{n}(x)\n    x.each do |y|\n      y\n    end\n    self\n  end\n\n" for n in range(3))
    fixed = f"class A\n{body}end\n"
    lines = source_lines(fixed.replace("    end\n    self\n  end\n\n  def m1", "    end self\n  end\n\n  def m1"))
    problems = tuple(check("\n".join(lines), "ruby").problems)
    assert problems
    assert any(e.applied(lines) == source_lines(fixed) for e in lost_breaks(lines, problems, "ruby"))


def test_each_reported_error_has_its_nearest_places_to_split_in_turn():
    from tinycode.engine.grammar_space import lost_breaks

    # Imports full of ``{`` and ``}`` around a misspelt ``usse`` are many places near
    # that error; the function's header typed onto a comment far below, near the other
    # error, is one place, and is tried among the first.
    imports = "".join(f"use std::m{n}::{{self, T{n}}};\n" for n in range(3))
    body = "".join(f"fn f{n}(x: u32) -> u32 {{\n    x + {n}\n}}\n\n" for n in range(10))
    text = ("usse std::a::{self, A};\n" + imports + "\n" + body
            + "// Adds one. fn g(x: u32) -> u32 {\n" + "    let x = x + 1;\n" * 20 + "    x\n}\n")
    lines = source_lines(text)
    problems = (Problem(len(lines) - 1, 1, len(lines) - 1, 1, "unexpected closing delimiter: `}`",
                        source="rustfmt --check"), Problem(1, 1, 1, 1, "unexpected 'std'"))
    splits = [e.new_lines for e in lost_breaks(lines, problems, "rust")]
    assert ["// Adds one.", "fn g(x: u32) -> u32 {"] in splits


def test_line_breaks_come_from_the_files_own_habits_not_from_names():
    from tinycode.engine.grammar_space import lost_breaks

    # `}` begins this file's lines; a name may begin any line and splits nothing
    body = "".join(f"function f{n}(x) {{\n  return x + {n};\n}}\n\n" for n in range(4))
    lines = source_lines(body.replace("return x + 2;\n}", "return x + 2; }") + "let a = b c;\n")
    problems = tuple(check("\n".join(lines), "javascript").problems)
    splits = [e.new_lines for e in lost_breaks(lines, problems, "javascript")]
    assert ["  return x + 2;", "}"] in splits
    assert not any(new[-1].strip() == "c;" for new in splits)
    # a sentence in a comment is no code typed onto it
    prose = source_lines(body + "// when done } the loop ends and we go on to the next one\nlet a = b c;\n")
    problems = tuple(check("\n".join(prose), "javascript").problems)
    assert not any("when done" in new[0] for new in
                   (e.new_lines for e in lost_breaks(prose, problems, "javascript")))


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
@pytest.mark.parametrize("typo", ["fii", "Fi"])
def test_a_keyword_misspelt_far_above_where_the_block_is_noticed_open_is_respelt(typo):
    script = _long_script()
    broken = script.replace("    echo a\nfi", f"    echo a\n{typo}", 1)  # noticed at the end of the file
    assert check(broken, "bash").problems[0].line > 60
    found = suggested(broken, "bash")
    assert found and found[0].source_after == script  # not another `fi` inserted below it


def test_where_the_file_breaks_its_lines_is_learnt_from_its_code_not_its_comments():
    fixed = ('import contextlib\n\n\ndef run(tasks, delay):\n    """Run the tasks with a delay."""\n'
             "    # order: first to last; each one: after the one before it\n    for task in tasks:\n"
             "        # the event: set by the task itself, when done: see start()\n"
             "        if task.previous is not None:\n            with contextlib.suppress(TimeoutError):\n"
             "                task.previous.wait(delay)\n        task.start()\n    return tasks\n")
    broken = fixed.replace("not None:\n            with", "not None: with")
    lines = source_lines(broken)
    problems = tuple(check(broken, "python").problems)
    from tinycode.engine.grammar_space import lost_breaks

    first = next(lost_breaks(lines, problems, "python"))
    assert first.applied(lines) == source_lines(fixed)  # the comments' colons are no code's


def test_a_keyword_in_another_case_is_respelt_though_the_file_has_the_word_as_a_name():
    from tinycode.engine.grammar_space import early_edits

    source = ("package p\n\nfunc Func(fn *Node) {\n\tVisit(fn.Body, Func(n Node) {\n\t\tn.Walk()\n\t})\n}\n\n"
              "func Other() {\n\tFunc(nil)\n}\n")
    lines = source_lines(source)
    problem = Problem(4, 23, 4, 23, "missing ',' in argument list", kind="compiler", source="gofmt -e")
    found = [e.new_lines for e in early_edits(lines, (problem,), "go")]
    assert ["\tVisit(fn.Body, func(n Node) {"] in found


def test_a_comment_s_line_split_inside_a_quoted_span_is_joined_back():
    from tinycode.engine.grammar_space import early_edits

    lines = source_lines("let c = 1\n// `\n${c} === undefined` +\n// done\nlet d = 2\n")
    problem = Problem(3, 1, 3, 1, "Unexpected keyword or identifier.", kind="compiler", source="typescript parser")
    found = [e.new_lines for e in early_edits(lines, (problem,), "typescript")]
    assert ["// `${c} === undefined` +"] in found
    # not a line that opens a string below a comment with an apostrophe
    lines = source_lines("let c = 1\n// don't\nx = 'abc\nlet d = 2\n")
    problem = Problem(3, 5, 3, 5, "Unterminated string literal.", kind="compiler", source="typescript parser")
    assert not any(e.new_lines[0].startswith("// don't x") for e in early_edits(lines, (problem,), "typescript"))


def test_a_word_of_a_comment_or_of_a_header_s_name_is_no_misspelt_keyword():
    from tinycode.engine.grammar_space import early_edits

    body = "".join(f"int f{n}(int x) {{\n  return x + {n};\n}}\n\n" for n in range(3))
    source = ("#include <bits/sigevent-consts.h>\n/* To optimize, see\n   the notes.  */\n" + body
              + "/* Return the sum.  */\nint g(int a, int b) {\n  retrun a + b;\n}\n" + body.replace("f", "h"))
    lines = source_lines(source)
    line = lines.index("  retrun a + b;") + 1
    problem = Problem(line + 8, 1, line + 8, 1, "expected ';'", kind="compiler", source="gcc -fsyntax-only")
    respelt = [e.description for e in early_edits(lines, (problem,), "c") if e.rule == "keyword-typo"]
    assert respelt == [f"line {line}: respell 'retrun' as 'return'"]
    # nor on the error's own lines (``If`` is ``if`` in another case)
    lines = source_lines("/* If not, print an error.  */\nint f(void) {\n  return 1\n}\n")
    problem = Problem(2, 1, 2, 1, "expected ';'", kind="compiler", source="gcc -fsyntax-only")
    assert not any(e.line == 1 and "respell" in e.description for e in early_edits(lines, (problem,), "c"))


def test_the_line_that_reads_unlike_the_file_is_searched_where_the_parser_notices_late():
    from tinycode.engine.grammar_space import _odd_line

    arms = "".join(f"        -{c})\n            opt_{c}=\"$2\"\n            shift\n            ;;\n" for c in "abcdefgh")
    script = "#!/bin/bash\n" + "".join(f"case \"${name}\" in\n" + arms + "esac\n" for name in ("1", "2", "3", "mode"))
    lines = source_lines(script.replace('case "$2" in', "$prev in"))
    odd = lines.index("$prev in") + 1
    problem = Problem(odd + 3, 9, odd + 3, 9, "syntax error near unexpected token `)'", kind="compiler",
                      source="bash -n")
    assert _odd_line(lines, problem, "bash") == [odd]  # three lines above the report


def test_a_string_closed_with_the_other_quote_is_found_under_an_error_over_the_whole_file():
    methods = "".join(f"    /** Returns {n}: it can't fail. */\n    int m{n}() {{\n        return {n};\n    }}\n\n"
                      for n in range(8))
    fixed = ("/* A class. */\npublic class A {\n" + methods
             + "    void fail() {\n        throw new IllegalStateException(\"closed\");\n    }\n\n" + methods.replace(
                 "int m", "int n") + "}\n")
    broken = fixed.replace('("closed");', "(\"closed');")
    found = suggest(broken, "java")
    assert found and found[0].source_after == fixed


def test_code_typed_onto_a_comment_of_the_language_s_other_marker_is_split_off():
    from tinycode.engine.grammar_space import lost_breaks

    rows = "".join(f"    'k{n}' => array('v{n}', 'w{n}'),\n" for n in range(6))
    fixed = ("<?php\nclass Table {\n  protected static $rows = array(\n" + rows
             + "    # the last one is special-cased\n    # with its own message.\n  );\n\n"
             + "  public function get($k) {\n    return self::$rows[$k];\n  }\n}\n")
    broken = fixed.replace("message.\n  );", "message. );")
    lines = source_lines(broken)
    problem = Problem(14, 1, 14, 1, 'syntax error, unexpected token "public", expecting ")"',
                      kind="compiler", source="php -l")
    splits = [[line.strip() for line in e.applied(lines)] for e in lost_breaks(lines, (problem,), "php")]
    assert [line.strip() for line in source_lines(fixed)] in splits  # PHP's '#' marks a comment as its '//' does


def test_a_line_below_a_comment_marker_with_nothing_after_it_is_joined_to_it():
    from tinycode.engine.grammar_space import _joins, vocabulary

    lines = ["exports.run = run;", "//", "# sourceMappingURL=run.js.map"]
    joined = [e.applied(lines) for e in _joins(lines, 3, "javascript", *vocabulary("javascript"))]
    assert ["exports.run = run;", "//# sourceMappingURL=run.js.map"] in joined \
        or ["exports.run = run;", "// # sourceMappingURL=run.js.map"] in joined
    lines = ["exports.run = run;", "// the map", "# sourceMappingURL=run.js.map"]
    assert not list(_joins(lines, 3, "javascript", *vocabulary("javascript")))  # code, not the comment's rest


def test_a_keyword_in_another_case_is_respelt_as_the_one_fewest_letters_away():
    from tinycode.engine.grammar_space import keyword_typo

    assert keyword_typo("End", "ruby") == "end"  # not Ruby's END
    assert keyword_typo("BEGIn", "ruby") == "BEGIN"


def test_a_comment_s_markup_around_its_words_is_prose():
    from tinycode.engine.grammar_space import prose

    keywords, symbols = vocabulary("ruby")
    assert prose("realm+ with +user+ and +password+", keywords, symbols)
    assert not prose("total = realm + user", keywords, symbols)


def test_words_a_slash_joins_are_prose_and_go_back_into_their_comment():
    from tinycode.engine.grammar_space import prose

    keywords, symbols = vocabulary("java")
    assert prose("the save/restore calls and/or others", keywords, symbols)
    assert not prose("total / count", keywords, symbols)
    source = ("final class Feedback {\n    private final int size;\n\n    // variables\n"
              "    for save/restore calls\n    private byte[] saved = null;\n}\n")
    lines = source_lines(source)
    joined = [e.new_lines for e in early_edits(lines, tuple(check(source, "java").problems), "java")
              if "join" in e.description]
    assert ["    // variables for save/restore calls"] in joined


def test_an_address_split_before_its_dot_is_joined_back_without_a_blank():
    from tinycode.engine.grammar_space import _joins

    lines = ["// If not, see", "// <http://www.gnu", ".org/licenses/>.", "", "#ifndef X"]
    first = next(_joins(lines, 3, "cpp", *vocabulary("cpp")))
    assert first.applied(lines)[:2] == ["// If not, see", "// <http://www.gnu.org/licenses/>."]


@pytest.mark.parametrize("language, lines, whole", [
    # A file's extension, a member's dot, a tag's '<': each goes against what it belongs to.
    ("bash", ["for file in .vscode/tasks.json .vscode/launch", ".json", "do"],
     "for file in .vscode/tasks.json .vscode/launch.json"),
    ("javascript", ["const n = items", ".length;"], "const n = items.length;"),
    ("html", ["<p>T: <a href=\"s.html\">Sized<", "/a>,</p>"], "<p>T: <a href=\"s.html\">Sized</a>,</p>"),
])
def test_a_line_split_against_a_mark_is_joined_back_without_a_blank_first(language, lines, whole):
    from tinycode.engine.grammar_space import _joins

    first = next(_joins(lines, 2, language, *vocabulary(language)))
    assert first.applied(lines)[0] == whole


EXCEPTIONS = """#include <stdexcept>

namespace pbds
{
  /**
   *  @defgroup exceptions-pbds Exceptions
   *  @ingroup pbds
   *  @{
   */

  /// Base class for exceptions.
  struct container_error : public std::logic_error
  {
    container_error()
    : std::logic_error("pbds::container_error") { }
  };

  /// An entry cannot be inserted into a container object for logical
  /// reasons (not, e.g., if memory is unavailable, in which case
  /// the allocator's exception will be thrown).
  struct insert_error : public container_error { };

  /// A join cannot be performed logical reasons (i.e., the ranges of
  /// the two container objects being joined overlap.
  struct join_error : public container_error { };

  /// A container cannot be resized.
  struct resize_error : public container_error { };
  ///@}
} // namespace pbds
"""


@needs_gxx
def test_a_block_comment_opener_with_a_character_typed_into_it_is_made_whole():
    # ``/\\**``: the comment's lines read as code down to a closer that closes nothing;
    # making the opener whole hides only the comment's own lines.
    source = EXCEPTIONS.replace("  /**\n", "  /\\**\n")
    assert not check(source, "cpp").ok
    assert not hides_code(source, EXCEPTIONS, "cpp")
    result = repair(source, "cpp", llm=FakeLLM(scorer=EVEN))
    assert result.status == "fixed" and result.source == EXCEPTIONS
    # The opener made whole where the next closer ends another comment hides code.
    code = "int a;\n/x* int b;\n/* note */\nint c;\n"
    assert hides_code(code, code.replace("/x*", "/*"), "cpp")


def test_a_comment_s_line_that_stops_on_a_quoted_word_is_joined_to_the_rest_of_its_sentence():
    # "as is" ends the comment's line, not its sentence: the words below are its rest.
    source = ('// Permission to use, copy and distribute this software is hereby granted.\n'
              '// It is provided "as is"\nwithout express or implied\n// warranty.\n\nint main(void)\n{\n'
              '  return 0;\n}\n')
    problems = tuple(check(source, "cpp").problems)
    joined = [e.new_lines for e in early_edits(source_lines(source), problems, "cpp") if "join" in e.description]
    assert ['// It is provided "as is" without express or implied'] in joined


def test_a_comment_split_right_after_its_marker_is_joined_back_with_the_blanks_its_neighbours_have():
    # The split leaves ``#`` with nothing after it; the rest reads as code inside the
    # tuple, which CPython reports at its first line.
    rows = "".join(f"    '\\x{n:02x}'     #  0x{n:02X} -> CONTROL CHARACTER\n" for n in range(20))
    clean = "decoding_table = (\n" + rows + "    '\\x20'     #  0x20 -> SPACE\n" + rows.replace("CONTROL", "OTHER") + ")\n"
    source = clean.replace("#  0x20 -> SPACE", "#\n    0x20 -> SPACE")
    result = check(source, "python")
    assert result.problems[0].line == 2
    found = suggest(source, "python", result=result)
    assert found and found[0].source_after == clean


def test_a_sentence_that_names_a_pattern_s_escape_is_still_a_sentence():
    source = ("// ECMAScript whitespace\nand line terminators matched by \\s.\nconst WHITESPACE = '\\\\s'\n"
              "module.exports = { WHITESPACE }\n")
    problems = tuple(check(source, "javascript").problems)
    joined = [e.new_lines for e in early_edits(source_lines(source), problems, "javascript") if "join" in e.description]
    assert ["// ECMAScript whitespace and line terminators matched by \\s."] in joined


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a shell")
def test_a_comment_s_line_split_before_the_closer_of_its_bracket_is_joined_back_against_it():
    from fake_llm import FakeLLM

    from tinycode import repair

    clean = ('#!/bin/sh\n# Licensed under the Apache License, Version 2.0 (the "License");\n'
             '# you may not use this file except in compliance with the License.\nset -e\necho "start"\n')
    broken = clean.replace('"License");', '"License"\n);')
    fixed = repair(broken, "bash", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed" and fixed.source == clean


COUNTER_JS = """class Counter {
  constructor() { this.count = 0 }
  inc(step) { this.count += step; return this }
  twice(step) {
    this.inc(step)
    return this.inc(step)
  }
}
module.exports = Counter
"""


@pytest.mark.parametrize("slip", [
    ("    this.inc(step)\n    return", "    .thisinc(step)\n    return"),  # the '.' swapped with 'this'
    ("    this.inc(step)\n    return", "    thisinc.(step)\n    return"),  # ... with 'inc'
])
def test_a_mark_swapped_with_the_word_beside_it_goes_back_into_the_seam(slip):
    from fake_llm import FakeLLM

    from tinycode import repair

    broken = COUNTER_JS.replace(*slip)
    assert not check(broken, "javascript").ok
    # (a model that finds a word the file never has unlikely: 'thisinc', the '.' deleted)
    known = set(re.findall(r"\w+", COUNTER_JS))
    fixed = repair(broken, "javascript", llm=FakeLLM(scorer=lambda prompt, text: -sum(
        word not in known for word in re.findall(r"\w+", text))))
    assert fixed.status == "fixed" and fixed.source == COUNTER_JS
