from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scripted import first_restores, first_suggested, suggested
from tinycode import judges
from tinycode.check import Problem
from tinycode.engine.candidates import suggest
from tinycode.engine.verifier import Verifier
from tinycode.languages import get_parser
from tinycode.engine.proposals import proposals
from tinycode.check import check
from tinycode.config import Settings
from tinycode.engine.edits import Edit, replace_lines, token_distance

ROOT = Path(__file__).resolve().parent.parent


def _assert_consistent(source: str, language: str, candidates) -> None:
    before = len(check(source, language).problems)
    for c in candidates:
        # The line-range replacement reproduces the candidate's source.
        assert replace_lines(source, c.edit.line, c.edit.end_line, c.edit.text) == c.source_after
        after = check(c.source_after, language)
        assert len(after.problems) == c.problems_after < before or c.problems_after == 0
        assert c.fixes_all == after.ok


def test_clean_source_has_no_candidates():
    assert suggest("x = 1\n", "python") == []


def test_missing_colon_is_fixed_with_one_token():
    source = "def area(w, h)\n    return w * h\n"
    found = suggest(source, "python")
    assert found and found[0].fixes_all
    assert "def area(w, h):" in found[0].source_after
    assert found[0].edit.size == 1 == token_distance(source, found[0].source_after)
    _assert_consistent(source, "python", found)


def test_python2_print_becomes_a_call():
    source = "for name in names:\n    print name, len(name)\n"
    found = suggest(source, "python")
    assert "    print(name, len(name))" in found[0].source_after.splitlines()


def test_bracket_never_closed_on_the_previous_line():
    source = "total = sum(values\nprint(total)\n"
    found = suggest(source, "python")
    assert any(c.source_after == "total = sum(values)\nprint(total)\n" for c in found)
    _assert_consistent(source, "python", found)


def test_two_missing_commas_need_two_edits():
    source = "items = [1 2 3]\n"
    found = suggest(source, "python")
    assert found and found[0].fixes_all
    assert found[0].source_after == "items = [1, 2, 3]\n"
    assert found[0].edit.size == 2


def test_unexpected_indent_on_first_line():
    source = "    import os\nprint(os.sep)\n"
    found = suggest(source, "python")
    assert found[0].source_after == "import os\nprint(os.sep)\n"


def test_limit_is_honoured_and_results_are_distinct():
    source = "values = [1, 2, 3\n"
    found = suggest(source, "python", limit=2)
    assert 1 <= len(found) <= 2
    assert len({c.source_after for c in found}) == len(found)


def test_tree_sitter_language_missing_semicolon():
    source = "int main(void) {\n    int x = 1\n    return x;\n}\n"
    found = suggest(source, "c")
    assert any(c.source_after == source.replace("= 1\n", "= 1;\n") for c in found)
    _assert_consistent(source, "c", found)


def test_javascript_missing_paren():
    source = "function f(a) {\n  if (a > 1 {\n    return a;\n  }\n}\n"
    found = suggest(source, "javascript")
    assert any("if (a > 1) {" in c.source_after for c in found)
    assert all(c.fixes_all for c in found)


def test_an_unclosed_bracket_reported_elsewhere_is_closed_on_its_own_line(tree_sitter_only):
    # tree-sitter-ruby reports this as one ERROR from the first line of the file.
    clean = (ROOT / "examples" / "ruby" / "clean.rb").read_text()
    source = clean.replace("@items = []", "@items = [", 1)
    assert check(source, "ruby").problems[0].line < source[:source.index("@items = [")].count("\n")
    found = suggest(source, "ruby")
    assert any(c.source_after == clean for c in found)
    _assert_consistent(source, "ruby", found)


@pytest.mark.parametrize("broken_line, fixed_line", [
    ("    steps\n", "    steps:\n"),  # a lost colon: the next line is deeper for no reason
    ("      steps:\n", "    steps:\n"),  # a key pushed in under a plain value
    ("        - run: python -m pytest\n", "      - run: python -m pytest\n"),  # a second value
])
def test_yaml_indentation_mistakes_reported_lines_earlier_are_found(broken_line, fixed_line):
    clean = (ROOT / "examples" / "yaml" / "clean.yaml").read_text()
    source = clean.replace(fixed_line, broken_line, 1)
    tree_sitter = [p for p in check(source, "yaml").problems if p.source == "tree-sitter"]
    assert source != clean and tree_sitter[0].line < 8  # tree-sitter points at "jobs:"
    found = suggest(source, "yaml")
    assert any(c.source_after == clean for c in found)
    _assert_consistent(source, "yaml", found)


def test_a_lost_closing_quote_is_tried_early_when_the_unexpected_text_holds_a_quote(tree_sitter_only):
    from tinycode.check import source_lines
    from tinycode.engine.proposals import proposals

    clean = (ROOT / "examples" / "php" / "clean.php").read_text()
    source = clean.replace("'-', $slug", "'-, $slug", 1)
    problems = check(source, "php").problems
    assert "'" in problems[0].text or '"' in problems[0].text
    lines = source_lines(source)
    order = [e for e in proposals(lines, problems, "php")]
    fixed = [n for n, e in enumerate(order)
             if "\n".join(lines[:e.line - 1] + e.new_lines + lines[e.line - 1 + e.span:]) + "\n" == clean]
    assert fixed and fixed[0] < 60  # before the hundreds of token edits on the anchor lines


def test_an_attribute_value_that_lost_its_closing_quote_gets_it_back_before_the_tag_ends():
    clean = ('<h2><a name="Install">Installing</a></h2>\n\n<p>Read the notes first.</p>\n<ul>\n'
             '  <li>See the <a href="doc/install.html">install\n    guide</a> for details.</li>\n</ul>\n')
    source = clean.replace('"Install">', '"Install>', 1)
    problems = check(source, "html").problems
    assert problems and problems[0].line > 1  # the string ends at the next quote, lines below
    found = suggest(source, "html")
    assert found and found[0].source_after == clean


LOST_CLOSER_C = """int count(const int *v, int n)
{
    int total = 0;
    for (int i = 0; i < n; i++) {
        if (v[i] > 0) {
            total += v[i];
        }
        if (v[i] < -100) {
            return -1;
        }
    }
    return total;
}

int main(void)
{
    int v[2] = {1, 2};
    return count(v, 2);
}
"""


@pytest.mark.parametrize("judged", [True, False], ids=["gcc", "tree-sitter"])
def test_a_block_that_lost_its_closer_gets_it_back_where_its_body_ends(judged, request):
    if not judged:
        request.getfixturevalue("tree_sitter_only")
    source = LOST_CLOSER_C.replace("            total += v[i];\n        }\n", "            total += v[i];\n\n")
    problems = check(source, "c").problems
    assert problems[0].line > 9  # reported where the function should have ended, or later
    found = suggest(source, "c")
    assert found and found[0].source_after == LOST_CLOSER_C


def test_a_lost_closer_goes_before_what_followed_it_on_its_line():
    clean = ('{\n  "name": "demo",\n  "keywords": [\n    "parser",\n    "repair"\n  ],\n'
             '  "license": "MIT",\n  "files": [\n    "dist"\n  ]\n}\n')
    source = clean.replace('    "repair"\n  ],', '    "repair"\n  ,')
    found = suggest(source, "json")
    assert found and found[0].source_after == clean


def test_an_opener_typed_twice_inside_a_long_enclosing_block_is_deleted(tree_sitter_only):
    rules = "".join(f"  .note-{n} {{\n    color: black;\n  }}\n" for n in range(20))
    clean = "@media print {\n" + rules + "}\n"
    source = clean.replace(".note-17 {", ".note-17 {{")  # the block's opener is 50 lines above
    # A second mistake: the deletion alone is progress, which must not look like
    # unbalancing the brackets of its window.
    second = clean.replace(".note-19 {\n    color:", ".note-19 {\n    color")
    source = source.replace(".note-19 {\n    color:", ".note-19 {\n    color")
    # Six lines apart, the two are repaired one after another, as the loop does.
    found = suggest(source, "css")
    assert any(c.source_after == second for c in found)
    assert any(c.source_after == clean for c in suggest(second, "css"))


def test_a_closer_with_no_opener_gets_one_before_it():
    source = "const total = sum(values, 0));\nconsole.log(total);\n"
    found = suggest(source, "javascript")
    assert found and all(c.fixes_all for c in found)
    assert any(c.source_after.startswith("const total = sum((values, 0));") or
               c.source_after.startswith("const total = (sum(values, 0));") for c in found)


def test_a_long_file_is_compiled_whole_only_for_the_first_fix_of_its_window(monkeypatch):
    import builtins

    block = "def f{n}(text):\n    counts = count(words(text.read()))\n    return counts\n\n\n"
    blocks = [block.replace("{n}", str(n)) for n in range(1000)]
    blocks[500] = blocks[500].replace("read()))", "read())")
    source = "".join(blocks)
    whole: list[int] = []
    real_compile = builtins.compile

    def counting(text, *args, **kwargs):
        if isinstance(text, str) and text.count("\n") > 1000:
            whole.append(1)
        return real_compile(text, *args, **kwargs)

    monkeypatch.setattr(builtins, "compile", counting)
    found = suggest(source, "python")
    assert len([c for c in found if c.fixes_all]) >= 2  # several ways to close the bracket
    assert len(whole) <= 2  # the broken file's own verdict is remembered; then one fix
    assert all(check(c.source_after, "python").ok for c in found if c.fixes_all)


@pytest.mark.parametrize("lines", [100, 5000])
def test_cost_does_not_grow_with_the_file(lines, monkeypatch):
    # Proposals are compiled on a window around the error; the whole file only to
    # confirm the fix chosen.
    import tinycode.engine.candidates as candidates

    block = "def f{n}(x):\n    if x > {n}:\n        return x\n    return -x\n\n\n"
    blocks = [block.replace("{n}", str(n)) for n in range(lines // 6)]
    middle = len(blocks) // 2
    blocks[middle] = blocks[middle].replace(f"if x > {middle}:", f"if x > {middle}")
    source = "".join(blocks)
    compiled: list[int] = []
    real_compile = candidates._compile_error
    monkeypatch.setattr(candidates, "_compile_error", lambda text, language: compiled.append(text.count("\n"))
                        or real_compile(text, language))
    found = suggest(source, "python")
    assert found[0].fixes_all and f"if x > {middle}:" in found[0].source_after
    assert found[0].edit.line == found[0].edit.end_line == middle * 6 + 2
    whole = [n for n in compiled if n > candidates._WINDOW_ABOVE + candidates._WINDOW_BELOW]
    assert len(whole) <= (2 if lines > candidates.WINDOW_FROM else len(compiled))


def test_long_tree_sitter_file_is_judged_incrementally(tree_sitter_only, monkeypatch):
    # Every proposal is judged by re-parsing the edited tree; only the few survivors
    # are checked as whole files (the cost on a 5,000-line file).
    import tinycode.engine.candidates as candidates

    block = "function f{n}(x) {{\n  if (x > {n}) {{\n    return x;\n  }}\n  return -x;\n}}\n"
    blocks = [block.format(n=n) for n in range(850)]
    blocks[400] = blocks[400].replace("if (x > 400)", "if (x > 400")
    source = "".join(blocks)
    whole_file_checks = []
    real_check = candidates.check
    monkeypatch.setattr(candidates, "check", lambda *a, **k: whole_file_checks.append(1) or real_check(*a, **k))
    found = suggest(source, "javascript")
    assert any("if (x > 400) {" in c.edit.text and c.fixes_all for c in found)
    assert len(whole_file_checks) <= candidates.MAX_SURVIVORS + 1


def test_string_closed_where_its_last_word_ends():
    source = 'console.log("hello world);\nlet x = 1;\n'
    found = suggest(source, "javascript")
    assert any(c.edit.text == 'console.log("hello world");' for c in found)


def test_a_busy_machine_gets_the_same_candidates(monkeypatch):
    # Every clock racing ahead (a loaded machine, a hook during a build) must not cut
    # the search short: its budget is counted in checks made.
    import time as time_module

    source = "def total(values)\n    result = [v * 2 for v in values\n    return sum(result\n"
    idle = [(c.edit.description, c.source_after) for c in suggest(source, "python")]
    clock = [0.0]

    def racing() -> float:
        clock[0] += 5.0
        return clock[0]

    for name in ("perf_counter", "thread_time", "process_time"):
        monkeypatch.setattr(time_module, name, racing)
    busy = [(c.edit.description, c.source_after) for c in suggest(source, "python")]
    assert idle and busy == idle


def test_the_search_budget_is_counted_in_checks():
    source = "def total(values)\n    result = [v * 2 for v in values\n    return sum(result\n"
    assert suggest(source, "python", work=3) != suggest(source, "python")
    assert suggest(source, "python", work=3) == suggest(source, "python", work=3)


def test_a_parser_error_above_a_string_left_open_surfaces_when_the_string_is_closed():
    # CPython reports the string left open on line 5 first, though the ':' lost on
    # line 1 comes before it: closing the string reveals that error, which was there.
    source = "def area(w, h)\n    return w * h\n\n\nlabel = 'area\nprint(label)\n"
    found = suggest(source, "python")
    assert [c.source_after for c in found if c.fixes_all] == [
        "def area(w, h):\n    return w * h\n\n\nlabel = 'area'\nprint(label)\n"]


def test_a_string_left_open_below_an_edit_does_not_hide_the_error_the_edit_made():
    # Deleting the stray ']' would leave "res = " (a parser error), which CPython reports
    # only once the string on line 3 is closed: the bracket is given its partner instead.
    source = "res = ]\nprint(res)\nx = 'abc\n"
    found = suggest(source, "python")
    assert found and all(c.fixes_all and "]" in c.source_after.splitlines()[0] for c in found)


def test_a_line_knocked_out_of_its_block_goes_back_to_the_level_of_an_enclosing_block():
    # Long enough for the search to judge a window around the error, which must hold
    # the block the line left.
    body = ["def classify(items):", "    out = []", "    for item in items:", "        if not item:",
            "            out.append('empty')", "elif item == '!':", "            out.append('bang')",
            "        else:", "            out.append(item)", "    return out", ""]
    source = "\n".join([f"value_{n} = {n}" for n in range(45)] + body)
    found = [c for c in suggest(source, "python") if c.fixes_all]
    assert found and found[0].source_after == source.replace("\nelif", "\n        elif")


def test_a_block_that_lost_its_opener_gets_it_where_the_block_begins():
    # gofmt reports the first statement of the body ("expected declaration, found
    # 'for'"), lines below the header; the stray "}" ends a block still laid out as one.
    lines = ["package main", "", "// Example sums a few values.", "func Example() ", "\t// The values,",
             "\t// then their sum.", "", "\tsum := 0"] + ["\tsum += 1"] * 70 + ["\tfmt.Println(sum)", "}", ""]
    problems = (Problem(8, 2, 8, 5, "expected declaration, found sum", kind="compiler", source="gofmt -e"),)
    edits = [e for e in proposals(lines, problems, "go") if e.line == 4]
    assert any(e.new_lines == ["func Example() {"] for e in edits)
    # Not for a closer that follows code on its line, nor above a block not laid out as one.
    flat = [line.lstrip() for line in lines]
    assert not any(e.line == 4 for e in proposals(flat, problems, "go"))


@pytest.mark.parametrize("broken, fixed", [
    # A Python 2 print with a trailing comment: the call closes before the comment.
    ('print "total", total  # the sum\n', 'print("total", total)  # the sum\n'),
    # A keyword used as a name wherever it stands as one, renamed in one edit.
    ("del = []\nfor x in range(3):\n    del.append(x)\n", "del_ = []\nfor x in range(3):\n    del_.append(x)\n"),
    # A dict entry written as an assignment (the spacing around the '=' is kept).
    ("d = {'a' = 1, 'b': 2}\n", "d = {'a' : 1, 'b': 2}\n"),
    # Brackets of the wrong kind around the error.
    ("d = [1: 'one', 2: 'two']\n", "d = {1: 'one', 2: 'two'}\n"),
    # A comprehension whose tuple target lost its parentheses.
    ("pairs = [a, b for a, b in items]\n", "pairs = [(a, b) for a, b in items]\n"),
    # A call written without its parentheses.
    ("for i in range n:\n    print(i)\n", "for i in range(n):\n    print(i)\n"),
    # Several brackets left open together, closed together.
    ("print(max(len(x)\n", "print(max(len(x)))\n"),
    # Every '=' of a condition meant as '=='.
    ("if a = 1 and b = 2:\n    pass\n", "if a == 1 and b == 2:\n    pass\n"),
    # A keyword used as a name, also where it is tested or compared.
    ("class = 'a'\nif class:\n    print(class)\n", "class_ = 'a'\nif class_:\n    print(class_)\n"),
    # Declarations from another language, the declaring word on every line.
    ("var total = 0\nvar count = 0\n", "total = 0\ncount = 0\n"),
    # Words pasted before a statement on its line.
    ("please help import os\nprint(os.sep)\n", "import os\nprint(os.sep)\n"),
    # Items of a multi-line list each missing the comma after it.
    ("rows = [\n    {\n        'a': 1\n    }\n    {\n        'a': 2\n    }\n    {\n        'a': 3\n    }\n]\n",
     "rows = [\n    {\n        'a': 1\n    },\n    {\n        'a': 2\n    },\n    {\n        'a': 3\n    }\n]\n"),
    # A mismatched closer: the opener's own closer before it, the line's last closer after.
    ("names = list(map(str, [x.strip() for x in lines)\n", "names = list(map(str, [x.strip() for x in lines]))\n"),
    # A pasted block longer than a repair may change: only the lines that begin statements move.
    ("import os\n    paths = [\n        'a',\n        'b',\n    ]\n    for p in paths:\n        # show it\n"
     "        print(os.path.basename(p))\n    print(len(paths))\n    print('done')\n",
     "import os\npaths = [\n        'a',\n        'b',\n    ]\nfor p in paths:\n        # show it\n"
     "    print(os.path.basename(p))\nprint(len(paths))\nprint('done')\n"),
    # A keyword left alone at the end of a line, with nothing after it: deleted.
    ("import sys\nfrom\nprint(sys.argv)\n", "import sys\n\nprint(sys.argv)\n"),
    # A number given as a module's name, renamed wherever it stands as that name.
    ("import 3\nresult = 3.compute(4)\n", "import _3\nresult = _3.compute(4)\n"),
    # A hash pasted without its quotes.
    ("session = {'key': 9af3b2c1e}\n", "session = {'key': '9af3b2c1e'}\n"),
    # Once the bad literal is a string, the dict entry's '=' it hid before it on the line.
    ("headers = {'id'=4c2e9f0a}\n", "headers = {'id':'4c2e9f0a'}\n"),
    # Once an unexpected indent is repaired, the bracket it hid that was never closed.
    ("import os\n    paths = sorted(os.listdir('.'),\n        key=len\n",
     "import os\npaths = sorted(os.listdir('.'),\n        key=len)\n"),
])
def test_python_mistakes_that_take_more_than_one_token(broken, fixed):
    assert fixed in [c.source_after for c in suggest(broken, "python") if c.fixes_all]


# A Go function of 60 lines that lost its "{": gofmt objects only at its first
# statement, and the closer that now closes nothing lies 60 lines further down.
LOST_FUNCTION_OPENER = ("package main\n\nimport \"fmt\"\n\nfunc Example() \n\t// counts\n\tconst n = 3\n"
                        "\tfor i := 0; i < n; i++ {\n"
                        + "".join(f"\t\tif i == {k} {{\n\t\t\tfmt.Println({k})\n\t\t}}\n" for k in range(20))
                        + "\t}\n}\n")


def test_a_block_that_lost_its_opener_gets_it_back_before_the_edits_around_the_report():
    from tinycode.check import source_lines

    lines = source_lines(LOST_FUNCTION_OPENER)
    report = Problem(8, 2, 8, 5, "expected declaration, found 'for'", "compiler", "for")
    order = [e.description for e in proposals(lines, (report,), "go")]
    assert order.index("line 5: insert '{'") < 3


def test_a_block_opener_put_back_is_not_taken_for_an_unmatched_bracket():
    from tinycode.check import source_lines
    from tinycode.engine.edits import Edit

    lines = source_lines(LOST_FUNCTION_OPENER)
    verifier = Verifier("go")
    assert not verifier.unbalances(lines, Edit(5, 1, ["func Example() {"], "line 5: insert '{'"))
    # An opener with no closer anywhere below still is one.
    assert verifier.unbalances(lines, Edit(7, 1, ["\tconst n = (3"], "line 7: insert '('"))


def test_a_bracket_left_open_above_the_window_is_an_error_that_was_there_before():
    """CPython reports the mismatch far below first; once it is repaired, the bracket
    left open lines above the search's window is reported: an error of the original,
    not one the edit made. Both are found."""
    filler = "".join(f"def helper_{i}(value):\n    return value + {i}\n\n\n" for i in range(12))
    broken = ("import json\n\n\ndef dump(obj, fp):\n    fp.write(json.dumps((obj))\n    return fp\n\n\n" + filler
              + "def load(fp: list[str, **kwargs: int) -> str:\n    return fp.read()\n")
    fixes = [c for c in suggest(broken, "python") if c.fixes_all]
    assert fixes and min(token_distance(broken, c.source_after, "python") for c in fixes) <= 4


def test_a_problem_past_the_last_line_gets_proposals_without_error():
    lines = ["{", '  "a": [1, 2', "}"]
    at_the_end = Problem(4, 1, 4, 1, "Expecting ',' delimiter", "compiler", "")
    assert list(proposals(lines, (at_the_end,), "json"))


def test_the_banded_token_distance_equals_the_full_one_below_its_cap():
    import random

    from tinycode.engine.edits import _levenshtein

    def full(a: list[str], b: list[str]) -> int:
        previous = list(range(len(b) + 1))
        for i, x in enumerate(a, 1):
            current = [i]
            for j, y in enumerate(b, 1):
                current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
            previous = current
        return previous[-1]

    rng = random.Random(7)
    for _ in range(500):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 30))]
        b = list(a)
        for _ in range(rng.randint(0, 10)):
            k = rng.randint(0, len(b))
            if rng.random() < 0.5 or not b:
                b.insert(k, rng.choice("abcdef"))
            else:
                del b[min(k, len(b) - 1)]
        cap = rng.choice([1, 2, 4, 50])
        assert _levenshtein(a, b, cap) == min(full(a, b), cap)


JAVA_STATS = ("class Stats {\n    private double sum;\n    private long count;\n\n"
              "    public void accept(double value) {\n        sum += value;\n        ++count;\n    }\n\n"
              "    public void accept(int value) {\n        accept((double) value);\n    }\n}\n")


def test_of_the_edits_that_make_progress_those_that_unmatch_a_bracket_in_the_file_go():
    from tinycode.engine.candidates import _balanced, _Node

    # A closure's '}' lacks its ';' 50 lines below its '{': deleting the '}' also quiets
    # the judge there (the next error it reports is further down), but leaves the '{'.
    body = [line for k in range(16) for line in (f"    if ($name === 'k{k}') {{", f"      return {k};", "    }")]
    lines = ["<?php", "$lookup = function ($name) {"] + body + ["    return -1;", "}", "", "if ($x) {", "  f(($x);", "}"]
    closer = lines.index("}")
    root = _Node(lines, True, (), (), 0)
    inserted = lines[:closer] + ["};"] + lines[closer + 1:]
    deleted = lines[:closer] + [""] + lines[closer + 1:]
    nodes = [_Node(deleted, True, (), (), 0), _Node(inserted, True, (), (), 1)]
    assert [n.lines for n in _balanced(nodes, root, "php")] == [inserted]
    assert _balanced(nodes, root, "python") == nodes  # CPython names its brackets itself
    assert _balanced(nodes[:1], root, "php") == nodes[:1]  # nothing better to keep


def test_a_re_parse_costs_the_search_the_parsers_own_work():
    from tinycode.engine.candidates import _Node, _ReparseVerdicts

    def verdicts(lines: list[str]) -> _ReparseVerdicts:
        return _ReparseVerdicts(_Node(lines, True, check("\n".join(lines) + "\n", "css").problems, (), 0), "css")

    short = ["a { color: red; }", "b { color: blue }}"]
    long = [f".rule-{n} {{ color: red; }}" for n in range(400)] + short
    costs = []
    for lines in (short, long):
        counted = verdicts(lines)
        counted._parse(("\n".join(lines) + "\n").encode())
        costs.append(counted.cost)
    assert costs[0] == 1 and costs[1] > 1
    # The count is the parser's work, not the time it took: the same text costs the same.
    again = verdicts(long)
    again._parse(("\n".join(long) + "\n").encode())
    assert again.cost == costs[1]


def test_errors_far_apart_are_searched_one_at_a_time(tree_sitter_only):
    # Two slips 40 lines apart: the search returns the step that repairs the first,
    # not a deeper search for both at once; the loop repairs the second after it.
    rules = [f".note-{n} {{\n  color: black;\n  margin-top: {n}px;\n}}\n" for n in range(24)]
    clean = "".join(rules)
    broken = clean.replace(".note-2 {\n  color: black;", ".note-2 {\n  color black;") \
                  .replace(".note-20 {\n  color: black;", ".note-20 {\n  color black;")
    found = suggest(broken, "css")
    assert found and not any(c.fixes_all for c in found)
    first = clean.replace(".note-20 {\n  color: black;", ".note-20 {\n  color black;")
    assert first in [c.source_after for c in found]
    assert any(c.source_after == clean for c in suggest(first, "css"))


def test_the_problems_near_the_first_locate_its_edits():
    # CPython's tokenizer reports the ')' whose opener a '#' commented out; tree-sitter
    # also sees the misspelt words far above, and lists them first. What it sees near
    # CPython's error is what puts the '#' among the lines searched.
    fillers = "".join(f"    x{n} = {n}\n" for n in range(12))
    source = ("cclass Codec:\n    pass\n\n\nclas Encoder:\n    pass\n\n\nclass Decoder;\n    pass\n\n\n"
              "def table():\n" + fillers + "    return codecs.#CodecInfo(\n        name='x',\n        encode=1,\n    )\n")
    result = check(source, "python")
    assert result.problems[0].message == "SyntaxError: unmatched ')'"
    assert [p.line for p in result.problems[1:4]] == [1, 5, 9]
    found = suggested(source, "python", result=result)
    assert any("line 26: delete '#'" in c.edit.description for c in found)


def test_a_repair_that_clears_its_place_ends_the_search_for_it(monkeypatch, tree_sitter_only):
    # Two mistakes far apart, the second beyond any small edit: once an edit repairs the
    # first and leaves nothing near it, only alternatives are looked for (as after a
    # complete fix), not every edit of the budget; the loop repairs the rest in its own step.
    import tinycode.engine.candidates as candidates

    body = "".join(f"\tx{n} := add(x, {n})\n\t_ = x{n}\n" for n in range(30))
    source = ("package main\n\nFunc run(x int) int {\n" + body + "\treturn x\n}\n\nfunc other(y int) int {\n"
              + body.replace("x", "y") + "\treturn y ]] ) ( {{ 7 7\n}\n")
    drawn = []
    original = candidates.proposals

    def counted(*args, **kwargs):
        for edit in original(*args, **kwargs):
            drawn.append(edit)
            yield edit
    monkeypatch.setattr(candidates, "proposals", counted)
    found = suggest(source, "go")
    assert found[0].edit.description == "line 3: respell 'Func' as 'func'" and found[0].problems_after == 1
    assert len(drawn) <= candidates.LOOK_FURTHER + 50


# A stylesheet with what CSS allows and tree-sitter's grammar does not (an unquoted URL
# holding "?" and "&"), so its check blanks those before parsing.
_STYLES = "".join(f".box{n} {{ margin: {n}px; padding: 0 {n}px; }}\n" for n in range(12))
STYLESHEET = ("a.more { background: url(?cmd=resource&f=more.png) no-repeat; }\n" + _STYLES
              + ".hidden { display: none; }\n")


def test_edits_are_judged_on_the_text_the_check_reads():
    assert check(STYLESHEET, "css").ok
    broken = STYLESHEET.replace(".hidden", "..hidden")
    found = suggest(broken, "css")
    assert found and found[0].source_after == STYLESHEET


def test_a_deleted_token_leaves_the_blank_the_file_puts_between_its_neighbours():
    broken = STYLESHEET.replace("margin: 4px; padding: 0 4px; }", "margin: 4px; padding: 0 4px;, }")
    found = suggest(broken, "css")
    assert found and found[0].source_after == STYLESHEET  # "; }", as the file has it, not ";}"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_a_separator_before_the_closer_a_compiler_points_at_is_deleted():
    fixed = "int f(int a, int b);\n\nint g(void) {\n    return f(1, 2);\n}\n"
    broken = fixed.replace("f(1, 2)", "f(1, 2,)")
    result = check(broken, "c")
    assert result.problems[0].message.startswith("expected expression before ')'")
    first = [e.new_lines for e in proposals(broken.splitlines(), result.problems, "c")][:4]
    assert ["    return f(1, 2);"] in first


MODULE_C = """struct slot { int id; void *value; };
struct module { const char *name; int size; struct slot *slots; };

static struct slot slots[] = {
    {1, 0},
    {0, 0}
};

static struct module moduledef = {
    .name = "binding",
    .size = 0,
    .slots = slots,
};
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
@pytest.mark.parametrize("old, new", [
    # The mark it points at is a mistyped one it expected.
    ("slots[] = {", "slots[] == {"),
    # The name it expected follows the mark: the two were swapped.
    (".slots = slots", ".= slots slots"),
])
def test_the_token_a_compiler_expected_is_put_for_the_mark_it_points_at(old, new):
    broken = MODULE_C.replace(old, new, 1)
    result = check(broken, "c")
    assert result.problems[0].message.startswith("expected ")
    made = [e.applied(broken.split("\n")) for e in proposals(broken.split("\n"), result.problems, "c")
            if e.rule == "expected-token"]
    assert MODULE_C.split("\n") in made
    found = suggest(broken, "c", limit=3)
    assert found and found[0].source_after == MODULE_C


def test_the_mark_a_compiler_names_before_it_is_put_right_as_the_one_it_expected():
    # gcc's caret text runs on past the mark ('==s[0],'); its message names the mark.
    lines = ["int main(void) {", "    char s[2] = \"ab\";", "    char a==s[0], b==s[1];", "    return a + b;", "}"]
    problem = Problem(3, 11, 3, 11, "expected '=', ',', ';', 'asm' or '__attribute__' before '==' token",
                      "==s[0],", "compiler", "gcc -fsyntax-only")
    made = [e.new_lines[0] for e in proposals(lines, (problem,), "c") if e.rule == "expected-token"]
    assert made[0] == "    char a=s[0], b==s[1];"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_an_edit_tree_sitter_sees_only_as_progress_is_still_shown_to_the_judge():
    # tree-sitter reads `# aiocb` as a directive and its macros as errors: taking the `#`
    # out is progress to it, while the edits it calls complete spend the judge's runs.
    fixed = ("#include <stddef.h>\n#define __THROW\n"
             "#define __nonnull(params) __attribute__ ((__nonnull__ params))\n\n"
             "/* The control block of one request.  */\nstruct aiocb\n{\n  int aio_fildes;\n  size_t aio_nbytes;\n};\n\n"
             "/* Return status associated with AIOCBP.  */\n"
             "extern int aio_return (struct aiocb *__aiocbp) __THROW __nonnull ((1));\n\n"
             "/* Cancel the request.  */\nextern int aio_cancel (int __fildes, struct aiocb *__aiocbp) __THROW;\n")
    broken = fixed.replace("(struct aiocb *__aiocbp) __THROW __nonnull", "(struct# aiocb *__aiocbp) __THROW __nonnull")
    found = suggested(broken, "c")
    assert found and found[0].source_after == fixed


@pytest.mark.skipif(shutil.which("php") is None, reason="php not installed")
def test_a_string_closed_with_the_other_quote_far_above_the_judge_s_report_is_repaired_with_what_it_hid():
    # The string opened on line 3 runs on to the quote before 'mail', where php -l reports;
    # once it is closed, php reads the lines it held and reports 'public send()' among
    # them: an error of the file's own, not one the edit made.
    methods = "".join(f"  public function get{n}() {{\n    return $this->values[{n}];\n  }}\n\n" for n in range(6))
    fixed = ("<?php\nclass Mailer {\n  private static $blocked = array('addTo', 'addCc', 'addBcc');\n\n" + methods
             + "  public function send() {\n    $this->check($this->message);\n"
             + "    return $this->transport->deliver('mail', $this->message);\n  }\n}\n")
    broken = fixed.replace("'addBcc');", "'addBcc\");").replace("public function send()", "public send()")
    assert check(broken, "php").problems[0].line == 31
    found = suggested(broken, "php")
    assert found and found[0].source_after == fixed


def test_a_lost_mark_the_file_always_spaces_comes_back_with_its_blanks():
    body = "".join(f"    $v{n} = \"s{n}\" . $a;\n" for n in range(12))
    fixed = "<?php\nfunction f($a) {\n" + body + "    return $v1;\n}\n"
    broken = fixed.replace('$v5 = "s5"', '$v5 "s5"')
    found = suggested(broken, "php")
    assert any(c.source_after == fixed for c in found)  # "$v5 = ", not "$v5= "


# A licence in a block comment, then code: its words read as code once the comment's
# opener is lost.
LICENSED_JAVA = ("/*\n" + "".join(f" * Copyright line {n}: permission is granted, provided (a) and b.\n"
                                  for n in range(20))
                 + " */\npackage p;\n\npublic class Sizes extends RuntimeException {\n"
                 + "".join(f"    private static final long v{n} = {n}L;\n" for n in range(8))
                 + "    public Sizes(String s) {\n        super(s);\n    }\n}\n")

SCRIPT = "#!/bin/bash\nset -eu\n" + "".join(
    f"step{n}() {{\n  echo step {n}\n}}\nif [ -n $X{n} ]; then\n  step{n}\nfi\n" for n in range(8))


def _edited_tree(source: str, language: str, old: str, new: str):
    parser = get_parser(language)
    return parser.parse(source.encode()), parser.parse(source.replace(old, new, 1).encode()), len(new) - len(old)


PAGE = ('<html><head><script src="a.js"></script><noscript><link rel="stylesheet" href="b.css"></noscript>'
        "</head>\n<body>\n" + "".join(f'<p class="c{n}"><a href="#{n}">item {n}</a></p>\n' for n in range(30))
        + '<script src="c.js"></script>\n</body></html>\n')


@pytest.mark.parametrize("language, source, old, new", [
    ("bash", SCRIPT, "set -eu", "set<< -eu"),         # a here-document to the end
    ("bash", SCRIPT, "echo step 0", 'echo "step 0'),  # a string to the end
    ("html", PAGE, '"a.js"></script>', '"a.js"><script>'),  # the page raw text to the next </script>
    # a here-document to the end, taking in a block left open and a string left open
    ("bash", SCRIPT.replace("  step3\nfi\n", "  step3\n").replace("echo step 7", 'echo "step 7'),
     "set -eu", "set<< -eu"),
])
def test_an_edit_that_makes_much_of_the_file_one_token_swallows_it(language, source, old, new):
    assert Verifier(language).swallowed(*_edited_tree(source, language, old, new))


def test_a_comment_opener_put_back_over_a_licence_read_as_code_is_a_repair():
    broken = LICENSED_JAVA.replace("/*", "*/", 1)
    assert not Verifier("java").swallowed(*_edited_tree(broken, "java", "*/", "/*"))
    found = suggest(broken, "java")
    assert found and found[0].source_after == LICENSED_JAVA


# A struct whose body is there only under a condition (tree-sitter cannot read a
# declaration split by a conditional), then a directive typed onto the closing brace's line.
CONDITIONAL_STRUCT = """#ifndef MENU_H
#define MENU_H

typedef struct menu
#if !MENU_OPAQUE
  {
    int rows;
    int cols;
    char *mark;
  }
#endif
  MENU;

#ifdef WITH_KEYS
#define KEY_FIRST 1
#endif

extern int menu_rows(const MENU *);

#endif
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_a_directive_typed_onto_a_line_is_split_back_to_where_the_file_puts_directives():
    # tree-sitter's error only moves with the split; the compiler tells. The file puts
    # its directives at column 0, however deep the code around them.
    broken = CONDITIONAL_STRUCT.replace("    char *mark;\n  }\n#endif", "    char *mark;\n  } #endif")
    found = suggested(broken, "c")
    assert found and found[0].source_after == CONDITIONAL_STRUCT


CPP_HEADER_H = """#ifndef APP_H
#define APP_H

class App {
public:
  // Attributes to use for labels
  virtual int labels() const {
    return 4;
  }

  // Attributes to use for titles
  virtual int titles() const {
    return 6;
  }
};

#endif
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_a_cpp_header_named_as_c_is_read_as_cpp_by_the_search_too():
    # Its compiler is g++: the grammar that filters the edits must be C++'s as well,
    # or every line of the class is an error to it.
    from tinycode.engine.loop import repair

    broken = CPP_HEADER_H.replace("labels\n  virtual int labels", "labels virtual int labels")
    assert check(broken, "c").language == "cpp"
    result = repair(broken, "c")
    assert result.status == "fixed" and result.source == CPP_HEADER_H


def test_an_error_uncovered_far_below_is_no_progress_when_the_edit_made_the_lines_between_one_string(
        tree_sitter_only):
    from tinycode.check import source_lines
    from tinycode.engine.candidates import _key, _Node, _ReparseVerdicts
    from tinycode.engine.edits import Edit

    # A stray backquote on line 84, and a line joined into a comment on line 172.
    source = (Path(__file__).parent / "data" / "VmApiProxy.php").read_text()
    broken = source.replace("    ErrorCode::DEADLINE_EXCEEDED", "    ErrorCode::`DEADLINE_EXCEEDED").replace(
        "IgnoreStart\n    $serialized", "IgnoreStart $serialized")
    result = check(broken, "php")
    assert [p.line for p in result.problems][:1] == [84]
    lines = source_lines(broken)
    judge = _ReparseVerdicts(_Node(lines, True, result.problems, (), 0), "php")
    # '::' made '.' turns the backquote into a shell command running over 60 lines: the
    # next error tree-sitter sees is far below, but only because the lines between
    # became one string.
    dotted = Edit(84, 1, [lines[83].replace("::`", ".`")], "line 84: replace '::' with '.'")
    assert judge.verdict(dotted) is None and min(p.line for p in judge.seen[_key(dotted)]) > 84 + 6
    assert judge.verdict(Edit(84, 1, [lines[83].replace("`", "")], "line 84: delete '`'")) is not None


def test_a_token_an_edit_began_over_lines_read_as_code_is_no_repair():
    code = "".join(f"def step{i}(x)\n  y = x * {i}\n  y + {i}\nend\n" for i in range(6))
    ruby = "# frozen_string_literal: true\n#\n# A library\n" + code + "def ratio(a, b)\n  a / b\nend\n"
    parser = get_parser("ruby")
    # A '/' typed before the first comment makes a regular expression of 28 lines of code.
    assert Verifier("ruby").token_over_code(parser.parse(ruby.encode()), parser.parse(("/" + ruby).encode()), 0, 0, 0)
    # A comment's lost '/*' put back takes in lines tree-sitter could not read as code.
    licence = "".join(f" * Licensed under the terms number {i} of the licence, as it says.\n" for i in range(12))
    lost = licence + " */\nconst a = 1;\n"
    parser = get_parser("javascript")
    assert not Verifier("javascript").token_over_code(parser.parse(lost.encode()), parser.parse(("/*\n" + lost).encode()), 0, 0, 1)


def test_a_judge_that_reads_the_text_in_this_process_is_paid_for_from_the_search_budget(monkeypatch):
    # PyYAML has no process to count: each of its runs costs the search about a whole
    # parse, so a search no edit helps stops after as much work at any load.
    from tinycode.engine.candidates import WorkAccount

    entries = "".join(f"key{n}: 'value {n}'\nlist{n}:\n  - a{n}\n  - b{n}\n" for n in range(60))
    source = entries + "broken: ' # not a ''comment\"'.'\n" + entries.replace("key", "more")
    runs: list[int] = []
    real = judges._in_process
    monkeypatch.setattr(judges, "_in_process", lambda text, language: runs.append(1) or real(text, language))
    account = WorkAccount(3000)
    suggest(source, "yaml", work=3000, account=account)
    parse_units = 1 + len(source) // 200  # a whole parse of this text is about 40 units
    assert runs and len(runs) * parse_units <= account.spent


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_judges_runs_are_paid_for_from_the_repairs_work_account():
    # Each gcc run costs the repair's account what as long a search of its own would:
    # three mistakes no one edit repairs make the judge run on hundreds of versions,
    # and an account that holds a few runs ends the search after them.
    from tinycode.engine.candidates import JUDGE_RUN_UNITS, WorkAccount

    source = ("#include <stdio.h>\n\nint main(void) {\n    int total = 0;\n"
              "    for (int i = 0; i < 10; i++) {\n        total += i * 2 +;\n    }\n"
              '    printf("%d\\n", total) + ;\n    return total ? 0 ; 1;\n}\n')
    spent = {}
    for units in (10 ** 9, 20 * JUDGE_RUN_UNITS):
        with judges.account():
            account, before = WorkAccount(units), judges.calls()
            suggest(source, "c", account=account)
            spent[units] = judges.calls() - before
            # (and for the characters each run read)
            assert account.spent > account.searched + spent[units] * JUDGE_RUN_UNITS
    assert spent[10 ** 9] > 100 and spent[20 * JUDGE_RUN_UNITS] < 50


HEADER = """#ifndef GEOMETRY_H
#define GEOMETRY_H

struct point {
    int x;
    int y;
};

int distance(struct point a, struct point b);
int area(struct point corners[], int count);

#endif
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc names the conditional left unterminated")
@pytest.mark.parametrize("broken", [HEADER.replace("#endif\n", "#\n"), HEADER.replace("\n#endif\n", "\n")])
def test_a_conditional_reported_unterminated_gets_its_endif_back_at_the_end(broken):
    # gcc reports the ``#ifndef`` on line 1; the ``#endif`` it lost belongs at the end,
    # not in place of the guard (``#define GEOMETRY_H`` twice also compiles).
    found = suggest(broken, "c")
    assert found and found[0].fixes_all
    assert found[0].source_after.startswith("#ifndef GEOMETRY_H\n")
    assert found[0].source_after.rstrip("\n").endswith("#endif")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc names the conditional left unterminated")
def test_a_directive_cut_to_its_hash_below_an_unterminated_conditional_is_its_endif():
    # "#ifndef HAVE_POINT" is reported unterminated; the lone '#' (the null directive,
    # valid) four lines below it is what is left of its '#endif'
    inner = HEADER.replace("struct point {", "#ifndef HAVE_POINT\nstruct point {").replace(
        "};\n\nint distance", "};\n#\n\nint distance")
    found = suggest(inner, "c")
    assert found and found[0].fixes_all
    assert found[0].source_after == inner.replace("};\n#\n", "};\n#endif\n")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc names the conditional left unterminated")
def test_a_directive_with_a_letter_glued_on_below_an_unterminated_conditional_is_its_endif():
    # "# endif$" is one unknown directive to gcc ('$' is a letter in its names), which in
    # a group it skips says nothing: the outer "#ifndef" is reported unterminated.
    inner = HEADER.replace("struct point {", "# ifdef HAVE_POINT\nstruct point {").replace(
        "};\n\nint distance", "};\n# endif\n\nint distance")
    broken = inner.replace("# endif\n", "# endif$\n")
    assert "unterminated" in check(broken, "c").problems[0].message
    found = suggest(broken, "c")
    assert found and found[0].fixes_all
    assert found[0].source_after == inner


CODEC = ("import codecs\n\n\nclass Codec(codecs.Codec):\n\n    def encode(self, text, errors='strict'):\n"
         "        return codecs.charmap_encode(text, errors, TABLE)\n\n"
         "    def decode(self, text, errors='strict'):\n        return codecs.charmap_decode(text, errors, TABLE)\n\n\n"
         "class Reader(Codec, codecs.StreamReader):\n    pass\n")


def test_a_line_off_the_file_s_grid_of_indentation_is_put_back_on_it():
    # Three spaces where every other line steps by four: Python reports it at the next
    # method ("unindent does not match"), which a dedent there would also silence.
    broken = CODEC.replace("    def encode", "   def encode")
    assert check(broken, "python").problems[0].line == 9
    found = [c.source_after for c in suggest(broken, "python", limit=5)]
    assert CODEC in found
    # Repairs that differ only in indentation are different code here, each a candidate.
    assert len(found) > 1


def _first_repair_undoes(language: str, source: str, old: str, new: str, rule_id: str, why_gcc: str) -> None:
    """``source`` with ``old`` made ``new`` is broken, and the first candidate, from
    ``rule_id``, gives ``source`` back (C only where gcc judges: ``why_gcc``)."""
    if language == "c" and shutil.which("gcc") is None:
        pytest.skip(why_gcc)
    broken = source.replace(old, new)
    assert broken != source and not check(broken, language).ok
    found = suggest(broken, language, limit=4)
    assert found and found[0].source_after == source
    assert found[0].edit.rule == rule_id


LICENCE_HEADER = """/* Copyright (C) 2002 The Authors.
   This file is part of a library.

   It is free software; you can redistribute it and/or modify it under the
   terms of a licence, either version 2.1 of the licence, or (at your option)
   any later version.  */

#ifndef _COUNTER_H
#define _COUNTER_H\t1

#include <stddef.h>

/* Count the items of a list.  */
extern size_t count_items (const char *list, size_t limit);

/* Reset the count.  */
extern void reset_count (void);

#endif
"""


@pytest.mark.parametrize("language, source, old, new", [
    # the prose of a licence read as code to its '*/'
    ("c", LICENCE_HEADER, "/* Copyright (C)", "/ Copyright (C)"),
    # a comment on one line, its opener less its '*'
    ("c", LICENCE_HEADER, "/* Reset the count.  */", "/ Reset the count.  */"),
    # an opener typed backwards, alone on its line: a closer that closes nothing
    ("c", LICENCE_HEADER.replace("/* Count the items of a list.  */", "/*\n * Count the items of a list.\n */"),
     "/*\n * Count", "*/\n * Count"),
    ("css", "/* Layout.\n   Two columns. */\n.main { display: flex; }\n", "/* Layout.", "* Layout."),
    ("html", "<p>Hello</p>\n<!-- the list\n     of items -->\n<ul><li>a</li></ul>\n", "<!-- the list", "<!- the list"),
])
def test_a_block_comment_that_lost_a_character_of_its_opener_gets_it_back(language, source, old, new):
    _first_repair_undoes(language, source, old, new, "lost-comment-opener", "gcc judges where the comment's prose reads as code")


COUNT_C = """int count(const int *values, int n)
{
    int total = 0;
    /* Values may be negative. */
    // Walk the array once.
    for (int i = 0; i < n; i++) {
        int v = values[i];
        if (v < 0) {
            v = -v;
        }
        total += v;
        total += 1;
        total -= 1;
        total *= 1;
    }
    return total;
}
"""

TOTAL_JS = """function total(items) {
  let sum = 0;
  // Add each price.
  for (const item of items) {
    sum += item.price;
  }
  return sum;
}
"""

STOP_SH = """#!/bin/sh
db_start () {
\techo START >&3
}

# Cannot read a return code: there is none.
db_stop () {
\techo STOP >&3
}
"""


SETUP_PHP = """<?php
function setUp(): void
{
    $root = ['tmp' => []];
    // The handler takes a reference, not a copy.
    vfsStream::create([
        'a' => 'b',
    ], $root['tmp']);
}
"""


@pytest.mark.parametrize("language, source, comment", [
    # the block's closer, nine lines below, is where the compiler notices it lost its opener
    ("c", COUNT_C, "    // Walk the array once."),
    ("javascript", TOTAL_JS, "  // Add each price."),
    ("bash", STOP_SH, "# Cannot read a return code: there is none."),
    # a line that ends with an opening bracket, which ends no other line of the file
    ("php", SETUP_PHP, "    // The handler takes a reference, not a copy."),
])
def test_a_line_typed_onto_the_end_of_a_comment_gets_its_own_line_back(language, source, comment):
    if language == "c" and shutil.which("gcc") is None:
        pytest.skip("gcc reports the block's closer far below the comment")
    lines = source.split("\n")
    at = lines.index(comment)
    broken = "\n".join(lines[:at] + [comment + " " + lines[at + 1].lstrip()] + lines[at + 2:])
    before = check(broken, language)
    assert not before.ok
    found = suggest(broken, language, limit=4)
    assert found and found[0].edit.rule == "lost-break"
    repaired = found[0].source_after
    assert check(repaired, language).ok
    assert [line.strip() for line in repaired.split("\n")] == [line.strip() for line in source.split("\n")]
    # however far below the checker noticed it, the line break is a repair of the place
    assert Verifier(language, 6).refused(broken, before.problems, repaired, Settings()) == ""


def test_a_line_break_moved_out_of_a_comment_is_code_not_spacing():
    # Splitting the comment and joining the closer onto the line above hold the same
    # tokens; only the first takes code out of the comment: two candidates, not one.
    lines = STOP_SH.split("\n")
    broken = "\n".join(lines[:5] + [lines[5] + " " + lines[6]] + lines[7:])
    found = [c.source_after for c in suggest(broken, "bash", limit=4)]
    assert found[0] == STOP_SH
    assert any("\techo STOP >&3}" in text for text in found[1:])


ADD_C = """/* Add two numbers.
 */
int add(int a, int b)
{
    /* no overflow check */
    return a + b;
}
"""

MISSING_JAVA = """/**
 * Thrown when a value is missing.
 */
public class MissingValueException extends RuntimeException {
    /**
     * Creates the exception.
     */
    public MissingValueException(String message) {
        super(message);
    }
}
"""

MAIN_CSS = """/* Layout.
 */
.main {
  display: flex; /* two columns */
  gap: 1em;
}
"""


@pytest.mark.parametrize("language, source, old, new", [
    ("c", ADD_C, "/* Add two numbers.\n */", "/* Add two numbers.\n /*"),  # swapped
    ("java", MISSING_JAVA, "missing.\n */", "missing.\n /"),  # a character lost
    ("css", MAIN_CSS, "/* Layout.\n */", "/* Layout.\n */".replace("*/", "/*")),
])
def test_a_block_comment_whose_closer_broke_ends_where_it_did(language, source, old, new):
    _first_repair_undoes(language, source, old, new, "lost-comment-closer", "gcc reports the code after the comment's next closer")


LICENCE_C = """// Copyright (C) 2004 The Authors.
//
// You should have received a copy of the licence along with this program;
// see the file COPYING.  If not, see
// <http://www.gnu.org/licenses/>.

int answer(void)
{
    return 42;
}
"""

LICENCE_JS = """// Copyright (C) 2004 The Authors.
// Licensed under the terms in COPYING.
// See the notes in README for details.

export function answer() {
  return 42;
}
"""


@pytest.mark.parametrize("language, source, old, new", [
    ("c", LICENCE_C, "// <http://", "/< /http://"),  # two characters swapped
    ("javascript", LICENCE_JS, "// Licensed under", "/ Licensed under"),  # one lost
    ("javascript", LICENCE_JS, "// See the notes", "See the notes"),  # all of it
])
def test_a_line_among_line_comments_whose_marker_broke_is_a_comment_again(language, source, old, new):
    _first_repair_undoes(language, source, old, new, "lost-comment-marker", "gcc reports the prose read as code")


def test_of_partial_repairs_the_one_the_judge_read_furthest_in_is_offered():
    # A block's first word put back lets `sh -n` read on 30 lines, while tree-sitter,
    # thrown by a later mistake, counts one problem more than after a deletion that
    # only moves the first error along: that repair is among those offered all the same.
    from tinycode.engine.candidates import _farthest_among, _Node

    def node(reach: int, unconfirmed: int = 0) -> _Node:
        return _Node(["x"], True, (), (), 0, reach=reach, unconfirmed=unconfirmed)
    nodes = [node(58) for _ in range(6)] + [node(87)]
    offered = _farthest_among(nodes, 5)
    assert offered[4] is nodes[6] and offered[:4] == nodes[:4] and len(offered) == len(nodes)
    # Progress only tree-sitter saw is no reading of the judge's.
    unconfirmed = [node(58) for _ in range(6)] + [node(200, unconfirmed=1)]
    assert _farthest_among(unconfirmed, 5) == unconfirmed
    assert _farthest_among(nodes[:5], 5) == nodes[:5]


AVAILABLE_JS = """function available(stream) {
  if (stream == null) {
    return 0; // no way to signal the end from available()
  }
  return stream.count;
}
"""
AVAILABLE_JAVA = """class Source {
    int available(Object stream) {
        if (stream == null) {
            return 0; // no way to signal the end from available()
        }
        return 1;
    }
}
"""


@pytest.mark.parametrize("language, source, old, new", [
    # The second half names a call after its words: prose, not a line of code. In Java,
    # tree-sitter reads it only by giving each pair of words the ';' of a declaration.
    ("javascript", AVAILABLE_JS, "// no way to", "// no\n    way to"),
    ("java", AVAILABLE_JAVA, "// no way to", "// no\n    way to"),
    # An address split: its rest is no code either.
    ("javascript", "// See https://example.org/en-us/docs/streams/available-bytes?lang=en\n" + AVAILABLE_JS,
     "example.org/en-us", "example.org/\nen-us"),
])
def test_a_comment_split_before_words_that_are_no_code_is_joined_again(language, source, old, new):
    _first_repair_undoes(language, source, old, new, "line-join", "gcc is not asked")


PRODUCER_PY = """class Chat:
    def __init__(self):
        self.incoming = []

        # we toss the use of the "simple producer" and replace it with
        # a pure deque, which the original fifo was a wrapping of
        self.fifo = []
"""
LINE_READER_JAVA = """class LineReader {
    int limit(int readAheadLimit) {
        // If the most recently read character is '\\r', then increment the
        // read ahead limit as in this case if the next character is '\\n',
        // two characters would actually be read by the next read().
        return readAheadLimit + 1;
    }
}
"""
LICENSE_CPP = """// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

int answer() {
  return 42;
}
"""
RANGES_JS = """// Returns false:
// - If no C has a prerelease,
//   - If LT is <=, and LT.semver does not satisfy every C
// - Else true

export const subset = (lt, c) => lt <= c
"""
PLURAL_TS = """declare namespace Intl {
    // http://cldr.unicode.org/index/cldr-spec/plural-rules#TOC-Determining-Plural-Categories
    type LDMLPluralRule = "zero" | "one" | "other";
}
"""


@pytest.mark.parametrize("language, source, old, new", [
    # The rest of the sentence names a phrase in quotes, or a character's escape: prose.
    ("python", PRODUCER_PY, "# we toss", "# we\n        toss"),
    ("java", LINE_READER_JAVA, "as in this", "as in\n            this"),
    # A sentence's last word and its full stop: the comment's, though tree-sitter reads
    # them on into the code below (``file.int``).
    ("cpp", LICENSE_CPP, "LICENSE file.", "LICENSE\nfile."),
    # Split right after a hyphen: the rest of a hyphenated word.
    ("typescript", PLURAL_TS, "Determining-Plural", "Determining-\n    Plural"),
    # The sentence names an operator: with a run of words, still a sentence.
    ("javascript", RANGES_JS, "//   - If LT is", "//   -\nIf LT is"),
])
def test_a_comment_split_mid_sentence_is_joined_again(language, source, old, new):
    if language == "cpp" and shutil.which("g++") is None:
        pytest.skip("g++ reports the word read as a type")
    broken = source.replace(old, new)
    assert broken != source
    found = suggest(broken, language, limit=4)
    assert any(c.source_after == source and c.edit.rule == "line-join" for c in found)


GENERATED_SH = ("#!/bin/sh\n#\n# This machine-generated file defines the system's error numbers,\n"
                "# error strings, and signal numbers.\n\n"
                + "".join(f'echo "step {i}: building target {i}"\n' for i in range(20))
                + "case \"$1\" in\n-h)\n\techo 'usage: mkall.sh [-n]' 1>&2\n\texit 2\n\t;;\nesac\n")


def test_a_comment_s_rest_whose_apostrophe_runs_on_as_a_string_is_joined_back():
    # The shell reads `system's` as a string's start and reports where that string
    # ends, 30 lines below: the line is joined back to the comment it was split from,
    # however far that is from the report.
    from tinycode.engine.grammar_space import strings_over_lines
    from tinycode.engine.guard import far_from_problems
    from tinycode.engine.proposals import _string_run_on_edits

    broken = GENERATED_SH.replace("# This machine-generated file", "# This machine-generated\nfile")
    lines = broken.split("\n")
    first, last = strings_over_lines(broken, "bash")[0]
    assert first == 4 and last > first + 20
    judged = (Problem(last, 1, last, 1, "Syntax error: Unterminated quoted string", kind="compiler", source="sh -n"),)
    joined = [edit.applied(lines) for edit in _string_run_on_edits(lines, judged, "bash")]
    assert GENERATED_SH.split("\n") in joined
    assert not far_from_problems(broken, GENERATED_SH, "bash", judged, 6)
    # Code under a comment is no sentence's rest: it is not joined to it.
    code = broken.replace("\nfile defines the system's error numbers,", "\necho 'files: $n'  'x")
    assert not any(len(edit.new_lines) == 1 and edit.span == 2
                   for edit in _string_run_on_edits(code.split("\n"), judged, "bash"))


LOG_RB = """module Log
  def self.format(spec, params)
    case spec
    when "p"
      escape(params["p"].to_s)
    when "%"
      "%"
    else
      "-"
    end
  end

  def self.escape(data)
    data.gsub(/[[:cntrl:]\\\\]+/) { $&.dump[1...-1] }
  end
end
"""


def test_a_string_a_judge_reads_on_to_the_file_s_end_is_closed_where_it_opened():
    # Ruby reads `%"` as a literal's start, and the string on to the file's end; tree-sitter
    # ends it lines before. The judge names the string unterminated: the line it opens
    # on gets its own quote back.
    from tinycode.engine.grammar_space import strings_over_lines
    from tinycode.engine.proposals import _string_run_on_edits

    broken = LOG_RB.replace('params["p"]', 'params["p\']')
    lines = broken.split("\n")
    assert all(last < 16 for _, last in strings_over_lines(broken, "ruby"))
    judged = (Problem(16, 1, 16, 1, "unterminated string meets end of file", kind="compiler", source="ruby -c"),)
    assert LOG_RB.split("\n") in [edit.applied(lines) for edit in _string_run_on_edits(lines, judged, "ruby")]


LICENCE_BOX_JS = """/*! *****************************************************************************
Copyright (c) The Authors. All rights reserved.
Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted.
***************************************************************************** */

export function answer() {
  return 42;
}
"""


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_a_comment_opener_split_from_its_box_is_joined_again(language):
    # The box's rule of stars is neither code nor words: the join hides no code.
    broken = LICENCE_BOX_JS.replace("/*! ***", "/\n*! ***")
    assert not check(broken, language).ok
    found = suggest(broken, language, limit=4)
    assert any(c.source_after == LICENCE_BOX_JS and c.edit.rule == "line-join" for c in found)



SETTINGS_JSON = """{
  "editor": {
    "tabSize": 2,
    "rulers": [80, 100]
  },
  "files": {
    "exclude": ["build", "dist"]
  }
}
"""


@pytest.mark.parametrize("broken", [
    SETTINGS_JSON.replace('  "files": {\n', '  // TODO\n  "files": {\n'),
    SETTINGS_JSON.replace('"tabSize": 2,', '"tabSize": 2, // as the project has it'),
])
def test_a_comment_in_json_is_taken_out(broken):
    # JSON has no comments (JSONC and editors' settings do): the strict reader stops at it.
    assert not check(broken, "json").ok
    found = suggest(broken, "json")
    assert found and found[0].fixes_all and found[0].source_after == SETTINGS_JSON


# A completion script: a block opened at the top, functions below it, an ``if`` inside.
COMPLETION_SH = """#!/bin/bash
if type complete &>/dev/null; then
  _tool_completion () {
    local words cword
    COMPREPLY=()
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
    if [ -n "$TOOL_DEBUG" ]; then
      echo "completing $cword" >&2
    fi
    COMPREPLY=($(tool complete -- "${words[@]}"))
    return 0
  }
  complete -F _tool_completion tool
elif type compdef &>/dev/null; then
  _tool_completion() {
    compadd -- $(tool complete -- "${words[@]}")
  }
  compdef _tool_completion tool
fi
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_an_opening_word_alone_on_its_line_is_read_as_the_closer_it_misspells():
    broken = COMPLETION_SH.replace('completing $cword" >&2\n    fi', 'completing $cword" >&2\n    if')
    found = [c.source_after for c in suggest(broken, "bash", limit=6)]
    assert COMPLETION_SH in found


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("lost", ["#define POINT_H\n", "#ifndef POINT_H\n"])
def test_an_include_guard_s_directive_that_lost_its_name_gets_the_name_the_other_has(lost):
    header = "#ifndef POINT_H\n#define POINT_H\n\nstruct point { int x, y; };\n\n#endif\n"
    broken = header.replace(lost, lost.split()[0] + "\n")
    found = suggest(broken, "cpp")
    assert found and found[0].source_after == header  # not '#ifndef or', nor '#ifndef typename'


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_an_undef_that_lost_its_name_gets_a_macro_the_file_still_has_defined():
    header = ("#ifndef TRAITS_H\n#define TRAITS_H\n\n#define DEBUG_CHECK(c) do { } while (0)\n"
              "#define DEBUG_NOTE(n)\n\ntemplate<typename T>\nstruct traits\n{\n  T value;\n};\n\n"
              "#undef DEBUG_NOTE\n#undef DEBUG_CHECK\n\n#endif\n")
    broken = header.replace("#undef DEBUG_CHECK\n", "#undef\n")
    found = suggest(broken, "cpp")
    assert found and found[0].source_after == header  # not the guard, nor DEBUG_NOTE, undone above


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_name_the_compiler_points_at_is_deleted_only_after_the_token_it_lost():
    # "expected ')' before 'ch'": the ',' before the name was lost; deleting the name
    # also compiles, and comes after.
    source = '#include <stdio.h>\n\nint main(void)\n{\n\tint ch = 3;\n\tprintf("%d",ch);\n\treturn 0;\n}\n'
    broken = source.replace('"%d",ch', '"%d"ch')
    found = [c.source_after for c in suggest(broken, "c", limit=6)]
    assert found[0] == source


GO_FORK = """package main

// A bug in
// syscall.runtime_AfterForkInChild corrupted TSAN's signal forwarding table
// during calls to Run.

import "fmt"

func main() {
\tfmt.Println("forked")
}
"""


def test_a_comment_s_line_split_before_words_with_an_apostrophe_is_joined_back():
    # "TSAN's" is a word, not a rune literal left open: the line is the comment's prose.
    broken = GO_FORK.replace("// syscall.runtime", "// syscall.\nruntime")
    found = [c.source_after for c in suggest(broken, "go", limit=4)]
    assert GO_FORK in found


PHP_ITERATOR = """<?php
/**
 * Iterator for children of a directory container.
 */
namespace org\\bovigo\\vfs;

/**
 * Iterator over a container's children.
 */
class ContainerIterator implements \\Iterator
{
    protected $children;

    public function __construct(array $children)
    {
        $this->children = $children;
    }

    public function rewind(): void
    {
        reset($this->children);
    }
}
"""


def test_a_keyword_left_out_is_put_back_though_the_file_has_it_nowhere_else():
    # ``class`` is admitted before the name and ``implements`` after both: it comes
    # before keywords the file uses more that the grammar admits only before the name;
    # and splitting ``<?php`` (the whole file made text, which php -l accepts) is no repair.
    from tinycode.engine.lookahead import lost_keyword_edits

    broken = PHP_ITERATOR.replace("class ContainerIterator", "ContainerIterator")
    # (php -l points at ``implements``: the words put there come first, then at the line's start)
    edits = lost_keyword_edits(broken.split("\n"), check(broken, "php").problems, "php")
    words = [edit.new_lines[0].split()[0] for edit in edits
             if edit.line == 10 and not edit.new_lines[0].startswith("ContainerIterator")]
    assert words.index("class") < min(words.index("function"), words.index("public"))
    found = [c.source_after for c in suggest(broken, "php", limit=4)]
    assert found and found[0] == PHP_ITERATOR


KEY_SH = """#!/bin/sh
set -e

import_key() {
    gpg --import <<KEY
-----BEGIN PGP PUBLIC KEY BLOCK-----
mQINBE6XR8IBEACVdDKT2HEH1IyHzXkb4nIWAY7echjRxo7MTcj4vbXAyBKOfjja
UrBEJWHN6fjKJXOYWXHLIYg0hOGeW9qcSiaa1/rYIbOzjfGfhE4x0Y+NJHS1db0V
G6GUj3qXaeyqIJGS2z7m0Thy4Lgr/LpZlZ78Nf1fliSzBlMo1sV7PpP/7zUO+aA4
-----END PGP PUBLIC KEY BLOCK-----
KEY
}

""" + "".join(f'echo "step {n}"\n' for n in range(40)) + "import_key\n"


AWK_SH = """#!/bin/sh
set -e

awk '
BEGIN {
\tcount = 0
}

# count the enum values
$1 == "enum" { inside = 1; next }
inside && $1 == "};" { inside = 0; next }
inside && NF == 3 { count++ }

END {
\tprint count
}
' values.h > count.txt

echo 'done'
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("script, old, new, reported", [
    # bash reads "$" as a command and "then" as its argument, and says so at the "elif"
    # thirteen lines below: the stray character goes, not the "elif".
    (COMPLETION_SH, "/dev/null; then\n  _tool_completion () {", "/dev/null;$ then\n  _tool_completion () {", 15),
    # a backquote typed into a here-document: dash reads a command substitution on to the
    # file's end, 47 lines below
    (KEY_SH, "qcSiaa1/rYIb", "qcSiaa1`/rYIb", 54),
    # bash reads an awk program that lost its opening quote as shell code and stops at
    # its first '}'; the quote that ends the program, lines below, is left open
    (AWK_SH, "awk '\n", "awk\n", 7),
])
def test_a_shell_slip_reported_far_from_it_is_repaired_where_it_is(script, old, new, reported):
    broken = script.replace(old, new, 1)
    before = check(broken, "bash")
    assert before.problems[0].line == reported
    found = suggest(broken, "bash", limit=4, result=before)
    assert found[0].source_after == script
    assert Verifier("bash").refused(broken, before.problems, script, Settings()) == ""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_misspelt_then_ending_its_line_is_respelt_not_run_as_a_command():
    script = '#!/bin/sh\nif [ -z "$1" ]; then\n  echo usage\n  exit 2\nfi\necho ok\n'
    broken = script.replace("; then", "; thenn")
    assert suggest(broken, "bash", limit=3)[0].source_after == script


@pytest.mark.skipif(shutil.which("php") is None, reason="php not installed")
def test_a_compile_error_the_syntax_error_kept_the_judge_from_reading_is_the_file_s_own():
    # php -l stops at a parse error; once the ')' typed onto a comment is code again, it
    # compiles the table and finds a call among its constants, far above the edit: the
    # file's other mistake, which the search repairs next.
    rows = "".join(f"    'k{n}' => array('v{n}', 'w{n}'),\n" for n in range(6))
    fixed = ("<?php\nclass Table {\n  protected static $names = array(\n    'a',\n    'b'\n  );\n\n"
             + "  protected static $rows = array(\n" + rows
             + "    # the last one is special-cased\n    # with its own message.\n  );\n\n"
             + "  public function get($k) {\n    return self::$rows[$k];\n  }\n}\n")
    broken = fixed.replace("message.\n  );", "message. );").replace("'k2' => array(", "'k2' => rray(")
    with judges.account(), judges.baseline(broken, "php"):
        found = suggest(broken, "php")
        assert found and found[0].source_after == fixed.replace("'k2' => array(", "'k2' => rray(")
        assert "new: the original did not have it" in check(found[0].source_after, "php").problems[0].message
        assert suggest(found[0].source_after, "php")[0].source_after == fixed


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_partial_repair_after_which_the_compiler_knows_the_types_comes_first():
    # A comment's line split: its words, read as code, make 'see' a type g++ does not
    # know; a sentence, which no header declares (``unresolved._sentence_line``), so
    # that message counts. Splitting the words again leaves no fewer problems; making
    # them the comment's again lets g++ read the file and report its other mistake,
    # 'Namespace'.
    fixed = ("// This library is distributed in the hope that it will be useful.\n"
             "// You should have received a copy of the licence along with this program;\n"
             "// see the files COPYING3 and COPYING.RUNTIME respectively.  If not, see\n"
             "// <http://www.gnu.org/licenses/>.\n\n#ifndef BASE_HPP\n#define BASE_HPP\n\n#include <functional>\n\n"
             "namespace outer\n{\n  namespace detail\n  {\n    template<typename T>\n    class base\n    {\n"
             "    protected:\n      ~base() { }\n    };\n  } // namespace detail\n} // namespace outer\n\n#endif\n")
    broken = fixed.replace("// see the files", "//\nsee the files").replace("  namespace detail", "  Namespace detail")
    broken = broken.replace("\n#endif\n", "\n# \n")
    assert [p.line for p in check(broken, "cpp").problems][:1] == [4]  # the words read as code
    found = suggested(broken, "cpp")
    assert found and not check(found[0].source_after, "cpp").note
    assert "see the files" not in [line.strip()[:13] for line in found[0].source_after.split("\n")]


def test_a_file_s_first_line_over_line_comments_gets_its_lost_marker_back():
    lines = ["/ -*- C++ -*-", "", "// Copyright (C) 2005 Free Software Foundation, Inc.", "//", "int x;"]
    problem = Problem(1, 1, 1, 1, "expected unqualified-id before '/' token", kind="compiler", source="g++")
    found = [e.new_lines for e in proposals(lines, (problem,), "cpp") if e.rule == "lost-comment-marker"]
    assert ["// -*- C++ -*-"] in found



@pytest.mark.skipif(not Path("/usr/include/assert.h").is_file(), reason="needs the C library's assert.h")
def test_no_edit_only_changes_a_comment_s_words():
    # gcc reports the conditional a long comment lies in: the words of the comment are
    # no code, and no edit of them alone (an 'abort' typed again) is proposed.
    text = Path("/usr/include/assert.h").read_text()
    broken = text.replace("# endif\n", "# endif$\n", 1)
    problems = check(broken, "c").problems
    lines = broken.split("\n")
    from tinycode.engine.grammar_space import closed_comments

    comments = closed_comments(broken, "c")

    def in_a_comment(edit) -> bool:  # words typed or taken away there, no mark
        old, new = lines[edit.line - 1], edit.new_lines[0]
        start = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        end = next((i for i, (a, b) in enumerate(zip(old[::-1], new[::-1])) if a != b), 0)
        typed = old[start:len(old) - end] + new[start:len(new) - end]
        return typed.replace(" ", "").isalnum() and any(first < start < last - 2
                                                        for first, last in comments.get(edit.line, ()))
    inside = [edit.description for edit in proposals(lines, problems, "c")
              if edit.span == 1 and len(edit.new_lines) == 1 and in_a_comment(edit)]
    assert not inside


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_case_that_lost_its_in_gets_it_back():
    fixed = ('#!/bin/bash\nset -e\n\ncase $(uname -s -m) in\n  "Darwin x86_64") ;;\n  "Linux x86_64") ;;\n'
             '  *)\n    echo "unsupported" >&2\n    exit 1\n    ;;\nesac\necho done\n')
    broken = fixed.replace("case $(uname -s -m) in", "case $(uname -s -m)")
    assert "near unexpected token" in check(broken, "bash").problems[0].message
    found = suggested(broken, "bash")
    assert found and found[0].source_after == fixed


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_fix_clean_only_by_the_parser_that_the_output_would_be_refused_for_is_no_fix_of_the_search():
    from tinycode.check import source_lines
    from tinycode.engine.candidates import WorkAccount, _Budget, _Node, _ReparseVerdicts
    from tinycode.engine.edits import Edit

    # A header missing: the types are unknown. Split, the comment's words read as a
    # declaration to tree-sitter; asked again with the unknown names declared, g++ still
    # rejects them: the search is told so, and why, and looks on.
    source = ('// You should have received\na copy of the GNU General Public License and\n'
              '// a copy of the GCC Runtime Library Exception.\n\n#include "demo_config.h"\n\n'
              'int twice(int x) { return 2 * x; }\n')
    result = check(source, "cpp")
    assert result.note and [p.line for p in result.problems] == [2]
    lines = source_lines(source)
    account = WorkAccount(10_000)
    verdicts = _ReparseVerdicts(_Node(lines, True, result.problems, (), 0), "cpp", judges.calls() + 100_000,
                                _Budget(1_000, account))
    split = Edit(2, 1, ["a", "copy of the GNU General Public License and"], "line 2: split before column 3")
    text = "\n".join(split.applied(lines)) + "\n"
    assert check(text, "cpp").ok  # clean, by the parser
    with judges.baseline(source, "cpp"):
        assert verdicts.confirm(text, split) is None
    assert account.refused.startswith("not verified") and "line 3" in account.refused
    joined = Edit(1, 2, ["// You should have received a copy of the GNU General Public License and"], "join")
    with judges.baseline(source, "cpp"):
        assert verdicts.confirm("\n".join(joined.applied(lines)) + "\n", joined) == ()


def test_of_partial_repairs_those_that_leave_a_shell_block_without_its_closer_are_dropped():
    # 'ten' for 'then': sh stops at the 'fi' ("expecting then"), and deleting the 'fi'
    # lets it read on as far as respelling 'ten' does; but it leaves the 'if' open.
    from tinycode.engine.candidates import _balanced, _Node

    lines = ["if ! test_have_prereq PERL", "ten", "\tskip_all='no perl'", "\ttest_done", "fi", "", "rm -f` file"]
    root = _Node(lines, True, (), (), 0)
    deleted = _Node(lines[:4] + [""] + lines[5:], True, (), (), 0)
    respelt = _Node(lines[:1] + ["then"] + lines[2:], True, (), (), 1)
    assert _balanced([deleted, respelt], root, "bash") == [respelt]


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
def test_no_edit_fuses_two_words_of_the_file_into_a_name_it_has_nowhere():
    source = ("class TaskManager\n  def [](task_name, scopes=nil)\n    scopes ||= []\n    lookup(task_name, scopes)\n"
              "  end\n\n  def lookup(name, scopes)\n    scopes.first || name\n  end\nend\n")
    broken = source.replace("scopes=nil", "scopes==nil")
    found = [c.source_after for c in suggest(broken, "ruby", limit=6)]
    assert source in found
    assert not any("scopesnil" in text for text in found)  # (ruby -c accepts it: a new name)


COUNTS_RS = """use std::collections::HashMap;

/// Counts of each word.
pub struct Counts {
    words: HashMap<String, usize>,
}

// Adds the words of a line; a word seen before
// counts once more.
fn add_line(counts: &mut Counts, line: &str) -> usize {
    let mut added = 0;
    for word in line.split_whitespace() {
        *counts.words.entry(word.to_string()).or_insert(0) += 1;
        added += 1;
    }
    added
}

fn total(counts: &Counts) -> usize {
    counts.words.values().sum()
}

fn distinct(counts: &Counts) -> usize {
    counts.words.len()
}

fn report(counts: &Counts) -> String {
    let total = total(counts);
    let distinct = distinct(counts);
    format!("{} words, {} distinct", total, distinct)
}

fn main() {
    let mut counts = Counts { words: HashMap::new() };
    let added = add_line(&mut counts, "a b a");
    println!("{} {}", added, report(&counts));
}
"""


@pytest.mark.skipif(shutil.which("rustfmt") is None, reason="needs rustfmt")
def test_a_header_typed_onto_a_comment_is_split_off_though_the_mistakes_it_hid_then_show():
    from fake_llm import FakeLLM

    from tinycode import repair

    # rustfmt stops at the ``}`` that closes nothing; once the function's header is code
    # again, tree-sitter sees the two mistakes below, which its body had hidden, and
    # rustfmt says two things of the first one's line: neither is the split's doing.
    broken = COUNTS_RS.replace("// counts once more.\nfn add_line", "// counts once more. fn add_line") \
        .replace("fn distinct(counts", "fn distinct?(counts") \
        .replace("    let distinct = distinct(counts);", "    elt distinct = distinct(counts);")
    assert [p.line for p in check(broken, "rust").problems if p.source != "tree-sitter"] == [16]
    result = repair(broken, "rust", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert result.status == "fixed" and result.source == COUNTS_RS


SCOPE_RB = """# frozen_string_literal: true
module Demo
  class Scope < Chain # :nodoc: all

    # Path for the scope.
    def path
      map(&:to_s).reverse.join(":')
    end

    # Path for the scope + the named path.
    def path_with_task_name(task_name)
      "#{path}:#{task_name}"
    end

    # Trim +n+ innermost scope levels from the scope. In no case will
    # this trim beyond the toplevel scope.
    def trim(n)
      result = self
      while n > 0 !result.empty?
        result = result.tail
        n -= 1
      end
      result
    end

    # Scope lists always end with an BlankScope object. See Null
    # Object Pattern)
    class BlankScope < EmptyChain
      @parent = Scope

      path
        ""
      end

      def path_with_task_name(task_name)
        task_name
      end
    end

    # Singleton null object for an empty scope.
    EMPTY = BlankScope.new
  end
end
"""


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
def test_a_bracket_in_a_comment_does_not_make_the_right_quote_look_unbalancing():
    # Line 7's string closed with the other quote. Mended, the brackets of the code pair,
    # and the ')' of the comment on line 27 is prose, not a closer left over; requoting
    # line 12's whole string instead runs a string on to the file's end: no progress,
    # and no region repaired.
    found = suggest(SCOPE_RB, "ruby")
    assert found[0].edit.line == 7 and ("join(':')" in found[0].source_after or 'join(":")' in found[0].source_after)
    assert not any(c.edit.line == 12 for c in found)
    requoted = Edit(12, 1, ['      `#{path}:#{task_name}`'], "line 12: quote it with '`'", 1)
    after = "\n".join(requoted.applied(SCOPE_RB.split("\n")))
    assert "unterminated string meets end of file" in [p.message for p in check(after, "ruby").problems]
    assert not Verifier("ruby").region_cleared(SCOPE_RB, check(SCOPE_RB, "ruby"), after, requoted)


COMMENT_TS = """/*! *****************************************************************************
Copyright (c) Example Corporation. All rights reserved.
Licensed under the Apache License, Version 2.0 (the "License"); you may not use
this file except in compliance with the License.
***************************************************************************** /

declare namespace Intl {
    type RoundingPriority = "auto" | "morePrecision" | "lessPrecision";

    interface NumberFormatOptionsUseGroupingRegistry {
        min2: never;
        auto: never;
        always: never;
    }

    NumberFormatOptions {
        roundingIncrement: 1 | 2 | 5 | 10;
        trailingZeroDisplay: "auto" | "stripIfInteger";
    }

    interface NumberFormat {
        formatRange(start: number, end: number): string;
    }
}
"""


@pytest.mark.skipif(shutil.which("tsc") is None, reason="typescript (tsc) not installed")
def test_a_comment_run_on_to_the_end_by_a_blank_in_its_closer_is_closed_first():
    from fake_llm import FakeLLM

    from tinycode import repair

    # The closer '* /' left the licence comment open to the file's end: TypeScript's parser read
    # nothing after it. Closed, the mistake it hid (an interface's keyword lost) shows,
    # and is the file's other mistake, not the edit's.
    found = suggest(COMMENT_TS, "typescript")
    assert found and found[0].edit.description == "line 5: replace '* /' with '*/'"
    fixed = repair(COMMENT_TS, "typescript", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed"
    assert fixed.source == COMMENT_TS.replace("** /", "**/").replace("    NumberFormatOptions", "    interface NumberFormatOptions")


SWAP_C = """#include <stdio.h>

#define SWAP(a, b) \\
    do { \\
        int tmp = (a); \\
        (a) = (b); \\
        (b) = tmp; \\
    } while (0)

int main(void)
{
    int x = 1, y = 2;
    SWAP(x, y);
    printf("%d %d\\n", x, y);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_a_line_of_a_macro_split_before_its_continuation_is_joined_back():
    # The macro ends at the split line: gcc objects to its rest only lines below, as code.
    from fake_llm import FakeLLM

    from tinycode import repair

    broken = SWAP_C.replace("int tmp = (a); \\", "int tmp =\n        (a); \\")
    assert [p.line for p in check(broken, "c").problems if p.source != "tree-sitter"][0] == 9
    assert suggest(broken, "c")[0].edit.rule == "lost-continuation"
    fixed = repair(broken, "c", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert fixed.status == "fixed" and fixed.source == SWAP_C
    # Its '\\' lost, the line is given one back, or joined to the next: either is the macro.
    lost = SWAP_C.replace("int tmp = (a); \\", "int tmp = (a);")
    assert {c.source_after for c in suggest(lost, "c")[:2]} >= {SWAP_C}


TOTAL_H = """#ifndef CONFIG_H
#define CONFIG_H

#define MIN_PROPS 18
#define EXT_PROPS 4
/*
** The total, with the new properties.
*/
#define TOTAL_PROPS       (MIN_PROPS +      \\
                           2 * EXT_PROPS)

struct config {
    int props[TOTAL_PROPS];
    Int count;
};
#endif
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_a_macro_s_body_split_after_the_bracket_it_opens_is_joined_back_beside_another_mistake():
    # The rest of the body reads as code, which gcc rejects; joined back it is the body
    # it was cut from, which hides nothing. The mistyped type below is repaired beside it.
    from fake_llm import FakeLLM

    from tinycode import repair

    fixed = TOTAL_H.replace("    Int count;", "    int count;")
    broken = TOTAL_H.replace("(MIN_PROPS +", "(\nMIN_PROPS +")
    assert suggest(broken, "c")[0].edit.rule.startswith("line-join")
    result = repair(broken, "c", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert result.status == "fixed" and result.source == fixed


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc reports the first of the two slips alone")
def test_a_slip_made_twice_on_a_line_is_repaired_where_the_judge_reads_on_to_the_second():
    # gcc stops at the first '!==' and says nothing of the second; tree-sitter sees
    # neither. The '=' gcc names inside our '!==' token is deleted, and gcc's error then
    # lies further along the same line in the same words: progress, not the same error.
    source = "int f(int a, int b, int c) {\n    if (a == b && b !==c && a!==c)\n        return 1;\n    return 0;\n}\n"
    assert [(p.line, p.source) for p in check(source, "c").problems] == [(2, "gcc -fsyntax-only")]
    first = first_suggested(source, "c")
    assert first.fixes_all and first.source_after == source.replace("!==", "!=")


def test_a_conditional_that_lost_its_name_is_given_the_names_the_file_tests_at_its_depth_first():
    lines = ["#ifndef _SEM_H", "#define _SEM_H 1", "#ifdef __USE_XOPEN2K", "int a;", "#endif", "",
             "#ifdef", "# ifndef __USE_TIME_BITS64", "int b;", "# endif", "#endif", "",
             "#ifdef __USE_GNU", "int c;", "#endif", "#endif"]
    problem = Problem(7, 7, 7, 7, "no macro name given in #ifdef directive", "", "compiler", "gcc -fsyntax-only")
    made = [e.new_lines[0] for e in proposals(lines, (problem,), "c") if e.rule == "tested-name"]
    # (the guard's name is never one: it is defined from the file's second line)
    assert made == ["#ifdef __USE_XOPEN2K", "#ifdef __USE_GNU", "#ifdef __USE_TIME_BITS64"]


def test_a_line_that_lost_the_quote_its_siblings_end_with_is_given_it():
    # The quote that opens a test's body lost at its line's end: every quote below pairs
    # with the wrong one, and the shell meets a string never closed only at the file's end.
    body = "".join(f"test_expect_success 'case {n}' '\n\techo {n} >out &&\n\tgrep {n} out\n'\n\n" for n in range(5))
    fixed = "#!/bin/sh\n\n" + body + "test_done\n"
    broken = fixed.replace("'case 2' '\n", "'case 2'\n")
    assert check(broken, "bash").problems[0].line > 20
    assert first_restores(fixed, broken, "bash", "sibling-end")


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
def test_a_quote_typed_alone_is_deleted_where_the_string_it_opens_runs_to_the_end():
    # The backquote opens a command string that never closes: ruby reports only at the
    # file's end, where it cannot say where the string began; tree-sitter reads it as
    # one string from the method's line on.
    fixed = ("module Store\n  class Shelf\n    def initialize(items)\n      @items = items\n    end\n\n"
             "    def check(name)\n      unless @items.key?(name)\n"
             "        raise ArgumentError, \"no #{name.inspect} on the shelf\"\n      end\n      @items[name]\n"
             "    end\n\n    def count\n      @items.size\n    end\n\n    def names\n"
             "      @items.keys.sort\n    end\n  end\nend\n")
    broken = fixed.replace("raise ArgumentError", "raise` ArgumentError")
    assert "end of file" in check(broken, "ruby").problems[0].message
    assert first_restores(fixed, broken, "ruby", "stray-quote")


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
def test_an_error_at_the_input_s_end_does_not_move_on_because_a_word_was_typed_before_it():
    # Two 'end's missing (one misspelt, one joined onto a comment): ruby says only that
    # the input ended early. A word typed on the last line moves that report along the
    # line, which is no progress; the two mistakes repaired together are the fix.
    fixed = ("module Shop\n  class Till\n    def open\n      @open = true\n    end\n\n    def total\n"
             "      if @open\n        42\n      end\n    end\n  end\n\n  class Label\n"
             "    Width = 30 # :nodoc:\n  end\nend\n")
    broken = fixed.replace("        42\n      end\n", "        42\n      endd\n").replace(
        "    Width = 30 # :nodoc:\n  end\n", "    Width = 30 # :nodoc: end\n")
    first = first_suggested(broken, "ruby")
    assert first.fixes_all and "endd" not in first.source_after and "nil end" not in first.source_after


@pytest.mark.skipif(shutil.which("dash") is None, reason="dash reads a stray backquote's text as a script")
def test_a_stray_backquote_dash_reports_as_a_string_left_open_is_deleted():
    # dash pairs the stray backquote with the first of `date`'s, reads the text between
    # as a script, and finds the string before `date` left open there.
    fixed = ("#!/bin/sh\nset -e\n\n[ -r /etc/default/clock ] && . /etc/default/clock\n"
             ". /lib/lsb/init-functions\n\ncase \"$1\" in\n    start)\n        log_action_msg \"Starting\"\n"
             "        ;;\n    stop)\n        log_action_msg \"Saved at `date`\"\n        ;;\nesac\nexit 0\n")
    broken = fixed.replace("init-functions", "init-`functions")
    assert "Unterminated quoted string" in check(broken, "bash").problems[0].message
    assert first_restores(fixed, broken, "bash", "sh-stray-backquote")



SHELF_TS = """// A shelf of items, kept in the order they were put on it.
interface Shelf<T> {
    /**
     * Calls the callback on each item of the shelf, and returns what it made of each,
     * in the shelf's order.
     *
     * @param callback What each item becomes
     * @param thisArg What `this` is in the callback
     */
    mapEach<U, This = undefined>(
        callback: (this: This, value: T, index: number) => U,
        thisArg?: This,
    ): U[];

    /**
     * The items of shelves within the shelf, down to the given depth.
     *
     * @param depth The depth to go down to
     */
    deepen<A, D extends number = 1>(
        this: A,
        depth?: D,
    ): A[];
}

export function countOf<T>(shelf: Shelf<T>): number {
    return shelf.mapEach(() => 1).length;
}
"""


@pytest.mark.skipif(shutil.which("tsc") is None, reason="typescript (tsc) not installed")
def test_a_declaration_s_keyword_split_from_the_block_it_opens_is_joined_back():
    from fake_llm import FakeLLM

    from tinycode import repair

    # `interface` alone on its line is a statement of its own; the block below reads as
    # an expression's until, 19 lines into it, TypeScript's parser meets a type
    # parameter's `extends`, which nothing else could hold.
    broken = SHELF_TS.replace("interface Shelf<T> {", "interface\nShelf<T> {")
    assert [p.line for p in check(broken, "typescript").problems] == [21]
    assert first_restores(SHELF_TS, broken, "typescript", "split-header")
    fixed = repair(broken, "typescript", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert fixed.status == "fixed" and fixed.source == SHELF_TS


DOCSTRING_CUT = '''import collections


class Frozen(collections.defaultdict):
    """
    A dict that stops growing once frozen.

    >>> d = Frozen(list)
    >>> d.freeze()
    >>> len(d)
    0
    """

    def __missing__(self, key):
        return getattr(self, "_frozen", super().__missing__)(key)

    def freeze(self):
        self._frozen = lambda key: self.default_factory()
'''


def test_a_docstring_whose_closer_lost_a_quote_is_closed_where_it_was_cut():
    # CPython reports the string left open at its opener; the closer, cut to '""', lies
    # eight lines below it.
    broken = DOCSTRING_CUT.replace('    0\n    """', '    0\n    ""')
    assert first_restores(DOCSTRING_CUT, broken, "python", "triple-quote-cut")
    from fake_llm import FakeLLM
    from tinycode import repair

    result = repair(broken, "python", llm=FakeLLM(scorer=lambda prompt, text: 0.0), settings=Settings(agent="off"))
    assert result.status == "fixed" and result.source == DOCSTRING_CUT



@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_here_documents_first_line_joined_onto_its_opener_is_split_off():
    fixed = ('#!/bin/bash\nme=train\nUSAGE=$(cat <<-EOF\nusage: $me [--overwrite] <rev-list-args>\n\n'
             '    -h, --help     show the help\nEOF\n)\n\necho "$USAGE"\n')
    broken = fixed.replace("<<-EOF\nusage", "<<-EOF usage")
    assert first_restores(fixed, broken, "bash", "sh-heredoc-joined")


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
def test_a_token_begun_over_code_goes_to_no_judge():
    # Two requires typed as one line: a '/' typed before the second's string would begin a
    # regular expression that runs to the '/' in a string 23 lines down; tree-sitter reads
    # those lines as its text, and ruby's error would move there only because of it.
    from tinycode.engine.candidates import _Node, _ReparseVerdicts

    fixed = (Path(__file__).parent / "data" / "webrick_config.rb").read_text()
    broken = fixed.replace("'httpversion'\nrequire_relative", "'httpversion' require_relative")
    lines = broken.split("\n")
    node = _Node(lines, True, check(broken, "ruby").problems, (), 0)
    typed = lines[12].replace("_relative 'http", "_relative /'http", 1)
    assert _ReparseVerdicts(node, "ruby").verdict(Edit(13, 1, [typed], "line 13: insert '/'")) is None


def test_a_bracket_of_the_other_kind_lines_above_the_error_is_made_the_closers_partner():
    # The parser reports the ']' two lines below the '{' typed for '['; the object's
    # members and the list around are as they were.
    fixed = ('{\n  "name": "stringify-nice",\n  "scripts": {\n    "test": "tap"\n  },\n'
             '  "files": [\n    "index.js"\n  ],\n  "license": "ISC"\n}\n')
    broken = fixed.replace('"files": [', '"files": {')
    assert check(broken, "json").problems[0].line == 8
    assert first_restores(fixed, broken, "json", "bracket-other-kind")


def test_a_judges_error_at_the_end_after_an_earlier_one_is_counted_with_it():
    # gofmt, thrown by a missing ';', reads on to the end for the ')' it swallowed: its
    # first error says how far it read, and the ones at the end add nothing to tell
    # two edits apart by.
    from tinycode.problems import judge_read_to, standing
    judge = "gofmt -e"
    cascade = [Problem(7, 14, 7, 15, "expected ';', found \"syscall\"", source=judge),
               Problem(14, 3, 14, 3, "expected ')', found 'EOF'", source=judge),
               Problem(14, 3, 14, 3, "expected ';', found 'EOF'", source=judge),
               Problem(6, 2, 6, 6, "unexpected '\"os\"'")]
    assert judge_read_to(cascade) == 7 and standing(cascade) == 2
    at_the_end = [Problem(14, 3, 14, 3, "expected '}', found 'EOF'", source=judge)]
    assert judge_read_to(at_the_end) is None and standing(at_the_end) == 1


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt not installed")
def test_the_keyword_put_back_that_lets_the_judge_read_furthest_is_the_first_step_of_several():
    # Three mistakes: 'package' misspelt, two imports typed on one line, a stray '#'.
    # With 'package' put back gofmt reads on to the joined imports (and, thrown by them,
    # to the end of the file); a 'var' typed before the misspelt word only moves its
    # first error along by two lines.
    original = ('// Command wait waits for a signal.\n\npackage main\n\nimport (\n\t"os"\n\t"os/signal"\n'
                '\t"syscall"\n)\n\nfunc main() {\n\tch := make(chan os.Signal, 1)\n'
                '\tsignal.Notify(ch, syscall.SIGTERM)\n\t<-ch\n}\n')
    broken = original.replace("package main", "pakage main").replace('"os/signal"\n\t', '"os/signal" ')
    found = suggest(broken, "go")
    assert found and not found[0].fixes_all
    assert found[0].source_after == broken.replace("pakage main", "package main")


@pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell")
def test_the_search_for_alternatives_pays_for_the_judges_runs_it_asks_for():
    # Once an edit clears its place, alternatives are looked for within ALTERNATIVES_WORK:
    # the shell's runs they ask for counted in it, not only tree-sitter's re-parses (where
    # tree-sitter sees nothing wrong, every edit goes to the shell).
    from tinycode.engine.candidates import ALTERNATIVES_WORK, WorkAccount
    body = "".join(f'    echo "step {n}: $1"\n    n=$((n + {n}))\n' for n in range(15))
    original = ('#!/bin/sh\n\nc=false\nwhile [ $# -gt 0 ]; do\n    case "$1" in\n        -c) c=true ;;\n    esac\n'
                '    shift\ndone\n\nrun() {\n' + body + '}\n\nif [ "$c" = true ]; then\n    run "$@"\nfi\n\ncheck() {\n'
                + body + '    if [ "$n" -gt 3 ]; then\n        echo big\n    fi\n}\n')
    broken = original.replace("c=false\nwhile", "c=false while").replace("echo big\n    fi\n", "echo big\n    if\n")
    account = WorkAccount(10 ** 9)
    found = suggest(broken, "bash", account=account)
    assert found and found[0].edit.line == 3 and found[0].problems_after == 1
    assert account.spent < 3 * ALTERNATIVES_WORK
