"""Text for people: the one place that makes file contents and names safe to print.

Source lines, file names and model output reach the terminal; an ESC, a C1 control
or a bidirectional override in them could retitle the terminal, clear the screen or
reorder what is shown. Human output passes through :func:`printable`; JSON and the
repaired source itself are data and stay exact.
"""

from __future__ import annotations

import json
import re
import sys

# C0 and C1 controls and DEL, except tab and newline; a CR only when it does not end a
# CRLF line. Then the Unicode bidi embeddings, overrides and isolates (Trojan Source).
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)|[\u202a-\u202e\u2066-\u2069]")

# Characters JSON may carry raw that a terminal could still act on (C1, bidi, line
# separators); they only ever occur inside JSON strings, where an escape is the same value.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``, ``\\u202e``)."""
    return _UNSAFE.sub(_escape, text)


def say(text: str) -> None:
    """One message for people on stderr, control characters escaped (above the
    progress bar, when one is shown)."""
    from tqdm import tqdm  # only the commands that say something while a bar may show

    tqdm.write(printable(text), file=sys.stderr)
    sys.stderr.flush()


def json_text(value: object) -> str:
    """``value`` as indented JSON, non-ASCII kept readable; every control character
    escaped, so printing it is safe and parsing it gives back exactly ``value``."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
