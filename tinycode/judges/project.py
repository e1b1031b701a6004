"""What a C or C++ file's project tells its compiler: include folders, macros, the
language standard.

``gcc -fsyntax-only`` cannot parse C without knowing which names are types, and it
only knows them when it can read the headers the file's project reads. clangd finds
them in ``compile_commands.json`` (written by CMake, Meson, Bear) or
``compile_flags.txt``, searching up from the file; so does this module, and where
there is neither, the repository's own include folders stand in.

A project's files are its author's (see ``config.py``): they may tell the judge where
headers are and which macros are defined, never which program runs or what it loads.
Of their flags only include folders, macros, the standard and a few that change what
the parser accepts are kept (``_KEPT``); ``-fplugin``, ``-wrapper``, ``-B``,
``-specs``, ``@file`` and the rest are dropped. A file written by another user, or in
a folder anyone may write, is not read at all.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import threading
from pathlib import Path
from typing import Iterable, NamedTuple

from ..config import written_by_others

# Folders searched above a file outside any git repository: enough for a checkout
# without .git (an unpacked tarball), never the whole file system.
MAX_LEVELS_WITHOUT_REPOSITORY = 4
# A compilation database larger than this is not read (a monorepo's can be huge; the
# check must stay fast). Bytes.
MAX_DATABASE_SIZE = 64 * 1024 * 1024
# Flags taking a path or a name: joined (``-Ifoo``) or as the next argument (``-I foo``).
_WITH_VALUE = ("-I", "-isystem", "-iquote", "-idirafter", "-D", "-U", "-include", "-imacros")
_PATH_VALUE = ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros")
# Whole flags that change what the parser accepts, and nothing else.
_KEPT = re.compile(r"^(?:-std=[\w+.-]+|-ansi|-fms-extensions|-fno-ms-extensions|-fgnu89-inline|"
                   r"-f(?:no-)?(?:exceptions|rtti|char8_t|coroutines|concepts|modules-ts|openmp|openmp-simd|"
                   r"signed-char|unsigned-char|gnu-keywords|asm|trigraphs|permissive|cilkplus)|"
                   r"-pthread|-m(?:32|64|x32|avx\w*|sse\w*|fma\w*|f16c|bmi\w*|popcnt|lzcnt|aes|pclmul|"
                   r"sha|vsx|altivec|neon|arch=[\w.+-]+|cpu=[\w.+-]+|tune=[\w.+-]+|fpu=[\w.+-]+|"
                   r"float-abi=\w+|thumb|arm))$")
_HEADER_FOLDERS = ("include", "inc")


class Found(NamedTuple):
    """The flags for one file and where they came from (for ``check -v`` and the README)."""

    flags: tuple[str, ...]
    source: str  # "compile_commands.json at ...", "compile_flags.txt at ...", "folders"


def flags_for(path: str | os.PathLike[str]) -> Found:
    """The compiler flags the project of the file at ``path`` would compile it with
    (include folders, macros, standard), safe to pass to a judge."""
    file = Path(os.path.abspath(path))
    folders = _folders_above(file.parent)
    own = ("-iquote", str(file.parent))  # "header.h" beside the file, as the compiler would
    for folder in folders:
        for candidate in (folder / "compile_commands.json", folder / "build" / "compile_commands.json"):
            found = _from_database(candidate, file)
            if found is not None:
                return Found(own + found, f"compile_commands.json at {candidate}")
        candidate = folder / "compile_flags.txt"
        flags = _from_flags_file(candidate)
        if flags is not None:
            return Found(own + flags, f"compile_flags.txt at {candidate}")
    return Found(own + _repository_folders(folders), "folders")


def _folders_above(start: Path) -> list[Path]:
    """``start`` and its parents up to the repository root (the folder with ``.git``)
    or the user's home; without either, a few levels."""
    home = Path(os.path.expanduser("~")).absolute()
    chain = [start, *start.parents]
    for index, folder in enumerate(chain):
        if (folder / ".git").exists() or folder == home:
            return chain[:index + 1]
    return chain[:MAX_LEVELS_WITHOUT_REPOSITORY + 1]


def _repository_folders(folders: list[Path]) -> tuple[str, ...]:
    """Where a project without a build description keeps its headers: each folder from
    the file's up to the root, and their ``include/`` folders. Searched after the system
    headers (``-idirafter``), so that a project folder named ``sys`` hides nothing."""
    out: list[str] = []
    for folder in folders:
        for candidate in (folder, *(folder / name for name in _HEADER_FOLDERS)):
            if candidate.is_dir():
                out += ["-idirafter", str(candidate)]
    return tuple(out)


_lock = threading.Lock()
_databases: dict[Path, tuple[float, dict[str, list[tuple[str, tuple[str, ...]]]]]] = {}


def _readable(path: Path) -> bool:
    """A project file tinycode may read: there, not too large, written by the user or root."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_DATABASE_SIZE:
            return False
    except OSError:
        return False
    return not written_by_others(path)


def _from_database(path: Path, file: Path) -> tuple[str, ...] | None:
    """The kept flags of the entry for ``file`` in the database at ``path``; a file it
    does not list (a header) takes the flags of the entry nearest to it, as clangd does."""
    if not _readable(path):
        return None
    entries = _database(path)
    if not entries:
        return None
    wanted = str(file)
    best: tuple[int, tuple[str, ...]] | None = None
    for name, flags in entries.items():
        if name == wanted:
            return flags[0][1]
        shared = len(os.path.commonpath([name, wanted])) if os.path.isabs(name) else 0
        if best is None or shared > best[0]:
            best = (shared, flags[0][1])
    return best[1] if best else None


def _database(path: Path) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
    """file -> [(directory, kept flags)] of a compilation database, read once per change."""
    mtime = path.stat().st_mtime
    with _lock:
        cached = _databases.get(path)
        if cached is not None and cached[0] == mtime:
            return cached[1]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        data = []
    entries: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for entry in data if isinstance(data, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            continue
        directory = entry.get("directory") if isinstance(entry.get("directory"), str) else str(path.parent)
        arguments = entry.get("arguments")
        if not (isinstance(arguments, list) and all(isinstance(a, str) for a in arguments)):
            try:
                arguments = shlex.split(entry["command"]) if isinstance(entry.get("command"), str) else []
            except ValueError:
                continue
        name = os.path.normpath(os.path.join(directory, entry["file"]))
        entries.setdefault(name, []).append((directory, kept(arguments[1:], directory)))
    with _lock:
        _databases[path] = (mtime, entries)
    return entries


def _from_flags_file(path: Path) -> tuple[str, ...] | None:
    """The kept flags of a ``compile_flags.txt`` (one argument a line, paths relative to it)."""
    if not _readable(path):
        return None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    return kept([line.strip() for line in lines if line.strip()], str(path.parent))


def kept(arguments: Iterable[str], directory: str) -> tuple[str, ...]:
    """Of a compiler's ``arguments`` (run in ``directory``), those a judge may be given:
    include folders, macros, the standard, parser options; relative paths made absolute.
    Everything else (the compiler, outputs, plugins, wrappers, response files, spec
    files, other toolchains, the source file) is left out."""
    out: list[str] = []
    items = list(arguments)
    index = 0
    while index < len(items):
        argument = items[index]
        index += 1
        flag = next((f for f in _WITH_VALUE if argument == f or (argument.startswith(f) and f not in
                                                                 ("-include", "-imacros"))), None)
        if flag is not None:
            if argument == flag:
                if index >= len(items):
                    break
                value = items[index]
                index += 1
            else:
                value = argument[len(flag):]
            if flag in _PATH_VALUE:
                value = os.path.normpath(os.path.join(directory, value))
                # A header to read first must be a file: not a device or a fifo to hang on.
                if flag in ("-include", "-imacros") and not os.path.isfile(value):
                    continue
            if value and "\n" not in value:
                out += [flag, value]
        elif _KEPT.match(argument):
            out.append(argument)
    return tuple(out)
