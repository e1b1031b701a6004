"""Clean-file precision: is a clean real file ever reported broken, and is the same file
with one error in it still reported?

Collects clean real files per language from what is installed on this machine (the
standard libraries, /usr/include, node and Python packages, the system's scripts),
never from this repository. Each is confirmed clean by its language's own tool given
the file's real include folders (``confirm``), where that tool is installed here;
languages with no such tool are measured on unconfirmed files, and said so.

Each file is then checked as the pre-commit hook checks it (``tinycode check
--ignore-unknown -- FILE`` in this process): once as a copy alone in a temporary
folder (no project around it) and once where it lies, in its own project tree. One
corruption of each file (``tools/corrupt.py``), kept only where the language's own tool
rejects it, measures detection the same two ways (inside the project as an editor
sends an unsaved buffer: ``--stdin-filename FILE -``).

    python tools/bench.py --clean-files --per-language 40 --out clean.json

Most machines have sources for a few languages only. Those measured here came from:
``apt-get install ruby golang-go librust-serde-dev librust-regex-dev
librust-clap-dev librust-tokio-dev librust-syn-dev librust-rand-dev`` (Ruby's and Go's
standard libraries, Rust crates with their Cargo.toml);
``npm install -g typescript@5 @types/node rxjs zod @tanstack/react-query-devtools
@tanstack/react-router @radix-ui/themes`` (TypeScript and TSX sources, and TypeScript's
parser to confirm them); a JDK's ``lib/src.zip`` unpacked under /usr/local/share (Java,
confirmed by ``javac`` stopped after parsing); pythonnet's source archive from PyPI
unpacked there too (C#: unconfirmed, as no C# compiler here reads C# 8 or later).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from tinycode.cli import main as tinycode_main
from tinycode.languages import BUILTIN, detect
from tools.corrupt import KINDS, corrupt
from tools.referee import confirm

ROOT = Path(__file__).resolve().parent.parent
# Where installed sources live. Folders that do not exist are skipped.
SEARCH_ROOTS = ("/usr/lib", "/usr/share", "/usr/include", "/usr/local/include", "/usr/local/lib",
                "/usr/local/share", "/usr/bin", "/usr/sbin", "/etc", "/opt", "/root/.pyenv/versions",
                "/root/.cargo/registry", "/root/go/pkg", "/usr/local/go", "/usr/local")
# The C++ standard library's headers have no extension: checked with --lang cpp.
CPP_STANDARD_HEADERS = "/usr/include/c++"
MIN_BYTES, MAX_BYTES = 200, 150_000
CANDIDATES_PER_LANGUAGE = 600  # files looked at per language before sampling
# Files its own tool rejects (a fragment meant to be included mid-class, a dialect)
# before a language stops looking: each costs a compiler run.
MAX_REJECTED = 80
ERROR_ATTEMPTS = 12  # corruptions tried per file before it is left without a broken twin


def languages() -> list[str]:
    return [spec.name for spec in BUILTIN]


# --- finding files ---------------------------------------------------------------------

def candidates(limit: int = CANDIDATES_PER_LANGUAGE) -> dict[str, list[tuple[str, str]]]:
    """language -> [(path, language)] of installed files tinycode would take for it,
    outside this repository and /work."""
    found: dict[str, list[tuple[str, str]]] = {name: [] for name in languages()}
    seen: set[str] = set()
    for root in SEARCH_ROOTS:
        for path in _walk(root):
            real = os.path.realpath(path)
            if real in seen or real.startswith(("/work", str(ROOT), "/proc", "/sys", "/tmp")):
                continue
            try:
                size = os.path.getsize(path)
            except OSError:
                continue
            if not MIN_BYTES <= size <= MAX_BYTES:
                continue
            language = _language_of(path)
            if language is None or len(found[language]) >= limit:
                continue
            seen.add(real)
            found[language].append((path, language))
    return found


def _walk(root: str) -> Iterator[str]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("proc", "sys"))
        for name in sorted(files):
            yield os.path.join(folder, name)


def _language_of(path: str) -> str | None:
    if path.startswith(CPP_STANDARD_HEADERS + "/") and "." not in os.path.basename(path):
        return "cpp"
    name = os.path.basename(path)
    if "." not in name and not path.startswith(("/usr/bin/", "/usr/sbin/", "/etc/")):
        return None
    try:
        head = open(path, "rb").read(200) if "." not in name else None
    except OSError:
        return None
    language = detect(path, head)
    return language if language in languages() else None


# --- checking as the hook does ----------------------------------------------------------------

def hook_check(path: str, language: str, text: str | None = None) -> tuple[bool, list[str], float]:
    """(flagged, messages, seconds) of ``tinycode check --ignore-unknown -- path`` run in
    this process; with ``text``, that text is checked as the file at ``path`` (stdin with
    ``--stdin-filename``)."""
    argv = ["check", "--ignore-unknown", "--output-format", "json"]
    if language == "cpp" and "." not in os.path.basename(path):
        argv += ["--lang", "cpp"]
    argv += ["--stdin-filename", path, "-"] if text is not None else ["--", path]
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    if text is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = tinycode_main(argv)
    finally:
        sys.stdin = stdin
    seconds = time.perf_counter() - start
    try:
        reports = json.loads(out.getvalue() or "[]")
    except ValueError:
        reports = []
    messages = [f"{p['line']}: {p['message']}" for r in reports for p in r.get("problems", [])]
    messages += [r["error"] for r in reports if r.get("error")]
    return code != 0, messages, seconds


def alone(path: str, text: str, folder: str) -> str:
    """A copy of the file at ``path`` holding ``text``, alone in a new folder under ``folder``."""
    own = tempfile.mkdtemp(dir=folder)
    copy = os.path.join(own, os.path.basename(path))
    Path(copy).write_text(text, encoding="utf-8")
    return copy


# --- the benchmark ------------------------------------------------------------------------

def run(per_language: int = 40, seed: int = 0, only: list[str] | None = None,
        progress: bool = True) -> dict[str, Any]:
    """The report: per language, the clean files and their broken twins, checked alone
    and in their project."""
    rng = random.Random(seed)
    started = time.perf_counter()
    pool = candidates()
    report: dict[str, Any] = {"languages": {}, "per_language": per_language, "seed": seed}
    with tempfile.TemporaryDirectory(prefix="clean-bench-") as scratch:
        for language in only or languages():
            files = list(pool.get(language, []))
            rng.shuffle(files)
            report["languages"][language] = _language(language, files, per_language, rng, scratch, progress)
    report["wall_seconds"] = time.perf_counter() - started
    return report


def _language(language: str, files: list[tuple[str, str]], wanted: int, rng: random.Random,
              scratch: str, progress: bool) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    unconfirmed = rejected = 0
    seen_texts: set[str] = set()
    for path, _ in files:
        if len(rows) >= wanted or rejected >= MAX_REJECTED:
            break
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if text in seen_texts or not text.strip():
            continue
        verdict = confirm(text, path, language)
        if verdict is False:
            rejected += 1
            continue
        seen_texts.add(text)
        unconfirmed += verdict is None
        row: dict[str, Any] = {"path": path, "confirmed": verdict is True}
        for mode, where in (("alone", alone(path, text, scratch)), ("project", path)):
            flagged, messages, seconds = hook_check(where, language)
            row[mode] = {"flagged": flagged, "messages": messages[:3], "seconds": seconds}
        broken = _broken_twin(text, path, language, rng) if verdict is not None else None
        if broken is not None:
            row["error"] = broken[1]
            row["error_line"] = _changed(text, broken[0])
            for mode, (where, given) in (("broken_alone", (alone(path, broken[0], scratch), None)),
                                         ("broken_project", (path, broken[0]))):
                flagged, messages, seconds = hook_check(where, language, given)
                row[mode] = {"flagged": flagged, "messages": messages[:3], "seconds": seconds}
        rows.append(row)
        if progress:
            marks = " ".join(f"{m}={'FLAG' if row[m]['flagged'] else 'ok'}" for m in
                             ("alone", "project", "broken_alone", "broken_project") if m in row)
            print(f"[{language} {len(rows)}/{wanted}] {path}  {marks}", file=sys.stderr)
    return {"files": len(rows), "unconfirmed": unconfirmed, "rejected_by_own_tool": rejected,
            "installed": len(files), "rows": rows, **summary(rows)}


def _broken_twin(text: str, path: str, language: str, rng: random.Random) -> tuple[str, str] | None:
    """(text with one corruption its language's own tool rejects, the kind), or None."""
    for _ in range(ERROR_ATTEMPTS):
        kind = rng.choice(KINDS)
        broken = corrupt(text, kind, rng)
        if broken is not None and broken != text and confirm(broken, path, language) is False:
            return broken, kind
    return None


def _changed(clean: str, broken: str) -> str:
    """The first line that differs, as ``N: clean -> broken``, to see what was missed."""
    for number, (a, b) in enumerate(zip(clean.split("\n"), broken.split("\n")), 1):
        if a != b:
            return f"{number}: {a.strip()[:80]} -> {b.strip()[:80]}"
    return ""


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode in ("alone", "project"):
        out[f"flagged_{mode}"] = sum(1 for r in rows if r[mode]["flagged"])
        broken = [r for r in rows if f"broken_{mode}" in r]
        out[f"broken_{mode}"] = len(broken)
        out[f"detected_{mode}"] = sum(1 for r in broken if r[f"broken_{mode}"]["flagged"])
        times = [r[mode]["seconds"] for r in rows]
        out[f"median_ms_{mode}"] = 1000 * statistics.median(times) if times else None
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = [f"# Clean-file precision — up to {report['per_language']} files a language", "",
             "| language | files | confirmed | flagged alone | flagged in project | broken | detected alone "
             "| detected in project | check median ms (alone / project) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    missing = []
    for language, s in report["languages"].items():
        if not s["files"]:
            missing.append(language)
            continue
        confirmed = s["files"] - s["unconfirmed"]
        median = (f"{s['median_ms_alone']:.0f} / {s['median_ms_project']:.0f}"
                  if s["median_ms_alone"] is not None else "-")
        lines.append(f"| {language} | {s['files']} | {confirmed} | {s['flagged_alone']} | {s['flagged_project']} "
                     f"| {s['broken_alone']} | {_rate(s['detected_alone'], s['broken_alone'])} "
                     f"| {_rate(s['detected_project'], s['broken_project'])} | {median} |")
    if missing:
        lines += ["", "No installed sources found here for: " + ", ".join(missing) + "."]
    few = [f"{n} ({s['files']})" for n, s in report["languages"].items() if 0 < s["files"] < report["per_language"]]
    if few:
        lines += ["", "Fewer files installed than asked for: " + ", ".join(few) + "."]
    unconfirmed = [n for n, s in report["languages"].items() if s["files"] and s["unconfirmed"]]
    if unconfirmed:
        lines += ["", "No own tool here to confirm the files clean (nor to keep only errors it rejects): "
                  + ", ".join(unconfirmed) + "."]
    alarms = [(n, r, m) for n, s in report["languages"].items() for r in s["rows"]
              for m in ("alone", "project") if r[m]["flagged"]]
    if alarms:
        lines += ["", "## Clean files reported broken", ""]
        lines += [f"- {n} ({m}): `{r['path']}`: {'; '.join(r[m]['messages'][:2])}" for n, r, m in alarms]
    misses = [(n, r, m) for n, s in report["languages"].items() for r in s["rows"]
              for m in ("broken_alone", "broken_project") if m in r and not r[m]["flagged"]]
    if misses:
        lines += ["", "## Broken files reported clean", ""]
        lines += [f"- {n} ({m.split('_')[1]}): `{r['path']}` ({r['error']}: {r.get('error_line', '')})"
                  for n, r, m in misses]
    lines += ["", f"Wall time {report['wall_seconds']:.0f} s."]
    return "\n".join(lines) + "\n"


def _rate(hit: int, total: int) -> str:
    return f"{hit}/{total} ({hit / total:.0%})" if total else "-"
