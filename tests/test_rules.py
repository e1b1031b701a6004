"""Every change has a rule with a name: the table, the id on each edit and step, the
report's ``rules``, and rules left out one at a time (what ``tools/bench.py --without``
measures)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fake_llm import FakeLLM
from tinycode import repair
from tinycode.check import check, source_lines
from tinycode.cli import main
from tinycode.engine import rules
from tinycode.engine.proposals import proposals
from tinycode.engine.rules import RULES

ROOT = Path(__file__).resolve().parents[1]
EVEN = lambda prompt, text: 0.0  # noqa: E731

PRINT_STATEMENT = "def greet(name):\n    print \"hello\", name\n    return name\n"
BROKEN = {
    "python": PRINT_STATEMENT,
    "javascript": "function f(a) {\n  if (a > 1 {\n    return a;\n  }\n}\n",
    "c": "int main(void) {\n    int x = 1\n    return x;\n}\n",
    "bash": "if [ -f x ]\n  echo yes\nfi\n",
    "json": '{"a": 1 "b": 2}\n',
    "python-session": ">>> x = [1, 2\n>>> print(x)\n",
}


@pytest.fixture(autouse=True)
def every_rule_on():
    yield
    rules.switch_off(())


def test_docs_hold_exactly_the_table_the_tool_prints():
    printed = subprocess.run([sys.executable, str(ROOT / "tools" / "rules_table.py")], capture_output=True,
                             text=True, check=True, cwd=ROOT).stdout
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == printed, \
        "docs/rules.md is out of date: run python tools/rules_table.py --write"
    for entry in RULES.values():
        assert f"`{entry.id}`" in printed and entry.description and "\n" not in entry.description


@pytest.mark.parametrize("language", sorted(BROKEN))
def test_every_edit_proposed_carries_a_registered_rule(language):
    source = BROKEN[language]
    language = language.split("-")[0]
    found = check(source, language)
    assert not found.ok
    edits = list(proposals(source_lines(source), found.problems, language))
    assert edits
    assert all(edit.rule in RULES for edit in edits), {e.rule for e in edits} - set(RULES)


def test_a_rule_switched_off_proposes_nothing_and_the_repair_names_its_rule():
    found = check(PRINT_STATEMENT, "python")
    on = list(proposals(source_lines(PRINT_STATEMENT), found.problems, "python"))
    assert any(edit.rule == "py-print" for edit in on)
    fixed = repair(PRINT_STATEMENT, "python", llm=FakeLLM(scorer=EVEN))
    assert fixed.status == "fixed" and 'print("hello", name)' in fixed.source
    assert fixed.rules == ["py-print"] and [s.rule for s in fixed.steps] == ["py-print"]

    rules.switch_off(["py-print"])
    off = list(proposals(source_lines(PRINT_STATEMENT), found.problems, "python"))
    assert off and not any(edit.rule == "py-print" for edit in off)
    assert len(off) < len(on)
    without = repair(PRINT_STATEMENT, "python", llm=FakeLLM(scorer=EVEN))
    assert "py-print" not in without.rules


def test_switching_off_an_unknown_rule_is_an_error():
    with pytest.raises(ValueError, match="no such rule"):
        rules.switch_off(["no-such-rule"])


def test_fix_json_and_trace_name_the_rules(tmp_path, capsys, model):
    path = tmp_path / "a.py"
    path.write_text(PRINT_STATEMENT)
    trace = tmp_path / "trace.jsonl"
    assert main(["fix", "--json", "--trace", str(trace), str(path)]) == 0
    report = json.loads(capsys.readouterr().out)[0]
    assert report["status"] == "fixed" and report["rules"] == ["py-print"]
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    assert steps and all(step["rule"] in RULES for step in steps)
    path.write_text(PRINT_STATEMENT)
    assert main(["fix", "-v", str(path)]) == 0
    err = capsys.readouterr().err
    assert "Rule: py-print" in err and "(rules: py-print)" in err
