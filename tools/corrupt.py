"""Error cases made from clean files, so every language can be measured.

One corruption per error: delete or duplicate a bracket, delete a colon, comma or
semicolon, drop a closing quote, or break a line's indentation. With ``errors`` K > 1,
K corruptions at lines at least MIN_APART apart, each of which the checker sees. A case is kept only
when the checker then reports a problem and the clean file itself would count as a
successful repair (1-4 tokens away): a closing quote dropped after a long string makes
the words up to the next quote part of the edit, and no repair could succeed there.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from tinycode import judges
from tinycode.check import check, source_lines
from tinycode.engine.edits import token_distance
from tinycode.languages import detect

KINDS = ("delete bracket", "duplicate bracket", "delete punctuation", "drop closing quote", "break indentation")
_BRACKETS = "()[]{}"
_PUNCTUATION = ":,;"
_STRING = re.compile(r"""("[^"\n\\]{1,40}")|('[^'\n\\]{1,40}')""")


def corrupt(source: str, kind: str, rng: random.Random) -> str | None:
    """``source`` with one corruption of ``kind`` at a random place, or None when the
    file offers no place for it."""
    if kind in ("delete bracket", "duplicate bracket", "delete punctuation"):
        chars = _PUNCTUATION if kind == "delete punctuation" else _BRACKETS
        spots = [i for i, ch in enumerate(source) if ch in chars]
        if not spots:
            return None
        i = rng.choice(spots)
        return source[:i] + source[i + 1:] if kind.startswith("delete") else source[:i + 1] + source[i:]
    if kind == "drop closing quote":
        spots = [m.end() - 1 for m in _STRING.finditer(source)]
        if not spots:
            return None
        i = rng.choice(spots)
        return source[:i] + source[i + 1:]
    lines = source_lines(source)
    indented = [n for n, line in enumerate(lines) if line.strip() and line[:1] in " \t"]
    if not indented:
        return None
    n = rng.choice(indented)
    line = lines[n]
    lines[n] = line.lstrip() if rng.random() < 0.5 else "  " + line
    return "\n".join(lines) + ("\n" if source.endswith("\n") else "")


MIN_APART = 12  # lines between two corruptions of one case
GENERATION_JUDGE_TIMEOUT = 120.0  # seconds a judge may take while cases are made


def cases_from_file(path: Path, per_file: int, rng: random.Random, errors: int = 1) -> list[dict[str, str]]:
    """Up to ``per_file`` cases from one clean file (its language detected from its name),
    each with ``errors`` corruptions."""
    text = path.read_text(encoding="utf-8")
    language = detect(str(path), text[:200].encode("utf-8"))
    if not language or not check(text, language).ok:
        return []
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for attempt in range(per_file * 6 * errors):
        if len(out) >= per_file:
            break
        broken, kinds, lines = text, [], []
        for k in range(errors):
            kind = KINDS[(attempt + k) % len(KINDS)]
            candidate = corrupt(broken, kind, rng)
            if candidate is None or check(candidate, language).ok:
                break
            line = _changed_line(broken, candidate)
            if any(abs(line - other) < MIN_APART for other in lines):
                break
            # Each corruption on its own must be one the checker sees and 1-4 tokens away.
            alone = corrupt_at(text, broken, candidate)
            if check(alone, language).ok or not 1 <= token_distance(alone, text, language, cap=5) <= 4:
                break
            broken, kinds, lines = candidate, kinds + [kind], lines + [line]
        if len(kinds) < errors or broken in seen:
            continue
        # The clean file itself must score as a success (1-4 tokens an error): corruptions
        # that interact can make it further (a bracket moved across lines regroups
        # Python's indentation tokens between them).
        if errors > 1 and not 1 <= token_distance(broken, text, language, cap=4 * errors + 1) <= 4 * errors:
            continue
        seen.add(broken)
        out.append({"id": f"{path.parent.name}/{path.name}#{len(out)}", "broken": broken, "fixed": text,
                    "lang": language, "category": " + ".join(kinds) if errors > 1 else kinds[0],
                    "errors": errors})
    return out


def _changed_line(before: str, after: str) -> int:
    """The 1-based line of the first character where ``after`` differs from ``before``."""
    i = next((n for n, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
    return before.count("\n", 0, i) + 1


def corrupt_at(clean: str, before: str, after: str) -> str:
    """The one corruption that turned ``before`` into ``after``, applied to ``clean``
    instead (the earlier corruptions lie elsewhere, MIN_APART lines away)."""
    b_lines, a_lines, c_lines = before.split("\n"), after.split("\n"), clean.split("\n")
    line = _changed_line(before, after) - 1
    delta = len(a_lines) - len(b_lines)
    offset = len(b_lines) - len(c_lines)  # earlier corruptions never change the line count
    if offset or delta:
        return clean  # a line break corrupted: not comparable line by line
    return "\n".join(c_lines[:line] + a_lines[line:line + 1] + c_lines[line + 1:])


def corrupt_cases(paths: list[Path], per_file: int = 6, seed: int = 0, errors: int = 1) -> list[dict[str, str]]:
    """Cases from every clean file under ``paths`` (files or directories)."""
    rng = random.Random(seed)
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("broken."))
        else:
            files.append(path)
    cases: list[dict[str, str]] = []
    # The same cases on a busy machine as on an idle one: the judges that decide which
    # corruptions are kept get all the time they need here (and none is taken for hung).
    judges.configure(timeout=GENERATION_JUDGE_TIMEOUT)
    try:
        for file in files:
            try:
                cases += cases_from_file(file, per_file, rng, errors)
            except (UnicodeDecodeError, OSError):
                continue
            except Exception as exc:  # an unknown extension: not a source file we can measure
                if type(exc).__name__ != "UnknownLanguageError":
                    raise
    finally:
        judges.configure()
    return cases


SCALING_ERRORS = {
    # The fast path alone: one candidate, no model.
    "missing ':'": (lambda line: line.rstrip().endswith(":")
                    and line.lstrip().startswith(("def ", "for ", "if ", "with ")),
                    lambda line: line.rstrip()[:-1]),
    # Several candidates: the model ranks them.
    "')' dropped": (lambda line: line.rstrip().endswith("))"), lambda line: line.rstrip()[:-1]),
}


def scaling_pair(clean: str, error: str = "missing ':'") -> tuple[dict[str, str], dict[str, str]]:
    """The same ``error`` (a key of SCALING_ERRORS) in the middle of a ~100-line and of a
    ~5,000-line Python file built from repeated copies of ``clean``."""
    def build(lines_wanted: int) -> str:
        block = clean.rstrip("\n") + "\n\n\n"
        copies = max(1, lines_wanted // len(source_lines(block)))
        return "".join(block.replace("def ", f"def v{n}_") for n in range(copies))

    wanted, corrupt_line = SCALING_ERRORS[error]
    pair = []
    for size in (100, 5000):
        text = build(size)
        lines = source_lines(text)
        middle = len(lines) // 2
        target = next(n for n in range(middle, len(lines)) if wanted(lines[n]))
        # The same function of the block in both files.
        broken_lines = list(lines)
        broken_lines[target] = corrupt_line(broken_lines[target])
        pair.append({"id": f"scaling-{size}", "broken": "\n".join(broken_lines) + "\n", "fixed": text,
                     "lang": "python", "category": "scaling"})
    return pair[0], pair[1]
