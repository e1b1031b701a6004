"""Which tool judges which language on this machine, and how it is called.

Each language's record (``languages/``) names its tools, the preferred first, and what
a run costs; this module knows how each kind of tool is called and read.

A language's judge is the first of its default tools found on PATH, unless the user
named another (``TINYCODE_JUDGES="c=clang,bash=off"``, a flag, the user's settings).
A repository's own config may only turn judges off: choosing the executable that runs
would let a cloned repository run programs (see ``config.py``).
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from typing import Callable, Mapping

from ..config import toml_parser
from ..languages import LanguageSpec, spec
from ..languages.commands import OFF, family, parse_commands
from . import readers
from .base import Tool

__all__ = ["OFF", "OWN_PROGRAMS", "built_in", "family", "find_tool", "in_process", "in_process_available", "parse_commands",
           "program", "run_cost", "served", "tools_for"]


def run_cost(language: str) -> int:
    """What one run of ``language``'s judge costs in the searches' judge budgets
    (``judges.calls``): its record's ``judge_cost``, and nothing for a parser that runs
    in this process (PyYAML, tomllib): the search's own work budget pays for each of
    its runs, about a whole parse's work."""
    record = spec(language)
    if record is not None and record.in_process:
        return 0
    return record.judge_cost if record is not None else LanguageSpec.judge_cost


def in_process(language: str) -> str:
    """The in-process Python parser that judges ``language`` ("PyYAML"), or ""."""
    record = spec(language)
    return record.in_process if record is not None else ""


def built_in(language: str) -> str:
    """The judge ``check()`` itself runs for ``language`` ("CPython compile()"), or ""."""
    record = spec(language)
    return record.own_judge_label if record is not None and record.own_judge is not None else ""


@dataclass(frozen=True)
class _Family:
    args: Callable[[str], tuple[str, ...]]  # language -> arguments
    filename: Callable[[str], str]  # language -> temporary file name
    read: Callable[..., list]
    label: str  # "{exe}" is replaced by the executable's name
    # The found executable -> the command that runs in its stead (a parser program of
    # tinycode's own that it serves), or None when it cannot run here; None: itself.
    runs: Callable[[str], tuple[str, ...] | None] | None = None


ERROR_LIMIT = 50  # a compiler's errors before it stops reading


def _cc_args(clang: bool) -> Callable[[str], tuple[str, ...]]:
    def args(language: str) -> tuple[str, ...]:
        record = spec(language)
        dialect = record.dialect if record is not None and record.dialect else ("-x", "c", "-std=gnu17")
        plain = (("-fno-caret-diagnostics", "-fdiagnostics-show-category=name", "-fno-color-diagnostics")
                 if clang else ("-fno-diagnostics-show-caret", "-fdiagnostics-color=never"))
        limit = f"-fmax-errors={ERROR_LIMIT}" if not clang else f"-ferror-limit={ERROR_LIMIT}"
        return ("-fsyntax-only", "-w", limit) + plain \
            + dialect + ("{file}",)
    return args


def _input(default: str) -> Callable[[str], str]:
    """The temporary input's name: the language record's ``judge_input``, else ``default``."""
    def filename(language: str) -> str:
        record = spec(language)
        return record.judge_input if record is not None and record.judge_input else default
    return filename


# tinycode's own judge programs (package data): named with a file, each judges it;
# started without one, each serves texts on stdin (``warm.py``).
OWN_PROGRAMS = ("JavaSyntax.java", "JavaSyntax", "ts_syntax.cjs", "web_syntax.cjs")


def served(argv: tuple[str, ...]) -> bool:
    """``argv`` runs one of tinycode's own judge programs."""
    return any(os.path.basename(part) in OWN_PROGRAMS for part in argv[1:])


def program(name: str) -> str | None:
    """The path of one of tinycode's own judge programs (package data), or None where
    it is not a file on disk (a zip): then it does not run."""
    from importlib import resources

    try:
        path = os.fspath(resources.files("tinycode.judges").joinpath(name))  # type: ignore[call-overload]
    except TypeError:
        return None
    return path if os.path.isfile(path) else None


def _javac_parser(javac: str) -> tuple[str, ...] | None:
    """javac's parser alone, in the JVM of the JDK that ``javac`` belongs to: the
    program compiled once into tinycode's private folder (a JVM then starts in about a
    second), else run from its source (three)."""
    java = os.path.join(os.path.dirname(os.path.realpath(javac)), "java")
    if not os.access(java, os.X_OK):
        return None
    source = program("JavaSyntax.java")
    if source is None:
        return None
    compiled = _compiled_java_program(javac, source)
    run = ("-cp", compiled, "JavaSyntax") if compiled else (source,)
    return (java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss16m", "-Xshare:auto") + run


def _compiled_java_program(javac: str, source: str) -> str | None:
    """The folder of ``JavaSyntax.class`` compiled by ``javac``, made on first use in the
    private tinycode home; None where it cannot be (the source is then run as it is)."""
    import hashlib
    import subprocess
    import tempfile

    from ..private import state_dir, unsafe

    try:
        with open(source, "rb") as handle:
            digest = hashlib.sha256(handle.read() + os.path.realpath(javac).encode()).hexdigest()[:16]
    except OSError:
        return None
    root = state_dir("judges")
    if root is None:
        return None
    folder = root / f"java-syntax-{digest}"
    try:
        if (folder / "JavaSyntax.class").is_file() and not unsafe(os.stat(folder)) \
                and not unsafe(os.stat(folder / "JavaSyntax.class")):
            return str(folder)
        staging = tempfile.mkdtemp(prefix="java-syntax-", dir=root)
    except OSError:
        return None
    try:
        done = subprocess.run([javac, "-d", staging, "-proc:none", "-nowarn", source], capture_output=True,
                              timeout=120, check=False, stdin=subprocess.DEVNULL)
        if done.returncode == 0:
            os.replace(staging, folder)
    except (OSError, subprocess.SubprocessError):
        pass  # another process made the folder first (its classes are the same), or javac failed
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return str(folder) if (folder / "JavaSyntax.class").is_file() else None


def _typescript_parser(tsc: str) -> tuple[str, ...] | None:
    """The ``typescript`` package that ``tsc`` belongs to, in node: its JavaScript parser
    where it has one (up to 6.x), else its native compiler through the package's API
    (7.x on), running the grammar's rules and no type check. A package with neither
    runs its ``tsc`` told to read this one file and check nothing."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(tsc)))
    node = shutil.which("node") or shutil.which("nodejs")
    checker = program("ts_syntax.cjs")
    for library in (os.path.join(package, "lib", "typescript.js"),
                    os.path.join(package, "dist", "api", "sync", "api.js")):
        if os.path.isfile(library):
            return (node, checker, library) if node and checker else None
    return (tsc, "--noEmit", "--noCheck", "--noResolve", "--pretty", "false", "--jsx", "preserve")


# Judges that are node packages with no program of their own: found on PATH (a bin the
# package installs), else in the global node_modules of the node on PATH, where
# ``npm install -g`` puts them. A project's own node_modules is its code: never run.
NODE_LIBRARIES = ("postcss", "html-validate")


def _node_package(name: str) -> str | None:
    """The folder of the package ``name`` installed globally for the node on PATH."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        return None
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(node)))
    for folder in (os.path.join(prefix, "lib", "node_modules", name), os.path.join(prefix, "node_modules", name)):
        if os.path.isfile(os.path.join(folder, "package.json")):
            return folder
    return None


def _web_parser(found: str) -> tuple[str, ...] | None:
    """postcss or html-validate, found as its package's folder or a program it installs
    (``bin/html-validate``), run by ``web_syntax.cjs`` in node."""
    package = found if os.path.isdir(found) else os.path.dirname(os.path.dirname(os.path.realpath(found)))
    node = shutil.which("node") or shutil.which("nodejs")
    checker = program("web_syntax.cjs")
    if node is None or checker is None or not os.path.isfile(os.path.join(package, "package.json")):
        return None
    return (node, checker, package)


_FAMILIES: dict[str, _Family] = {
    "gcc": _Family(_cc_args(False), _input("input.c"), readers.read_cc, "{exe} -fsyntax-only"),
    "clang": _Family(_cc_args(True), _input("input.c"), readers.read_cc, "{exe} -fsyntax-only"),
    "node": _Family(lambda _: ("--check", "{file}"), lambda _: "input.js", readers.read_node, "{exe} --check"),
    "gofmt": _Family(lambda _: ("-l", "-e", "{file}"), lambda _: "input.go", readers.read_gofmt, "{exe} -e"),
    # Formatted to stdout, not ``--check``: a file formatted otherwise is no error.
    "rustfmt": _Family(lambda _: ("--emit", "stdout", "--edition", "2021", "{file}"), lambda _: "input.rs",
                       readers.read_rustfmt, "{exe}"),
    "shell": _Family(lambda _: ("-n", "{file}"), lambda _: "input.sh", readers.read_shell, "{exe} -n"),
    "ruby": _Family(lambda _: ("-W0", "-c", "{file}"), lambda _: "input.rb", readers.read_ruby, "{exe} -c"),
    "php": _Family(lambda _: ("-n", "-l", "{file}"), lambda _: "input.php", readers.read_php, "{exe} -l"),
    "swiftc": _Family(lambda _: ("-parse", "{file}"), lambda _: "input.swift", readers.read_swift, "{exe} -parse"),
    "javac": _Family(lambda _: ("{file}",), _input("input.java"), readers.read_javac, "javac parser",
                     _javac_parser),
    "tsc": _Family(lambda _: ("{file}",), _input("input.ts"), readers.read_tsc, "typescript parser",
                   _typescript_parser),
    "postcss": _Family(lambda _: ("{file}",), _input("input.css"), readers.read_web, "postcss", _web_parser),
    "html-validate": _Family(lambda _: ("{file}",), _input("input.html"), readers.read_web, "html-validate",
                             _web_parser),
}


def tools_for(language: str, source: str) -> tuple[str, ...]:
    """The tools that may judge ``source`` in ``language``, the preferred first (a
    script's shell is the one its "#!" line names)."""
    record = spec(language)
    return record.tools_for(source) if record is not None else ()


def find_tool(language: str, source: str, commands: Mapping[str, str]) -> Tool | None:
    """The external judge for ``language`` here, or None (none installed, or turned off)."""
    chosen = commands.get(language) or commands.get("*")
    if chosen == OFF:
        return None
    if chosen:
        words = shlex.split(chosen)
        executable, extra = shutil.which(words[0]), tuple(words[1:])
        if executable is None and family(words[0]) in NODE_LIBRARIES and os.path.isdir(words[0]):
            executable = words[0]  # the package's folder
        return _tool(executable, language, extra) if executable else None
    for name in tools_for(language, source):
        executable = _which(name)
        if executable:
            return _tool(executable, language, ())
    return None


def _which(name: str) -> str | None:
    """Where ``name`` is: a JDK's tool in ``JAVA_HOME`` first, as Java's own tools look."""
    java_home = os.environ.get("JAVA_HOME", "")
    if java_home and family(name) == "javac":
        candidate = os.path.join(java_home, "bin", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if found is None and family(name) in NODE_LIBRARIES:
        return _node_package(name)
    return found


def _tool(executable: str, language: str, extra: tuple[str, ...]) -> Tool | None:
    kind = family(executable)
    if kind is None:
        return None
    how = _FAMILIES[kind]
    label = how.label.format(exe=os.path.basename(executable))
    if how.runs is not None:
        command = how.runs(executable)
        if command is None:
            return None
        executable, extra = command[0], command[1:] + extra
    return Tool(label, executable, extra + how.args(language), how.filename(language), how.read)


def in_process_available(language: str) -> bool:
    """The Python parser that judges ``language`` in process can be imported here."""
    parser = in_process(language)
    if parser == "PyYAML":
        try:
            import yaml  # noqa: F401
        except ImportError:
            return False
        return True
    return parser == "tomllib" and toml_parser() is not None
