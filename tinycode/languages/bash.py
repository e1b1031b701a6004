"""Shell scripts: the shell their "#!" line names judges them (bash -n, sh -n, ...)."""

from __future__ import annotations

from .base import LanguageSpec, interpreter, wheel

# The shells a script may name; each reads its own syntax only.
SHELLS = ("bash", "sh", "dash", "zsh", "ksh", "mksh", "busybox")


def shell_of(source: str) -> str:
    """The shell a script's ``#!`` line names (bash when none)."""
    name = interpreter(source[:200].split("\n", 1)[0]) or "bash"
    return name if name in SHELLS else "bash"


def judges_for(source: str) -> tuple[str, ...]:
    shell = shell_of(source)
    if shell in ("zsh", "ksh", "mksh", "busybox"):
        return (shell,)  # bash -n would reject their own syntax: only their own judge
    if shell in ("sh", "dash"):
        return ("sh", "dash")
    return ("bash",)


LANGUAGE = LanguageSpec(
    "bash", wheel("tree_sitter_bash"), (".sh", ".bash", ".zsh", ".ksh"),
    filenames=(".bashrc", ".zshrc", ".profile"), aliases=("sh", "shell", "zsh"),
    interpreters=("bash", "sh", "zsh", "ksh", "dash"),
    words=("bash", "sh", "shell", "zsh"), judges=("bash",), judges_for=judges_for, judge_cost=1,
    edit_family="shell", grammar_loses_place=True,
)
