"""Where tree-sitter alone judges a file (no tool of its language here), what the
language allows and the grammar does not is no syntax problem; a real mistake beside
it still is."""

from __future__ import annotations

import shutil

import pytest

from tinycode import judges
from tinycode.check import check
from tinycode.judges import grammar_gaps


def _lines(source: str, language: str) -> list[int]:
    return [p.line for p in check(source, language).problems]


CLEAN = {
    "css": [
        "p.note {\n  color: #333 ! important;\n  margin: 0 !\n    important;\n}\n",
        ".logo {\n  background: url(../img/logo.png) no-repeat;\n  cursor: url(?x=1&y=2);\n}\n",
        ".bar {\n  filter: progid:DXImageTransform.Microsoft.Alpha(Opacity='80', Style=0);\n  opacity: .8;\n}\n",
    ],
    "html": [
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n<html><body><p>ok</p></body></html>\n',
        "<ul>\n{% for item in items %}\n  <li>{{ item.name }}</li>\n{% endfor %}\n</ul>\n"
        "{% if items|length > 3 %}<p>many</p>{% endif %}\n{# a note #}\n",
        "<pre><code>if (a > b) { f(x) => x; }\nvector&lt;int> v;</code></pre>\n"
        "<p>north & south</p>\n<p><span class=\"prompt\">> </span>node app.js</p>\n",
    ],
    "php": [
        "<?php\nfunction first($s) {\n    return $s{0} . $s{strlen($s) - 1};\n}\n",
        "<?php\nclass ReadOnly extends Base {\n    public function match($x) { return $x; }\n}\n"
        "$r = new ReadOnly();\n",
    ],
}


@pytest.mark.parametrize("language,source", [(lang, src) for lang, sources in CLEAN.items() for src in sources])
def test_what_the_language_allows_is_no_problem(tree_sitter_only, language, source):
    assert check(source, language).ok


@pytest.mark.parametrize("language,source,line", [
    # a rule's '{' lost after "! important"
    ("css", "a {\n  color: red ! important;\n}\nb color: blue; }\n", 4),
    # a quote left open inside an IE filter
    ("css", ".x {\n  filter: progid:DX.Alpha(Opacity='80', Style='1);\n}\n.y { color: red; }\n", 2),
    # an end tag that lost its '<', after an XML declaration
    ("html", '<?xml version="1.0"?>\n<html><body>\n<div id="a">text /div>\n</body></html>\n', 3),
    # a start tag that lost its '<' in a template
    ("html", "{% block body %}\n<p>{{ title }}</p>\nspan class=\"x\">y</span>\n{% endblock %}\n", 3),
    # an end tag's '>' typed twice
    ("html", "<p>a</p>>\n<p>b &amp; c</p>\n", 1),
    # an end tag with its '/' typed twice
    ("html", "<h2>a > b</h2>\n<h3>c<//h3>\n", 2),
    # a bracket lost beside a brace offset
    ("php", "<?php\n$c = $s{0};\nif ($c == 'a' {\n    echo $c;\n}\n", 3),
])
def test_a_mistake_beside_it_is_still_reported(tree_sitter_only, language, source, line):
    assert line in _lines(source, language)


def test_blanking_keeps_every_line_and_column():
    html = '<?xml version="1.0"?>\n<p>{% if a > b %}x > y{% endif %} & z</p>\n'
    css = "a { b: c ! important; d: url(./e.png); }\n"
    for source, language in ((html, "html"), (css, "css"), ("<?php $a{1};", "php")):
        text = grammar_gaps.blanked(source, language)
        assert len(text) == len(source) and text.count("\n") == source.count("\n")


def test_other_languages_are_left_as_they_are():
    source = "fn main() { let x = 1 }\n"
    assert grammar_gaps.blanked(source, "rust") is source


# A header whose types come from a vendor's header that is not there, with a
# constructor behind a specifier macro the header defines itself.
SPECIFIER_MACRO = """#pragma once
#include "vendor_api.h"
#if __cplusplus >= 201402L
#define LIB_CONSTEXPR14 constexpr
#else
#define LIB_CONSTEXPR14
#endif
namespace lib {
class message {
 public:
  LIB_CONSTEXPR14 message(vendor_handle_t handle) noexcept
    : kind_{VENDOR_KIND_HANDLE}
  {
    value_.handle = handle;
  }
  constexpr message(vendor_kind_t const& kind, vendor_value_t const& value) noexcept
    : kind_{kind}, value_(value)
  {
  }
 private:
  vendor_kind_t kind_{};
  vendor_value_t value_{};
};
}  // namespace lib
"""


@pytest.mark.parametrize("compiler", [True, False], ids=["compiler", "parser only"])
def test_a_constructor_behind_the_files_own_specifier_macro_is_no_problem(tmp_path, compiler):
    if compiler and shutil.which("g++") is None:
        pytest.skip("g++ not installed")
    if not compiler:
        judges.configure({"*": "off"})
    path = tmp_path / "message.hpp"
    broken = SPECIFIER_MACRO.replace("value_.handle = handle;", "value_.handle = handle")
    for source, ok in ((SPECIFIER_MACRO, True), (broken, False)):
        path.write_text(source)
        assert check(source, "cpp", str(path)).ok is ok
