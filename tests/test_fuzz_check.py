"""Fuzzing the checker: random text and random mutations of real files in every
required language never raise, and the verdict is deterministic."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from tinycode import check, render
from tinycode.languages import detect
from tinycode.sourcefile import decode
from tinycode.errors import InputError

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*/clean.*"))
SOURCES = [(detect(p), p.read_text(encoding="utf-8")) for p in EXAMPLES]
LANGUAGES = sorted({language for language, _ in SOURCES})
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_well_formed(source: str, language: str) -> None:
    first = check(source, language)
    assert first == check(source, language)
    lines = max(1, source.count("\n") + 1)
    for problem in first.problems:
        assert 1 <= problem.line <= problem.end_line <= lines + 1
        assert problem.column >= 1 and problem.message
    render(first, source)


@FUZZ
@given(st.sampled_from(LANGUAGES), st.text(max_size=400))
def test_random_text_never_raises(language, source):
    assert_well_formed(source, language)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_are_decoded_or_refused_cleanly(data):
    try:
        text, _ = decode(data)
    except InputError as exc:
        assert str(exc)
        return
    assert_well_formed(text, "python")


@st.composite
def mutated(draw):
    language, source = draw(st.sampled_from(SOURCES))
    chars = list(source)
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(chars)))
        action = draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if action == "delete" and position < len(chars):
            del chars[position]
        elif action == "insert":
            chars.insert(position, draw(st.sampled_from(list("(){}[];:,'\"\n\t <>=#/\\`$@"))))
        elif position < len(chars):
            chars.insert(position, chars[position])
    return language, "".join(chars)


@FUZZ
@given(mutated())
def test_mutated_real_files_never_raise(case):
    language, source = case
    assert_well_formed(source, language)


def test_deep_nesting_and_long_lines_do_not_crash():
    for language in ("python", "json", "javascript", "c"):
        assert not check("[" * 10_000, language).ok
        assert not check("(" * 10_000 + ")" * 9_999, language).ok
    long_line = "x = " + " + ".join(["1"] * 20_000) + "\n"
    assert check(long_line, "python").ok
    assert render(check(long_line + "y = (\n", "python"), long_line + "y = (\n")
