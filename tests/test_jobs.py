"""``--jobs``: many files at once give the same reports, files and exit codes as one at
a time; threads against a server really overlap their requests; worker processes."""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import time
from pathlib import Path

import pytest

from tinycode.cli import main
from tinycode.errors import ModelError
from fake_llm import FakeLLM

NEEDS_AGENT = "def (x)):\n    return x + {n}\n"
AGENT_FIX = ('Thought: name the function\nAction: replace_lines\nAction Input: {"start": 1, "end": 1, '
             '"text": "def double(x):"}')
TIMING = ("seconds",)


class PromptFake(FakeLLM):
    """Answers by what the prompt shows, never by call order, so any interleaving of
    files gives each file the same answers: a prompt showing ``SLOW`` waits (later
    files finish first), one showing ``MODEL_FAILS`` is a model error. Every call
    leaves its process id in ``$TINYCODE_TEST_PIDS`` when that is set."""

    def __init__(self) -> None:
        super().__init__(default=AGENT_FIX, scorer=lambda prompt, text: -len(text))
        self.lock = threading.Lock()
        self.running = self.peak = 0

    def complete(self, prompt, **kwargs):  # noqa: ANN001, ANN003, ANN201
        text = prompt if isinstance(prompt, str) else json.dumps(list(prompt))
        folder = os.environ.get("TINYCODE_TEST_PIDS")
        if folder:
            Path(folder, str(os.getpid())).touch()
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            time.sleep(0.4 if "SLOW" in text else 0.05)
            if "MODEL_FAILS" in text:
                raise ModelError("the scripted model fails on this file")
            return super().complete(prompt, **kwargs)
        finally:
            with self.lock:
                self.running -= 1


def load_prompt_fake(*args, **kwargs) -> PromptFake:  # noqa: ANN002, ANN003
    """A module-level loader: worker processes import it by name."""
    return PromptFake()


def make_tree(folder: Path) -> Path:
    """Files of every fate: repaired (one slow), clean, beyond repair, a model error,
    unreadable, and skipped by the walk."""
    folder.mkdir()
    (folder / "a_slow.py").write_text(NEEDS_AGENT.format(n=0) + "# SLOW\n")
    for n in range(1, 6):
        (folder / f"b{n}.py").write_text(NEEDS_AGENT.format(n=n))
    (folder / "c_clean.js").write_text("let x = 1;\n")
    (folder / "d_hopeless.py").write_text("this is $$$ not ??? python ``` at all\n")
    (folder / "e_model.py").write_text(NEEDS_AGENT.format(n=9) + "# MODEL_FAILS\n")
    (folder / "f_binary.py").write_bytes(b"\x00\x01binary")
    (folder / "g_notes.unknownext").write_text("what is this\n")
    return folder


def fix_in(capsys, folder: Path, *argv: str) -> tuple[int, list[dict], str]:
    """``tinycode fix --json ARGV .`` run inside ``folder``: (exit code, reports
    without timing fields, stderr)."""
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        code = main(["fix", "--json", "--max-steps", "2", *argv, "."])
    finally:
        os.chdir(cwd)
    out, err = capsys.readouterr()
    reports = [{k: v for k, v in r.items() if k not in TIMING} for r in json.loads(out)]
    return code, reports, err


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def same_stderr(err: str) -> str:
    """stderr without what may differ between runs: step timings, the jobs cap note."""
    err = re.sub(r"\d+ ms", "N ms", err)
    return "\n".join(line for line in err.splitlines() if "note: --jobs" not in line)


# --- threads: a model server ------------------------------------------------------------

@pytest.fixture
def fake_model(monkeypatch):
    """Every load returns one PromptFake (threads share it, as they share a server)."""
    import tinycode.llm.loader as loader

    llm = PromptFake()
    monkeypatch.setattr(loader, "load_llm", lambda *a, **k: llm)
    monkeypatch.setenv("TINYCODE_AGENT", "open")  # as the shared ``model`` fixture
    return llm


SERVER = ("--backend", "openai", "--base-url", "http://127.0.0.1:9")


def test_threads_give_the_reports_files_and_exit_code_of_one_at_a_time(capsys, tmp_path, fake_model):
    one, many = make_tree(tmp_path / "one"), make_tree(tmp_path / "many")
    code1, reports1, err1 = fix_in(capsys, one, *SERVER, "--jobs", "1", "-v")
    assert fake_model.peak == 1
    code3, reports3, err3 = fix_in(capsys, many, *SERVER, "--jobs", "3", "-v")
    assert fake_model.peak >= 2  # files really were repaired at once
    assert code3 == code1 == 2  # the unreadable file and the model error
    assert reports3 == reports1
    assert contents(many) == contents(one)
    assert same_stderr(err3) == same_stderr(err1)  # -v steps per file, in input order
    statuses = {r["path"]: r["status"] for r in reports1}
    assert statuses == {"a_slow.py": "fixed", **{f"b{n}.py": "fixed" for n in range(1, 6)},
                        "c_clean.js": "clean", "d_hopeless.py": "failed", "e_model.py": "error",
                        "f_binary.py": "error"}
    assert (many / "b3.py").read_text() == "def double(x):\n    return x + 3\n"


def test_server_backend_defaults_to_one_job(capsys, tmp_path, fake_model):
    # A server that answers one request at a time (llama_cpp.server) would make queued
    # requests spend their files' --timeout: concurrency is asked for, never assumed.
    folder = tmp_path / "t"
    folder.mkdir()
    for n in range(8):
        (folder / f"f{n}.py").write_text(NEEDS_AGENT.format(n=n))
    code, reports, _ = fix_in(capsys, folder, *SERVER)
    assert code == 0 and [r["status"] for r in reports] == ["fixed"] * 8
    assert fake_model.peak == 1
    for n in range(8):
        (folder / f"f{n}.py").write_text(NEEDS_AGENT.format(n=n))
    code, reports, _ = fix_in(capsys, folder, *SERVER, "--jobs", "4")
    assert code == 0 and 2 <= fake_model.peak <= 4


def test_jobs_must_be_a_positive_number(capsys):
    assert main(["fix", "--jobs", "0", "x.py"]) == 2
    assert "--jobs: must be at least 1" in capsys.readouterr().err
    assert main(["check", "--jobs", "two", "x.py"]) == 2
    assert "expected a whole number" in capsys.readouterr().err


def test_ctrl_c_stops_the_run_and_leaves_every_file_whole(capsys, tmp_path, fake_model, monkeypatch):
    from tinycode import sourcefile

    folder = tmp_path / "t"
    folder.mkdir()
    for n in range(8):
        (folder / f"f{n}.py").write_text(NEEDS_AGENT.format(n=n))
    real_write = sourcefile.write_back
    written = []

    def write_then_interrupt(source, text, *, backup):  # noqa: ANN001, ANN202
        if len(written) == 2:
            raise KeyboardInterrupt
        written.append(source.path)
        return real_write(source, text, backup=backup)

    monkeypatch.setattr(sourcefile, "write_back", write_then_interrupt)
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        code = main(["fix", *SERVER, "--jobs", "3", "."])
    finally:
        os.chdir(cwd)
    assert code == 130
    assert written == ["f0.py", "f1.py"]  # in input order, and nothing after the interrupt
    for n in range(8):
        expected = "def double(x):\n" if n < 2 else "def (x)):\n"
        assert (folder / f"f{n}.py").read_text() == expected + f"    return x + {n}\n"
    assert sorted(p.name for p in folder.iterdir()) == [f"f{n}.py" for n in range(8)]  # no temporary files


AGENT_REPLY = {"choices": [{"message": {"role": "assistant", "content": AGENT_FIX}, "text": AGENT_FIX,
                             "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 10, "completion_tokens": 5}}


def fix_against_a_scripted_server(capsys, folder: Path, delay: float, props: tuple, *argv: str
                                  ) -> tuple[tuple[int, list[dict], str], list[float]]:
    """``fix_in`` against a local server answering every completion after ``delay``
    seconds (``props``: its answer to /props); also when each completion arrived."""
    from test_llm_openai import Scripted

    routes = {"/v1/models": (200, {"data": [{"id": "scripted"}]}), "/props": props,
              "/tokenize": (404, {}), "/extras/tokenize/count": (404, {})}
    arrivals: list[float] = []

    class Timed(list):
        def append(self, item):  # noqa: ANN001, ANN202
            if item["path"] in ("/v1/chat/completions", "/v1/completions"):
                arrivals.append(time.monotonic())
            super().append(item)

    with Scripted((200, AGENT_REPLY, delay, {}), routes=routes) as server:
        server.requests = Timed()
        result = fix_in(capsys, folder, "--backend", "openai", "--base-url", server.url, *argv)
    return result, arrivals


def test_requests_to_a_real_http_server_overlap(capsys, tmp_path, monkeypatch):
    delay = 0.25
    one, many = tmp_path / "one", tmp_path / "many"
    for folder in (one, many):
        folder.mkdir()
        for n in range(6):
            (folder / f"f{n}.py").write_text(NEEDS_AGENT.format(n=n))
    results = {}
    for jobs, folder in (("1", one), ("4", many)):
        results[jobs], arrivals = fix_against_a_scripted_server(capsys, folder, delay, (200, {"total_slots": 4}),
                                                                "--jobs", jobs)
        # Each answer leaves at least `delay` after its request arrived: requests that
        # arrive closer together than that were in flight at the same time.
        in_flight = max(sum(1 for t in arrivals if s <= t < s + delay) for s in arrivals)
        if jobs == "1":
            assert in_flight == 1
        else:
            assert in_flight >= 2
    (code1, reports1, _), (code4, reports4, _) = results["1"], results["4"]
    assert code1 == code4 == 0 and reports4 == reports1
    assert [r["status"] for r in reports1] == ["fixed"] * 6
    assert contents(many) == contents(one)


def test_files_waiting_for_the_only_slot_of_a_server_do_not_spend_their_timeout(capsys, tmp_path):
    """A server that does not say how many requests it serves at once gets one at a time
    from --jobs 4, and a file's --timeout runs only while it is served: six files of two
    0.3 s answers each (the rewrite's, then the agent's) all fit a 2 s timeout, though
    the last waits about 3 s for its turn."""
    delay = 0.3
    for n in range(6):
        (tmp_path / f"f{n}.py").write_text(NEEDS_AGENT.format(n=n))
    (code, reports, _), arrivals = fix_against_a_scripted_server(capsys, tmp_path, delay, (404, {}),
                                                                 "--jobs", "4", "--timeout", "2")
    assert max(sum(1 for t in arrivals if s <= t < s + delay) for s in arrivals) == 1
    assert arrivals[-1] - arrivals[0] >= 5 * delay
    assert code == 0 and [r["status"] for r in reports] == ["fixed"] * 6


# --- processes: the model in process ------------------------------------------------------

def fake_gguf(folder: Path) -> str:
    path = folder / "fake.gguf"
    path.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + b"\0" * 4096)
    return str(path)


def test_worker_processes_give_the_reports_of_one_at_a_time(capsys, tmp_path, monkeypatch):
    import tinycode.llm.loader as loader

    monkeypatch.setattr(loader, "load_llm", load_prompt_fake)
    monkeypatch.setenv("TINYCODE_AGENT", "open")
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setenv("TINYCODE_TEST_PIDS", str(pids))
    model = fake_gguf(tmp_path)
    one, many = make_tree(tmp_path / "one"), make_tree(tmp_path / "many")
    code1, reports1, err1 = fix_in(capsys, one, "--model", model, "--jobs", "1", "-v")
    assert {p.name for p in pids.iterdir()} == {str(os.getpid())}
    shutil.rmtree(pids)
    pids.mkdir()
    code2, reports2, err2 = fix_in(capsys, many, "--model", model, "--jobs", "2", "-v")
    assert code2 == code1 == 2
    assert reports2 == reports1
    assert contents(many) == contents(one)
    assert same_stderr(err2) == same_stderr(err1)
    from tinycode.parallel import cpu_count

    if cpu_count() >= 2:  # else capped to one worker: repaired here
        seen = {p.name for p in pids.iterdir()}
        assert seen and str(os.getpid()) not in seen


def test_workers_are_capped_by_memory():
    from tinycode.parallel import MB, cap_workers

    count, why = cap_workers(8, 500 * MB, memory=3000 * MB, cpus=16)
    assert count == 2 and "3,000 MB available" in why
    assert cap_workers(8, 500 * MB, memory=10**12, cpus=3) == (3, "3 CPUs")
    assert cap_workers(2, 500 * MB, memory=10**12, cpus=16) == (2, "")
    assert cap_workers(4, 500 * MB, memory=100 * MB, cpus=16)[0] == 1


@pytest.mark.model
def test_real_model_in_two_worker_processes(capsys, tmp_path):
    """The default model, once per worker process: the same repairs as in one process."""
    pytest.importorskip("llama_cpp")
    sources = ["values = [1, 2\nprint(values)\n",
               "def total(items)\n    return sum(items)\n",
               "if x == 1\n    print('one')\n"]
    one, many = tmp_path / "one", tmp_path / "many"
    for folder in (one, many):
        folder.mkdir()
        for n, source in enumerate(sources):
            (folder / f"f{n}.py").write_text(source)
    code1, reports1, _ = fix_in(capsys, one, "--jobs", "1")
    code2, reports2, _ = fix_in(capsys, many, "--jobs", "2")
    assert code2 == code1 and reports2 == reports1
    assert contents(many) == contents(one)


# --- check ----------------------------------------------------------------------------------

def test_check_jobs_gives_the_same_report(capsys, tmp_path, monkeypatch):
    from tinycode.commands import check

    monkeypatch.setattr(check, "PARALLEL_MIN_FILES", 3)  # past three files: worker processes
    monkeypatch.setattr(check, "BATCH", 4)
    for n in range(12):
        broken = n % 3 == 0
        (tmp_path / f"f{n:02d}.py").write_text("x = (\n" if broken else f"x = {n}\n")
    (tmp_path / "g.json").write_text('{"a": }\n')  # judged in process: no tool's timeout to meet
    (tmp_path / "h.py").write_bytes(b"\x00bin")
    outputs = {}
    for jobs in ("1", "2"):
        for fmt in ("json", "text"):
            code = main(["check", "--output-format", fmt, "--jobs", jobs, str(tmp_path)])
            outputs[jobs, fmt] = (code, *capsys.readouterr())
    assert outputs["2", "json"] == outputs["1", "json"]
    assert outputs["2", "text"] == outputs["1", "text"]
    assert outputs["1", "json"][0] == 2
    assert "Found 5 problems in 5 of 14 files." in outputs["1", "text"][2]
