"""Merge-conflict markers and chat answers: reported as what they are, never "repaired"
by picking a side or deleting prose; and never looked for in a file that passes."""

from __future__ import annotations

import json

from scripted import run
from tinycode.check import check
from tinycode.foreign import conflict_lines, fenced_code

CONFLICT = """def total(items):
<<<<<<< HEAD
    return sum(items)
=======
    return sum(item.price for item in items)
>>>>>>> feature/prices
"""

DIFF3 = """x = 1
<<<<<<< ours
y = 2
||||||| base
y = 0
=======
y = 3
>>>>>>> theirs
"""

CHAT = """Sure! Here is the corrected function:

```python
def total(items):
    return sum(items)
```

It sums the items. Let me know if you need anything else.
"""


def test_conflict_markers_found_in_order():
    assert conflict_lines(CONFLICT) == [2, 4, 6]
    assert conflict_lines(DIFF3) == [2, 4, 6, 8]
    # Half a conflict, or markers out of order, is not one.
    assert conflict_lines("a\n=======\nb\n") == []
    assert conflict_lines(">>>>>>> x\n=======\n<<<<<<< y\n") == []


def test_check_reports_a_conflict_not_syntax(capsys, tmp_path):
    result = check(CONFLICT, "python")
    assert [p.kind for p in result.problems] == ["conflict"] * 3
    assert [p.line for p in result.problems] == [2, 4, 6]
    assert "merge conflict" in result.problems[0].message
    path = tmp_path / "a.py"
    path.write_text(CONFLICT)
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1 and "merge conflict" in out


def test_fix_never_picks_a_side(capsys, tmp_path, model):
    paths = []
    for name, text in (("a.py", CONFLICT), ("b.py", DIFF3)):
        paths.append(tmp_path / name)
        paths[-1].write_text(text)
    code, out, _ = run(capsys, "fix", "--json", *map(str, paths))
    reports = json.loads(out)
    assert code == 1
    assert all(r["status"] == "failed" and "merge conflict" in r["reason"] for r in reports)
    assert paths[0].read_text() == CONFLICT and paths[1].read_text() == DIFF3
    assert model["loads"] == 0  # no repair was tried


def test_chat_answer_reported_and_left_alone(capsys, tmp_path, model):
    assert fenced_code(CHAT) == (3, 6)
    result = check(CHAT, "python")
    assert [p.kind for p in result.problems] == ["chat", "chat"]
    assert "lines 3 and 6" in result.problems[0].message
    path = tmp_path / "answer.py"
    path.write_text(CHAT)
    code, out, _ = run(capsys, "fix", "--json", str(path))
    report = json.loads(out)[0]
    assert code == 1 and report["status"] == "failed" and "chat answer" in report["reason"]
    assert path.read_text() == CHAT


def test_broken_code_in_a_fence_is_a_syntax_error():
    # The code between the fences does not pass either: that is a syntax error to show,
    # not only prose to remove.
    text = CHAT.replace("return sum(items)", "return sum(items")
    assert all(p.kind != "chat" for p in check(text, "python").problems)


def test_clean_files_quoting_markers_are_clean():
    quoted = 'FIXTURE = """\n<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n"""\n'
    assert check(quoted, "python").ok
    doc = 'def f():\n    """Example:\n\n    ```python\n    f()\n    ```\n    """\n'
    assert check(doc, "python").ok
    markdown_in_c = "/* Build:\n```sh\nmake\n```\n*/\nint x;\n"
    assert check(markdown_in_c, "c").ok


def test_conflict_in_another_language():
    text = "int main(void) {\n<<<<<<< HEAD\n  return 0;\n=======\n  return 1;\n>>>>>>> b\n}\n"
    result = check(text, "c")
    assert result.judge == "tinycode" and result.problems[0].kind == "conflict"


def test_folder_run_shows_a_progress_bar_on_a_terminal_only(tmp_path):
    import fcntl
    import os
    import pty
    import struct
    import termios
    import subprocess
    import sys

    for n in range(3):
        (tmp_path / f"ok{n}.py").write_text(f"x = {n}\n")
    (tmp_path / "merge.py").write_text(CONFLICT)
    command = [sys.executable, "-m", "tinycode", "fix", str(tmp_path)]
    env = dict(os.environ)
    main, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal's size
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=terminal, env=env) as proc:
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal's other end closed
                break
            if not chunk:
                break
            shown += chunk
        proc.wait(timeout=60)
    os.close(main)
    assert proc.returncode == 1
    assert b"\rtinycode fix: 0 files [" in shown and b"merge conflict" in shown
    piped = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert piped.returncode == 1 and "tinycode fix:" not in piped.stderr and "\r" not in piped.stderr
