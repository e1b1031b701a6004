"""The model in a process of its own: answers, errors and real native crashes."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

from crashing_llm import CrashingLLM, EchoLLM, broken_model, load_crashing
from tinycode.cli import main
from tinycode.deadline import cancellable, until
from tinycode.errors import ModelCrashed, ModelError
from tinycode.llm import contained, loader
from tinycode.llm.contained import ContainedLLM, crash_message


@pytest.fixture(scope="module")
def echo():
    llm = ContainedLLM(EchoLLM, greeting="hi")
    yield llm
    llm.close()


def test_calls_are_answered_by_another_process(echo):
    answer = echo.complete("there")
    assert answer.text.startswith("hi there pid=")
    assert int(answer.text.split("pid=")[1].split()[0]) == echo.pid != os.getpid()
    assert echo.name == "echo" and echo.n_ctx == 512
    assert echo.count_tokens("a b c") == 3
    assert echo.score("p", ["ab", "abcd"]) == [-2.0, -4.0]


def test_the_callers_deadline_reaches_the_child(echo):
    with until(time.monotonic() + 40):
        left = float(echo.complete("x").text.split("left=")[1])
    assert 30 <= left <= 40
    assert echo.complete("x").text.endswith("left=inf")


def test_a_cancelled_call_stops_in_the_child_and_the_model_stays(echo):
    switch = threading.Event()
    threading.Timer(0.3, switch.set).start()
    started = time.monotonic()
    with cancellable(switch):  # no deadline: only the cancellation ends the call
        answer = echo.complete("slow")
    assert answer.text == "stopped at its deadline"
    assert time.monotonic() - started < 2
    assert echo.complete("x").text.startswith("hi x pid=")  # the same process, not cancelled


def test_a_model_error_in_the_child_is_raised_here_and_the_model_stays(echo):
    with pytest.raises(ModelError, match="the prompt asked to fail") as caught:
        echo.complete("fail")
    assert not isinstance(caught.value, ModelCrashed)
    assert echo.complete("again").text.startswith("hi again")


def test_a_bug_in_the_child_is_not_taken_for_a_model_error(echo):
    with pytest.raises(RuntimeError, match="KeyError: 'a bug in the backend'"):
        echo.complete("bug")
    assert echo.complete("still").text.startswith("hi still")


def test_a_model_that_cannot_load_is_a_model_error():
    with pytest.raises(ModelError, match="cannot load /nowhere.gguf") as caught:
        ContainedLLM(broken_model, "/nowhere.gguf")
    assert not isinstance(caught.value, ModelCrashed)


def test_a_segfault_is_reported_with_its_signal_and_the_model_stays_gone():
    llm = ContainedLLM(CrashingLLM)
    assert llm.count_tokens("four words of text") > 0
    with pytest.raises(ModelCrashed, match=r"killed by signal 11 \(SIGSEGV\) while scoring candidates"):
        llm.score("p", ["a", "b"])
    with pytest.raises(ModelCrashed, match="SIGSEGV"):  # no new process is started behind the caller's back
        llm.count_tokens("x")
    llm.close()


def test_an_exit_without_a_signal_is_reported_with_its_code():
    llm = ContainedLLM(EchoLLM)
    with pytest.raises(ModelCrashed, match=r"ended unexpectedly \(exit code 3\) while generating"):
        llm.complete("exit")


def test_a_child_that_hangs_past_the_deadline_is_stopped(monkeypatch):
    monkeypatch.setattr(contained, "HANG_GRACE", 0.5)
    llm = ContainedLLM(EchoLLM)
    started = time.monotonic()
    with until(time.monotonic() + 0.5), pytest.raises(ModelCrashed, match="stopped answering while generating"):
        llm.complete("hang")
    assert time.monotonic() - started < 20
    assert llm._process.poll() is not None  # killed, not left behind


def test_messages_name_the_likely_cause():
    assert "out-of-memory" in crash_message(-signal.SIGKILL, "generating")
    assert "instruction this CPU lacks" in crash_message(-signal.SIGILL, "loading the model")
    assert "extra buffer types" in crash_message(-signal.SIGSEGV, "scoring candidates")
    assert "SIGABRT" in crash_message(-signal.SIGABRT, "generating")


# Files of a folder fix, by what their repair needs (checked with a scripted model:
# the first two need the model to choose among candidates, the others need none).
NEEDS_MODEL = {"b_paren.py": "print('hello'\nx = 1\n", "d_comma.py": "items = [1, 2 3]\nprint(items)\n"}
NO_MODEL = {"c_colon.py": ("def f(x)\n    return x\n", "def f(x):\n    return x\n"),
            "e_quote.py": ("name = 'bob\nprint(name)\n", "name = 'bob'\nprint(name)\n")}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_native_crash_mid_folder_costs_no_file_its_report(tmp_path, monkeypatch, capsys, jobs):
    """The model's process segfaults on its first real call, in the middle of a folder
    fix: every file is still reported, the files that needed the model are left byte
    for byte, the ones that need none are repaired, and the exit code is 2."""
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "a_clean.py").write_text("x = 1\n")
    for name, text in NEEDS_MODEL.items():
        (folder / name).write_bytes(text.encode())
    for name, (text, _) in NO_MODEL.items():
        (folder / name).write_bytes(text.encode())
    monkeypatch.setattr(loader, "load_llm", load_crashing)
    monkeypatch.setenv("TINYCODE_AGENT", "off")

    model = tmp_path / "any.gguf"  # found, so --jobs starts its worker pool; never loaded
    model.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + b"\0" * 4096)
    code = main(["fix", str(folder), "--output-format", "json", "--jobs", str(jobs), "--model", str(model)])

    captured = capsys.readouterr()
    assert code == 2
    reports = {os.path.basename(r["path"]): r for r in json.loads(captured.out)}
    assert sorted(reports) == ["a_clean.py", "b_paren.py", "c_colon.py", "d_comma.py", "e_quote.py"]
    assert reports["a_clean.py"]["status"] == "clean"
    for name, text in NEEDS_MODEL.items():
        assert reports[name]["status"] == "error"
        assert (folder / name).read_bytes() == text.encode()
    for name, (_, fixed) in NO_MODEL.items():
        assert reports[name]["status"] == "fixed"
        assert (folder / name).read_text() == fixed
    assert "killed by signal 11 (SIGSEGV)" in captured.err
    assert "Traceback" not in captured.err
