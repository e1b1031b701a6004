"""A real editor: headless Neovim (Debian's 0.7.2) with the documented configuration
(examples/editors/neovim-0.7.lua, as the README shows it) opens a broken file, gets
tinycode's diagnostics, applies "Repair with tinycode", and the buffer is the repair.
Skipped when nvim is not installed."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "examples" / "editors" / "neovim-0.7.lua"
DRIVER = Path(__file__).resolve().parent / "nvim_repair.lua"

BROKEN = "import sys\n\n\ndef main(argv)\n    print(argv)\n    return 0\n"


@pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim is not installed")
def test_neovim_applies_the_repair_with_the_documented_config(tmp_path):
    # `tinycode` on PATH is this tree's, run by this interpreter.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "tinycode"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tinycode "$@"\n', encoding="utf-8")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    (project / "main.py").write_text(BROKEN, encoding="utf-8")
    out = tmp_path / "report.json"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")])),
           "TINYCODE_NVIM_OUT": str(out), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    completed = subprocess.run(["nvim", "--headless", "--clean", "-u", str(CONFIG), "-c", f"luafile {DRIVER}",
                                "main.py"], cwd=project, env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=120)
    assert out.exists(), (completed.returncode, completed.stdout, completed.stderr)
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["status"] == "repaired", report
    assert report["diagnostics"] == [[3, 13, "SyntaxError: expected ':'"]]
    assert "Repair with tinycode" in report["actions"]
    assert "\n".join(report["lines"]) + "\n" == BROKEN.replace("def main(argv)", "def main(argv):")
    assert (project / "main.py").read_text(encoding="utf-8") == BROKEN  # the server wrote nothing
