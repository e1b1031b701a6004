"""The one table of settings: the README, the flags, the environment and the trust
rule all come from ``SETTINGS`` in ``tinycode/config.py``."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from tinycode import config
from tinycode.cli import build_parser
from tinycode.commands.inputs import setting_overrides
from tinycode.config import (ENV_VARS, RESTRICTED, SETTINGS, Settings, flag_settings, from_environment,
                             load_settings)
from tinycode.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def test_readme_holds_exactly_the_table_the_tool_prints():
    printed = subprocess.run([sys.executable, str(ROOT / "tools" / "settings_table.py")],
                             capture_output=True, text=True, check=True, cwd=ROOT).stdout
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    begin, end = printed.splitlines()[0], printed.splitlines()[-1]
    assert readme.count(begin) == 1 and readme.count(end) == 1
    block = readme[readme.index(begin):readme.index(end) + len(end)] + "\n"
    assert block == printed, "README.md is out of date: run python tools/settings_table.py --write"
    for entry in SETTINGS:
        assert (entry.env or entry.key) in printed


def test_settings_fields_are_the_table_entries_a_config_file_may_hold():
    names = [f.name for f in dataclasses.fields(Settings)]
    assert names == [s.name for s in SETTINGS if s.in_config] + ["config_path", "notes"]
    defaults = Settings()
    for entry in SETTINGS:
        if entry.in_config:
            assert getattr(defaults, entry.name) == entry.default
    assert Settings().exclude is not Settings().exclude  # lists are not shared between instances


def test_names_are_spelled_once():
    from tinycode import websearch

    assert websearch.BACKENDS is config.WEB_BACKENDS
    assert len(ENV_VARS) == len([s for s in SETTINGS if s.env])  # no variable twice
    assert len({s.name for s in SETTINGS}) == len(SETTINGS)
    assert set(RESTRICTED) == {s.name for s in SETTINGS if s.trust is not None}


@pytest.mark.parametrize("command", ["fix", "check"])
def test_each_flag_of_the_table_sets_its_setting(command, tmp_path):
    (tmp_path / ".git").mkdir()
    parser = build_parser()
    for entry in flag_settings(command):
        if entry.type is bool:
            argv = [command, entry.flag]
        elif entry.values.options:
            argv = [command, entry.flag, entry.values.options[-1]]
        elif entry.type is dict:
            argv = [command, entry.flag, "c=off"]
        elif entry.type in (int, float):
            argv = [command, entry.flag, "3"]
        else:
            argv = [command, entry.flag, "https://example.org"]
        args = parser.parse_args(argv)
        settings = load_settings(setting_overrides(args, command), tmp_path)
        assert getattr(settings, entry.name) != entry.default, entry.flag
    unset = parser.parse_args([command])
    assert load_settings(setting_overrides(unset, command), tmp_path) == Settings()


def test_check_size_flag_is_max_check_size():
    args = build_parser().parse_args(["check", "--max-file-size", "3K"])
    assert args.max_check_size == 3 * 1024
    args = build_parser().parse_args(["fix", "--max-file-size", "3K"])
    assert args.max_file_size == 3 * 1024


def test_environment_only_settings_are_read_through_the_table():
    assert from_environment("searxng_url", {}) is None
    assert from_environment("duckduckgo_url", {"TINYCODE_DUCKDUCKGO_URL": " "}) == \
        config.setting("duckduckgo_url").default
    assert from_environment("search_cache_ttl", {"TINYCODE_SEARCH_CACHE_TTL": "0"}) == 0.0
    assert from_environment("hf_endpoint", {"TINYCODE_HF_ENDPOINT": "http://127.0.0.1:9/"}) == "http://127.0.0.1:9"
    with pytest.raises(ConfigError, match="TINYCODE_SEARXNG_URL: expected an http"):
        from_environment("searxng_url", {"TINYCODE_SEARXNG_URL": "searx.local"})
    assert from_environment("search_cache_ttl", {"TINYCODE_SEARCH_CACHE_TTL": "soon"}, strict=False) == \
        config.setting("search_cache_ttl").default
    # Not keys of a config file: only their variables set them.
    with pytest.raises(ConfigError, match="unknown key"):
        config.load_settings({"searxng_url": "http://127.0.0.1:9"})


def test_offline_and_judges_from_the_environment_read_as_load_settings_reads_them(monkeypatch):
    from tinycode import judges
    from tinycode.network import is_offline

    for text, expected in (("yes", True), ("on", True), ("0", False), ("maybe", False)):
        monkeypatch.setenv("TINYCODE_OFFLINE", text)
        assert is_offline() is expected
    monkeypatch.setenv("TINYCODE_JUDGES", "c=clang,bash=off")
    monkeypatch.setenv("TINYCODE_JUDGE_TIMEOUT", "2.5")
    judges.configure()
    try:
        assert judges._commands() == {"c": "clang", "bash": "off"}
        assert judges._timeout() == 2.5
        monkeypatch.setenv("TINYCODE_JUDGE_TIMEOUT", "never")  # load_settings reports it; checks go on
        assert judges._timeout() == config.setting("judge_timeout").default
    finally:
        judges.configure()


def test_one_toml_loader():
    from tinycode.judges import registry

    assert config.toml_loads('a = 1\n[b]\nc = "d"\n') == {"a": 1, "b": {"c": "d"}}
    with pytest.raises(ValueError):
        config.toml_loads("a = \n")
    assert registry.in_process_available("toml")
