"""The repair loop with a scripted model: one kept step per problem, progress kept on a
file whose other errors remain, cascades, the per-region guard and the stops."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from fake_llm import FakeLLM

from tinycode import check, judges, repair
from tinycode.check import CheckResult, Problem
from tinycode.config import Settings
from tinycode.engine.edits import Edit
from tinycode.engine.guard import edit_too_large
from tinycode.engine.trace import Step
from tinycode.engine.verifier import Verifier

FILLER = "".join(f"    total += {i}\n" for i in range(12))


def _region_clean(candidate, state) -> bool:
    """The loop's question of a candidate: is its edit's region clear of problems now?"""
    verifier = Verifier(state.language, state.settings.max_problem_distance)
    return verifier.region_cleared(state.working, state.current, candidate.source_after, candidate.edit)


def three_errors() -> tuple[str, str]:
    """A file with three errors, each repaired by one token, far apart; and its fix."""
    fixed = ("def first(values):\n    total = 0\n" + FILLER + "    return total\n\n\n"
             "def second(values):\n    total = len(values)\n" + FILLER + "    return total\n\n\n"
             "def third(values):\n    total = max(values)\n" + FILLER + "    return total\n")
    broken = (fixed.replace("def first(values):", "def first(values)")
              .replace("total = len(values)", "total = len(values")
              .replace("total = max(values)", "total = max(values))"))
    return broken, fixed


def test_three_errors_far_apart_are_repaired_step_by_step():
    broken, fixed = three_errors()
    # The scripted ranker, like the real model, finds the call likelier than ``len,values``.
    scorer = lambda prompt, text: 0.0 if "len(values)" in text else -5.0  # noqa: E731
    result = repair(broken, "python", llm=FakeLLM(scorer=scorer))
    assert result.status == "fixed" and result.source == fixed
    assert all(step.kind == "fast_path" for step in result.steps)
    # CPython reports one error at a time: each verified edit counts because the next
    # error surfaced past it, and the last step finds the file clean.
    assert result.steps[-1].observation == "No problems: the file parses."


def test_progress_on_one_error_is_kept_when_another_needs_the_model():
    broken, fixed = three_errors()
    broken = broken.replace("def second(values):", "def (values):")  # no small edit names it
    # The model's answer for the window around "def (values):" (three lines either side).
    rewrite = ("```python\n    return total\n\n\ndef second(values):\n    total = len(values)\n"
               "    total += 0\n    total += 1\n```")
    llm = FakeLLM([rewrite], default="Thought: done\nFinal Answer: done",
                  scorer=lambda prompt, text: -len(text))
    result = repair(broken, "python", llm=llm)
    assert result.status == "fixed" and result.source == fixed
    kinds = [step.kind for step in result.steps]
    assert "rewrite" in kinds and "fast_path" in kinds
    assert result.steps[kinds.index("rewrite")].observation != "The rewrite changes nothing usable; " \
        "the agent takes over."


def test_an_error_tree_sitter_reports_as_several_is_one_step():
    broken = ("function f(a) {\n  if (a > 1) {\n    return a;\n  \n  return 0;\n}\n\n"
              "function g(b) {\n  return b * 2;\n}\n")
    assert len(check(broken, "javascript").problems) >= 1
    result = repair(broken, "javascript", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed"
    assert len([s for s in result.steps if s.kind == "fast_path"]) == 1


def test_the_guard_holds_per_region():
    lines = [f"value_{i} = compute({i})" for i in range(60)]
    before = "\n".join(lines) + "\n"
    three_small = lines[:]
    for i in (5, 30, 55):
        three_small[i] = f"value_{i} = compute({i}, checked=True)"
    one_large = lines[:]
    for i in (30, 31, 32):
        one_large[i] = f"value_{i} = compute({i}, checked=True)"
    limits = dict(max_lines=2, max_tokens=10, max_deleted=2)
    assert edit_too_large(before, "\n".join(three_small) + "\n", "python", **limits) == ""
    assert edit_too_large(before, "\n".join(one_large) + "\n", "python", **limits) \
        == "3 lines changed near line 31, limit 2"


def test_a_model_that_makes_no_progress_is_stopped():
    broken = "def (x)):\n    return x\n"
    same = "```python\ndef (x)):\n    return x\n```"
    useless = 'Thought: look\nAction: view_lines\nAction Input: {"start": 1, "end": 2}'
    llm = FakeLLM([same], default=useless)
    result = repair(broken, "python", llm=llm, max_steps=12, agent="open")
    assert result.status == "failed" and result.source == broken
    assert result.reason == "no progress"
    assert sum(1 for s in result.steps if s.kind == "model") < 12  # stopped before the step limit


def test_the_agent_steps_aside_where_it_does_not_pay():
    # The default model's registry entry says the agent does not pay with it: what the
    # loop cannot repair is reported without a single agent turn.
    from tinycode.config import Settings
    from tinycode.engine.agent.loop import NARROW, OPEN, style_for

    assert style_for(Settings()) is None
    assert style_for(Settings(agent="narrow")) is NARROW
    assert style_for(Settings(model="/models/other.gguf")) is OPEN  # not measured: every tool
    assert style_for(Settings(agent="off", agent_only=True)) is OPEN
    llm = FakeLLM(["```python\ndef (x)):\n    return x\n```"])
    result = repair("def (x)):\n    return x\n", "python", llm=llm, settings=Settings())
    assert result.status == "failed" and not [s for s in result.steps if s.kind == "model"]
    assert "agent is off" in result.reason


def test_a_search_cut_short_by_the_deadline_says_so(monkeypatch):
    # On a loaded machine the file's deadline (the safety bound) may end the search
    # before any step: the report says time ran out, not that no edit helps.
    from tinycode.config import Settings
    from tinycode.engine import candidates, loop

    monkeypatch.setattr(candidates, "expired", lambda: True)
    monkeypatch.setattr(loop, "expired", lambda: True)
    result = repair("def f(x):\n    return (x\n", "python", llm=FakeLLM(default="no"), settings=Settings())
    assert result.status == "failed" and result.reason == "time budget spent before a step made progress"


def test_an_opener_lost_far_above_its_closer_may_be_put_back():
    # CPython reports the closer ("unmatched ']'"); the opener belongs 15 lines up. Only
    # brackets may be added that far from a problem: any other change there is refused
    # (the model's rewrite or the agent may make it).
    from tinycode.check import Problem

    items = "".join(f'    "item{i}",\n' for i in range(14))
    broken, fixed = "names =\n" + items + "]\n", "names = [\n" + items + "]\n"
    at_closer = [Problem(16, 1, 16, 1, "SyntaxError: unmatched ']'", kind="compiler", source="python")]
    assert edit_too_large(broken, fixed, "python", problems=at_closer) == ""
    assert edit_too_large(broken, fixed.replace("names", "admins", 1), "python", problems=at_closer) \
        .startswith("line 1 changed, 15 lines from the nearest problem")


def test_a_bracket_doubled_in_one_place_and_lost_in_another_is_repaired_in_one_step():
    """A doubled "{" and a block that lost its "{": the block's opener put back is
    progress on its own, so the search finds both. The paired search, for places that
    only together make progress, finds the same pair."""
    from tinycode.engine.candidates import paired_fixes

    def rule(name: str, color: str) -> str:
        return f".{name} {{\n  color: #{color};\n  font-weight: normal;\n  font-style: normal;\n}}\n"

    names = ["keyword", "string", "comment", "type", "number", "preproc", "title"]
    clean = "body {\n  background-color: #ffffff;\n  color: #000000;\n}\n\n" + \
        "\n".join(rule(name, f"00{i:02d}b3") for i, name in enumerate(names))
    broken = clean.replace(".keyword {", ".keyword {{").replace(".number {", ".number ")
    assert not check(broken, "css").ok
    # Several pairs parse (the '{' at either end of the line break): the model chooses.
    scorer = lambda prompt, text: 0.0 if ".number {" in text else -3.0  # noqa: E731
    # tree-sitter alone: with postcss judging too, the first repair found is `{*{` (a
    # nested rule, valid CSS) rather than the `{` deleted.
    judges.configure({"css": "off"})
    result = repair(broken, "css", llm=FakeLLM(default="no", scorer=scorer), settings=Settings(agent="off"))
    assert result.status == "fixed" and result.source == clean and len(result.steps) == 1
    pairs = paired_fixes(broken, "css", check(broken, "css"), reach=5)
    assert clean in [pair.source_after for pair in pairs] and all(pair.fixes_all for pair in pairs)


def test_what_tree_sitter_saw_under_the_judges_error_does_not_keep_its_region_open():
    pytest.importorskip("yaml")
    shapes = (Path(__file__).parent / "data" / "shapes.yaml").read_text()
    broken = shapes.replace("y: 0}", "y: 0}}").replace("y: 2}", "y: 2")
    after = broken.replace("y: 0}}", "y: 0}")  # the first mistake repaired, the second left
    first = check(broken, "yaml")
    # tree-sitter's error spans the repaired line before and after (it misreads the
    # file); PyYAML's next error is 11 lines further on.
    assert first.problems[0].line == 3 and check(after, "yaml").problems[0].line == 14
    candidate = SimpleNamespace(edit=Edit(3, 1, ["origin: {x: 0, y: 0}"], "line 3: delete '}'"), source_after=after)
    state = SimpleNamespace(current=first, language="yaml", settings=Settings(), working=broken)
    assert _region_clean(candidate, state)


def test_an_error_of_tree_sitters_too_wide_to_locate_anything_does_not_keep_a_region_open():
    pytest.importorskip("yaml")
    rows = "".join(f"- [item{k}, {k}, {k * 2}]\n" for k in range(60))
    broken = ("# Rows\n---\n" + rows + "---\nname: drawing\n%TAG ! tag:example.com,2002:\n--- !shape\n"
              "- !circle\n  center: x: 73, y: 129}\n  radius: 7\n").replace("- [item30,", "- [[item30,")
    after = broken.replace("- [[item30,", "- [item30,")
    # tree-sitter misreads the file: once line 33 parses, it flags lines 1-64 as one error.
    assert [(p.line, p.end_line) for p in check(after, "yaml").problems] == [(68, 68), (1, 64)]
    candidate = SimpleNamespace(edit=Edit(33, 1, ["- [item30, 30, 60]"], "line 33: delete '['"), source_after=after)
    state = SimpleNamespace(current=check(broken, "yaml"), language="yaml", settings=Settings(), working=broken)
    assert _region_clean(candidate, state)


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_an_edit_elsewhere_does_not_repair_the_region_of_an_error_the_judge_still_reports():
    lines = ["function f(x) {", "  let y = 1;", "  if (x {", "    y = 2;", "  }", "  return y;", "}"]
    lines += [f"const c{n} = {n};" for n in range(30)]
    after = "\n".join(lines) + "\n"
    # A candidate that changed line 30 only: its own region is clean, node's error on
    # line 3 is still there.
    candidate = SimpleNamespace(edit=Edit(30, 1, [lines[29]], "line 30: an edit"), source_after=after)
    reported = check(after, "javascript").problems[0]
    assert reported.source.startswith("node") and reported.line == 3

    def state(first):
        return SimpleNamespace(current=CheckResult("javascript", (first,), first.source), language="javascript",
                               settings=Settings(), working=after)

    assert not _region_clean(candidate, state(reported))
    # What only tree-sitter reported may be left for a later step.
    assert _region_clean(candidate, state(Problem(3, 1, 3, 1, "unexpected '{'", source="tree-sitter")))


def test_another_problems_region_is_repaired_when_nothing_repairs_the_first():
    # The first mistakes are beyond any small edit, and the search for them looks near
    # them; the one far below is not, and is repaired before the rewrite is asked for.
    rules = "".join(f".box{n} {{ margin: {n}px; padding: 0 {n}px; }}\n" for n in range(30))
    fixed = ".top { color: red; }\n.mid { color: blue; }\n.low { color: green; }\n" + rules + \
        ".hidden { display: none; }\n"
    broken = fixed.replace(".top { color: red; }", ".top { color: red; } @@ %% ^^ && ~~ ** ((").replace(
        ".low { color: green; }", ".low { color: green; } ## !! ?? ^^ ((").replace(".hidden", "..hidden")
    steps = []
    result = repair(broken, "css", llm=FakeLLM(default="no answer", scorer=lambda prompt, text: -len(text)),
                    settings=Settings(agent="off"), on_step=steps.append)
    assert steps[0].kind == "fast_path" and steps[0].input["description"].startswith("line 34: delete")
    assert "next at line 1:" in steps[0].observation
    assert result.status == "failed" and result.source == broken  # nothing written unless all verifies


def test_a_rewrite_that_did_not_help_is_not_asked_for_again():
    # Two errors that no small edit repairs, far apart; the model's answers change nothing.
    rules = "".join(f".box{n} {{ margin: {n}px; padding: 0 {n}px; }}\n" for n in range(30))
    broken = ".top { color: red; } @@ %% ^^ && ~~ ** ((\n" + rules + ".low { color: green; } ## !! ?? ^^ ((\n"
    llm = FakeLLM(default="no answer", scorer=lambda prompt, text: -len(text))
    steps = []
    repair(broken, "css", llm=llm, settings=Settings(agent="off"), on_step=steps.append)
    assert [s.kind for s in steps].count("rewrite") == 1


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_another_mistake_seen_before_below_the_edit_does_not_keep_its_region_open():
    broken = ("function total(items) {\n  let sum = 0;\n  for (const x of items {\n    sum += x.price;\n  }\n"
              "  retrun sum;\n}\n")
    after = broken.replace("items {", "items) {")
    first = check(broken, "javascript")
    # Both mistakes seen at once; once line 3 is repaired node reports line 6's.
    assert [p.line for p in first.problems][:1] == [3] and check(after, "javascript").problems[0].line == 6
    state = SimpleNamespace(current=first, language="javascript", settings=Settings(), working=broken)
    candidate = SimpleNamespace(edit=Edit(3, 1, ["  for (const x of items) {"], "line 3: insert ')'"),
                                source_after=after)
    assert _region_clean(candidate, state)
    # An edit that leaves its own line broken still keeps it open.
    wrong = broken.replace("items {", "items ? {")
    candidate = SimpleNamespace(edit=Edit(3, 1, ["  for (const x of items ? {"], "line 3: insert '?'"),
                                source_after=wrong)
    assert not _region_clean(candidate, state)


def test_a_region_judged_alone_is_repaired_while_an_error_above_it_stays():
    # CPython stops at the first error, which no small edit repairs: judged in the file
    # it hides the one below. With the first function blanked, the second's lost ':' is
    # CPython's first error, repaired there, and kept in the file: nothing new elsewhere.
    from tinycode.engine.loop import RepairState, _alone_fix

    broken = ("def first(x):\n    return x $$ ?? !! ` ` $$\n\n\ndef helper():\n    return 1\n\n\n"
              "def second(y):\n    if y\n        return y\n    return 0\n")
    before = check(broken, "python")
    assert [p.line for p in before.problems] == [2, 10]
    state = RepairState.start(broken, "python", before, Settings(), FakeLLM(scorer=lambda prompt, text: -len(text)),
                              None)
    text, after = _alone_fix(state)
    assert text == broken.replace("    if y\n", "    if y:\n")
    assert [p.line for p in after.problems] == [2]
    step = state.result.steps[-1]
    assert step.input == {"description": "line 10: insert ':'"} and step.rule
    assert "as if it were the only problem" in step.thought


SHELL_SCRIPT = """#!/bin/bash
name="world"
echo "hello $name"
if [ -n "$name" ]; then
  echo "name is set"
fi
for f in *.txt; do
  echo "file: $f"
done
echo "done"
"""

PHP_TEST = """<?php
class QueueTest {
  public function testAdd() {
    $task = $this->queue->add();
    $task->setQueueName('default');
    $task->setUrl('/someOtherUrl');
    $time = 12345.6;
    $task->setEtaUsec($time * 1e6);
    $task->setBody($this->body);
    $task->setRetries(3);
    $task->setTag($this->tag);
    $task->setMethod($this->method);
    $this->assertTrue($task->isValid());
  }

  public function testWrongType() {
    $this->setExpectedException('\\InvalidArgumentException',
        '$name must be a string');
    $queue = new PushQueue(54321);
  }
}
"""


@pytest.mark.parametrize("language, clean, line", [
    ("bash", SHELL_SCRIPT, 'name="world"'),
    pytest.param("php", PHP_TEST, "    $task->setUrl('/someOtherUrl');",
                 marks=pytest.mark.skipif(shutil.which("php") is None, reason="php -l reports where the string ends")),
])
def test_a_string_closed_with_the_other_quote_is_repaired_where_it_was_closed(language, clean, line):
    # The string runs on to the next quote of its kind, lines below, where the mistake
    # is reported: the quote that ended it is made the other kind, however far above.
    wrong = line.replace('"world"', '"world\'').replace("Url');", 'Url");')
    broken = clean.replace(line, wrong)
    before = check(broken, language)
    assert not before.ok and min(p.line for p in before.problems) > clean.split("\n").index(line) + 1 + 6
    result = repair(broken, language, llm=FakeLLM(scorer=lambda prompt, text: -len(text)),
                    settings=Settings(agent="off"))
    # Either quote closes it: which is the model's choice.
    other_kind = line.replace('"world"', "'world'").replace("'/someOtherUrl'", '"/someOtherUrl"')
    assert result.status == "fixed" and result.source in (clean, clean.replace(line, other_kind))


def test_a_repair_cut_short_by_its_deadline_reports_the_problems_it_left(monkeypatch):
    # The deadline came in the loop: the file is left as it was, and its problems are
    # the original's, not a second judge's run past the deadline (which would fail too,
    # and leave the report saying "not fixed" and then "no problems found").
    import tinycode.engine.loop as loop
    from tinycode.deadline import DeadlineExceeded

    checked: list[str] = []
    real_check = loop.check
    monkeypatch.setattr(loop, "check", lambda text, language: checked.append(text) or real_check(text, language))

    def out_of_time(state):
        raise DeadlineExceeded("time budget spent before a model call")

    monkeypatch.setattr(loop, "run_loop", out_of_time)
    broken = "def f(x):\n    return (x\n"
    result = repair(broken, "python", llm=FakeLLM())
    assert result.status == "failed" and result.reason.startswith("time budget spent")
    assert result.problems_before and result.problems_after == result.problems_before
    assert checked == [broken]


TOML_URLS = '[project]\nname = "demo"\nversion = "1.0"\n\n[project.urls]\n"Issue tracker" = "https://example.org/issues"\nHomepage = "https://example.org"\n'
JSON_PACKAGE = ('{\n  "name": "demo",\n  "version": "1.0.0",\n  "scripts": {\n    "test": "tap"\n  },\n'
                '  "exports": {\n    ".": "./index.js",\n    "./package.json": "./package.json"\n  },\n'
                '  "tap": {\n    "nyc-arg": ["--all"]\n  }\n}\n')
JS_OPTIONS = 'const options = {\n  "max-age": 60,\n  retries: 3,\n};\nmodule.exports = options;\n'
TOML_GLOBS = '[tool.ruff.lint.per-file-ignores]\n"tests/*.py" = ["S101"]\n"docs/conf.py" = ["E501"]\n'


@pytest.mark.parametrize("language, clean, key", [
    ("json", JSON_PACKAGE, '"version"'),  # JSON takes every key only quoted
    ("json", JSON_PACKAGE, '"nyc-arg"'),
    ("json", JSON_PACKAGE, '"."'),  # a path's key
    ("json", JSON_PACKAGE, '"./package.json"'),
    ("javascript", JS_OPTIONS, '"max-age"'),  # a '-': not a name
    ("toml", TOML_GLOBS, '"tests/*.py"'),  # a pattern's key
])
def test_a_key_typed_without_its_quotes_is_quoted(language, clean, key):
    broken = clean.replace(key, key.strip('"'), 1)
    assert not check(broken, language).ok
    result = repair(broken, language, llm=FakeLLM(scorer=lambda prompt, text: 0.0),
                    settings=Settings(agent="off"))
    assert result.status == "fixed" and result.source == clean


@pytest.mark.model
def test_a_key_with_a_space_is_quoted_rather_than_cut_by_the_model(real_llm):
    # Both "Issue tracker" and "Issue" (a word deleted) are keys TOML takes: the model's choice.
    broken = TOML_URLS.replace('"Issue tracker"', "Issue tracker")
    assert not check(broken, "toml").ok
    result = repair(broken, "toml", llm=real_llm, settings=Settings(agent="off"))
    assert result.status == "fixed" and result.source == TOML_URLS


def test_a_line_indented_with_a_tab_among_spaces_is_re_indented_where_it_is():
    # Python reports the mistake lines below the tab, where the block it began ends.
    clean = ("import os\n\n\ndef walk(names):\n    \"\"\"\n    Walk over the names.\n    \"\"\"\n"
             "    pending = [names]\n    while pending:\n        name = pending.pop()\n        yield name\n\n\n"
             "def count(names):\n    return len(names)\n")
    broken = clean.replace('    """\n    Walk', '\t"""\n    Walk')
    problems = check(broken, "python").problems
    assert problems and problems[0].line > 5
    result = repair(broken, "python", llm=FakeLLM(scorer=lambda prompt, text: -len(text)),
                    settings=Settings(agent="off"))
    assert result.status == "fixed" and result.source == clean


def test_a_token_deleted_at_the_end_of_a_line_leaves_no_blank_behind():
    broken = "def f(x):\n    return x +\n\n\nprint(f(1))  \n"
    result = repair(broken, "python", llm=FakeLLM(scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed"
    # The blank before the deleted ``+`` goes with it; a line the repair did not change
    # keeps its own.
    assert result.source == "def f(x):\n    return x\n\n\nprint(f(1))  \n"


def test_blanks_left_at_the_end_of_a_changed_line_are_taken_off_only_where_none_were():
    from tinycode.engine.edits import without_left_blanks

    assert without_left_blanks("a = b +\r\nc\r\n", "a = b \r\nc\r\n") == "a = b\r\nc\r\n"
    assert without_left_blanks("a = b + \nc\n", "a = b \nc\n") == "a = b \nc\n"
    assert without_left_blanks("a = (\n", "a = (\n    \n)\n") == "a = (\n    \n)\n"


def test_a_step_that_a_later_repair_made_needless_is_taken_back():
    # CPython reports the comment split below at the table's first line: a ',' put there
    # moves its error on, and once the split is joined the table parses without it.
    clean = ('decoding_table = (\n    "a"     #  0x00 -> NULL\n    "b"     #  0x01 -> START OF HEADING\n'
             '    "c"     #  0x02 -> START OF TEXT\n)\n')
    broken = clean.replace("#  0x01", "#\n    0x01")
    result = repair(broken, "python", llm=FakeLLM(scorer=lambda prompt, text: 0.0), settings=Settings(agent="off"))
    assert result.status == "fixed" and result.source == clean


def _offering(steps: dict[str, list[str]]):
    """A loop tool that, from each text of ``steps``, keeps the first of its next texts the
    loop does not refuse (none from a text not in ``steps``); each kept step's rule is
    ``rule-N``, N the text's place among all the next texts."""
    from tinycode.engine.loop import RepairState

    every = [text for nexts in steps.values() for text in nexts]

    def tool(state: RepairState):
        for text in steps.get(state.working, []):
            if not state.refused(text):
                state.record(Step(state.next_number(), kind="fast_path", rule=f"rule-{every.index(text)}"))
                return text, check(text, state.language)
        return None
    return tool


def test_kept_steps_after_which_nothing_repairs_the_rest_are_taken_back(monkeypatch):
    from tinycode.engine import loop

    broken = "def f(x):\n    return (x\n\n\nvalue = f(1))\n\nother = [1\n"
    # A first step that makes progress, a second after it, and then no step.
    wrong = broken.replace("(x\n", "(x,\n")
    dead_end = wrong.replace("[1\n", "[1]\n")
    right = broken.replace("(x\n", "(x)\n")
    fixed = right.replace("f(1))", "f(1)").replace("[1\n", "[1]\n")
    monkeypatch.setattr(loop, "LOOP_TOOLS", (_offering({broken: [wrong, right], wrong: [dead_end],
                                                        right: [fixed]}),))
    result = repair(broken, "python", llm=FakeLLM(), settings=Settings(agent="off"))
    assert result.status == "fixed" and result.source == fixed
    assert [step.kind for step in result.steps] == ["fast_path", "fast_path", "take_back", "fast_path", "fast_path"]
    assert result.steps[2].input == {"steps": [1, 2]}
    assert result.rules == ["rule-1", "rule-3"]  # the steps taken back are not among those kept


def test_steps_are_taken_back_a_bounded_number_of_times(monkeypatch):
    from tinycode.engine import loop

    broken = "value = f(1))\n"
    dead_ends = [f"value = f({n}))\n" for n in range(2, 12)]  # each still broken, none leads on
    monkeypatch.setattr(loop, "LOOP_TOOLS", (_offering({broken: dead_ends}),))
    result = repair(broken, "python", llm=FakeLLM(), settings=Settings(agent="off"))
    assert result.status == "failed" and result.source == broken
    assert [step.kind for step in result.steps].count("take_back") == loop.MAX_TAKEN_BACK
