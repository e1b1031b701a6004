"""Attacks from the security issue, each on real files and real symlinks: every test
is named for the attack it shows failing. The model is a scripted fake (the subject
is what the CLI does around it); the pre-commit side is in tests/test_precommit.py."""

from __future__ import annotations

import json
import os
import time
import tracemalloc
from pathlib import Path

import pytest

from tinycode.errors import ModelError
from fake_llm import FakeLLM

from scripted import AGENT_FIX, FIXED, NEEDS_AGENT, run  # noqa: F401



def error_lines(err: str) -> list[str]:
    assert "Traceback" not in err, err
    return [line for line in err.splitlines() if line.startswith("tinycode: error:")]


# --- 2. --backup never writes through a link, never destroys a file ---------------------

def test_backup_through_a_symlinked_orig_leaves_the_link_target_alone(capsys, tmp_path, model):
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's precious data\n")
    work = tmp_path / "work"
    work.mkdir()
    path = work / "a.py"
    path.write_text(NEEDS_AGENT)
    (work / "a.py.orig").symlink_to(Path("..") / "victim.txt")

    code, _, err = run(capsys, "fix", "--backup", str(path))
    assert code == 0, err
    assert victim.read_text() == "the user's precious data\n"
    assert (work / "a.py.orig").is_symlink()
    assert (work / "a.py.1.orig").read_text() == NEEDS_AGENT and path.read_text() == FIXED
    assert "a.py.orig exists; the backup is" in err and "a.py.1.orig" in err


def test_backup_through_a_dangling_symlink_creates_nothing_at_its_target(capsys, tmp_path, model):
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    planted = tmp_path / "planted.sh"
    (tmp_path / "a.py.orig").symlink_to(planted)
    assert run(capsys, "fix", "--backup", str(path))[0] == 0
    assert not planted.exists() and (tmp_path / "a.py.1.orig").read_text() == NEEDS_AGENT


def test_backup_never_clobbers_an_existing_orig(capsys, tmp_path, model):
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    path.chmod(0o640)
    (tmp_path / "a.py.orig").write_text("an older backup\n")
    (tmp_path / "a.py.1.orig").write_text("another one\n")
    assert run(capsys, "fix", "--backup", str(path))[0] == 0
    assert (tmp_path / "a.py.orig").read_text() == "an older backup\n"
    assert (tmp_path / "a.py.1.orig").read_text() == "another one\n"
    kept = tmp_path / "a.py.2.orig"
    assert kept.read_text() == NEEDS_AGENT and kept.stat().st_mode & 0o777 == 0o640
    assert path.read_text() == FIXED


# --- 3. File names become options; an output over an input -----------------------------

def test_trace_naming_the_input_is_refused_and_the_input_kept(capsys, tmp_path, model):
    path = tmp_path / "x.py"
    path.write_text(NEEDS_AGENT)
    code, _, err = run(capsys, "fix", "--trace", str(path), str(path))
    assert code == 2
    (line,) = error_lines(err)
    assert "is also an input file" in line
    assert path.read_text() == NEEDS_AGENT and model["loads"] == 0


def test_trace_through_a_symlink_to_the_input_is_refused(capsys, tmp_path, model):
    path = tmp_path / "x.py"
    path.write_text(NEEDS_AGENT)
    (tmp_path / "trace.jsonl").symlink_to(path)
    code, _, err = run(capsys, "fix", "--trace", str(tmp_path / "trace.jsonl"), str(path))
    assert code == 2 and "is also an input file" in err
    assert path.read_text() == NEEDS_AGENT


def test_trace_over_a_file_that_is_not_a_trace_is_refused(capsys, tmp_path, model):
    victim = tmp_path / "victim.py"
    victim.write_text("SECRET = 1\n")
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    code, _, err = run(capsys, "fix", "--trace", str(victim), str(path))
    assert code == 2 and "is not a tinycode trace" in err
    assert victim.read_text() == "SECRET = 1\n" and path.read_text() == NEEDS_AGENT


def test_trace_over_an_older_trace_still_works(capsys, tmp_path, model):
    path = tmp_path / "a.py"
    path.write_text(NEEDS_AGENT)
    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"path": "old.py", "number": 1, "kind": "fast_path", "thought": "", "action": "apply_fix", '
                     '"input": {}, "observation": ""}\n')
    assert run(capsys, "fix", "--trace", str(trace), str(path))[0] == 0
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    assert records and all(r["path"] == str(path) for r in records)


@pytest.mark.parametrize("content", ['{"name": "app", "version": "1.0.0"}\n', '{"path": "x"}\n'])
def test_trace_over_a_one_line_json_file_that_is_not_a_trace_is_refused(capsys, tmp_path, model, content):
    victim = tmp_path / "package.json"
    victim.write_text(content)
    (tmp_path / "a.py").write_text(NEEDS_AGENT)
    code, _, err = run(capsys, "fix", "--trace", str(victim), str(tmp_path / "a.py"))
    assert code == 2 and "is not a tinycode trace" in err
    assert victim.read_text() == content


def test_trace_inside_a_walked_input_folder_is_refused(capsys, tmp_path, model):
    (tmp_path / "a.py").write_text(NEEDS_AGENT)
    code, _, err = run(capsys, "fix", "--trace", str(tmp_path / "new.json"), str(tmp_path))
    assert code == 2 and "would be read as an input" in err
    assert not (tmp_path / "new.json").exists() and (tmp_path / "a.py").read_text() == NEEDS_AGENT


def test_trace_that_is_a_dangling_link_is_not_written_through(capsys, tmp_path, model):
    (tmp_path / "a.py").write_text(NEEDS_AGENT)
    (tmp_path / "t.jsonl").symlink_to(tmp_path / "elsewhere.txt")
    code, _, err = run(capsys, "fix", "--trace", str(tmp_path / "t.jsonl"), str(tmp_path / "a.py"))
    assert code == 2 and "symbolic link" in err
    assert not (tmp_path / "elsewhere.txt").exists()


def test_file_named_like_an_option_after_double_dash_is_only_a_file(capsys, tmp_path, model, monkeypatch):
    """What the hook entries rely on (the hooks themselves: tests/test_precommit.py)."""
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "victim.py"
    victim.write_text("SECRET = 1\n")
    (tmp_path / "--trace=victim.py").write_text(NEEDS_AGENT)
    code, _, err = run(capsys, "fix", "--", "--trace=victim.py")
    assert code == 0, err
    assert victim.read_text() == "SECRET = 1\n"
    assert (tmp_path / "--trace=victim.py").read_text() == FIXED


def test_option_given_after_double_dash_gets_a_hint(capsys, tmp_path, model, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    code, _, err = run(capsys, "check", "--", "--backup", "a.py")
    assert code == 2
    (line,) = error_lines(err)
    assert "--backup: no such file" in line and "entry:" in line


# --- 6. Size caps, checked before reading -----------------------------------------------

def python_of_size(size: int) -> str:
    line = "value = 1234567890  # padding padding padding padding\n"
    return line * (size // len(line) + 1)


def test_check_of_a_file_over_the_default_cap_is_one_line_and_exit_two(capsys, tmp_path):
    path = tmp_path / "big.py"
    path.write_text(python_of_size(9 * 1024 * 1024))
    started = time.monotonic()
    code, out, err = run(capsys, "check", str(path), str(tmp_path / "big.py"))
    assert code == 2 and out == ""
    assert len(error_lines(err)) == 2 and "too large" in err and "--max-file-size" in err
    assert time.monotonic() - started < 2
    assert run(capsys, "check", "--max-file-size", "10M", str(path))[0] == 0


def test_fix_of_a_file_over_the_default_cap_loads_no_model(capsys, tmp_path, model):
    big = tmp_path / "big.py"
    big.write_text("def (x:\n" + python_of_size(3 * 1024 * 1024))
    small = tmp_path / "small.py"
    small.write_text(NEEDS_AGENT)
    code, _, err = run(capsys, "fix", "--json", str(big), str(small))
    assert code == 2 and "big.py: too large" in error_lines(err)[0]
    assert small.read_text() == FIXED and big.read_text().startswith("def (x:\n")


def test_a_sparse_gigabyte_file_is_refused_without_reading_it(capsys, tmp_path):
    path = tmp_path / "huge.py"
    with path.open("wb") as handle:
        handle.truncate(1024 ** 3)
    tracemalloc.start()
    try:
        code, _, err = run(capsys, "check", str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2 and "too large (1,073,741,824 bytes" in err
    assert peak < 20 * 1024 * 1024


def test_size_caps_come_from_the_config_and_environment(capsys, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.tinycode]\nmax-check-size = 100\n")
    (tmp_path / ".git").mkdir()
    path = tmp_path / "a.py"
    path.write_text("x = 1\n" * 50)
    code, _, err = run(capsys, "check", str(path))
    assert code == 2 and "too large (300 bytes, the limit is 100" in err
    monkeypatch.setenv("TINYCODE_MAX_CHECK_SIZE", "1000")
    assert run(capsys, "check", str(path))[0] == 0


def test_stdin_over_the_cap_is_refused(capsys, monkeypatch, model):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x = (\n" * 100)))
    code, out, err = run(capsys, "fix", "--lang", "python", "--max-file-size", "100", "-")
    assert code == 2 and "too large" in err and model["loads"] == 0


@pytest.mark.parametrize("value", ["0", "lots", "-5"])
def test_bad_size_is_a_usage_error(capsys, tmp_path, value):
    code, _, err = run(capsys, "check", f"--max-file-size={value}", str(tmp_path / "a.py"))
    assert code == 2 and "--max-file-size" in err and "Traceback" not in err


# --- 7. Terminal escapes in sources and names --------------------------------------------

OSC_TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J\x1b[H"
CSI_C1 = "\x9b31m"


def test_escape_sequences_in_source_lines_are_printed_escaped(capsys, tmp_path):
    path = tmp_path / "evil.py"
    path.write_text(f"x = (  # {OSC_TITLE}{CLEAR}{CSI_C1}\u202e\n")
    code, out, err = run(capsys, "check", str(path))
    assert code == 1
    for raw in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert raw not in out + err
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[H\\x9b31m\\u202e" in out


def test_escape_sequences_in_file_names_are_printed_escaped(capsys, tmp_path, model):
    bad = tmp_path / f"evil{OSC_TITLE}.py"
    bad.write_text("x = (\n")
    missing = tmp_path / f"gone{CLEAR}.py"
    code, out, err = run(capsys, "check", str(bad), str(missing))
    assert code == 2 and "\x1b" not in out + err and "\x07" not in out + err
    assert "evil\\x1b]0;pwned\\x07.py" in out and "gone\\x1b[2J\\x1b[H.py: no such file" in err
    code, out, err = run(capsys, "fix", "--max-steps", "1", str(missing))
    assert code == 2 and "\x1b" not in out + err


def test_fix_messages_and_agent_steps_are_printed_escaped(capsys, tmp_path, model):
    model["llm"] = FakeLLM(default=f"Thought: {OSC_TITLE}\nAction: view_lines\nAction Input: {{\"start\": 1}}")
    path = tmp_path / f"a{CLEAR}.py"
    path.write_text(f"this is $$$ not ??? python ``` {OSC_TITLE}\n")
    code, out, err = run(capsys, "fix", "-v", "--max-steps", "2", str(path))
    assert code == 1 and "not fixed" in err
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "\\x1b]0;pwned\\x07" in err


def test_json_keeps_control_characters_exact(capsys, tmp_path, model):
    line = f"values = [1, 2  # {OSC_TITLE}{CSI_C1}\u202e\n"
    path = tmp_path / f"evil{OSC_TITLE}.py"
    path.write_text(line + "y = 3\n")
    code, out, _ = run(capsys, "fix", "--json", "--diff", str(path))
    assert code == 0
    assert "\x1b" not in out and "\x9b" not in out and "\u202e" not in out
    (report,) = json.loads(out)
    assert report["path"] == str(path)
    assert f"-{line}" in report["diff"] and OSC_TITLE in report["diff"]


# --- 8. One file's model failure does not sink the batch ---------------------------------

def test_a_model_error_on_one_file_leaves_the_others_repaired_and_reported(capsys, tmp_path, model):
    def reply(prompt):
        if "file two" in (prompt if isinstance(prompt, str) else json.dumps(list(prompt))):
            raise ModelError("the model server answered HTTP 500")
        return AGENT_FIX

    model["llm"] = FakeLLM(default=reply, scorer=lambda prompt, text: -len(text))
    paths = []
    for name in ("one", "two", "three"):
        path = tmp_path / f"{name}.py"
        path.write_text(f"def (x)):\n    return x  # file {name}\n")
        paths.append(path)
    code, out, err = run(capsys, "fix", "--json", *map(str, paths))
    assert code == 2
    reports = {Path(r["path"]).stem: r for r in json.loads(out)}
    assert set(reports) == {"one", "two", "three"}
    assert reports["one"]["status"] == reports["three"]["status"] == "fixed"
    assert reports["two"]["status"] == "error" and "HTTP 500" in reports["two"]["error"]
    assert paths[0].read_text().startswith("def double(x):")
    assert paths[2].read_text().startswith("def double(x):")
    assert paths[1].read_text() == "def (x)):\n    return x  # file two\n"
    (line,) = error_lines(err)
    assert "two.py" in line and "HTTP 500" in line

    # The human summary counts it too.
    paths[0].write_text("def (x)):\n    return x  # file one\n")
    code, _, err = run(capsys, "fix", *map(str, paths[:2]))
    assert code == 2 and "Fixed 1 of 2 files with problems; 1 stopped by a model error." in err


def test_a_model_that_cannot_load_is_tried_once_and_every_file_reported(capsys, tmp_path, monkeypatch):
    import tinycode.llm.loader as loader

    loads = []

    def broken(*args, **kwargs):
        loads.append(1)
        raise ModelError("model qwen is not on this machine")

    monkeypatch.setattr(loader, "load_llm", broken)
    clean = tmp_path / "clean.py"
    clean.write_text("x = 1\n")
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text(NEEDS_AGENT)
    second.write_text(NEEDS_AGENT)
    code, out, err = run(capsys, "fix", "--json", str(first), str(clean), str(second))
    assert code == 2 and len(loads) == 1
    reports = json.loads(out)
    assert [r["status"] for r in reports] == ["error", "clean", "error"]
    assert all("not on this machine" in r["error"] for r in reports if r["status"] == "error")
    assert first.read_text() == second.read_text() == NEEDS_AGENT
    assert len(error_lines(err)) == 2 and "Traceback" not in err


def test_a_trace_that_cannot_be_written_stops_tracing_not_repairs(capsys, tmp_path, model):
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    paths = []
    for i in range(2):
        path = tmp_path / f"f{i}.py"
        path.write_text(NEEDS_AGENT)
        paths.append(path)
    code, _, err = run(capsys, "fix", "--trace", "/dev/full", *map(str, paths))
    assert code == 2
    (line,) = error_lines(err)
    assert "--trace: cannot write" in line
    assert all(p.read_text() == FIXED for p in paths)


def test_a_write_error_on_one_file_leaves_the_others_written(capsys, tmp_path, model, monkeypatch):
    import tinycode.sourcefile as sourcefile

    real = sourcefile.write_atomic

    def flaky(path, text, **kwargs):
        if path.endswith("two.py"):
            raise OSError(5, "Input/output error")
        return real(path, text, **kwargs)

    monkeypatch.setattr(sourcefile, "write_atomic", flaky)
    paths = [tmp_path / f"{n}.py" for n in ("one", "two", "three")]
    for path in paths:
        path.write_text(NEEDS_AGENT)
    code, out, err = run(capsys, "fix", "--json", *map(str, paths))
    assert code == 2
    assert [r["status"] for r in json.loads(out)] == ["fixed", "error", "fixed"]
    assert paths[0].read_text() == paths[2].read_text() == FIXED and paths[1].read_text() == NEEDS_AGENT


# --- 10. Hook friction: unknown types, the project's exclude -------------------------------

UNKNOWN = {"Pipfile": "[packages]\nrequests = '*'\n", ".babelrc": '{"presets": []}\n',
           "binding.gyp": "{'targets': []}\n"}


@pytest.mark.parametrize("command", ["check", "fix"])
def test_files_of_unknown_type_are_skipped_quietly_with_ignore_unknown(capsys, tmp_path, model, command):
    for name, text in UNKNOWN.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "ok.py").write_text("x = 1\n")
    names = [str(tmp_path / name) for name in (*UNKNOWN, "ok.py")]
    code, out, err = run(capsys, command, "--ignore-unknown", *names)
    summary = "No problems found in 1 file" + (".\n" if command == "check" else "; nothing to fix.\n")  # ok.py alone
    assert (code, out, err) == (0, "", summary)
    code, _, err = run(capsys, command, "--ignore-unknown", "-v", *names)
    assert code == 0 and err.count("skipped (unknown file type)") == 3
    # Without the flag, an unknown file is still an error: nothing silently changes.
    assert run(capsys, command, str(tmp_path / "Pipfile"))[0] == 2
    assert model["loads"] == 0


def test_ignore_unknown_still_reads_a_shebang(capsys, tmp_path):
    script = tmp_path / "deploy"
    script.write_text("#!/usr/bin/env python3\nx = (\n")
    code, out, _ = run(capsys, "check", "--ignore-unknown", str(script))
    assert code == 1 and "was never closed" in out


def test_check_honours_the_project_exclude_and_language_lists(capsys, tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tinycode]\nexclude = ["vendor"]\nexclude-languages = ["javascript"]\n')
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "broken.py").write_text("def f(:\n")
    (tmp_path / "broken.js").write_text("let x = (;\n")
    (tmp_path / "ok.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", "vendor/broken.py", "broken.js", "ok.py")
    assert (code, out, err) == (0, "", "No problems found in 1 file.\n")
    code, _, err = run(capsys, "check", "-v", "vendor/broken.py", "broken.js", "ok.py")
    assert code == 0 and err.count("skipped (excluded by the configuration)") == 2
