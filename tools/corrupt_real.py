"""A second corruptor, for measuring how well repair generalises.

It shares no code with the candidate generator (``tinycode/engine``) nor with
``tools/corrupt.py``, and none of its error kinds is one of that corruptor's (a
bracket deleted or duplicated, ``:``/``,``/``;`` deleted, a closing quote dropped,
indentation broken). Its kinds are slips people make when they type: a keyword
misspelt or capitalised or dropped, two adjacent tokens swapped, a token typed
twice, two lines joined, a line split, an operator dropped or mistyped, a bracket of
the wrong kind, a stray character, a statement cut short, a string closed with the
other quote, a trailing comma, a comment or single quotes in JSON. On request
(``--kinds``) also slips of layout: indentation shifted, a tab in the indentation, a
data file's quoted key left bare.

Sources are files the OS and the package registries put on this machine (Python's
standard library and site-packages, node packages, /usr/include, /usr/share...), of
30-400 lines, that the language's own tool accepts (``tools/referee.py``; where this
machine has none, tinycode's check). Each corruption alone must make that tool reject
the file, whether or not tinycode's check sees it (so a set can hold files tinycode
wrongly calls clean); with ``--errors 3`` the three lie at least MIN_APART lines apart.

    python tools/corrupt_real.py --per-language 8 --errors 1 --out real1.jsonl
    python tools/bench.py --data real1.jsonl --out real1.json
"""

from __future__ import annotations

import argparse
import functools
import glob
import hashlib
import json
import os
import random
import re
import sys
import zipfile
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
if not __package__:
    sys.path.insert(0, str(ROOT))

from tinycode import judges  # noqa: E402
from tinycode.check import check  # noqa: E402
from tinycode.languages import detect  # noqa: E402
from tools.referee import confirm  # noqa: E402

MIN_APART = 12
MIN_LINES, MAX_LINES = 30, 400
SEARCH_ROOTS = ("/usr/lib/python3.11", "/usr/lib/python3", "/work/venv/lib", "/usr/lib/node_modules",
                "/usr/share/nodejs", "/usr/include", "/usr/share", "/usr/lib/google-cloud-sdk", "/etc",
                "/root/.pyenv/versions", "/root/.rustup/toolchains", "/opt")
SKIP_PARTS = ("/test/", "/tests/", "/invalid/", "/bad", "/fail", "/broken", "/badsyntax", "lib2to3/tests",
              "/site-packages/tinycode")
# Archives of sources the OS installs (the JDK ships its library's Java sources so).
SOURCE_ARCHIVES = ("/usr/lib/jvm/*/lib/src.zip",)
CANDIDATES_PER_LANGUAGE = 300  # files considered per language (the first found, in sorted walk order)

# Keywords by language (this module's own list; the engine never sees it).
KEYWORDS: dict[str, tuple[str, ...]] = {
    "python": ("def", "return", "class", "import", "from", "while", "for", "else", "elif", "lambda",
               "except", "finally", "yield", "with", "raise", "assert", "not", "pass", "continue", "break"),
    "javascript": ("function", "return", "const", "var", "let", "else", "while", "for", "typeof",
                   "throw", "catch", "new", "this", "switch", "case", "break", "instanceof"),
    "c": ("return", "struct", "static", "const", "while", "for", "else", "switch", "case", "typedef",
          "unsigned", "break", "sizeof", "void", "int", "char", "enum", "extern"),
    "cpp": ("return", "struct", "static", "const", "while", "for", "else", "switch", "case", "typedef",
            "class", "public", "private", "template", "typename", "namespace", "virtual", "void", "int"),
    "bash": ("then", "else", "elif", "done", "esac", "case", "while", "function", "local", "return",
             "export", "echo", "until", "fi", "do"),
    "php": ("function", "return", "class", "public", "private", "static", "else", "foreach", "while",
            "echo", "array", "new", "elseif", "require_once", "namespace"),
    "go": ("func", "return", "package", "import", "struct", "range", "else", "defer", "type", "var",
           "for", "switch", "case", "interface", "chan"),
    "rust": ("fn", "let", "return", "struct", "impl", "match", "else", "while", "loop", "pub", "use",
             "enum", "trait", "where", "mut"),
    "ruby": ("def", "end", "class", "module", "return", "else", "elsif", "unless", "while", "do",
             "require", "yield", "begin", "rescue"),
    "java": ("public", "private", "class", "return", "static", "void", "else", "while", "for", "new",
             "import", "package", "final", "throws", "extends"),
    "csharp": ("public", "private", "class", "return", "static", "void", "else", "while", "foreach",
               "new", "using", "namespace", "readonly"),
    "typescript": ("function", "return", "const", "let", "interface", "else", "export", "import",
                   "class", "extends", "implements", "readonly", "typeof"),
    "css": ("!important", "@media", "@import"),
    "html": ("html", "head", "body", "div", "span", "script", "table"),
    "yaml": ("true", "false", "null"),
    "toml": ("true", "false"),
    "json": ("true", "false", "null"),
}

_LEX = re.compile(r"""[A-Za-z_][A-Za-z_0-9]*|\d[\w.]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'"""
                  r"""|===|!==|\*\*|<=|>=|==|!=|->|=>|::|&&|\|\||\+=|-=|<<|>>|\S""")
_OPERATORS = ("+", "-", "*", "/", "%", "==", "!=", "<=", ">=", "&&", "||", "=", "<", ">", "===", "!==", "->",
              "=>", "::", ".", "+=", "-=", "**")
_MISTYPED = {"==": ("=", "=="), "!=": ("=!", "!"), "<=": ("=<",), ">=": ("=>",), "->": ("-", ">", "=>"),
             "=>": (">=", "=", "->"), "::": (":", ":::"), "&&": ("&&&",), "||": ("|||",),
             "===": ("====",), "+=": ("=+",), "-=": ("=-",), "=": ("==", "=="), ".": ("..",)}
_OTHER_BRACKET = {"(": "[{", ")": "]}", "[": "({", "]": ")}", "{": "([", "}": ")]"}
_STRAY = "`$@\\?#~"  # keys people hit by accident next to what they meant


def _code_tokens(line: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group()) for m in _LEX.finditer(line)]


def _misspell(word: str, rng: random.Random) -> str:
    """A typo of ``word``: two letters transposed, one dropped, or one doubled."""
    forms = []
    for i in range(len(word) - 1):
        if word[i] != word[i + 1]:
            forms.append(word[:i] + word[i + 1] + word[i] + word[i + 2:])
    for i in range(len(word)):
        if len(word) > 2:
            forms.append(word[:i] + word[i + 1:])
        forms.append(word[:i] + word[i] + word[i:])
    forms = [f for f in forms if f != word]
    return rng.choice(forms) if forms else word


# Each kind: (lines, language, rng) -> (line index, new lines) or None.
Corruption = Callable[[list[str], str, random.Random], "tuple[int, list[str]] | None"]


def _pick_line(lines: list[str], rng: random.Random, want: Callable[[str], bool]) -> int | None:
    spots = [i for i, line in enumerate(lines) if line.strip() and want(line)]
    return rng.choice(spots) if spots else None


def _on_token(lines: list[str], rng: random.Random, want: Callable[[str, list[tuple[int, str]], int], bool],
              change: Callable[[str, int, str], str | None]) -> tuple[int, list[str]] | None:
    spots = []
    for n, line in enumerate(lines):
        toks = _code_tokens(line)
        spots += [(n, i) for i, (_, tok) in enumerate(toks) if want(tok, toks, i)]
    if not spots:
        return None
    n, i = rng.choice(spots)
    col, tok = _code_tokens(lines[n])[i]
    new = change(lines[n], col, tok)
    return None if new is None or new == lines[n] else (n, [new])


def misspelt_keyword(lines, language, rng):
    words = set(KEYWORDS.get(language, ())) - {"!important", "@media", "@import"}
    return _on_token(lines, rng, lambda t, *_: t in words and len(t) >= 2,
                     lambda line, col, tok: line[:col] + _misspell(tok, rng) + line[col + len(tok):])


def keyword_capitalised(lines, language, rng):
    words = set(KEYWORDS.get(language, ())) - {"!important", "@media", "@import"}
    return _on_token(lines, rng, lambda t, *_: t in words and len(t) >= 2,
                     lambda line, col, tok: line[:col] + tok.capitalize() + line[col + len(tok):])


def keyword_dropped(lines, language, rng):
    words = set(KEYWORDS.get(language, ())) - {"return", "!important", "@media", "@import"}

    def drop(line, col, tok):
        rest = line[col + len(tok):]
        return line[:col] + (rest[1:] if rest.startswith(" ") else rest)
    return _on_token(lines, rng, lambda t, toks, i: t in words and len(toks) > 1, drop)


def swapped_tokens(lines, language, rng):
    def want(tok, toks, i):
        return i + 1 < len(toks) and toks[i + 1][1] != tok and not tok.startswith(("\"", "'"))

    def swap(line, col, tok):
        toks = _code_tokens(line)
        i = next(k for k, (c, _) in enumerate(toks) if c == col)
        c2, tok2 = toks[i + 1]
        between = line[col + len(tok):c2]
        return line[:col] + tok2 + between + tok + line[c2 + len(tok2):]
    return _on_token(lines, rng, want, swap)


def duplicated_token(lines, language, rng):
    def want(tok, *_):
        return tok not in "()[]{}:;,\"'" and not tok.startswith(("\"", "'"))

    def dup(line, col, tok):
        sep = " " if tok[0].isalnum() or tok[0] == "_" else ""
        return line[:col] + tok + sep + line[col:]
    return _on_token(lines, rng, want, dup)


def joined_lines(lines, language, rng):
    spots = [n for n in range(len(lines) - 1) if lines[n].strip() and lines[n + 1].strip()
             and not lines[n].rstrip().endswith("\\")]
    if not spots:
        return None
    n = rng.choice(spots)
    return n, [lines[n].rstrip() + " " + lines[n + 1].lstrip(), None]  # None: the next line goes


def split_line(lines, language, rng):
    def want(tok, toks, i):
        return 0 < i < len(toks) - 1

    def split(line, col, tok):
        indent = line[:len(line) - len(line.lstrip())]
        return line[:col].rstrip() + "\n" + indent + line[col:]
    return _on_token(lines, rng, want, split)


def operator_dropped(lines, language, rng):
    def want(tok, toks, i):
        return tok in _OPERATORS and 0 < i < len(toks) - 1 and tok != "."

    def drop(line, col, tok):
        return (line[:col].rstrip() + " " + line[col + len(tok):].lstrip())
    return _on_token(lines, rng, want, drop)


def operator_mistyped(lines, language, rng):
    return _on_token(lines, rng, lambda t, *_: t in _MISTYPED,
                     lambda line, col, tok: line[:col] + rng.choice(_MISTYPED[tok]) + line[col + len(tok):])


def wrong_bracket(lines, language, rng):
    return _on_token(lines, rng, lambda t, *_: t in _OTHER_BRACKET,
                     lambda line, col, tok: line[:col] + rng.choice(_OTHER_BRACKET[tok]) + line[col + 1:])


def stray_character(lines, language, rng):
    def put(line, col, tok):
        return line[:col + len(tok)] + rng.choice(_STRAY) + line[col + len(tok):]
    return _on_token(lines, rng, lambda t, toks, i: not t.startswith(("\"", "'")), put)


def statement_cut_short(lines, language, rng):
    """The last word or literal before the line's final punctuation is lost."""
    def want(tok, toks, i):
        after = [t for _, t in toks[i + 1:]]
        return (tok[0].isalnum() or tok[0] in "_\"'") and i > 0 and all(t in ");,]}" for t in after)

    def cut(line, col, tok):
        return line[:col].rstrip() + line[col + len(tok):]
    return _on_token(lines, rng, want, cut)


def wrong_closing_quote(lines, language, rng):
    def want(tok, *_):
        return len(tok) >= 3 and tok[0] in "\"'" and tok[-1] == tok[0] and ("'" if tok[0] == '"' else '"') not in tok

    def swap(line, col, tok):
        other = "'" if tok[0] == '"' else '"'
        return line[:col] + tok[:-1] + other + line[col + len(tok):]
    return _on_token(lines, rng, want, swap)


def trailing_comma(lines, language, rng):
    def want(tok, toks, i):
        return i + 1 < len(toks) and toks[i + 1][1] in ")]}" and tok not in "([{,"

    def add(line, col, tok):
        return line[:col + len(tok)] + "," + line[col + len(tok):]
    return _on_token(lines, rng, want, add)


def json_comment_or_single_quotes(lines, language, rng):
    if language != "json":
        return None
    if rng.random() < 0.5:
        n = _pick_line(lines, rng, lambda line: line.rstrip().endswith((",", "{", "[")))
        if n is None:
            return None
        indent = lines[n][:len(lines[n]) - len(lines[n].lstrip())]
        return n, [lines[n], indent + "// " + rng.choice(("TODO", "see below", "note", "changed"))]
    return _on_token(lines, rng, lambda t, *_: t.startswith('"') and len(t) >= 3 and "'" not in t,
                     lambda line, col, tok: line[:col] + "'" + tok[1:-1] + "'" + line[col + len(tok):])


def indentation_shifted(lines, language, rng):
    """An indented line moved one or two columns, or one level, left or right."""
    n = _pick_line(lines, rng, lambda line: line[:1] == " ")
    if n is None:
        return None
    line = lines[n]
    indent = len(line) - len(line.lstrip(" "))
    step = rng.choice((1, 2, 4, -1, -2, -4))
    if indent + step < 0:
        step = -step
    return n, [" " * (indent + step) + line.lstrip(" ")]


def tab_in_indentation(lines, language, rng):
    """The spaces of an indented line typed as a tab."""
    n = _pick_line(lines, rng, lambda line: line.startswith("  ") and "\t" not in line)
    if n is None:
        return None
    return n, ["\t" + lines[n].lstrip(" ")]


def key_unquoted(lines, language, rng):
    """A quoted key of a data file written without its quotes."""
    key = re.compile(r"""^(\s*)(["'])([^"'\n]+)\2(\s*[:=])""")
    n = _pick_line(lines, rng, lambda line: key.match(line) is not None)
    if n is None:
        return None
    return n, [key.sub(lambda m: m.group(1) + m.group(3) + m.group(4), lines[n], count=1)]


# Slips of layout, made only on request (``--kinds``): the default rotation stays as it was.
LAYOUT_KINDS: dict[str, Corruption] = {
    "indentation shifted": indentation_shifted,
    "tab in indentation": tab_in_indentation,
    "key left unquoted": key_unquoted,
}

KINDS: dict[str, Corruption] = {
    "misspelt keyword": misspelt_keyword,
    "keyword capitalised": keyword_capitalised,
    "keyword dropped": keyword_dropped,
    "adjacent tokens swapped": swapped_tokens,
    "token duplicated": duplicated_token,
    "two lines joined": joined_lines,
    "line split": split_line,
    "operator dropped": operator_dropped,
    "operator mistyped": operator_mistyped,
    "wrong bracket kind": wrong_bracket,
    "stray character": stray_character,
    "statement cut short": statement_cut_short,
    "string closed with the other quote": wrong_closing_quote,
    "trailing comma": trailing_comma,
    "JSON comment or single quotes": json_comment_or_single_quotes,
}
ALL_KINDS: dict[str, Corruption] = {**KINDS, **LAYOUT_KINDS}


def _apply(lines: list[str], n: int, new: list[str | None]) -> list[str]:
    replacement: list[str] = []
    drop_next = False
    for part in new:
        if part is None:
            drop_next = True
        else:
            replacement.extend(part.split("\n"))
    return lines[:n] + replacement + lines[n + 1 + drop_next:]


def _text(lines: list[str], trailing: bool) -> str:
    return "\n".join(lines) + ("\n" if trailing else "")


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    for line in text.split("\n"):
        out += [t for _, t in _code_tokens(line)] + ["\n"]
    return out


def _small(a: str, b: str, cap: int) -> bool:
    """The token distance between ``a`` and ``b`` is 1..cap (this module's own lexer)."""
    ta, tb = _tokens(a), _tokens(b)
    start = 0
    while start < min(len(ta), len(tb)) and ta[start] == tb[start]:
        start += 1
    ea, eb = len(ta), len(tb)
    while ea > start and eb > start and ta[ea - 1] == tb[eb - 1]:
        ea, eb = ea - 1, eb - 1
    ta, tb = ta[start:ea], tb[start:eb]
    if not ta and not tb:
        return False
    if abs(len(ta) - len(tb)) > cap or max(len(ta), len(tb)) > 4 * cap:
        return False
    previous = list(range(len(tb) + 1))
    for i, x in enumerate(ta, 1):
        current = [i] + [0] * len(tb)
        for j, y in enumerate(tb, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y))
        previous = current
    return 1 <= previous[-1] <= cap


def cases_from_file(path: Path, language: str, text: str, rng: random.Random, errors: int,
                    kinds: list[str], tries: int = 12) -> dict | None:
    """One case with ``errors`` corruptions of the given kinds (in order), or None."""
    lines = text.split("\n")
    trailing = text.endswith("\n")
    if trailing:
        lines.pop()
    for _ in range(tries):
        current, used, where = list(lines), [], []
        # Apply bottom-up so earlier line numbers stay put: pick places first on the clean lines.
        ok = True
        for kind in kinds:
            found = None
            for _attempt in range(8):
                got = ALL_KINDS[kind](lines, language, rng)
                if got is None:
                    break
                n, new = got
                if any(abs(n - w) < MIN_APART for w in where):
                    continue
                alone = _text(_apply(lines, n, new), trailing)
                # (this module's lexer does not see indentation: a slip of layout is one line's)
                if not (kind in LAYOUT_KINDS or _small(text, alone, 4)) or _accepted(alone, path, language):
                    continue
                found = (n, new)
                break
            if found is None:
                ok = False
                break
            where.append(found[0])
            used.append((found[0], found[1], kind))
        if not ok:
            continue
        for n, new, _kind in sorted(used, key=lambda u: -u[0]):
            current = _apply(current, n, new)
        broken = _text(current, trailing)
        if _accepted(broken, path, language) or not _restorable(broken, text, language, errors):
            continue
        order = [k for _, _, k in sorted(used, key=lambda u: u[0])]
        return {"broken": broken, "fixed": text, "lang": language, "errors": errors,
                "category": order[0] if errors == 1 else " + ".join(order), "kinds": order,
                "lines": sorted(n + 1 for n in where), "source": str(path)}
    return None


def _accepted(text: str, path: Path, language: str) -> bool:
    """The language's own tool accepts ``text`` as the file at ``path`` (tinycode's
    check where this machine has no such tool)."""
    verdict = confirm(text, str(path) if path.is_file() else path.name, language)
    return check(text, language).ok if verdict is None else verdict


def _restorable(broken: str, fixed: str, language: str, errors: int) -> bool:
    """The original itself scores as a successful repair under the bench's referee
    (tools/bench.py's ``score``): a corruption its token measure cannot see (a line
    break, to Python's tokenizer) could never be repaired successfully."""
    from tools.bench import score

    return score({"broken": broken, "fixed": fixed, "lang": language, "errors": errors}, fixed)["success"]


def source_files(languages: set[str] | None = None) -> dict[str, list[tuple[Path, str]]]:
    """Clean-looking candidate files per language, in a fixed order."""
    found: dict[str, list[tuple[Path, str]]] = {}
    seen: set[str] = set()
    for path, size, read in _installed_files():
        language = detect(str(path))
        if language is None or (languages and language not in languages):
            continue
        bucket = found.setdefault(language, [])
        if len(bucket) >= CANDIDATES_PER_LANGUAGE or not 500 <= size <= 40_000:
            continue
        try:
            text = read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        count = text.count("\n")
        digest = hashlib.sha256(text.encode()).hexdigest()
        if not MIN_LINES <= count <= MAX_LINES or digest in seen or "\r" in text:
            continue
        seen.add(digest)
        bucket.append((path, text))
    return found


def _installed_files() -> Iterator[tuple[Path, int, Callable[[], bytes]]]:
    """(path, size, reader) of the files under SEARCH_ROOTS, then of the members of
    SOURCE_ARCHIVES (a path inside the archive), in a fixed order."""
    for root in SEARCH_ROOTS:
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            if any(part in folder + "/" for part in SKIP_PARTS):
                dirs[:] = []
                continue
            for name in sorted(files):
                path = Path(folder) / name
                if path.suffix.lower() in (".pyc", ".so", ".gz", ".png", ".o", ".a") or path.is_symlink():
                    continue
                try:
                    size = path.stat().st_size
                except OSError:
                    continue
                yield path, size, path.read_bytes
    archives = {os.path.realpath(p) for pattern in SOURCE_ARCHIVES for p in glob.glob(pattern)}
    for archive in sorted(a for a in archives if os.path.isfile(a)):
        with zipfile.ZipFile(archive) as zipped:
            for info in sorted(zipped.infolist(), key=lambda i: i.filename):
                if not info.is_dir() and not any(part in "/" + info.filename for part in SKIP_PARTS):
                    yield Path(archive) / info.filename, info.file_size, functools.partial(zipped.read, info)


def make_cases(per_language: int, errors: int, seed: int, languages: set[str] | None = None,
               on_case: Callable[[dict], None] | None = None, kinds: list[str] | None = None) -> list[dict]:
    """``per_language`` cases a language, of ``kinds`` (default: ``KINDS``); ``on_case``
    is told of each as it is made (a long run stopped early keeps what it made)."""
    rng = random.Random(seed)
    names = list(kinds or KINDS)
    out: list[dict] = []
    judges.configure(timeout=120.0)
    try:
        pools = source_files(languages)
        turn = 0  # one rotation of kinds across every language
        for language in sorted(pools):
            pool = list(pools[language])
            random.Random(f"{seed}-{language}").shuffle(pool)
            made = 0
            for path, text in pool:
                if made >= per_language:
                    break
                if not _accepted(text, path, language):
                    continue
                kinds = [names[(turn + k * 5) % len(names)] for k in range(errors)]
                for shift in range(len(names)):  # the next kind that this file admits
                    attempt = [names[(names.index(k) + shift) % len(names)] for k in kinds]
                    case = cases_from_file(path, language, text, rng, errors, attempt)
                    if case:
                        break
                turn += 1
                if case is None:
                    continue
                case["id"] = f"real{errors}/{language}/{made}"
                out.append(case)
                if on_case is not None:
                    on_case(case)
                made += 1
    finally:
        judges.configure()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-language", type=int, default=8)
    parser.add_argument("--errors", type=int, default=1)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--lang", action="append", default=None, help="only these languages")
    parser.add_argument("--kinds", action="append", default=None, choices=list(ALL_KINDS),
                        help="only these kinds (default: every kind but the layout ones)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    with open(args.out, "w", encoding="utf-8") as handle:
        def write(case: dict) -> None:
            handle.write(json.dumps(case) + "\n")
            handle.flush()

        cases = make_cases(args.per_language, args.errors, args.seed, set(args.lang) if args.lang else None, write,
                           args.kinds)
    counts: dict[str, int] = {}
    for case in cases:
        for kind in case["kinds"]:
            counts[kind] = counts.get(kind, 0) + 1
    langs: dict[str, int] = {}
    for case in cases:
        langs[case["lang"]] = langs.get(case["lang"], 0) + 1
    print(f"{len(cases)} cases -> {args.out}", file=sys.stderr)
    print("by language:", langs, file=sys.stderr)
    print("by kind:", counts, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
