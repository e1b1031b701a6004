"""``python -m tinycode.llm.server [llama_cpp.server options]``: llama-cpp-python's
OpenAI-compatible server, with the model loaded safely on every CPU.

The same options as ``python -m llama_cpp.server`` (``--model``, ``--host``, ``--port``,
``--n_ctx``, ``--logits_all``...). Two differences: llama.cpp's extra buffer types
are off (they crash at the first decode on CPUs with AMX: ``native.py``) unless
``--extra-buffers`` or ``TINYCODE_EXTRA_BUFFERS=1`` turns them on; and it answers
``POST /tinycode/score`` (SCORE_PATH), ranking candidates with the scorer tinycode uses
in process, on the served model's weights, so that its clients rank as the model in
process does, at its speed.
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
    _add_scoring()
    sys.argv = ["python -m tinycode.llm.server"] + [a for a in args if a != EXTRA_BUFFERS_FLAG]
    serve()


def _add_scoring() -> None:
    """``POST SCORE_PATH`` on llama_cpp.server's routes, behind its API key and its lock
    on the model: ``{"prompt": str, "continuations": [str, ...], "model": name}`` ->
    ``{"scores": [float, ...]}``, each the sum of its continuation's log-probabilities."""
    from fastapi import Body, Depends, HTTPException
    from llama_cpp.server import app as served

    from ..errors import ModelError
    from .llama_cpp import Scorer
    from .openai_http import MAX_SCORED_CONTINUATIONS, SCORE_PATH

    scorers: list[Scorer] = []  # one, for the model served last

    @served.router.post(SCORE_PATH, dependencies=[Depends(served.authenticate)], include_in_schema=False)
    def score(body: dict = Body(...), llama_proxy=Depends(served.get_llama_proxy)) -> dict:  # noqa: B008
        prompt, continuations = body.get("prompt"), body.get("continuations")
        if not isinstance(prompt, str) or not isinstance(continuations, list) or not continuations \
                or len(continuations) > MAX_SCORED_CONTINUATIONS \
                or not all(isinstance(c, str) for c in continuations):
            raise HTTPException(400, f"prompt: a string; continuations: 1 to {MAX_SCORED_CONTINUATIONS} strings")
        llama = llama_proxy(body.get("model"))
        if not scorers or scorers[0].model is not llama:
            while scorers:
                scorers.pop().close()
            scorers.append(Scorer(llama, llama.n_ctx()))
        try:
            return {"scores": scorers[0].score_texts(prompt, continuations)}
        except ModelError as exc:
            raise HTTPException(400, str(exc)) from None


if __name__ == "__main__":
    main()
