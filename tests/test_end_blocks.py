"""Blocks closed by ``end`` (Ruby): the line that lost its opening word, found by the layout."""

from __future__ import annotations

import shutil

import pytest

from scripted import repaired_unranked
from tinycode.check import check
from tinycode.engine.candidates import suggest
from tinycode.engine.end_block_proposals import lost_header

SERVER = """class Server
  def initialize(port)
    @port = port
  end

  def start(config)
    setup(config)
    listen
  end

  def stop
    close unless closed?
  end
end
"""
SPEC = """Gem::Specification.new do |s|
  s.name = "tiny"
  if s.respond_to?(:metadata)
    s.metadata = {}
  else
    s.version = "1.0"
  end
end
"""


@pytest.mark.parametrize("source, old, new", [
    (SERVER, "  def start(config)", "  start(config)"),  # a method's 'def'
    (SPEC, "Gem::Specification.new do |s|", "Gem::Specification.new |s|"),  # a block's 'do'
])
def test_the_line_that_lost_its_opening_word_gets_it_back(source, old, new):
    broken = source.replace(old, new)
    assert not check(broken, "ruby").ok
    found = [c.source_after for c in suggest(broken, "ruby", limit=8)]
    assert source in found


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
@pytest.mark.parametrize("typo", ["ddef", "Def", "dfe"])
def test_the_opening_word_mistyped_is_respelt_not_another_put_before_it(typo):
    # ``ddef stop`` is a call to Ruby: only the file's last ``end``, closing nothing, is
    # reported; the line the layout says lost its word has that word mistyped.
    broken = SERVER.replace("  def stop", f"  {typo} stop")
    assert [p.line for p in check(broken, "ruby").problems] == [14]
    found = [c.source_after for c in suggest(broken, "ruby", limit=8)]
    assert found and found[0] == SERVER


def test_only_a_line_that_opens_nothing_lost_its_word():
    lines = SERVER.replace("  def start(config)", "  start(config)").split("\n")
    assert lost_header(lines, 9) == 6  # the 'end' of 'start' closes the line that lost 'def'
    assert lost_header(lines, 4) is None and lost_header(lines, 13) is None and lost_header(lines, 14) is None
    # the middle words of a block are no block's first line
    spec = SPEC.split("\n")
    assert lost_header(spec, 7) is None



def _long_module() -> str:
    methods = "".join(f"    def step{i}(value)\n      value + {i}\n    end\n\n" for i in range(8))
    return ("module Tasks\n  class Runner\n    def run(items)\n      items.each do |item|\n"
            "        step0(item)\n      end\n    end\n\n" + methods + "  end\n\n  class Report\n"
            "    def show\n      puts 'done'\n    end\n  end\nend\n")


def _long_scanner() -> str:
    helpers = "".join(f"function helper{i}(value) {{\n  return value + {i};\n}}\n\n" for i in range(8))
    return ("function scan(glob) {\n  let escaping = false;\n  for (const c of glob) {\n    if (escaping) {\n"
            "      escaping = false;\n      continue;\n      // escaped char, treat like normal char\n    }\n"
            "    count(c);\n  }\n}\n\n" + helpers)


@pytest.mark.parametrize("language, clean, old, new, place, refused", [
    # A block word misspelt: only the block word, and only from a spelling a typo away.
    ("ruby", _long_module(), "        step0(item)\n      end\n", "        step0(item)\n      endd\n", 6,
     [("      endd\n", "      end; x\n"), ("      endd\n", "      exit\n")]),
    # A block's closer typed onto a comment: only the closer, not the comment's words with it.
    ("javascript", _long_scanner(), "normal char\n    }\n", "normal char }\n", 7,
     [("normal char }\n", "normal\n    char }\n")]),
])
def test_a_block_word_far_above_where_its_block_is_noticed_open_is_put_right(language, clean, old, new, place,
                                                                               refused):
    from tinycode.engine.guard import far_from_problems

    broken = clean.replace(old, new)
    report = check(broken, language).problems
    assert report and min(p.line for p in report) > place + 10
    assert not far_from_problems(broken, clean, language, report, 10)
    for mistake, edit in refused:
        assert far_from_problems(broken, broken.replace(mistake, edit), language, report, 10)
    result = repaired_unranked(broken, language)
    assert result.status == "fixed" and result.source == clean


SHAPES = """# Shapes and their areas.
module Shapes
  class Circle
    def initialize(radius)
      @radius = radius
    end

    def area
      3.14159 * @radius * @radius
    end
  end

  class Unit < StandardError; end

  class Square
    def initialize(side)
      @side = side
    end

    def area
      @side * @side
    end
  end
end
"""


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
def test_two_blocks_left_open_are_closed_one_at_a_time_though_the_judge_says_the_same_after_one():
    # ``ruby -c`` meets the file's end expecting ``end`` whether one block is open or two:
    # 'End' respelt leaves it saying the same. Counting the ``end``s the file lacks
    # at its end tells the step that closes one from one that closes none.
    from fake_llm import FakeLLM

    from tinycode import repair

    broken = SHAPES.replace("class Unit < StandardError; end", "class Unit < StandardError;")
    broken = broken.replace("\nend\n", "\nEnd\n")
    assert [p.line for p in check(broken, "ruby").problems] == [24]
    result = repair(broken, "ruby", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed" and check(result.source, "ruby").ok
    assert "End" not in result.source


def test_a_block_whose_end_was_lost_is_where_its_body_comes_back_to_its_depth():
    from tinycode.engine.end_block_proposals import blocks_without_end

    assert blocks_without_end(SHAPES.split("\n")) == []
    lost = SHAPES.replace("      @radius = radius\n    end\n", "      @radius = radius\n").split("\n")
    assert blocks_without_end(lost)[0] == (4, 7)  # 'def initialize' meets 'def area'
    one_line = SHAPES.replace("class Unit < StandardError; end", "class Unit < StandardError;").split("\n")
    assert blocks_without_end(one_line)[0] == (13, 15)
    # A value that is a block may end lined up with its word; a here-document's lines,
    # a statement going on, a block in braces and a method in one line are no sign.
    clean = ("def show(kind)\n  label = if kind\n            'a'\n          else\n            'b'\n          end\n"
             "  text = <<~EOS\n  #{label}\nEOS\n  total = [1, 2]\n    .map { |x|\n    x + 1\n  }\n"
             "  return false if\n    total.empty?\n  def area = 3\n  text\nend\n")
    assert blocks_without_end(clean.split("\n")) == []


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
@pytest.mark.parametrize("old, new", [
    ("      @radius = radius\n    end\n", "      @radius = radius\n"),  # a method's
    ("class Unit < StandardError; end", "class Unit < StandardError;"),  # a one-line class's
])
def test_an_end_lost_is_put_back_where_the_layout_closes_its_block(old, new):
    from fake_llm import FakeLLM

    from tinycode import repair

    broken = SHAPES.replace(old, new)
    assert not check(broken, "ruby").ok
    result = repair(broken, "ruby", llm=FakeLLM([""] * 20, scorer=lambda prompt, text: -len(text)))
    assert result.status == "fixed"
    assert result.source.split() == SHAPES.split()  # (on the class's line or one of its own)


HISTORY_SH = """#!/bin/sh
# Sets up the history of the test repository.
#
setup_history () {
\techo one >file &&
\tgit add file &&
\tgit commit -m one
}

setup_history
"""


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a shell")
@pytest.mark.parametrize("broken", [
    HISTORY_SH.replace("#\nsetup_history () {", "# setup_history () {"),  # the line typed onto the comment
    HISTORY_SH.replace("setup_history () {", "# setup_history () {"),  # or commented out alone
])
def test_a_function_s_first_line_in_a_comment_is_code_again_where_its_closing_brace_closes_nothing(broken):
    found = suggest(broken, "bash")
    assert found and found[0].edit.rule == "opener-in-comment"
    fixed = repaired_unranked(broken, "bash")  # (a model with no preference)
    assert fixed.status == "fixed"
    assert "\nsetup_history () {\n\techo one" in fixed.source and fixed.source.rstrip().endswith("setup_history")
    assert fixed.source.count("\n}\n") == 1  # the closer kept


OPTIONS_JS = """const getOptions = (opts) => {
  const options = {
    // spread the rest of the options
    ...opts,
    keepAlive: true,
    // our custom timeout options
    timeouts: {
      // the standard timeout option is mapped to our idle timeout
      idle: opts.timeout ?? 0,
      connection: 0,
      response: 0,
      transfer: 0,
      ...opts.timeouts,
    },
    // the dns options go at the top level
    ...opts.dns,
  }
  return options
}

module.exports = getOptions
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_a_block_s_first_line_typed_onto_a_comment_with_no_sentence_mark_before_it_is_split_off_at_its_last_words():
    broken = OPTIONS_JS.replace("options\n    timeouts: {", "options timeouts: {")
    assert check(broken, "javascript").problems[0].line > 6 + 6  # node stops far below
    fixed = repaired_unranked(broken, "javascript")
    assert fixed.status == "fixed" and fixed.source == OPTIONS_JS


@pytest.mark.parametrize("typo, closer", [("fii", "fi"), ("Fi", "fi"), ("doen", "done"), ("}#", "}")])
def test_a_closer_misspelt_where_its_block_ends_is_respelt_not_followed_by_another(typo, closer):
    from tinycode.engine.shell_proposals import _missing_closer_edits

    opening = {"fi": ["if test -n \"$1\"", "then"], "done": ["for x in a b", "do"], "}": ["setup () {"]}[closer]
    lines = opening + ["\techo \"$1\"", typo, "", "echo end"]
    edits = list(_missing_closer_edits(lines, len(lines)))
    assert edits[0].new_lines == [closer]
    assert not any(edit.new_lines == [closer, typo] for edit in edits)  # no closer put before the typo


def test_a_lone_word_that_only_resembles_a_closer_is_not_respelt():
    from tinycode.engine.shell_proposals import _missing_closer_edits

    lines = ["if test -n \"$1\"", "then", "\techo \"$1\"", ":", "if"]
    assert not any(edit.new_lines == ["fi"] for edit in _missing_closer_edits(lines, 5))


LABELS_GO = """package syntax

type label struct {
	used bool
	name string
}

func checkLabels(labels []*label, report func(string)) {
	// spec: "It is illegal to define a label that is never used."
	for _, l := range labels {
		if !l.used {
			report(l.name)
		}
	}
}
"""


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="needs gofmt")
def test_a_loop_s_first_line_typed_after_a_comment_s_sentence_is_split_off_where_the_outer_closer_closes_nothing():
    # The loop's '}' closes the function's '{': the one left over is the function's own,
    # a block above the comment; the loop's body still begins under it.
    broken = LABELS_GO.replace('never used."\n\tfor _', 'never used." for _')
    found = suggest(broken, "go")
    assert found and found[0].edit.rule == "opener-in-comment"
    fixed = repaired_unranked(broken, "go")
    assert fixed.status == "fixed" and fixed.source == LABELS_GO


JAVA_CHECK_SH = """#!/bin/sh
VERSION=$(java -version 2>&1 | sed -n 's/.*version "1\\.\\([0-9]\\).*/\\1/p')
case "${VERSION}" in
[1-6])
  cat >&2 <<EOF
This script needs Java 7 or later.

The java executable reports:
$(java -version 2>&1)
EOF
  exit 1
  ;;
esac
echo "Java ${VERSION}"
"""


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a shell")
@pytest.mark.parametrize("dash", ["", "-"])
def test_a_here_document_that_lost_its_delimiter_gets_the_word_that_ends_it_below(dash):
    # The shell says only that the newline after '<<' was unexpected.
    clean = JAVA_CHECK_SH.replace("<<EOF", f"<<{dash}EOF")
    broken = clean.replace(f"<<{dash}EOF", f"<<{dash}")
    assert check(clean, "bash").ok and not check(broken, "bash").ok
    fixed = repaired_unranked(broken, "bash")
    assert fixed.status == "fixed" and fixed.source == clean


BOOTSTRAP_SH = """#!/bin/bash
set -e

if [ "$GOOS" = "" -o "$GOARCH" = "" ]; then
	echo "usage: GOOS=os GOARCH=arch ./bootstrap.bash" >&2
	exit 2
fi

targ="../../go-${GOOS}-${GOARCH}-bootstrap"
if [ -e $targ ]; then
	echo "$targ already exists; remove before continuing"
	exit 2
fi

if [ "$BOOTSTRAP_FORMAT" != "mintgz" -a "$BOOTSTRAP_FORMAT" != "" ]; then
	echo "unknown BOOTSTRAP_FORMAT format"
	exit 2
fi

unset GOROOT
src=$(cd .. && pwd)
echo "#### Copying to $targ"
cp -R "$src" "$targ"
cd "$targ"
echo
echo "#### Cleaning $targ"
rm -f .gitignore
if [ -e .git ]; then
	git clean -q -f -x -d
fi
rm -rf pkg/bootstrap pkg/obj .git
echo "Bootstrap toolchain is in $targ"
exit 0
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_closer_typed_onto_its_block_s_last_line_is_split_off_where_the_shell_finds_the_file_ends_inside_it():
    # bash reports the block left open only at the file's end, once the 'thn' above is
    # mended: the mistake lies anywhere from the block's opener on, and the closer it
    # lost is there already, an argument of 'exit'.
    from tinycode.languages.bash import begins_above

    broken = BOOTSTRAP_SH.replace('"" ]; then', '"" ]; thn', 1).replace("\texit 2\nfi\n\nunset", "\texit 2 fi\n\nunset")
    lines = broken.replace("thn", "then").split("\n")
    assert begins_above(lines, len(lines), 1, "syntax error: unexpected end of file") == 15
    fixed = repaired_unranked(broken, "bash")
    assert fixed.status == "fixed" and fixed.source == BOOTSTRAP_SH


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_closer_split_off_its_block_s_last_line_is_indented_as_its_opener_is_with_tabs():
    clean = ('#!/bin/sh\nif [ -d "$DIR"/remotes ]; then\n\techo "Rewriting $DIR/remotes" >&2\n\t{\n\t\tcd "$DIR"/remotes\n'
             '\t\tls | while read f; do\n\t\t\tsed -n \\\n\t\t\t-e "s/^URL: *//p" \\\n\t\t\t< "$f"\n\t\tdone\n'
             '\t\techo done\n\t} | while read key value; do\n\t\techo "$key $value"\n\tdone\nfi\n')
    broken = clean.replace('< "$f"\n\t\tdone', '< "$f" done')
    assert check(clean, "bash").ok and not check(broken, "bash").ok
    fixed = repaired_unranked(broken, "bash")
    assert fixed.status == "fixed" and fixed.source == clean


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_closer_typed_as_a_lone_opener_far_above_where_the_file_ends_is_made_the_closer_again():
    # bash reports the 'if' left open where the file ends, eighty lines below the line
    # that is the block's closer misspelt as its opener.
    steps = "".join(f'echo "step {n}"\n' for n in range(80))
    clean = '#!/bin/bash\nif [ -n "$A" ]; then\n  echo a\nfi\n' + steps
    broken = clean.replace("\nfi\n", "\nif\n", 1)
    assert not check(broken, "bash").ok
    fixed = repaired_unranked(broken, "bash")
    assert fixed.status == "fixed" and fixed.source == clean


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a shell")
def test_a_misspelt_closer_indented_with_a_tab_is_respelt_in_place_beside_a_closer_typed_onto_a_line():
    # The shell names the closer it expects at the file's end ('expecting "fi"'): no
    # 'then' or 'do' is put in, and 'ffi', indented with a tab, is made 'fi' where it
    # stands (a tab is one character of the line, eight columns of its indentation).
    clean = ('#!/bin/sh\nfor file in $files\ndo\n\tif ! test -s "$file"\n\tthen\n\t\tcontinue\n\tfi\n\n'
             '\techo "$file" >>list.txt\n\trm -f tmp.txt\ndone\n\necho end\n')
    broken = clean.replace("\tfi\n", "\tffi\n").replace("tmp.txt\ndone\n", "tmp.txt done\n")
    assert check(clean, "bash").ok and not check(broken, "bash").ok
    fixed = repaired_unranked(broken, "bash")
    assert fixed.status == "fixed" and fixed.source == clean


STATUS_RB = """def status_of(header, res)
  if /^(\\d+)/ =~ header['status'][0]
    res.status = $1.to_i
    header.delete('status')
  end
  res
end
"""


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
def test_a_regular_expression_that_lost_its_opening_slash_gets_it_back_where_the_expression_begins():
    broken = STATUS_RB.replace("if /^", "if ^")
    assert not check(broken, "ruby").ok
    fixed = repaired_unranked(broken, "ruby")
    assert fixed.status == "fixed" and fixed.source == STATUS_RB
