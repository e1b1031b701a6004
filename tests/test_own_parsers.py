"""Java and TypeScript judged by their own parsers (javac's, the ``typescript`` package's):
real JVM and node processes, kept warm across texts. Tests skip where a tool is missing.

``TINYCODE_TEST_TSC6`` may name the ``tsc`` of a TypeScript 6 install (a JavaScript
parser served by node); a ``tsc`` on PATH is whatever the machine has (7.x is native).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tinycode import judges, repair
from tinycode.check import check
from tinycode.cli import main
from tinycode.judges import warm
from fake_llm import FakeLLM

needs_javac = pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (javac) installed")
needs_tsc = pytest.mark.skipif(shutil.which("tsc") is None, reason="typescript (tsc) not installed")
TSC6 = os.environ.get("TINYCODE_TEST_TSC6", "")
needs_tsc6 = pytest.mark.skipif(not (TSC6 and os.path.isfile(TSC6)), reason="TINYCODE_TEST_TSC6 names no tsc")

CLEAN_JAVA = """package demo;

import java.util.List;

public final class Totals {
    private static final long serialVersionUID = 292L;

    public Totals() {
    }

    static int total(List<Integer> items) {
        int sum = 0;
        for (int x : items) {
            sum += x;
        }
        return sum;
    }
}
"""


@pytest.fixture(autouse=True)
def _own_workers(fresh_workers):
    yield


@needs_javac
def test_javac_rejects_what_tree_sitter_java_accepts():
    # tree-sitter-java reads all three; javac's parser does not.
    for broken, line in ((CLEAN_JAVA.replace("final long", "final if"), 6),
                         (CLEAN_JAVA.replace("    public Totals()", "    public; Totals()"), 8),
                         (CLEAN_JAVA.replace("return sum;", "sum;"), 16)):
        result = check(broken, "java")
        assert not result.ok and result.judge == "javac parser", broken
        assert result.problems[0].line == line
    assert check(CLEAN_JAVA, "java").ok
    assert check(CLEAN_JAVA, "java").judge == "javac parser"


@needs_javac
def test_one_jvm_judges_every_text_of_a_run():
    for n in range(5):
        check(CLEAN_JAVA.replace("292L", f"{n}L"), "java")
    (slot,) = warm._slots.values()
    assert slot.own and slot.starts == 1 and slot.worker is not None and slot.worker.alive()


@needs_javac
def test_java_newer_than_the_jdk_is_no_verdict_not_an_error():
    # A record pattern in a switch: a preview feature or a newer release's syntax for
    # older JDKs, plain Java 21 for newer ones. Either way it is no false alarm.
    newer = CLEAN_JAVA.replace("        return sum;", "        Object o = sum;\n"
                               "        return switch (o) { case Integer i when i > 0 -> i; default -> 0; };")
    assert check(newer, "java").ok


@needs_javac
def test_a_java_repair_is_verified_by_javac():
    broken = CLEAN_JAVA.replace("sum += x;", "sum += x")
    result = repair(broken, "java", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert result.status == "fixed" and result.source == CLEAN_JAVA
    assert result.verified_by == "javac parser"


@needs_javac
def test_javac_is_found_in_java_home_first(tmp_path, monkeypatch):
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    real = os.path.dirname(os.path.realpath(shutil.which("javac")))
    for tool in ("java", "javac"):
        os.symlink(os.path.join(real, tool), home / "bin" / tool)
    monkeypatch.setenv("JAVA_HOME", str(home))
    monkeypatch.setenv("PATH", "/nonexistent")
    judges.configure()
    assert judges.describe(["java"])["java"].startswith("javac parser (")
    assert not check(CLEAN_JAVA.replace("return sum;", "sum;"), "java").ok


CLEAN_TS = """export class Store {
  private value: string | null = null;

  get(): string {
    return this.value ?? "";
  }
}

export const twice = (n: number): number => n * 2;
"""
CLEAN_TSX = """export function Hello(props: { name: string }) {
  return <div className="hello">{props.name}</div>;
}
"""


def _typescript_cases() -> None:
    # tree-sitter-typescript reads all three. JSDoc's ``null!`` is the checker's to
    # reject: found by tinycode in the JavaScript parser's tree (6.x), by the native
    # compiler's grammar rules (7.x).
    cases = [(CLEAN_TS.replace("= (n: number)", "= ~(n: number)"), 9),
             (CLEAN_TS.replace("get(): string {", "get(): string"), 5),
             (CLEAN_TS.replace("| null = null", "| null! = null"), 2)]
    for broken, line in cases:
        result = check(broken, "typescript")
        assert not result.ok and result.judge == "typescript parser", broken
        assert result.problems[0].line == line, result.problems
    assert check(CLEAN_TS, "typescript").ok
    assert check(CLEAN_TSX, "tsx").ok and check(CLEAN_TSX, "tsx").judge == "typescript parser"
    assert not check(CLEAN_TSX.replace("(props:", "(: "), "tsx").ok
    # Decorators of either kind and any module syntax are not grammar errors here.
    assert check("import fs = require('fs');\nexport class A {\n  constructor(@Inject() a: string) {}\n}\n"
                 "const m = await import('./m');\n", "typescript").ok
    # Both parsers run warm: one node process, however many texts.
    assert [slot.own for slot in warm._slots.values()] == [True]
    assert [slot.starts for slot in warm._slots.values()] == [1]


@needs_tsc
def test_the_installed_typescript_judges_typescript_and_tsx():
    _typescript_cases()


@needs_tsc6
def test_typescript_with_a_javascript_parser_runs_warm_in_node():
    judges.configure({"typescript": TSC6, "tsx": TSC6})
    _typescript_cases()
    assert judges.describe(["typescript"])["typescript"].startswith("typescript parser (")


@needs_tsc
def test_fix_json_names_the_judge_that_verified_each_file(tmp_path, capsys, model):
    (tmp_path / "a.ts").write_text(CLEAN_TS.replace("get(): string {", "get(): string"))
    (tmp_path / "b.toml").write_text("a = 1\n")
    judges.configure({"toml": "off"})
    assert main(["fix", "--json", "--judges", "toml=off", str(tmp_path)]) == 0
    reports = {os.path.basename(r["path"]): r for r in json.loads(capsys.readouterr().out)}
    assert reports["a.ts"]["status"] == "fixed" and reports["a.ts"]["verified_by"] == "typescript parser"
    assert reports["b.toml"]["status"] == "clean" and reports["b.toml"]["verified_by"] == "tree-sitter"


def test_a_file_fixed_by_tree_sitter_alone_says_so(tmp_path, capsys, model):
    path = tmp_path / "a.css"
    path.write_text("a {\n  color: red;\n\nb { color: blue; }\n")
    assert main(["fix", "--judges", "off", str(path)]) in (0, 1)
    err = capsys.readouterr().err
    if "fixed" in err.split("\n")[0]:
        assert "tree-sitter only" in err


def test_merge_conflict_reports_agree_with_themselves(tmp_path, capsys, model):
    path = tmp_path / "conflict.py"
    path.write_text("x = 1\n<<<<<<< HEAD\ny = 2\n=======\ny = 3\n>>>>>>> other\n")
    assert main(["fix", str(path)]) == 1
    err = capsys.readouterr().err
    assert "not fixed" in err and "no problems found" not in err
    assert main(["fix", "--json", str(path)]) == 1
    (report,) = json.loads(capsys.readouterr().out)
    assert report["problems_before"] and report["problems_before"] == report["problems_after"]
    assert report["verified_by"] == ""
