"""``python -m tinycode.llm.server [llama_cpp.server options]``: llama-cpp-python's
OpenAI-compatible server, with the model loaded safely on every CPU.

The same options as ``python -m llama_cpp.server`` (``--model``, ``--host``, ``--port``,
``--n_ctx``, ``--logits_all``...). The one difference: llama.cpp's extra buffer types
are off (they crash at the first decode on CPUs with AMX: ``native.py``) unless
``--extra-buffers`` or ``TINYCODE_EXTRA_BUFFERS=1`` turns them on.
"""

from __future__ import annotations

import sys
from typing import Sequence

EXTRA_BUFFERS_FLAG = "--extra-buffers"


def main(argv: Sequence[str] | None = None) -> None:
    from ..config import load_settings
    from ..errors import ConfigError

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        from llama_cpp.server.__main__ import main as serve
    except ImportError:
        sys.exit('tinycode: error: the model server needs llama-cpp-python\'s extra: pip install "tinycode[server]"')
    from .native import install

    try:  # the flag, else the setting (TINYCODE_EXTRA_BUFFERS, the user's config)
        settings = load_settings({"extra_buffers": True if EXTRA_BUFFERS_FLAG in args else None})
    except ConfigError as exc:
        sys.exit(f"tinycode: error: {exc}")
    install(settings.extra_buffers)
    sys.argv = ["python -m tinycode.llm.server"] + [a for a in args if a != EXTRA_BUFFERS_FLAG]
    serve()


if __name__ == "__main__":
    main()
