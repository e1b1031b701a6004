"""The ``#include`` lines a C or C++ compiler will not find, found before it runs.

A compiler stops at the first header it cannot find. Blanking that line and running
again reads the rest, one header per run; a file checked away from its project (a
hook's copy, an editor's buffer) can miss a dozen. Looking the headers up first, in
the folders the compiler would search, saves those runs: one run then reads the whole
file. Only lines that are certainly read are blanked this way: those outside any
``#if`` (an include guard or ``#pragma once`` aside); a header inside a condition may
be one the compiler never opens, and is left to it.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from typing import Sequence

from ..languages import spec
from .base import tool_env
from ..spelling import distance

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^<>\n]+)>)')
_CONDITION = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|endif)\b")
_GUARD_OPEN = re.compile(r"^[ \t]*#[ \t]*ifndef[ \t]+(\w+)[ \t]*$")
_GUARD_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)")
_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
# Folder flags, in the order the compiler searches them for "quoted" and <angled> names.
_QUOTE_FLAGS = ("-iquote",)
_ANGLE_FLAGS = ("-I", "-isystem")
_LAST_FLAGS = ("-idirafter",)


def unreachable(text: str, flags: Sequence[str], executable: str, language: str,
                timeout: float) -> list[tuple[int, str]]:
    """(1-based line, header) of the ``#include`` lines of ``text`` outside conditions
    that name a header found in none of the folders the compiler (``executable`` with
    ``flags``) would search; none when the compiler does not say where it looks."""
    if "include" not in text:
        return []
    lines = text.split("\n")
    top = 1 if _guarded(text) else 0
    depth = 0
    out: list[tuple[int, str]] = []
    quote, angle, last = _folders(flags)
    system: tuple[str, ...] | None = None
    for number, line in enumerate(lines, 1):
        if "#" not in line:
            continue
        condition = _CONDITION.match(line)
        if condition:
            depth += -1 if condition.group(1) == "endif" else 1
            continue
        match = _INCLUDE.match(line)
        if match is None or depth > top:
            continue
        name = match.group(1) or match.group(2)
        if os.path.isabs(name):
            if not os.path.isfile(name):
                out.append((number, name))
            continue
        if _found(name, (quote + angle) if match.group(1) else angle):
            continue
        if system is None:  # asked only for a header the project's folders do not have
            system = system_folders(executable, language, timeout)
            if not system:
                return []  # where the compiler looks is unknown: it finds out for itself
        if not _found(name, system + last):
            out.append((number, name))
    return out


def installed(name: str, executable: str, language: str, timeout: float) -> str | None:
    """The one folder directly below a folder the compiler searches that holds the
    header ``name`` (``/usr/include/python3.11`` for ``Python.h``): where a library
    installs its headers, which a build that uses it adds with ``-I`` (as ``pkg-config
    --cflags`` says). None where no such folder has it, or several do."""
    return _installed_in(name, system_folders(executable, language, timeout))


@functools.lru_cache(maxsize=256)
def _installed_in(name: str, system: tuple[str, ...]) -> str | None:
    """``installed``, remembered: a repair checks a file's versions hundreds of times."""
    found = [folder for folder in _library_folders(system) if os.path.isfile(os.path.join(folder, name))]
    return found[0] if len(found) == 1 else None


@functools.lru_cache(maxsize=8)
def _library_folders(system: tuple[str, ...]) -> tuple[str, ...]:
    """The folders directly below the ``system`` ones (read once per process)."""
    return tuple(os.path.join(root, entry) for root in system for entry in sorted(_entries(root))
                 if os.path.isdir(os.path.join(root, entry)))


def meant_by(line: str, flags: Sequence[str], executable: str, language: str, timeout: float) -> str | None:
    """``meant`` in the folders the compiler (``executable`` with ``flags``) searches for
    <angled> names."""
    _, angle, last = _folders(flags)
    system = system_folders(executable, language, timeout)
    if not system:
        return None
    # (then the folders libraries install their headers in, ``installed``: ``<Python..h>``)
    return meant(line, (*angle, *system, *last)) or meant(line, _library_folders(system))


# Remembered: a repair judges a file's versions hundreds of times, each with the same lines.
@functools.lru_cache(maxsize=256)
def meant(line: str, folders: tuple[str, ...]) -> str | None:
    """The header the ``<angled>`` name of ``#include`` ``line``, found in none of
    ``folders``, was meant to name: the name with the text typed after its ``>``
    (``<types_traits.>hpp``), or the one header of the same folder a typo away
    (``<sys/ucontext..h>``). None when there is no single such header, or the name is
    "quoted": a project's own header may be missing from a copy checked alone."""
    match = _INCLUDE.match(line)
    if match is None or match.group(2) is None:
        return None
    name = match.group(2)
    after = line[match.end():].strip()
    if after and re.fullmatch(r"[\w.]+", after) and _found(name + after, folders):
        return name + after
    folder, base = os.path.split(name)
    # Not a first character added or lost: <io.h> and <alloc.h> are other systems' headers
    # (<aio.h>, <malloc.h> are these).
    near = {os.path.join(folder, entry) for root in folders
            for entry in _entries(os.path.join(root, folder)) if entry[:1] == base[:1] and _one_apart(base, entry)}
    if not near:  # or the folder's '/' mistyped or lost (<X11 Xdefs.h>, <systypes.h>)
        near = {other for other in _separated(name) if _found(other, folders)}
    if not near:  # or a mark typed in the wrong place (<.Pythonh>, <stdioh.>)
        near = {other for other in _mark_moved(name) if _found(other, folders)}
    return near.pop() if len(near) == 1 else None


def _mark_moved(name: str) -> set[str]:
    """``name`` with one of its ``.``, ``/``, ``_`` or ``-`` moved elsewhere inside it."""
    moved: set[str] = set()
    for i, mark in enumerate(name):
        if mark in "./_-":
            rest = name[:i] + name[i + 1:]
            moved |= {rest[:j] + mark + rest[j:] for j in range(1, len(rest)) if j != i}
    return moved


def _separated(name: str) -> set[str]:
    """``name`` with one character made a ``/``, or a ``/`` put between two, inside it."""
    return ({name[:i] + "/" + name[i + 1:] for i in range(1, len(name) - 1) if name[i] != "/"}
            | {name[:i] + "/" + name[i:] for i in range(1, len(name))})


def _entries(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _one_apart(a: str, b: str) -> bool:
    """``b`` is ``a`` with one character deleted, inserted or replaced, or two next to
    each other swapped (``<libc-header-starth.>``)."""
    return a != b and distance(a, b, cap=2) == 1


def _found(name: str, folders: Sequence[str]) -> bool:
    return any(os.path.isfile(os.path.join(folder, name)) for folder in folders)


def _guarded(text: str) -> bool:
    """The text begins with an include guard (``#ifndef X`` / ``#define X``): its
    contents are read, as if outside any condition."""
    head = _COMMENTS.sub("", text[:4000])
    code = [line for line in head.split("\n") if line.strip()][:2]
    if len(code) < 2:
        return False
    opened, defined = _GUARD_OPEN.match(code[0]), _GUARD_DEFINE.match(code[1])
    return bool(opened and defined and opened.group(1) == defined.group(1))


def _folders(flags: Sequence[str]) -> tuple[list[str], list[str], tuple[str, ...]]:
    """The folders the flags name: searched for "quoted" names only, for both before
    the system's, and after the system's."""
    quote: list[str] = []
    angle: list[str] = []
    last: list[str] = []
    for flag, value in zip(flags, flags[1:]):
        if flag in _QUOTE_FLAGS:
            quote.append(value)
        elif flag in _ANGLE_FLAGS:
            angle.append(value)
        elif flag in _LAST_FLAGS:
            last.append(value)
    return quote, angle, tuple(last)


_system: dict[tuple[str, str], tuple[str, ...]] = {}


def compiler_language(language: str) -> str:
    """What a compiler's ``-x`` calls ``language``, as its record's dialect says ("c++"); "c" otherwise."""
    record = spec(language)
    dialect = record.dialect if record is not None else ()
    return dialect[dialect.index("-x") + 1] if "-x" in dialect else "c"


def system_folders(executable: str, language: str, timeout: float) -> tuple[str, ...]:
    """Where ``executable`` finds <standard headers> for ``language``, as it says itself
    (``-E -v``: about 15 ms, once per process); () when it does not say."""
    key = (executable, language)
    if key in _system:
        return _system[key]
    kind = compiler_language(language)
    try:
        done = subprocess.run([executable, "-x", kind, "-E", "-v", os.devnull], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=timeout, check=False,
                              env=tool_env())
    except (OSError, subprocess.TimeoutExpired):
        _system[key] = ()
        return ()
    text = done.stderr.decode("utf-8", "replace")
    start, end = text.find("#include <...> search starts here:"), text.find("End of search list.")
    found = () if start < 0 or end < start else \
        tuple(line.strip() for line in text[start:end].split("\n")[1:] if line.strip())
    _system[key] = found
    return found


# A directive's whole text, its continued lines included.
_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n\\]|\\.)*", re.MULTILINE | re.DOTALL)
DEFINED_NAME = re.compile(r"^#define ([A-Za-z_]\w*)", re.MULTILINE)


def macros(text: str, flags: Sequence[str], executable: str, language: str, timeout: float) -> frozenset[str]:
    """The names of the macros defined once the directives of ``text`` are read with the
    headers they include (the compiler's ``-dM -E``; about 20 ms, once per set of
    directives): a name beside an error that is one of them is no unknown macro. Empty
    when the compiler cannot say."""
    directives = "\n".join(match.group() for match in _DIRECTIVE.finditer(text)) + "\n"
    return _macros(directives, tuple(flags), executable, language, timeout)


@functools.lru_cache(maxsize=32)
def _macros(directives: str, flags: tuple[str, ...], executable: str, language: str, timeout: float) -> frozenset[str]:
    try:
        done = subprocess.run([executable, "-x", compiler_language(language), *flags, "-dM", "-E", "-"],
                              input=directives.encode("utf-8", "surrogatepass"), capture_output=True,
                              timeout=timeout, check=False, env=tool_env())
        found = frozenset(DEFINED_NAME.findall(done.stdout.decode("utf-8", "replace")))
    except (OSError, subprocess.TimeoutExpired):
        found = frozenset()
    return found
