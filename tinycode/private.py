"""Tinycode's own folders and files: private to this user, and authenticated when read.

Folders are created 0700. A folder or file owned by another user or writable by group
or others is not used: a cache miss, said once as an ``UnsafeStateWarning``. Files are
opened without following links, and written 0600 by ``sourcefile.write_atomic``, which
replaces a link rather than writing through it. A sealed file carries an HMAC-SHA256,
keyed by a random per-user secret kept in the tinycode home, over its purpose, its key
and its whole payload: a file written by anyone without the secret is a miss, never
loaded.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import os
import secrets
import stat
import warnings
from pathlib import Path

from .paths import home
from .sourcefile import write_atomic

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FLAGS = NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
SECRET_FILE = "secret"
SECRET_SIZE = 32
_MAGIC = b"tinycode-sealed 1\n"
_said: set[str] = set()


class UnsafeStateWarning(UserWarning):
    """A tinycode folder or file another user could have written was not used."""


def say_once(message: str) -> None:
    if message not in _said:
        _said.add(message)
        warnings.warn(message, UnsafeStateWarning, stacklevel=3)


def unsafe(status: os.stat_result) -> str | None:
    """Why a file or folder with this status is not private to this user, or None."""
    if not hasattr(os, "getuid"):  # pragma: no cover - Windows has no such modes
        return None
    if status.st_uid != os.getuid():
        return f"it is owned by uid {status.st_uid}"
    if status.st_mode & 0o022:
        return "others can write to it"
    return None


# --- folders -----------------------------------------------------------------------

def private_dir(path: Path, *, tighten: bool = True) -> Path | None:
    """``path``, created 0700 if missing; None if it cannot be made or is not private.

    ``tighten`` removes group and other access from a folder of ours (tinycode's own
    folders); a folder the user named, such as a shared model cache, keeps its modes."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = os.stat(path)
    except OSError:
        return None
    why = "it is not a folder" if not stat.S_ISDIR(status.st_mode) else unsafe(status)
    if why:
        say_once(f"tinycode is not using {path}: {why}")
        return None
    if tighten and status.st_mode & 0o077:
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
    return path


def state_dir(name: str) -> Path | None:
    """``<tinycode home>/<name>`` as a private folder, or None (a miss)."""
    root = private_dir(home())
    return private_dir(root / name) if root is not None else None


# --- files -------------------------------------------------------------------------

def open_file(path: Path, flags: int, mode: int = 0o600) -> int:
    """``os.open`` without following a link; a file that is not a regular file private
    to this user is closed again and raises PermissionError (said once)."""
    try:
        fd = os.open(path, flags | _FLAGS, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            say_once(f"tinycode is not using {path}: it is a link")
        raise
    try:
        status = os.fstat(fd)
        why = "it is not a regular file" if not stat.S_ISREG(status.st_mode) else unsafe(status)
        if why:
            say_once(f"tinycode is not using {path}: {why}")
            raise PermissionError(errno.EPERM, f"not private: {why}", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_file(path: Path) -> bytes:
    """The bytes of a private file; OSError if it is missing, a link or not private."""
    with os.fdopen(open_file(path, os.O_RDONLY), "rb") as handle:
        return handle.read()


# --- the per-user secret and sealed files ------------------------------------------------

def secret() -> bytes | None:
    """This user's random key, made on first use in the private tinycode home; None if
    the home is not private or the key file is damaged or not private (said once)."""
    root = private_dir(home())
    if root is None:
        return None
    path = root / SECRET_FILE
    try:
        try:
            fd = open_file(path, os.O_RDONLY)
        except FileNotFoundError:
            _make_secret(path)
            fd = open_file(path, os.O_RDONLY)
        with os.fdopen(fd, "rb") as handle:
            if os.fstat(handle.fileno()).st_mode & 0o077:
                say_once(f"tinycode is not using {path}: others can read it; remove it")
                return None
            value = handle.read(SECRET_SIZE + 1)
    except OSError:
        return None
    if len(value) != SECRET_SIZE:
        say_once(f"tinycode is not using {path}: it is damaged; remove it")
        return None
    return value


def _make_secret(path: Path) -> None:
    """Write a new key with ``exclusive``: a reader never sees half a key, and of two
    racing processes the first one wins."""
    with contextlib.suppress(FileExistsError):
        write_atomic(path, secrets.token_bytes(SECRET_SIZE), mode=0o600, follow_symlinks=False,
                     exclusive=True)


def tag(key_bytes: bytes, purpose: str, key: str, payload: bytes) -> bytes:
    """HMAC-SHA256 over the purpose, the key a payload was saved for, and the payload."""
    mac = hmac.new(key_bytes, digestmod=hashlib.sha256)
    for part in (purpose.encode(), key.encode()):
        mac.update(len(part).to_bytes(8, "big") + part)
    mac.update(payload)
    return mac.digest()


def write_sealed(directory: Path, name: str, purpose: str, key: str, payload: bytes) -> None:
    """Store ``payload`` for ``key`` in ``directory/name`` with its tag; OSError on failure."""
    key_bytes = secret()
    if key_bytes is None:
        raise PermissionError(errno.EPERM, "no private key to seal with", str(directory))
    # No fsync: a file torn by a crash fails its tag, a miss like any other.
    write_atomic(directory / name, _MAGIC + tag(key_bytes, purpose, key, payload) + payload,
                 mode=0o600, follow_symlinks=False, fsync=False)


def read_sealed(path: Path, purpose: str, key: str) -> bytes | None:
    """The payload stored for ``key`` at ``path``, or None when it is missing, not
    private, damaged, or was sealed for another key or by someone without the secret."""
    try:
        blob = read_file(path)
    except OSError:
        return None
    header = len(_MAGIC) + hashlib.sha256().digest_size
    if len(blob) < header or not blob.startswith(_MAGIC):
        return None
    key_bytes = secret()
    found, payload = blob[len(_MAGIC):header], blob[header:]
    if key_bytes is None or not hmac.compare_digest(found, tag(key_bytes, purpose, key, payload)):
        return None
    return payload
