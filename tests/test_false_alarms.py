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
        ".card {\n  color: red;\n  &:hover { color: blue; }\n  .dark & { color: white; }\n}\n"
        "@media (width >= 600px) { .a { x: 1; } }\n@media (400px < width <= 800px) { .b { x: 1; } }\n",
        ".wrap { container-name: card; }\n@container card (min-width: 400px) { .t { x: 1; } }\n"
        "@container style(--theme: dark) { .t { x: 2; } }\n",
        '@import url("x.css") layer(base) supports(display: grid) screen;\n@layer framework.base { a { x: 1; } }\n'
        'a[data-x="y" i] { x: 1; }\n@page :first { margin: 1in; }\n.a { ; color: red;; *zoom: 1; }\n'
        ".b { color: red !IMPORTANT; }\n",
        "body { font-family: ヒラギノ角ゴ ProN W3, メイリオ, sans-serif; }\n",
    ],
    "c": ['#ifdef __cplusplus\nextern "C" {\n#endif\n\nstruct entry table[] = {\n    {"a", 1},\n'
          "#if WITH_B\n    {\"b\", 2},\n#else\n    {\"c\", 3},\n#endif\n    {0, 0}\n};\n\n"
          "#ifdef __cplusplus\n}\n#endif\n"],
    "cpp": ['const char *type_name = STR(NAME) ".VirtualObject";\n'
            'void show(uint64_t v) { printf("%" PRIu64 " of " VERSION "\\n", v); }\n',
            "struct A {\n  A& operator=(const B& o) { return this->operator=(o.a()); }\n"
            "  bool same(const A& o) const { return o.operator==(*this) && get().operator[](0); }\n};\n"],
    "html": [
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n<html><body><p>ok</p></body></html>\n',
        "<ul>\n{% for item in items %}\n  <li>{{ item.name }}</li>\n{% endfor %}\n</ul>\n"
        "{% if items|length > 3 %}<p>many</p>{% endif %}\n{# a note #}\n",
        "<pre><code>if (a > b) { f(x) => x; }\nvector&lt;int> v;</code></pre>\n"
        "<p>north & south</p>\n<p><span class=\"prompt\">> </span>node app.js</p>\n",
        "<title>Tom & Jerry</title>\n<textarea>a < b && c</textarea>\n<p>a && b</p>\n",
    ],
    "php": [
        "<?php\nfunction first($s) {\n    return $s{0} . $s{strlen($s) - 1};\n}\n",
        "<?php\nclass ReadOnly extends Base {\n    public function match($x) { return $x; }\n}\n"
        "$r = new ReadOnly();\n",
    ],
    "typescript": [
        "export interface Route<\n  in out TId extends string,\n  out TPath = string,\n> {\n  id: TId;\n}\n",
        "class Store {\n  static accessor count: number = 0;\n  accessor #name = '';\n}\n",
        'export declare const Ctx: import("react").Context<Machine | null>;\nexport type * from "./types";\n',
        "declare class V {\n  scrollToEnd: ({ behavior }?: ScrollOptions) => void;\n}\n",
        # a generic call signature on its own line after a member without ';'
        "interface Connect {\n  (): Enhancer<Props>\n\n  /** factory */\n  <S = {}, O = {}>(\n    map: Factory<S, O>,\n"
        "  ): Enhancer<S & O>\n  <\n    S = {},\n    O = {},\n  >(map: Plain<S, O>): Enhancer<S>\n}\n",
    ],
    "tsx": [
        "type Props<in T> = { value: T };\nexport const A = (p: Props<string>) => <div>{p.value}</div>;\n",
        'export const L = () => <label class="x" for="y">name</label>;\n',
    ],
    "csharp": [
        "class C {\n    void M(int a\n#if DEBUG\n        , int b\n#endif\n    ) { }\n"
        "    enum E { A,\n#if NET8_0\n        B,\n#elif NET6_0\n        B2,\n#else\n        B3,\n#endif\n        C }\n}\n",
        "class R {\n    static unsafe nint Count(IntPtr op) {\n        var n = *((nint*)(op + 8));\n"
        "        return *(nint*)(op + Offset) * (int)n;\n    }\n}\n",
    ],
    "java": ["import module java.base;\n\nclass A { List<String> xs; }\n"],
    "rust": ['unsafe extern "C" {\n    pub safe fn abs(x: i32) -> i32;\n    pub safe static X: i32;\n}\n'],
    "javascript": [
        'export const L = () => <label class="x" for="y">name</label>;\n',
        "@observer\nclass Store {\n  @observable count = 0;\n  accessor name = '';\n}\n",
        "export function f() {\n  using res = open();\n  return res.read();\n}\n",
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
    # a ')' lost after a dereferenced cast
    ("csharp", "class R {\n    unsafe nint C(IntPtr op) {\n        return *(nint*)(op + 8;\n    }\n}\n", 3),
    # a ',' lost in a parameter list's conditional part
    ("csharp", "class C {\n    void M(int a\n#if DEBUG\n        int b\n#endif\n    ) { }\n}\n", 4),
    # a nested rule's '{' lost after a later '&'
    ("css", ".a {\n  .dark & color: white; }\n}\n@media (width >= 600px) { .b { x: 1; } }\n", 2),
    # a media query's '{' lost after a range
    ("css", "@media (width >= 600px) .b { x: 1; } }\n", 1),
    # a ')' lost in a decorated class (node cannot read decorators)
    ("javascript", "@observer\nclass Store {\n  m() { return f(1; }\n}\n", 3),
    # a tag's '>' lost beside a reserved-word attribute
    ("javascript", 'const L = () => <label class="x" for="y" name</label>;\n', 1),
    # a ';' lost after a type that an import() names
    ("typescript", 'let a: import("./m").Box<string>\nlet b = 2;\nlet c = a b;\n', 3),
    # a type parameter's constraint lost after its variance
    ("typescript", "interface R<in out T extends> { a: 1 }\n", 1),
    # a ')' lost in a call signature on its own line
    ("typescript", "interface C {\n  (): X\n  <T = string>(a: T: T\n}\n", 3),
    # a ',' lost in an initialiser's conditional element, in a split extern "C"
    ("c", '#ifdef __cplusplus\nextern "C" {\n#endif\nstruct e t[] = {\n    {"a", 1},\n#if B\n    {"b" 2},\n'
          "#endif\n    {0, 0}\n};\n#ifdef __cplusplus\n}\n#endif\n", 7),
])
def test_a_mistake_beside_it_is_still_reported(tree_sitter_only, language, source, line):
    assert line in _lines(source, language)


def test_blanking_keeps_every_line_and_column():
    html = '<?xml version="1.0"?>\n<p>{% if a > b %}x > y{% endif %} & z</p>\n'
    css = "a { b: c ! important; d: url(./e.png); }\n"
    ts = "interface R<in out T> { a: import('x').B<T>; }\nexport type * from './t';\n"
    c = CLEAN["c"][0]
    for source, language in ((html, "html"), (css, "css"), ("<?php $a{1};", "php"), (ts, "typescript"), (c, "c")):
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


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
@pytest.mark.parametrize("source", CLEAN["javascript"])
def test_what_node_cannot_read_is_left_to_the_grammar(source):
    # JSX, decorators, accessor fields, using declarations: node 20 rejects each.
    assert check(source, "javascript", "app.jsx").ok


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_a_mistake_in_a_file_node_cannot_read_is_still_reported():
    assert 3 in _lines("@observer\nclass Store {\n  m() { return f(1; }\n}\n", "javascript")




HEREDOC_SH = """#!/bin/sh
cat >settings.json.new <<\\EOF ||
{
    "[git-commit]": {
        "editor.wordWrap": "wordWrapColumn",
        "editor.wordWrapColumn": 72
    },
    "files.trimTrailingWhitespace": true
}
EOF
die "Could not write settings.json"

OSNAME=
case "$(uname -s)" in
Linux)
	OSNAME=Linux
	;;
esac
"""


@pytest.mark.skipif(shutil.which("sh") is None, reason="no shell")
def test_what_the_shell_read_past_before_its_first_error_is_no_problem():
    # tree-sitter-bash, thrown by the lost `in`, objects to the here-document far above;
    # `sh -n` read it through and stops only there, so that is the one problem reported.
    assert check(HEREDOC_SH, "bash").ok
    broken = HEREDOC_SH.replace('case "$(uname -s)" in', 'case "$(uname -s)"')
    assert _lines(broken, "bash") == [15]
