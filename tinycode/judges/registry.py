"""Which tool judges which language on this machine, and how it is called.

A language's judge is the first of its default tools found on PATH, unless the user
named another (``TINYCODE_JUDGES="c=clang,bash=off"``, a flag, the user's settings).
A repository's own config may only turn judges off: choosing the executable that runs
would let a cloned repository run programs (see ``config.py``).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from typing import Callable, Mapping

from ..config import toml_parser
from . import readers
from .base import Tool

OFF = "off"

# A language's tools, the preferred first. Shell scripts pick theirs by shebang.
DEFAULT_TOOLS: dict[str, tuple[str, ...]] = {
    "c": ("gcc", "clang", "cc"),
    "cpp": ("g++", "clang++", "c++"),
    "javascript": ("node", "nodejs"),
    "go": ("gofmt",),
    "rust": ("rustfmt",),
    "bash": ("bash",),
    "ruby": ("ruby",),
    "php": ("php",),
    "swift": ("swiftc",),
}
# What one run costs in the searches' judge budgets (``judges.calls``), where it is more
# than one: a C++ compiler reads the standard library's headers on every run (about a
# second here), several times a C compiler's or node's work.
RUN_COST: dict[str, int] = {"cpp": 4}
# Languages judged in process by a Python parser, when it can be imported.
IN_PROCESS: dict[str, str] = {"yaml": "PyYAML", "toml": "tomllib"}
# Judged in check.py itself, as before there were external judges.
BUILT_IN: dict[str, str] = {"python": "CPython compile()", "json": "json module"}
SHELLS = ("bash", "sh", "dash", "zsh", "ksh", "mksh", "busybox")
_SHEBANG = re.compile(r"^#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?([A-Za-z]+)")


@dataclass(frozen=True)
class _Family:
    args: Callable[[str], tuple[str, ...]]  # language -> arguments
    filename: Callable[[str], str]  # language -> temporary file name
    read: Callable[..., list]
    label: str  # "{exe}" is replaced by the executable's name


ERROR_LIMIT = 50  # a compiler's errors before it stops reading


def _cc_args(clang: bool) -> Callable[[str], tuple[str, ...]]:
    def args(language: str) -> tuple[str, ...]:
        dialect = ("-x", "c++", "-std=gnu++20") if language == "cpp" else ("-x", "c", "-std=gnu17")
        plain = (("-fno-caret-diagnostics", "-fdiagnostics-show-category=name", "-fno-color-diagnostics")
                 if clang else ("-fno-diagnostics-show-caret", "-fdiagnostics-color=never"))
        limit = f"-fmax-errors={ERROR_LIMIT}" if not clang else f"-ferror-limit={ERROR_LIMIT}"
        return ("-fsyntax-only", "-w", limit) + plain \
            + dialect + ("{file}",)
    return args


def _cc_file(language: str) -> str:
    return "input.cpp" if language == "cpp" else "input.c"


_FAMILIES: dict[str, _Family] = {
    "gcc": _Family(_cc_args(False), _cc_file, readers.read_cc, "{exe} -fsyntax-only"),
    "clang": _Family(_cc_args(True), _cc_file, readers.read_cc, "{exe} -fsyntax-only"),
    "node": _Family(lambda _: ("--check", "{file}"), lambda _: "input.js", readers.read_node, "{exe} --check"),
    "gofmt": _Family(lambda _: ("-l", "-e", "{file}"), lambda _: "input.go", readers.read_gofmt, "{exe} -e"),
    "rustfmt": _Family(lambda _: ("--check", "--edition", "2021", "{file}"), lambda _: "input.rs",
                       readers.read_rustfmt, "{exe} --check"),
    "shell": _Family(lambda _: ("-n", "{file}"), lambda _: "input.sh", readers.read_shell, "{exe} -n"),
    "ruby": _Family(lambda _: ("-W0", "-c", "{file}"), lambda _: "input.rb", readers.read_ruby, "{exe} -c"),
    "php": _Family(lambda _: ("-n", "-l", "{file}"), lambda _: "input.php", readers.read_php, "{exe} -l"),
    "swiftc": _Family(lambda _: ("-parse", "{file}"), lambda _: "input.swift", readers.read_swift, "{exe} -parse"),
}


def family(executable: str) -> str | None:
    """The kind of tool an executable is, from its name (``gcc-12`` is gcc, ``clang++`` clang)."""
    name = os.path.basename(executable).lower()
    name = re.sub(r"(\.exe)?$", "", name)
    stem = re.sub(r"[-.]?\d+(\.\d+)*$", "", name)  # version suffixes
    if stem in ("gcc", "g++", "cc", "c++") or stem.endswith(("-gcc", "-g++")):
        return "gcc"
    if stem in ("clang", "clang++"):
        return "clang"
    if stem in ("node", "nodejs"):
        return "node"
    if stem in SHELLS:
        return "shell"
    if stem in ("gofmt", "rustfmt", "ruby", "php", "swiftc"):
        return stem
    return None


def parse_commands(value: object) -> dict[str, str]:
    """``"c=clang,bash=off"`` or a mapping -> {language: command or "off"}; ``"off"``
    alone turns every judge off (the key ``*``)."""
    from ..languages import normalize

    if isinstance(value, str):
        text = value.strip()
        if text.lower() in (OFF, "none", "false", "0"):
            return {"*": OFF}
        items: list[tuple[str, str]] = []
        for part in filter(None, (p.strip() for p in text.split(","))):
            if "=" not in part:
                raise ValueError(f"expected LANGUAGE=COMMAND or LANGUAGE=off, got {part!r}")
            key, _, command = part.partition("=")
            items.append((key, command))
    elif isinstance(value, Mapping):
        items = list(value.items())
    else:
        raise ValueError(f"expected a table of language = command, got {value!r}")
    out: dict[str, str] = {}
    for key, command in items:
        if not isinstance(key, str) or not key.strip() or not isinstance(command, str) or not command.strip():
            raise ValueError(f"expected language = command, got {key!r} = {command!r}")
        language = "*" if key.strip() == "*" else normalize(key)
        command = command.strip()
        if command.lower() in (OFF, "none", "false"):
            out[language] = OFF
            continue
        if family(shlex.split(command)[0]) is None:
            raise ValueError(f"{command!r} is not a judge tinycode knows how to read "
                             f"(known: gcc, clang, node, gofmt, rustfmt, bash, sh, ruby, php, swiftc)")
        out[language] = command
    return out


def shell_of(source: str) -> str:
    """The shell a script's ``#!`` line names (bash when none)."""
    match = _SHEBANG.match(source[:200])
    name = match.group(1).lower() if match else "bash"
    return name if name in SHELLS else "bash"


def find_tool(language: str, source: str, commands: Mapping[str, str]) -> Tool | None:
    """The external judge for ``language`` here, or None (none installed, or turned off)."""
    chosen = commands.get(language) or commands.get("*")
    if chosen == OFF:
        return None
    if chosen:
        words = shlex.split(chosen)
        executable, extra = shutil.which(words[0]), tuple(words[1:])
        return _tool(executable, language, extra) if executable else None
    names = DEFAULT_TOOLS.get(language, ())
    if language == "bash":
        shell = shell_of(source)
        if shell in ("zsh", "ksh", "mksh", "busybox"):
            names = (shell,)  # bash -n would reject their own syntax: only their own judge
        elif shell in ("sh", "dash"):
            names = ("sh", "dash")
    for name in names:
        executable = shutil.which(name)
        if executable:
            return _tool(executable, language, ())
    return None


def _tool(executable: str, language: str, extra: tuple[str, ...]) -> Tool | None:
    kind = family(executable)
    if kind is None:
        return None
    spec = _FAMILIES[kind]
    label = spec.label.format(exe=os.path.basename(executable))
    return Tool(label, executable, extra + spec.args(language), spec.filename(language), spec.read)


def in_process_available(language: str) -> bool:
    if language == "yaml":
        try:
            import yaml  # noqa: F401
        except ImportError:
            return False
        return True
    return language == "toml" and toml_parser() is not None
