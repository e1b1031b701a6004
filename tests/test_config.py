"""Configuration: [tool.tinycode] < environment < CLI flags; discovery; validation; skips()."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tinycode.cli import main
from tinycode.config import ENV_VARS, Settings, find_config, load_settings
from tinycode.errors import ConfigError, UsageError

@pytest.fixture(autouse=True)
def no_settings_in_environment(monkeypatch):
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)


FULL = """\
[project]
name = "demo"

[tool.tinycode]
model = "qwen2.5-coder-1.5b"
backend = "openai"
base-url = "http://127.0.0.1:8080/v1/"
max-steps = 5
timeout = 30
gpu-layers = -1
web = "searxng"
offline = true
include-languages = ["py", "JavaScript", "c++"]
exclude-languages = ["yaml"]
exclude = ["vendor", "*.min.js", "docs/generated/**"]
"""


def write_project(root: Path, table: str, *, git: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    if git:
        (root / ".git").mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text(table, encoding="utf-8")
    return root / "pyproject.toml"


def test_defaults_without_any_config(tmp_path):
    (tmp_path / ".git").mkdir()
    settings = load_settings(None, tmp_path)
    assert settings == Settings()
    assert settings.config_path is None


def test_full_example_is_read_and_normalised(tmp_path):
    path = write_project(tmp_path, FULL)
    settings = load_settings({"trust_project": True}, tmp_path)
    assert settings.config_path == path
    assert settings.model == "qwen2.5-coder-1.5b"
    assert settings.backend == "openai"
    assert settings.base_url == "http://127.0.0.1:8080/v1"
    assert (settings.max_steps, settings.timeout, settings.gpu_layers) == (5, 30.0, -1)
    assert isinstance(settings.timeout, float)
    assert (settings.web, settings.offline) == ("searxng", True)
    assert settings.include_languages == ["python", "javascript", "cpp"]
    assert settings.exclude_languages == ["yaml"]
    assert settings.exclude == ["vendor", "*.min.js", "docs/generated/**"]


def test_readme_example_is_valid(tmp_path):
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("<!-- section: precommit -->", 1)[1].split("<!-- /section: precommit -->", 1)[0]
    block = section.split("```toml\n", 1)[1].split("```", 1)[0]
    assert "[tool.tinycode]" in block
    write_project(tmp_path, block)
    settings = load_settings(None, tmp_path)
    documented = {line.split("=", 1)[0].strip() for line in block.splitlines()
                  if "=" in line and not line.lstrip().startswith("#")}
    assert documented == {f.replace("_", "-") for f in vars(Settings()) if f not in ("config_path", "notes")}
    assert settings != Settings(config_path=settings.config_path)


def test_precedence_file_then_env_then_flags(tmp_path, monkeypatch):
    write_project(tmp_path, "[tool.tinycode]\nmax-steps = 5\ntimeout = 30\nmodel = \"from-file\"\n")
    assert load_settings(None, tmp_path).max_steps == 5

    monkeypatch.setenv("TINYCODE_MAX_STEPS", "7")
    monkeypatch.setenv("TINYCODE_MODEL", "from-env")
    settings = load_settings(None, tmp_path)
    assert (settings.max_steps, settings.timeout, settings.model) == (7, 30.0, "from-env")

    settings = load_settings({"max_steps": 2, "model": None, "timeout": None}, tmp_path)
    assert (settings.max_steps, settings.timeout, settings.model) == (2, 30.0, "from-env")


@pytest.mark.parametrize(("var", "text", "field", "value"), [
    ("TINYCODE_MODEL", "1.5b", "model", "1.5b"),
    ("TINYCODE_BACKEND", "openai", "backend", "openai"),
    ("TINYCODE_BASE_URL", "http://127.0.0.1:9/v1", "base_url", "http://127.0.0.1:9/v1"),
    ("TINYCODE_MAX_STEPS", " 12 ", "max_steps", 12),
    ("TINYCODE_TIMEOUT", "2.5", "timeout", 2.5),
    ("TINYCODE_GPU_LAYERS", "-1", "gpu_layers", -1),
    ("TINYCODE_WEB", "DuckDuckGo", "web", "duckduckgo"),
    ("TINYCODE_OFFLINE", "yes", "offline", True),
    ("TINYCODE_OFFLINE", "0", "offline", False),
])
def test_each_environment_variable(tmp_path, var, text, field, value):
    (tmp_path / ".git").mkdir()
    settings = load_settings(None, tmp_path, environ={var: text})
    assert getattr(settings, field) == value
    assert var in ENV_VARS


def test_env_false_overrides_file_true(tmp_path):
    write_project(tmp_path, "[tool.tinycode]\noffline = true\n")
    assert load_settings(None, tmp_path, environ={}).offline is True
    assert load_settings(None, tmp_path, environ={"TINYCODE_OFFLINE": "false"}).offline is False


def test_empty_environment_variable_is_ignored(tmp_path):
    write_project(tmp_path, "[tool.tinycode]\nmax-steps = 4\n")
    assert load_settings(None, tmp_path, environ={"TINYCODE_MAX_STEPS": ""}).max_steps == 4


def test_walks_up_from_a_file_to_the_nearest_table(tmp_path):
    outer = write_project(tmp_path, "[tool.tinycode]\nmax-steps = 3\n")
    # A nested pyproject.toml without a tinycode table is passed over, like ruff does.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pyproject.toml").write_text("[project]\nname = 'pkg'\n", encoding="utf-8")
    source = tmp_path / "pkg" / "src" / "deep" / "mod.py"
    source.parent.mkdir(parents=True)
    source.write_text("x = 1\n", encoding="utf-8")
    assert find_config(source) == outer
    assert load_settings(None, source).max_steps == 3

    inner = write_project(tmp_path / "pkg" / "src", "[tool.tinycode]\nmax-steps = 9\n", git=False)
    assert find_config(source) == inner
    assert load_settings(None, str(source)).max_steps == 9


def test_stops_at_the_git_boundary(tmp_path):
    write_project(tmp_path, "[tool.tinycode]\nmax-steps = 3\n", git=False)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "a.py").write_text("", encoding="utf-8")
    assert find_config(repo / "a.py") is None
    assert load_settings(None, repo).max_steps == Settings().max_steps
    # Without the boundary the outer file applies.
    (repo / ".git").rmdir()
    assert load_settings(None, repo).max_steps == 3


def test_relative_start_and_model_path_relative_to_the_file(tmp_path, monkeypatch):
    write_project(tmp_path, "[tool.tinycode]\nmodel = \"weights/mine.gguf\"\n")
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    settings = load_settings({"trust_project": True}, ".")
    assert settings.model == str((tmp_path / "weights" / "mine.gguf").resolve())


@pytest.mark.parametrize(("body", "needle"), [
    ("max-step = 3", "unknown key 'max-step'"),
    ("max_steps = 3", "did you mean 'max-steps'"),
    ("config-path = 'x'", "unknown key 'config-path'"),
    ("max-steps = -1", "max-steps: must be at least 1"),
    ("max-steps = 0", "max-steps: must be at least 1"),
    ("max-steps = '3'", "max-steps: expected a whole number"),
    ("max-steps = 2.5", "max-steps: expected a whole number"),
    ("max-steps = true", "max-steps: expected a whole number"),
    ("timeout = 0", "timeout: must be a positive number"),
    ("timeout = 'soon'", "timeout: expected a number of seconds"),
    ("gpu-layers = -2", "gpu-layers: must be at least -1"),
    ("backend = 'transformers'", "backend: expected one of llama_cpp, openai"),
    ("web = 'google'", "web: expected one of offline, duckduckgo, searxng"),
    ("offline = 'yes'", "offline: expected true or false"),
    ("base-url = 'localhost:8080'", "base-url: expected an http:// or https:// URL"),
    ("include-languages = ['python', 'klingon']", "include-languages: unknown language 'klingon'"),
    ("exclude-languages = 'cobol'", "exclude-languages: unknown language 'cobol'"),
    ("exclude = [1, 2]", "exclude: expected a list of non-empty strings"),
    ("model = ''", "model: expected a non-empty string"),
])
def test_bad_file_values_name_the_file_and_key(tmp_path, body, needle):
    path = write_project(tmp_path, f"[tool.tinycode]\n{body}\n")
    with pytest.raises(ConfigError) as info:
        load_settings(None, tmp_path)
    message = str(info.value)
    assert str(path) in message
    assert needle in message
    assert isinstance(info.value, UsageError)


def test_invalid_toml_and_non_table(tmp_path):
    path = write_project(tmp_path, "[tool.tinycode]\nmax-steps = \n")
    with pytest.raises(ConfigError, match="invalid TOML") as info:
        load_settings(None, tmp_path)
    assert str(path) in str(info.value)
    write_project(tmp_path, "[tool]\ntinycode = 3\n")
    with pytest.raises(ConfigError, match=r"\[tool.tinycode\] must be a table"):
        load_settings(None, tmp_path)


@pytest.mark.parametrize(("var", "text", "needle"), [
    ("TINYCODE_MAX_STEPS", "many", "TINYCODE_MAX_STEPS: expected a whole number"),
    ("TINYCODE_MAX_STEPS", "-3", "TINYCODE_MAX_STEPS: must be at least 1"),
    ("TINYCODE_TIMEOUT", "-1", "TINYCODE_TIMEOUT: must be a positive number"),
    ("TINYCODE_GPU_LAYERS", "all", "TINYCODE_GPU_LAYERS: expected a whole number"),
    ("TINYCODE_OFFLINE", "maybe", "TINYCODE_OFFLINE: expected 1/0"),
    ("TINYCODE_WEB", "bing", "TINYCODE_WEB: expected one of"),
    ("TINYCODE_BACKEND", "onnx", "TINYCODE_BACKEND: expected one of"),
    ("TINYCODE_BASE_URL", "ftp://x", "TINYCODE_BASE_URL: expected an http"),
])
def test_bad_environment_values_name_the_variable(tmp_path, var, text, needle):
    (tmp_path / ".git").mkdir()
    with pytest.raises(ConfigError, match=needle):
        load_settings(None, tmp_path, environ={var: text})


def test_bad_flag_values_name_the_flag(tmp_path):
    (tmp_path / ".git").mkdir()
    with pytest.raises(ConfigError, match="--max-steps: must be at least 1"):
        load_settings({"max_steps": 0}, tmp_path)
    with pytest.raises(ConfigError, match="--web: expected one of"):
        load_settings({"web": "altavista"}, tmp_path)
    with pytest.raises(ConfigError, match="--frobnicate: unknown key"):
        load_settings({"frobnicate": 1}, tmp_path)


def test_reads_process_environment_by_default(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.setenv("TINYCODE_GPU_LAYERS", "12")
    assert load_settings(None, tmp_path).gpu_layers == 12


def test_config_error_becomes_one_line_exit_2(tmp_path, monkeypatch, capsys):
    """The CLI's single error path turns ConfigError into one line and exit code 2."""
    path = write_project(tmp_path, "[tool.tinycode]\nmax-steps = -4\n")

    def run(args):  # a command that loads settings, as fix does
        load_settings(None, tmp_path)
        return 0

    monkeypatch.setattr("tinycode.commands.check.run", run)
    code = main(["check", os.fspath(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith("tinycode: error: ") and str(path) in err and "max-steps" in err


# --- skips() --------------------------------------------------------------------------

def test_skips_by_language(tmp_path):
    settings = Settings(include_languages=["python", "javascript"], exclude_languages=["javascript"])
    assert not settings.skips(tmp_path / "a.py", "python")
    assert not settings.skips(tmp_path / "a.py", "py")
    assert settings.skips(tmp_path / "a.js", "javascript")  # excluded wins
    assert settings.skips(tmp_path / "a.go", "go")           # not included
    assert not Settings().skips(tmp_path / "a.go", "go")
    assert Settings(exclude_languages=["go"]).skips(tmp_path / "a.go", "go")


def test_skips_by_glob_relative_to_the_config_file(tmp_path, monkeypatch):
    write_project(tmp_path, '[tool.tinycode]\nexclude = ["vendor", "*.min.js", "docs/generated/**", "./build/"]\n')
    settings = load_settings(None, tmp_path)
    skipped = ["vendor/lib.py", "src/vendor/deep/x.go", "web/app.min.js", "app.min.js",
               "docs/generated/api/a.py", "build/out.py"]
    kept = ["src/app.py", "web/app.js", "docs/index.py", "docs/generated.py", "src/build/x.py",
            "vendors/x.py"]
    for rel in skipped:
        assert settings.skips(tmp_path / rel), rel
    for rel in kept:
        assert not settings.skips(tmp_path / rel), rel

    # Relative paths are taken from the current folder, wherever that is.
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    assert settings.skips("vendor/x.py")
    assert settings.skips("../build/out.py")
    assert not settings.skips("build/x.py")  # src/build is not the root's build/
    assert not settings.skips("-")


def test_folders_above_the_root_never_match(tmp_path):
    project = tmp_path / "vendor" / "project"
    write_project(project, '[tool.tinycode]\nexclude = ["vendor"]\n')
    settings = load_settings(None, project)
    assert not settings.skips(project / "src" / "a.py")
    assert settings.skips(project / "vendor" / "a.py")
