"""``fix --trace FILE``: where a trace may be written without destroying anything, and
writing it (one JSON line per step, the file's path in each)."""

from __future__ import annotations

import json
import os
import stat
from typing import Any, TextIO

from ..errors import UsageError
from ..languages import detect
from .display import say


# Fields every trace record has (``Step.to_dict`` and the file's path): an existing file
# is overwritten only when its first line is such a record.
_TRACE_FIELDS = ("path", "kind", "thought", "action", "observation")


def unsafe_output(path: str, inputs: list[str]) -> str:
    """Why writing an output file at ``path`` could destroy something, or "" when it is
    safe: it is one of the ``inputs``, a file of a type the walk of an input folder
    would read (it would be repaired as one), a directory, a link, or an existing
    file that is not a tinycode trace."""
    for name in inputs:
        if name == "-":
            continue
        if _same_file(path, name):
            return f"is also an input file ({name}); refusing to overwrite it"
        if os.path.isdir(name) and _inside(path, name) and detect(path) is not None:
            return f"lies in the input folder {name} and would be read as an input; write it elsewhere"
    if os.path.islink(path):
        return "is a symbolic link; refusing to write through it"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        return f"cannot use it ({exc.strerror})"
    if stat.S_ISDIR(info.st_mode):
        return "is a directory"
    if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
        return ""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(65536)
        record = json.loads(first)
    except (OSError, ValueError):
        record = None
    if not isinstance(record, dict) or not all(field in record for field in _TRACE_FIELDS):
        return "exists and is not a tinycode trace; refusing to overwrite it"
    return ""


def _inside(path: str, folder: str) -> bool:
    folder = os.path.realpath(folder)
    return os.path.commonpath([os.path.realpath(path), folder]) == folder


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def open_trace(path: str) -> TextIO:
    try:
        # Never through a link put in its place since it was checked.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
        return open(fd, "w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--trace {path}: cannot write ({exc.strerror or exc})") from None


def write_trace(trace: TextIO, steps: list[Any], path: str) -> bool:
    """Append ``steps`` to the trace; on a write error say so, close it and return False
    (the repairs go on untraced)."""
    from ..engine.trace import write_jsonl

    try:
        write_jsonl(steps, trace, path=path)
        trace.flush()
    except OSError as exc:
        say(f"tinycode: error: --trace: cannot write ({exc.strerror or exc}); tracing stopped")
        try:
            trace.close()
        except OSError:
            pass
        return False
    return True
