"""Adding a language is one record and one line in the table: proved end to end.

The records here stand for a new module in ``tinycode/languages/``; the line is the
table ``languages.LANGUAGES`` with the record added, as its new line would add it.
"""

from __future__ import annotations

import json

import pytest

from tinycode import languages
from tinycode.cli import main
from tinycode.languages import LanguageSpec, OwnVerdict, wheel

# A data language on an installed grammar (tree-sitter-json's), under its own name.
DATA = LanguageSpec("jsondata", wheel("tree_sitter_json"), (".jdata",), aliases=("jd",), comment="")


def _no_tabs(source: str) -> OwnVerdict | None:
    """A judge of the language's own that tree-sitter-json does not know: no tab anywhere."""
    for number, line in enumerate(source.split("\n"), 1):
        if "\t" in line:
            column = line.index("\t") + 1
            return OwnVerdict(number, column, number, column + 1, "TabError: a tab in a strict file", "\t")
    return None


STRICT = LanguageSpec("strictjson", wheel("tree_sitter_json"), (".sjson",), comment="",
                      own_judge=_no_tabs, own_judge_label="the no-tabs rule")


@pytest.fixture
def added(monkeypatch):
    monkeypatch.setattr(languages, "LANGUAGES", languages.LANGUAGES + (DATA, STRICT))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_an_added_language_is_detected_named_and_parsed(added):
    assert languages.detect("x/data.jdata") == "jsondata"
    assert languages.normalize("JD") == "jsondata" and languages.aliases()["jd"] == "jsondata"
    assert "jsondata" in languages.supported_languages() and languages.is_supported("jd")
    assert languages.comment_prefix("jsondata") == ""
    assert languages.get_parser("jsondata").parse(b'{"a": 1}').root_node.type == "document"


def test_check_finds_a_problem_in_a_broken_file_and_none_in_a_clean_one(added, capsys, tmp_path):
    clean = tmp_path / "clean.jdata"
    clean.write_text('{"a": [1, 2], "b": {"c": null}}\n')
    broken = tmp_path / "broken.jdata"
    broken.write_text('{"a": [1, 2,, "b": {"c": null}}\n')
    assert run(capsys, "check", str(clean)) == (0, "", "No problems found in 1 file.\n")
    code, out, _ = run(capsys, "check", "--json", str(clean), str(broken))
    assert code == 1
    reports = {r["path"].rsplit("/", 1)[-1]: r for r in json.loads(out)}
    assert reports["clean.jdata"]["ok"] and reports["clean.jdata"]["language"] == "jsondata"
    found = reports["broken.jdata"]
    assert not found["ok"] and found["language"] == "jsondata" and found["judge"] == "tree-sitter"
    assert found["problems"] and found["problems"][0]["line"] == 1


def test_a_language_with_its_own_judge_is_judged_by_it(added, capsys, tmp_path):
    clean = tmp_path / "clean.sjson"
    clean.write_text('{\n  "a": 1\n}\n')
    tabbed = tmp_path / "tabbed.sjson"
    tabbed.write_text('{\n\t"a": 1\n}\n')  # tree-sitter-json accepts it: only the own judge objects
    assert run(capsys, "check", str(clean))[0] == 0
    code, out, _ = run(capsys, "check", str(tabbed))
    assert code == 1 and f"{tabbed}:2:1: TabError: a tab in a strict file" in out
    code, out, err = run(capsys, "check", "-v", str(clean))
    assert "the no-tabs rule" in out + err


def test_a_file_of_an_unlisted_language_is_not_taken_for_one(capsys, tmp_path):
    (tmp_path / "data.jdata").write_text("{}\n")
    assert languages.detect(tmp_path / "data.jdata") is None
    assert not languages.is_supported("jsondata")
