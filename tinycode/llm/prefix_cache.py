"""The KV state of stable prompt prefixes, kept in memory and on disk.

A chat prompt's system message (instructions, tool list) is the same on every call of
its kind, and on a CPU evaluating it is most of a short call's cost. Its KV state is
saved the first time it is evaluated and put back when a later call, in this process
or the next one, starts with the same tokens. Files live in ``$TINYCODE_HOME/kv-cache``
(else the user cache directory), keyed by the model file, the llama.cpp build and the
tokens. They go straight into llama.cpp, so each is sealed with this user's key
(``private.py``): a file that is not private, fails its tag or cannot be read or
written is a miss, never loaded and never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections import OrderedDict
from pathlib import Path
from typing import Sequence

from ..paths import user_cache
from ..private import read_sealed, state_dir, write_sealed

MAX_IN_MEMORY = 4  # states kept in this process (a few MB each)
MAX_FILES = 16  # states kept on disk; the least recently used go first
FOLDER = "kv-cache"
PURPOSE = "kv-state"


def cache_dir() -> Path:
    return user_cache(FOLDER)


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
            data = _read(key)
            if data is not None:
                self._remember(key, data)
        elif data is not None:
            self._memory.move_to_end(key)
        return data

    def put(self, tokens: Sequence[int], data: bytes) -> None:
        key = self.key(tokens)
        self._remember(key, data)
        if self.on_disk:
            _write(key, data)

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


def _read(key: str) -> bytes | None:
    """The state saved for ``key``, or None when it is missing, damaged or not ours."""
    directory = state_dir(FOLDER)
    if directory is None:
        return None
    path = directory / f"{key}.kv"
    data = read_sealed(path, PURPOSE, key)
    if data is not None:
        with contextlib.suppress(OSError):
            os.utime(path, follow_symlinks=False)  # recently used: pruned last
    return data


def _write(key: str, data: bytes) -> None:
    directory = state_dir(FOLDER)
    if directory is None:
        return
    try:
        write_sealed(directory, f"{key}.kv", PURPOSE, key, data)
        _prune(directory)
    except OSError:
        pass  # a cache that cannot be written is only slower


def _prune(directory: Path) -> None:
    files = sorted(directory.glob("*.kv"), key=lambda p: p.lstat().st_mtime, reverse=True)
    for old in files[MAX_FILES:]:
        with contextlib.suppress(OSError):
            old.unlink()
