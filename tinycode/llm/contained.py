"""A model served from a process of its own, so that a crash in native code ends that
process and not the run.

llama.cpp is C++: a segfault or an abort in it kills whatever process holds the model,
and with it every report not yet printed and every file not yet repaired. Here the
model lives in a child process (started with ``spawn``: a fork of a process holding
threads or llama.cpp is unsafe) and answers the :class:`~tinycode.llm.base.LLM` calls
over a pipe. When the child dies, the call raises :class:`ModelCrashed` with a message
that names the signal, its likely cause and what to try; the caller's work that needs
no model goes on.

A call's deadline goes with it to the child. When the caller's deadline passes early
(its work was cancelled: :func:`tinycode.deadline.cancellable`), the child is told with
SIGUSR1, and the call ends at the child's next deadline check (generation checks at
every token) instead of running on; the model stays loaded.
"""

from __future__ import annotations

import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from multiprocessing import connection
from typing import Any, Callable, Sequence

from ..deadline import cancellable, expired, remaining, until
from ..errors import ModelCrashed, ModelError, TinycodeError
from .base import Completion, Prompt, ScoringUnsupported

# A call may outlive its file's deadline by this much before the child is taken to hang
# (generation stops at the deadline by itself; this bounds a stuck native call).
HANG_GRACE = 60.0
# Seconds to wait for the child to load the model when no deadline is set.
LOAD_LIMIT = 600.0
# Seconds between looks at the caller's deadline while the child works on a call.
WATCH = 0.05


class ContainedLLM:
    """The LLM ``make(*args, **kwargs)`` builds, built and served in a child process.
    ``make`` must be importable by name (a class or a module-level function)."""

    def __init__(self, make: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        ours, theirs = socket.socketpair()
        # A fresh interpreter, not multiprocessing's spawn: that re-runs the caller's
        # main script in the child, which a library must not do to its users.
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-c", _CHILD, str(theirs.fileno())], pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL, env=environment, start_new_session=True)
        finally:
            theirs.close()
        self._conn = connection.Connection(ours.detach())
        self._gone: str | None = None  # why the model can no longer answer
        self.closed = False
        try:
            self._conn.send((make, args, kwargs))
            info = self._receive("loading the model", limit=LOAD_LIMIT)
        except BaseException:
            self._stop()
            raise
        self.name: str = info["name"]
        self.n_ctx: int = info["n_ctx"]
        self.load_seconds: float = info["load_seconds"]
        self.extra_buffers: bool | None = info["extra_buffers"]
        self.pid: int = self._process.pid

    # -- the LLM protocol -------------------------------------------------------------

    def complete(self, prompt: Prompt, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = 0) -> Completion:
        return self._call("generating", "complete", prompt, stop=tuple(stop), max_tokens=max_tokens,
                          grammar=grammar, temperature=temperature, seed=seed)

    def count_tokens(self, text: str) -> int:
        return self._call("counting tokens", "count_tokens", text)

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        return self._call("scoring candidates", "score", prompt, list(continuations))

    def apply_chat_template(self, messages: Sequence[dict[str, str]]) -> str:
        return self._call("formatting a prompt", "apply_chat_template", list(messages))

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._gone is None:
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self._stop()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter teardown
            pass

    # -- the pipe ---------------------------------------------------------------------

    def _call(self, doing: str, method: str, *args: Any, **kwargs: Any) -> Any:
        if self.closed:
            raise ModelError(f"the model {self.name} was closed")
        if self._gone is not None:
            raise ModelCrashed(self._gone)
        left = remaining()
        end = math.inf if left == math.inf else time.monotonic() + left
        try:
            self._conn.send((method, args, kwargs, end))
        except (OSError, ValueError):
            pass  # the child is gone: _receive says how
        return self._receive(doing, limit=None if end == math.inf else left + HANG_GRACE, watch=True)

    def _receive(self, doing: str, *, limit: float | None, watch: bool = False) -> Any:
        """The child's answer to the request in flight: its value, or its error raised
        here; ModelCrashed if the child dies first. With ``watch``, the child is
        interrupted once the caller's deadline has passed."""
        if not (self._watch(limit) if watch else self._conn.poll(limit)):
            self._stop()
            self._gone = f"the model process stopped answering while {doing}; it was stopped"
            raise ModelCrashed(self._gone)
        try:
            kind, value = self._conn.recv()
        except (EOFError, OSError):  # its end of the socket closed: the process is gone
            kind, value = "died", None
        if kind == "ok":
            return value
        if kind == "raise":
            raise value
        if kind == "bug":  # our own code failed in the child: a bug, not a model error
            raise RuntimeError(f"the model process failed while {doing}:\n{value}")
        try:
            exitcode: int | None = self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            exitcode = None
        self._gone = crash_message(exitcode, doing)
        raise ModelCrashed(self._gone)

    def _watch(self, limit: float | None) -> bool:
        """Wait up to ``limit`` seconds (None: no limit) for the child's answer, telling
        the child once when the caller's deadline passes; False if none came."""
        end = math.inf if limit is None else time.monotonic() + limit
        told = False
        while True:
            if self._conn.poll(max(0.0, min(WATCH, end - time.monotonic()))):
                return True
            if time.monotonic() >= end:
                return False
            if not told and expired():
                told = True
                try:
                    os.kill(self._process.pid, signal.SIGUSR1)
                except OSError:
                    pass  # already gone: the answer (or its absence) says how

    def _stop(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self._conn.close()


def crash_message(exitcode: int | None, doing: str) -> str:
    """What to tell the user when the model's process ended with ``exitcode`` (negative:
    the signal that killed it) while ``doing`` something."""
    if exitcode is not None and exitcode < 0:
        number = -exitcode
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        what = f"the model process was killed by signal {number} ({name}) while {doing}"
        if number == signal.SIGKILL:
            cause = "most often the kernel's out-of-memory killer: close other programs, or use a smaller model"
        elif number == signal.SIGILL:
            cause = ("llama.cpp used an instruction this CPU lacks: reinstall llama-cpp-python on this "
                     "machine (pip install --force-reinstall --no-cache-dir llama-cpp-python)")
        else:
            cause = ("a crash in llama.cpp's native code. On Intel CPUs with AMX the extra buffer types "
                     "crash this way: check that TINYCODE_EXTRA_BUFFERS / --extra-buffers is not set "
                     "(`tinycode doctor` shows the CPU and the build); else try another build of "
                     "llama-cpp-python, another model, or a model server (--backend openai)")
    else:
        what = f"the model process ended unexpectedly (exit code {exitcode}) while {doing}"
        cause = "run `tinycode doctor --probe` to see whether the model loads and answers on this machine"
    return f"{what}: {cause}"


# The child's program: serve on the socket whose descriptor is its argument.
_CHILD = "import sys; from tinycode.llm.contained import serve; serve(int(sys.argv[1]))"


def serve(fd: int) -> None:
    """The child: build the model the first message asks for, then answer requests
    until told to stop or the parent goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when work stops
    interrupted = threading.Event()  # set by SIGUSR1: the call in progress was cancelled
    signal.signal(signal.SIGUSR1, lambda *_: interrupted.set())
    conn = connection.Connection(fd)
    try:
        make, args, kwargs = conn.recv()
    except (EOFError, OSError):
        return
    try:
        llm = make(*args, **kwargs)
    except TinycodeError as exc:
        conn.send(("raise", exc))
        return
    except Exception:  # noqa: BLE001 - reported to the parent as a bug
        conn.send(("bug", traceback.format_exc()))
        return
    conn.send(("ok", {"name": llm.name, "n_ctx": int(getattr(llm, "n_ctx", 0) or 0),
                      "load_seconds": float(getattr(llm, "load_seconds", 0.0)),
                      "extra_buffers": getattr(llm, "extra_buffers", None)}))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            break
        if request is None:
            break
        method, call_args, call_kwargs, end = request
        try:
            interrupted.clear()  # a signal meant for the call before this one
            with until(end), cancellable(interrupted):
                conn.send(("ok", getattr(llm, method)(*call_args, **call_kwargs)))
        except (BrokenPipeError, ConnectionResetError, EOFError):
            break  # the parent is gone (ended or killed): nobody to answer, nothing to report
        except (TinycodeError, ScoringUnsupported) as exc:
            conn.send(("raise", exc))
        except Exception:  # noqa: BLE001
            conn.send(("bug", traceback.format_exc()))
    close = getattr(llm, "close", None)
    if close is not None:
        close()
