"""Shared fixtures. Tests never touch the real home directory or cache."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Iterator

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
    from tinycode.config import ENV_VARS

    for name in ENV_VARS:  # the developer's own settings do not reach the tests
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
def fresh_workers(monkeypatch):
    """Warm judge processes started by this test alone, and stopped after it."""
    from tinycode.judges import warm

    warm.stop_all()
    monkeypatch.setattr(warm, "_slots", {})
    yield
    warm.stop_all()


@pytest.fixture
def model(monkeypatch):
    """Every model load returns the scripted fake in ``model["llm"]``; loads are counted."""
    import tinycode.llm.loader as loader

    from fake_llm import FakeLLM
    from scripted import AGENT_FIX

    state = {"llm": FakeLLM(default=AGENT_FIX, scorer=lambda prompt, text: -len(text)), "loads": 0}

    def load(*args, **kwargs):
        state["loads"] += 1
        return state["llm"]

    monkeypatch.setattr(loader, "load_llm", load)
    # It stands in for a model the agent pays with (the default model's registry entry
    # turns the agent off; the tests of that say so themselves).
    monkeypatch.setenv("TINYCODE_AGENT", "open")
    return state


# --- the real default model (tests marked ``model``) -------------------------------------------

@pytest.fixture(scope="session")
def model_path(tmp_path_factory):
    """The default model's verified file: from TINYCODE_MODEL_CACHE when the developer or
    CI set it, else assembled once per session into a temporary cache. The variable is
    set for the session through a MonkeyPatch, so nothing is left in ``os.environ``."""
    from tinycode.models import resolve_model_path

    with pytest.MonkeyPatch.context() as patch:
        if not os.environ.get("TINYCODE_MODEL_CACHE"):
            patch.setenv("TINYCODE_MODEL_CACHE", str(tmp_path_factory.mktemp("models")))
        yield resolve_model_path(None, offline=True)


@pytest.fixture(scope="session")
def real_llm(model_path):
    """The default model in process, loaded once and shared (``load_llm`` caches it too):
    tests must not close it."""
    from tinycode.llm import load_llm

    return load_llm(str(model_path))


def _serving(name: str, command: list[str], ready: str) -> Iterator[str]:
    """Run a model server on a free loopback port (``command`` takes it as ``{port}``)
    until it answers 200 at ``ready``; yield its URL, and stop it afterwards."""
    import requests

    from scripted import free_port

    port = free_port()
    process = subprocess.Popen([part.replace("{port}", str(port)) for part in command],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"{name} exited with {process.returncode}")
            try:
                if requests.get(url + ready, timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"{name} did not become ready in 120 s")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def model_server(model_path):
    """llama-cpp-python's OpenAI-compatible server with the default model on 127.0.0.1,
    named ``tinycode-test``, echoing prompt log-probabilities (for ranking): its URL.
    Started through tinycode's launcher, which loads the model safely on CPUs with AMX."""
    pytest.importorskip("llama_cpp.server")
    yield from _serving("llama_cpp.server", [
        sys.executable, "-m", "tinycode.llm.server", "--model", str(model_path),
        "--model_alias", "tinycode-test", "--host", "127.0.0.1", "--port", "{port}",
        "--n_ctx", "2048", "--n_threads", "2", "--logits_all", "true"], "/v1/models")


@pytest.fixture(scope="module")
def llama_server(model_path):
    """llama.cpp's own ``llama-server`` (the binary ``TINYCODE_LLAMA_SERVER`` names; the
    tests skip without it) with the default model on 127.0.0.1, two slots, llama.cpp's
    extra buffer types off (``--no-repack``: they crash on CPUs with AMX): its URL."""
    binary = os.environ.get("TINYCODE_LLAMA_SERVER")
    if not binary:
        pytest.skip("TINYCODE_LLAMA_SERVER does not name a llama-server binary")
    yield from _serving("llama-server", [
        binary, "--model", str(model_path), "--alias", "tinycode-test", "--host", "127.0.0.1",
        "--port", "{port}", "--ctx-size", "4096", "--parallel", "2", "--threads", "2",
        "--no-repack"], "/health")
