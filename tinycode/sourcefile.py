"""Reading source files safely and writing them back atomically.

A file is read as UTF-8 (a BOM is remembered and restored), binary files are
refused with a clear message, and writes go to a temporary file in the same
folder that is fsync'ed and renamed over the original, keeping its mode, so a
crash at any moment leaves either the old file or the new one. Reads can be capped
in size (checked before reading); backups never follow a link or replace a file.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from dataclasses import dataclass

from .errors import InputError

BOM = "\ufeff"
# Binary sniffing: a NUL byte in the first block means this is not source text.
_SNIFF_BYTES = 8192
# Names tried for a backup: NAME.orig, NAME.1.orig ... NAME.99.orig.
_BACKUP_NAMES = 100


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


def read_source(path: str, *, max_size: int | None = None) -> SourceFile:
    """Read ``path`` as source text, or raise InputError with a one-line reason.

    The file is opened without blocking (a FIFO or device planted under a source
    name is refused, not waited on) and its size is checked on the open descriptor
    before a byte is read, so a file over ``max_size`` costs no memory."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{path}: is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: not a regular file")
        if max_size is not None and info.st_size > max_size:
            raise InputError(_too_large(path, info.st_size, max_size))
        with os.fdopen(os.dup(fd), "rb") as handle:
            # One byte past the cap tells a file that grew since the check.
            data = handle.read() if max_size is None else handle.read(max_size + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if max_size is not None and len(data) > max_size:
        raise InputError(_too_large(path, len(data), max_size))
    text, bom = decode(data, path)
    return SourceFile(path, text, bom, info.st_mtime_ns, info.st_size)


def read_head(path: str, size: int = 256) -> bytes:
    """The first ``size`` bytes of a regular file (for a ``#!`` line), or b"" when it
    cannot be read; :func:`read_source` reports why."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return b""
    try:
        return os.read(fd, size) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        return b""
    finally:
        os.close(fd)


def read_stdin(*, max_size: int | None = None) -> SourceFile:
    """Standard input as source text; more than ``max_size`` bytes is refused."""
    data = sys.stdin.buffer.read() if max_size is None else sys.stdin.buffer.read(max_size + 1)
    if max_size is not None and len(data) > max_size:
        raise InputError(f"<stdin>: too large (more than {max_size:,} bytes; raise the limit "
                         "with --max-file-size), skipped")
    text, bom = decode(data, "<stdin>")
    return SourceFile("-", text, bom)


def _too_large(path: str, size: int, limit: int) -> str:
    return (f"{path}: too large ({size:,} bytes, the limit is {limit:,}; raise it with "
            "--max-file-size), skipped")


def write_backup(source: SourceFile) -> str:
    """Keep ``source`` as read (same bytes, mode and time) next to its file, as
    ``NAME.orig``, else the first free ``NAME.N.orig``; the path written.

    The backup is created with O_EXCL|O_NOFOLLOW: an existing file or a symlink
    under a backup name is never opened, let alone overwritten."""
    data = ((BOM if source.bom else "") + source.text).encode("utf-8", "surrogatepass")
    try:
        mode = os.stat(source.path).st_mode & 0o777  # never a setuid copy
    except OSError:
        mode = 0o600
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for n in range(_BACKUP_NAMES):
        name = f"{source.path}.orig" if n == 0 else f"{source.path}.{n}.orig"
        try:
            fd = os.open(name, flags, 0o600)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fchmod(handle.fileno(), mode)
                if source.mtime_ns:
                    os.utime(handle.fileno(), ns=(source.mtime_ns, source.mtime_ns))
                os.fsync(handle.fileno())
        except BaseException:
            try:
                os.unlink(name)
            except OSError:
                pass
            raise
        return name
    raise FileExistsError(errno.EEXIST, f"{source.path}.orig and {_BACKUP_NAMES - 1} numbered "
                                        "backups exist")


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
