"""CSS and HTML judged by postcss and html-validate beside tree-sitter: real node
processes, kept warm. A file is broken when either says so. Tests skip where the
package is not installed globally (``npm install -g postcss html-validate``)."""

from __future__ import annotations

import json

import pytest

from tinycode import judges
from tinycode.check import check, tree_sitter_problems
from tinycode.cli import main
from tinycode.judges import registry, warm

needs_postcss = pytest.mark.skipif(registry.find_tool("css", "", {}) is None, reason="postcss not installed")
needs_html_validate = pytest.mark.skipif(registry.find_tool("html", "", {}) is None,
                                         reason="html-validate not installed")

CSS = "a {\n  color: red;\n  font-weight: bold;\n}\n\nb {\n  margin: 0;\n}\n"
HTML = ('<!doctype html>\n<html>\n<body>\n  <div class="box">\n    <span>hi</span>\n  </div>\n'
        '  <p>one<br>two</p>\n</body>\n</html>\n')


@pytest.fixture(autouse=True)
def _own_workers(fresh_workers):
    yield


@needs_postcss
def test_postcss_finds_a_lost_semicolon_tree_sitter_reads_as_one_value():
    broken = CSS.replace("color: red;", "color: red")
    assert tree_sitter_problems(broken, "css") == []
    found = check(broken, "css")
    assert not found.ok and found.judge == "postcss" and found.problems[0].line == 2
    assert "semicolon" in found.problems[0].message
    assert check(CSS, "css").ok and check(CSS, "css").judge == "postcss"
    # What only tree-sitter sees still counts: postcss reads no value.
    assert not check(CSS.replace("margin: 0;", "margin: calc(1px + );"), "css").ok
    assert [slot.starts for slot in warm._slots.values()] == [1]


@needs_html_validate
def test_html_validate_finds_end_tags_tree_sitter_lets_through():
    for broken in (HTML.replace("</span>", "</spn>"), HTML.replace("  </div>\n", ""),
                   HTML.replace('class="box"', 'class="box')):
        found = check(broken, "html")
        assert not found.ok and found.judge == "html-validate", broken
    assert check(HTML, "html").ok
    # A stray end tag is something browsers read and real pages have: no problem.
    assert check(HTML.replace("<p>one<br>two</p>", "<p>one<br>two</p></p>"), "html").ok


@needs_html_validate
def test_a_repository_s_own_html_validate_configuration_is_not_read(tmp_path, monkeypatch):
    (tmp_path / ".htmlvalidate.json").write_text(json.dumps({"extends": ["html-validate:recommended"]}))
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.html"
    page.write_text(HTML)
    assert check(HTML, "html", path=str(page)).ok  # the recommended rules would object to it


@needs_postcss
def test_a_css_repair_is_verified_by_postcss(tmp_path, capsys, model):
    path = tmp_path / "a.css"
    path.write_text(CSS.replace("color: red;", "color: red"))
    assert main(["fix", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)[0]
    assert report["status"] == "fixed" and report["verified_by"] == "postcss"
    assert check(path.read_text(), "css").ok


def test_without_the_packages_tree_sitter_alone_judges(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    judges.configure()
    assert judges.describe(["css", "html"]) == {"css": "tree-sitter only", "html": "tree-sitter only"}
    assert check(CSS, "css").ok and not check(CSS.replace("a {", "a {{"), "css").ok


DOC = ('<!doctype html>\n<html>\n<head>\n<title>Types</title>\n<link href="a.html" rel="up" title="Types">\n'
       '<link href="b.html" rel="next" title="Next">\n</head>\n<body>\n<div class="box">\n'
       '<p>The <code>float</code> and\n<code>double</code> types.\n</p>\n<p>More.</p>\n</div>\n</body>\n</html>\n')


@needs_html_validate
def test_an_end_tag_that_lost_its_slash_is_put_back_where_the_judge_reports_elements_left_open():
    from tinycode.engine.candidates import suggest

    broken = DOC.replace("<code>float</code>", "<code>float< code>")
    found = check(broken, "html")
    assert not found.ok and found.problems[0].line > 10  # reported where an enclosing element ends
    assert DOC in [c.source_after for c in suggest(broken, "html", limit=4)]


@needs_html_validate
def test_an_end_tag_that_lost_its_slash_far_above_the_document_s_end_is_put_back():
    # A '</div>' whose '/' became a blank, eighty lines above the end of the body where
    # html-validate reports the element left open.
    from tinycode.engine.candidates import suggest

    items = "".join(f"<p>Item {n}.</p>\n" for n in range(80))
    fixed = DOC.replace("<p>More.</p>\n</div>\n", "<p>More.</p>\n</div>\n<div>\n" + items + "</div>\n")
    broken = fixed.replace("<p>More.</p>\n</div>", "<p>More.</p>\n< div>", 1)
    found = check(broken, "html")
    assert not found.ok and found.problems[0].line > 90
    assert fixed in [c.source_after for c in suggest(broken, "html", limit=4)]


@needs_html_validate
def test_what_html_validate_reports_once_its_tokenizer_reads_on_is_progress():
    # A value closed with the other quote stops the tokenizer a line below; put right,
    # the judge reads on to the file's next mistake and the elements it leaves open:
    # that place is repaired, and the loop repairs the next in a step of its own.
    from scripted import repaired_unranked
    from tinycode.engine.candidates import suggest

    rest = DOC.replace("<code>float</code>", "<code>float< code>")
    broken = rest.replace('title="Types">', 'title="Types\'>')
    assert check(broken, "html").problems[0].message.startswith("failed to tokenize")
    assert len(check(rest, "html").problems) > 1
    found = suggest(broken, "html", limit=6)
    assert found and found[0].source_after == rest
    result = repaired_unranked(broken, "html")
    assert result.status == "fixed" and result.source == DOC


# A page as rustdoc writes it: a few lines, each thousands of characters long.
ITEMS = "".join(f'<section id="impl-{n}" class="impl"><span class="rightside"><span class="since" title="Stable">'
                f'1.{n}.0</span> · <a class="src" href="../src/m.rs.html#{n}">Source</a></span>'
                f'<a href="#impl-{n}" class="anchor">§</a><h3 class="code-header">impl <a class="trait" '
                f'href="trait.T{n}.html" title="trait T{n}">T{n}</a></h3></section>' for n in range(40))
PAGE = ('<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>T</title></head>\n'
        '<body><main><div class="width-limiter"><section id="main-content" class="content">'
        + ITEMS + '</section></div></main></body>\n</html>\n')


@needs_html_validate
@pytest.mark.parametrize("lost", ['<span class="since" title="Stable">1.30', '<div class="width-limiter">'])
def test_a_start_tag_that_lost_its_name_on_a_long_line_gets_the_one_its_end_tags_ask_for(lost):
    # The typos tried are those near the error, not every pair of tokens of a line of
    # thousands; the name is the element whose end tags outnumber its start tags.
    from tinycode.engine.candidates import suggest

    broken = PAGE.replace(lost, lost.replace("span ", "").replace("div ", ""))
    assert broken != PAGE and not check(broken, "html").ok
    assert PAGE in [c.source_after for c in suggest(broken, "html", limit=4)]


@needs_html_validate
def test_an_end_tag_lost_lines_above_the_end_tag_that_finds_its_element_open_is_repaired_there():
    # The judge reports at the enclosing element's end tag, 20 lines below the broken one;
    # the element's end tag may have been lost anywhere since that element opened.
    from fake_llm import FakeLLM
    from tinycode import repair

    page = ('<!doctype html>\n<html>\n<head>\n<title>T</title>\n</head>\n<body>\n<div class="box">\n'
            '<p>Synopsis</p>\n<pre><code>npm edit &lt;pkg&gt;\n</code></pre>\n'
            + "".join(f"<p>Line {n}.</p>\n" for n in range(20)) + '</div>\n</body>\n</html>\n')
    broken = page.replace("</code></pre>", "</code>< pre>")
    assert check(broken, "html").problems[0].line > 25
    result = repair(broken, "html", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert result.status == "fixed" and result.source == page


MANUAL_HTML = """<!DOCTYPE html>
<html>
<head>
<title>Manual</title>
</head>
<body>
<div class="chapter">
<p>
   By default a file called
   <code class="computeroutput">bb.out.PID</code> will be created,
   where PID is replaced by the process ID.
</p>
<div class="literallayout"><p>
export ANDROID=yes<br>
<br>
# Modify this.  Note, this "export" command is only done<br>
# so as to reduce the amount of typing required.<br>
</p></div>
</div>
</body>
</html>
"""


@needs_html_validate
@pytest.mark.parametrize("broken", [
    MANUAL_HTML.replace("</p></div>\n</div>", "</p></div>\n</>"),  # an end tag's name lost
    # and with it an end tag's '>' lost, and an attribute's value closed with the other
    # quote: it runs on to the text's quote lines below, where the tokenizer stops
    MANUAL_HTML.replace("</p></div>\n</div>", "</p></div>\n</>").replace("</code> will", "</code will")
    .replace('class="literallayout">', "class=\"literallayout'>"),
])
def test_an_end_tag_s_lost_name_and_closer_and_a_value_s_quote_are_put_back(broken):
    from fake_llm import FakeLLM

    from tinycode import repair

    assert check(MANUAL_HTML, "html").ok
    fixed = repair(broken, "html", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert fixed.status == "fixed" and fixed.source == MANUAL_HTML


@needs_html_validate
def test_an_end_tag_written_in_another_case_is_respelt_as_its_start_tag():
    # html-validate tells the case of names apart: `</Code>` closes nothing, and it
    # reports the paragraph left open only at the `</p>` two lines below.
    from fake_llm import FakeLLM

    from tinycode import repair

    broken = MANUAL_HTML.replace("bb.out.PID</code>", "bb.out.PID</Code>")
    problems = check(broken, "html").problems
    assert problems and problems[0].line > broken[:broken.index("</Code>")].count("\n") + 1
    fixed = repair(broken, "html", llm=FakeLLM(scorer=lambda prompt, text: 0.0))
    assert fixed.status == "fixed" and fixed.source == MANUAL_HTML


@needs_html_validate
def test_an_end_tag_that_lost_its_name_is_not_given_one_no_open_element_has():
    # html-validate stops at the tokenizer's error below (an attribute that lost its
    # '='), so it tells apart none of the names the '</>' might get: tree-sitter reads
    # '</p>', whose paragraph is closed already, as an end tag matching nothing. The
    # model here likes '</p>' best.
    from fake_llm import FakeLLM

    from tinycode import repair

    later = "".join(f"<p>Step {n}.</p>\n" for n in range(12)) + '<p><a href="next.html">Next</a></p>\n'
    page = MANUAL_HTML.replace("</div>\n</body>", f"</div>\n{later}</body>")
    assert check(page, "html").ok
    broken = page.replace("</p></div>\n</div>", "</p></div>\n</>").replace('href="next.html"', 'href "next.html"')
    fixed = repair(broken, "html", llm=FakeLLM(scorer=lambda prompt, text: float(text.count("</p>"))))
    assert fixed.status == "fixed" and "</p></div>\n</div>\n<p>Step 0.</p>" in fixed.source
