"""The referee: does a language's own tool accept a text? For measuring tinycode,
never tinycode's own check: the system measured is not also the referee.

``confirm(text, path, language)`` answers with the tool the language's users run,
given the folders the file's includes come from (C and C++); None where no such tool
is installed here. ``name(language)`` says which tool that is, for the reports.

- Python: CPython's ``compile()``; JSON, YAML, TOML: ``json``, PyYAML, ``tomllib``;
- C, C++: ``gcc``/``g++ -fsyntax-only`` with the file's folders and, for each header
  it cannot find, the installed folder that has it;
- JavaScript: ``node --check``; Bash: ``bash -n`` (``sh -n`` by the ``#!`` line);
  Rust: ``rustfmt --check``; Go: ``gofmt -e``; Ruby: ``ruby -c``; PHP: ``php -l``;
- Java: ``javac`` stopped after parsing;
- TypeScript, TSX: the installed ``tsc`` with its checker, counting its grammar
  errors (TS1xxx, and JSDoc types in code) and not its type errors;
- C#, CSS, HTML: none (tree-sitter is tinycode's own check, so it is not a referee).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

CONFIRM_TIMEOUT = 120.0  # seconds the language's own tool may take on one file (a busy machine)
_HEADER_INDEX: dict[str, list[str]] | None = None
_FOUND_FOLDERS: dict[tuple[str, str], list[str]] = {}  # (path, language) -> its include folders so far
_NAMES = {"python": "CPython compile()", "json": "json", "yaml": "PyYAML", "toml": "tomllib",
          "c": "gcc -fsyntax-only", "cpp": "g++ -fsyntax-only", "javascript": "node --check", "bash": "bash -n",
          "rust": "rustfmt --check", "go": "gofmt -e", "ruby": "ruby -c", "php": "php -l",
          "java": "javac (parse)", "typescript": "tsc (grammar errors)", "tsx": "tsc (grammar errors)"}
_TOOLS = {"c": "gcc", "cpp": "g++", "javascript": "node", "bash": "bash", "rust": "rustfmt", "go": "gofmt",
          "ruby": "ruby", "php": "php", "java": "javac", "typescript": "tsc", "tsx": "tsc"}


def name(language: str) -> str:
    """The referee of ``language`` on this machine, or "none"."""
    if language == "yaml" and importlib.util.find_spec("yaml") is None:
        return "none"
    tool = _TOOLS.get(language)
    if language not in _NAMES or (tool is not None and shutil.which(tool) is None):
        return "none"
    return _NAMES[language]


def confirm(text: str, path: str, language: str) -> bool | None:
    """Does the language's own tool accept ``text`` (the file at ``path``, or a version of
    it), given the folders its includes come from? None: no such tool here."""
    if language == "python":
        try:
            compile(text, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
        return True
    if language == "json":
        try:
            json.loads(text)
        except ValueError:
            return False
        return True
    if language == "yaml":
        import yaml

        # libyaml's parser where PyYAML was built with it: PyYAML's own reads a long line
        # of a block scalar in time that grows with its square (minutes for one file).
        try:
            for _ in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
                pass
        except yaml.YAMLError:
            return False
        return True
    if language == "toml":
        import tomllib

        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return False
        return True
    if language in ("c", "cpp"):
        return _compiles(text, path, language)
    if language in ("typescript", "tsx"):
        return _tsc_accepts(text, language)
    if language == "javascript" and shutil.which("node"):
        # As CommonJS, else as a module: ``node --check x.js`` passes a text that fails as
        # CommonJS the way a module would without compiling it as a module.
        return any(_passes(["node", "--check"], text, "input" + extension) for extension in (".cjs", ".mjs"))
    command = _tool_for(language, text)
    if command is None:
        return None
    with tempfile.TemporaryDirectory(prefix="clean-confirm-") as folder:
        copy = os.path.join(folder, os.path.basename(path))
        Path(copy).write_text(text, encoding="utf-8")
        try:
            done = subprocess.run(command + [copy], capture_output=True, timeout=CONFIRM_TIMEOUT, check=False,
                                  stdin=subprocess.DEVNULL, cwd=folder)
        except subprocess.TimeoutExpired:
            return False  # not confirmed either way: left out
    if language == "rust":
        return b"error" not in done.stderr
    return done.returncode == 0


def _passes(command: list[str], text: str, name: str) -> bool:
    """``command`` on ``text`` saved as ``name`` exits 0."""
    with tempfile.TemporaryDirectory(prefix="clean-confirm-") as folder:
        copy = os.path.join(folder, name)
        Path(copy).write_text(text, encoding="utf-8")
        try:
            done = subprocess.run(command + [copy], capture_output=True, timeout=CONFIRM_TIMEOUT, check=False,
                                  stdin=subprocess.DEVNULL, cwd=folder)
        except subprocess.TimeoutExpired:
            return False
    return done.returncode == 0


def _tool_for(language: str, text: str) -> list[str] | None:
    if language == "javascript" and shutil.which("node"):
        return ["node", "--check"]
    if language == "bash":
        shell = "sh" if re.match(r"#!\s*/bin/(?:da)?sh\b", text) else "bash"
        return [shell, "-n"] if shutil.which(shell) else None
    if language == "rust" and shutil.which("rustfmt"):
        return ["rustfmt", "--check", "--edition", "2021"]
    if language == "go" and shutil.which("gofmt"):
        return ["gofmt", "-l", "-e"]
    if language == "ruby" and shutil.which("ruby"):
        return ["ruby", "-c"]
    if language == "php" and shutil.which("php"):
        return ["php", "-l"]
    if language == "java" and shutil.which("javac"):
        # Parse only: a file of a project whose classes are not here is no error.
        return ["javac", "-XDshould-stop.ifNoError=PARSE", "-XDshould-stop.ifError=PARSE", "-d", "out"]
    return None


def _compiles(text: str, path: str, language: str) -> bool | None:
    """gcc or g++ -fsyntax-only on ``text`` with the folder of ``path`` and, for each
    header it cannot find, the installed folder that has it."""
    compiler = "g++" if language == "cpp" else "gcc"
    if not shutil.which(compiler):
        return None
    # The folders a file's headers were found in before: every version of it needs them.
    folders = _FOUND_FOLDERS.setdefault((path, language),
                                        [os.path.dirname(path), os.path.dirname(os.path.dirname(path))])
    kind = ["-x", "c++", "-std=gnu++20"] if language == "cpp" else ["-x", "c", "-std=gnu17"]
    with tempfile.TemporaryDirectory(prefix="clean-confirm-") as temp:
        copy = os.path.join(temp, "input" + (".cpp" if language == "cpp" else ".c"))
        Path(copy).write_text(text, encoding="utf-8")
        for _ in range(12):
            command = [compiler, "-fsyntax-only", "-w", *kind, *[f"-I{f}" for f in folders], copy]
            try:
                done = subprocess.run(command, capture_output=True, timeout=CONFIRM_TIMEOUT, check=False,
                                      text=True, stdin=subprocess.DEVNULL, cwd=temp, env=dict(os.environ, LC_ALL="C"))
            except subprocess.TimeoutExpired:
                return None  # not confirmed either way: left out
            if done.returncode == 0:
                return True
            missing = re.search(r"fatal error: (\S+): No such file or directory", done.stderr)
            folder = _folder_with(missing.group(1)) if missing else None
            if folder is None or folder in folders:
                return False
            folders.append(folder)
    return False


def _folder_with(header: str) -> str | None:
    """An installed include folder that has ``header`` (``libxml/parser.h`` ->
    ``/usr/include/libxml2``)."""
    global _HEADER_INDEX
    if _HEADER_INDEX is None:
        _HEADER_INDEX = {}
        for root in ("/usr/include", "/usr/local/include", "/usr/local/cuda/include", "/usr/lib/python3",
                     "/usr/lib/gcc"):
            for folder, _, files in os.walk(root):
                for path in (os.path.join(folder, name) for name in files):
                    _HEADER_INDEX.setdefault(os.path.basename(path), []).append(path)
    suffix = "/" + header
    for path in sorted(_HEADER_INDEX.get(os.path.basename(header), []), key=len):
        if path.endswith(suffix):
            return path[:-len(suffix)]
    return None


# tsc's grammar errors: its parser's and checker's TS1xxx, JSDoc's types in code.
_TSC_ERROR = re.compile(r"error TS(\d+):")
_TSC_PLACED = re.compile(r"input\.tsx?\(\d+,\d+\): error TS")
_TSC_GRAMMAR = (8020, 17019, 17020)


def _tsc_accepts(text: str, language: str) -> bool | None:
    """Twice: checking nothing, any error placed in the file is its syntax's; checking,
    only the grammar's errors count (its type errors are about a project not here)."""
    tsc = shutil.which("tsc")
    if tsc is None:
        return None
    with tempfile.TemporaryDirectory(prefix="referee-") as folder:
        copy = os.path.join(folder, "input.tsx" if language == "tsx" else "input.ts")
        Path(copy).write_text(text, encoding="utf-8")
        outputs = []
        for check in (["--noCheck"], []):
            try:
                done = subprocess.run([tsc, "--noEmit", *check, "--noResolve", "--pretty", "false", "--jsx",
                                       "preserve", "--target", "esnext", copy], capture_output=True, text=True,
                                      timeout=CONFIRM_TIMEOUT, check=False, stdin=subprocess.DEVNULL, cwd=folder)
            except subprocess.TimeoutExpired:
                return None
            outputs.append(done.stdout + done.stderr)
    if _TSC_PLACED.search(outputs[0]):
        return False
    return not any(int(code) < 2000 or int(code) in _TSC_GRAMMAR for code in _TSC_ERROR.findall(outputs[1]))
