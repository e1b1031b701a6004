"""What a native judge says about a text, and how its external tool is run.

A judge is a language's own tool (a compiler's syntax-only mode, an interpreter's
``-n``/``-c``/``--check``, a formatter's parser, or a Python library). Its verdict is a
list of diagnostics, each marked as a syntax problem or not: a compiler also reports
missing headers and unknown names, and those are not what tinycode repairs.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Callable, Sequence


@dataclass(frozen=True)
class Diagnostic:
    """One message of a judge. Lines and columns are 1-based; column 0: the tool names
    only the line (bash -n, ruby -c, php -l)."""

    line: int
    column: int
    message: str
    syntax: bool = True  # False: a header, a name, a type: not a syntax problem
    # A syntax message the parser does not corroborate in a file whose types are
    # unknown (``unresolved.py``): not a problem, unless a repair brings it.
    doubtful: bool = False


@dataclass(frozen=True)
class Verdict:
    """Everything one judge said about one text."""

    judge: str  # the tool that spoke: "gcc", "node", "bash -n", "PyYAML", ...
    diagnostics: tuple[Diagnostic, ...] = ()
    note: str = ""  # what the judge could not check ("types unknown: checked by the parser only")

    @property
    def syntax(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.syntax)

    @property
    def other(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if not d.syntax)


@dataclass(frozen=True)
class Output:
    """A finished run of a tool."""

    returncode: int
    stdout: str
    stderr: str


class ToolTimeout(Exception):
    """The tool did not finish within the judge timeout."""


# Runs a tool on a text: (argv with "{file}" for the input's path, the text, the file
# name to give it) -> Output. Tests may pass their own; the default is ``run_tool``.
Runner = Callable[[Sequence[str], str, str, float], Output]


def tool_env(**extra: str) -> dict[str, str]:
    """The environment a tool runs in: this one, in the C locale, so that its messages
    are the English the readers parse (and ``extra``)."""
    return dict(os.environ, LC_ALL="C", LANG="C", LANGUAGE="C", **extra)


def run_tool(argv: Sequence[str], text: str, filename: str, timeout: float) -> Output:
    """Run ``argv`` on ``text`` written to a private temporary file named ``filename``.

    No shell, no stdin, a timeout, and the temporary folder as the working directory:
    a tool that reads configuration from its working directory (rustfmt.toml, php.ini,
    .bashrc-like files) never sees the repository's.
    """
    with tempfile.TemporaryDirectory(prefix="tinycode-judge-") as folder:
        path = os.path.join(folder, filename)
        with open(path, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
            handle.write(text)
        command = [path if part == "{file}" else part for part in argv]
        env = tool_env(NO_COLOR="1")
        try:
            done = subprocess.run(command, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise ToolTimeout(f"{argv[0]} took longer than {timeout:g} s") from None
        out = done.stdout.decode("utf-8", "replace").replace(path, filename)
        err = done.stderr.decode("utf-8", "replace").replace(path, filename)
        return Output(done.returncode, out, err)


@dataclass(frozen=True)
class Tool:
    """An external judge: how to call it and how to read what it prints."""

    name: str  # shown to people: "gcc", "bash -n"
    executable: str  # resolved path
    args: tuple[str, ...]  # arguments after the executable; "{file}" is the input
    filename: str  # the temporary input's name (its extension can matter: .mjs)
    read: Callable[[Output, str, str], list[Diagnostic]]  # (output, filename, text) -> diagnostics

    @property
    def argv(self) -> tuple[str, ...]:
        return (self.executable,) + self.args
