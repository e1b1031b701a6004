"""Turning PATH arguments into files, as ruff does.

A file named on the command line is always offered (the caller decides what an
unknown type or a config ``exclude`` means for it). A folder is walked in name order,
leaving out:

- what ``.gitignore`` files say (every one from the root of the git repository down to
  each folder walked, and ``.git/info/exclude``), with git's own semantics through
  :mod:`pathspec`; outside a git repository, the ``.gitignore`` files at and below the
  folder named;
- hidden folders (``.git``, ``.venv``, ``.tox``...) and the usual build, cache and
  vendored folders (:data:`DEFAULT_EXCLUDED`);
- folders the caller's ``skip_folder`` refuses (``[tool.tinycode] exclude``);
- symbolic links: a walk never follows one, to a folder or to a file, so it cannot
  leave the tree or reach a file the ignore rules would have kept away. (A link named
  on the command line is followed: the user chose it.)

Ignored files and folders are never opened; a folder's ``.gitignore`` is read before
anything in it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import pathspec

# Folder names a walk never enters (ruff's defaults, plus vendored code and caches).
# Hidden folders (a leading dot) are left out anyway.
DEFAULT_EXCLUDED = frozenset({
    "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
    "site-packages", "vendor", "venv",
})


@dataclass(frozen=True)
class Entry:
    """One file to work on, or a reason something was left out.

    ``explicit``: named on the command line (an unknown type is then an error, not a
    quiet skip). ``skipped``: why a walk left it out (for ``-v``). ``error``: a folder
    that could not be listed."""

    path: str
    explicit: bool = False
    skipped: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class _Rules:
    """The ignore patterns of one file, relative to ``folder`` (an absolute path)."""

    folder: str
    spec: pathspec.GitIgnoreSpec


def walk(paths: Iterable[str], *, skip_folder: Callable[[str], bool] | None = None,
         respect_gitignore: bool = True) -> Iterator[Entry]:
    """The files under ``paths`` in a stable order. ``-`` passes through as is (stdin).
    A file found by a walk is offered once, and not again if it was named (a file
    named twice is offered twice: the user asked). ``skip_folder(path)`` is asked about
    each folder found by a walk before it is entered."""
    seen: set[str] = set()   # every file offered so far
    named: set[str] = set()  # those named on the command line
    for path in paths:
        if path != "-" and os.path.isdir(path):
            yield from _walk_root(path, seen, skip_folder, respect_gitignore)
            continue
        key = os.path.abspath(path) if path != "-" else "-"
        if key not in seen or key in named:
            seen.add(key)
            named.add(key)
            yield Entry(path, explicit=True)


def _walk_root(root: str, seen: set[str], skip_folder: Callable[[str], bool] | None,
               respect_gitignore: bool) -> Iterator[Entry]:
    absolute = os.path.abspath(root)
    rules = _outer_rules(absolute) if respect_gitignore else []
    display = "" if os.path.normpath(root) == "." else root
    yield from _walk_folder(absolute, display, rules, seen, skip_folder, respect_gitignore)


def _walk_folder(folder: str, display: str, rules: list[_Rules], seen: set[str],
                 skip_folder: Callable[[str], bool] | None, respect_gitignore: bool) -> Iterator[Entry]:
    if respect_gitignore:
        own = _read_rules(os.path.join(folder, ".gitignore"), folder)
        if own is not None:
            rules = [*rules, own]
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        yield Entry(display or ".", error=f"{display or '.'}: cannot read folder ({exc.strerror or exc})")
        return
    for entry in entries:
        shown = os.path.join(display, entry.name) if display else entry.name
        absolute = os.path.join(folder, entry.name)
        try:
            if entry.is_symlink():
                yield Entry(shown, skipped="symbolic link (a walk does not follow links)")
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if not is_dir and not entry.is_file(follow_symlinks=False):
                continue  # sockets, fifos, devices: never source files
        except OSError:
            continue
        if is_dir and (entry.name.startswith(".") or entry.name in DEFAULT_EXCLUDED):
            yield Entry(shown + "/", skipped="hidden or build/vendor folder")
            continue
        if _ignored(rules, absolute, is_dir):
            yield Entry(shown + ("/" if is_dir else ""), skipped="ignored by .gitignore")
            continue
        if is_dir:
            if skip_folder is not None and skip_folder(shown):
                yield Entry(shown + "/", skipped="excluded by the configuration")
                continue
            yield from _walk_folder(absolute, shown, rules, seen, skip_folder, respect_gitignore)
        elif absolute not in seen:
            seen.add(absolute)
            yield Entry(shown)


def _ignored(rules: list[_Rules], absolute: str, is_dir: bool) -> bool:
    """git's verdict: the last matching pattern wins, deeper files after shallower."""
    verdict = False
    for rule in rules:
        prefix = rule.folder.rstrip(os.sep) + os.sep
        if not absolute.startswith(prefix):
            continue
        relative = absolute[len(prefix):].replace(os.sep, "/")
        result = rule.spec.check_file(relative + "/" if is_dir else relative)
        if result.include is not None:
            verdict = result.include
    return verdict


def _outer_rules(root: str) -> list[_Rules]:
    """The ignore rules that apply to ``root`` from outside it: ``.git/info/exclude``
    and the ``.gitignore`` of each folder from the repository's root down to
    ``root``'s parent. None outside a git repository."""
    top = _repository_root(root)
    if top is None:
        return []
    rules: list[_Rules] = []
    git_dir = _git_dir(top)
    if git_dir is not None:
        found = _read_rules(os.path.join(git_dir, "info", "exclude"), top)
        if found is not None:
            rules.append(found)
    folders = []
    folder = root
    while folder != top:
        folder = os.path.dirname(folder)
        folders.append(folder)
    for folder in reversed(folders):
        found = _read_rules(os.path.join(folder, ".gitignore"), folder)
        if found is not None:
            rules.append(found)
    return rules


def _repository_root(folder: str) -> str | None:
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _git_dir(top: str) -> str | None:
    """The repository's git folder: ``.git``, or where a worktree's ``.git`` file points
    (its shared ``commondir``, which holds ``info/exclude``)."""
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8") as handle:
            line = handle.readline().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    git_dir = os.path.join(top, line[len("gitdir:"):].strip())
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as handle:
            return os.path.normpath(os.path.join(git_dir, handle.read().strip()))
    except (OSError, UnicodeDecodeError):
        return git_dir


def _read_rules(path: str, folder: str) -> _Rules | None:
    """The patterns in ``path``, or None if there is no such readable regular file."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(1024 * 1024).splitlines()
    except OSError:
        return None
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return _Rules(folder, spec) if len(spec) else None
