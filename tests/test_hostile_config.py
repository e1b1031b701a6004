"""A cloned repository's own config cannot send code away, load its own weights or
widen the guard; offline means loopback only; the API key never crosses the network in
clear text. Servers here are real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from test_llm_openai import CHAT_REPLY, Scripted

from tinycode import repair
from tinycode.cli import main
from tinycode.config import ENV_VARS, Settings, find_config, load_settings
from tinycode.errors import ModelError
from tinycode.llm.openai_http import OpenAIHTTPLLM

# Several verified one-token fixes: choosing among them needs the model.
SEVERAL = "def f(values):\n    total = sum(values\n    return total\n"
UNROUTABLE = "http://203.0.113.7:8080/v1"  # TEST-NET-3: never answers


@pytest.fixture(autouse=True)
def no_settings_in_environment(monkeypatch):
    for var in (*ENV_VARS, "TINYCODE_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def project(root: Path, table: str) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[tool.tinycode]\n" + table, encoding="utf-8")
    return root


def user_config(text: str) -> None:
    Path(os.environ["TINYCODE_CONFIG"]).write_text(text, encoding="utf-8")


def test_repository_config_cannot_send_code_to_its_server(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TINYCODE_API_KEY", "secret-key")
    # The user's own model cannot load here: if the repository's backend were ignored
    # silently the run would still fail, so the server's request log is the proof.
    monkeypatch.setenv("TINYCODE_MODEL", str(tmp_path / "missing.gguf"))
    with Scripted((200, CHAT_REPLY)) as server:
        root = project(tmp_path / "repo", f'backend = "openai"\nbase-url = "{server.url}/v1"\n')
        (root / "a.py").write_text(SEVERAL, encoding="utf-8")
        code = main(["fix", str(root / "a.py")])
        assert server.requests == []
    err = capsys.readouterr().err
    assert code == 2 and "missing.gguf" in err
    assert (root / "a.py").read_text(encoding="utf-8") == SEVERAL
    settings = load_settings(None, root)
    assert (settings.backend, settings.base_url) == ("llama_cpp", None)
    assert any("ignored backend" in note for note in settings.notes)
    assert any("ignored base-url" in note and "--trust-project" in note for note in settings.notes)


def test_trusted_project_may_choose_its_server(tmp_path):
    with Scripted((200, CHAT_REPLY)) as server:
        root = project(tmp_path / "repo", f'backend = "openai"\nbase-url = "{server.url}/v1"\n')
        user_config(f'trusted-projects = ["{root}"]\n')
        settings = load_settings(None, root / "a.py")
        assert (settings.backend, settings.base_url, settings.notes) == ("openai", f"{server.url}/v1", ())
        result = repair(SEVERAL, "python", settings=settings)
        assert any(r["path"].endswith("/chat/completions") for r in server.requests)
    assert result.status == "failed"  # the scripted server's answer repairs nothing
    assert load_settings({"trust_project": True}, tmp_path / "repo").backend == "openai"


def test_repository_cannot_load_its_own_weights_or_widen_the_guard(tmp_path):
    root = project(tmp_path / "repo", 'model = "weights/evil.gguf"\nmax-changed-lines = 500\n'
                                      'max-problem-distance = 10000\nmax-file-size = 999999999\n'
                                      'web = "duckduckgo"\nmax-steps = 3\nexclude = ["vendor"]\n'
                                      'max-changed-tokens = 10\n')
    settings = load_settings(None, root)
    defaults = Settings()
    assert settings.model is None and settings.web == "offline"
    assert (settings.max_changed_lines, settings.max_problem_distance, settings.max_file_size) == (
        defaults.max_changed_lines, defaults.max_problem_distance, defaults.max_file_size)
    # What cannot hurt the user still applies: fewer steps, excludes, a tighter guard.
    assert (settings.max_steps, settings.exclude, settings.max_changed_tokens) == (3, ["vendor"], 10)
    assert len(settings.notes) == 5
    # A registry name is hash-checked, so a project may name one.
    assert load_settings(None, project(tmp_path / "other", 'model = "1.5b"\n')).model == "1.5b"


def test_the_user_config_is_the_users(tmp_path):
    user_config('backend = "openai"\nbase-url = "https://llm.example.org/v1"\nmax-changed-lines = 12\n')
    root = project(tmp_path / "repo", "max-changed-lines = 30\n")
    settings = load_settings(None, root)
    assert (settings.backend, settings.base_url, settings.max_changed_lines) == (
        "openai", "https://llm.example.org/v1", 12)
    assert settings.notes and "max-changed-lines" in settings.notes[0]


def test_config_planted_above_the_home_folder_is_not_read(tmp_path, monkeypatch):
    # No .git anywhere: the walk stops at the user's home, not at /.
    (tmp_path / "pyproject.toml").write_text('[tool.tinycode]\nmax-steps = 2\n', encoding="utf-8")
    home = tmp_path / "home" / "me"
    (home / "work").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert find_config(home / "work" / "a.py") is None
    assert load_settings(None, home / "work").max_steps == Settings().max_steps


def test_config_file_of_another_user_is_not_read(tmp_path):
    if os.getuid() != 0:
        pytest.skip("giving a file to another user needs root")
    planted = tmp_path / "pyproject.toml"  # e.g. /tmp/pyproject.toml from another account
    planted.write_text('[tool.tinycode]\nmax-steps = 2\n', encoding="utf-8")
    os.chown(planted, 65534, 65534)
    (tmp_path / "work").mkdir()
    settings = load_settings(None, tmp_path / "work")
    assert settings.max_steps == Settings().max_steps and settings.config_path is None
    assert "owned by another user" in settings.notes[0]
    os.chown(planted, os.getuid(), os.getgid())
    planted.chmod(0o666)
    assert "writable by every user" in load_settings(None, tmp_path / "work").notes[0]


def test_config_in_a_folder_every_user_may_write_is_not_read(tmp_path):
    shared = tmp_path / "shared"
    (shared / "work").mkdir(parents=True)
    (shared / "pyproject.toml").write_text('[tool.tinycode]\nmax-steps = 2\n', encoding="utf-8")
    shared.chmod(0o777)  # anyone could have put it there, or swap it later
    settings = load_settings(None, shared / "work")
    assert settings.max_steps == Settings().max_steps and "in a folder every user may write" in settings.notes[0]
    shared.chmod(0o1777)  # sticky, as /tmp: only its owner may replace it
    assert load_settings(None, shared / "work").max_steps == 2


def test_offline_refuses_a_server_on_another_machine_before_connecting():
    started = time.monotonic()
    with pytest.raises(ModelError, match="offline mode allows only servers on this machine"):
        OpenAIHTTPLLM(UNROUTABLE, offline=True)
    assert time.monotonic() - started < 1.0  # refused, not timed out
    with Scripted((200, CHAT_REPLY)) as server:  # loopback stays allowed
        llm = OpenAIHTTPLLM(server.url, model="m", offline=True)
        assert llm.complete([{"role": "user", "content": "hi"}]).text == "fixed"


def test_offline_flag_reaches_the_openai_backend(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TINYCODE_OFFLINE", "1")
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text(SEVERAL, encoding="utf-8")
    code = main(["fix", "--backend", "openai", "--base-url", UNROUTABLE, str(tmp_path / "a.py")])
    assert code == 2 and "offline mode allows only servers on this machine" in capsys.readouterr().err


def test_api_key_never_crosses_the_network_in_clear_text(monkeypatch):
    monkeypatch.setenv("TINYCODE_API_KEY", "secret-key")
    with pytest.raises(ModelError, match="clear text"):
        OpenAIHTTPLLM(UNROUTABLE)
    OpenAIHTTPLLM("https://llm.example.org/v1")  # https: allowed (nothing is sent yet)
    with Scripted((200, CHAT_REPLY)) as server:  # plain http to this machine: allowed
        OpenAIHTTPLLM(server.url, model="m").complete("x")
        assert server.requests[0]["auth"] == "Bearer secret-key"


def test_a_proxy_in_the_environment_never_carries_a_request_to_this_machine(monkeypatch):
    """With HTTP_PROXY set, requests to a loopback server (offline or not, key or not)
    go to it directly: a proxy would carry the code and the key off the machine."""
    monkeypatch.setenv("TINYCODE_API_KEY", "secret-key")
    with Scripted((200, CHAT_REPLY)) as proxy, Scripted((200, CHAT_REPLY)) as server:
        for var in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.setenv(var, proxy.url)
        for var in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(var, raising=False)
        OpenAIHTTPLLM(server.url, model="m", offline=True).complete("x")
        assert proxy.requests == [] and server.requests[0]["auth"] == "Bearer secret-key"


def test_offline_in_the_environment_reaches_library_callers(monkeypatch):
    monkeypatch.setenv("TINYCODE_OFFLINE", "1")
    with pytest.raises(ModelError, match="offline mode allows only servers on this machine"):
        OpenAIHTTPLLM(UNROUTABLE)


def test_server_redirect_is_not_followed(monkeypatch):
    monkeypatch.setenv("TINYCODE_API_KEY", "secret-key")
    with Scripted((200, CHAT_REPLY)) as elsewhere:
        with Scripted((307, "", 0, {"Location": elsewhere.url + "/v1/completions"})) as server:
            with pytest.raises(ModelError, match="redirected"):
                OpenAIHTTPLLM(server.url, model="m", backoff=0.01).complete("x")
        assert elsewhere.requests == []


def test_cli_says_what_it_ignored_and_trust_project_lifts_it(tmp_path, capsys):
    root = project(tmp_path / "repo", "max-changed-lines = 50\n")
    (root / "a.py").write_text("x = 1\n", encoding="utf-8")
    assert main(["check", str(root / "a.py")]) == 0
    err = capsys.readouterr().err
    assert "tinycode: note:" in err and "ignored max-changed-lines = 50" in err
    assert main(["check", "--trust-project", str(root / "a.py")]) == 0
    assert "note" not in capsys.readouterr().err
