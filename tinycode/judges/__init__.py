"""Native judges: each language's own tool says whether a text is syntactically valid.

tree-sitter's error recovery is made for highlighting: it misses some errors and
accepts some repairs that the compiler rejects. Where a language's own tool is
installed (gcc/clang, node, bash/sh, gofmt, rustfmt, ruby, php, swiftc; PyYAML and
tomllib in process) its verdict joins tree-sitter's in ``check()`` and decides.

Verdicts are remembered per text, so a repair that checks the same few texts again
and again (candidate search, the fast path, the final check) runs each tool a handful
of times. A tool that times out is not asked again in this process.

C and C++ are judged as the file's project would compile them, when the file's path is
known (``located(path)``): its include folders and macros (``project.py``). Where the
compiler still does not know the file's types, only what tree-sitter corroborates
counts (``unresolved.py``).

During a repair, ``baseline(source, language)`` records what the judge says about the
original beyond syntax (a missing header, an unknown name): those may stay, but a text
that adds any such message is reported as having a problem, so that a repair removes
syntax problems and adds none of any kind.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
import threading
from collections import Counter, OrderedDict
from typing import Iterator, Mapping, NamedTuple, Sequence

from ..config import Settings, from_environment, toml_parser
from ..deadline import DeadlineExceeded, ensure_time_left, expired, remaining
from ..languages import LanguageSpec, get_parser, read_as, spec
from . import grammar_gaps, headers, precompiled, project, readers, registry, unresolved
from .base import Diagnostic, Output, Runner, Tool, ToolTimeout, Verdict, run_tool
__all__ = ["Diagnostic", "Output", "Verdict", "baseline", "configure", "describe", "problems", "verdict",
           "calls", "read", "configure_from", "errors_after_repair", "judge_name", "in_process_only", "located",
           "unverified_changes"]

_CACHE_SIZE = 256
_MAX_HEADER_RETRIES = 4  # headers blanked out one by one when the compiler cannot find them


class _State:
    def __init__(self) -> None:
        self.commands: dict[str, str] | None = None  # None: the judges setting's variable, TINYCODE_JUDGES
        self.timeout: float | None = None  # None: the judge_timeout setting's, TINYCODE_JUDGE_TIMEOUT
        self.runner: Runner = run_tool
        self.cache: OrderedDict[tuple, tuple[Verdict | None, int]] = OrderedDict()  # -> (verdict, cost)
        self.tools: dict[tuple[str, str], Tool | None] = {}
        self.hung: set[str] = set()  # executables that timed out: not asked again
        self.calls = 0  # work outside any account(): tool runs (cache misses)
        self.read = 0  # and the characters those runs read, weighted by cost
        self.headers = precompiled.Cache()


_state = _State()


class _Account:
    """The judge work one repair asked for: what its searches budget."""

    def __init__(self) -> None:
        self.calls = 0
        self.read = 0  # characters of the texts those runs read, weighted by cost
        self.seen: set[tuple] = set()


_account: contextvars.ContextVar[_Account | None] = contextvars.ContextVar("tinycode_judge_account", default=None)


class _Baseline(NamedTuple):
    """What the original of a repair already had (``baseline``)."""

    original: str
    language: str
    allowed: Counter  # its non-syntax messages, which may stay
    names_unresolved: bool  # it had a header it cannot find or a name it never declares
    # its lines with a syntax error, and below each the rest of the brackets it opens
    # (an initialiser's), which the compiler skipped unread (``_unread_below``)
    broken_lines: frozenset[int]
    line_count: int
    words: frozenset[tuple[str, ...]]  # the words of each of its lines (``_words``)

    def untouched(self, message: str, source: str) -> bool:
        """Every line of ``source`` that names what ``message`` says is unresolved has
        the words of a line of the original: the repair neither used the name anew nor
        changed its declaration (it changed at most the punctuation around it), so the
        compiler only read on to where it was always unresolved (a file that is a
        fragment, once its syntax error no longer makes the compiler skip ahead)."""
        quoted = _QUOTED_NAME.search(message)
        if quoted is None:
            return False
        name = re.compile(rf"\b{re.escape(quoted.group(1))}\b")
        return all(_words(line) in self.words for line in source.split("\n") if name.search(line))

    def kept(self, line: int, source: str) -> bool:
        """Line ``line`` of ``source`` has the words of a line of the original."""
        rows = source.split("\n")
        return 0 < line <= len(rows) and _words(rows[line - 1]) in self.words

    def hidden_by_syntax(self, line: int, line_count: int) -> bool:
        """``line`` (of a text with ``line_count`` lines) is one the original could not
        parse, allowing for lines a repair added or removed above it."""
        shift = line_count - self.line_count
        return any(line - d in self.broken_lines for d in range(min(0, shift), max(0, shift) + 1))


_QUOTED_NAME = re.compile(r"'([A-Za-z_]\w*)'")
_WORD = re.compile(r"\w+")


def _words(line: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(line))


_baseline: contextvars.ContextVar[_Baseline | None] = contextvars.ContextVar("tinycode_judge_baseline", default=None)
_tools_off: contextvars.ContextVar[bool] = contextvars.ContextVar("tinycode_judge_tools_off", default=False)
# The path of the file being judged, when there is one: its project's flags come with it.
_location: contextvars.ContextVar[str | None] = contextvars.ContextVar("tinycode_judge_location", default=None)


@contextlib.contextmanager
def in_process_only() -> Iterator[None]:
    """Within the block, only the judges that run in this process speak (CPython, json,
    PyYAML, tomllib); a tool that would start a process gives no verdict. An editor's
    check on every keystroke cannot wait for a compiler (the language server runs the
    tools when a file is saved or the user is idle)."""
    token = _tools_off.set(True)
    try:
        yield
    finally:
        _tools_off.reset(token)


@contextlib.contextmanager
def located(path: str | None) -> Iterator[None]:
    """Judge texts as the file at ``path`` (None: a text of no file): a C or C++
    compiler then reads the headers of its project."""
    token = _location.set(path)
    try:
        yield
    finally:
        _location.reset(token)


def _project(language: str) -> bool:
    """``language``'s compiler is given the file's project (``project.py``)."""
    record = spec(language)
    return record is not None and record.project


def _project_flags(language: str) -> tuple[str, ...]:
    path = _location.get()
    if not _project(language) or not path:
        return ()
    return project.flags_for(path).flags


def configure(commands: Mapping[str, str] | None = None, timeout: float | None = None,
              runner: Runner | None = None) -> None:
    """Set the user's choice of judges (``{language: command or "off"}``), the timeout,
    and (for tests) how tools are run. ``None`` keeps the environment's default."""
    _state.commands = dict(commands) if commands is not None else None
    _state.timeout = timeout
    _state.runner = runner or run_tool
    _state.cache.clear()
    _state.tools.clear()
    _state.hung.clear()
    _state.headers = precompiled.Cache()


def configure_from(settings: Settings) -> None:
    """Make ``settings``' choice of judges the one ``check()`` uses in this process."""
    configure(settings.judges, settings.judge_timeout)


def calls() -> int:
    """The judge work spent, in runs weighted by each language's ``judge_cost``: what searches
    budget. Within ``account()``, every text the repair had judged counts once, whether
    or not this process remembered its verdict from before; outside it, the runs."""
    current = _account.get()
    return current.calls if current is not None else _state.calls


@contextlib.contextmanager
def account() -> Iterator[None]:
    """Count the judge work of one repair apart: its budgets then do not depend on what
    this process judged before (the same file twice, another file in another thread)."""
    token = _account.set(_Account())
    try:
        yield
    finally:
        _account.reset(token)


def read() -> int:
    """The characters of the texts the judge work of ``calls()`` read, each weighted by its
    language's ``judge_cost`` as the runs are (a judge's run takes longer on a longer
    text, a slow judge's more so), counted once per text as ``calls()`` counts runs."""
    current = _account.get()
    return current.read if current is not None else _state.read


def _charge(key: tuple, cost: int, ran: bool, size: int) -> None:
    """Count a judge's run of ``cost`` on a text of ``size`` characters (``calls``, ``read``)."""
    current = _account.get()
    read = cost * size
    if current is None:
        if ran:
            _state.calls += cost
            _state.read += read
    elif key not in current.seen:
        current.seen.add(key)
        current.calls += cost
        current.read += read


def _commands() -> dict[str, str]:
    if _state.commands is not None:
        return _state.commands
    # Not configured (tinycode used as a library): the environment, read as load_settings
    # reads it. A bad value is reported by load_settings; checking works without it.
    return from_environment("judges", strict=False)


def _timeout() -> float:
    if _state.timeout is not None:
        return _state.timeout
    return from_environment("judge_timeout", strict=False)


def _limit(tool: Tool) -> float:
    """How long a run may take: the judge timeout, or less when the file's deadline
    comes first (then a run cut short is the file's end, not a hung tool)."""
    ensure_time_left(f"a {tool.name} run")
    return min(_timeout(), remaining())


def _tool(language: str, source: str) -> Tool | None:
    key = (language, registry.tools_for(language, source))
    if key not in _state.tools:
        _state.tools[key] = registry.find_tool(language, source, _commands())
    tool = _state.tools[key]
    return None if tool is None or tool.executable in _state.hung else tool


@functools.lru_cache(maxsize=8)
def beyond_judge(source: str, language: str) -> bool:
    """``source`` has syntax the language's grammar reads and its judge does not
    (``LanguageSpec.beyond_judge``: JSX, a decorator, a ``using`` declaration for node).
    Remembered for the last few texts: a repair asks it of its input for every candidate."""
    record = spec(language)
    return record is not None and record.beyond_judge is not None and record.beyond_judge(source, get_parser(language))


def judge_name(language: str, source: str = "") -> str | None:
    """Who judges ``language`` here (besides tree-sitter), or None."""
    if registry.built_in(language):
        return registry.built_in(language)
    off = _commands().get(language, _commands().get("*")) == registry.OFF
    if registry.in_process(language):
        return None if off or not registry.in_process_available(language) else registry.in_process(language)
    tool = _tool(language, source)
    return tool.name if tool else None


def describe(languages: list[str]) -> dict[str, str]:
    """language -> its judge here (path included) or "tree-sitter only"; for ``check -v``."""
    out = {}
    for language in languages:
        if registry.built_in(language) or registry.in_process(language):
            out[language] = judge_name(language) or "tree-sitter only"
            continue
        tool = _tool(language, "")
        out[language] = f"{tool.name} ({tool.executable})" if tool else "tree-sitter only"
    return out


def verdict(source: str, language: str) -> Verdict | None:
    """The native judge's verdict on ``source``, or None when there is no judge (or it
    could not decide: it timed out, or it crashed)."""
    if registry.in_process(language):
        if judge_name(language) is None:
            return None
        key: tuple = (language, source)
        remembered = _remembered(key)
        ran = remembered is None
        if remembered is None:
            remembered = (_in_process(source, language), registry.run_cost(language))
            _remember(key, remembered)
        _charge(key, remembered[1], ran, len(source))
        return remembered[0]
    if _tools_off.get():
        return None
    tool = _tool(language, source)
    if tool is None:
        return None
    other = read_as(source, language)
    if other != language:
        # The text says another language's judge reads it (a C++ header named .h).
        language, tool = other, _tool(other, source)
        if tool is None:
            return None
    flags = _project_flags(language)
    whole = _repairing_a_whole_file(language)
    key = (tool.argv, tool.filename, flags, whole, source)
    remembered = _remembered(key)
    if remembered is not None:
        _charge(key, remembered[1], False, len(source))
        return remembered[0]
    spent = [0]
    try:
        found = _run(tool, source, language, spent, flags, whole=whole)
    except ToolTimeout:
        _charge(key, spent[0], True, len(source))
        if expired():  # the file's deadline cut it short
            raise DeadlineExceeded(f"time budget spent while {tool.name} ran") from None
        _state.hung.add(tool.executable)
        return None
    except OSError:
        found = None  # removed or not executable since it was found: no verdict
    _remember(key, (found, spent[0]))
    _charge(key, spent[0], True, len(source))
    return found


def _remembered(key: tuple) -> tuple[Verdict | None, int] | None:
    """(verdict, the work it cost) if this process has judged that text lately."""
    with _cache_lock:
        if key in _state.cache:
            _state.cache.move_to_end(key)
            return _state.cache[key]
    return None


def _remember(key: tuple, value: tuple[Verdict | None, int]) -> None:
    with _cache_lock:
        _state.cache[key] = value
        if len(_state.cache) > _CACHE_SIZE:
            _state.cache.popitem(last=False)


# fix --jobs runs repairs in threads against a server: the verdict cache is shared.
_cache_lock = threading.Lock()


def _repairing_a_whole_file(language: str) -> bool:
    """A repair of a whole file is under way (``baseline``): every text it judges is a
    whole file too. An edit that deletes a Go file's package clause makes no snippet of
    it (which the judge would be given a package clause for)."""
    base = _baseline.get()
    record = spec(language)
    return base is not None and base.language == language and record is not None \
        and record.snippet is not None and record.snippet(base.original) is None


def _run(tool: Tool, source: str, language: str, spent: list[int], flags: tuple[str, ...] = (),
         whole: bool = False, raw: bool = False) -> Verdict | None:
    """Run the tool (a compiler with the project's ``flags``); ``spent[0]`` grows by
    each run's cost. ``whole``: ``source`` is a whole file, not a snippet. ``raw``: the
    compiler's own classification, even where the file's types are unknown."""
    text, filename, extra = source, tool.filename, []
    record: LanguageSpec | None = spec(language)
    node = registry.family(tool.executable) == "node"
    if _project(language) and registry.family(tool.executable) in ("gcc", "clang"):
        text, extra, flags = _without_unreachable_headers(text, flags, tool.executable, language)
    if record is not None and record.judge_filename is not None:
        filename = record.judge_filename(source, filename)
    wrap = record.snippet(source) if record is not None and record.snippet is not None and not whole else None
    if wrap is not None:
        # A snippet: the language's record says what makes it a file for the judge.
        prefix, suffix = wrap
        found = _run(tool, prefix + source + suffix, language, spent, whole=True)
        if found is None:
            return None
        shift = len(prefix)
        return Verdict(found.judge, tuple(Diagnostic(d.line, max(1, d.column - shift) if d.line == 1 else d.column,
                                                     d.message, d.syntax) for d in found.diagnostics))
    if record is not None and record.judge_text is not None:
        text = record.judge_text(text)
    for _ in range(_MAX_HEADER_RETRIES + 1):
        spent[0] += registry.run_cost(language)
        output = _output(tool, text, language, filename, flags)
        found = tool.read(output, filename, text)
        if node and found and _needs_module(found[0].message) and filename.endswith((".js", ".cjs")):
            filename = "input.mjs"  # ES module syntax: node decides by the extension
            continue
        if node and not found and filename.endswith(".js") and _MODULE_WORD.search(text):
            # node --check passes a .js text whose CommonJS compile fails the way a module's
            # would, without compiling it as one (``if (a, export)``): asked as CommonJS
            # alone, then, where that fails so, as a module.
            filename = "input.cjs"
            continue
        header = next((d for d in found if readers.missing_header(d.message)), None)
        if header is None:
            break
        # A compiler stops at a header it cannot find: note it as a non-syntax problem
        # (a name mistyped as a syntax one), blank that line (the numbering stays) and
        # look at the rest of the file.
        lines = text.split("\n")
        if not 0 < header.line <= len(lines) or not lines[header.line - 1].strip():
            extra.append(Diagnostic(header.line, header.column, header.message, False))
            found = [d for d in found if d is not header]
            break
        mistyped = _mistyped_header(header.line, readers.missing_header(header.message) or "",
                                    lines[header.line - 1], flags, tool.executable, language)
        # What it said of the directive's own text stays (``#include <sys`` never closed).
        extra += [d for d in found if d.line == header.line and d.syntax and d is not header]
        extra.append(mistyped or Diagnostic(header.line, header.column, header.message, False))
        lines[header.line - 1] = ""
        text = "\n".join(lines)
    else:
        # Still stopped at a header after every retry: nothing past it was read.
        extra.append(Diagnostic(header.line, header.column, unresolved.UNREAD, False))
        found = [d for d in found if not readers.missing_header(d.message)]
    if output.returncode != 0 and not found and not extra:
        return None  # it failed without saying where: not a verdict
    if found and beyond_judge(source, language):
        return None  # syntax the grammar reads and the judge does not (JSX for node)
    diagnostics = extra + found
    if not raw and _project(language):
        diagnostics = unresolved.declared_in_comments(unresolved.misspelt_keywords(diagnostics, source), source)
        diagnostics = unresolved.run_into_headers(diagnostics, source, language)

        asked: list[frozenset[str]] = []

        def known() -> frozenset[str]:
            """The macros the headers define, asked of a real compiler only where a name
            beside an error would otherwise make the types unknown."""
            if not asked:
                real = _state.runner is run_tool and registry.family(tool.executable) in ("gcc", "clang")
                if real:
                    spent[0] += registry.run_cost(language)
                asked.append(headers.macros(text, flags, tool.executable, language, _limit(tool))
                             if real else frozenset())
            return asked[0]

        if unresolved.types_unknown(diagnostics, source, known):
            mistyped = [d for d in extra if d.syntax]  # a header name mistyped: tree-sitter cannot tell
            return Verdict(tool.name, tuple(mistyped + unresolved.agreed([d for d in diagnostics if d not in mistyped],
                                                                         source, language, *asked)), unresolved.NOTE)
    return Verdict(tool.name, tuple(diagnostics))


def _without_unreachable_headers(text: str, flags: tuple[str, ...], executable: str,
                                 language: str) -> tuple[str, list[Diagnostic], tuple[str, ...]]:
    """``text`` with the ``#include`` lines blanked whose header the compiler would not
    find (the numbering stays), and a note of each: one run then reads the whole file.
    A header a library installed in a folder of its own (``headers.installed``) is
    found there instead: the flags come back with that folder."""
    timeout = min(_timeout(), remaining())
    missing = headers.unreachable(text, flags, executable, language, timeout)
    if not missing:
        return text, [], flags
    folders = {name: headers.installed(name, executable, language, timeout) for _, name in missing}
    added = tuple(dict.fromkeys(folder for folder in folders.values() if folder))
    flags = flags + tuple(part for folder in added for part in ("-I", folder))
    missing = [(line, name) for line, name in missing if not folders[name]]
    if not missing:
        return text, [], flags
    lines = text.split("\n")
    notes = [_mistyped_header(line, name, lines[line - 1], flags, executable, language)
             or Diagnostic(line, 1, f"{name}: No such file or directory", False) for line, name in missing]
    for line, _ in missing:
        lines[line - 1] = ""
    return "\n".join(lines), notes, flags


def _mistyped_header(line: int, name: str, text: str, flags: tuple[str, ...], executable: str,
                     language: str) -> Diagnostic | None:
    """The syntax problem of the header ``name`` on ``line`` (its ``text``) that a gcc or
    clang will not find, or None: a header missing from the project is no syntax error,
    but an <angled> name one character away from a header the compiler has, or with its
    ``>`` typed too early, is a name mistyped (``headers.meant``)."""
    if registry.family(executable) not in ("gcc", "clang"):
        return None
    near = headers.meant_by(text, flags, executable, language, min(_timeout(), remaining()))
    if near is None:
        return None
    return Diagnostic(line, text.find("<") + 1, f"no header <{name}>: did you mean <{near}>?", True)


def _output(tool: Tool, text: str, language: str, filename: str, flags: tuple[str, ...] = ()) -> Output:
    """One run of the tool on ``text``; node's runs go to its worker where it can say."""
    (argv, text), limit = _argv(tool, text, language, flags), _limit(tool)
    if _state.runner is run_tool and (registry.family(tool.executable) == "node" or registry.served(tuple(argv))):
        from . import warm  # only node and tinycode's own parsers run warm, not every check's start-up

        found = warm.output(argv, text, filename, limit)
        if found is not None:
            return found
    return _state.runner(argv, text, filename, limit)


def _argv(tool: Tool, text: str, language: str, flags: tuple[str, ...] = ()) -> tuple[Sequence[str], str]:
    """The command for one run and the text it reads: a compiler's names the project's
    flags before the input; a gcc run on C or C++ names the precompiled header of the
    standard headers the text begins with, once there is one, and reads the text with
    those lines emptied (``precompiled.split_block``)."""
    argv = tool.argv
    if flags:
        at = argv.index("{file}")
        argv = argv[:at] + flags + argv[at:]
    if (not _project(language) or _state.runner is not run_tool
            or registry.family(tool.executable) != "gcc"):
        return argv, text
    block = precompiled.split_block(text)
    header = _state.headers.include_for(argv, language, block.text, _limit(tool), block.tested)
    return (precompiled.with_include(argv, header), block.rest) if header else (argv, text)


# A module's keyword anywhere but as a name's part, a property or a call (``import(``).
_MODULE_WORD = re.compile(r"(?<![\w$.])(?:import|export)(?![\w$]|[ \t]*[.(:])")
_MODULE_HINTS = re.compile(r"import statement outside a module|Unexpected token 'export'|"
                           r"top level bodies of modules|import\.meta|Cannot use 'import\.meta'")


def _needs_module(message: str) -> bool:
    return bool(_MODULE_HINTS.search(message))


def _in_process(source: str, language: str) -> Verdict | None:
    if registry.in_process(language) == "PyYAML":
        import yaml

        # libyaml's parser where PyYAML was built with it (its wheels are): the same
        # reading twenty times faster than PyYAML's own, and a search checks thousands of
        # texts.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        try:
            for _ in yaml.parse(source, Loader=loader):  # events only: custom tags are fine
                pass
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
            context = exc.context
            opened = exc.context_mark
            if context and opened and opened.line + 1 != line \
                    and _char_at(source, opened.line, opened.column) in "{[\"'":
                # Where the bracket or quote opened, as CPython names it ("on line N"):
                # the closer it lost most often belongs there, not where the parser gave up.
                context = f"{context} opened on line {opened.line + 1}"
            message = " ".join(filter(None, (context, exc.problem))) or str(exc)
            return Verdict("PyYAML", (Diagnostic(line, column, message, True),))
        except (yaml.YAMLError, RecursionError, ValueError) as exc:
            return Verdict("PyYAML", (Diagnostic(1, 1, str(exc).split("\n")[0], True),))
        return Verdict("PyYAML")
    tomllib = toml_parser()
    assert tomllib is not None  # judge_name() said it is there
    try:
        tomllib.loads(source)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        where = re.search(r"\(at line (\d+), column (\d+)\)", message)
        line, column = (int(where.group(1)), int(where.group(2))) if where else (1, 1)
        return Verdict("tomllib", (Diagnostic(line, column, re.sub(r"\s*\(at .*\)$", "", message), True),))
    except RecursionError:
        return None
    return Verdict("tomllib")


def _char_at(source: str, line: int, column: int) -> str:
    """The character at 0-based ``line`` and ``column`` of ``source``, or ''."""
    lines = source.split("\n", line + 1)
    return lines[line][column:column + 1] if line < len(lines) else ""


# --- a repair where the compiler does not know the file's types ---------------------

# What a compiler says of a name it cannot resolve: (name, the namespace it looked in).
_UNKNOWN_NAME = re.compile(
    r"^(?:unknown type name '(?P<t1>\w+)'|'(?P<t2>\w+)' (?:in namespace '(?P<ns>[\w:]+)' )?does not name a "
    r"(?:template )?type|'(?P<t3>\w+)' is not a type|no type named '(?P<t4>\w+)' in namespace '(?P<ns2>[\w:]+)'|"
    r"'(?P<v1>\w+)' (?:undeclared|was not declared in this scope|has not been declared)|"
    r"use of undeclared identifier '(?P<v2>\w+)')")
_DECLARING_ROUNDS = 3  # each declaration can let the compiler read on to more names


def unverified_changes(original: str, result: str, language: str) -> list[Diagnostic]:
    """Where the compiler does not know the file's types (``unresolved.NOTE``), so that
    its syntax messages were set aside: the syntax messages it still gives on the lines
    ``result`` changed from ``original`` once the names it did not know are declared as
    types, that it did not give on the same line of ``original``; and a syntax error
    inside a header included below a changed line, which the text before the
    ``#include`` left open (whether or not ``original`` ran into it too: the headers
    are not what was broken). [] when it accepts the change, or when no compiler judges
    the language here."""
    language = read_as(result, language)
    record = spec(language)
    if record is None or record.declare_type is None or _tools_off.get():
        return []
    after = _declared_syntax(result, language)
    before = _declared_syntax(original, language)
    if after is None or before is None:
        return []
    seen = {(d.message, row) for d, row in before}
    changed = _changed_lines(original, result)
    return [d for d, row in after
            if (readers.syntax_in_header(d.message) and d.line > min(changed, default=d.line))
            or ((d.message, row) not in seen and any(abs(d.line - line) <= 1 for line in changed))]


def syntax_in_headers(result: str, language: str) -> list[Diagnostic]:
    """The syntax errors the compiler meets inside headers ``result`` includes, each on
    the file's ``#include`` that led there: the headers are not what is broken, the
    file's text before them is (a comment's closer typed early, ``*/**``, leaving ``**``
    as code), and the compiler rejects the file (remembered from its check: no new run)."""
    found = verdict(result, language)
    return [d for d in found.diagnostics if readers.syntax_in_header(d.message)] if found is not None else []


def headers_lost(original: str, result: str, language: str) -> list[Diagnostic]:
    """The compiler's "no such file" for each header that ``result`` names on a line it
    changed and that ``original`` did not miss: a repair of an ``#include`` line must
    name a header the compiler finds (remembered from their checks: no new run)."""
    after = verdict(result, language)
    if after is None:
        return []
    before = verdict(original, language)
    missed = {readers.missing_header(d.message) for d in (before.diagnostics if before is not None else ())}
    changed = _changed_lines(original, result)
    return [d for d in after.diagnostics
            if d.line in changed and readers.missing_header(d.message) not in missed | {None}]


def unknown_names(source: str, language: str) -> list[tuple[int, str, str]]:
    """(line, name, the name the compiler suggests or "") for each name the language's
    compiler could not resolve in ``source`` (remembered from its check: no new run)."""
    found = verdict(source, language)
    if found is None:
        return []
    out = []
    for diagnostic in found.diagnostics:
        named = unresolved.unresolved_name(diagnostic.message)
        if named is not None:
            out.append((diagnostic.line, *named))
    return out


def names_unresolved_at_repair(original: str, result: str, language: str) -> list[tuple[int, str]]:
    """(line, name) for each name the compiler cannot resolve in ``result`` where that
    is no missing header's doing: on a line that ``result`` changed from ``original``, a
    name the repair typed that the compiler resolves on another line (another scope's
    member, typed where it means nothing); on any line, in a file whose every header is
    found, a name used nowhere else (``null_type_Alloc``, ``is_pointertypename``: two
    names fused, which the repair left) or named on a line the compiler does not report
    it on (another function's parameter: ``r_lhs_key`` where ``r_lhs_keysize_type`` fused
    two). A missing header's names, and a fragment's, are unknown wherever they are used.
    Remembered from the checks: no new run."""
    found = verdict(result, language)
    if found is None:
        return []
    unknown: dict[str, set[int]] = {}
    for line, name, _ in unknown_names(result, language):
        unknown.setdefault(name, set()).add(line)
    if not unknown:
        return []
    # (a file that names its headers, every one found; not a fragment, whose file's
    # headers are not here)
    every_header = bool(_INCLUDE.search(result)) and not any(readers.missing_header(d.message)
                                                             for d in found.diagnostics)
    changed = _changed_lines(original, result)
    lines = result.split("\n")
    out = []
    for name, where in unknown.items():
        word = re.compile(rf"\b{re.escape(name)}\b")
        uses = len(word.findall(result))
        if every_header and name != name.upper() and (
                uses == 1 or any(word.search(row) for number, row in enumerate(lines, 1) if number not in where)):
            # (on a line the repair left too: a slip it left, or a name of another scope,
            # which the compiler resolves on a line it does not report; not a name in
            # capitals, a macro the file leaves to the file including it)
            out.append((min(where), name))
            continue
        if not where & changed:
            continue
        typed = uses > len(word.findall(original)) and any(
            word.search(row) for number, row in enumerate(lines, 1) if number not in where | changed)
        if typed or (every_header and uses == 1):
            out.append((min(where & changed), name))
    return sorted(out)


_INCLUDE = re.compile(r"^\s*#\s*include\b", re.MULTILINE)


def errors_after_repair(original: str, result: str, language: str) -> list[Diagnostic]:
    """The compiler's errors on ``result`` that it did not report on ``original``, with
    every header the file names found (a file that names its headers, all found, is a
    whole unit: a name none of them declares is unknown for good): a name the repair
    typed that means nothing there, an operator made a macro's name (``#ifndef or``), or
    a mistake the input's syntax error kept the compiler from reading (a parameter's name
    lost in a struct it did not read). The input's messages vouch for no line the repair
    changed (what the compiler still says there, the repair did not repair), nor, where
    it changed an ``#include`` (a header name broken), for the lines beside them: they
    were said of other headers' types. Remembered from the checks: no new run."""
    found = verdict(result, language)
    if found is None or any(readers.missing_header(d.message) for d in found.diagnostics):
        return []
    if found.note and not _INCLUDE.search(result):
        return []  # a fragment, without the headers of the file it was taken from
    before = verdict(original, language)
    said = Counter(d.message for d in before.diagnostics) if before is not None else Counter()
    changed = _changed_lines(original, result)
    rows = result.split("\n")
    # (beside a changed line too, where the repair changed an #include)
    beside = 1 if any(_INCLUDE.match(rows[number - 1]) for number in changed if number <= len(rows)) else 0
    new = []
    for d in found.diagnostics:
        if said[d.message] and not any(abs(d.line - line) <= beside for line in changed):
            said[d.message] -= 1
        else:
            new.append(d)
    return new


def _changed_lines(original: str, result: str) -> set[int]:
    """The 1-based lines of ``result`` that are not lines of ``original`` (a line after
    a deletion counts as changed)."""
    import difflib

    changed: set[int] = set()
    matcher = difflib.SequenceMatcher(None, original.split("\n"), result.split("\n"), autojunk=False)
    for tag, _, _, start, end in matcher.get_opcodes():
        if tag != "equal":
            changed.update(range(start + 1, max(end, start + 1) + 1))
    return changed


def _declared_syntax(text: str, language: str) -> list[tuple[Diagnostic, str]] | None:
    """The compiler's syntax messages on ``text`` with the names it does not know
    declared before it (the numbering kept by ``#line``), each with its line's text."""
    record = spec(language)
    tool = _tool(language, text)
    if record is None or record.declare_type is None or tool is None:
        return None
    flags = _project_flags(language)
    declared: dict[str, str] = {}
    found: Verdict | None = None
    for _ in range(_DECLARING_ROUNDS + 1):
        prefix = "".join(line + "\n" for line in declared.values()) + ("#line 1\n" if declared else "")
        key = (tool.argv, tool.filename, flags, "declared", prefix + text)
        remembered = _remembered(key)
        spent = [0]
        try:
            found = remembered[0] if remembered is not None else _run(tool, prefix + text, language, spent, flags,
                                                                        raw=True)
        except (ToolTimeout, OSError):
            return None
        if remembered is None:
            _remember(key, (found, spent[0]))
        _charge(key, spent[0], remembered is None, len(prefix) + len(text))
        if found is None:
            return None
        more = _declarations(found.diagnostics, text, record.declare_type, set(declared))
        if not more:
            break
        declared.update(more)
    assert found is not None
    lines = text.split("\n")
    return [(d, lines[d.line - 1].strip() if 0 < d.line <= len(lines) else "") for d in found.diagnostics
            if d.syntax or readers.syntax_in_header(d.message)]


def _declarations(diagnostics: Sequence[Diagnostic], text: str, declare, known: set[str]) -> dict[str, str]:
    """name -> its declaration as a type, for each name the compiler did not know and
    the text uses as a type: said to be one, or named on a line it also reports a
    syntax error on (``foo_t *p = (foo_t *) q;``: "'foo_t' undeclared", "expected expression")."""
    syntax_lines = {d.line for d in diagnostics if d.syntax and not _UNKNOWN_NAME.match(d.message)}
    out: dict[str, str] = {}
    for d in diagnostics:
        match = _UNKNOWN_NAME.match(d.message)
        if match is None:
            continue
        name = match.group("t1") or match.group("t2") or match.group("t3") or match.group("t4")
        if name is None:
            name = match.group("v1") or match.group("v2")
            if d.line not in syntax_lines:
                continue  # a value it does not know: not the grammar's business
        if name in known or name in out:
            continue
        template = re.search(rf"\b{re.escape(name)}\s*<", text) is not None
        out[name] = declare(name, match.group("ns") or match.group("ns2") or "", template)
    return out


# --- what counts as a problem during a repair ----------------------------------------

# The end of a message, not of the grammar's, that the original did not have (``problems``).
NEW_MARK = " (new: the original did not have it)"

def _key(diagnostic: Diagnostic) -> str:
    return re.sub(r"\s*\(first use in this function\)", "", diagnostic.message)


def _names_unresolved(found: Verdict) -> bool:
    """The file leaves names unresolved already (a header it cannot find, a name it never
    declares): a repair that lets the compiler read on meets more such names, not
    because of the repair."""
    return unresolved.types_unknown(found.diagnostics)


@contextlib.contextmanager
def baseline(source: str, language: str) -> Iterator[None]:
    """While repairing ``source``: its non-syntax messages may stay, new ones are problems."""
    found = verdict(source, language)
    # A message on a line with a syntax error is taken for its consequence ("too few
    # arguments" where a ',' is missing): it does not earn a place in the baseline.
    broken_lines = {d.line for d in found.syntax} if found is not None else set()
    counts = Counter(_key(d) for d in found.other if d.doubtful or d.line not in broken_lines) \
        if found is not None else Counter()
    unread = _unread_below(source, broken_lines) if broken_lines else set()
    token = _baseline.set(_Baseline(source, language, counts, found is not None and _names_unresolved(found),
                                    frozenset(broken_lines | unread), source.count("\n") + 1,
                                    frozenset(_words(line) for line in source.split("\n"))))
    try:
        yield
    finally:
        _baseline.reset(token)


BRACKETS_UNREAD = 60  # lines below a syntax error followed to where the brackets it opened close


def _unread_below(source: str, lines: set[int]) -> set[int]:
    """The lines below each of ``lines`` up to where the brackets that line leaves open
    close (``methods[] == {`` over its initialiser's entries): after the syntax error a
    compiler skips the declaration it broke, so what it says there once the error is
    repaired, it had never read."""
    rows = readers.code_only(source).split("\n")
    unread: set[int] = set()
    for line in lines:
        depth = 0
        for number in range(line, min(len(rows), line + BRACKETS_UNREAD) + 1):
            text = rows[number - 1]
            depth += sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
            if depth <= 0:
                break
            unread.add(number + 1)
    return unread


def parser_only(source: str, language: str, found: list) -> tuple[list, str]:
    """tree-sitter's problems ``found`` in a ``source`` that no tool of its language
    answered for (none here, or it timed out): those that remain once what the language
    allows and its grammar does not is blanked (``grammar_gaps``); in C or C++, without
    those an unknown macro explains, and the note that says so."""
    text = grammar_gaps.blanked(source, language)
    if text != source:
        from ..problems import tree_sitter_problems

        found = tree_sitter_problems(text, language)
    if _project(language):
        return unresolved.parser_only(found, text), unresolved.NOTE
    return found, ""


# How far up a declaration or statement is followed from a line (its first line): a
# function's head runs over a few lines, its template and specifiers included.
STATEMENT_LINES = 6
# A line after which a new declaration or statement begins: one ending a statement or
# opening or closing a block, a directive, or a blank line.
_ENDS_STATEMENT = re.compile(r"(?:[;{}]|^\s*#.*|^\s*)$")


def _statement_start(source: str, line: int) -> int:
    """The first line of the declaration or statement that ``line`` of ``source`` is in,
    at most STATEMENT_LINES above it (comments aside: a line's own ``//`` comment)."""
    lines = readers.code_only(source).split("\n")
    start = line
    while start > 1 and line - start < STATEMENT_LINES \
            and not _ENDS_STATEMENT.search(lines[start - 2].rstrip() if start - 2 < len(lines) else ""):
        start -= 1
    return start


def problems(source: str, language: str) -> tuple[str, list[Diagnostic]] | None:
    """(judge, the diagnostics that are problems) for ``source``, or None without a
    verdict. Problems are the syntax messages, and during a repair (``baseline``) also
    any other message the original did not have. In a file that already leaves names
    unresolved (its macros unexpanded, its types unknown), more such names, what the
    compiler says of a line it could not parse before, and what it says, uncorroborated
    by tree-sitter, of a line the repair left as it was (``is_const<T>`` read on to), are
    not the repair's doing. Nor, until it is repaired, is what the compiler says past the
    text's first syntax error: how it reads on depends on how it recovered."""
    found = verdict(source, language)
    if found is None:
        return None
    out = list(found.syntax)
    current = _baseline.get()
    # The original's own messages are never new to it (a problems_before that says "new").
    if current is not None and current.language == language and found.other and source != current.original:
        allowed = Counter(current.allowed)
        # (past the text's first syntax error, what the compiler says depends on how it
        # recovered from it: that error's doing, until it is repaired; so is what it says
        # of the lines above it of the same declaration, "no declaration matches" a
        # function whose parameters end in a ',')
        first_syntax = min((d.line for d in found.syntax), default=None)
        # (the text read for it only where the compiler said something just above)
        begins = _statement_start(source, first_syntax) if first_syntax is not None and any(
            first_syntax - STATEMENT_LINES <= d.line < first_syntax for d in found.other) else first_syntax
        for diagnostic in found.other:
            key = _key(diagnostic)
            if first_syntax is not None and (diagnostic.line > first_syntax or begins <= diagnostic.line < first_syntax):
                continue
            if allowed[key] > 0:
                allowed[key] -= 1
            elif not ((unresolved.UNRESOLVED.match(diagnostic.message)
                       and (current.names_unresolved or current.untouched(diagnostic.message, source)))
                      or (current.names_unresolved and not diagnostic.doubtful
                          and current.hidden_by_syntax(diagnostic.line, source.count("\n") + 1))
                      or (current.names_unresolved and diagnostic.doubtful
                          and current.kept(diagnostic.line, source))):
                out.append(Diagnostic(diagnostic.line, diagnostic.column,
                                      diagnostic.message + NEW_MARK, True))
    out.sort(key=lambda d: (d.line, d.column))
    return found.judge, out
