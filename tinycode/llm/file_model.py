"""The run's model as each file of a command sees it: failures noted per file."""

from __future__ import annotations

from typing import Any, Callable

from ..errors import ModelError, ModelUnavailable
from .base import IN_PROCESS_SCORING, LLM


class FileModel:
    """The run's model as each file sees it. It notes the first model failure of the
    current file (``failure``, reset per file), and once the model could not be loaded
    at all, later files fail at once instead of loading it again. Models of worker
    threads pass one ``shared`` dict, so that holds for all of them."""

    def __init__(self, llm: LLM, shared: dict[str, str | None] | None = None) -> None:
        self._llm = llm
        self.failure: str | None = None
        self._shared: dict[str, str | None] = shared if shared is not None else {"unavailable": None}

    @property
    def unavailable(self) -> str | None:
        return self._shared["unavailable"]

    @unavailable.setter
    def unavailable(self, reason: str | None) -> None:
        self._shared["unavailable"] = reason

    @property
    def name(self) -> str:
        return self._call(lambda: self._llm.name)

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(lambda: self._llm.complete(*args, **kwargs))

    def count_tokens(self, text: str) -> int:
        return self._call(lambda: self._llm.count_tokens(text))

    def score(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(lambda: self._llm.score(*args, **kwargs))

    @property
    def scoring(self) -> str:
        return self._call(lambda: getattr(self._llm, "scoring", IN_PROCESS_SCORING))

    def close(self) -> None:
        self._llm.close()

    def _call(self, call: Callable[[], Any]) -> Any:
        if self.unavailable is not None:
            raise ModelUnavailable(self.unavailable)
        try:
            return call()
        except ModelUnavailable as exc:
            self.unavailable = str(exc)
            self.failure = self.failure or str(exc)
            raise
        except ModelError as exc:
            self.failure = self.failure or str(exc)
            raise
