"""Long-lived judge processes: one per judge command, many texts each.

``node --check FILE`` spends most of its 40-60 ms starting node, a JVM takes a second
to start javac's parser, and a repair's search judges a hundred texts or more.

Two kinds of program run warm. tinycode's own judge programs (``registry.OWN_PROGRAMS``,
package data: javac's parser, the ``typescript`` package's parser) read the file they
are named with, or, started without one, serve texts on stdin: the worker is the
very program the one-off run is, so it is trusted from the start.

``node_checker.cjs`` (package data) compiles each text
with node's own compiler the way ``node --check`` does, without running it, and
answers with the exit code and what ``node --check`` prints on stderr: the same
``readers.read_node`` reads the same diagnostics from it.

Where the program cannot say (a syntax error in an ES module, an error that is not a
SyntaxError), and wherever a worker cannot start, dies twice on one text or
misbehaves, ``output`` returns None and the caller runs the command itself.

Protocol (every program): one request per line on stdin, ``{"id", "filename",
"source": base64}``; one answer per line, ``{"id", "status", "stderr"}`` as the one-off
run would exit and print, or ``{"id", "fallback": true}``.
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import subprocess
import tempfile
import threading
import time
from typing import Sequence

from . import readers, registry
from .base import Output, ToolTimeout, run_tool, tool_env

# Judgements of a process before it starts a node --check worker: a check of one clean
# file asks node once or twice, and starting and trusting a worker costs a few runs' time.
RUNS_BEFORE_START = 3
_MAX_STARTS = 8  # per executable: a worker that keeps dying is given up on
_FILENAMES = ("input.js", "input.mjs")
# Texts on which node's own rules differ between versions (is a module detected, is a
# top-level await retried as one): a worker is trusted once it agrees with
# ``node --check`` on them, so a node whose rules the program does not follow is
# simply run as before.
PROBES = (
    ("function f( {\n  return 1;\n}\n", "input.js"),
    ("import x from 'y';\nconst a = ;\n", "input.js"),
    ("f(await 1);\n", "input.js"),
)


class _Dead(Exception):
    """The worker exited, or answered what it was not asked."""


class _Worker:
    """A process running a judge program; one request at a time."""

    def __init__(self, command: Sequence[str]) -> None:
        env = tool_env(NO_COLOR="1")
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=tempfile.gettempdir(), env=env)
        self.pid = os.getpid()  # a forked child does not share its parent's worker
        self.asked = 0

    def alive(self) -> bool:
        return self.pid == os.getpid() and self.process.poll() is None

    def stop(self) -> None:
        self.process.kill()
        try:
            self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def ask(self, text: str, filename: str, timeout: float, late: str) -> Output | None:
        """The Output of the one-off run on ``text``, or None when the program cannot say;
        ``ToolTimeout(late)`` after ``timeout`` seconds."""
        self.asked += 1
        source = base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")
        request = json.dumps({"id": self.asked, "filename": filename, "source": source}) + "\n"
        fired = threading.Event()

        def kill() -> None:
            fired.set()
            self.process.kill()

        # Killing the process ends a write into a full pipe and a read alike.
        watchdog = threading.Timer(timeout, kill)
        watchdog.start()
        try:
            self.process.stdin.write(request.encode("ascii"))  # type: ignore[union-attr]
            self.process.stdin.flush()  # type: ignore[union-attr]
            line = self.process.stdout.readline()  # type: ignore[union-attr]
        except (OSError, ValueError):
            line = b""
        finally:
            watchdog.cancel()
        if not line.endswith(b"\n"):
            if fired.is_set():
                self.stop()
                raise ToolTimeout(late)
            raise _Dead()
        try:
            answer = json.loads(line)
        except ValueError:
            raise _Dead() from None
        if not isinstance(answer, dict) or answer.get("id") != self.asked:
            raise _Dead()
        if answer.get("fallback") is True:
            return None
        status, stderr = answer.get("status"), answer.get("stderr")
        if status not in (0, 1) or not isinstance(stderr, str):
            raise _Dead()
        return Output(status, "", stderr)


class _Slot:
    """The worker of one command, and what this process learnt about it."""

    def __init__(self, command: tuple[str, ...], own: bool) -> None:
        self.command = command
        self.own = own  # one of OWN_PROGRAMS: the same program as the one-off run
        self.lock = threading.Lock()
        self.worker: _Worker | None = None
        self.runs = 0
        self.starts = 0
        self.trusted: bool | None = True if own else None  # None: not yet compared with node --check


_slots: dict[str, _Slot] = {}
_slots_lock = threading.Lock()
_package_json: dict[str, bool] = {}


def _program() -> str | None:
    return registry.program("node_checker.cjs")


def _under_package_json() -> bool:
    """A ``package.json`` in or above the temporary folder: its "type" would decide how
    ``node --check`` reads the temporary file, which the worker does not read."""
    folder = os.path.abspath(tempfile.gettempdir())
    if folder not in _package_json:
        found, current = False, folder
        while True:
            if os.path.exists(os.path.join(current, "package.json")):
                found = True
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        _package_json[folder] = found
    return _package_json[folder]


def usable(argv: Sequence[str], filename: str) -> bool:
    """A worker can stand in for this run: plain ``node --check`` on a file tinycode
    names, and nothing in the environment that changes how node reads it."""
    return (len(argv) == 3 and tuple(argv[1:]) == ("--check", "{file}") and filename in _FILENAMES
            and not os.environ.get("NODE_OPTIONS", "").strip() and not _under_package_json())


def _command(argv: Sequence[str], filename: str) -> tuple[tuple[str, ...], bool] | None:
    """The worker command that stands in for ``argv``, and whether it is one of
    tinycode's own programs; None: no worker can."""
    if len(argv) >= 3 and argv[-1] == "{file}" and registry.served(tuple(argv[:-1])):
        return tuple(argv[:-1]), True
    if not usable(argv, filename):
        return None
    program = _program()
    if program is None:
        return None
    # vm.SourceTextModule, to compile a text as an ES module, needs the flag.
    return (argv[0], "--experimental-vm-modules", "--no-warnings", program), False


def output(argv: Sequence[str], text: str, filename: str, timeout: float) -> Output | None:
    """What ``run_tool(argv, text, filename, timeout)`` would return, from the worker
    that stands in for ``argv``; None: run it. Raises ``ToolTimeout`` as ``run_tool`` does."""
    found = _command(argv, filename)
    if found is None:
        return None
    command, own = found
    with _slots_lock:
        slot = _slots.setdefault(command, _Slot(command, own))
    started = time.monotonic()
    # fix --jobs judges in threads: one request at a time; a thread that would wait
    # longer than its own limit runs node --check instead.
    if not slot.lock.acquire(timeout=max(timeout, 0.001)):
        return None
    try:
        left = timeout - (time.monotonic() - started)
        slot.runs += 1
        if slot.trusted is False or (not slot.own and slot.runs <= RUNS_BEFORE_START) or left <= 0:
            return None
        if slot.trusted is None:
            # Probes that cannot finish within this run's limit leave the worker unused.
            slot.trusted = _agrees(slot, argv, time.monotonic() + left)
            if not slot.trusted:
                _discard(slot)
                return None
        for _ in range(2):  # a worker that died is started again, once per text
            worker = _worker(slot)
            if worker is None:
                return None
            try:
                return worker.ask(text, filename, left, f"{argv[0]} took longer than {timeout:g} s")
            except ToolTimeout:
                slot.worker = None
                raise
            except _Dead:
                _discard(slot)
        return None
    finally:
        slot.lock.release()


def _worker(slot: _Slot) -> _Worker | None:
    if slot.worker is not None and slot.worker.alive():
        return slot.worker
    _discard(slot)
    if slot.starts >= _MAX_STARTS:
        return None
    slot.starts += 1
    try:
        slot.worker = _Worker(slot.command)
    except OSError:
        return None
    _stop_at_exit()
    return slot.worker


def _discard(slot: _Slot) -> None:
    if slot.worker is not None:
        if slot.worker.pid == os.getpid():
            slot.worker.stop()
        slot.worker = None


def _agrees(slot: _Slot, argv: Sequence[str], deadline: float) -> bool:
    """The worker's diagnostics equal ``node --check``'s on every probe (all of them
    within the limit of the run that asked: else the worker is not used)."""
    for text, filename in PROBES:
        worker = _worker(slot)
        left = deadline - time.monotonic()
        if worker is None or left <= 0:
            return False
        try:
            mine = worker.ask(text, filename, left, "a probe timed out")
            theirs = run_tool(argv, text, filename, max(deadline - time.monotonic(), 0.001))
        except (ToolTimeout, _Dead, OSError):
            return False
        if mine is None or mine.returncode != theirs.returncode or (
                readers.read_node(mine, filename, text) != readers.read_node(theirs, filename, text)):
            return False
    return True


_registered = False


def _stop_at_exit() -> None:
    global _registered
    if not _registered:
        _registered = True
        atexit.register(stop_all)


def stop_all() -> None:
    """Stop every worker of this process (at exit; tests)."""
    with _slots_lock:
        slots = list(_slots.values())
    for slot in slots:
        with slot.lock:
            _discard(slot)
