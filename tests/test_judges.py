"""Native judges: real gcc, node and bash processes (tests skip where a tool is missing)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import time
from itertools import islice
from pathlib import Path

import pytest

from tinycode import judges
from tinycode.judges import registry
from tinycode.engine.candidates import suggest
from tinycode.check import Problem, check, source_lines, tree_sitter_problems
from tinycode.engine.proposals import proposals
from tinycode.cli import main
from tinycode.config import Settings, load_settings
from tinycode.engine.edits import code_tokens
from tinycode.errors import ConfigError
from fake_llm import FakeLLM
from scripted import repaired_unranked
from tinycode import repair

# Every candidate equally likely: the search's own order decides (a backend that
# cannot score would leave several to the rewrite instead).
EVEN = lambda prompt, text: 0.0  # noqa: E731

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")

# tree-sitter-c accepts the stray ";" that ends the if statement before its else.
ELSE_WITHOUT_IF = "int main(void) {\n    int a = 1;\n    if (a) a = 2;;\n    else a = 3;\n    return a;\n}\n"
# tree-sitter-c accepts three repairs of this that gcc rejects (a ';' on line 3, '()', ...).
STRUCT_WITHOUT_SEMICOLON = "struct point { int x; int y; }\n\nint main(void) {\n    return 0;\n}\n"
MISSING_HEADER = ('#include "no_such_header.h"\n#include <stdio.h>\n\nint main(void) {\n'
                  '    int x = 1\n    printf("%d\\n", x);\n    return 0;\n}\n')


def gcc_accepts(text: str, tmp_path: Path) -> bool:
    """The referee, run here directly: does gcc itself accept ``text``?"""
    path = tmp_path / "referee.c"
    path.write_text(text)
    return subprocess.run(["gcc", "-fsyntax-only", "-w", str(path)], capture_output=True).returncode == 0


@needs_gcc
def test_an_error_only_the_compiler_sees_is_reported_and_repaired(tmp_path):
    judges.configure({"*": "off"})
    assert check(ELSE_WITHOUT_IF, "c").ok  # tree-sitter alone sees nothing wrong
    judges.configure()
    result = check(ELSE_WITHOUT_IF, "c")
    assert not result.ok and result.judge.startswith("gcc")
    assert result.problems[0].line == 4 and "else" in result.problems[0].message
    fixed = repair(ELSE_WITHOUT_IF, "c", llm=FakeLLM(scorer=EVEN))
    assert fixed.status == "fixed"
    assert gcc_accepts(fixed.source, tmp_path)
    # One token either way, both verified by gcc (so the model ranks them): the stray
    # ';' or the 'else' it orphaned.
    assert fixed.source in (ELSE_WITHOUT_IF.replace("2;;", "2;"), ELSE_WITHOUT_IF.replace("else a", " a"))


@needs_gcc
def test_a_repair_tree_sitter_accepts_and_the_compiler_rejects_is_refused(tmp_path):
    judges.configure({"*": "off"})
    tree_sitter_fixes = [c for c in suggest(STRUCT_WITHOUT_SEMICOLON, "c") if c.fixes_all]
    rejected = [c.source_after for c in tree_sitter_fixes if not gcc_accepts(c.source_after, tmp_path)]
    assert rejected  # the premise: tree-sitter alone would offer a repair gcc rejects
    judges.configure()
    assert not check(rejected[0], "c").ok
    with judges.baseline(STRUCT_WITHOUT_SEMICOLON, "c"):  # as during a repair
        judged = [c for c in suggest(STRUCT_WITHOUT_SEMICOLON, "c") if c.fixes_all]
    assert judged and all(gcc_accepts(c.source_after, tmp_path) for c in judged)
    want = code_tokens(STRUCT_WITHOUT_SEMICOLON.replace("}\n", "};\n", 1), "c")
    assert code_tokens(judged[0].source_after, "c") == want


@needs_gcc
def test_a_missing_header_does_not_stop_the_syntax_repair(tmp_path):
    found = judges.verdict(MISSING_HEADER, "c")
    assert found is not None
    assert [d.line for d in found.other] == [1] and "no_such_header.h" in found.other[0].message
    assert [d.line for d in found.syntax] == [6]  # the missing ';' after line 5, seen past the header
    result = repair(MISSING_HEADER, "c", llm=FakeLLM(scorer=EVEN))
    assert result.status == "fixed"
    assert "    int x = 1;\n" in result.source and result.source.startswith('#include "no_such_header.h"')


@needs_gcc
def test_a_repair_may_not_add_a_semantic_error():
    source = "int f(int a, int b) { return a + b; }\nint main(void) {\n    int s = f(1 2);\n    return s;\n}\n"
    # Outside a repair, "f(1 +2)" is syntactically fine (gcc: too few arguments, not syntax).
    assert any("f(1 +2)" in c.source_after or "f(1+ 2)" in c.source_after or "f(1 + 2)" in c.source_after
               for c in suggest(source, "c") if c.fixes_all)
    with judges.baseline(source, "c"):
        during = [c.source_after for c in suggest(source, "c") if c.fixes_all]
    assert during and all("+" not in text.split("\n")[2] for text in during)
    assert "f(1, 2)" in repair(source, "c", llm=FakeLLM(scorer=EVEN)).source.replace(",2", ", 2")


# A fragment whose types come from a header it does not include: g++ stops at the
# doubled '(' and reads the parameter list, with its unknown names, only once it is repaired.
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
FRAGMENT = ("struct walker {\n    typedef std::size_t size_type;\n\n"
            "    void\n    operator(()(node_ref node, const_node_ref end) const;\n};\n")


@needs_gxx
def test_a_repair_may_meet_more_unresolved_names_in_a_file_that_has_some():
    broken = judges.verdict(FRAGMENT, "cpp")
    assert broken is not None and broken.syntax and "size_t" in broken.other[0].message
    fixed = FRAGMENT.replace("operator(()(", "operator()(")
    assert any("node_ref" in d.message for d in judges.verdict(fixed, "cpp").other)  # revealed by the repair
    with judges.baseline(FRAGMENT, "cpp"):
        assert judges.problems(fixed, "cpp")[1] == []
        assert [c.source_after for c in suggest(FRAGMENT, "cpp") if c.fixes_all][0] == fixed


@needs_gxx
def test_names_a_syntax_error_leaves_unknown_after_it_do_not_make_the_file_a_fragment():
    # A '{' lost in an initialiser: the function ends early, so g++ reads the next line as
    # a declaration and 'cout' "does not name a type". That is the error's doing; the
    # file's types are known, and a repair that leaves g++ an error on its line is none.
    source = ("#include <iostream>\n#include <vector>\nstruct Item { const char *name; double price; };\n"
              "int main() {\n    std::vector<Item> cart{{\"tea\", 3.5}, \"cake\", 4.25}};\n"
              "    std::cout << cart.size() << std::endl;\n    return 0;\n}\n")
    assert any("does not name a type" in d.message for d in judges.verdict(source, "cpp").other)
    wrong = source.replace("3.5}, \"cake\"", "3.5, \"cake\"")  # parses; g++: no matching constructor
    with judges.baseline(source, "cpp"):
        assert [d.line for d in judges.problems(wrong, "cpp")[1]] == [5]
        assert judges.problems(source.replace("}, \"cake\"", "}, {\"cake\""), "cpp")[1] == []
        # The original's own messages are not new to it.
        assert all("(new:" not in d.message for d in judges.problems(source, "cpp")[1])


@needs_gcc
def test_an_unresolved_name_is_still_new_in_a_file_that_resolves_its_names():
    source = "int main(void) {\n    int total = 0\n    total += 1;\n    return total;\n}\n"
    deleted = source.replace("    int total = 0\n", "    total = 0;\n")  # parses, but 'total' is undeclared
    assert judges.verdict(deleted, "c").syntax == ()
    with judges.baseline(source, "c"):
        _, found = judges.problems(deleted, "c")
    assert found and "undeclared" in found[0].message


@needs_gcc
def test_what_gcc_says_of_an_initialiser_it_skipped_after_its_syntax_error_is_allowed_where_names_are_unresolved():
    # gcc skips the declaration its syntax error broke: once repaired, its entries name a
    # function whose unknown types left it undeclared, which the repair did not cause.
    broken = ('#include "binding.h"\n\nstatic Object *language(Object *self) {\n    return capsule(self);\n}\n\n'
              'static MethodDef methods[] == {\n    {"language", language, NO_ARGS,\n     "The grammar."},\n'
              '    {NULL, NULL, 0, NULL}\n};\n')
    fixed = broken.replace("[] == {", "[] = {")
    assert any(d.line > 7 for d in judges.verdict(fixed, "c").other)
    with judges.baseline(broken, "c"):
        assert judges.problems(fixed, "c")[1] == []


PROBE_C = "int probe(open, path)(void *ctx int flags)\n{\n    return flags == 2;\n}\n"


@needs_gcc
def test_what_gcc_says_of_a_line_it_could_not_parse_is_allowed_only_where_names_are_unresolved():
    # Once the ',' is back gcc reads the declaration and, the macro's header missing,
    # calls it a function returning a function: the repair revealed it, not caused it.
    with_header = '#include "probes.h"\n\n' + PROBE_C
    fixed = with_header.replace("ctx int", "ctx, int")
    assert any("returning a function" in d.message for d in judges.verdict(fixed, "c").other)
    with judges.baseline(with_header, "c"):
        assert judges.problems(fixed, "c")[1] == []
        # (A repair that leaves gcc's syntax message where tree-sitter sees nothing is no fix.)
        assert [c.source_after for c in suggest(with_header, "c") if c.fixes_all] == [fixed]
    # Without the macro's header, what gcc says of that line alone may be the macro's
    # doing: where tree-sitter sees nothing, the file is checked by the parser only.
    hidden = with_header.replace("ctx int", "ctx() int")
    result = check(hidden, "c")
    assert result.ok and result.note == "types unknown: checked by the parser only"
    # The same line in a file that resolves its names: the message is new, and counts.
    with judges.baseline(PROBE_C, "c"):
        _, found = judges.problems(PROBE_C.replace("ctx int", "ctx, int"), "c")
    assert any("returning a function" in d.message for d in found)


@needs_gcc
def test_every_token_the_compiler_names_as_expected_is_inserted_after_the_token_before():
    source = "int add(int a int b)\n{\n    return a + b;\n}\n"
    result = check(source, "c")
    assert "expected ';', ',' or ')' before 'int'" in result.problems[0].message
    first = list(islice(proposals(source_lines(source), result.problems, "c"), 3))
    assert [e.new_lines[0] for e in first] == [f"int add(int a{token} int b)" for token in ";,)"]
    assert [c.source_after for c in suggest(source, "c") if c.fixes_all][0] == source.replace("a int", "a, int")


QUEUE_JS = ("class Queue {\n  constructor() {\n    this.items = [];\n  }\n\n  push(item) {\n"
            "    this.items.push(item);\n  }\n\n  pop() {\n    return this.items.shift();\n  }\n\n"
            "  get size() {\n    return this.items.length;\n  }\n}\n")


@needs_node
def test_a_class_closed_early_and_left_open_at_the_end_is_repaired_at_both_places():
    # The constructor's '}' typed twice, and the class's own '}' lost at the end. Edits
    # that only move node's error along (a ';' before the next method) must not be
    # taken for the same mistake repeated, nor rank above the deletion.
    broken = QUEUE_JS.replace("this.items = [];\n  }\n", "this.items = [];\n  }}\n", 1)
    broken = broken[:broken.rindex("}")]
    with judges.baseline(broken, "javascript"):
        found = [c for c in suggest(broken, "javascript") if c.fixes_all]
    assert found and code_tokens(found[0].source_after, "javascript") == code_tokens(QUEUE_JS, "javascript")


@needs_node
def test_a_string_left_open_where_node_points_is_closed_not_deleted():
    # node points at the opening quote; deleting the token would take the whole
    # directive (the rest of its line) with it, though no fix needs that.
    fixed = "'use strict';\n\nconst path = require('path');\nmodule.exports = path.join('a', 'b');\n"
    broken = fixed.replace("'use strict';", "'use strict;")
    with judges.baseline(broken, "javascript"):
        found = [c for c in suggest(broken, "javascript") if c.fixes_all]
    assert found and all("use strict" in c.source_after for c in found)
    assert code_tokens(found[0].source_after, "javascript") == code_tokens(fixed, "javascript")


@needs_bash
def test_of_two_complete_fixes_the_one_tree_sitter_also_accepts_is_kept():
    # A function that lost its '{': sh -n notices only at the closing '}', 27 lines on,
    # where deleting the '}' also parses (the body becomes top-level code).
    fixed = (Path(__file__).parent / "data" / "clock.sh").read_text()
    broken = fixed.replace("save_clock()\n{\n", "save_clock()\n\n")
    assert check(broken, "bash").problems[0].line == 36
    assert check(broken.replace("    esac\n}\n", "    esac\n\n"), "bash").ok
    with judges.baseline(broken, "bash"):
        found = [c.edit.description for c in suggest(broken, "bash", limit=20) if c.fixes_all]
    assert found and all(description.startswith("line 9: insert") for description in found)


@needs_node
def test_a_module_is_checked_as_one_whatever_its_extension():
    # node --check passes a .js text with import/export unread once it has seen the
    # module syntax (node 20.19+): the error after it must still be found.
    module = "import path from 'node:path';\n\nexport const join = (a, b) => path.join(a b);\n"
    found = check(module, "javascript").problems
    assert found and found[0].source == "node --check" and found[0].line == 3
    assert check(module.replace("a b", "a, b"), "javascript").ok
    assert check("const m = import('node:path');\nconst a = ;\n", "javascript").problems[0].line == 2


@needs_node
def test_a_keyword_of_module_syntax_anywhere_a_statement_starts_makes_a_module():
    # node reads `export` as module syntax whatever follows it, and passes the text unread:
    # an `export` typed before a function's `}` (its body then closed early) is no repair.
    script = ("function total(items) {\n  let sum = 0;\n  for (const item of items )\n"
              "    sum += item;\n  }\n  return sum;\nexport}\n")
    found = check(script, "javascript").problems
    assert found and found[0].source == "node --check"
    assert check("let a = 1; export{a};\n", "javascript").ok
    assert check("const o = {\n  export: 1,\n  import() { return 2; },\n};\nmodule.exports = o;\n", "javascript").ok


@needs_gcc
def test_verdicts_are_remembered_per_text():
    check(ELSE_WITHOUT_IF, "c")
    before = judges.calls()
    for _ in range(5):
        check(ELSE_WITHOUT_IF, "c")
    assert judges.calls() == before


@needs_gcc
def test_a_repair_pays_for_each_text_once_whatever_the_process_remembers():
    check(ELSE_WITHOUT_IF, "c")  # judged (and remembered) before the repair
    with judges.account():
        assert judges.calls() == 0
        check(ELSE_WITHOUT_IF, "c")
        one_run = judges.calls()
        assert one_run == registry.run_cost("c") > 0  # counted as if it ran: the budget is the same either way
        check(ELSE_WITHOUT_IF, "c")
        assert judges.calls() == one_run


needs_rustfmt = pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt not installed")


@needs_rustfmt
def test_rustfmt_judges_a_file_it_would_format_otherwise_and_one_whose_modules_are_elsewhere():
    # Neither a layout of the file's own nor a ``mod`` file of its project is a syntax
    # error: the verdict is rustfmt's, not tree-sitter's alone.
    unformatted = "mod parser;\nfn main(){let x=1;println!(\"{}\",x)}\n"
    accepted = check(unformatted, "rust")
    assert accepted.ok and accepted.judge == "rustfmt"
    broken = check(unformatted.replace("x=1;", "x=;"), "rust")
    assert not broken.ok and broken.judge == "rustfmt" and broken.problems[0].line == 2
    # Once the file parses rustfmt would look for the module's file: its absence is no
    # problem of this text, and the repair leaves the declaration as it is.
    clean = "mod parser;\n\nfn main() {\n    let best: Option<&str> = None;\n    println!(\"{:?}\", best);\n}\n"
    fixed = repair(clean.replace("> = None", "> None"), "rust", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert fixed.status == "fixed" and fixed.verified_by == "rustfmt"
    changed = [n for n, (a, b) in enumerate(zip(clean.split("\n"), fixed.source.split("\n")), 1) if a != b]
    assert changed in ([], [4]) and fixed.source.startswith("mod parser;\n")


@pytest.mark.skipif(shutil.which("php") is None, reason="php not installed")
def test_php_s_error_is_placed_at_the_token_it_names_where_the_line_has_it_once():
    # php -l says only the line; the token it did not expect says where on it.
    source = "<?php\nforeach ($values as $key $value) {\n    echo $key;\n}\n"
    problem = check(source, "php").problems[0]
    assert problem.source == "php -l" and (problem.line, problem.column) == (2, source.split("\n")[1].index("$value)") + 1)
    twice = "<?php\n$a = $b $b;\n"
    assert check(twice, "php").problems[0].column == 1  # not to be told apart


@needs_node
def test_javascript_that_fails_as_commonjs_as_a_module_would_is_asked_of_as_a_module():
    # node --check passes ``if (ready, export)`` in a .js file unread (its retry as a
    # module is never compiled): the text is no CommonJS and no module.
    broken = "function start() {}\nif (ready, export) {\n  start()\n}\n"
    result = check(broken, "javascript")
    assert not result.ok and result.judge == "node --check" and result.problems[0].line == 2
    assert check(broken.replace(", export", ""), "javascript").ok
    assert check("// export the start\nmodule.exports = function start() {}\n", "javascript").ok


def test_a_missing_tool_leaves_tree_sitter_to_judge(tmp_path):
    judges.configure({"c": str(tmp_path / "gcc")})  # named by the user, not there
    result = check("int main(void) { return 0 }\n", "c")
    assert result.judge == "tree-sitter" and not result.ok
    assert judges.describe(["c"]) == {"c": "tree-sitter only"}


def test_a_hanging_tool_is_given_up_on(tmp_path):
    fake = tmp_path / "gcc"
    fake.write_text("#!/bin/sh\nsleep 30\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    judges.configure({"c": str(fake)}, timeout=0.5)
    start = time.perf_counter()
    first = check("int main(void) { return 0 }\n", "c")
    assert time.perf_counter() - start < 5
    assert first.judge == "tree-sitter" and not first.ok
    start = time.perf_counter()
    check("int main(void) { return 1 }\n", "c")  # not asked again in this process
    assert time.perf_counter() - start < 0.4


def test_a_slow_judge_stops_at_the_file_deadline_and_the_file_is_left_whole(tmp_path, capsys):
    """A judge slower than the file's --timeout: the repair ends at the deadline (the
    judge's run on the original counts), nothing is written, and the judge is not taken
    for hung (another file with more time still gets its verdicts)."""
    fake = tmp_path / "gcc"
    fake.write_text("#!/bin/sh\nfor f; do :; done\nsleep 4\necho \"$f:1:27: error: expected ';' before '}' token\" >&2\n"
                    "exit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    judges.configure({"c": str(fake)}, timeout=10)
    broken = "int main(void) { return 0 }\n"
    start = time.perf_counter()
    result = repair(broken, "c", llm=FakeLLM(scorer=EVEN), settings=Settings(timeout=1.0))
    assert time.perf_counter() - start < 2.5
    assert result.status == "failed" and "time budget" in result.reason and result.source == broken
    assert judges.verdict("int main(void) { return 2 }\n", "c") is not None  # not given up on


@needs_node
def test_node_judges_javascript_and_its_line_comes_first():
    source = "function f(a) {\n  return [a, a;\n}\n"
    result = check(source, "javascript")
    assert result.judge == "node --check"
    assert result.problems[0].source == "node --check" and result.problems[0].message.startswith("SyntaxError")
    assert check("export const a = 1;\nimport x from 'y';\n", "javascript").ok  # ES module syntax
    assert check("const e = <div>{1}</div>;\n", "javascript").ok  # JSX: node cannot read it, tree-sitter can
    fixed = repair(source, "javascript", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed" and check(fixed.source, "javascript").judge == "node --check"


@needs_bash
def test_a_semicolon_dropped_before_then_far_above_the_report_is_repaired():
    body = "".join(f"    echo \"step {n}\"\n" for n in range(12))
    clean = ("#!/bin/bash\nset -eu\n\nlog() {\n    printf '%s\\n' \"$*\" >&2\n}\n\n"
             "for name in alpha beta gamma; do\n    log \"$name\"\ndone\n\n"
             f"if [ \"${{1:-}}\" = \"--all\" ]; then\n{body}else\n    log none\nfi\n")
    broken = clean.replace('= "--all" ]; then', '= "--all" ] then')
    result = check(broken, "bash")
    assert result.judge == "bash -n" and result.problems[0].line > 20  # reported at the else
    fixed = repair(broken, "bash", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed" and fixed.source == clean


SCRIPT = ("#!/bin/sh\nset -e\n\nfor f in \"$@\"; do\n    case $f in\n        *.gz) gzip -t \"$f\" ;;\n"
          "        *) echo \"skip $f\" ;;\n    esac\ndone\n\n"
          + "".join(f"echo \"line {n}\"\n" for n in range(15))
          + "if [ -n \"$VERBOSE\" ]; then\n    echo done\nfi\n")


@needs_bash
@pytest.mark.parametrize("lost, back", [
    ("    case $f in", "    $f in"),  # reported at the first item; its esac closes nothing
    ("if [ -n", "[ -n"),  # reported at its then
    ("for f in", "f in"),  # reported at its do
])
def test_a_block_that_lost_its_opening_word_gets_it_back(lost, back):
    broken = SCRIPT.replace(lost, back)
    assert not check(broken, "bash").ok
    fixed = repair(broken, "bash", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed" and fixed.source == SCRIPT


@needs_bash
@pytest.mark.parametrize("lost, back", [
    ("    esac\ndone\n", "    esac\n"),  # the shell reports the missing done at the end
    ('gzip -t "$f" ;;', 'gzip -t "$f ;;'),  # the string runs on to the next quote, far below
])
def test_a_block_word_or_quote_lost_far_from_the_report_is_put_back(lost, back):
    broken = SCRIPT.replace(lost, back)
    result = check(broken, "bash")
    assert result.problems and min(p.line for p in result.problems) > 9 + 6  # beyond the guard's reach
    fixed = repair(broken, "bash", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed" and check(fixed.source, "bash").ok
    assert fixed.source == SCRIPT


@needs_bash
def test_a_token_the_shell_asked_for_is_progress_when_it_then_asks_for_another_at_the_same_line():
    # dash stops at the ``fi`` expecting ``done`` (misspelt above it); given ``done``, it
    # stops there again expecting ``then``: the ``~`` typed before it far above is the
    # second mistake, not the respelling's.
    clean = ('#!/bin/sh\nif [ -d "$DIR"/remotes ]; then\n\techo "Rewriting $DIR/remotes" >&2\n'
             + "".join(f'\techo "step {n}"\n' for n in range(12))
             + '\tfor f in "$DIR"/remotes/*; do\n\t\tname=$(basename "$f")\n\t\techo "$name"\n\tdone\nfi\n')
    broken = clean.replace("; then", ";~ then").replace("\tdone\n", "\tdonee\n")
    result = check(broken, "bash")
    assert result.problems[0].message == 'Syntax error: "fi" unexpected (expecting "done")'
    fixed = repair(broken, "bash", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed" and fixed.source == clean


LAUNCH_SH = ('#!/bin/sh\nGDBPATH="$(command -v gdb)"\nif [ -n "$CYGWIN" ]; then\n'
             '\tGDBPATH="$(cygpath -am "$GDBPATH")"\nfi\n' + "".join(f'echo "step {n}"\n' for n in range(12))
             + 'printf "%s (gdb) Launch\\n" "$GDBPATH"\n')


@needs_bash
def test_a_line_cut_short_inside_a_substitution_is_closed_at_its_end():
    # The string runs on from the cut line, and the shell reports where quotes pair up
    # wrongly, 14 lines below: the line gets '")"', all it left open, innermost first.
    broken = LAUNCH_SH.replace('"$GDBPATH")"\n', '"$GDBPATH\n')
    assert check(broken, "bash").problems[0].line > 4 + 6
    fixed = repair(broken, "bash", llm=FakeLLM(default="", scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed" and fixed.source == LAUNCH_SH


CASE_SCRIPT = ("case \"$1\" in\n-h)\n\techo \"usage: build [-n] target\"\n\texit 0\n\t;;\n-n)\n\trun=\"cat\"\n"
               "\tshift\n\t;;\nesac\n\nflags=\"\"\nif [ \"$(uname)\" = Linux ]; then\n\tflags=\"-static\"\n"
               "\techo \"linking statically\"\nfi\necho \"$flags\"\n")


@needs_bash
def test_a_quote_that_only_re_pairs_the_quotes_after_it_is_not_a_repair():
    """A `fi` lost and a closing quote lost 20 lines on: a '"' put at the start of the
    `if` line also makes `bash -n` accept the file, by pairing every quote after it
    differently. An edit that leaves a string open on its own line is never taken."""
    body = "".join(f'echo "step {n}: $dir"\n' for n in range(16))
    clean = ('#!/bin/bash\nset -eu\n\nif [ "$#" -ne 1 ]; then\n  echo usage >&2\n  exit 1\nfi\n\n'
             'dir="$1"\n' + body + 'echo "total: $dir"\n')
    broken = clean.replace("  exit 1\nfi\n", "  exit 1\n").replace('echo "total: $dir"', 'echo "total: $dir')
    fixed = repair(broken, "bash", llm=FakeLLM(default="no", scorer=lambda prompt, text: -len(text)))
    assert '"if' not in fixed.source and 'set -eu"' not in fixed.source
    if fixed.status == "fixed":
        assert "fi\n" in fixed.source and fixed.source.count('"') % 2 == 0


def test_far_from_every_problem_a_line_may_gain_only_the_partner_of_a_block_or_string():
    from tinycode.engine.guard import far_from_problems

    problem = check(SCRIPT.replace("    esac\ndone\n", "    esac\n"), "bash").problems
    far = SCRIPT.replace("    esac\ndone\n", "    esac\n")
    assert not far_from_problems(far, SCRIPT, "bash", problem, 6)  # done put back
    sneaky = SCRIPT.replace("set -e\n", "set -e; rm -rf ~\n")
    assert far_from_problems(far, sneaky.replace("    esac\ndone\n", "    esac\n").replace(
        "    esac\n", "    esac\ndone\n", 1), "bash", problem, 6)  # and nothing else


def test_far_above_a_problem_a_quote_may_be_made_the_other_kind_and_nothing_else():
    from tinycode.engine.guard import far_from_problems

    lines = [f"echo 'line {n}'" for n in range(20)]
    clean = "\n".join(lines) + "\n"
    broken = clean.replace("echo 'line 3'", "echo 'line 3\"")
    report = check(broken, "bash").problems
    assert report and min(p.line for p in report) > 4 + 6
    assert not far_from_problems(broken, clean, "bash", report, 6)
    assert far_from_problems(broken, broken.replace("echo 'line 3\"", "echo 'line 4\""), "bash", report, 6)


def test_far_above_a_problem_a_closer_typed_twice_may_be_deleted_and_no_other():
    from tinycode.check import Problem
    from tinycode.engine.guard import far_from_problems

    methods = "".join(f"  m{i}() {{\n    return {i};\n  }}\n\n" for i in range(6))
    clean = "class A {\n" + methods + "}\n"
    broken = clean.replace("    return 0;\n  }\n", "    return 0;\n  }}\n")
    report = [Problem(24, 3, 24, 3, "SyntaxError: Unexpected token '{'", "", "compiler", "node --check")]
    assert not far_from_problems(broken, clean, "javascript", report, 6)
    # The method's own closer, or a closer below the problem, is still far.
    assert far_from_problems(broken, broken.replace("    return 0;\n  }}\n", "    return 0;\n  }\n}\n"),
                             "javascript", report, 6)
    assert far_from_problems(broken, broken.replace("    return 0;\n  }}\n", "    return 0;\n  \n}\n"),
                             "javascript", report, 6)


def test_a_block_that_lost_its_opener_where_a_closer_below_is_indented_deeper_gets_it_back():
    from tinycode.check import Problem, source_lines
    from tinycode.engine.proposals import proposals

    lines = ["class A {", "  send() {", "    if (this.ready) ", "      go();", "    } else {", "      wait();",
             "    }", "  }", "}"]
    report = Problem(5, 5, 5, 5, "SyntaxError: Unexpected token 'else'", "", "compiler", "node --check")
    order = [e.description for e in proposals(lines, (report,), "javascript")]
    assert order.index("line 3: insert '{'") < 3


def test_a_project_may_turn_judges_off_but_not_choose_one(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.tinycode]\njudges = {c = "clang"}\n')
    untrusted = load_settings(None, tmp_path)
    assert untrusted.judges == {} and "ignored judges" in untrusted.notes[0]
    (tmp_path / "pyproject.toml").write_text('[tool.tinycode]\njudges = {c = "off"}\njudge-timeout = 2\n')
    settings = load_settings(None, tmp_path)
    assert settings.judges == {"c": "off"} and settings.judge_timeout == 2
    # The user's own environment and flags may name the program.
    mine = load_settings({"judges": "c=clang,bash=off"}, tmp_path, environ={"TINYCODE_JUDGES": "cpp=g++"})
    assert mine.judges == {"c": "clang", "bash": "off"}
    assert load_settings(None, tmp_path / "..", environ={"TINYCODE_JUDGES": "cpp=g++"}).judges == {"cpp": "g++"}
    with pytest.raises(ConfigError):
        load_settings({"judges": "c=/usr/bin/python3"}, tmp_path)  # not a judge tinycode can read


@needs_gcc
def test_check_json_names_the_judge_and_verbose_lists_them(tmp_path, capsys):
    path = tmp_path / "else.c"
    path.write_text(ELSE_WITHOUT_IF)
    assert main(["check", "--json", str(path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report[0]["judge"].startswith("gcc") and report[0]["problems"][0]["source"].startswith("gcc")
    assert main(["check", "--json", "--judges", "c=off", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["judge"] == "tree-sitter"
    assert main(["check", "-v", str(path)]) == 1
    err = capsys.readouterr().err
    assert "judges on this machine" in err and "python      CPython compile()" in err


def test_yaml_and_toml_are_judged_in_process():
    pytest.importorskip("yaml")
    result = check("a: 1\nb: [1, 2\nc: 3\n", "yaml")
    assert result.judge == "PyYAML" and not result.ok
    assert check("key: !Ref Thing\n", "yaml").ok  # a custom tag is not a syntax error
    toml = check('[server]\nport = 80\nhost = "a\n', "toml")
    assert toml.judge == "tomllib" and toml.problems[0].line == 3


SHAPES_YAML = (Path(__file__).parent / "data" / "shapes.yaml").read_text()  # a valid file tree-sitter misreads


def test_a_yaml_bracket_left_open_is_named_where_it_opened_and_closed_there():
    pytest.importorskip("yaml")
    broken = SHAPES_YAML.replace("y: 102}", "y: 102")
    first = check(broken, "yaml").problems[0]
    assert first.line == 16 and "flow mapping opened on line 14" in first.message
    with judges.baseline(broken, "yaml"):
        assert [c.source_after for c in suggest(broken, "yaml") if c.fixes_all][0] == SHAPES_YAML


def test_two_yaml_mistakes_are_repaired_where_tree_sitter_misreads_the_file():
    # tree-sitter-yaml rejects the valid file (a directive after a document): its error
    # spans the first mistake, and sees nothing at the second. PyYAML decides.
    pytest.importorskip("yaml")
    assert check(SHAPES_YAML, "yaml").ok and tree_sitter_problems(SHAPES_YAML, "yaml")
    broken = SHAPES_YAML.replace("y: 0}", "y: 0}}").replace("y: 2}", "y: 2")
    with judges.baseline(broken, "yaml"):
        assert [c.source_after for c in suggest(broken, "yaml") if c.fixes_all][0] == SHAPES_YAML


def test_clang_categories_decide_what_is_syntax():
    from tinycode.judges.base import Output
    from tinycode.judges.readers import read_cc

    err = ("input.c:3:14: error: expected ';' after expression [Parse Issue]\n"
           "input.c:4:5: error: use of undeclared identifier 'y' [Semantic Issue]\n"
           "input.c:1:10: fatal error: 'nope.h' file not found [Lexical or Preprocessor Issue]\n")
    found = read_cc(Output(1, "", err), "input.c", "")
    assert [(d.line, d.syntax) for d in found] == [(3, True), (4, False), (1, False)]
    assert found[0].message == "expected ';' after expression"


def test_judges_off_in_the_environment(monkeypatch):
    monkeypatch.setenv("TINYCODE_JUDGES", "off")
    judges.configure()
    assert check("int main(void) { return 0 }\n", "c").judge == "tree-sitter"
    assert os.environ["TINYCODE_JUDGES"] == "off"


# A method closed twice: node reports the next method, lines below the stray "}".
CLASS_CLOSED_EARLY = """class Cache {
  constructor() {
    this.items = new Map();
  }

  get(key) {
    return this.items.get(key);
  }}

  /**
   * Store a value.
   * @param {string} key
   * @param {*} value
   */
  set(key, value) {
    this.items.set(key, value);
  }
}

module.exports = Cache;
"""


@needs_node
def test_a_stray_closer_lines_above_the_report_is_deleted_even_when_the_judge_runs_are_spent(monkeypatch):
    from tinycode.engine import candidates

    # No run of node for the search's own proposals: tree-sitter's favourites (the
    # edits that leave it the fewest problems) still get one each.
    monkeypatch.setattr(candidates, "MAX_JUDGE_CALLS", 0)
    with judges.baseline(CLASS_CLOSED_EARLY, "javascript"):
        before = judges.calls()
        found = [c for c in suggest(CLASS_CLOSED_EARLY, "javascript") if c.fixes_all]
        assert judges.calls() - before <= candidates.JUDGE_FAVOURITES * registry.run_cost("javascript")
    assert CLASS_CLOSED_EARLY.replace("  }}\n", "  }\n") in [c.source_after for c in found]


@needs_node
def test_a_block_closed_twice_above_the_report_is_among_the_first_edits_the_judge_tries(monkeypatch):
    from tinycode.engine import candidates

    # Three runs of node, no favourites: after the token the report names as missing
    # and the one it points at, the deletion comes next.
    monkeypatch.setattr(candidates, "MAX_JUDGE_CALLS", 3 * registry.run_cost("javascript"))
    monkeypatch.setattr(candidates, "JUDGE_FAVOURITES", 0)
    with judges.baseline(CLASS_CLOSED_EARLY, "javascript"):
        found = [c for c in suggest(CLASS_CLOSED_EARLY, "javascript") if c.fixes_all]
    assert CLASS_CLOSED_EARLY.replace("  }}\n", "  }\n") in [c.source_after for c in found]


@needs_node
def test_an_error_at_the_end_of_the_input_is_placed_where_the_code_ends():
    source = "function f(x) {\n  if (x) {\n    return 1;\n  }\n\n\n\n"
    problem = next(p for p in check(source, "javascript").problems if p.source != "tree-sitter")
    assert (problem.line, problem.column) == (4, 4)


def test_the_header_block_is_what_the_file_begins_with_up_to_its_last_system_include():
    from tinycode.judges.precompiled import split_block

    def block(text: str) -> str:
        block, rest, _ = split_block(text)
        assert rest.count("\n") == text.count("\n")  # every line where it was
        return block

    text = "/* licence\n   text */\n// note\n#define _GNU_SOURCE\n#include <stdio.h>\n\n#include <string.h>\nint x;\n"
    # (its comments stay in the text: an edit of their words leaves the block as it was)
    assert split_block(text) == ("#define _GNU_SOURCE\n#include <stdio.h>\n#include <string.h>\n",
                                 "/* licence\n   text */\n// note\n\n\n\n\nint x;\n", None)
    # A local header or a conditional ends it: what follows may depend on them.
    assert block('#include <stdio.h>\n#include "mine.h"\n#include <string.h>\n') == "#include <stdio.h>\n"
    # A header's include guard stays in the text; the block defines its macro while it
    # reads the headers, as the file does, and undefines it for the text.
    guarded = "#ifndef GUARD_H\n#define GUARD_H\n#include <stdio.h>\nint x;\n#endif\n"
    assert split_block(guarded) == ("#define GUARD_H\n#include <stdio.h>\n#undef GUARD_H\n",
                                    "#ifndef GUARD_H\n#define GUARD_H\n\nint x;\n#endif\n", "GUARD_H")
    # A guard being repaired: its #ifndef still opens a group the compiler reads, and
    # whatever its #define names is defined as the file defines it (none: nothing).
    assert split_block("#ifndef GUARD_H\n#define OTHER_H 1\n#include <stdio.h>\n#endif\n") == (
        "#define OTHER_H 1\n#include <stdio.h>\n#undef OTHER_H\n", "#ifndef GUARD_H\n#define OTHER_H 1\n\n#endif\n",
        "GUARD_H")
    assert split_block("#ifndef GUARD_H\n#define\n#include <stdio.h>\n#endif\n") == (
        "#include <stdio.h>\n", "#ifndef GUARD_H\n#define\n\n#endif\n", "GUARD_H")
    assert split_block("#ifndef GUARD_H\n#include <stdio.h>\n")[2] == "GUARD_H"
    # A nameless #ifndef makes the compiler skip its group, headers and all.
    assert block("#ifndef\n#define GUARD_H\n#include <stdio.h>\n#endif\n") == ""
    assert block("#include <stdio.h>\n#ifndef GUARD_H\n#define GUARD_H\n#include <string.h>\n") == "#include <stdio.h>\n"
    text = "int main(void) { return 0; }\n#include <stdio.h>\n"
    assert split_block(text) == ("", text, None)


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_precompiled_standard_headers_leave_every_verdict_as_it_was(monkeypatch):
    from tinycode.judges import precompiled

    head = "// example\n#include <string>\n#include <vector>\n\n"
    body = ["int f(std::vector<int> v) {\n    return v.size();\n}\n",
            "int f(std::vector<int> v) {\n    return v.size()\n}\n",
            "int f(std::vector<int> v {\n    return v.size();\n}\n",
            "std::string g() { return \"a\" + std::string(\"b\"); }\nint h() { return undeclared; }\n",
            "int f(std::vector<int> v) {\n    return v.size();\n}}\n"]
    texts = [head + b for b in body] + ["#include <vector\nint x;\n"]
    guarded = "#ifndef LIB_H\n#define LIB_H\n" + head
    texts += [guarded + b + "#endif\n" for b in body[:2]]
    # Guards being repaired, and #ifndef tests whose macro the compiler or the headers
    # define (read before the headers, they skip the group or do not).
    for opening in ("#ifndef LIB_H\n#define\n", "#ifndef LIB_H\n#define OTHER_H\n", "#ifndef LIB_H\n",
                    "#ifndef __cplusplus\n#define LIB_H\n", "#ifndef _GLIBCXX_VECTOR\n"):
        texts += [opening + head + b + "#endif\nstd::vector<int> after;\n" for b in body[:2]]
    monkeypatch.setattr(precompiled, "RUNS_BEFORE_BUILD", 10 ** 6)
    judges.configure()
    plain = [judges.verdict(t, "cpp") for t in texts]
    monkeypatch.setattr(precompiled, "RUNS_BEFORE_BUILD", 1)
    judges.configure()
    assert [judges.verdict(t, "cpp") for t in texts] == plain
    built = judges._state.headers._built
    assert list(built) and all(header is not None for header in built.values())  # built once, and used
    assert [d.line for d in plain[1].syntax] == [6] and not plain[0].diagnostics
    judges.configure()


@needs_node
def test_a_verdict_belongs_to_its_edit_not_to_a_later_one_at_the_same_address(monkeypatch):
    # The search lets most edits go, and a new one may be made at a freed one's
    # address: with every edit given the same identity, each still gets its own verdict.
    from tinycode.engine import candidates
    from tinycode.engine.edits import Edit

    monkeypatch.setattr(candidates, "id", lambda obj: 0, raising=False)
    source = "function f(a) {\n  return a +;\n}\n\nmodule.exports = f;\n"
    lines = source_lines(source)
    node = candidates._Node(lines, True, check(source, "javascript").problems, (), 0)
    judge = candidates._ReparseVerdicts(node, "javascript", judges.calls() + 100)
    assert judge.judged(Edit(2, 1, ["  return a + 1;"], "line 2: insert '1'"), lines) == candidates.FIXED
    assert judge.judged(Edit(2, 1, ["  return a +; // still"], "line 2: a comment"), lines) is None


@needs_gcc
def test_a_parser_in_this_process_costs_no_judge_runs():
    # PyYAML costs what a re-parse does: the search's work budget bounds it, and its
    # judge runs stay for compilers.
    with judges.account():
        judges.verdict("key: 1\n", "yaml")
        judges.verdict("key: [1\n", "yaml")
        assert judges.calls() == 0
        judges.verdict("int main(void) { return 0; }\n", "c")
        assert judges.calls() == registry.run_cost("c")


@needs_gcc
def test_a_repair_of_punctuation_on_a_line_the_compiler_first_reads_adds_no_problem():
    # gcc skips the whole initialiser after the '==' on line 1, so the original has no
    # other messages; once that is repaired gcc reads on, and the names in it are
    # undeclared in this fragment. The repair of line 3 changes only its punctuation.
    source = ("void *api[] == {\n    (void *) &first_type,\n    (void *,) &second_type,\n"
              "    (void *) &third_type,\n};\n")
    step = source.replace("api[] ==", "api[] =")
    fixed = step.replace("(void *,)", "(void *)")
    assert judges.verdict(source, "c").other == ()
    assert any("second_type" in d.message for d in judges.verdict(fixed, "c").other)
    with judges.baseline(source, "c"):
        assert judges.problems(fixed, "c")[1] == []
        # A word changed on such a line is another matter: the name may be used anew.
        renamed = fixed.replace("&second_type", "&second_typo")
        assert any("second_typo" in d.message for d in judges.problems(renamed, "c")[1])


@needs_gcc
def test_where_types_are_unknown_a_change_is_verified_with_the_unknown_names_declared():
    original = ("#include \"project.h\"\n\nint count(const item_t *items, size_t n) {\n"
                "    size_t total = 0\n    for (size_t i = 0; i < n; i++) {\n"
                "        total += ((const item_t *) items)[i].weight;\n    }\n    return (int) total;\n}\n")
    repaired = original.replace("total = 0\n", "total = 0;\n")
    assert judges.unverified_changes(original, repaired, "c") == []
    # A change gcc still rejects once UNSIGNED is known as a type: two types in one declaration.
    broken = original.replace("    return (int) total;", "    UNSIGNED char d\n    return (int) total;")
    wrong = broken.replace("UNSIGNED char d\n", "UNSIGNED char d;\n").replace("total = 0\n", "total = 0;\n")
    doubts = judges.unverified_changes(broken, wrong, "c")
    assert [d.line for d in doubts] == [8] and "two or more data types" in doubts[0].message


SCHED_H = ("#ifndef SCHED_H\n#define SCHED_H\n\n#include <stddef.h>\n#define __SCHED_STR(x) # x\n#define SCHED_RR 2\n\n"
           "extern int sched_yield (void);\n\n"
           "#ifdef __USE_GNU\n# define CPU_SETSIZE 1024\n#else\n# ifdef __USE_MISC\n#  define CPU_SETSIZE 128\n"
           "# endif\n#endif\n\nextern int sched_get_priority_max (int __algorithm);\n\n#endif\n")


@needs_gcc
@pytest.mark.parametrize("joined", ["#else # ifdef __USE_MISC\n", "# endif #endif\n"])
def test_two_directive_lines_typed_as_one_are_split(joined):
    # The preprocessor sees one directive: a conditional goes unpaired, and gcc says so
    # at its opening line or at the file's end, not at the joined line.
    first, second = joined.rstrip("\n").rsplit(" #", 1)
    broken = SCHED_H.replace(f"{first}\n#{second}\n", joined)
    assert broken != SCHED_H and not check(broken, "c").ok
    fixed = repair(broken, "c", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed" and fixed.source == SCHED_H
    # Wherever the joined line is: the line it is split into is proposed whole, and a
    # macro's '#' (which makes a string) is no directive.
    splits = [e.new_lines for e in proposals(source_lines(broken), check(broken, "c").problems, "c")
              if e.rule == "directives-joined"]
    assert splits == [[first, "#" + second]]


def test_an_else_met_after_an_else_is_a_conditional_unpaired():
    # "#else after #else": the inner conditional's '# ifdef' was typed onto the outer's
    # '#else', so its own '# else' pairs with the outer one.
    nested = SCHED_H.replace("#  define CPU_SETSIZE 128\n", "#  define CPU_SETSIZE 128\n# else\n#  define CPU_SETSIZE 64\n")
    broken = nested.replace("#else\n# ifdef __USE_MISC\n", "#else # ifdef __USE_MISC\n")
    line = broken.split("\n").index("# else") + 1
    said = (Problem(line, 3, line, 3, "#else after #else", kind="compiler", source="gcc -fsyntax-only"),)
    splits = [e for e in proposals(source_lines(broken), said, "c") if e.rule == "directives-joined"]
    assert [e.new_lines for e in splits] == [["#else", "# ifdef __USE_MISC"]] and splits[0].direct


C_MACROS = """#define THROW __attribute__ ((__nothrow__))
#define BEGIN_DECLS
#define END_DECLS

BEGIN_DECLS

extern int f (int a) THROW;
extern int g (int a, int b) THROW;

int h (int a)
{
  return a + 1;
}

END_DECLS
"""


@needs_gcc
def test_where_the_compiler_reports_tree_sitter_s_objections_to_other_lines_are_no_problems():
    # gcc reports every error it meets: tree-sitter's objections to the macros it cannot
    # expand (lines 7, 8 and 15) are its grammar's, not errors gcc missed.
    assert {p.line for p in tree_sitter_problems(C_MACROS, "c")} >= {7, 8}
    assert check(C_MACROS, "c").ok
    broken = C_MACROS.replace("a + 1;", "a + 1")
    problems = check(broken, "c").problems
    assert problems and {p.line for p in problems} == {12}
    assert problems[0].source.startswith("gcc")


@needs_gcc
@pytest.mark.parametrize("line, swapped", [
    ("#define SCHED_RR 2", "#SCHED_RR define 2"),
    ("#ifdef __USE_GNU", "#__USE_GNU ifdef"),  # its #else and #endif then pair with nothing
])
def test_a_directive_swapped_with_the_word_after_it_is_swapped_back(line, swapped):
    broken = SCHED_H.replace(line + "\n", swapped + "\n")
    assert any("invalid preprocessing directive" in p.message for p in check(broken, "c").problems)
    fixed = repair(broken, "c", llm=FakeLLM(default="", scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed" and fixed.source == SCHED_H


@needs_gxx
def test_a_declaration_left_open_above_an_include_is_no_repair():
    # A licence line's comment marker lost: deleting its ',' quiets tree-sitter, and with
    # 'Exception' declared the line reads as a declaration left open, which g++ reports
    # inside the header included below, not on a changed line.
    original = ('#include "project.hpp"\n// The licence: see the\nException, version\n// 3.1 of it.\n'
                '#include <vector>\n\nint count(const Items& items);\n')
    wrong = original.replace("Exception, version", "Exception version")
    doubts = judges.unverified_changes(original, wrong, "cpp")
    assert [d.line for d in doubts] == [5] and "included header" in doubts[0].message
    assert judges.unverified_changes(original, original.replace("the\nException", "the Exception"), "cpp") == []
    # Nor is such a change a step of the repair: the search goes on past it, to the
    # sentence's rest joined back to its comment.
    result = repair(original, "cpp", llm=FakeLLM(default="", scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == original.replace("the\nException", "the Exception")
    assert [s.rule for s in result.steps if s.kind == "fast_path"] == ["line-join"]


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt not installed")
def test_a_go_file_under_repair_is_judged_as_a_file_not_a_snippet():
    # Without its package clause a Go text is a snippet, which the judge is given one
    # for; a repair of a whole file that deletes its clause is no repair.
    original = "// Package base.\n\npackage\n\nimport (\n\t\"os\"\n)\n\nfunc Exit() { os.Exit(1) }\n"
    without = original.replace("package\n", "\n")
    assert check(without, "go").ok
    with judges.baseline(original, "go"):
        assert not check(without, "go").ok
        assert check(original.replace("package\n", "package base\n"), "go").ok


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt not installed")
def test_a_go_file_whose_package_clause_is_misspelt_is_judged_as_a_file():
    # Imports and named functions are no snippet's: judged as the file it is, gofmt asks
    # for 'package' where the word is misspelt. As a snippet given a function around it,
    # 'var' typed before the word made 'pakage main' a declaration of a variable.
    original = ('// Command wait waits for a signal.\n\npackage main\n\nimport (\n\t"os"\n\t"os/signal"\n)\n\n'
                'func main() {\n\tch := make(chan os.Signal, 1)\n\tsignal.Notify(ch)\n\t<-ch\n}\n')
    broken = original.replace("package main", "pakage main").replace("\n\t\"os/signal\"", ' "os/signal"') \
        .replace("<-ch", "<-ch#")
    first = check(broken, "go").problems[0]
    assert first.line == 3 and "'package'" in first.message
    result = repaired_unranked(broken, "go")
    assert result.status == "fixed" and result.source == original


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt not installed")
def test_a_repair_the_first_search_found_for_another_mistake_is_a_step_before_more_searches():
    # Three mistakes within a few lines: no edit clears the first one's place, and the
    # searches of each region judged alone, then of the others', had spent the file's
    # work before the '#' deletion the first search had found was taken.
    original = ('// Command wait waits for a signal.\n\npackage main\n\nimport (\n\t"os"\n\t"os/signal"\n'
                '\t"syscall"\n)\n\nfunc main() {\n\tch := make(chan os.Signal, 1)\n'
                '\tsignal.Notify(ch, syscall.SIGTERM)\n\t<-ch\n}\n')
    broken = original.replace("package main", "pakage main").replace('"os/signal"\n\t', '"os/signal" ') \
        .replace("<-ch\n", "<-ch#\n")
    result = repaired_unranked(broken, "go")
    assert result.status == "fixed" and result.steps[0].input["description"] == "line 13: delete '#'"
    # (The imports are split by a line break or a ';', as the model likes better.)
    assert result.source.replace('"os/signal"; "syscall"', '"os/signal"\n\t"syscall"') == original


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_a_cpp_change_is_verified_with_unknown_classes_declared_in_their_namespaces():
    original = ("#include <project/api.hpp>\n\nstd::string name(const Widget& w) {\n"
                "    std::vector<Part> parts = w.parts()\n    return parts.empty() ? std::string() : w.name();\n}\n")
    repaired = original.replace("w.parts()\n", "w.parts();\n")
    assert judges.unverified_changes(original, repaired, "cpp") == []
    wrong = original.replace("w.parts()\n", "w.parts() +\n")
    assert judges.unverified_changes(original, wrong, "cpp")


HELPER_HPP = """#include <cstddef>

namespace demo
{
  /// Primary template.
  template<typename Node, bool Ordered>
    struct helper
    {
      typedef Node type;
    };

  /// Specialization, true.
  template<typename Node>
    struct helper<Node, true>
    {
      typedef const Node* type;
    };
} // namespace demo
"""


@needs_gxx
def test_a_template_line_typed_onto_a_comment_is_a_problem_whatever_the_types():
    # The comment hides 'template<typename Node>': g++ then says 'Node' is undeclared (the
    # types are unknown, so the parser judges) and that the specialization lacks its
    # 'template <>', which no unknown type explains.
    broken = HELPER_HPP.replace("  /// Specialization, true.\n  template<typename Node>\n",
                                "  /// Specialization, true. template<typename Node>\n")
    assert check(HELPER_HPP, "cpp").ok
    found = check(broken, "cpp").problems
    assert any("explicit specialization" in p.message and p.line == 13 for p in found)
    fixed = repair(broken, "cpp", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert fixed.status == "fixed" and fixed.source == HELPER_HPP


TYPE_UTILS = """// Utilities for handling types.
// You should have received a copy of the GNU General Public License and
// a copy of the GCC Runtime Library Exception along with this program.

#include "demo_config.h"

namespace demo
{
  template<typename T>
  struct is_const_pointer
  {
    enum { value = is_const<T>::value && is_pointer<T>::value };
  };
}
"""


@needs_gxx
def test_a_comment_broken_onto_a_code_line_is_joined_back_where_the_types_are_unknown():
    # Split there, the words would read as a declaration to tree-sitter, and asked again
    # with the unknown names declared, g++ still rejects them: no fix, the search goes
    # on. Joined, g++ reads on to ``is_const<T>``, unknown (it suggests ``const``,
    # three letters away), and says what it does of any unknown template: the repair's
    # doing neither.
    broken = TYPE_UTILS.replace("// You should have received a copy", "// You should have received\na copy")
    assert check(TYPE_UTILS, "cpp").ok and check(TYPE_UTILS, "cpp").note
    result = repair(broken, "cpp", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == TYPE_UTILS


@needs_gxx
def test_a_comment_s_sentence_split_onto_a_line_of_its_own_is_a_problem_where_the_types_are_unknown():
    # 'COPYING3' reads as an unknown macro before a declaration, but the line is a
    # sentence (one ends, the next begins), with none of code's marks: no header
    # explains it. Joined back, the comment is whole again.
    fixed = TYPE_UTILS.replace("// a copy of the GCC Runtime Library Exception along with this program.",
                               "// see the files COPYING3 and COPYING.RUNTIME respectively.  If not, see")
    broken = fixed.replace("// see the files COPYING3", "// see the files\nCOPYING3")
    assert check(fixed, "cpp").ok and check(fixed, "cpp").note
    found = check(broken, "cpp").problems
    assert [p.line for p in found] == [4] and "COPYING3" in found[0].message
    result = repair(broken, "cpp", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == fixed


@needs_gxx
def test_a_keyword_misspelt_where_the_types_are_unknown_is_not_called_fixed():
    # A header g++ cannot find leaves it without the file's types, so its messages are
    # set aside and tree-sitter, which reads 'typenamme Node' as a parameter of some type,
    # judges: the ';' put back would be written as fixed, with the keyword still misspelt.
    broken = HELPER_HPP.replace("#include <cstddef>", '#include "demo_config.h"')
    broken = broken.replace("template<typename Node, bool Ordered>", "template<typenamme Node, bool Ordered>")
    broken = broken.replace("typedef Node type;", "typedef Node type")
    assert check(broken, "cpp").note
    # (a model that retypes nothing: whatever the loop asks of it changes nothing)
    result = repair(broken, "cpp", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status != "fixed" and result.source == broken
    assert "'typenamme' on line 6 is the keyword 'typename' misspelt" in result.reason


@needs_gxx
@pytest.mark.parametrize("typed", ["typenamme Node", "ypename Node", "typenane Node"])
def test_a_long_keyword_with_one_letter_typed_lost_or_changed_is_a_problem_where_every_header_is_found(typed):
    # g++ says only that the name "has not been declared", as it would of a type from a
    # header; but every header is found, and a name used once, one letter from a long
    # keyword, in a type's place, is that keyword.
    broken = HELPER_HPP.replace("template<typename Node, bool Ordered>", f"template<{typed}, bool Ordered>")
    found = check(broken, "cpp")
    assert not found.ok and found.problems[0].line == 6
    result = repair(broken, "cpp", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == HELPER_HPP


@needs_gxx
def test_a_name_one_letter_from_a_keyword_that_the_file_uses_again_is_a_type_of_its_own():
    # ``deleter`` is one letter from ``delete``; used twice, it is a type the file's
    # includer declares, as its other names are.
    header = HELPER_HPP.replace("template<typename Node, bool Ordered>", "template<typename Node, deleter Del>")
    header = header.replace("typedef Node type;", "typedef Node type;\n      static deleter release();")
    assert check(header, "cpp").ok


RING_HPP = """#include <cstddef>
// Ring buffer of fixed capacity.
//
// Permission to use, copy, modify and sell this software is granted, provided
// that the above notice appears in all copies. It is provided "as is" without express or implied
// warranty.


namespace ring
{
  template<typename _Value, std::size_t _Size>
    class buffer
    {
    public:
      typedef _Value value_type;
      typedef std::ptrdiff_t difference_type;
      typedef std::size_t size_type;

      buffer() : m_head(0), m_count(0) { }

      size_type
      size() const
      { return m_count; }

      void
      push(const value_type& v)
      {
        m_items[(m_head + m_count) % _Size] = v;
        if (m_count < _Size)
          ++m_count;
        else
          m_head = (m_head + 1) % _Size;
      }

    private:
      value_type m_items[_Size];
      size_type m_head;
      size_type m_count;
    };
} // namespace ring
"""


@needs_gxx
def test_a_declaration_that_declares_nothing_is_a_problem():
    # g++ makes ``typedef _Value;`` an error that -fpermissive would let pass, and names
    # that option: the message still says what is wrong with the text.
    assert check(RING_HPP, "cpp").ok
    broken = RING_HPP.replace("typedef std::ptrdiff_t difference_type;", "typedef std::ptrdiff_t;")
    assert any(p.line == 16 and p.source.startswith("g++") for p in check(broken, "cpp").problems)


@needs_gxx
def test_what_the_judge_reports_far_below_a_repair_as_it_does_without_the_repaired_lines_is_the_next_mistake():
    # g++ reports only the comment's words left on a line of their own; once they are
    # joined back it reads on to two 'Typedef's far below, which it reports just the same with
    # the joined line left out: those are the file's next mistakes, not the join's doing.
    broken = RING_HPP.replace("without express or implied\n", "without express\nor implied\n")
    broken = broken.replace("      typedef _Value value_type;", "      Typedef _Value value_type;")
    broken = broken.replace("      typedef std::size_t size_type;", "      Typedef std::size_t size_type;")
    assert [p.line for p in check(broken, "cpp").problems] == [6]
    result = repair(broken, "cpp", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == RING_HPP


LEVELS_H = """#ifndef LEVELS_H
#define LEVELS_H 1

#include <stddef.h>

/* Levels of a message, most severe first.  */
enum
{
  LEVEL_FATAL = 0x01,	/* The program stops.  */
  LEVEL_ERROR = 0x02,	/* The request fails.  */
  LEVEL_WARN = 0x04,	/* Something looks wrong.  */
  LEVEL_INFO = 0x08	/* For the record.  */
};

/* Print TEXT at LEVEL; return the bytes written.  */
extern size_t level_print (int level, const char *text);

#endif /* levels.h */
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("closer", ["*`/", "*x/", "/*"])
def test_a_comment_s_closer_broken_where_the_comment_runs_over_code_is_made_whole(closer):
    # The comment runs on over ``enum {`` to the next comment's closer; gcc reports the
    # enum's ``}`` seven lines below, where deleting it would leave the values as
    # variables of no type.
    broken = LEVELS_H.replace("most severe first.  */", f"most severe first.  {closer}")
    assert [p.line for p in check(broken, "c").problems] == [13]
    result = repair(broken, "c", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == LEVELS_H


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_keyword_with_a_letter_typed_twice_is_a_problem_and_respelt():
    # gcc knows no type 'chaar', as it would not know one from a header it was not
    # shown; every header is found, and a type keyword typed with a letter twice is the
    # keyword (C's tree-sitter reads ``char`` as a named type, no keyword of its own).
    broken = LEVELS_H.replace("const char *text", "const chaar *text")
    found = check(broken, "c")
    assert [p.line for p in found.problems] == [16] and not found.note
    result = repair(broken, "c", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == LEVELS_H


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_header_the_compiler_says_was_meant_is_named_though_the_compiler_then_reads_more_mistakes():
    # Without <stddef.h>, 'size_t' and 'car' are both unknown types; with it, gcc knows
    # the file's types and reports 'car' as what it is: a mistake it could not tell from
    # a header's type before, and a letter lost from 'char'.
    broken = LEVELS_H.replace("<stddef.h>", "<stddef..h>").replace("const char *text", "const car *text")
    assert [p.line for p in check(broken, "c").problems][:1] == [4]
    result = repair(broken, "c", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == LEVELS_H


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_here_document_never_ended_is_a_problem_where_it_opens():
    # bash reads all that follows ``<<=`` as the document's text and tells of it at the
    # file's end: the problem is the line that began it.
    script = "run() {\n  echo start <<=\n}\nrun\necho done\n"
    judge, found = judges.problems(script, "bash")
    assert found and found[0].line == 2


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("joined, line", [
    ("#include <stdio.h> #include <stdlib.h>\n", 3),
    ("#ifndef POINT_H #define POINT_H 1\n", 1),
])
@pytest.mark.parametrize("coordinate", ["int", "coord_t"])  # (a type no header here declares)
def test_a_directive_typed_onto_another_is_a_problem_the_compiler_only_warns_of(joined, line, coordinate):
    # gcc reads "extra tokens" after the first directive and goes on (a warning): the
    # second header is never read, or the guard never defined.
    clean = (f"{coordinate} origin(void);\n#ifndef POINT_H\n#define POINT_H 1\n#include <stdio.h>\n"
             "#include <stdlib.h>\nstruct point { int x, y; };\n#endif /* #ifndef POINT_H */\n")
    assert check(clean, "c").ok
    broken = clean.replace(joined.replace(" #", "\n#", 1), joined, 1)
    assert broken != clean
    found = check(broken, "c")
    assert bool(found.note) == (coordinate != "int")  # "types unknown": the parser's reading only
    assert found.problems and found.problems[0].line == line + 1 and "extra tokens" in found.problems[0].message


@needs_gcc
def test_a_directive_typed_onto_a_macro_s_definition_is_a_problem_there_not_where_the_macro_is_used():
    # gcc reports the stray '#' at the definition, with a note at each use; the use is
    # where an error inside a macro usually lies (an argument lost), but a directive's
    # '#' typed into the definition is the definition's.
    clean = ("#include <stdio.h>\n\n#define open_log\t__open_log\n#define close_log\t__close_log\n\n"
             + "".join(f"int step_{n}(int x);\n" for n in range(10))
             + "\nint open_log(const char *name, FILE *out);\nint close_log(FILE *out);\n")
    broken = clean.replace("__open_log\n#define", "__open_log #define")
    assert check(clean, "c").ok
    first = check(broken, "c").problems[0]
    assert (first.line, first.message) == (3, "stray '#' in program")
    result = repair(broken, "c", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == clean


@needs_gcc
@pytest.mark.parametrize("typed, line", [
    ("#ifndef POINT_H;", 2),  # more than a comment after the name a directive takes
    ("#ifdef POINT_T)", 4),
    ("#\tundef POINT_T POINT_H", 9),
])
def test_more_than_a_comment_after_the_name_of_a_directive_is_a_problem(typed, line):
    # gcc only warns of "extra tokens at end of #ifndef directive" (silenced by -w).
    clean = ("/* a point */\n#ifndef POINT_H\n#define POINT_H 1\n#ifdef POINT_T // its own type\n"
             "typedef POINT_T coord;\n#else /* else int */\ntypedef int coord;\n#endif\n#\tundef POINT_T\n"
             "struct point { coord x, y; };\n#endif POINT_H\n")  # a label after #endif is old practice
    assert check(clean, "c").ok
    lines = clean.split("\n")
    broken = "\n".join(lines[:line - 1] + [typed] + lines[line:])
    found = check(broken, "c")
    assert [(p.line, "extra tokens" in p.message) for p in found.problems] == [(line, True)]


@needs_gcc
@pytest.mark.parametrize("typo", ["eelse", "elsif"])
def test_a_conditional_directive_mistyped_in_a_group_the_compiler_skips_is_a_problem(typo):
    # Inside ``#ifdef _WIN32`` (skipped here) gcc passes over ``#eelse`` without a word, and
    # skips the ``#define`` meant for every other system with it: the name is then unknown.
    clean = ("#ifdef _WIN32\n#  define API __declspec(dllimport)\n#elif defined(__GNUC__)\n#  define API\n"
             "#else\n#  define API\n#endif\nAPI int answer(void);\n")
    assert check(clean, "c").ok
    directive = {"eelse": "#else", "elsif": "#elif defined(__GNUC__)"}[typo]
    broken = clean.replace(directive + "\n", directive.replace(directive.split()[0][1:], typo, 1) + "\n", 1)
    assert broken != clean
    found = check(broken, "c")
    assert found.problems and found.problems[0].line == clean.split("\n").index(directive) + 1
    assert f"#{typo}" in found.problems[0].message


@pytest.mark.skipif(shutil.which("gcc") is None or not os.path.exists("/usr/include/x86_64-linux-gnu/sys/cdefs.h")
                    and not os.path.exists("/usr/include/sys/cdefs.h"), reason="needs gcc and glibc's headers")
def test_a_name_beside_an_error_that_a_header_defines_is_no_unknown_macro():
    # ``__nonnull`` is glibc's, not the file's: gcc expands it, and what it says of the
    # ``~`` typed into its argument is a syntax error, not an unknown macro's doing.
    clean = ("#include <sys/cdefs.h>\n#include <stddef.h>\n\n"
             "extern int copy_name (char *__dest, const char *__src, size_t __n)\n"
             "  __THROW __nonnull ((1, 2));\n")
    assert check(clean, "c").ok
    found = check(clean.replace("2));", "2~));"), "c")
    assert not found.note  # every type known
    assert [p.line for p in found.problems][:1] == [5]



@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_repair_that_leaves_a_changed_include_naming_no_header_is_not_verified():
    from tinycode.engine.verifier import Verifier

    original = "#include <zqlib\n/config.h>\nsize_type count(void);\n"  # (no header here declares either)
    spaced = "#include <zqlib /config.h>\nsize_type count(void);\n"
    after = check(spaced, "c")
    assert after.ok and after.note  # gcc cannot find "zqlib /config.h": the types are unknown
    assert "cannot find" in Verifier("c").unverified(original, spaced, after)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_what_the_compiler_says_of_an_include_line_it_cannot_find_stays_a_problem():
    # The line is blanked to read on past the missing header; its "missing terminating >"
    # is about the directive's own text, and stays.
    found = check("#include <sys\nint x;\n", "c")
    assert [(p.line, p.message) for p in found.problems][:1] == [(1, "missing terminating > character")]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_column_gcc_gives_on_a_line_indented_with_tabs_is_the_character_it_points_at():
    # gcc 11 and later count a tab to its next stop: column 9 of "\treturn x;" is 'r'.
    found = check("int main(void)\n{\n\tint x = 1\n\treturn x;\n}\n", "c").problems
    assert found and found[0].line == 4 and found[0].text.startswith("return")


_TEMPLATE_SPAN = ('#include "support_config.h"\n\ntemplate<class _E>\n  class span\n  {\n  public:\n'
                  "    typedef const _E* iterator;\n    typedef const _E* const_iterator;\n  };\n")
_OPCODES = ('#include "opcodes_config.h"\n\ntypedef enum opcode {\n\tOP_NULL = 0,\n'
            "\tOP_MODULO = 59,\n\tOP_I_MODULO = 60,\n\tOP_MAX = 61\n} opcode;\n")
_WM_REQUEST = ('#include "wmproto_missing.h"\n\ntypedef struct {\n    CARD8\treqType;\t/* always */\n'
               "    CARD16\tlength;\n} xReq;\n")
_INITTAB = ('#include "Python_missing.h"\n\nextern PyObject* PyInit__io(void);\nextern PyObject* PyInit_math(void);\n\n'
            'struct _inittab tab[] = {\n    {"_io", PyInit__io},\n    {"math", PyInit_math},\n    {0, 0}\n};\n')


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs gcc and g++")
@pytest.mark.parametrize("language, clean, old, new, lines", [
    # an enumerator in capitals is the file's own, not a macro a header would define
    ("c", _OPCODES, "OP_MODULO = 59,", "OP_MODULO = 59", (5, 6)),
    # a template's parameter is no macro either
    ("cpp", _TEMPLATE_SPAN, "_E* iterator;", "_E* iterator", (7,)),
    # ``CARD8`` (a header's type, the header not here) may explain an error in ``CARD8
    # reqType`` but not a '/' after the ';': a comment's opener split from its '*'
    ("c", _WM_REQUEST, "\t/* always */", "\t/\n    * always */", (4,)),
    # a function the file declares is no macro that makes one string with the one before it
    ("c", _INITTAB, '{"_io", PyInit__io}', '{"_io" PyInit__io}', (7,)),
])
def test_a_name_that_looks_like_a_header_s_macro_does_not_explain_an_error_it_cannot_have_caused(
        language, clean, old, new, lines):
    # (each file includes a header that is not here: the types are unknown)
    assert check(clean, language).ok
    found = check(clean.replace(old, new, 1), language)
    assert found.note and found.problems and found.problems[0].line in lines


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_repair_that_leaves_a_name_the_compiler_cannot_resolve_where_it_changed_is_not_verified():
    from tinycode.engine.verifier import Verifier

    head = "#include <utility>\n\ntemplate<typename T, typename U, typename A>\nstruct node_ {};\n\n"
    # every header found: a name used once that no header declares is two names fused
    original = head + "template<typename T, typename A>\nstruct node_<T, std::pairA ,> {};\n"
    repaired = original.replace(" ,>", ", A>")
    after = check(repaired, "cpp")
    assert after.ok and after.note  # 'pairA' is unknown: the types are unknown
    assert "cannot resolve 'pairA'" in Verifier("cpp").unverified(original, repaired, after)
    # a name typed that the compiler knows elsewhere but not there
    scoped = head + "struct box { typedef int size_type; };\nstruct other { int n = 1 +; };\n"
    typed = scoped.replace("1 +;", "1 + size_type;")
    after = check(typed, "cpp")
    assert after.ok and after.note
    assert "cannot resolve 'size_type'" in Verifier("cpp").unverified(scoped, typed, after)
    # a name a missing header declares, used on other lines too, stays a repair
    missing = '#include "gone.h"\nint f() {\n    int a = gone(1)\n    int c = gone(2);\n    return a + c;\n}\n'
    fixed = missing.replace("(1)\n", "(1);\n")
    after = check(fixed, "cpp")
    assert after.ok and after.note
    assert Verifier("cpp").unverified(missing, fixed, after) == ""
    # every header found, two names fused on a line the repair left: a slip it left
    fused = head + ("template<typename T>\nstruct is_ptr { static const bool value = is_pointerT::value; };\n"
                    "struct other { int n = 1 +; };\n")
    left = fused.replace(" +;", ";")
    after = check(left, "cpp")
    assert after.ok and after.note
    assert "cannot resolve 'is_pointerT'" in Verifier("cpp").unverified(fused, left, after)
    # every header found, a parameter's name fused with the next one's type: the other
    # function's parameter, used three times, is named here where it is no parameter
    fused = ("#include <cstddef>\n\nstruct eq_fn\n{\n  bool\n  same(int r_lhs_key, int r_rhs_key) const\n"
             "  { return r_lhs_key == r_rhs_key }\n\n  bool\n"
             "  same(int r_lhs_keysize_t , lhs_hash, int r_rhs_key) const\n"
             "  { return r_lhs_key == r_rhs_key && lhs_hash == 0; }\n};\n")
    left = fused.replace("r_rhs_key }", "r_rhs_key; }")
    after = check(left, "cpp")
    assert after.ok and after.note
    assert "cannot resolve 'r_lhs_key' on line 11" in Verifier("cpp").unverified(fused, left, after)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_what_the_compiler_said_without_a_headers_types_vouches_for_no_line_beside_a_repair():
    # The header's name broken, the compiler took pid_t for int and read the initializer
    # wrongly: "excess elements" said there then is no reason to let it pass once the
    # repair makes it find the header.
    broken = '#include <sys/types..h>\nstatic pid_t ids[] = {\n    "early",,\n    0,\n};\n'
    repaired = broken.replace("types..h", "types.h").replace(",,", ",")
    assert any(d.message == "excess elements in struct initializer" for d in judges.verdict(broken, "c").diagnostics)
    assert "excess elements in struct initializer" in [d.message for d in judges.errors_after_repair(broken, repaired, "c")]


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_name_the_file_declares_as_no_template_used_with_arguments_is_a_problem_whatever_the_types():
    # The node's ``template<...>`` line typed onto its doc comment: g++ says the struct
    # "is not a template" where it is used with arguments, which no unknown type explains.
    header = ('#include "node_config.h"\n\nnamespace tree\n{\n  /// Node.\n  template<typename _Value>\n'
              '    struct node_\n    {\n      _Value m_value;\n      node_* m_p_next;\n    };\n\n'
              '  typedef node_<int> int_node;\n} // namespace tree\n')
    assert check(header, "cpp").ok
    broken = header.replace("  /// Node.\n  template<typename _Value>\n", "  /// Node. template<typename _Value>\n")
    found = check(broken, "cpp")
    assert found.note and any("is not a" in p.message for p in found.problems)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_function_definition_nested_in_another_is_a_problem_though_its_name_looks_like_a_macro():
    # A body lost its '}': gcc reads each definition below it as nested, "declared
    # 'extern'", and stops at its fiftieth error before the file's end. The names in
    # capitals are the file's own functions, not macros a header might define.
    clean = ("extern int _mm_getcsr (void);\nextern void _mm_setcsr (int);\n\n"
             "extern __inline int __attribute__((__always_inline__))\n_MM_GET_ROUNDING_MODE (void)\n{\n"
             "  return _mm_getcsr () & 3;\n}\n\n"
             + "".join(f"extern __inline void __attribute__((__always_inline__))\n_MM_SET_MODE_{n} (int __mode)\n{{\n"
                       f"  _mm_setcsr (__mode + {n});\n}}\n\n" for n in range(60)))
    assert check(clean, "c").ok
    found = check(clean.replace("& 3;\n}\n", "& 3;\n\n", 1), "c")
    assert not found.note and found.problems and found.problems[0].line == 11  # the first nested name


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("head", ["", '#include "popcount_config.h"\n'])  # (a header not here: types unknown)
def test_a_pragma_whose_string_is_badly_formed_is_a_problem_whatever_the_types(head):
    clean = head + '#pragma GCC target("popcnt")\nint count(unsigned x) { return __builtin_popcount(x); }\n'
    assert check(clean, "c").ok
    found = check(clean.replace('target("popcnt")', 'target"popcnt")'), "c")
    assert [p.line for p in found.problems] == [clean.count("\n", 0, clean.index("#pragma")) + 1]


@needs_gxx
def test_a_repair_the_compiler_rejects_is_not_verified_though_the_syntax_is_right():
    # Every header found, the types known: g++ says the vector the repair returned is
    # no 'int', an error of meaning, not of syntax, that the input did not have.
    from tinycode.engine.verifier import Verifier

    broken = "#include <vector>\n\nint sum(const std::vector<int>& v) {\n    int s = 0;\n    return\n}\n"
    after = broken.replace("    return\n", "    return v;\n")
    checked = check(after, "cpp")
    assert checked.ok and not checked.note
    assert "the compiler rejects line 5" in Verifier("cpp").unverified(broken, after, checked)
    # Nor one whose syntax error had kept the compiler from reading a mistake elsewhere:
    # the parameter's name lost in a struct it did not read before.
    header = ("#include <utility>\n\nStruct holder\n{\n  int v;\n  void\n  swap(holder&)\n"
              "  { std::swap(v, other.v); }\n};\n")
    repaired = header.replace("Struct holder", "struct holder")
    assert check(repaired, "cpp").ok
    # ('other', used once, every header found: no header's name)
    assert "cannot resolve 'other' on line 8" in Verifier("cpp").unverified(header, repaired, check(repaired, "cpp"))
    assert Verifier("cpp").unverified(broken, broken.replace("    return\n", "    return s;\n"),
                                      check(broken.replace("    return\n", "    return s;\n"), "cpp")) == ""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_header_a_library_installed_in_a_folder_of_its_own_is_found_there(tmp_path, monkeypatch):
    # As /usr/include/python3.11 holds Python.h: a build that uses the library adds the
    # folder (pkg-config --cflags); a file checked alone is read with it, its types known.
    from tinycode.judges import headers

    library = tmp_path / "include" / "boxes-2.0"
    library.mkdir(parents=True)
    (library / "boxes.h").write_text("typedef struct { int n; } box_t;\n#define BOXES_API extern\n")
    (tmp_path / "include" / "other-1.0").mkdir()
    monkeypatch.setattr(headers, "system_folders", lambda *args: (str(tmp_path / "include"),))
    clean = ('#include <boxes.h>\n\nBOXES_API box_t make_box(int n);\nstruct entry { const char *name; box_t box; };\n'
             'struct entry boxes_table[] = {\n    {"a", {1}},\n    {"b", {2}},\n};\n')
    assert check(clean, "c").ok and not check(clean, "c").note
    found = check(clean.replace('{"a", {1}}', '{"a" {1}}'), "c")
    assert not found.note and [p.line for p in found.problems][:1] == [6]
    mistyped = check(clean.replace("<boxes.h>", "<boxes..h>"), "c").problems
    assert mistyped and "did you mean <boxes.h>" in mistyped[0].message  # the one a character away
    swapped = check(clean.replace("<boxes.h>", "<boxesh.>"), "c").problems
    assert swapped and "did you mean <boxes.h>" in swapped[0].message  # two characters swapped
    (tmp_path / "include" / "other-1.0" / "boxes.h").write_text("typedef int box_t;\n")
    headers._library_folders.cache_clear()
    headers._installed_in.cache_clear()
    assert check("/* again */\n" + clean, "c").note  # two libraries have a boxes.h: which one is not known


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_bracket_typed_twice_where_no_attribute_can_be_is_a_problem():
    # (g++ says nothing else of the line: that message is the only sign)
    clean = ('static char const table[] = "abc";\n\nint main(int argc, char* argv[]) {\n    int require = 0;\n'
             "    require += table[argc];\n    return require;\n}\n")
    assert check(clean, "cpp").ok
    found = check(clean.replace("table[argc]", "table[[argc]"), "cpp")
    assert not found.note and [p.line for p in found.problems][:1] == [5]


SEVERITIES = """#ifndef _FMTMSG_H
#define _FMTMSG_H 1

/* Values to control `fmtmsg' function.  */
enum
{
  MM_HARD = 0x001,	/* Source of the condition is hardware.  */
#define MM_HARD MM_HARD
  MM_SOFT = 0x002,	/* Source of the condition is software.  */
#define MM_SOFT MM_SOFT
  MM_FIRM = 0x004,	/* Source of the condition is firmware.  */
#define MM_FIRM MM_FIRM
  MM_APPL = 0x008,	/* Condition detected by application.  */
#define MM_APPL MM_APPL
  MM_UTIL = 0x010,	/* Condition detected by utility.  */
#define MM_UTIL MM_UTIL
  MM_OPSYS = 0x020,	/* Condition detected by operating system.  */
#define MM_OPSYS MM_OPSYS
  MM_RECOVER = 0x040,	/* Recoverable error.  */
#define MM_RECOVER MM_RECOVER
  MM_PRINT = 0x100,	/* Display message in standard error.  */
#define MM_PRINT MM_PRINT
  MM_CONSOLE = 0x200	/* Display message on system console.  */
#define MM_CONSOLE MM_CONSOLE
};

extern int fmtmsg (long int __classification, const char *__label);

#endif	/* fmtmsg.h */
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_where_tree_sitter_cannot_read_the_lines_around_the_compiler_s_error_the_compiler_judges_each_edit():
    # tree-sitter objects to every value of an enum with directives between its values,
    # which gcc accepts: that it still objects to the repaired line says nothing.
    broken = SEVERITIES.replace("MM_PRINT = 0x100", "MM_PRINT == 0x100")
    assert check(broken, "c").problems[0].line == 21
    assert len(tree_sitter_problems(SEVERITIES, "c")) >= 3
    found = suggest(broken, "c")
    assert found and found[0].source_after == SEVERITIES


SLOT_TRAITS = """#include <cstddef>
#include <type_traits>

namespace pbds
{
  namespace detail
  {
    template<typename Key>
    struct slot_traits
    {
      typedef typename Key::pointer pointer;
      typedef std::integral_constant<int, 0> empty_tag;
      static const std::size_t initial_size = PB_DS_INITIAL_SIZE;
    };
  } // namespace detail
} // namespace pbds
"""


@needs_gxx
def test_a_name_the_compiler_suggests_a_keyword_for_is_the_keyword_misspelt_though_types_are_unknown():
    # PB_DS_INITIAL_SIZE comes from a header the file leaves to its includer: its types
    # are unknown. g++ still says ``in`` is not declared, "did you mean 'int'?".
    assert check(SLOT_TRAITS, "cpp").ok and check(SLOT_TRAITS, "cpp").note
    broken = SLOT_TRAITS.replace("integral_constant<int, 0>", "integral_constant<in, 0>")
    found = check(broken, "cpp")
    assert not found.ok and found.problems[0].line == 12
    result = repair(broken, "cpp", llm=FakeLLM(scorer=EVEN))
    assert result.status == "fixed" and result.source == SLOT_TRAITS


CHECKS = """#include <assert.h>

struct header
{
  unsigned short magic;
  unsigned short flags;
};

    // Use C11's static_assert if possible.
#if __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(struct header) == 4, "header size");
#endif

int header_ok(const struct header *h)
{
  return h->magic == 0x4d5a;
}
"""


@needs_gcc
def test_a_directive_typed_onto_a_line_comment_is_split_from_it():
    # The #if is read as the comment's words: gcc finds its #endif without it, lines below.
    broken = CHECKS.replace("possible.\n#if", "possible. #if")
    assert check(broken, "c").problems[0].message == "#endif without #if"
    found = suggest(broken, "c")
    assert found and found[0].source_after == CHECKS


@needs_gxx
def test_a_template_class_whose_name_was_lost_is_a_syntax_problem():
    # g++ gives no category; a class template needs a name in any file, whatever its types.
    source = "#include <cstddef>\n\ntemplate<typename T>\nstruct holder\n{\n  T value;\n};\n"
    assert check(source, "cpp").ok
    found = check(source.replace("struct holder\n", "struct\n"), "cpp")
    assert [p.line for p in found.problems] == [4]


# What the compiler says where a syntax error left in the text decides how it reads:
# (clean file, the slips made in it, the one mended, what g++ then says, the problems
# counted while repairing as (line, how their message begins)).
READ_ON_FROM_A_SLIP = [
    # The comment joined back, g++ reads on to ``Typename``, and recovering from it says
    # the template's last parameter has no default: that error's doing, not the join's.
    ("#include <cstddef>\n// General Public License for more details.\n\ntemplate<typename Key,\n"
     "         template<typename Node_CItr,\n                  typename Cmp_Fn_,\n"
     "                  typename _Alloc>\n         class Node_Update,\n         typename _Alloc>\n"
     "struct tree_traits { Key k; };\n",
     [("// General Public", "// General\nPublic"), ("typename Cmp_Fn_", "Typename Cmp_Fn_")],
     ("// General\nPublic", "// General Public"), "no default argument",
     [(6, "'Typename' has not been declared")]),
    # The comment made whole again, g++ reads the member's definition, whose parameters
    # end in a ',', and says first that no declaration matches it, on the line the
    # definition begins: the comma's doing, two lines below, which is the problem.
    ("#include <cstddef>\n// of the GNU General Public License\n\nstruct traits\n{\n"
     "  bool equal(const char* b, const char* e, bool after) const;\n};\n\n"
     "inline bool\ntraits::\nequal(const char* b, const char* e,\n"
     "      bool after /*= false */) const\n{ return b == e && after; }\n",
     [("// of the", "/of / the"), ("after /*= false */)", "after /*= false */,)")],
     ("/of / the", "// of the"), "no declaration matches", [(12, "")]),
]


@needs_gxx
@pytest.mark.parametrize("clean, slips, mended, said, counted", READ_ON_FROM_A_SLIP,
                         ids=["past_the_first_syntax_error", "head_of_the_declaration_it_is_in"])
def test_what_the_compiler_says_where_a_syntax_error_left_decides_is_not_new(clean, slips, mended, said, counted):
    broken = clean
    for old, new in slips:
        broken = broken.replace(old, new)
    partly = broken.replace(*mended)
    assert any(said in d.message for d in judges.verdict(partly, "cpp").diagnostics)
    with judges.baseline(broken, "cpp"):
        found = [(d.line, d.message) for d in judges.problems(partly, "cpp")[1]]
    assert [(line, message[:len(begins)]) for (line, message), (_, begins) in zip(found, counted)] == counted
    assert len(found) == len(counted)


@needs_gcc
def test_an_output_whose_headers_the_compiler_cannot_read_is_not_verified():
    # A comment's closer typed early leaves ``**`` as code before the #include: gcc meets
    # a syntax error inside the system header, which is not broken; the file is.
    from tinycode.engine.verifier import Verifier

    after = "/* A header.\n ************/**\n\n#include <sys/types.h>\n\nextern int count (const char *, int);\n"
    original = after.replace("count (const char *, int)", "count (const char *, int,)")
    checked = check(after, "c")
    # gcc places no error on the file's own lines; tree-sitter's error above the #include
    # is where the text runs into the header.
    assert [(p.line, p.text) for p in checked.problems] == [(2, "**")]
    assert "it runs into the header included on line 4" in checked.problems[0].message
    assert "header included on line 4" in Verifier("c").unverified(original, after, checked)
    clean = after.replace("/**\n", "/\n")
    assert Verifier("c").unverified(original, clean, check(clean, "c")) == ""
    # So the repair looks there, and the file is written once both are repaired.
    result = repair(original, "c", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: 0.0))
    assert result.status == "fixed" and result.source == clean

HOLDER_HPP = """#include <cstddef>
#include <utility>

template<typename Traits>
struct holder
{
  typedef typename Traits::value_type value_type;
  typedef std::size_t size_type;

  size_type count(const value_type& v) const
  { return v.size(); }

  std::pair<value_type, size_type> first_pair(const value_type& v) const
  { return std::make_pair(v, count(v)); }
};
"""


@needs_gxx
def test_two_words_of_the_file_typed_together_are_a_problem_where_every_header_is_found():
    # g++ says only that the name "does not name a type", as of a type from a header; but
    # every header is found, and the name, used once, is two of the file's own words.
    assert check(HOLDER_HPP, "cpp").ok
    for fused in ("std::pair<value_typesize_type>", "typedef typenameTraits"):
        broken = HOLDER_HPP.replace(fused.replace("typesize", "type, size").replace("typenameT", "typename T"), fused)
        assert broken != HOLDER_HPP and not check(broken, "cpp").ok
    broken = HOLDER_HPP.replace("typedef typename Traits", "typedef typenameTraits")
    result = repair(broken, "cpp", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == HOLDER_HPP
    # a name no header declares that is not two of the file's words: a header's, as before
    assert check(HOLDER_HPP.replace("return v.size();", "return v.size() + padding_of(v);"), "cpp").ok


@needs_gxx
def test_what_the_compiler_still_says_of_a_line_the_repair_changed_is_not_vouched_for_by_the_input():
    # ``and`` typed as the lost argument: g++ says of the line what it said before the
    # repair, which repaired nothing there.
    head = "#include <utility>\n\ntemplate<typename A, typename B, typename C>\nstruct box {};\n\n"
    original = head + "typedef box<int, long ,> pair_box;\n"
    repaired = head + "typedef box<int, long , and > pair_box;\n"
    assert [d.line for d in judges.errors_after_repair(original, repaired, "cpp")] == [6]
    assert judges.errors_after_repair(original + "int n = 1;\n", original + "int n = 1 ;\n", "cpp") == []


@needs_gcc
def test_a_typedef_that_names_nothing_is_a_problem():
    # gcc only warns of ``typedef struct {...};`` (silenced by -w), and every use of the
    # name it lost is then unknown, as a missing header's would be.
    source = ("#include <stddef.h>\n\ntypedef struct {\n    size_t length;\n    /* } */\n} buffer;\n\n"
              "typedef enum mode { READ, WRITE } mode_t2;\n\nbuffer *buffer_new(size_t length);\n")
    assert check(source, "c").ok
    found = check(source.replace("} buffer;", "};"), "c")
    assert [(p.line, p.message) for p in found.problems][:1] == [(6, "typedef declares no name")]


EXCEPTIONS_HPP = """// Demo exceptions.
#include <stdexcept>

namespace demo
{
  /// Base class for the exceptions of this library.
  struct container_error : public std::logic_error
  {
    container_error() : std::logic_error("demo") { }
  };

  /// An entry cannot be inserted into a container object for logical
  /// reasons (not if memory is short: then the allocator's exception is thrown).
  struct insert_error : public container_error { };

  inline void
  throw_insert_error()
  { throw insert_error(); }
}
"""


@needs_gxx
def test_a_declaration_typed_onto_a_comment_is_a_problem_where_the_compiler_cannot_resolve_its_name():
    # g++ says only that 'insert_error' is unknown where it is used, which looks like a
    # type from a header it was not shown: the file was reported clean.
    broken = EXCEPTIONS_HPP.replace("is thrown).\n  struct insert_error", "is thrown). struct insert_error")
    assert check(EXCEPTIONS_HPP, "cpp").ok
    found = check(broken, "cpp").problems
    assert [(p.line, p.message) for p in found] == [(13, "a declaration typed onto a comment: 'insert_error'")]
    fixed = repair(broken, "cpp", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert fixed.status == "fixed" and fixed.source == EXCEPTIONS_HPP


@needs_gxx
def test_a_declaration_in_a_comment_of_a_name_the_compiler_knows_is_prose():
    text = EXCEPTIONS_HPP.replace("/// Base class for the exceptions of this library.",
                                  "/// Base class. struct container_error : public std::logic_error {};")
    assert check(text, "cpp").ok


@needs_gxx
def test_a_name_right_before_a_keyword_that_begins_a_statement_is_a_problem_though_types_are_unknown():
    # g++ says only that 'std' "does not name a type", as it would of a type from a header;
    # but no type stands right before 'using': two tokens were swapped.
    header = "#include <cstddef>\nnamespace n {\n  using std::size_t;\n  typedef int count;\n}\n"
    assert check(header, "cpp").ok
    broken = header.replace("using std::size_t", "std using::size_t")
    found = check(broken, "cpp")
    assert not found.ok and found.problems[0].line == 3
    result = repair(broken, "cpp", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and result.source == header
    # A macro-like name there may expand to an attribute: the types stay unknown.
    assert check("#include <cstddef>\nLIB_API using std::size_t;\n", "cpp").ok
    # Where a type was wanted, no type or macro is followed by a member's access: the
    # last word of a comment's sentence split onto a line of its own.
    split = "// license that can be found in the LICENSE\nfile.\n\nint i = 3;\nint &culprit = i;\n"
    assert check(split, "cpp").problems[0].line == 2


BINDING_C = """#include <Python.h>

typedef struct TSLanguage TSLanguage;

TSLanguage *tree_sitter_bash(void);

static PyObject* _binding_language(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(args)) {
    return PyCapsule_New(tree_sitter_bash(), "tree_sitter.Language", NULL);
}

static struct PyModuleDef_Slot slots[] = {
#ifdef Py_GIL_DISABLED
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL}
};

static PyMethodDef methods[] = {
    {"language", _binding_language, METH_NOARGS,
     "Get the tree-sitter language for this grammar."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_binding",
    .m_doc = NULL,
    .m_size = 0,
    .m_methods = methods,
    .m_slots = slots,
};

PyMODINIT_FUNC PyInit__binding(void) {
    return PyModuleDef_Init(&module);
}
"""


@needs_gcc
@pytest.mark.parametrize("slip", [("methods[] = {", "methods[] == {"), ("Init(&module)", "Init(&module,)")])
def test_a_comparison_after_a_declarator_or_a_comma_before_a_closer_is_a_problem_whatever_the_types(slip):
    # A header the compiler cannot find declares the types: they are unknown, and
    # tree-sitter reads both slips without an error.
    unknown = BINDING_C.replace("<Python.h>", "<binding_api.h>")
    assert check(unknown, "c").ok
    broken = unknown.replace(*slip)
    found = check(broken, "c")
    assert not found.ok and found.problems[0].line == BINDING_C[:BINDING_C.index(slip[0])].count("\n") + 1


RUBY_SPLAT = """module Log
  def warn(fmt, *args)
\tlog(:warn, fmt, *args)
  end

  def error(fmt, *args)
\tif verbose?
\t\tlog(:error, fmt, *)
\tend
  end
end
"""


@pytest.mark.skipif(shutil.which("ruby") is None, reason="ruby not installed")
def test_ruby_s_caret_gives_the_column():
    # ruby -c shows the line with a caret under the token it did not expect (tabs kept):
    # the search looks there, where tree-sitter (which reads an anonymous splat) sees nothing.
    problem = check(RUBY_SPLAT, "ruby").problems[0]
    if "unexpected ')'" not in problem.message:
        pytest.skip("this ruby reads an anonymous splat")
    assert (problem.line, problem.column) == (8, RUBY_SPLAT.split("\n")[7].index(")") + 1)
    found = suggest(RUBY_SPLAT, "ruby", limit=4)
    assert found and all(c.source_after.split("\n")[7].startswith("\t\tlog(:error, fmt, *") for c in found)
    # A line the tool shows shortened gives no column.
    from tinycode.judges.readers import _caret_column
    assert _caret_column("\n...fmt, *)\n         ^\n", RUBY_SPLAT.split("\n"), 8) == 0


PUT_HPP = """#include <string>
#include <vector>

template <typename T>
void put(std::vector<T>& items, const T& value) {
    items.push_back(value);
}

template <typename T>
void put_twice(std::vector<T>& items, const T& value) {
    items.push_back(value);
    items.push_back(value);
}

struct Index {
    std::size_t find(const std::string& key) const { return key.size(); }
    std::size_t count(const std::string& key) const { return key.size() * 2; }
};
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
@pytest.mark.parametrize("old, new", [
    ("put_twice(std::vector<T>& items, const T& value)", "put_twice(std::vector<T>& items, const T&)"),  # name lost
    ("count(const std::string& key)", "count(key const std::string&)"),  # name swapped with its type
])
def test_a_variable_the_file_declares_that_the_compiler_finds_undeclared_is_the_files_mistake(old, new):
    # Every header is found, and the name is one the file declares as a parameter on
    # other lines: no header is missing that declares it, so the message is the file's
    # syntax problem, and the search puts the name back where the file declares it.
    from tinycode import repair

    assert check(PUT_HPP, "cpp").ok
    broken = PUT_HPP.replace(old, new)
    assert not check(broken, "cpp").ok
    fixed = repair(broken, "cpp", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert fixed.status == "fixed" and fixed.source == PUT_HPP


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_a_name_only_a_missing_header_could_declare_is_no_syntax_problem():
    # 'buffer' is declared nowhere in the file (not as a variable), and a header that
    # is not there may be what declares it: unknown, not the file's mistake.
    source = '#include "missing_local.h"\nint f(int n) {\n    return n + buffer;\n}\nint g(int buffer) { return buffer; }\n'
    assert check(source, "cpp").ok


@pytest.mark.skipif(shutil.which("dash") is None, reason="dash numbers a substitution's lines from its backquote")
@pytest.mark.parametrize("body, line", [
    ('echo a\necho `b\necho c\nif x; then\nfi\necho "x `date`"\n', 6),  # "fi" unexpected, inside
    ('echo a\necho `b\necho c\necho d\necho "x `date`"\necho e\n', 6),  # the string it leaves open
    ('echo a\nif x; then\nfi\necho `date`\n', 4),  # outside any: as dash says
])
def test_dash_s_errors_inside_backquotes_are_placed_on_the_file_s_lines(body, line):
    problems = [p for p in check("#!/bin/sh\n" + body, "bash").problems if p.source == "sh -n"]
    assert [p.line for p in problems] == [line]
