"""The KV state of stable prompt prefixes, kept in memory and on disk.

A chat prompt's system message (instructions, tool list) is the same on every call of
its kind, and on a CPU evaluating it is most of a short call's cost. Its KV state is
saved the first time it is evaluated and put back when a later call, in this process
or the next one, starts with the same tokens. Files live in ``$TINYCODE_HOME/kv-cache``
(else the user cache directory), keyed by the model file, the llama.cpp build and the
tokens; a file that cannot be read or written is skipped, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections import OrderedDict
from pathlib import Path
from typing import Sequence

from ..paths import user_cache

MAX_IN_MEMORY = 4  # states kept in this process (a few MB each)
MAX_FILES = 16  # states kept on disk; the least recently used go first
_MAGIC = b"tinycode-kv 1\n"


def cache_dir() -> Path:
    return user_cache("kv-cache")


class PrefixStates:
    """Saved KV states by (model identity, prefix tokens)."""

    def __init__(self, identity: str, *, on_disk: bool = True) -> None:
        self.identity = identity
        self.on_disk = on_disk
        self._memory: OrderedDict[str, bytes] = OrderedDict()

    def key(self, tokens: Sequence[int]) -> str:
        text = self.identity + "\n" + ",".join(map(str, tokens))
        return hashlib.sha256(text.encode()).hexdigest()[:40]

    def get(self, tokens: Sequence[int]) -> bytes | None:
        key = self.key(tokens)
        data = self._memory.get(key)
        if data is None and self.on_disk:
            data = _read(cache_dir() / f"{key}.kv")
            if data is not None:
                self._remember(key, data)
        elif data is not None:
            self._memory.move_to_end(key)
        return data

    def put(self, tokens: Sequence[int], data: bytes) -> None:
        key = self.key(tokens)
        self._remember(key, data)
        if self.on_disk:
            _write(cache_dir(), f"{key}.kv", data)

    def forget(self, tokens: Sequence[int]) -> None:
        """Drop a state that could not be restored (say, written by another build)."""
        key = self.key(tokens)
        self._memory.pop(key, None)
        with contextlib.suppress(OSError):
            (cache_dir() / f"{key}.kv").unlink()

    def _remember(self, key: str, data: bytes) -> None:
        self._memory[key] = data
        self._memory.move_to_end(key)
        while len(self._memory) > MAX_IN_MEMORY:
            self._memory.popitem(last=False)


def _read(path: Path) -> bytes | None:
    """The state in ``path``, or None when it is missing, truncated or damaged."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    header = len(_MAGIC) + 32
    if len(blob) < header or not blob.startswith(_MAGIC):
        return None
    digest, data = blob[len(_MAGIC):header], blob[header:]
    if hashlib.sha256(data).digest() != digest:
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: pruned last
    return data


def _write(directory: Path, name: str, data: bytes) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(_MAGIC + hashlib.sha256(data).digest() + data)
            os.replace(tmp, directory / name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _prune(directory)
    except OSError:
        pass  # a cache that cannot be written is only slower


def _prune(directory: Path) -> None:
    files = sorted(directory.glob("*.kv"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[MAX_FILES:]:
        with contextlib.suppress(OSError):
            old.unlink()
