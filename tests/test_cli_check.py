"""`tinycode check`: exit codes, JSON output, and every kind of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tinycode.cli import main

ROOT = Path(__file__).resolve().parent.parent


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "good.py"
    good.write_text("x = 1\n")
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n    pass\n")
    return good, bad


def test_clean_file_exits_zero(capsys, files):
    code, out, err = run(capsys, "check", str(files[0]))
    assert code == 0 and out == "" and err == "No problems found in 1 file.\n"


def test_clean_run_says_so_on_stderr_unless_quiet(capsys, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.js").write_text("let y = 2;\n")
    code, out, err = run(capsys, "check", str(tmp_path))
    assert (code, out, err) == (0, "", "No problems found in 2 files.\n")
    assert run(capsys, "check", "-q", str(tmp_path)) == (0, "", "")
    code, out, err = run(capsys, "check", "--json", str(tmp_path))  # stdout: the document only
    assert code == 0 and [r["ok"] for r in json.loads(out)] == [True, True]
    assert err == "No problems found in 2 files.\n"
    code, out, err = run(capsys, "check", str(tmp_path), str(tmp_path / "missing.py"))
    assert code == 2 and "no such file" in err and "No problems found" not in err  # not a clean run


def test_problem_file_exits_one_and_shows_context(capsys, files):
    code, out, err = run(capsys, "check", str(files[0]), str(files[1]))
    assert code == 1
    assert f"{files[1]}:1:7: SyntaxError: invalid syntax" in out
    assert "█1| def f(:" in out
    assert "Found 1 problem in 1 of 2 files." in err and "Found" not in out  # summaries: stderr


def test_json_output(capsys, files):
    code, out, _ = run(capsys, "check", "--json", str(files[0]), str(files[1]))
    assert code == 1
    report = json.loads(out)
    assert [r["ok"] for r in report] == [True, False]
    problem = report[1]["problems"][0]
    assert {"line", "column", "end_line", "end_column", "message", "text", "kind", "source"} <= set(problem)
    assert report[1]["language"] == "python" and problem["line"] == 1


def test_stdin_needs_lang(capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x = (\n")))
    code, _, err = run(capsys, "check", "-")
    assert code == 2 and "pass --lang" in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x = (\n")))
    code, out, _ = run(capsys, "check", "--lang", "py", "-")
    assert code == 1 and "'(' was never closed" in out


@pytest.mark.parametrize("name,content,message", [
    ("missing.py", None, "no such file"),
    ("binary.py", b"\x7fELF\x00\x01\x02", "binary file"),
    ("latin1.py", "x = 'caf\xe9'\n".encode("latin-1"), "not UTF-8"),
    ("nul.js", b"let a = 1;\x00\n", "NUL bytes"),
    ("notes.unknownext", b"hello", "cannot tell the language"),
])
def test_bad_input_is_one_clear_line(capsys, tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    code, out, err = run(capsys, "check", str(path))
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err + out


def test_directory_is_walked(capsys, tmp_path, files):
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 1 and f"{files[1]}:1:7" in out and "1 of 2 files" in err


def test_empty_directory_is_clean_with_a_warning(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("hello")  # unknown type found by a walk: skipped
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 0 and out == "" and "no files to check" in err


def test_unknown_lang_is_a_usage_error(capsys, files):
    code, _, err = run(capsys, "check", "--lang", "cobol", str(files[0]))
    assert code == 2 and "unknown --lang 'cobol'" in err


def test_no_paths_means_the_current_folder(capsys, tmp_path, monkeypatch, files):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "check")
    assert code == 1 and out.startswith("bad.py:1:7: SyntaxError")


def test_stdin_filename_gives_language_and_config(capsys, tmp_path, monkeypatch):
    import io

    (tmp_path / "pyproject.toml").write_text('[tool.tinycode]\nexclude = ["generated"]\n')
    (tmp_path / "generated").mkdir()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x = (\n")))
    code, out, _ = run(capsys, "check", "--stdin-filename", str(tmp_path / "src" / "a.py"))
    assert code == 1 and out.startswith(f"{tmp_path / 'src' / 'a.py'}:1:5: SyntaxError")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x = (\n")))
    code, out, _ = run(capsys, "check", "--stdin-filename", str(tmp_path / "generated" / "a.py"), "-")
    assert code == 0 and out == ""  # excluded by that project's config


def test_empty_file_is_clean(capsys, tmp_path):
    for name in ("empty.py", "empty.json", "empty.go"):
        (tmp_path / name).write_bytes(b"")
        assert run(capsys, "check", str(tmp_path / name))[0] == 0


def test_bom_and_crlf_are_read(capsys, tmp_path):
    path = tmp_path / "win.py"
    path.write_bytes(b"\xef\xbb\xbfx = 1\r\ny = 2\r\n")
    assert run(capsys, "check", str(path))[0] == 0


def test_one_bad_file_does_not_stop_the_others(capsys, tmp_path, files):
    code, out, err = run(capsys, "check", str(tmp_path / "nope.py"), str(files[1]))
    assert code == 2
    assert "no such file" in err and "invalid syntax" in out


def test_huge_file_still_works(capsys, tmp_path):
    path = tmp_path / "huge.py"
    path.write_text("".join(f"value_{i} = {i} * 2  # line {i}\n" for i in range(150_000)))
    assert path.stat().st_size > 4_000_000
    assert run(capsys, "check", str(path))[0] == 0
    with path.open("a") as handle:
        handle.write("oops = (\n")
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1 and "150001" in out


def test_check_never_imports_model_code(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("x = (\n")
    probe = ("import sys; from tinycode.cli import main; code = main(['check', sys.argv[1]]); "
             "heavy = [m for m in ('llama_cpp', 'requests', 'tinycode.llm.llama_cpp', 'tinycode.engine.agent') "
             "if m in sys.modules]; print(heavy); raise SystemExit(code)")
    done = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 1
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_python_dash_m_entry_point(tmp_path):
    path = tmp_path / "ok.rs"
    path.write_text("fn main() {}\n")
    done = subprocess.run([sys.executable, "-m", "tinycode", "check", str(path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
