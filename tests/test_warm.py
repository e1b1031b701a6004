"""Warm judge processes: the node worker gives the same verdicts as ``node --check``,
from one long-lived process (javac's and TypeScript's parsers: ``test_own_parsers.py``)."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time

import pytest

from tinycode import judges
from tinycode.judges import warm, readers
from tinycode.judges.base import Output, ToolTimeout, run_tool

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")

BROKEN = [
    ("function f( {\n  return 1;\n}\n", "input.js"),
    ("\tif (a) {\n\t\tb(;\n\t}\n", "input.js"),  # tabs before the caret
    ("const s = 'café' +;\n", "input.js"),
    ("class A {\n  m() {}\n  }}\n  n() {}\n}\n", "input.js"),
    ("let x = 1;\nlet x = 2;\nimport a from 'b';\n", "input.js"),  # CommonJS's error comes first
    ("const require = 1;\nconst a = ;\n", "input.js"),  # not a module either
    ("`open template ${a\n", "input.js"),
]
CLEAN = [
    ("const a = [1, 2, 3].map((x) => x * 2);\nmodule.exports = { a };\n", "input.js"),
    ("import x from 'y';\nexport const a = x;\n", "input.js"),  # detected as a module
    ("f(await 1);\n", "input.js"),  # a top-level await: a module too
    ("import x from 'y';\nexport default async function f() { return await x; }\n", "input.mjs"),
]


@pytest.fixture
def workers(monkeypatch):
    """A fresh set of workers, started on the first run; every one stopped after the test."""
    warm.stop_all()
    monkeypatch.setattr(warm, "_slots", {})
    monkeypatch.setattr(warm, "RUNS_BEFORE_START", 0)
    monkeypatch.delenv("NODE_OPTIONS", raising=False)
    yield warm
    warm.stop_all()


def node_argv() -> tuple[str, ...]:
    return (shutil.which("node"), "--check", "{file}")


def diagnostics(output: Output, filename: str, text: str):
    return output.returncode, readers.read_node(output, filename, text)


def the_worker():
    (slot,) = warm._slots.values()
    return slot.worker


def test_the_worker_says_what_node_check_says(workers):
    argv = node_argv()
    for text, filename in BROKEN + CLEAN:
        mine = workers.output(argv, text, filename, 10)
        assert mine is not None, text  # answered by the worker, not by node --check
        assert diagnostics(mine, filename, text) == diagnostics(run_tool(argv, text, filename, 10), filename, text)
    assert all(workers.output(argv, t, f, 10).returncode == 0 for t, f in CLEAN)
    assert the_worker().alive()


def test_an_error_in_an_es_module_is_left_to_node_check(workers):
    # node prints a module's "FILE:LINE" and carets from what only its C++ can read.
    assert workers.output(node_argv(), "export const a = ;\n", "input.mjs", 10) is None
    judges.configure(runner=lambda *a: run_tool(*a))
    expected = judges.verdict("import x from 'y';\nexport const a = ;\n", "javascript")
    judges.configure()
    assert judges.verdict("import x from 'y';\nexport const a = ;\n", "javascript") == expected


def test_verdicts_are_those_of_the_per_run_path(workers):
    texts = [t for t, f in BROKEN + CLEAN if f == "input.js"] + ["const e = <div>{1}</div>;\n"]
    judges.configure(runner=lambda *a: run_tool(*a))  # a runner of its own: no worker
    expected = [judges.verdict(t, "javascript") for t in texts]
    assert not workers._slots
    judges.configure()
    assert [judges.verdict(t, "javascript") for t in texts] == expected
    assert the_worker() is not None and any(v.diagnostics for v in expected)


def test_a_runner_of_the_tests_own_is_used_as_before(workers, monkeypatch):
    def refuse(*args):
        raise AssertionError("the worker was asked")

    monkeypatch.setattr(warm, "output", refuse)
    seen = []

    def runner(argv, text, filename, timeout):
        seen.append(filename)
        return Output(1, "", "input.js:1\nx\n^\n\nSyntaxError: from the runner\n")

    judges.configure(runner=runner)
    assert judges.verdict("x\n", "javascript").diagnostics[0].message == "SyntaxError: from the runner"
    assert seen == ["input.js"]


def test_the_first_runs_of_a_process_start_no_worker(workers, monkeypatch):
    monkeypatch.setattr(warm, "RUNS_BEFORE_START", 2)
    argv = node_argv()
    assert [workers.output(argv, "a = 1;\n", "input.js", 10) for _ in range(2)] == [None, None]
    assert workers.output(argv, "a = 1;\n", "input.js", 10) == Output(0, "", "")


def test_a_worker_that_dies_is_started_again(workers):
    argv = node_argv()
    text, filename = BROKEN[0]
    first = workers.output(argv, text, filename, 10)
    old = the_worker().process
    old.kill()
    old.wait()
    again = workers.output(argv, text, filename, 10)
    assert again == first and the_worker().process.pid != old.pid and the_worker().alive()


def test_a_worker_that_dies_on_a_text_is_started_again_for_it_once(workers, monkeypatch, tmp_path):
    # Each process of this program dies on its first text while the marker is there.
    marker = tmp_path / "die"
    script = tmp_path / "checker.cjs"
    script.write_text(
        "const fs = require('fs');\n"
        f"const marker = {str(marker)!r};\n"
        "require('readline').createInterface({input: process.stdin}).on('line', (l) => {\n"
        "  if (fs.existsSync(marker)) { fs.unlinkSync(marker); process.exit(1); }\n"
        "  process.stdout.write(JSON.stringify({id: JSON.parse(l).id, status: 0, stderr: ''}) + '\\n');\n"
        "});\n")
    monkeypatch.setattr(warm, "_program", lambda: str(script))
    monkeypatch.setattr(warm, "PROBES", ())  # this program is not node --check
    marker.write_text("")
    assert workers.output(node_argv(), "a = 1;\n", "input.js", 10) == Output(0, "", "")
    (slot,) = workers._slots.values()
    assert slot.starts == 2 and not marker.exists()
    # Dying again on the text it was started again for: node --check judges it.
    marker.write_text("")
    slot.worker.stop()
    script.write_text("process.stdin.on('data', () => process.exit(1));\n")
    assert workers.output(node_argv(), "a = 1;\n", "input.js", 10) is None
    assert slot.starts == 4


@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP")
def test_a_worker_that_does_not_answer_times_out_and_is_stopped(workers):
    argv = node_argv()
    assert workers.output(argv, "a = 1;\n", "input.js", 10) is not None
    process = the_worker().process
    os.kill(process.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with pytest.raises(ToolTimeout, match="took longer than 0.3 s"):
            workers.output(argv, "b = 2;\n", "input.js", 0.3)
        assert time.monotonic() - started < 5
        assert process.wait(timeout=5) is not None  # killed
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGCONT)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP")
def test_a_judge_whose_worker_hangs_gives_no_verdict_as_a_hung_node_did(workers):
    assert judges.verdict("a = 1;\n", "javascript") is not None  # started and trusted
    judges.configure(timeout=0.3)
    process = the_worker().process
    os.kill(process.pid, signal.SIGSTOP)
    try:
        assert judges.verdict("b = (;\n", "javascript") is None
        assert shutil.which("node") in judges._state.hung
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGCONT)


def test_without_a_worker_node_check_runs_as_before(workers, monkeypatch):
    monkeypatch.setattr(warm, "_program", lambda: None)  # the program is not installed
    text, filename = BROKEN[0]
    assert workers.output(node_argv(), text, filename, 10) is None
    assert judges.verdict(text, "javascript").diagnostics[0].line == 2
    assert all(slot.worker is None for slot in warm._slots.values())


@pytest.mark.parametrize("program", [
    "process.stdin.on('data', () => process.stdout.write('not json\\n'));",  # misbehaves
    "process.exit(3);",  # dies at once
    # answers every text as clean: it does not agree with node --check
    "require('readline').createInterface({input: process.stdin}).on('line', (l) =>"
    " process.stdout.write(JSON.stringify({id: JSON.parse(l).id, status: 0, stderr: ''}) + '\\n'));",
])
def test_a_worker_that_misbehaves_is_not_believed(workers, monkeypatch, tmp_path, program):
    script = tmp_path / "checker.cjs"
    script.write_text(program)
    monkeypatch.setattr(warm, "_program", lambda: str(script))
    text, filename = BROKEN[0]
    assert workers.output(node_argv(), text, filename, 10) is None
    found = judges.verdict(text, "javascript")
    assert (found.diagnostics[0].line, found.diagnostics[0].column) == (2, 10)


def test_node_options_or_a_package_json_above_the_temporary_folder_leave_it_to_node(workers, monkeypatch, tmp_path):
    argv = node_argv()
    assert workers.usable(argv, "input.js")
    assert not workers.usable(argv + ("--harmony",), "input.js")
    assert not workers.usable(argv, "input.cjs")
    monkeypatch.setenv("NODE_OPTIONS", "--experimental-default-type=module")
    assert not workers.usable(argv, "input.js")
    monkeypatch.delenv("NODE_OPTIONS")
    (tmp_path / "package.json").write_text('{"type": "module"}')
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    assert not workers.usable(argv, "input.js")


def test_stopping_every_worker_ends_its_process(workers):
    assert workers.output(node_argv(), "a = 1;\n", "input.js", 10) is not None
    process = the_worker().process
    workers.stop_all()
    assert process.poll() is not None and the_worker() is None
