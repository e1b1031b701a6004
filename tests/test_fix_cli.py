"""`tinycode fix`: in place, --diff, stdin, --json, exit codes, line endings; with a
scripted model standing in for the real one."""

from __future__ import annotations

import io
import json
import sys

import pytest

from fake_llm import FakeLLM
from scripted import FIXED, NEEDS_AGENT, run


def test_in_place_fix(capsys, tmp_path, model):
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    path.chmod(0o640)
    code, _, _ = run(capsys, "fix", str(path))
    assert code == 0
    assert path.read_text() == FIXED
    assert path.stat().st_mode & 0o777 == 0o640
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_diff_writes_nothing(capsys, tmp_path, model):
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    code, out, _ = run(capsys, "fix", "--diff", str(path))
    assert code == 0
    assert "-def (x)):\n" in out and "+def double(x):\n" in out
    assert path.read_text() == NEEDS_AGENT
    # git's headers for an absolute path: a/tmp/.../a.py, never a//tmp/...
    rel = str(path).lstrip("/")
    assert f"--- a/{rel}\n+++ b/{rel}\n" in out and "a//" not in out


def test_stdin_to_stdout(capsys, monkeypatch, model):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(NEEDS_AGENT.encode())))
    code, out, _ = run(capsys, "fix", "--lang", "python", "-")
    assert code == 0 and out == FIXED


def test_json_report(capsys, tmp_path, model):
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    code, out, _ = run(capsys, "fix", "--json", "--diff", str(path))
    (report,) = json.loads(out)
    assert report["status"] == "fixed" and report["language"] == "python"
    assert report["problems_before"] and report["problems_after"] == []
    assert report["model_calls"] >= 1 and report["diff"].startswith("--- a/")


def test_clean_files_never_load_a_model(capsys, tmp_path, model):
    path = tmp_path / "ok.js"
    path.write_text("let x = 1;\n")
    assert run(capsys, "fix", str(path))[0] == 0
    assert model["loads"] == 0


def test_model_loaded_once_for_many_files(capsys, tmp_path, model):
    paths = []
    for i in range(3):
        path = tmp_path / f"f{i}.py"
        path.write_text(NEEDS_AGENT)
        paths.append(str(path))
    assert run(capsys, "fix", *paths)[0] == 0
    assert model["loads"] == 1


def test_unfixable_file_exits_one_and_is_untouched(capsys, tmp_path, model):
    model["llm"] = FakeLLM(default="Thought: hmm\nAction: view_lines\nAction Input: {\"start\": 1}")
    path = tmp_path / "a.py"
    source = "this is $$$ not ??? python ``` at all\n"  # no small edit makes this parse
    path.write_text(source)
    code, _, err = run(capsys, "fix", "--max-steps", "2", str(path))
    assert code == 1 and "not fixed" in err
    assert path.read_text() == source


def test_exit_non_zero_on_fix_and_backup(capsys, tmp_path, model):
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    assert run(capsys, "fix", "--exit-non-zero-on-fix", "--backup", str(path))[0] == 1
    assert (tmp_path / "a.py.orig").read_text() == NEEDS_AGENT


def test_crlf_and_bom_are_kept(capsys, tmp_path, model):
    path = tmp_path / "win.py"
    path.write_bytes(b"\xef\xbb\xbfx = 1\r\nvalues = [1, 2\r\ny = 3\r\n")
    assert run(capsys, "fix", str(path))[0] == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.count(b"\r\n") == 3 and b"\n" not in data.replace(b"\r\n", b"")
    from tinycode import check

    assert check(data.decode("utf-8-sig"), "python").ok and b"y = 3\r\n" in data


def test_model_error_is_one_line_exit_two(capsys, tmp_path, monkeypatch):
    from tinycode.errors import ModelError
    import tinycode.llm.loader as loader

    def broken(*args, **kwargs):
        raise ModelError("model qwen is not on this machine")

    monkeypatch.setattr(loader, "load_llm", broken)
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    code, _, err = run(capsys, "fix", str(path))
    assert code == 2 and "not on this machine" in err and "Traceback" not in err
    assert path.read_text() == NEEDS_AGENT


def test_trace_and_verbose(capsys, tmp_path, model):
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    trace = tmp_path / "trace.jsonl"
    code, _, err = run(capsys, "fix", "-v", "--diff", "--trace", str(trace), str(path))
    assert code == 0
    assert "Thought: name the function" in err and "Action: replace_lines" in err and "Observation:" in err
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    # The scripted reply is no fenced rewrite, so the one-shot rewrite step gives way to the agent.
    assert [r["action"] for r in records] == ["rewrite_lines", "replace_lines"]
    assert records[0]["kind"] == "rewrite" and all(r["path"] == str(path) for r in records)


def test_folder_names_each_file_changed_or_left(capsys, tmp_path, monkeypatch, model):
    """As black's "reformatted PATH": one line per file written or not repaired, then the
    total; nothing for clean files, nor with -q or a machine format on stdout."""
    hopeless = "this is $$$ not ??? python ``` at all\n"

    def project() -> None:
        (tmp_path / "pkg" / "sub").mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / "clean.py").write_text("x = 1\n")
        (tmp_path / "pkg" / "hopeless.py").write_text(hopeless)
        (tmp_path / "pkg" / "sub" / "needs.py").write_text(NEEDS_AGENT)

    monkeypatch.chdir(tmp_path)
    project()
    code, out, err = run(capsys, "fix", "--max-steps", "2", "pkg")
    assert code == 1 and out == "" and (tmp_path / "pkg" / "sub" / "needs.py").read_text() == FIXED
    assert [line for line in err.splitlines() if line.startswith("pkg/")] == [
        "pkg/hopeless.py: not fixed (no fix within 2 steps)",
        "pkg/hopeless.py:1:9: SyntaxError: invalid syntax",
        "pkg/sub/needs.py: fixed"]
    assert err.endswith("pkg/sub/needs.py: fixed\nFixed 1 of 2 files with problems.\n")
    assert "clean.py" not in err

    project()
    assert run(capsys, "fix", "-q", "--max-steps", "2", "pkg") == (1, "", "")
    project()
    code, out, err = run(capsys, "fix", "--json", "--max-steps", "2", "pkg")
    assert [r["status"] for r in json.loads(out)] == ["clean", "failed", "fixed"]
    assert err == "Fixed 1 of 2 files with problems.\n"
    project()
    code, out, err = run(capsys, "fix", "--diff", "--max-steps", "2", "pkg")  # nothing written: the diff says it
    assert "+def double(x):" in out and ": fixed" not in err


def test_single_file_in_place_is_named(capsys, tmp_path, model):
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    code, out, err = run(capsys, "fix", str(path))
    assert (code, out) == (0, "") and err == f"{path}: fixed\nFixed 1 of 1 files with problems.\n"


def test_a_clean_folder_says_there_was_nothing_to_fix(capsys, tmp_path, model):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    assert run(capsys, "fix", str(tmp_path)) == (0, "", "No problems found in 2 files; nothing to fix.\n")
    assert run(capsys, "fix", "-q", str(tmp_path)) == (0, "", "")
