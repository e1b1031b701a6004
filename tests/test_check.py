"""code_check: every required language clean and broken, MISSING nodes, the Python
and JSON judges, and the rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinycode import check, render
from tinycode.languages import BUILTIN, detect, detect_shebang, supported_languages

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
REQUIRED = ["python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp",
            "csharp", "ruby", "php", "bash", "json", "css", "html", "yaml", "toml"]


def example(language: str, kind: str) -> Path:
    (path,) = (EXAMPLES / language).glob(f"{kind}.*")
    return path


def first_changed_line(a: str, b: str) -> int:
    for number, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), start=1):
        if x != y:
            return number
    return min(len(a.splitlines()), len(b.splitlines())) + 1


def test_every_required_language_is_builtin():
    assert set(REQUIRED) <= {spec.name for spec in BUILTIN}
    assert set(REQUIRED) <= set(supported_languages())


@pytest.mark.parametrize("language", REQUIRED)
def test_clean_example_has_no_problems(language):
    path = example(language, "clean")
    assert detect(path) == language
    result = check(path.read_text(encoding="utf-8"), language)
    assert result.ok, result.problems


@pytest.mark.parametrize("language", REQUIRED)
def test_broken_example_is_reported_near_the_break(language):
    clean = example(language, "clean").read_text(encoding="utf-8")
    broken_path = example(language, "broken")
    broken = broken_path.read_text(encoding="utf-8")
    result = check(broken, detect(broken_path))
    assert not result.ok
    changed = first_changed_line(clean, broken)
    # Parsers see a missing token where the next one arrives, sometimes at the end of
    # the enclosing block; the reported span (or the next problem) must reach the break.
    spans = [(p.line, max(p.end_line, p.line)) for p in result.problems]
    assert any(start - 1 <= changed + 1 and changed - 1 <= end + 5 for start, end in spans) or \
        any(abs(p.line - changed) <= 1 for p in result.problems), (changed, result.problems)


def test_missing_node_is_reported_as_missing_token(tree_sitter_only):
    result = check("package main\nfunc main() {\n\tx := (1 + 2\n}\n", "go")
    (problem,) = result.problems
    assert problem.kind == "missing"
    assert problem.message == "missing ')'"
    assert (problem.line, problem.column) == (3, 13)
    assert problem.end_line == 3 and problem.end_column == problem.column


def test_missing_semicolon_in_c_and_java(tree_sitter_only):
    c = check("int main() { int x = 1 return 0; }", "c")
    assert any(p.kind == "missing" and "';'" in p.message for p in c.problems)
    java = check("class A { void f() { int x = 1\n } }", "java")
    assert any(p.message == "missing ';'" and p.line == 1 for p in java.problems)


def test_python_two_print_is_rejected_by_cpython_judge():
    result = check("print 'hello'\n", "python")
    (problem,) = result.problems
    assert problem.source == "python"
    assert "Missing parentheses in call to 'print'" in problem.message
    assert problem.line == 1


def test_python_unclosed_bracket_and_bad_indent():
    unclosed = check("x = foo(1,\n      2\n", "python")
    assert unclosed.problems[0].message == "SyntaxError: '(' was never closed"
    assert unclosed.problems[0].line == 1
    indented = check("x = 1\n    y = 2\n", "python")
    assert indented.problems[0].message == "IndentationError: unexpected indent"
    assert indented.problems[0].line == 2


def test_python_problems_on_other_lines_are_kept_without_duplicates():
    source = "def f(:\n    pass\n\nx = [1, 2\ny = 3\n"
    result = check(source, "python")
    assert result.problems[0].source == "python"
    lines = [p.line for p in result.problems]
    assert len(lines) == len(set(lines))
    assert len(result.problems) >= 2  # tree-sitter sees the second error too


def test_python_valid_modern_syntax_is_clean():
    source = "match x:\n    case [a, *rest]:\n        pass\ntype Alias = int\n" \
        if __import__("sys").version_info >= (3, 12) else "match x:\n    case [a, *rest]:\n        pass\n"
    assert check(source, "python").ok


def test_json_judge_and_empty_sources():
    trailing = check('{"a": 1,}', "json")
    assert trailing.problems[0].source == "json"
    assert check("", "json").ok
    assert check("", "python").ok
    assert check("", "javascript").ok


def test_columns_count_characters_not_bytes():
    result = check('const s = "héllo wörld";\nlet x = (1 + ;\n', "javascript")
    assert result.problems
    text = check('x = "é" +\n', "python").problems[0]
    assert text.line == 1


def test_offending_text_is_text():
    result = check("let x = 1;\nlet y = @@@;\n", "javascript")
    assert any(isinstance(p.text, str) and "@" in p.text for p in result.problems)


def test_render_marks_problem_lines_with_numbers():
    source = "a = 1\nb = 2\nc = (3\nd = 4\ne = 5\nf = 6\ng = 7\n"
    text = render(check(source, "python"), source)
    assert "█3| c = (3" in text
    assert " 1| a = 1" in text
    assert "7|" not in text  # only a window, not the whole file


def test_render_of_a_long_file_is_bounded():
    body = "".join(f"x{i} = {i}\n" for i in range(5000))
    source = body + "y = (1\n" + body
    text = render(check(source, "python"), source)
    assert len(text.splitlines()) < 12
    assert "█5001| y = (1" in text


def test_check_is_deterministic_on_every_language():
    for language in REQUIRED:
        source = example(language, "broken").read_text(encoding="utf-8")
        assert check(source, language) == check(source, language)


@pytest.mark.parametrize("head,expected", [
    (b"#!/usr/bin/env python3\n", "python"), (b"#!/bin/bash\n", "bash"),
    (b"#!/usr/bin/env node\n", "javascript"), (b"#!/usr/bin/ruby -w\n", "ruby"),
    (b"#!/bin/sh\n", "bash"), (b"print(1)\n", None),
])
def test_shebang_detection(head, expected):
    assert detect_shebang(head) == expected
    assert detect("script", head) == expected


RUST_MAIN = """fn count(text: &str) -> usize {
    text.len()
}

fn main() {
    let n = count("tinycode");
    let twice = n * 2;
    println!("{}", twice);
}
"""


def test_a_let_at_a_rust_file_s_top_level_is_a_problem_where_tree_sitter_alone_judges(tree_sitter_only):
    # tree-sitter-rust reads a snippet's statements at the top level; rustc allows only
    # items there. A '}' put back after main's first line is no repair.
    assert check(RUST_MAIN, "rust").ok
    misplaced = RUST_MAIN.replace('count("tinycode");', 'count("tinycode");}').replace("twice);\n}\n", "twice);\n")
    assert [(p.line, p.text) for p in check(misplaced, "rust").problems] == [(7, "let")]
