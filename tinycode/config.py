"""Settings for ``tinycode fix`` and friends: defaults < [tool.tinycode] < env < CLI flags.

(Loading from pyproject.toml and the environment is being built; the ``Settings``
fields below are the contract the commands rely on.)
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Settings:
    model: str | None = None          # registry name/alias or a path to a .gguf; None = default
    backend: str = "llama_cpp"        # "llama_cpp" | "openai"
    base_url: str | None = None       # for the openai backend
    max_steps: int = 8
    timeout: float = 60.0             # wall-time budget per file, seconds
    gpu_layers: int = 0               # -1 = all layers on the GPU
    web: str = "offline"              # "offline" | "duckduckgo" | "searxng"
    offline: bool = False             # TINYCODE_OFFLINE=1: no network at all
    include_languages: list[str] = field(default_factory=list)  # empty = all
    exclude_languages: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)  # glob patterns of files to skip


def load_settings(overrides: dict[str, object] | None = None, start: str = ".") -> Settings:
    """Settings for files under ``start``: defaults, then the environment, then
    ``overrides`` (CLI flags; ``None`` values mean "not given")."""
    import os

    settings = Settings()
    if os.environ.get("TINYCODE_MODEL"):
        settings.model = os.environ["TINYCODE_MODEL"]
    if os.environ.get("TINYCODE_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        settings.offline = True
    for key, value in (overrides or {}).items():
        if value is not None:
            setattr(settings, key, value)
    return settings
