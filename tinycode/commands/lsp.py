"""``tinycode lsp``: the language server over stdio, for editors (``tinycode/lsp/``).

It takes the settings ``fix`` takes (the model, the backend and its server, --offline,
the guard limits); each file also gets the configuration nearest to it, with the same
trust rules. Logs go to stderr, which editors show in their language-server log.
"""

from __future__ import annotations

import argparse
import logging
import sys

from ..errors import UsageError
from .inputs import add_setting_arguments, add_trust_argument, setting_overrides


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdio", action="store_true",
                        help="talk over stdin and stdout (the default and only transport; "
                             "accepted because editors pass it)")
    add_trust_argument(parser)
    add_setting_arguments(parser, "fix")  # --model, --backend, --base-url, --offline, ...
    parser.add_argument("--log-level", choices=("error", "warning", "info", "debug"), default="info",
                        help="what the server logs on stderr (default: info)")


def run(args: argparse.Namespace) -> int:
    try:
        from ..lsp.server import serve
    except ImportError as exc:
        raise UsageError(f"tinycode lsp needs the lsp extra: pip install 'tinycode[lsp]' ({exc})") from None
    logging.basicConfig(stream=sys.stderr, format="tinycode lsp: %(levelname)s: %(message)s")
    logging.getLogger("tinycode").setLevel(args.log_level.upper())
    # pygls logs every message it sends at INFO: a whole buffer per change.
    logging.getLogger("pygls").setLevel(logging.DEBUG if args.log_level == "debug" else logging.WARNING)
    serve(setting_overrides(args, "fix"))
    return 0
