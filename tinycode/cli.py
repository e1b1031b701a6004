"""Command line: ``tinycode check|fix|models|doctor|lsp``. Thin: parsing, dispatch, exit codes.

Each command lives in ``tinycode/commands/<name>.py`` with ``add_arguments(parser)``
and ``run(args) -> int``; a command's module is imported only when it runs, so
``tinycode check`` never pays for model code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn, Sequence

from .version import __version__
from .commands.display import printable
from .errors import TinycodeError

EXIT_OK, EXIT_PROBLEMS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130

# name -> one-line help. Order is the order shown in --help.
COMMANDS: dict[str, str] = {
    "check": "report syntax problems (fast; never loads a model)",
    "fix": "repair syntax problems with a local model",
    "models": "list, fetch and verify models",
    "doctor": "show the CPU, the llama.cpp build and the model settings (for bug reports)",
    "lsp": "run the language server on stdin/stdout, for editors (needs the lsp extra)",
}


class _Parser(argparse.ArgumentParser):
    """argparse, with the arguments it quotes in errors (file names) made safe to print."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, printable(f"{self.prog}: error: {message}") + "\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tinycode",
        description="Repair syntax errors in source files with a small local language model.")
    parser.add_argument("--version", action="version", version=f"tinycode {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, help_text in COMMANDS.items():
        module = importlib.import_module(f"tinycode.commands.{name}")
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command_parser)
        command_parser.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tinycode`` script; returns the process exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code or 0)
    try:
        return int(args.run(args))
    except TinycodeError as exc:
        print(printable(f"tinycode: error: {exc}"), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("tinycode: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_ERROR
