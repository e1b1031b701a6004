"""Shell scripts: the shell their "#!" line names judges them (bash -n, sh -n, ...)."""

from __future__ import annotations

import re
from dataclasses import dataclass

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


# --- the script's blocks, as its keywords open and close them ------------------------

CLOSER = {"if": "fi", "loop": "done", "case": "esac", "{": "}"}  # each kind of block's closing word
# A keyword at a command's start: the line's start, or after ; & | ( ) (a case item's
# pattern) or another keyword.
KEYWORD = re.compile(r"(?:^|(?<=[;&|()])|(?<=\bthen\s)|(?<=\bdo\s)|(?<=\belse\s))\s*"
                     r"(if|then|elif|else|fi|case|esac|for|while|until|select|do|done|\{|\})(?=\s|;|$)")


@dataclass(frozen=True)
class Block:
    kind: str  # "if", "loop", "case", "{"
    line: int  # 1-based: where it opens, or for a closer that closes nothing, where that stands
    indent: int


def code_of(text: str) -> str:
    """The line without a trailing comment, its strings' contents blanked out (the
    columns stay those of the line)."""
    text = re.sub(r"'[^']*'|\"(?:\\.|[^\"\\])*\"", lambda m: m.group()[0] + "_" * (len(m.group()) - 2)
                  + m.group()[0], text)
    return re.sub(r"(^|\s)#.*$", "", text).rstrip()


def unclosed(lines: list[str]) -> list[Block]:
    """Blocks whose closer never came: popped by a mismatched closer, or left at the end."""
    return blocks(lines)[0]


def blocks(lines: list[str]) -> tuple[list[Block], list[Block]]:
    """The blocks whose closer never came, and the closers that close nothing (each as
    the block it would close: kind, line, indentation)."""
    stack: list[Block] = []
    lost: list[Block] = []
    stray: list[Block] = []
    heredoc: str | None = None
    for n, text in enumerate(lines, 1):
        if heredoc is not None:
            if text.strip() == heredoc:
                heredoc = None
            continue
        code = code_of(text)
        marker = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", text.split(" #")[0])
        indent = len(text.expandtabs(8)) - len(text.expandtabs(8).lstrip())
        for match in KEYWORD.finditer(code):
            word = match.group(1)
            kind = {"if": "if", "case": "case", "{": "{", "for": "loop", "while": "loop",
                    "until": "loop", "select": "loop"}.get(word)
            if kind:
                stack.append(Block(kind, n, indent))
                continue
            want = {"fi": "if", "done": "loop", "esac": "case", "}": "{"}.get(word)
            if want is None:
                continue
            # A closer pops its opener; an opener it skips over was never closed.
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth].kind == want:
                    lost.extend(reversed(stack[depth + 1:]))
                    del stack[depth:]
                    break
            else:
                stray.append(Block(want, n, indent))
        if code.endswith("{") and not any(m.group(1) == "{" for m in KEYWORD.finditer(code)):
            stack.append(Block("{", n, indent))  # "name() {" opens a function body
        if marker:
            heredoc = marker.group(1)
    return lost + list(reversed(stack)), stray


# What a shell says where the file ends inside a block: "unexpected end of file"
# (bash), "end of file unexpected" (dash).
_AT_THE_END = re.compile(r"unexpected end of file|end of file unexpected")


def begins_above(lines: list[str], line_no: int, column: int, message: str) -> int | None:
    """For the shell's complaint that the file ended inside a block: the line where the
    first block left unclosed above it opened. Its closer was lost or broken anywhere
    from there on (a ``fi`` misspelt, or typed onto the block's last line)."""
    if _AT_THE_END.search(message) is None:
        return None
    opened = [block.line for block in unclosed(lines[:line_no])]
    return min(opened) if opened else None


LANGUAGE = LanguageSpec(
    "bash", wheel("tree_sitter_bash"), (".sh", ".bash", ".zsh", ".ksh"),
    filenames=(".bashrc", ".zshrc", ".profile"), aliases=("sh", "shell", "zsh"),
    interpreters=("bash", "sh", "zsh", "ksh", "dash"),
    words=("bash", "sh", "shell", "zsh"), judges=("bash",), judges_for=judges_for, judge_cost=1,
    edit_family="shell", grammar_loses_place=True, begins_above=begins_above, heredoc_operator="<<",
    heredoc_marks=("<<",),
)
