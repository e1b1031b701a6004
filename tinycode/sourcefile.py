"""Reading source files safely and writing them back atomically.

A file is read as UTF-8 (a BOM is remembered and restored), binary files are
refused with a clear message, and writes go to a temporary file in the same
folder that is fsync'ed and renamed over the original, keeping its mode, so a
crash at any moment leaves either the old file or the new one.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from dataclasses import dataclass

from .errors import InputError

BOM = "\ufeff"
# Binary sniffing: a NUL byte in the first block means this is not source text.
_SNIFF_BYTES = 8192


@dataclass
class SourceFile:
    """A decoded source file: the text (newlines as found), and how to write it back."""

    path: str
    text: str
    bom: bool = False
    mtime_ns: int = 0
    size: int = 0

    @property
    def newline(self) -> str:
        """The file's dominant line ending, used for lines an edit introduces."""
        crlf = self.text.count("\r\n")
        return "\r\n" if crlf and crlf >= self.text.count("\n") - crlf else "\n"


def decode(data: bytes, name: str = "<stdin>") -> tuple[str, bool]:
    """Text and BOM flag of ``data``; raises InputError for binary or non-UTF-8 input."""
    if b"\x00" in data[:_SNIFF_BYTES] or b"\x00" in data:
        raise InputError(f"{name}: binary file (contains NUL bytes), skipped")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{name}: not UTF-8 text (invalid byte at offset {exc.start}), skipped") from None
    bom = text.startswith(BOM)
    return (text[1:] if bom else text), bom


def read_source(path: str) -> SourceFile:
    """Read ``path`` as source text, or raise InputError with a one-line reason."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a directory")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: not a regular file")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    text, bom = decode(data, path)
    return SourceFile(path, text, bom, info.st_mtime_ns, info.st_size)


def read_stdin() -> SourceFile:
    data = sys.stdin.buffer.read()
    text, bom = decode(data, "<stdin>")
    return SourceFile("-", text, bom)


def changed_on_disk(source: SourceFile) -> bool:
    """True when the file was modified since it was read (so it must not be overwritten)."""
    try:
        info = os.stat(source.path)
    except OSError:
        return True
    return info.st_mtime_ns != source.mtime_ns or info.st_size != source.size


def is_read_only(path: str) -> bool:
    """True when the file's owner may not write it (checked by mode, so it holds for
    root too: a read-only file is a statement, not an obstacle to route around)."""
    try:
        return not os.stat(path).st_mode & stat.S_IWUSR
    except OSError:
        return False


def write_atomic(path: str, text: str, *, bom: bool = False) -> None:
    """Replace ``path`` with ``text`` atomically, keeping the file's permission bits."""
    real = os.path.realpath(path)  # write through symlinks, keep the link itself
    folder = os.path.dirname(real) or "."
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        mode = 0o644
    data = ((BOM if bom else "") + text).encode("utf-8", "surrogatepass")
    fd, tmp = tempfile.mkstemp(prefix=".tinycode-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(folder)


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
