"""Folders as PATH arguments: the walk honours .gitignore (nested, info/exclude, from
above the folder named), the config's exclude, hidden and build folders; it skips
unknown types quietly and never follows a symbolic link. Real files, real git repos."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from scripted import NEEDS_AGENT

from tinycode.cli import main
from tinycode.walk import walk

BAD = "def f(:\n    pass\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def files(root: Path, **named: str) -> None:
    """Write ``{relative path: text}`` under ``root`` (``__`` in a key is a ``/``)."""
    for name, text in named.items():
        path = root / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def walked(*paths: str, cwd: Path | None = None) -> list[str]:
    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        return [e.path for e in walk(list(paths)) if e.skipped is None and e.error is None
                and not e.path.endswith(".gitignore")]
    finally:
        os.chdir(old)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repository with a root and a nested .gitignore and info/exclude."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    files(tmp_path,
          **{"a.py": "x = 1\n", ".gitignore": "vendored/\n*.gen.py\nsrc/secret.py\n",
             "src__main.py": "x = 1\n", "src__secret.py": "x = 1\n", "src__out.gen.py": "x = 1\n",
             "src__.gitignore": "*.js\n!keep.js\n", "src__app.js": "let a;\n", "src__keep.js": "let b;\n",
             "vendored__lib.py": BAD, "local__notes.py": "x = 1\n", "scratch.py": BAD})
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("scratch.py\n")
    return tmp_path


def test_gitignore_nested_and_info_exclude(repo):
    assert walked(".", cwd=repo) == ["a.py", "local/notes.py", "src/keep.js", "src/main.py"]


def test_agrees_with_git_itself(repo):
    """Every file git would track (untracked but not ignored) is walked, and no other."""
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout.split()
    assert walked(".", cwd=repo) == sorted(p for p in listed if not p.endswith(".gitignore"))


def test_rules_from_above_the_folder_named(repo):
    # Walking src/ alone still honours the root .gitignore (src/secret.py, *.gen.py).
    assert walked("src", cwd=repo) == ["src/keep.js", "src/main.py"]
    assert walked(str(repo / "src")) == [str(repo / "src" / "keep.js"), str(repo / "src" / "main.py")]


def test_gitignore_outside_a_repository(tmp_path):
    files(tmp_path, **{".gitignore": "skip/\n", "skip__x.py": BAD, "keep__y.py": "y = 1\n"})
    assert walked(str(tmp_path)) == [str(tmp_path / "keep" / "y.py")]


def test_hidden_and_build_folders_are_left_out_hidden_files_are_not(tmp_path):
    files(tmp_path, **{".venv__x.py": BAD, "node_modules__m.js": "(", "build__b.py": BAD,
                       "vendor__v.go": "(", "__pycache____c.py": BAD, ".eslintrc.json": "{}",
                       "pkg__ok.py": "x = 1\n"})
    assert walked(".", cwd=tmp_path) == [".eslintrc.json", "pkg/ok.py"]


def test_a_named_file_is_offered_even_if_ignored(repo):
    # As ruff: a file named on the command line is the user's choice.
    assert walked("vendored/lib.py", cwd=repo) == ["vendored/lib.py"]


def test_each_walked_file_once(repo):
    assert walked("a.py", ".", "src/main.py", cwd=repo) == ["a.py", "local/notes.py", "src/keep.js",
                                                            "src/main.py"]


def test_symlinked_folder_out_of_the_tree_is_not_followed(tmp_path, capsys):
    outside = tmp_path / "outside"
    files(outside, **{"secret.py": BAD})
    tree = tmp_path / "tree"
    files(tree, **{"ok.py": "x = 1\n"})
    (tree / "link").symlink_to(outside, target_is_directory=True)
    (tree / "inner").symlink_to(tree, target_is_directory=True)  # a loop, too
    (tree / "file_link.py").symlink_to(outside / "secret.py")
    assert walked(".", cwd=tree) == ["ok.py"]
    code, out, err = run(capsys, "check", "-v", str(tree))
    assert code == 0 and "secret" not in out
    assert "link: skipped (symbolic link" in err
    # Named explicitly, a link is followed: the user chose it.
    assert run(capsys, "check", str(tree / "link"))[0] == 1


def test_unknown_types_found_by_a_walk_are_skipped_named_ones_are_errors(tmp_path, capsys):
    files(tmp_path, **{"README.md": "# hi\n", "data.bin": "\x00\x01", "deploy": "#!/bin/bash\nif [ x; then\n",
                       "ok.py": "x = 1\n"})
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 1 and f"{tmp_path / 'deploy'}:" in out  # an extensionless script: by its #! line
    assert "error" not in err
    code, _, err = run(capsys, "check", str(tmp_path / "README.md"))
    assert code == 2 and "cannot tell the language" in err


def test_ignored_files_are_never_read(repo, capsys, monkeypatch):
    import tinycode.commands.inputs as inputs

    opened: list[str] = []
    real = inputs.read_source
    monkeypatch.setattr(inputs, "read_source", lambda path, **kw: (opened.append(path), real(path, **kw))[1])
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, "check", ".")
    assert code == 0 and out == ""
    assert sorted(opened) == ["a.py", "local/notes.py", "src/keep.js", "src/main.py"]


def test_config_exclude_and_languages_per_project(tmp_path, capsys, monkeypatch):
    """Two projects under one folder: each file gets the config nearest to it."""
    files(tmp_path,
          **{"one__pyproject.toml": '[tool.tinycode]\nexclude = ["generated"]\n',
             "one__generated__g.py": BAD, "one__src__a.py": BAD,
             "two__pyproject.toml": '[tool.tinycode]\nexclude-languages = ["python"]\n',
             "two__generated__g.py": BAD, "two__main.js": "let = ;\n"})
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", "-v", ".")
    assert code == 1
    reported = sorted(line.split(":")[0] for line in out.splitlines() if ":" in line and line[0] not in " █")
    assert reported == ["one/src/a.py", "two/main.js"]
    assert "one/generated/: skipped (excluded by the configuration)" in err


def test_fix_walks_and_never_touches_ignored_files(repo, capsys, monkeypatch, model):
    """`fix .` in a repository: the ignored broken files stay byte for byte."""
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}
    (repo / "src" / "broken.py").write_text(NEEDS_AGENT)
    monkeypatch.chdir(repo)
    code, _, err = run(capsys, "fix")
    assert code == 0, err
    assert (repo / "src" / "broken.py").read_text() == "def double(x):\n    return x\n"
    assert {p: p.read_bytes() for p in before} == before  # vendored/lib.py, scratch.py untouched
