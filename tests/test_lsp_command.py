"""``tinycode lsp`` as a command, and the editor configurations the README shows."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tinycode.cli import main
from tinycode.config import toml_loads

EDITORS = Path(__file__).resolve().parent.parent / "examples" / "editors"


def test_lsp_is_a_command(capsys):
    assert main(["--help"]) == 0
    assert "lsp" in capsys.readouterr().out
    assert main(["lsp", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--offline" in out and "--base-url" in out and "--trust-project" in out


def test_without_the_extra_it_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pygls", None)  # import pygls now raises ImportError
    monkeypatch.delitem(sys.modules, "tinycode.lsp.server", raising=False)
    assert main(["lsp"]) == 2
    assert "pip install 'tinycode[lsp]'" in capsys.readouterr().err


def test_every_editor_configuration_starts_tinycode_lsp():
    helix = toml_loads((EDITORS / "helix-languages.toml").read_text(encoding="utf-8"))
    assert helix["language-server"]["tinycode"] == {"command": "tinycode", "args": ["lsp"]}
    assert all("tinycode" in language["language-servers"] for language in helix["language"])
    vscode = json.loads((EDITORS / "vscode-settings.json").read_text(encoding="utf-8"))
    assert [vscode["glspc.server.command"], *vscode["glspc.server.commandArguments"]] == ["tinycode", "lsp"]
    for name in ("neovim-0.7.lua", "neovim-0.11.lua"):
        text = (EDITORS / name).read_text(encoding="utf-8")
        assert re.search(r'cmd = \{ "tinycode", "lsp" \}', text), name


@pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim is not installed")
@pytest.mark.parametrize("name", ["neovim-0.7.lua", "neovim-0.11.lua"])
def test_the_neovim_configurations_are_lua_neovim_reads(name):
    """Compiled by Neovim's own Lua (0.11's API is not in 0.7, so it is not run)."""
    script = (f"lua local f, e = loadfile('{EDITORS / name}'); "
              "io.stdout:write(f and 'compiled' or ('error: ' .. e))")
    done = subprocess.run(["nvim", "--headless", "--clean", "-c", script, "-c", "qa!"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert (done.stdout + done.stderr).strip() == "compiled"
