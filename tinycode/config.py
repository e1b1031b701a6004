"""Settings for ``tinycode fix`` and friends:
defaults < user config < ``[tool.tinycode]`` < environment < CLI flags.

Every setting is one entry of :data:`SETTINGS`: its type, default, what it accepts,
its environment variable, its flag and which commands take it, whether an untrusted
project may set it, and its help. The :class:`Settings` dataclass, :data:`ENV_VARS`,
the keys a config file may hold, validation, :data:`RESTRICTED`, the commands' flags
(``commands/inputs.py``) and the README's table (``tools/settings_table.py``) are all
derived from it.

The project file is the nearest ``pyproject.toml`` with a ``[tool.tinycode]`` table,
found by walking up from the file or folder being worked on and stopping at the root
of the git repository or the user's home (like ruff and black); a file owned by
another user, or in a folder others may write, is not read. Keys are kebab-case in
TOML; an unknown key or a bad value raises ``ConfigError`` naming the file (or
variable, or flag) and the key.

Trust follows who wrote it (git's rule for repository config): flags, environment and
the user config (``$TINYCODE_CONFIG``, else ``$XDG_CONFIG_HOME/tinycode/config.toml``)
are the user's. A repository's ``pyproject.toml`` is its author's: it may not choose
where code is sent, which weights are loaded or widen the guard (:data:`RESTRICTED`)
unless the user lists the project in ``trusted-projects`` or passes ``--trust-project``;
such keys are ignored with a note.
"""

from __future__ import annotations

import copy
import fnmatch
import os
import re
import stat
from dataclasses import dataclass, field, make_dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Mapping

from . import languages
from .errors import ConfigError

# The names of the model backends and of the web_search backends, spelled here only.
BACKENDS = ("llama_cpp", "openai")
WEB_BACKENDS = ("offline", "duckduckgo", "searxng")
AGENT_STYLES = ("auto", "narrow", "open", "off")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


# --- what a setting accepts ----------------------------------------------------------

@dataclass(frozen=True)
class Values:
    """What a setting accepts: ``check`` returns the value normalised or raises
    ValueError; ``expects`` says it in words; ``options``: the choices, if any."""

    check: Callable[[object], object]
    expects: str
    options: tuple[str, ...] = ()

    def __call__(self, value: object) -> object:
        return self.check(value)


def _text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"expected a non-empty string, got {value!r}")
    return value.strip()


def _integer(minimum: int) -> Values:
    def check(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected a whole number, got {value!r}")
        if value < minimum:
            raise ValueError(f"must be at least {minimum}, got {value}")
        return value
    return Values(check, f"whole number ≥ {minimum}")


def _seconds(*, zero: bool = False) -> Values:
    def check(value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"expected a number of seconds, got {value!r}")
        if not (value >= 0 if zero else value > 0) or value != value or value == float("inf"):
            kind = "0 or more" if zero else "a positive number of"
            raise ValueError(f"must be {kind} seconds, got {value}")
        return float(value)
    return Values(check, "seconds, ≥ 0" if zero else "seconds, > 0")


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _choice(options: tuple[str, ...]) -> Values:
    def check(value: object) -> str:
        text = _text(value).lower().replace("-", "_")
        if text not in options:
            raise ValueError(f"expected one of {', '.join(options)}, got {value!r}")
        return text
    return Values(check, "one of " + ", ".join(f"`{o}`" for o in options), options)


def _url(*, trailing_slash: bool) -> Values:
    def check(value: object) -> str:
        text = _text(value)
        if not text.startswith(("http://", "https://")):
            raise ValueError(f"expected an http:// or https:// URL, got {value!r}")
        return text if trailing_slash else text.rstrip("/")
    return Values(check, "http(s) URL")


def _string_list(value: object) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"expected a list of non-empty strings, got {value!r}")
    return [v.strip() for v in value]


def _language_list(value: object) -> list[str]:
    names = []
    for item in _string_list(value):
        name = languages.normalize(item)
        if not languages.is_supported(name):
            known = ", ".join(languages.supported_languages())
            raise ValueError(f"unknown language {item!r} (known: {known})")
        names.append(name)
    return names


def _judges(value: object) -> dict[str, str]:
    from .languages.commands import parse_commands

    return parse_commands(value)


_SIZE = re.compile(r"\s*(\d+)\s*([kmg]?)i?b?\s*", re.IGNORECASE)


def byte_size(text: str) -> int:
    """A size flag's text: ``2000000``, ``500K``, ``2M``, ``1G`` (powers of 1024)."""
    match = _SIZE.fullmatch(text)
    if not match:
        raise ValueError(f"expected a number of bytes like 2000000 or 2M, got {text!r}")
    size = int(match.group(1)) * 1024 ** " kmg".index(match.group(2).lower() or " ")
    if size < 1:
        raise ValueError("must be at least 1 byte")
    return size


def human_size(size: int) -> str:
    """``2097152`` -> ``2M``: the largest unit that divides ``size``."""
    for unit, power in (("G", 3), ("M", 2), ("K", 1)):
        if size % 1024 ** power == 0:
            return f"{size // 1024 ** power}{unit}"
    return str(size)


def _looks_like_path(model: str) -> bool:
    return model.lower().endswith(".gguf") or "/" in model or os.sep in model


def _model_near_file(value: object, folder: Path) -> object:
    """A model path in a config file is relative to that file's folder."""
    if not _looks_like_path(str(value)):
        return value
    return str((folder / Path(str(value)).expanduser()).resolve())


# --- what an untrusted project may set ------------------------------------------------

@dataclass(frozen=True)
class Trust:
    """The rule for a restricted setting: ``widens(project_value, user_value)`` is True
    when an untrusted project's value reaches further than the user's (it is then
    ignored, with a note); ``allows`` says in words what such a project may still set."""

    widens: Callable[[Any, Any], bool]
    allows: str


def _only(safe: str) -> Trust:
    return Trust(lambda value, user: value != safe, f"only `{safe}`")


_NEVER = Trust(lambda value, user: True, "no")
_NOT_ABOVE_YOURS = Trust(lambda value, user: isinstance(value, int) and isinstance(user, int) and value > user,
                         "up to your own value")
_NOT_TRUE = Trust(lambda value, user: value is True and user is not True, "only `false`")
_NO_MODEL_PATH = Trust(lambda value, user: _looks_like_path(str(value)), "a registry name, not a path")
# Turning a judge off is fine; choosing the program it runs is not.
_JUDGES_OFF_ONLY = Trust(lambda value, user: any(command != "off" and dict(user).get(language) != command
                                                 for language, command in dict(value).items()),
                         "only `off`")


# --- the table ------------------------------------------------------------------------

@dataclass(frozen=True)
class Setting:
    """One setting. ``name`` is the :class:`Settings` field (``-`` for ``_`` as a config
    key); ``type`` says how an environment variable's text is read; ``values`` checks
    every value; ``flag`` is taken by ``commands``; ``trust`` (None: anyone may set it)
    is the rule for an untrusted project. ``in_config`` False: an environment variable
    only, read where it is used (no Settings object reaches there)."""

    name: str
    type: type
    default: object
    values: Values
    help: str
    env: str | None = None
    flag: str | None = None
    commands: tuple[str, ...] = ("fix",)
    trust: Trust | None = None
    in_config: bool = True
    parse_flag: Callable[[str], object] | None = None  # a flag's text -> value (default: ``type``)
    metavar: str | None = None
    near_file: Callable[[object, Path], object] | None = None  # a config file's value, made absolute

    @property
    def key(self) -> str:
        """The key in ``[tool.tinycode]`` and the user config."""
        return self.name.replace("_", "-")

    @property
    def annotation(self) -> str:
        kind = {list: "list[str]", dict: "dict[str, str]"}.get(self.type, self.type.__name__)
        return f"{kind} | None" if self.default is None else kind


_TEXT = Values(_text, "string")
_BOOLEAN = Values(_boolean, "true or false (a variable: also 1/0, yes/no, on/off)")
_LANGUAGES = Values(_language_list, "list of languages")
_SIZE_LIMIT = _integer(1)

SETTINGS: tuple[Setting, ...] = (
    Setting("model", str, None, _TEXT,
            "registry name or alias, or a path to a .gguf file (in a config file: relative to it); "
            "none: the registry's default", env="TINYCODE_MODEL", flag="--model", trust=_NO_MODEL_PATH,
            near_file=_model_near_file),
    Setting("backend", str, "llama_cpp", _choice(BACKENDS),
            "model backend: llama.cpp in process, or an OpenAI-compatible server",
            env="TINYCODE_BACKEND", flag="--backend", trust=_only("llama_cpp")),
    Setting("base_url", str, None, _url(trailing_slash=False),
            "OpenAI-compatible server URL (openai backend)", env="TINYCODE_BASE_URL", flag="--base-url",
            trust=_NEVER),
    Setting("server_slots", int, 0, _integer(0),
            "requests the model server takes at once, for --jobs (openai backend; 0: what the server "
            "reports, else 1); files waiting for a slot do not spend their timeout",
            env="TINYCODE_SERVER_SLOTS", flag="--server-slots"),
    Setting("max_steps", int, 8, _integer(1), "agent steps per file",
            env="TINYCODE_MAX_STEPS", flag="--max-steps"),
    Setting("timeout", float, 60.0, _seconds(), "seconds per file (wall time)",
            env="TINYCODE_TIMEOUT", flag="--timeout"),
    Setting("gpu_layers", int, 0, _integer(-1), "layers on the GPU (-1 = all)",
            env="TINYCODE_GPU_LAYERS", flag="--gpu-layers"),
    # Off by default: on Intel CPUs with AMX they crash llama-cpp-python 0.3.36 at the
    # first decode (llm/native.py); the README has their speed on and off.
    Setting("extra_buffers", bool, False, _BOOLEAN,
            "load the model with llama.cpp's extra buffer types (repacked or AMX weights); "
            "crashes on some CPUs with AMX", env="TINYCODE_EXTRA_BUFFERS", flag="--extra-buffers",
            trust=_NOT_TRUE),
    Setting("web", str, "offline", _choice(WEB_BACKENDS), "web_search backend",
            env="TINYCODE_WEB", flag="--web", trust=_only("offline")),
    Setting("offline", bool, False, _BOOLEAN,
            "no network access at all (servers on this machine excepted)",
            env="TINYCODE_OFFLINE", flag="--offline"),
    Setting("include_languages", list, [], _LANGUAGES, "only these languages (empty: all)"),
    Setting("exclude_languages", list, [], _LANGUAGES, "never these languages"),
    Setting("exclude", list, [], Values(_string_list, "list of globs"),
            "files and folders to skip (a glob with a / is relative to the config file's folder)"),
    Setting("max_changed_lines", int, 8, _integer(1),
            "minimal-edit guard: lines a repair may change in one region", trust=_NOT_ABOVE_YOURS),
    Setting("max_changed_tokens", int, 40, _integer(1),
            "minimal-edit guard: the token edit distance of a repair in one region", trust=_NOT_ABOVE_YOURS),
    # A stray bracket, a duplicated word, a ">>>" prompt: on the StackOverflow dev set
    # 96% of the human fixes remove at most 6 tokens.
    Setting("max_deleted_tokens", int, 6, _integer(0),
            "minimal-edit guard: code tokens a repair may remove in one region, net", trust=_NOT_ABOVE_YOURS),
    # An unclosed bracket is reported where it opens and closed where its statement ends.
    Setting("max_problem_distance", int, 6, _integer(0),
            "locality guard: lines a change may lie from a reported problem",
            env="TINYCODE_MAX_PROBLEM_DISTANCE", trust=_NOT_ABOVE_YOURS),
    Setting("max_file_size", int, 2 * 1024 * 1024, _SIZE_LIMIT,
            "bytes: larger files are skipped by fix, with an error", env="TINYCODE_MAX_FILE_SIZE",
            flag="--max-file-size", trust=_NOT_ABOVE_YOURS, parse_flag=byte_size, metavar="BYTES"),
    Setting("max_check_size", int, 8 * 1024 * 1024, _SIZE_LIMIT,
            "bytes: larger files are skipped by check, with an error", env="TINYCODE_MAX_CHECK_SIZE",
            flag="--max-file-size", commands=("check",), trust=_NOT_ABOVE_YOURS, parse_flag=byte_size,
            metavar="BYTES"),
    Setting("agent", str, "auto", _choice(AGENT_STYLES),
            "the ReAct agent on what the loop cannot repair: `auto` (as measured for the model: "
            "its registry entry, `open` for other models), `narrow` (pick a listed verified fix or "
            "rewrite lines, constrained), `open` (every tool, free text) or `off`",
            env="TINYCODE_AGENT", flag="--agent"),
    Setting("agent_only", bool, False, _BOOLEAN,
            "skip the fast path and the rewrite: the ReAct agent does the repair", flag="--agent-only"),
    Setting("lookup", bool, False, _BOOLEAN,
            "open the agent's run with a web_search for the first error", flag="--lookup"),
    Setting("judges", dict, {}, Values(_judges, "language = command, or `off`"),
            "each language's own checker, e.g. 'c=clang,bash=off' ('off': tree-sitter only)",
            env="TINYCODE_JUDGES", flag="--judges", commands=("fix", "check"), trust=_JUDGES_OFF_ONLY,
            metavar="LANG=CMD,..."),
    Setting("judge_timeout", float, 5.0, _seconds(), "seconds a judge may run before it is given up on",
            env="TINYCODE_JUDGE_TIMEOUT"),
    # Environment only: read where they are used, which no Settings object reaches.
    Setting("duckduckgo_url", str, "https://html.duckduckgo.com/html/", _url(trailing_slash=True),
            "address of DuckDuckGo's HTML page (web = duckduckgo)", env="TINYCODE_DUCKDUCKGO_URL",
            in_config=False),
    Setting("searxng_url", str, None, _url(trailing_slash=True),
            "your SearxNG instance (web = searxng)", env="TINYCODE_SEARXNG_URL", in_config=False),
    Setting("search_cache_ttl", float, 7 * 24 * 3600.0, _seconds(zero=True),
            "seconds a cached online search answer stays good (0: always ask again)",
            env="TINYCODE_SEARCH_CACHE_TTL", in_config=False),
    Setting("hf_endpoint", str, "https://huggingface.co", _url(trailing_slash=False),
            "where a model that is not installed is downloaded from (Hugging Face, or a mirror)",
            env="TINYCODE_HF_ENDPOINT", in_config=False),
)

# Read before any settings exist (where the config and the caches are), or a secret
# that belongs in no file: not settings, listed in the README beside them.
EARLY_VARIABLES: tuple[tuple[str, str], ...] = (
    ("TINYCODE_CONFIG", "the user config file (default `$XDG_CONFIG_HOME/tinycode/config.toml`, "
                        "else `~/.config/tinycode/config.toml`)"),
    ("TINYCODE_HOME", "tinycode's own folder: `models/`, `search-cache/`, `kv-cache/` "
                      "(default `$XDG_CACHE_HOME/tinycode`, else `~/.cache/tinycode`)"),
    ("TINYCODE_MODEL_CACHE", "the model cache folder itself (default `$TINYCODE_HOME/models`)"),
    ("TINYCODE_API_KEY", "bearer token sent to an `openai` backend server (never over plain http "
                         "to another machine)"),
)

_BY_NAME: dict[str, Setting] = {entry.name: entry for entry in SETTINGS}
# Environment variable -> setting name.
ENV_VARS: dict[str, str] = {entry.env: entry.name for entry in SETTINGS if entry.env}
# Settings a project's config may set only when the user trusts the project: they
# choose where code goes, which weights or programs run, or how far the guard reaches.
RESTRICTED: tuple[str, ...] = tuple(entry.name for entry in SETTINGS if entry.trust is not None)
_IN_CONFIG = frozenset(entry.name for entry in SETTINGS if entry.in_config)  # keys of a config file


def setting(name: str) -> Setting:
    """The table's entry for ``name``."""
    return _BY_NAME[name]


def flag_settings(command: str) -> list[Setting]:
    """The settings ``command`` (``fix``, ``check``) takes a flag for, in table order."""
    return [s for s in SETTINGS if s.flag is not None and command in s.commands]


def shown_default(entry: Setting) -> str:
    """The default as people read it: ``2M``, ``60``, ``offline``; "" when there is none."""
    value = entry.default
    if value is None or value is False or value == [] or value == {}:
        return ""
    if entry.parse_flag is byte_size and isinstance(value, int):
        return human_size(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "true" if value is True else str(value)


# --- the Settings dataclass, from the table ------------------------------------------

class _SettingsMethods:
    """What :class:`Settings` does beside holding the table's values."""

    config_path: Path | None
    include_languages: list[str]
    exclude_languages: list[str]
    exclude: list[str]

    @property
    def root(self) -> Path:
        """The folder ``exclude`` patterns are relative to: the config file's, else the cwd."""
        return self.config_path.parent if self.config_path is not None else Path.cwd()

    def skips(self, path: str | os.PathLike[str], language: str | None = None) -> bool:
        """True if ``path`` (in ``language``) is left alone: an ``exclude`` glob or the
        include/exclude language lists say so. Stdin (``-``) is never skipped by glob."""
        if language is not None:
            name = languages.normalize(language)
            if self.include_languages and name not in self.include_languages:
                return True
            if name in self.exclude_languages:
                return True
        if not self.exclude or os.fspath(path) == "-":
            return False
        return any(_glob_matches(candidate, pattern)
                   for candidate in _match_candidates(path, self.root)
                   for pattern in self.exclude)


def _field(entry: Setting) -> Any:
    if isinstance(entry.default, (list, dict)):
        return field(default_factory=lambda default=entry.default: copy.copy(default))
    return field(default=entry.default)


Settings: Any = make_dataclass(
    "Settings",
    [(s.name, s.annotation, _field(s)) for s in SETTINGS if s.in_config]
    + [("config_path", "Path | None", field(default=None)),   # the pyproject.toml the file values came from
       ("notes", "tuple[str, ...]", field(default=()))],       # project keys ignored for want of trust
    bases=(_SettingsMethods,),
    namespace={"__module__": __name__,
               "__doc__": "The merged settings: one field per entry of SETTINGS that a config "
                          "file may hold, plus where they came from (``config_path``) and the "
                          "project keys ignored for want of trust (``notes``)."})


# --- loading ----------------------------------------------------------------------------

def load_settings(overrides: Mapping[str, object] | None = None, start: str | os.PathLike[str] = ".",
                  *, environ: Mapping[str, str] | None = None) -> Settings:
    """Settings for files under ``start``: defaults, the user config, then
    ``[tool.tinycode]`` (restricted keys only if the project is trusted), then the
    environment, then ``overrides`` (CLI flags by field name; ``None`` = not given;
    ``trust_project=True`` trusts the project config found)."""
    env = os.environ if environ is None else environ
    given = {key.replace("-", "_"): value for key, value in (overrides or {}).items() if value is not None}
    trust_flag = bool(given.pop("trust_project", False))
    settings, trusted = _user_settings(user_config_path(env))
    notes: list[str] = []
    found = _find(start, notes)
    if found is not None:
        path, table = found
        project = _apply(settings, table, origin=str(path), kebab=True, base=path.parent)
        if not (trust_flag or _is_trusted(path.parent, trusted)):
            project = _without_restricted(project, settings, table, path, notes, env)
        settings = replace(project, config_path=path)
    for entry in SETTINGS:
        if entry.env and entry.in_config and env.get(entry.env, "").strip():
            settings = _apply(settings, {entry.name: env[entry.env]}, origin=entry.env, from_text=True)
    for key, value in given.items():
        flag = _BY_NAME[key].flag if key in _BY_NAME and _BY_NAME[key].flag else "--" + key.replace("_", "-")
        settings = _apply(settings, {key: value}, origin=flag)
    return replace(settings, notes=tuple(notes))


class RunSettings:
    """The settings of one run, per project: each file gets the configuration nearest
    to it (as ruff does), loaded once per folder. Project keys ignored for want of
    trust are given to ``say`` once each."""

    def __init__(self, overrides: Mapping[str, object], say: Callable[[str], None]) -> None:
        self._overrides = dict(overrides)
        self._by_folder: dict[str, Settings] = {}
        self._said: set[str] = set()
        self._say = say

    def at(self, path: str) -> Settings:
        """The settings for the file (or, for an existing folder, the files in) ``path``."""
        absolute = os.path.abspath(path)
        folder = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        settings = self._by_folder.get(folder)
        if settings is None:
            settings = load_settings(self._overrides, start=folder)
            self._by_folder[folder] = settings
            for note in settings.notes:
                if note not in self._said:
                    self._said.add(note)
                    self._say(note)
        return settings

    def first(self, paths: list[str], stdin_filename: str | None = None) -> Settings:
        """The run's settings for what is chosen once (the model, the server): those of
        the first path, or of ``--stdin-filename``, else of the current folder."""
        named = [p for p in paths if p != "-"]
        if stdin_filename and (not named or paths[0] == "-"):
            return self.at(stdin_filename)
        return self.at(named[0] if named else ".")

    def skips_folder(self, path: str) -> bool:
        """True if the configuration nearest ``path`` (a folder) excludes it."""
        return self.at(os.path.dirname(os.path.abspath(path))).skips(path)


def from_environment(name: str, environ: Mapping[str, str] | None = None, *, strict: bool = True) -> Any:
    """Setting ``name`` as its environment variable gives it (its default when unset or
    empty), for code that runs without a Settings object. A bad value raises
    ``ConfigError`` naming the variable, or with ``strict=False`` gives the default."""
    entry = _BY_NAME[name]
    env = os.environ if environ is None else environ
    text = env.get(entry.env or "", "")
    if not text.strip():
        return copy.copy(entry.default)
    try:
        return entry.values(_from_text(entry, text))
    except ValueError as exc:
        if not strict:
            return copy.copy(entry.default)
        raise ConfigError(f"{entry.env}: {exc}") from None


def user_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The user's own config file: ``$TINYCODE_CONFIG``, else
    ``$XDG_CONFIG_HOME/tinycode/config.toml`` (``~/.config`` by default)."""
    env = os.environ if environ is None else environ
    if env.get("TINYCODE_CONFIG", "").strip():
        return Path(env["TINYCODE_CONFIG"].strip()).expanduser()
    base = env.get("XDG_CONFIG_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "tinycode" / "config.toml"


def find_config(start: str | os.PathLike[str] = ".") -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.tinycode]`` table at or above
    ``start``, not looking past the folder holding ``.git`` or the user's home."""
    found = _find(start, [])
    return found[0] if found is not None else None


def _widens(key: str, value: object, user: object) -> bool:
    """True when a project's ``value`` for ``key`` reaches further than the user's."""
    rule = _BY_NAME[key].trust
    return rule is not None and value != user and rule.widens(value, user)


def _without_restricted(project: Settings, user: Settings, table: Mapping[str, object], path: Path,
                        notes: list[str], env: Mapping[str, str]) -> Settings:
    """``project`` with every restricted key the project widened set back to the user's value."""
    kept: dict[str, object] = {}
    for raw_key in table:
        key = raw_key.replace("-", "_")
        if _widens(key, getattr(project, key), getattr(user, key)):
            kept[key] = getattr(user, key)
            notes.append(f"{path}: ignored {raw_key} = {table[raw_key]!r}: an untrusted project may not "
                         f"set it (trust it with trusted-projects in {user_config_path(env)} or "
                         "--trust-project)")
    return replace(project, **kept)


def _user_settings(path: Path) -> tuple[Settings, list[Path]]:
    """The user config's settings and its ``trusted-projects`` folders."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings(), []
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    try:
        table = dict(toml_loads(text))
    except ValueError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    table.pop("tool", None)  # tolerate a pasted [tool.tinycode] header's parent
    raw_trusted = table.pop("trusted-projects", [])
    try:
        trusted = [Path(p).expanduser().resolve() for p in _string_list(raw_trusted)] if raw_trusted else []
    except ValueError as exc:
        raise ConfigError(f"{path}: trusted-projects: {exc}") from None
    return _apply(Settings(), table, origin=str(path), kebab=True, base=path.parent), trusted


def _is_trusted(folder: Path, trusted: list[Path]) -> bool:
    here = folder.resolve()
    return any(here == t or t in here.parents for t in trusted)


def _find(start: str | os.PathLike[str], notes: list[str]) -> tuple[Path, dict[str, object]] | None:
    here = Path(start).absolute()
    if not here.is_dir():
        here = here.parent
    home = Path(os.path.expanduser("~")).absolute()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            foreign = written_by_others(candidate)
            if foreign:
                notes.append(f"{candidate}: not read ({foreign})")
            else:
                table = _read_table(candidate)
                if table is not None:
                    return candidate, table
        if (folder / ".git").exists() or folder == home:
            return None
    return None


def written_by_others(path: Path) -> str:
    """Why ``path`` may have been written by someone else, or "" when it is the user's."""
    try:
        info = path.stat()
    except OSError:
        return ""
    if info.st_uid not in (os.getuid(), 0):
        return f"owned by another user (uid {info.st_uid})"
    if info.st_mode & stat.S_IWOTH:
        return "writable by every user"
    try:
        folder = path.parent.stat()
    except OSError:
        return ""
    # Anyone may replace a file in a folder every user may write, unless it is sticky
    # (as /tmp is: there only the owner may).
    if folder.st_mode & stat.S_IWOTH and not folder.st_mode & stat.S_ISVTX:
        return "in a folder every user may write"
    return ""


def toml_parser() -> ModuleType | None:
    """The TOML parser: the standard library's ``tomllib`` (3.11+), else ``tomli``, else None."""
    try:
        import tomllib
    except ImportError:
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            return None
    return tomllib


def toml_loads(text: str) -> dict[str, Any]:
    """``text`` parsed as TOML; ValueError (``TOMLDecodeError``) when it is not TOML."""
    parser = toml_parser()
    if parser is None:  # pragma: no cover - Python 3.10 without its tomli dependency
        raise ConfigError("reading TOML needs Python 3.11 or the tomli package")
    return parser.loads(text)


def _read_table(path: Path) -> dict[str, object] | None:
    """The ``[tool.tinycode]`` table of ``path``, or None if it has none."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    if "tinycode" not in text:  # most pyproject.toml files: no need to parse
        return None
    try:
        data = toml_loads(text)
    except ValueError as exc:  # tomllib.TOMLDecodeError subclasses ValueError
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    tool = data.get("tool")
    if not isinstance(tool, dict) or "tinycode" not in tool:
        return None
    if not isinstance(tool["tinycode"], dict):
        raise ConfigError(f"{path}: [tool.tinycode] must be a table")
    return tool["tinycode"]


# --- validation ---------------------------------------------------------------------

def _apply(settings: Settings, values: Mapping[str, object], *, origin: str, kebab: bool = False,
           from_text: bool = False, base: Path | None = None) -> Settings:
    """A copy of ``settings`` with ``values`` validated and set; errors name ``origin``.
    ``base``: the folder of the config file the values come from."""
    changes: dict[str, object] = {}
    for raw_key, value in values.items():
        key = raw_key.replace("-", "_") if kebab else raw_key
        if key not in _IN_CONFIG or (kebab and "_" in raw_key):
            where = f"{origin}: [tool.tinycode]" if kebab else origin
            if kebab and key in _IN_CONFIG:
                raise ConfigError(f"{where}: unknown key {raw_key!r} (did you mean {raw_key.replace('_', '-')!r}?)")
            expected = ", ".join(sorted(_BY_NAME[k].key for k in _IN_CONFIG))
            raise ConfigError(f"{where}: unknown key {raw_key!r} (known: {expected})")
        entry = _BY_NAME[key]
        label = f"{origin}: [tool.tinycode] {raw_key}" if kebab else origin
        try:
            changes[key] = entry.values(_from_text(entry, value) if from_text else value)
        except ValueError as exc:
            raise ConfigError(f"{label}: {exc}") from None
        if entry.near_file is not None and base is not None:
            changes[key] = entry.near_file(changes[key], base)
    return replace(settings, **changes)


def _from_text(entry: Setting, text: object) -> object:
    """An environment variable's text as the type ``entry`` wants."""
    value = str(text).strip()
    if entry.type is bool:
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise ValueError(f"expected 1/0, true/false, yes/no or on/off, got {value!r}")
    if entry.type is int:
        try:
            return int(value)
        except ValueError:
            raise ValueError(f"expected a whole number, got {value!r}") from None
    if entry.type is float:
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"expected a number of seconds, got {value!r}") from None
    return value


# --- exclude globs ------------------------------------------------------------------

def _match_candidates(path: str | os.PathLike[str], root: Path) -> list[str]:
    """``path`` relative to ``root`` and each of its parent folders within ``root``, so
    that ``build`` or ``build/`` excludes everything under ``build/``. Folders above
    ``root`` never count: a project living in ``~/build/`` is not excluded by ``build``."""
    given = Path(path)
    absolute = Path(os.path.normpath(given if given.is_absolute() else Path.cwd() / given))
    try:
        relative = absolute.relative_to(Path(os.path.normpath(root.absolute()))).as_posix()
    except ValueError:
        relative = absolute.name
    parts = [p for p in relative.split("/") if p not in ("", ".")]
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _glob_matches(candidate: str, pattern: str) -> bool:
    pattern = pattern.strip().rstrip("/")
    if "/" not in pattern:
        # A bare name or glob ("*.min.js", "vendor") matches at any depth, as in .gitignore.
        return fnmatch.fnmatchcase(candidate.rsplit("/", 1)[-1], pattern)
    # Any other slash anchors the pattern at the root ("./build", "/build", "docs/*.py").
    pattern = pattern[2:] if pattern.startswith("./") else pattern.lstrip("/")
    if pattern.startswith("**/") and fnmatch.fnmatchcase(candidate, pattern[3:]):
        return True
    return fnmatch.fnmatchcase(candidate, pattern)
