"""Shared fixtures. Tests never touch the real home directory or cache."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def tinycode_home(tmp_path_factory, monkeypatch):
    """Point TINYCODE_HOME (and the user config) at a fresh temporary folder for every test.

    The model cache is the exception: tests marked ``model`` need the real weights,
    so TINYCODE_MODEL_CACHE (if the developer or CI set it) is left alone.
    """
    home = tmp_path_factory.mktemp("tinycode-home")
    monkeypatch.setenv("TINYCODE_HOME", str(home))
    monkeypatch.setenv("TINYCODE_CONFIG", str(home / "config.toml"))  # the user config: none
    for name in ("TINYCODE_MODEL", "TINYCODE_OFFLINE", "TINYCODE_SEARXNG_URL", "TINYCODE_WEB",
                 "TINYCODE_JUDGES", "TINYCODE_JUDGE_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def fresh_judges():
    """Every test starts with the judges found on PATH and an empty verdict cache."""
    from tinycode import judges

    judges.configure()
    yield
    judges.configure()


@pytest.fixture
def tree_sitter_only():
    """For tests of tree-sitter's own reporting: no native judge speaks."""
    from tinycode import judges

    judges.configure({"*": "off"})


@pytest.fixture
def model(monkeypatch):
    """Every model load returns the scripted fake in ``model["llm"]``; loads are counted."""
    import tinycode.llm.loader as loader
    from tinycode.llm.fake import FakeLLM

    from scripted import AGENT_FIX

    state = {"llm": FakeLLM(default=AGENT_FIX, scorer=lambda prompt, text: -len(text)), "loads": 0}

    def load(*args, **kwargs):
        state["loads"] += 1
        return state["llm"]

    monkeypatch.setattr(loader, "load_llm", load)
    return state
