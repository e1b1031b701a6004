"""The judge commands a user may name for a language (the ``judges`` setting):
``"c=clang,bash=off"``, and which kinds of tool tinycode knows how to read.

The settings table validates the setting with ``parse_commands``; ``judges/registry.py``
knows how each kind of tool is called and read.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Mapping

from . import normalize
from .bash import SHELLS

OFF = "off"


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
    if stem in ("gofmt", "rustfmt", "ruby", "php", "swiftc", "javac", "tsc", "postcss", "html-validate"):
        return stem
    return None


def parse_commands(value: object) -> dict[str, str]:
    """``"c=clang,bash=off"`` or a mapping -> {language: command or "off"}; ``"off"``
    alone turns every judge off (the key ``*``)."""
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
                             f"(known: gcc, clang, node, gofmt, rustfmt, bash, sh, ruby, php, swiftc, javac, tsc, postcss, "
                             f"html-validate)")
        out[language] = command
    return out
