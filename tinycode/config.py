"""Settings for ``tinycode fix`` and friends:
defaults < user config < ``[tool.tinycode]`` < environment < CLI flags.

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

import fnmatch
import os
import stat
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Callable, Mapping

from . import languages
from .errors import ConfigError

BACKENDS = ("llama_cpp", "openai")
WEB_BACKENDS = ("offline", "duckduckgo", "searxng")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")

# Environment variable -> Settings field. TINYCODE_HOME and TINYCODE_MODEL_CACHE are
# read by the model cache code, not here.
ENV_VARS: dict[str, str] = {
    "TINYCODE_MODEL": "model",
    "TINYCODE_BACKEND": "backend",
    "TINYCODE_BASE_URL": "base_url",
    "TINYCODE_MAX_STEPS": "max_steps",
    "TINYCODE_TIMEOUT": "timeout",
    "TINYCODE_GPU_LAYERS": "gpu_layers",
    "TINYCODE_WEB": "web",
    "TINYCODE_OFFLINE": "offline",
    "TINYCODE_MAX_FILE_SIZE": "max_file_size",
    "TINYCODE_MAX_CHECK_SIZE": "max_check_size",
    "TINYCODE_MAX_PROBLEM_DISTANCE": "max_problem_distance",
    "TINYCODE_JUDGES": "judges",
    "TINYCODE_JUDGE_TIMEOUT": "judge_timeout",
}


@dataclass
class Settings:
    model: str | None = None          # registry name/alias or a path to a .gguf; None = default
    backend: str = "llama_cpp"        # "llama_cpp" | "openai"
    base_url: str | None = None       # for the openai backend
    max_steps: int = 8
    timeout: float = 60.0             # wall-time budget per file, seconds
    gpu_layers: int = 0               # -1 = all layers on the GPU
    web: str = "offline"              # "offline" | "duckduckgo" | "searxng"
    offline: bool = False             # TINYCODE_OFFLINE=1: no network at all
    include_languages: list[str] = field(default_factory=list)  # empty = all
    exclude_languages: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)  # glob patterns of files to skip
    max_changed_lines: int = 8        # minimal-edit guard: lines a repair may change
    max_changed_tokens: int = 40      # minimal-edit guard: token edit distance allowed
    max_deleted_tokens: int = 6       # minimal-edit guard: code tokens a repair may remove, net
    max_problem_distance: int = 6     # locality guard: lines a change may lie from a problem
    max_file_size: int = 2 * 1024 * 1024    # bytes: larger files are skipped by `fix`
    max_check_size: int = 8 * 1024 * 1024   # bytes: larger files are skipped by `check`
    agent_only: bool = False          # skip the fast path and the rewrite: the agent does it all
    lookup: bool = False              # the agent opens with a web_search for the first message
    # Native judges (tinycode/judges): {language: command or "off"}; a project may only say "off".
    judges: dict[str, str] = field(default_factory=dict)
    judge_timeout: float = 5.0        # seconds a judge may run before it is given up on
    config_path: Path | None = None   # the pyproject.toml the file values came from
    notes: tuple[str, ...] = ()       # project keys ignored because the project is not trusted

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
    for var, name in ENV_VARS.items():
        if env.get(var, "").strip():
            settings = _apply(settings, {name: env[var]}, origin=var, from_text=True)
    for key, value in given.items():
        settings = _apply(settings, {key: value}, origin="--" + key.replace("_", "-"))
    return replace(settings, notes=tuple(notes))


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


# Settings a project's config may set only when the user trusts the project: they
# choose where code goes, which weights or programs run, or how far the guard reaches.
RESTRICTED = ("backend", "base_url", "web", "model", "gpu_layers", "max_changed_lines",
              "max_changed_tokens", "max_deleted_tokens", "max_problem_distance",
              "max_file_size", "max_check_size", "judges")


def _widens(key: str, value: object, user: object) -> bool:
    """True when a project's ``value`` for ``key`` reaches further than the user's."""
    if key not in RESTRICTED or value == user:
        return False
    if key == "backend":
        return value != "llama_cpp"
    if key == "web":
        return value != "offline"
    if key == "model":
        return _looks_like_path(str(value))
    if key == "gpu_layers":
        return False
    if key == "base_url":
        return True
    if key == "judges":  # turning a judge off is fine; choosing the program it runs is not
        return any(command != "off" and dict(user).get(language) != command
                   for language, command in dict(value).items())
    return isinstance(value, int) and isinstance(user, int) and value > user


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
        table = dict(_toml_loads(text))
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
            foreign = _foreign(candidate)
            if foreign:
                notes.append(f"{candidate}: not read ({foreign})")
            else:
                table = _read_table(candidate)
                if table is not None:
                    return candidate, table
        if (folder / ".git").exists() or folder == home:
            return None
    return None


def _foreign(path: Path) -> str:
    """Why ``path`` may have been written by someone else, or "" when it is the user's."""
    try:
        info = path.stat()
    except OSError:
        return ""
    if info.st_uid not in (os.getuid(), 0):
        return f"owned by another user (uid {info.st_uid})"
    if info.st_mode & stat.S_IWOTH:
        return "writable by every user"
    return ""


def _toml_loads(text: str) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib.loads(text)


def _read_table(path: Path) -> dict[str, object] | None:
    """The ``[tool.tinycode]`` table of ``path``, or None if it has none."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    if "tinycode" not in text:  # most pyproject.toml files: no need to parse
        return None
    try:
        data = _toml_loads(text)
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
    """A copy of ``settings`` with ``values`` validated and set; errors name ``origin``."""
    known = {f.name for f in fields(Settings)} - {"config_path", "notes"}
    changes: dict[str, object] = {}
    for raw_key, value in values.items():
        key = raw_key.replace("-", "_") if kebab else raw_key
        if key not in known or (kebab and "_" in raw_key):
            where = f"{origin}: [tool.tinycode]" if kebab else origin
            if kebab and key in known:
                raise ConfigError(f"{where}: unknown key {raw_key!r} (did you mean {raw_key.replace('_', '-')!r}?)")
            expected = ", ".join(sorted(k.replace("_", "-") for k in known))
            raise ConfigError(f"{where}: unknown key {raw_key!r} (known: {expected})")
        label = f"{origin}: [tool.tinycode] {raw_key}" if kebab else origin
        try:
            changes[key] = _VALIDATORS[key](_from_text(key, value) if from_text else value)
        except ValueError as exc:
            raise ConfigError(f"{label}: {exc}") from None
        if key == "model" and base is not None and _looks_like_path(str(changes[key])):
            changes[key] = str((base / Path(str(changes[key])).expanduser()).resolve())
    return replace(settings, **changes)


def _from_text(key: str, text: object) -> object:
    """An environment variable's text as the type its field wants."""
    value = str(text).strip()
    if key in ("offline", "agent_only", "lookup"):
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise ValueError(f"expected 1/0, true/false, yes/no or on/off, got {value!r}")
    if key in ("max_steps", "gpu_layers", "max_changed_lines", "max_changed_tokens",
               "max_deleted_tokens", "max_file_size", "max_check_size", "max_problem_distance"):
        try:
            return int(value)
        except ValueError:
            raise ValueError(f"expected a whole number, got {value!r}") from None
    if key in ("timeout", "judge_timeout"):
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"expected a number of seconds, got {value!r}") from None
    return value


def _text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"expected a non-empty string, got {value!r}")
    return value.strip()


def _integer(minimum: int) -> Callable[[object], int]:
    def check(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected a whole number, got {value!r}")
        if value < minimum:
            raise ValueError(f"must be at least {minimum}, got {value}")
        return value
    return check


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number of seconds, got {value!r}")
    if not value > 0 or value != value or value == float("inf"):
        raise ValueError(f"must be a positive number of seconds, got {value}")
    return float(value)


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _choice(options: tuple[str, ...]) -> Callable[[object], str]:
    def check(value: object) -> str:
        text = _text(value).lower().replace("-", "_")
        if text not in options:
            raise ValueError(f"expected one of {', '.join(options)}, got {value!r}")
        return text
    return check


def _url(value: object) -> str:
    text = _text(value)
    if not text.startswith(("http://", "https://")):
        raise ValueError(f"expected an http:// or https:// URL, got {value!r}")
    return text.rstrip("/")


def _language_list(value: object) -> list[str]:
    items = _string_list(value)
    names = []
    for item in items:
        name = languages.normalize(item)
        if not languages.is_supported(name):
            known = ", ".join(languages.supported_languages())
            raise ValueError(f"unknown language {item!r} (known: {known})")
        names.append(name)
    return names


def _string_list(value: object) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"expected a list of non-empty strings, got {value!r}")
    return [v.strip() for v in value]


# --- native judges -------------------------------------------------------------------

def _judges(value: object) -> dict[str, str]:
    from .judges.registry import parse_commands

    return parse_commands(value)


def configure_judges(settings: Settings) -> None:
    """Make ``settings``' choice of judges the one ``check()`` uses in this process."""
    from . import judges

    judges.configure(settings.judges, settings.judge_timeout)


_VALIDATORS: dict[str, Callable[[object], object]] = {
    "model": _text,
    "backend": _choice(BACKENDS),
    "base_url": _url,
    "max_steps": _integer(1),
    "timeout": _seconds,
    "gpu_layers": _integer(-1),
    "web": _choice(WEB_BACKENDS),
    "offline": _boolean,
    "include_languages": _language_list,
    "exclude_languages": _language_list,
    "exclude": _string_list,
    "max_changed_lines": _integer(1),
    "max_changed_tokens": _integer(1),
    "max_deleted_tokens": _integer(0),
    "agent_only": _boolean,
    "lookup": _boolean,
    "max_problem_distance": _integer(0),
    "max_file_size": _integer(1),
    "max_check_size": _integer(1),
    "judges": _judges,
    "judge_timeout": _seconds,
}


def _looks_like_path(model: str) -> bool:
    return model.lower().endswith(".gguf") or "/" in model or os.sep in model


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
