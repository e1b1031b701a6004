"""The candidate space derived from each grammar: its vocabulary, the spelling
neighbourhood, the edits proposed around an error, and repairs it makes exactly."""

from __future__ import annotations

from collections import Counter

import pytest

from scripted import run
from tinycode.check import check, source_lines
from tinycode.engine.candidates import suggest
from tinycode.engine.grammar_space import distance, early_edits, late_edits, spelling_neighbours, vocabulary


@pytest.mark.parametrize("language, keywords, symbols", [
    ("python", {"def", "return", "else", "lambda"}, {"(", ":", "->", "**"}),
    ("javascript", {"function", "return", "const", "typeof"}, {"=>", "===", "{", ";"}),
    ("c", {"return", "struct", "while"}, {"->", "&&", ";"}),
    ("json", set(), {"{", ":", ","}),
])
def test_vocabulary_is_the_grammars_own_tokens(language, keywords, symbols):
    words, marks = vocabulary(language)
    assert keywords <= set(words) and symbols <= set(marks)
    assert not set(words) & set(marks)
    assert all(" " not in t and "\n" not in t for t in words + marks)


def test_distance_counts_a_transposition_as_one_edit():
    assert distance("retrun", "return") == 1
    assert distance("esle", "else") == 1
    assert distance("fucntion", "function") == 1
    assert distance("whle", "while") == 1
    assert distance("abc", "xyz") == 3


def test_spelling_neighbours_put_keywords_first_then_the_files_names():
    keywords, _ = vocabulary("python")
    assert spelling_neighbours("retrun", keywords, Counter())[0] == "return"
    assert spelling_neighbours("Return", keywords, Counter())[0] == "return"
    names = Counter({"counter": 3, "count": 1})
    assert "counter" in spelling_neighbours("coutner", keywords, names)
    assert "count" not in spelling_neighbours("coutn", keywords, names)  # used once: no evidence
    assert spelling_neighbours("x", keywords, names) == []  # too short to be anyone's typo


def test_early_edits_respell_swap_and_join_at_the_error():
    source = "def f(x):\n    if x:\n        retrun x\n    return 0\n"
    lines = source_lines(source)
    problems = tuple(check(source, "python").problems)
    descriptions = [e.description for e in early_edits(lines, problems, "python")]
    assert "line 3: respell 'retrun' as 'return'" in descriptions
    assert any("join" in d for d in descriptions)
    swapped = "int f(void) {\n  return 1;\n})\n;\n"  # two marks swapped: early
    problems = tuple(check(swapped, "c").problems)
    assert any("swap" in e.description for e in early_edits(source_lines(swapped), problems, "c"))


def test_swaps_with_the_files_names_come_late():
    source = "def f(x):\n    return (x\n"
    lines = source_lines(source)
    problems = tuple(check(source, "python").problems)
    name_swap = "line 2: swap '(' and 'x'"
    assert name_swap not in [e.description for e in early_edits(lines, problems, "python")]
    assert name_swap in [e.description for e in late_edits(lines, problems, "python")]


def test_late_edits_insert_and_substitute_grammar_tokens_near_the_error():
    source = "let a = [1, 2 3];\n"
    lines = source_lines(source)
    problems = tuple(check(source, "javascript").problems)
    edits = list(late_edits(lines, problems, "javascript"))
    texts = {e.new_lines[0] for e in edits}
    assert "let a = [1, 2, 3];" in texts
    assert any(e.description.startswith("line 1: replace") for e in edits)


@pytest.mark.parametrize("language, broken, fixed", [
    ("python", "def f(x):\n    if x:\n        retrun x\n    esle:\n        return 0\n",
     "def f(x):\n    if x:\n        return x\n    else:\n        return 0\n"),
    ("javascript", "fucntion f(x) {\n  return x + 1;\n}\n", "function f(x) {\n  return x + 1;\n}\n"),
    ("c", "int main(void) {\n  int x = 1;\n  retrun x;\n}\n", "int main(void) {\n  int x = 1;\n  return x;\n}\n"),
    ("json", "{\n  \"a\": 1,\n  'b': 2\n}\n", "{\n  \"a\": 1,\n  \"b\": 2\n}\n"),
])
def test_the_search_finds_the_exact_respelling(language, broken, fixed):
    found = [c.source_after for c in suggest(broken, language)]
    assert fixed in found


@pytest.mark.parametrize("name, broken, fixed", [
    ("a.py", "def double(x):\n    retrun x * 2\n\n\nprint(double(2))\n",
     "def double(x):\n    return x * 2\n\n\nprint(double(2))\n"),
    ("a.js", "fucntion double(x) {\n  return x * 2;\n}\nconsole.log(double(2));\n",
     "function double(x) {\n  return x * 2;\n}\nconsole.log(double(2));\n"),
])
def test_fix_restores_a_misspelt_keyword_exactly(capsys, tmp_path, model, name, broken, fixed):
    path = tmp_path / name
    path.write_text(broken)
    code, _, _ = run(capsys, "fix", str(path))
    assert code == 0
    assert path.read_text() == fixed
