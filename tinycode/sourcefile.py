"""Reading source files safely and writing them back atomically.

A file is read as UTF-8 (a BOM is remembered and restored), binary files are
refused with a clear message. Reads can be capped in size (checked before reading).

:func:`write_atomic` is the one write of tinycode, for source files, backups and its
own private state alike: a temporary file in the same folder, renamed over the old
one, so a crash at any moment leaves either the old file or the new one; backups
never follow a link or replace a file.
"""

from __future__ import annotations

import contextlib
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
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# Why os.link can fail where the file system has no hard links.
_NO_HARD_LINKS = {errno.EPERM, errno.EMLINK, getattr(errno, "ENOTSUP", -1),
                  getattr(errno, "EOPNOTSUPP", -1), getattr(errno, "ENOSYS", -1)}


@dataclass
class SourceFile:
    """A decoded source file: the text (newlines as found), and how to write it back."""

    path: str
    text: str
    bom: bool = False
    mtime_ns: int = 0
    size: int = 0


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
    except OSError as exc:
        raise InputError(unreadable(path, exc)) from None
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
        raise InputError(unreadable(path, exc)) from None
    finally:
        os.close(fd)
    if max_size is not None and len(data) > max_size:
        raise InputError(_too_large(path, len(data), max_size))
    text, bom = decode(data, path)
    return SourceFile(path, text, bom, info.st_mtime_ns, info.st_size)


def unreadable(path: str | os.PathLike[str], exc: OSError) -> str:
    """One line saying why ``path`` could not be opened or read."""
    if isinstance(exc, FileNotFoundError):
        return f"{path}: no such file"
    if isinstance(exc, IsADirectoryError):
        return f"{path}: is a directory"
    return f"{path}: cannot read ({exc.strerror})"


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

    Written with ``exclusive``: an existing file or a symlink under a backup name is
    never opened, let alone overwritten."""
    try:
        mode = os.stat(source.path).st_mode & 0o777  # never a setuid copy
    except OSError:
        mode = 0o600
    for n in range(_BACKUP_NAMES):
        name = f"{source.path}.orig" if n == 0 else f"{source.path}.{n}.orig"
        try:
            write_atomic(name, source.text, bom=source.bom, mode=mode, follow_symlinks=False,
                         exclusive=True, mtime_ns=source.mtime_ns or None)
        except FileExistsError:
            continue
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


def write_back(source: SourceFile, text: str, *, backup: bool) -> tuple[str, str]:
    """Write the repaired ``text`` over ``source``'s file. Returns (the reason it was
    not written, or ""; a note for the user, or "")."""
    if changed_on_disk(source):
        return "changed while being repaired; not written", ""
    if is_read_only(source.path):
        return "read-only file; not written", ""
    note = ""
    try:
        if backup:
            kept = write_backup(source)
            if kept != source.path + ".orig":
                note = f"{source.path}.orig exists; the backup is {kept}"
        write_atomic(source.path, text, bom=source.bom)
    except FileExistsError as exc:
        return f"no free backup name ({exc.strerror}); the file is unchanged", ""
    except OSError as exc:
        return f"cannot write ({exc.strerror or exc}); the file is unchanged", ""
    return "", note


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, bom: bool = False,
                 mode: int | None = None, follow_symlinks: bool = True, exclusive: bool = False,
                 fsync: bool = True, mtime_ns: int | None = None) -> None:
    """Put ``data`` at ``path`` so that a reader, or a crash at any moment, sees the old
    file or the new one whole: the one write everything in tinycode goes through.

    The bytes go to a new private temporary file in the same folder, which is then
    renamed over ``path`` (see :func:`move_into_place`); on any failure, Ctrl-C
    included, the temporary file is removed and ``path`` is as it was.

    ``data``: bytes as they are, or text written as UTF-8 (after a BOM if ``bom``).
    ``mode``: the new file's permission bits; None keeps the existing file's (0o644
    for a new one). ``follow_symlinks``: write through a link at ``path`` to its
    target, keeping the link (a user's source file); False replaces whatever entry
    is at ``path`` and never writes through it (tinycode's own files).
    ``exclusive``: raise FileExistsError if ``path`` exists, even as a dangling link,
    rather than replace it. ``fsync``: make the file and its folder entry durable
    before returning (off for caches, where a torn file fails its check and is a
    miss). ``mtime_ns``: the new file's modification time."""
    target = os.path.realpath(path) if follow_symlinks else os.fspath(path)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o644
    if isinstance(data, str):
        data = ((BOM if bom else "") + data).encode("utf-8", "surrogatepass")
    # mkstemp: O_EXCL|O_NOFOLLOW, mode 0600 until the contents are complete
    fd, tmp = tempfile.mkstemp(prefix=".tinycode-", suffix=".tmp", dir=os.path.dirname(target) or ".")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        if mtime_ns is not None:
            os.utime(tmp, ns=(mtime_ns, mtime_ns))
        move_into_place(tmp, target, exclusive=exclusive, fsync=fsync)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def move_into_place(tmp: str | os.PathLike[str], path: str | os.PathLike[str], *,
                    exclusive: bool = False, fsync: bool = True) -> None:
    """Make the finished temporary file ``tmp`` (in ``path``'s folder) be ``path``, in
    one step: renamed over the entry there (a link is replaced, never followed) or,
    ``exclusive``, linked in only where no entry is (FileExistsError otherwise).

    :func:`write_atomic` ends here; so does a model download, whose temporary file
    outlives a failed run so that the next one can resume it. ``fsync`` flushes the
    file before the rename and the folder after it. ``tmp`` is gone on success."""
    if fsync:
        fd = os.open(tmp, os.O_RDONLY | _NOFOLLOW)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    if not exclusive:
        os.replace(tmp, path)
    else:
        try:
            os.link(tmp, path)  # never follows a link at ``path``
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise  # FileExistsError among them
            # A file system without hard links (FAT): check, then rename; the rename
            # still replaces a link planted meanwhile rather than writing through it.
            if os.path.lexists(path):
                raise FileExistsError(errno.EEXIST, "file exists", os.fspath(path)) from None
            os.replace(tmp, path)
        else:
            os.unlink(tmp)
    if fsync:
        _fsync_dir(os.path.dirname(os.fspath(path)) or ".")


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
