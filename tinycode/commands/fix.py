"""`tinycode fix` (being built)."""

from __future__ import annotations

import argparse

from ..errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rest", nargs="*")


def run(args: argparse.Namespace) -> int:
    raise UsageError("'fix' is not available in this build")
