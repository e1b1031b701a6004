"""The hooks in .pre-commit-hooks.yaml, run by the real pre-commit tool on real commits.

This repository's working tree is snapshotted into a temporary git repository (tracked
and untracked files, as a user's clone would have them once committed); a second
temporary repository uses it as a local ``repo:`` at that commit's sha. pre-commit
builds each hook environment once per session under a shared PRE_COMMIT_HOME.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT = 1800  # the first commit builds the hook environment (pip install)
CLEAN_PY = 'def greet(name):\n    return f"hello {name}"\n'

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture(autouse=True)
def no_settings_in_environment(monkeypatch):
    """The hooks inherit the environment: a developer's TINYCODE_* settings stay out."""
    from tinycode.config import ENV_VARS

    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)


def git_env(home: Path) -> dict[str, str]:
    """An environment that keeps git and pre-commit away from the user's own config."""
    env = dict(os.environ)
    config = home / "gitconfig"
    config.write_text("[init]\n\tdefaultBranch = main\n", encoding="utf-8")
    env.update({
        "GIT_CONFIG_GLOBAL": str(config), "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "PRE_COMMIT_HOME": str(home / "pre-commit"),
        "PRE_COMMIT_COLOR": "never",
    })
    return env


def git(cwd: Path, *args: str, env: dict[str, str], check: bool = True,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, env=env, text=True, capture_output=True,
                          check=check, timeout=timeout)


@pytest.fixture(scope="session")
def shared_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("precommit-home")


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory, shared_home) -> tuple[str, str]:
    """A committed snapshot of this working tree: (path, sha) for ``repo:`` and ``rev:``."""
    env = git_env(shared_home)
    listing = git(ROOT, "ls-files", "-co", "--exclude-standard", "-z", env=env).stdout
    dest = tmp_path_factory.mktemp("tinycode-snapshot")
    for name in filter(None, listing.split("\0")):
        source = ROOT / name
        if source.is_file():  # tracked files deleted in the working tree are left out
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    git(dest, "init", "-q", env=env)
    git(dest, "add", "-A", env=env)
    git(dest, "commit", "-q", "-m", "snapshot", env=env)
    sha = git(dest, "rev-parse", "HEAD", env=env).stdout.strip()
    return str(dest), sha


@pytest.fixture
def project(tmp_path, shared_home, monkeypatch) -> Path:
    """An empty git repository; ``os.environ`` is what its hooks will see."""
    for key, value in git_env(shared_home).items():
        monkeypatch.setenv(key, value)
    path = tmp_path / "project"
    path.mkdir()
    git(path, "init", "-q", env=dict(os.environ))
    return path


def use_hooks(project: Path, config: dict) -> None:
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False),
                                                     encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=project, check=True,
                   capture_output=True, text=True, env=dict(os.environ), timeout=120)
    git(project, "add", ".pre-commit-config.yaml", env=dict(os.environ))


def commit(project: Path, *files: str) -> subprocess.CompletedProcess[str]:
    """``git add FILES && git commit`` the way a user does; the installed hook runs."""
    env = dict(os.environ)
    if files:
        git(project, "add", *files, env=env)
    return git(project, "commit", "-m", "change", env=env, check=False, timeout=BUILD_TIMEOUT)


def head(project: Path) -> str | None:
    result = git(project, "rev-parse", "--verify", "-q", "HEAD", env=dict(os.environ), check=False)
    return result.stdout.strip() or None


def check_only(hook_repo: tuple[str, str]) -> dict:
    path, sha = hook_repo
    return {"repos": [{"repo": path, "rev": sha, "hooks": [{"id": "tinycode-check"}]}]}


def poison_llama_cpp(tmp_path: Path, monkeypatch) -> Path:
    """Make any import of llama_cpp in a child process leave a marker and fail loudly."""
    shadow = tmp_path / "shadow" / "llama_cpp"
    shadow.mkdir(parents=True)
    marker = tmp_path / "llama_cpp_was_imported"
    (shadow / "__init__.py").write_text(
        "import os, pathlib\n"
        "pathlib.Path(os.environ['TINYCODE_TEST_MARKER']).write_text('imported')\n"
        "raise RuntimeError('llama_cpp imported: a model was about to load')\n",
        encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(shadow.parent))
    monkeypatch.setenv("TINYCODE_TEST_MARKER", str(marker))
    # The model would have nowhere to come from either.
    monkeypatch.setenv("TINYCODE_MODEL_CACHE", str(tmp_path / "no-models"))
    monkeypatch.setenv("TINYCODE_OFFLINE", "1")
    probe = subprocess.run([sys.executable, "-c", "import llama_cpp"], env=dict(os.environ),
                           capture_output=True, text=True, timeout=60)
    assert probe.returncode != 0 and "llama_cpp imported" in probe.stderr
    assert marker.exists()
    marker.unlink()
    return marker


def test_hook_manifest_is_valid_and_covers_the_languages():
    import identify.identify as identify

    from tinycode import languages

    manifest = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hooks = {hook["id"]: hook for hook in manifest}
    assert set(hooks) == {"tinycode-fix", "tinycode-check"}
    assert hooks["tinycode-fix"]["require_serial"] is True
    # `--` last: a staged file named like an option stays a file name.
    assert hooks["tinycode-fix"]["entry"] == "tinycode fix --ignore-unknown --"
    assert hooks["tinycode-check"]["entry"] == "tinycode check --ignore-unknown --"
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert set(hook["types_or"]) <= identify.ALL_TAGS
        # Every built-in language's extensions are selected by the hook, and only those.
        for spec in languages.BUILTIN:
            for ext in spec.extensions:
                tags = identify.tags_from_filename(f"file{ext}")
                if tags - {"text"}:
                    assert tags & set(hook["types_or"]), (spec.name, ext)
        assert not identify.tags_from_filename("notes.md") & set(hook["types_or"])
    for config in (ROOT / ".pre-commit-hooks.yaml", ROOT / "examples" / ".pre-commit-config.yaml"):
        command = "validate-manifest" if config.name == ".pre-commit-hooks.yaml" else "validate-config"
        result = subprocess.run([sys.executable, "-m", "pre_commit", command, str(config)],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr


def test_check_hook_blocks_a_broken_file_and_leaves_it_untouched(project, hook_repo, tmp_path,
                                                                  monkeypatch):
    marker = poison_llama_cpp(tmp_path, monkeypatch)
    use_hooks(project, check_only(hook_repo))
    broken = (ROOT / "examples" / "python" / "broken.py").read_bytes()
    # CRLF line ends and a BOM must survive too.
    crlf = b"\xef\xbb\xbf" + (ROOT / "examples" / "javascript" / "broken.js").read_bytes().replace(b"\n", b"\r\n")
    (project / "broken.py").write_bytes(broken)
    (project / "broken.js").write_bytes(crlf)

    result = commit(project, "broken.py", "broken.js")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "tinycode check" in output and "Failed" in output
    assert "broken.py:16:25: SyntaxError: '(' was never closed" in output
    assert "broken.js:" in output
    assert head(project) is None
    assert (project / "broken.py").read_bytes() == broken
    assert (project / "broken.js").read_bytes() == crlf
    assert not marker.exists(), output


def test_clean_commit_passes_the_check_hook_without_a_model(project, hook_repo, tmp_path, monkeypatch):
    marker = poison_llama_cpp(tmp_path, monkeypatch)
    use_hooks(project, check_only(hook_repo))
    (project / "app.py").write_text(CLEAN_PY, encoding="utf-8")
    for name in ("clean.go", "clean.rs", "clean.json"):
        language = {"go": "go", "rs": "rust", "json": "json"}[name.rsplit(".", 1)[1]]
        shutil.copy(ROOT / "examples" / language / name, project / name)
    (project / "notes.md").write_text("# not (checked\n", encoding="utf-8")

    result = commit(project, "app.py", "clean.go", "clean.rs", "clean.json", "notes.md")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "tinycode check" in output and "Passed" in output
    assert head(project) is not None
    assert not marker.exists(), output


@pytest.mark.model
def test_example_config_fix_hook_repairs_then_the_retry_passes(project, hook_repo, tmp_path, monkeypatch):
    """The README's flow with examples/.pre-commit-config.yaml as a user copies it."""
    config = yaml.safe_load((ROOT / "examples" / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    path, sha = hook_repo
    config["repos"][0].update(repo=path, rev=sha)
    use_hooks(project, config)

    # A clean file: the fix hook passes without loading a model.
    with monkeypatch.context() as scoped:
        marker = poison_llama_cpp(tmp_path, scoped)
        (project / "app.py").write_text(CLEAN_PY, encoding="utf-8")
        result = commit(project, "app.py")
        output = result.stdout + result.stderr
        assert result.returncode == 0, output
        assert not marker.exists(), output

    broken = (ROOT / "examples" / "python" / "broken.py").read_text(encoding="utf-8")
    (project / "broken.py").write_text(broken, encoding="utf-8")
    first = commit(project, "broken.py")
    output = first.stdout + first.stderr
    assert first.returncode != 0, output
    assert "files were modified by this hook" in output
    repaired = (project / "broken.py").read_text(encoding="utf-8")
    assert repaired != broken
    compile(repaired, "broken.py", "exec")
    committed_before = head(project)

    second = commit(project, "broken.py")
    output = second.stdout + second.stderr
    assert second.returncode == 0, output
    assert head(project) != committed_before
    shown = git(project, "show", "HEAD:broken.py", env=dict(os.environ)).stdout
    assert shown == repaired


def both_hooks(hook_repo: tuple[str, str]) -> dict:
    path, sha = hook_repo
    return {"repos": [{"repo": path, "rev": sha,
                       "hooks": [{"id": "tinycode-fix"}, {"id": "tinycode-check"}]}]}


def test_staged_file_named_like_an_option_is_only_a_file_name(project, hook_repo, tmp_path, monkeypatch):
    """A committed ``--trace=victim.py`` once reached tinycode as an option and truncated victim.py."""
    marker = poison_llama_cpp(tmp_path, monkeypatch)
    use_hooks(project, both_hooks(hook_repo))
    (project / "victim.py").write_text("SECRET = 1\n", encoding="utf-8")
    (project / "--trace=victim.py").write_text(CLEAN_PY, encoding="utf-8")
    git(project, "add", "--", "victim.py", "--trace=victim.py", env=dict(os.environ))

    result = commit(project)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert (project / "victim.py").read_text(encoding="utf-8") == "SECRET = 1\n"
    assert (project / "--trace=victim.py").read_text(encoding="utf-8") == CLEAN_PY
    assert head(project) is not None
    assert not marker.exists(), output


def test_hooks_skip_unknown_types_and_honour_the_project_exclude(project, hook_repo, tmp_path, monkeypatch):
    """types_or lets Pipfile, .babelrc and *.gyp through; [tool.tinycode] exclude holds for both hooks."""
    marker = poison_llama_cpp(tmp_path, monkeypatch)
    use_hooks(project, both_hooks(hook_repo))
    (project / "pyproject.toml").write_text('[tool.tinycode]\nexclude = ["vendor"]\n', encoding="utf-8")
    (project / "Pipfile").write_text("[packages]\nrequests = '*'\n", encoding="utf-8")
    (project / ".babelrc").write_text('{"presets": []}\n', encoding="utf-8")
    (project / "binding.gyp").write_text("{'targets': []}\n", encoding="utf-8")
    (project / "vendor").mkdir()
    broken = (ROOT / "examples" / "python" / "broken.py").read_text(encoding="utf-8")
    (project / "vendor" / "broken.py").write_text(broken, encoding="utf-8")
    (project / "app.py").write_text(CLEAN_PY, encoding="utf-8")

    result = commit(project, "pyproject.toml", "Pipfile", ".babelrc", "binding.gyp", "vendor/broken.py",
                    "app.py")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert head(project) is not None
    assert (project / "vendor" / "broken.py").read_text(encoding="utf-8") == broken
    assert not marker.exists(), output
