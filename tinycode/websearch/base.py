"""What every search backend returns and how it fails."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TinycodeError

TRANSIENT = "transient"
UNAVAILABLE = "unavailable"
INVALID_INPUT = "invalid_input"
ERROR_CLASSES = (TRANSIENT, UNAVAILABLE, INVALID_INPUT)
CONTINUE = "continue without search"


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str

    def to_dict(self) -> dict[str, str]:
        return {"title": self.title, "url": self.url, "snippet": self.snippet}

    @classmethod
    def from_dict(cls, data: dict) -> SearchResult:
        return cls(str(data["title"]), str(data["url"]), str(data.get("snippet", "")))


class SearchError(TinycodeError):
    """A search that could not be done: ``error_class`` is "transient" (try again later),
    "unavailable" (not possible here) or "invalid_input" (the query or backend is wrong)."""

    def __init__(self, error_class: str, detail: str, hint: str = CONTINUE) -> None:
        if error_class not in ERROR_CLASSES:
            raise ValueError(f"unknown search error class {error_class!r}")
        super().__init__(f"{error_class}: {detail}")
        self.error_class, self.detail, self.hint = error_class, detail, hint
