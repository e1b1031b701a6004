"""Where tinycode keeps its files: ``$TINYCODE_HOME/<name>``, else the user cache
directory (``$XDG_CACHE_HOME/tinycode/<name>`` or ``~/.cache/tinycode/<name>``)."""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    """The tinycode home: ``$TINYCODE_HOME``, else ``<user cache>/tinycode``."""
    if os.environ.get("TINYCODE_HOME"):
        return Path(os.environ["TINYCODE_HOME"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tinycode"


def user_cache(name: str) -> Path:
    return home() / name
