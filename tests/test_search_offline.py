"""The offline knowledge base: its entries, its ranking, and that it never touches the network."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from tinycode import check, languages
from tinycode.websearch import SearchError, search
from tinycode.websearch.offline import entries, search_knowledge


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open or resolve a connection fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network used: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def test_knowledge_base_size_and_coverage():
    all_entries = entries()
    assert len(all_entries) >= 60
    covered = {e.language for e in all_entries}
    assert {spec.name for spec in languages.BUILTIN} <= covered
    by_language = {name: sum(e.language == name for e in all_entries) for name in covered}
    assert max(by_language, key=by_language.get) == "python"
    assert len({(e.language, e.id) for e in all_entries}) == len(all_entries)


@pytest.mark.parametrize("entry", entries(), ids=lambda e: f"{e.language}/{e.id}")
def test_every_example_is_broken_then_fixed(entry):
    assert entry.message and entry.means and entry.fix
    assert not check(entry.broken, entry.language).ok, "the broken example parses"
    assert check(entry.fixed, entry.language).ok, "the fixed example has problems"
    assert len(entry.result().snippet) < 400  # short: the model reads it at ~150 tok/s


def python_message(source: str) -> str:
    return check(source, "python").problems[0].message


@pytest.mark.parametrize("query,expected", [
    ("SyntaxError: '(' was never closed", "python/never-closed"),
    ("'[' was never closed", "python/never-closed"),
    ("SyntaxError: expected ':'", "python/expected-colon"),
    ("expected ':'", "python/expected-colon"),
    ("SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?", "python/print-parentheses"),
    ("Missing parentheses in call to 'print'", "python/print-parentheses"),
    ("IndentationError: unexpected indent", "python/unexpected-indent"),
    ("unexpected indent", "python/unexpected-indent"),
    ("SyntaxError: invalid syntax. Perhaps you forgot a comma?", "python/forgot-comma"),
    ("SyntaxError: invalid syntax", "python/invalid-syntax-generic"),
    ("SyntaxError: unmatched ')'", "python/unmatched"),
    ("closing parenthesis ']' does not match opening parenthesis '('", "python/mismatched-bracket"),
    ("IndentationError: expected an indented block after function definition on line 3",
     "python/expected-indented-block"),
    ("SyntaxError: cannot assign to literal here. Maybe you meant '==' instead of '='?",
     "python/assign-in-condition"),
    ("JavaScript SyntaxError: Unexpected token '}'", "javascript/unexpected-token"),
    ("Unexpected token", "javascript/unexpected-token"),
    ("go expected ';'", "go/expected-semicolon"),
    ("expected ';', found y", "go/expected-semicolon"),
    ("rust error: expected `;`, found `let`", "rust/expected-semicolon"),
    ("java error: ';' expected", "java/semicolon-expected"),
    ("error: expected ';' before '}' token", "c/expected-semicolon"),
    ("error: expected ';' after class definition", "cpp/class-semicolon"),
    ("error CS1002: ; expected", "csharp/semicolon-expected"),
    ("ruby syntax error, unexpected end-of-input, expecting `end'", "ruby/expecting-end"),
    ("bash syntax error: unexpected end of file", "bash/unexpected-eof"),
    ("JSONDecodeError: Expecting property name enclosed in double quotes", "json/trailing-comma-object"),
    ("yaml mapping values are not allowed here", "yaml/mapping-values"),
    ("toml Expected '=' after a key in a key/value pair", "toml/expected-equals"),
])
def test_common_messages_find_their_entry_first(query, expected):
    assert search(query, 3)[0].url == f"kb:{expected}"


@pytest.mark.parametrize("source", ["print 'hi'\n", "if x\n    pass\n", "f(1, 2\n", "x = 1\n    y = 2\n",
                                    "d = {'a': 1 'b': 2}\n", "for i in range(3): print(i))\n"])
def test_the_checkers_own_python_messages_find_an_entry(source):
    message = python_message(source)
    top = search(message, 1)[0]
    assert top.url.startswith("kb:python/")
    assert top.title.endswith(message.split(" (")[0]) or message.split(":", 1)[1].strip()[:12] in top.title


@pytest.mark.parametrize("language,expected", [
    ("javascript", "javascript/missing-paren"), ("java", "java/paren-expected"),
    ("csharp", "csharp/paren-expected"), ("c", "c/expected-paren")])
def test_language_preference_for_tree_sitter_messages(language, expected):
    assert search_knowledge("missing ')'", 1, language=language)[0].url == f"kb:{expected}"
    assert search(f"{language} missing ')'", 1)[0].url == f"kb:{expected}"


def test_language_named_in_the_query_ranks_its_entries_first():
    for name in ("rust", "go", "java", "c", "csharp", "typescript"):
        results = search(f"{name} missing ';'", 3)
        assert results[0].url.startswith(f"kb:{name}/"), (name, results[0].url)


def test_results_carry_meaning_fix_and_example():
    result = search("Missing parentheses in call to 'print'", 1)[0]
    assert "Fix:" in result.snippet and "Example:" in result.snippet
    assert "print(" in result.snippet and result.title.startswith("python: ")


def test_unrelated_query_finds_nothing():
    assert search("zebra quantum", 3) == []
    assert search("python", 3) == []


def test_k_is_respected_and_bounded():
    assert len(search("expected", 2)) == 2
    assert len(search("expected", 500)) == 10


@pytest.mark.parametrize("query", ["", "   \n\t "])
def test_empty_query_is_invalid_input(query):
    with pytest.raises(SearchError) as info:
        search(query)
    assert info.value.error_class == "invalid_input"


def test_unknown_backend_is_invalid_input():
    with pytest.raises(SearchError) as info:
        search("expected ':'", backend="bing")
    assert info.value.error_class == "invalid_input" and "duckduckgo" in info.value.hint


def test_offline_backend_opens_no_socket(no_network):
    assert search("SyntaxError: expected ':'")[0].url == "kb:python/expected-colon"


@pytest.mark.parametrize("backend", ["duckduckgo", "searxng"])
def test_offline_mode_refuses_online_backends_without_a_socket(no_network, monkeypatch, backend):
    monkeypatch.setenv("TINYCODE_SEARXNG_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("TINYCODE_DUCKDUCKGO_URL", "http://127.0.0.1:9/html/")
    with pytest.raises(SearchError) as info:
        search("expected ':'", backend=backend, offline=True)
    assert info.value.error_class == "unavailable"
    monkeypatch.setenv("TINYCODE_OFFLINE", "1")
    with pytest.raises(SearchError) as info:
        search("expected ':'", backend=backend)
    assert info.value.error_class == "unavailable" and "continue without search" in info.value.hint


def test_import_and_offline_search_stay_light():
    code = ("import sys, tinycode.websearch as s; s.search(\"expected ':'\"); "
            "print(sorted(m for m in ('requests', 'urllib3', 'llama_cpp') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_agent_calls_web_search_and_reads_the_offline_answer(no_network):
    from tinycode.engine.agent.loop import run_agent
    from fake_llm import FakeLLM
    from tinycode.engine.agent.workspace import WorkingCopy

    copy = WorkingCopy("def area(r)\n    return r * r\n", "python")
    llm = FakeLLM(['Thought: what does it mean\nAction: web_search\nAction Input: {"query": "SyntaxError: expected \':\'"}\n',
                   'Thought: add the colon\nAction: replace_lines\nAction Input: '
                   '{"start": 1, "end": 1, "text": "def area(r):"}\n'])
    outcome = run_agent(llm, copy)
    observation = outcome.steps[0].observation
    assert "kb:python/expected-colon" in observation and "untrusted" in observation
    assert observation in llm.prompts[1][-1]["content"]
    assert outcome.fixed and copy.source == "def area(r):\n    return r * r\n"
