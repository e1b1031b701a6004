"""The Verifier: the one answer to "is this edit accepted?"."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tinycode.check import Problem
from tinycode.engine.messages import expected_tokens
from tinycode.engine.verifier import Verifier, unmatched
from tinycode.engine.edits import Edit
from tinycode.languages import get_parser



def progress_of(language: str):
    """``Verifier(language).progress`` for an edit given by where it stands: it wrote lines
    ``line`` to ``end`` (``end`` is ``line - 1`` when it wrote none), moving the lines after
    it by ``delta``. The edit types a bracket; with ``keeps_marks``, it types and takes
    away no bracket or quote; with ``takes_away``, it only takes a word away."""
    verifier = Verifier(language)

    def made(before, after, line: int, end: int, delta: int, shadowed=(), *, keeps_marks: bool = False,
             takes_away: bool = False, **context) -> bool:
        written = max(end - line + 1, 0)
        span = written - delta
        if takes_away:
            old, new = ["x = y z"] * span, ["x = y"] * written
        elif keeps_marks:
            old, new = ["x = y"] * span, ["x = z"] * written
        else:
            old, new = ["x = y"] * span, ["x = (y"] + ["x = y"] * (written - 1) if written else []
        lines = ["x = y"] * (line - 1) + old + ["x = y"] * 1000
        return verifier.progress(before, after, lines, Edit(line, span, new, "an edit"), shadowed, **context)
    return made


made_progress = progress_of("javascript")


def problem(line: int, message: str, source: str = "tree-sitter") -> Problem:
    return Problem(line, 1, line, 1, message, source=source)


def test_a_judge_that_reports_the_first_error_only_moves_on():
    before = [problem(60, "missing ) after argument list", "node --check"), problem(94, "unexpected ')'")]
    # The error at line 60 repaired: node now reports the next one, with a new message.
    after = [problem(94, "Unexpected token ')'", "node --check"), problem(94, "unexpected ')'")]
    assert made_progress(before, after, 60, 60, 0)
    # A new message at or before the edit is a new error, not the next one surfacing.
    assert not made_progress(before, [problem(60, "Unexpected token", "node --check"),
                                      problem(94, "unexpected ')'")], 60, 60, 0)
    # More errors from the judge than before: not progress.
    assert not made_progress(before, after + [problem(120, "x", "node --check")], 60, 60, 0)


def test_a_next_error_met_at_the_end_of_the_file_may_begin_anywhere_past_the_edit():
    # A sentence of a comment joined back on line 5: bash -n now stops only at the end of
    # the file (a block left open further on), and tree-sitter sees where, at line 20.
    before = [problem(6, "syntax error near unexpected token `('", "bash -n")]
    after = [problem(20, "unexpected '# If we are on CI'"),
             problem(47, "syntax error: unexpected end of file", "bash -n")]
    assert made_progress(before, after, 5, 5, -1)
    # A next error the judge places itself, at line 47: tree-sitter's at line 20 is new.
    placed = [after[0], problem(47, "syntax error near unexpected token `fi'", "bash -n")]
    assert not made_progress(before, placed, 5, 5, -1)


def test_tree_sitter_describing_the_cascade_of_an_error_it_still_sees_anew_is_no_new_problem():
    # A ',' repaired at line 68; the mistake at line 115 is still there, and tree-sitter
    # now recovers from it differently: two problems a few lines below it, not one.
    before = [problem(68, "unexpected 'null,) {'"), problem(70, "missing '}'"), problem(85, "unexpected '$this=>'"),
              problem(115, "unexpected '{'"), problem(126, "unexpected '}'"), problem(131, "unexpected 'public'")]
    after = [problem(85, "unexpected '$this=>'"), problem(115, "unexpected '{'"),
             problem(121, "missing 'static'"), problem(123, "unexpected '= null;'")]
    assert made_progress(before, after, 68, 68, 0)
    # Far from any error it still sees, a problem is new.
    assert not made_progress(before, after + [problem(100, "unexpected 'x'")], 68, 68, 0)


def test_an_endif_put_in_where_its_conditional_still_goes_on_moves_the_imbalance():
    # gcc reports every unpaired directive: an #endif typed after line 50 closes the #ifdef
    # of line 48 early, and its "# else" at line 63 now has no #if. The mistake moved.
    made = progress_of("c")
    gcc = "gcc -fsyntax-only"
    before = [problem(48, "unterminated #else", gcc), problem(69, "unknown type name 'vodi'", gcc)]
    early = [problem(64, "#else without #if", gcc), problem(70, "unknown type name 'vodi'", gcc)]
    assert not made(before, early, 51, 52, 1)
    # The conditional closed where it ends: only the other mistake is left.
    assert made(before, [problem(69, "unknown type name 'vodi'", gcc)], 120, 120, 0)


def test_tree_sitter_problems_must_get_fewer_and_none_new():
    before = [problem(3, "missing ';'"), problem(9, "unexpected '}'")]
    assert made_progress(before, [problem(10, "unexpected '}'")], 3, 4, 1)  # shifted by the inserted line
    assert not made_progress(before, [problem(3, "missing ';'"), problem(9, "unexpected '}'")], 5, 5, 0)
    assert not made_progress(before, [problem(7, "unexpected 'x'")], 3, 3, 0)
    assert made_progress(before, [], 3, 3, 0)


def test_tree_sitter_seeing_an_old_error_differently_is_not_a_new_problem():
    # One of two bracket errors repaired: tree-sitter's recovery now calls the other
    # "unexpected '}'" where it said "unexpected '}}'". Same line, no more problems there.
    before = [Problem(3, 0, 3, 0, "unexpected ','", source="tree-sitter"),
              Problem(7, 0, 7, 0, "unexpected ':'", source="tree-sitter"),
              Problem(37, 0, 37, 0, "unexpected '}}'", source="tree-sitter")]
    after = [Problem(37, 0, 37, 0, "unexpected '}'", source="tree-sitter")]
    assert made_progress(before, after, 2, 2, 0)
    # On the edited lines a problem never seen before is new.
    assert not made_progress(before, [Problem(2, 0, 2, 0, "unexpected '{'", source="tree-sitter")], 2, 2, 0)
    # And so is a second problem on a line that had one.
    assert not made_progress(before, [Problem(37, 0, 37, 0, "unexpected '}}'", source="tree-sitter"),
                                      Problem(37, 5, 37, 5, "unexpected '}'", source="tree-sitter")], 2, 2, 0)


def test_an_error_tree_sitter_hid_may_surface_far_away_when_the_judge_reports_fewer():
    # ruby -c and tree-sitter on a file with two mistakes: the one at line 107 repaired,
    # tree-sitter now sees the second (line 130) that its recovery hid before.
    before = [Problem(108, 0, 108, 0, "syntax error, unexpected local variable", source="ruby -c"),
              Problem(144, 0, 144, 0, "syntax error, unexpected `end'", source="ruby -c"),
              Problem(107, 0, 107, 0, "unexpected ':to_ary'", source="tree-sitter")]
    after = [Problem(144, 0, 144, 0, "syntax error, unexpected `end'", source="ruby -c"),
             Problem(130, 0, 130, 0, "unexpected '('", source="tree-sitter")]
    assert made_progress(before, after, 107, 107, 0)
    # Not when it appears in the edit's own region, nor when the judge sees no fewer.
    near_edit = [after[0], Problem(110, 0, 110, 0, "unexpected '('", source="tree-sitter")]
    assert not made_progress(before, near_edit, 107, 107, 0)
    same_judge = [before[0], before[1], Problem(130, 0, 130, 0, "unexpected '('", source="tree-sitter")]
    assert not made_progress(before, same_judge, 107, 107, 0)


def test_what_tree_sitter_saw_under_the_judges_error_before_is_not_new_once_the_judge_moves_on():
    # The check left tree-sitter's error (lines 2-49) out: the judge reported on line 49.
    # Once that is repaired the judge reports line 122, and tree-sitter's error shows.
    before = [problem(49, "expected <block end>, but found '}'", "PyYAML")]
    shadowed = [Problem(2, 1, 49, 35, "unexpected '#'", source="tree-sitter")]
    after = [problem(122, "expected ',' or '}', but got ':'", "PyYAML"),
             Problem(2, 1, 50, 14, "unexpected '#'", source="tree-sitter")]
    assert made_progress(before, after, 49, 49, 0, shadowed)
    assert not made_progress(before, after, 49, 49, 0)  # unknown before: a new problem


def test_fewer_errors_from_the_judge_are_progress_when_tree_sitter_only_now_sees_another():
    # ruby -c reported 4 errors; one repaired, it reports the other 3, and tree-sitter's
    # recovery, which the first error kept busy, now sees the second one, far away.
    before = [problem(23, "unexpected &, expecting ')'", "ruby -c"), problem(94, "unexpected `end'", "ruby -c"),
              problem(179, "unexpected `end', expecting '}'", "ruby -c"), problem(331, "end-of-input", "ruby -c")]
    after = before[1:] + [problem(93, "unexpected '(args)'")]
    assert made_progress(before, after, 23, 23, 0)
    assert not made_progress(before, before[1:] + [problem(25, "unexpected '(args)'")], 23, 23, 0)  # near the edit
    assert not made_progress(before, before[:1] + before[2:] + [problem(93, "unexpected '(args)'")], 93, 93, 0)


def test_an_error_of_tree_sitters_too_wide_to_locate_anything_is_not_new():
    # Repaired at line 33: PyYAML's next error is line 68, and tree-sitter, which
    # misreads the file, now flags lines 1-64 as one error.
    before = [problem(34, "expected ',' or ']', but got '-'", "PyYAML"), problem(33, "unexpected '[[item30'")]
    wide = Problem(1, 1, 64, 14, "unexpected '# Rows'", source="tree-sitter")
    assert made_progress(before, [problem(68, "mapping values are not allowed here", "PyYAML"), wide], 33, 33, 0)
    narrow = Problem(1, 1, 20, 14, "unexpected '# Rows'", source="tree-sitter")
    assert not made_progress(before, [problem(68, "mapping values are not allowed here", "PyYAML"), narrow],
                             33, 33, 0)


def test_an_error_noticed_at_the_end_of_the_file_may_have_begun_anywhere_before_it():
    # A closing quote dropped on line 12 is noticed at the end (line 34); once it is put
    # back, the shell reports the next mistake, on line 27: before the old report, past the edit.
    before = [problem(34, "Syntax error: Unterminated quoted string", "sh -n")]
    after = [problem(27, 'Syntax error: ";" unexpected', "sh -n")]
    assert made_progress(before, after, 12, 12, 0)
    assert not made_progress(before, [problem(11, 'Syntax error: ";" unexpected', "sh -n")], 12, 12, 0)
    # An error that says where it is still counts from there.
    assert not made_progress([problem(34, "Syntax error: \"fi\" unexpected", "sh -n")], after, 12, 12, 0)


def test_a_string_that_swallowed_the_file_hid_the_errors_after_it():
    # A closing quote put back on line 12: tree-sitter's many problems go, and the
    # judge (ruby -c reports several) now sees two later mistakes instead of one.
    before = [problem(13, "syntax error, unexpected local variable or method", "ruby -c"),
              problem(14, "unexpected 'config'"), problem(25, "unexpected 'my_script'"),
              problem(100, "unexpected 'status'")]
    after = [problem(36, "syntax error, unexpected local variable or method, expecting ')'", "ruby -c"),
             problem(126, "syntax error, unexpected `end'", "ruby -c")]
    assert made_progress(before, after, 12, 12, 0)
    # Without tree-sitter seeing fewer problems, more errors from the judge are no progress.
    assert not made_progress(before[:1], after, 12, 12, 0)


def test_the_next_error_seen_by_both_the_judge_and_tree_sitter_is_not_new():
    before = [problem(13, "syntax error, unexpected local variable", "ruby -c")]
    after = [problem(36, "syntax error, expecting ')'", "ruby -c"), problem(36, "unexpected 'name'")]
    assert made_progress(before, after, 12, 12, 0)
    # Past the judge's next error, tree-sitter's problems are that error's cascade or
    # later mistakes the judge has not reached yet.
    assert made_progress(before, [problem(36, "syntax error, expecting ')'", "ruby -c"),
                                  problem(50, "unexpected 'name'"), problem(51, "unexpected ':'")], 12, 12, 0)
    # Between the edit and the judge's next error, a tree-sitter problem is new.
    assert not made_progress(before, [problem(36, "syntax error, expecting ')'", "ruby -c"),
                                      problem(25, "unexpected 'name'")], 12, 12, 0)


def test_what_tree_sitter_sees_anew_above_an_edit_the_judge_read_past_is_not_new():
    # "esac unset X" split at line 155; dash now stops at line 188 (an "if" typed for a
    # "fi"), and tree-sitter, recovering from that, misreads a function at line 54.
    before = [problem(155, 'Syntax error: word unexpected (expecting ";;")', "sh -n")]
    after = [problem(188, 'Syntax error: "fi" unexpected', "sh -n"), problem(54, "unexpected '# Determines'")]
    assert made_progress(before, after, 155, 156, 1)
    # Where the judge's first error is still at the edit, the lines above are not known good.
    assert not made_progress(before, [problem(156, "Syntax error: word unexpected", "sh -n"),
                                      problem(54, "unexpected '# Determines'")], 155, 156, 1)


def test_what_an_error_over_lines_covered_shows_once_it_is_repaired_where_it_began():
    # A string closed with the other quote on line 3 ran on to line 17: repaired there,
    # a mistake inside that stretch shows for the first time. Hidden, not added.
    wide = Problem(3, 60, 17, 1, "unexpected '\\'onChange\"> {'", source="tree-sitter")
    rest = [problem(19, "unexpected '?'"), problem(23, "missing '}'")]
    after = [problem(17, "missing '}'")] + rest
    assert made_progress([wide] + rest, after, 3, 3, 0)
    # Not where an edit elsewhere removed it, nor when more than that one shows.
    assert not made_progress([wide] + rest, after, 12, 12, 0)
    assert not made_progress([wide] + rest, after + [problem(30, "unexpected ';'")], 3, 3, 0)


def test_where_tree_sitter_alone_judges_an_error_repaired_may_uncover_the_next_far_below():
    # Two lines joined repaired at line 14: tree-sitter read the rest of the file as one
    # recovery and now sees the next mistake, 64 lines on.
    before = [problem(14, "unexpected 'require_relative'")]
    assert made_progress(before, [problem(79, "unexpected '~'")], 14, 15, 1)
    # Not within the edit's region, where it may be the edit's own doing,
    assert not made_progress(before, [problem(18, "unexpected '~'")], 14, 15, 1)
    # nor a closer found missing (an opener the edit may have added), nor more errors.
    assert not made_progress(before, [problem(79, "missing 'end'")], 14, 15, 1)
    assert not made_progress(before, [problem(79, "unexpected '~'"), problem(90, "unexpected 'x'")], 14, 15, 1)


def test_where_tree_sitter_alone_judges_an_error_too_wide_to_place_may_be_what_an_edit_uncovered():
    # A stray '~' deleted: a misspelt 'end' far off now makes tree-sitter wrap the file
    # in one error. An edit that adds or takes no bracket, quote or keyword cannot have.
    before = [problem(251, "unexpected '~'")]
    wide = [Problem(1, 1, 313, 1, "unexpected '# frozen_string_literal: true'", source="tree-sitter")]
    assert made_progress(before, wide, 251, 251, 0, takes_away=True)
    assert not made_progress(before, wide, 251, 251, 0)
    # Not when errors elsewhere went too (a ',' deleted by a stray backquote re-pairs
    # every raw string after it): the edit repaired more than its own place.
    assert not made_progress(before + [problem(300, "unexpected 'x'")], wide, 251, 251, 0, takes_away=True)


def test_after_an_error_too_wide_to_place_a_next_error_far_below_is_no_sign_of_a_repair():
    # tree-sitter's recovery may read the file anew after any edit: a ';' typed into the
    # first comment line "moved" an error it could not place to line 42.
    wide = [Problem(1, 1, 313, 1, "unexpected '// Copyright'", source="tree-sitter")]
    assert not made_progress(wide, [problem(42, "unexpected '{'")], 1, 1, 0)


TWO_MISTAKES = '''def first(x):
    return x +


def helper():
    return 1


def second(y):
    if y
        return y
    return 0
'''


def test_a_problem_judged_alone_has_the_other_problems_definitions_blanked_line_for_line():
    from tinycode.check import check

    before = check(TWO_MISTAKES, "python")
    assert [p.line for p in before.problems] == [2, 10]  # CPython's first error, tree-sitter's below
    verifier = Verifier("python")
    masked, masked_check, blanked = verifier.alone(TWO_MISTAKES, before, before.problems[0])
    assert sorted(blanked) == [9, 10, 11, 12]  # all of ``second``, nothing of ``first``/``helper``
    assert masked.count("\n") == TWO_MISTAKES.count("\n") and "def helper" in masked
    assert [p.line for p in masked_check.problems] == [2]
    # Judged alone, the second mistake is the one CPython reports: an error above no
    # longer stops it there.
    masked, masked_check, blanked = verifier.alone(TWO_MISTAKES, before, before.problems[1])
    assert sorted(blanked) == [1, 2] and masked_check.problems[0].message == "SyntaxError: expected ':'"
    assert masked_check.problems[0].line == 10


def test_a_mistake_that_blanking_shows_is_blanked_in_its_turn():
    # CPython stops at the first function's error; tree-sitter reads Python 2's 'print y'
    # as valid. Blanked for the last function's problem, the first shows CPython's error
    # in the second: that is blanked too, and the lost ':' is CPython's first error.
    from tinycode.check import check

    source = ("def first(x):\n    return x $$ ?? !! ` ` $$\n\n\ndef second(y):\n    print y\n    return y\n\n\n"
              "def helper():\n    return 1\n\n\ndef third(z):\n    if z\n        return z\n    return 0\n")
    before = check(source, "python")
    assert [p.line for p in before.problems] == [2, 15]
    masked, masked_check, blanked = Verifier("python").alone(source, before, before.problems[1])
    assert sorted(blanked) == [1, 2, 5, 6, 7] and "def helper" in masked
    assert [(p.line, p.message) for p in masked_check.problems] == [(15, "SyntaxError: expected ':'")]


def test_a_problem_with_nothing_else_in_its_file_is_already_alone():
    from tinycode.check import check

    source = "def f(x):\n    return (x\n"
    before = check(source, "python")
    assert Verifier("python").alone(source, before, before.problems[0]) is None


def test_an_edit_adds_a_problem_elsewhere_only_where_none_was_and_none_cascades():
    from tinycode.check import CheckResult
    from tinycode.engine.edits import Edit

    verifier = Verifier("go")
    edit = Edit(3, 1, ["x := 1"], "line 3: an edit")
    before = CheckResult("go", (problem(3, "expected operand"), problem(40, "expected operand")), "gofmt -e")
    # The old error below and what the judge reads after it: not the edit's doing.
    cascade = CheckResult("go", (problem(40, "expected operand"), problem(44, "missing ','"),
                                 problem(52, "expected '}', found 'EOF'")), "gofmt -e")
    assert not verifier.added_elsewhere(before, cascade, edit)
    # An error between the edit's region and the old one is new.
    assert verifier.added_elsewhere(before, CheckResult("go", (problem(20, "expected ';'"),
                                                               problem(40, "expected operand")), "gofmt -e"), edit)
    # Problems in the edit's own region are for the region's verdict, not this one.
    assert not verifier.added_elsewhere(before, CheckResult("go", (problem(5, "expected ';'"),), "gofmt -e"), edit)


def test_an_edit_found_with_the_other_problems_blanked_must_repair_its_problem_in_the_file(monkeypatch):
    # In the blanked copy the edit cleared its region (taken as given here); in the file
    # its problem is still there, said as before: the copy was answered, not the file.
    from tinycode.check import check
    from tinycode.engine.edits import Edit

    verifier = Verifier("c")
    monkeypatch.setattr(verifier, "region_cleared", lambda *args: True)
    working = "int f(void)\n{\n  return 1\n}\n\nint g = 2;\n"
    current = check(working, "c")
    target = current.problems[0]
    assert target.line in (3, 4)
    lines = working.split("\n")
    elsewhere = Edit(6, 1, ["int g = 3;"], "line 6: replace '2' with '3'")
    assert verifier.accepted_alone(working, current, working, elsewhere, current,
                                   "\n".join(elsewhere.applied(lines)), target) is None
    repaired = Edit(3, 1, ["  return 1;"], "line 3: insert ';'")
    after = verifier.accepted_alone(working, current, working, repaired, current,
                                    "\n".join(repaired.applied(lines)), target)
    assert after is not None and after.ok


def test_what_the_compiler_said_with_the_types_unknown_is_no_new_problem_once_they_are_known():
    # ``#include <ext`` over ``/pb_ds/...>``: gcc cannot find "ext", the types are unknown,
    # and "'Typename' has not been declared" on line 61 is set aside. The join lets it read
    # the header: the same message, now a problem, is the file's other mistake.
    before = (Problem(91, 1, 91, 1, "expected unqualified-id before '/' token", kind="compiler", source="g++"),)
    after = (Problem(61, 14, 61, 14, "'Typename' has not been declared", kind="compiler", source="g++"),)
    aside = (Problem(61, 14, 61, 14, "'Typename' has not been declared", kind="compiler", source="g++"),)
    verifier = Verifier("cpp")
    lines = ["int x;"] * 120
    joined = Edit(90, 2, ["#include <ext/pb_ds/tree_policy.hpp>"], "line 90: join line 91 to it")
    assert not verifier.progress(before, after, lines, joined)
    assert verifier.progress(before, after, lines, joined, set_aside=aside)


def test_an_include_line_split_in_its_header_s_name_is_joined_without_a_blank_first():
    from tinycode.engine.grammar_space import _joins, vocabulary

    lines = ["#include <ext", "/pb_ds/tree_policy.hpp>", "int x;"]
    keywords, symbols = vocabulary("cpp")
    joins = [edit.new_lines[0] for edit in _joins(lines, 2, "cpp", keywords, symbols)]
    assert joins.index("#include <ext/pb_ds/tree_policy.hpp>") < joins.index("#include <ext /pb_ds/tree_policy.hpp>")


def test_a_judge_that_reads_to_the_end_before_and_after_expecting_another_thing_there_moved_on():
    # A stray backquote taken out on line 3: dash still reads to the end of the file, now
    # expecting the 'fi' a block lost, and tree-sitter sees it missing there, near the edit.
    before = [problem(5, "Syntax error: EOF in backquote substitution", "sh -n")]
    after = [problem(5, 'Syntax error: end of file unexpected (expecting "fi")', "sh -n"), problem(6, "missing 'fi'")]
    assert made_progress(before, after, 3, 3, 0)
    # Not where the judge read to the end only after the edit.
    placed = [problem(5, "syntax error near unexpected token `fi'", "sh -n")]
    assert not made_progress(placed, after, 3, 3, 0)


_SPLIT_GO = [problem(56, "expected 1 expression", "gofmt -e"), problem(57, "expected statement, found ':='", "gofmt -e")]
_EOF_BASH = [problem(61, "unexpected EOF while looking for matching `\"'", "bash -n"),
             problem(76, "syntax error: unexpected end of file", "bash -n")]
_SLASH = "expected unqualified-id before '/' token"


@pytest.mark.parametrize("edit_line, before, one, more", [
    # 'case' put back on line 36: bash now reads on to a string left open at line 56,
    # which it reports twice, where the string's text ends and at the file's end.
    (36, [problem(39, "syntax error near unexpected token `)'", "bash -n")], _EOF_BASH,
     [problem(45, "syntax error near unexpected token `;;'", "bash -n"), *_EOF_BASH]),
    # 'Type' respelt 'type' on line 31: gofmt now reads on to a line split in two below,
    # which it reports on both of its lines.
    (31, [problem(31, "expected declaration, found Type", "gofmt -e")], _SPLIT_GO,
     [problem(56, "expected 1 expression", "gofmt -e"), problem(70, "expected ';', found x", "gofmt -e")]),
    # A line comment's lost '/' put back on line 1: g++ now says the same of lines 14 and 29.
    (1, [problem(1, _SLASH, "g++ -fsyntax-only")],
     [problem(14, _SLASH, "g++ -fsyntax-only"), problem(29, _SLASH, "g++ -fsyntax-only")],
     [problem(14, _SLASH, "g++ -fsyntax-only"), problem(29, "expected ';' before '}' token", "g++ -fsyntax-only")]),
    # A function's header typed onto a comment split off on line 9: rustfmt now stops at
    # a '?' typed into another header, and says two things of that line.
    (9, [problem(16, "unexpected closing delimiter: `}`", "rustfmt --check")],
     [problem(23, "missing parameters for function definition", "rustfmt --check"),
      problem(23, "expected one of `->`, `<`, `where`, or `{`, found `?`", "rustfmt --check")],
     [problem(23, "missing parameters for function definition", "rustfmt --check"),
      problem(29, "expected one of `.`, `;`, `?`, `}`, or an operator, found `distinct`", "rustfmt --check")]),
], ids=["running out of file", "a line and the next", "the same words further on", "one line"])
def test_what_a_judge_says_of_one_mistake_is_one_mistake(edit_line, before, one, more):
    assert made_progress(before, one, edit_line, edit_line, 0)
    # Two mistakes past the edit are still more than the one it repaired.
    assert not made_progress(before, more, edit_line, edit_line, 0)


def test_an_error_the_judge_reports_inside_a_string_the_edit_closed_it_never_read_as_code():
    # A string opened on line 3 ran on to line 31, where php -l reported; the edit closed
    # it on line 3, and php now reports line 29, which it had read as the string's text.
    made = progress_of("php")
    before = [problem(31, 'syntax error, unexpected identifier "mail", expecting ")"', "php -l")]
    after = [problem(29, 'syntax error, unexpected token "(", expecting variable', "php -l")]
    assert made(before, after, 3, 3, 0, unread=(3, 31))
    assert not made(before, after, 3, 3, 0)
    # Not an error on the edit's own line.
    assert not made(before, [problem(3, "syntax error, unexpected token \"'\"", "php -l")], 3, 3, 0, unread=(3, 31))


def test_what_the_judge_reports_inside_a_construct_it_read_as_left_open_is_the_file_s_own():
    # '#' put back as '#endif' on line 60: g++ had reported only the '#ifndef' of line 41
    # left open, and now reports a mistake on line 48, inside it.
    made = progress_of("cpp")
    before = [problem(41, "unterminated #ifndef", "g++ -fsyntax-only")]
    after = [problem(48, "'Namespace' does not name a type", "g++ -fsyntax-only")]
    assert made(before, after, 60, 60, 0)
    # Not another construct left open, nor above the one that was.
    assert not made(before, [problem(48, "unterminated #ifdef", "g++ -fsyntax-only")], 60, 60, 0)
    assert not made(before, [problem(30, "'Namespace' does not name a type", "g++ -fsyntax-only")], 60, 60, 0)


def test_a_pair_of_edits_repairs_both_problems_it_was_made_for():
    # rustfmt's error at line 8 is one tree-sitter cannot see: an edit there that only
    # quiets tree-sitter's view of line 14 (with the real repair at line 2) is no pair.
    from tinycode.check import CheckResult

    source = "".join(f"line {n}\n" for n in range(1, 20))
    text = source.replace("line 2\n", "line two\n").replace("line 8\n", "line 8(\n")
    first, other = problem(8, "unexpected closing delimiter: `}`", "rustfmt --check"), problem(2, "unexpected '~'")
    before = CheckResult("rust", (first, other, problem(14, "unexpected 'Err'")), "rustfmt --check")
    left = CheckResult("rust", (first,), "rustfmt --check")
    verifier = Verifier("rust")
    assert not verifier.pair_accepted(source, before, text, left, (first, other))
    # Both gone, one old problem left elsewhere: a pair.
    assert verifier.pair_accepted(source, before, text, CheckResult("rust", (before.problems[2],), "rustfmt --check"),
                                  (first, other))


def test_what_surfaces_far_off_counts_as_the_file_s_own_only_for_an_edit_that_changes_no_bracket():
    # Left out, lines whose brackets changed would change the blocks around them: the
    # copy without them says nothing of the edited file.
    from tinycode.check import check
    from tinycode.engine.edits import Edit

    source = "int f(int a)\n{\n  if (a) {\n    a = 1 +;\n  }\n  return a;\n}\n" + "\n" * 12 + "int g = 2 3;\n"
    lines = source.split("\n")
    before = (Problem(4, 11, 4, 11, "expected expression before ';' token", kind="compiler", source="gcc"),)
    verifier = Verifier("c")
    repaired = Edit(4, 1, ["    a = 1;"], "line 4: delete '+'")
    text = "\n".join(repaired.applied(lines))
    after = check(text, "c").problems
    assert after and all(p.line == 20 for p in after)
    assert verifier.surfaced_apart(lines, before, text, after, repaired)
    opened = Edit(4, 1, ["    a = 1; {"], "line 4: replace '+' with '{'")
    assert not verifier.surfaced_apart(lines, before, "\n".join(opened.applied(lines)), after, opened)


def test_what_surfaces_far_above_a_block_s_opener_mended_is_the_file_s_own():
    # The TypeScript parser checks the ambient context only once the file parses: the
    # stray statement far above surfaces when ``Interface`` is ``interface`` again.
    # Left out but for its ``{``, the opener's line still holds the block together.
    from tinycode.check import check

    source = ("declare namespace Intl {\n    Plural-Categories\n    type Rule = \"one\" | \"other\";\n"
              + "\n" * 12 + "    Interface NumberFormatPart {\n        value: string;\n    }\n}\n")
    before = check(source, "typescript")
    if not before.problems or before.problems[0].source == "tree-sitter":
        pytest.skip("the typescript package is not installed")
    lines = source.split("\n")
    mended = Edit(16, 1, ["    interface NumberFormatPart {"], "line 16: respell 'Interface' as 'interface'")
    text = "\n".join(mended.applied(lines))
    after = check(text, "typescript").problems
    assert after and all(p.line == 2 for p in after)
    assert Verifier("typescript").surfaced_apart(lines, before.problems, text, after, mended)


def test_a_judge_that_could_not_read_the_file_before_and_now_agrees_with_tree_sitter_adds_nothing():
    # An ``@`` made node leave the file to the grammar (a decorator, to it); gone, node
    # reads the file and reports the unclosed block where tree-sitter already did.
    def tree(line: int, message: str) -> Problem:
        return Problem(line, 1, line, 1, message)

    lines = ["function f(position) {", "    const pos =@ position;", "    if (pos) {", "        return 1;",
             "    // closed below }", "    return 0;", "}", ""]
    before = (tree(2, "unexpected '=@ position'"), tree(7, "missing '}'"))
    after = (Problem(7, 1, 7, 1, "SyntaxError: Unexpected end of input", kind="compiler", source="node --check"),
             tree(7, "missing '}'"))
    deleted = Edit(2, 1, ["    const pos = position;"], "line 2: delete '@'")
    assert Verifier("javascript").progress(before, after, lines, deleted)
    # On a line tree-sitter had no objection to, what it says is new.
    elsewhere = (Problem(5, 1, 5, 1, "SyntaxError: Unexpected token '}'", kind="compiler", source="node --check"),
                 tree(7, "missing '}'"))
    assert not Verifier("javascript").progress(before, elsewhere, lines, deleted)


def test_a_partial_step_the_compiler_still_rejects_with_the_names_declared_is_refused():
    # The file's types are unknown (its header is missing), and a second mistake is left:
    # deleting the `==` leaves an initialiser without its `=`, which gcc rejects once
    # `PyMethodDef` is declared; `=` for `==` it accepts.
    import shutil
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    source = ("#include <not_installed_here.h>\n\nstatic PyMethodDef methods[] == {\n    {NULL, NULL, 0, NULL}\n};\n\n"
              "int init(void) {\n    return register_all(&methods,);\n}\n")
    verifier = Verifier("c")
    deleted = source.replace("methods[] == {", "methods[]  {")
    assigned = source.replace("methods[] == {", "methods[] = {")
    assert verifier.rejects_step(source, deleted)
    assert not verifier.rejects_step(source, assigned)


def test_a_repair_that_types_syntax_its_judge_cannot_read_is_refused():
    # node leaves a `using` declaration to tree-sitter, which reads `using Const = ...`:
    # typed before a capitalised `Const`, it would make the file "clean" unjudged.
    original = "Const { output, META } = require('proc-log')\nconst npa = require('npm-package-arg')\n"
    verifier = Verifier("javascript")
    assert verifier.beyond_the_judge(original, "using " + original.replace("Const {", "Const = {", 1))
    assert not verifier.beyond_the_judge(original, original.replace("Const", "const", 1))
    # A file the judge could not read before may keep what it could not read.
    decorated = "@observer\nclass Store {\n  m() { return f(1; }\n}\n"
    assert not verifier.beyond_the_judge(decorated, decorated.replace("f(1;", "f(1);"))


def test_only_tokens_taken_away_in_their_order_keep_a_file_s_structure():
    lines = ["        [return: MarshalAs(UnmanagedType.BStr)]`", "        string GetInstallationName();"]
    verifier = Verifier("csharp")
    # A stray backquote is no quote in C#: taking it away keeps every block as it was.
    assert verifier.keeps_structure(lines, Edit(1, 1, ["        [return: MarshalAs(UnmanagedType.BStr)]"], "delete"))
    # A swap takes nothing away and keeps every token, but moves a bracket.
    assert not verifier.keeps_structure(lines, Edit(1, 1, ["        return[: MarshalAs(UnmanagedType.BStr)]`"], "swap"))
    # In JavaScript a backquote opens a template string.
    assert not Verifier("javascript").keeps_structure(["let s = `a` + b`;"], Edit(1, 1, ["let s = `a` + b;"], "delete"))


def test_the_header_the_compiler_said_was_meant_named_is_progress_whatever_it_reads_next():
    # With <features#.h> missing the compiler set the file's types aside; with
    # <features.h> found it reads them, and reports what it could not tell before.
    def compiler(line: int, message: str) -> Problem:
        return Problem(line, 1, line, 1, message, kind="compiler", source="gcc")

    before = (compiler(19, "unterminated #ifndef"),
              compiler(22, "no header <features#.h>: did you mean <features.h>?"))
    after = (compiler(19, "unterminated #ifndef"), compiler(54, "unknown type name 'car'"),
             compiler(76, "stray '#' in program"), compiler(76, "expected ';' before 'extern'"))
    verifier = Verifier("c")
    lines = ["int x;"] * 80
    lines[21] = "#include <features#.h>"
    mended = Edit(22, 1, ["#include <features.h>"], "line 22: delete '#'")
    assert verifier.progress(before, after, lines, mended)
    other = (compiler(19, "unterminated #ifndef"), compiler(22, "expected ';' before 'struct'"))
    assert not verifier.progress(other, after, lines, mended)


def test_what_tree_sitter_newly_sees_well_past_where_the_judge_stopped_is_the_judge_s_to_decide():
    from tinycode.engine.edits import Edit

    # rustfmt stopped at line 94 (a '}' closing nothing); tree-sitter saw one error there,
    # its recovery having wrapped the rest. The header typed onto the comment on line 67
    # split off: tree-sitter now sees the mistakes at 171 and 183 that the wrap hid.
    lines = ["// to add it. fn add(x: &str) -> String {"] + ["    x"] * 200
    edit = Edit(1, 1, ["// to add it.", "fn add(x: &str) -> String {"], "line 1: split before 'fn'")
    after = (problem(171, "unexpected '?'"), problem(183, "unexpected 'format'"))
    screen = Verifier("rust").tree_sitter_screen
    assert screen(lines, {(94, "unexpected '}'")}, [(94, 96)], after, edit, False, stopped_at=94) == "fixed"
    assert screen(lines, {(94, "unexpected '}'")}, [(94, 96)], after, edit, False) is None
    # Near where the judge stopped it is still new.
    near_it = (problem(99, "unexpected 'x'"), problem(100, "unexpected '?'"))
    assert screen(lines, {(94, "unexpected '}'")}, [(94, 96)], near_it + after, edit, False, stopped_at=94) is None


def test_what_a_judge_that_pairs_brackets_first_reports_once_they_pair_is_the_file_s_other_mistakes():
    # rustfmt said only that a '}' at line 94 closes nothing: it read none of the grammar.
    # The header typed onto a comment on line 67 split off, the brackets pair, and it
    # reads the file: its first mistake is at line 11, above the edit, and tree-sitter
    # now sees one at line 56 too.
    progress = progress_of("rust")
    before = [problem(94, "unexpected closing delimiter: `}`", "rustfmt --check"), problem(11, "unexpected 'std'")]
    after = [problem(11, "expected one of `!` or `::`, found `std`", "rustfmt --check"),
             problem(11, "unexpected 'std'"), problem(56, "unexpected '$'")]
    assert progress(before, after, 67, 68, 1, keeps_marks=True)
    # An edit that typed or took away a bracket or quote may have paired the brackets by
    # putting some inside a string (a raw string's closing '"#' made "'#").
    assert not progress(before, after, 67, 68, 1)
    # A judge that read the grammar and now stops above the edit: the edit's doing.
    read = [problem(94, "expected one of `.`, `;`, or an operator, found `}`", "rustfmt --check"), before[1]]
    assert not progress(read, after, 67, 68, 1, keeps_marks=True)
    # What it reports near the edit is still the edit's.
    assert not progress(before, [problem(69, "expected item, found `let`", "rustfmt --check")], 67, 68, 1,
                        keeps_marks=True)


def test_brackets_in_line_comments_are_prose_given_the_marker():
    # A call left open: the comment's ')' below closes nothing.
    lines = ["x = f(a", "# see the Null Object Pattern)", "y = 1  # (one)"]
    assert unmatched(lines) == 0
    assert unmatched(lines, "#") == 1


def test_a_next_error_begins_on_the_line_its_message_names():
    # ``$d skip()`` given its '->' on line 132: php -l now reports a '{' left open on line
    # 175 (a quote closed with the other kind there), at the file's end; tree-sitter
    # newly sees that mistake at 178, between the two: the next error, not the edit's.
    before = [problem(132, 'syntax error, unexpected identifier "skip"', "php -l")]
    hidden = [problem(132, "unexpected 'd'")]  # (tree-sitter's, under the judge's)
    after = [problem(181, "Unclosed '{' on line 175", "php -l"), problem(178, "syntax error")]
    lines = ["$x = 1;"] * 200
    lines[131] = "$d skip();"
    arrow = Edit(132, 1, ["$d->skip();"], "line 132: insert '->'")
    assert Verifier("php").progress(before, after, lines, arrow, hidden)
    # Named nowhere, the same error reported at 181 began no earlier than its line.
    assert not Verifier("php").progress(before, [problem(181, "Unclosed '{'", "php -l"), problem(178, "syntax error")],
                                        lines, arrow, hidden)


@pytest.mark.parametrize("message, tokens", [
    ("expected ';' before '}' token", {";"}),  # gcc
    ("';' expected", {";"}),  # javac
    ('Syntax error: "fi" unexpected (expecting "done")', {"done"}),  # dash
    ('syntax error, unexpected token "}", expecting ";" or ","', {";", ","}),  # PHP
    ("syntax error, unexpected end-of-input, expecting `end'", {"end"}),  # Ruby
    ("expected one of `:`, `;`, `=`, or `|`, found `chapters`", {":", ";", "=", "|"}),  # rustfmt
    ("syntax error near unexpected token `fi'", set()),  # bash: nothing asked for
])
def test_the_tokens_a_judge_asked_for_are_read_from_its_message(message, tokens):
    assert expected_tokens(message) == tokens


def test_a_line_inserted_above_the_judge_s_error_moves_the_error_with_its_line():
    # The judge's error stays on the same text, one line lower: the inserted line moved it.
    lines = ["a = 1", "b = (2", "c = 3"]
    before = [problem(2, "Unexpected token", "node --check")]
    after = [problem(3, "Unexpected token", "node --check")]
    assert Edit(2, 0, ["x = 0"]).moved(2) == 3 and Edit(2, 1, ["x = 0"]).moved(2) == 2
    assert not Verifier("javascript").progress(before, after, lines, Edit(2, 0, ["x = 0"], "insert a line"))


def test_an_error_at_the_input_s_end_moved_along_its_line_is_no_progress():
    lines = ["class A", "  def f", "    1", "end"]
    before = [Problem(4, 1, 4, 1, "syntax error, unexpected end-of-input, expecting `end'", source="ruby -c")]
    after = [Problem(4, 8, 4, 8, "syntax error, unexpected end-of-input, expecting `end'", source="ruby -c")]
    assert not Verifier("ruby").progress(before, after, lines, Edit(4, 1, ["nil end"], "insert 'nil'"))


def test_an_error_at_the_line_s_start_does_not_read_on_when_the_line_s_first_mark_is_deleted():
    # bash names no column: its error stands at the line's start before and after an
    # edit that deletes the ',' there, which is no reading on along the line.
    lines = ["# Licensed under the Apache License", ', Version 2.0 (the "License");']
    message = "syntax error near unexpected token `('"
    before = [Problem(2, 1, 2, 1, message, source="bash -n")]
    after = [Problem(2, 1, 2, 1, message, source="bash -n")]
    edit = Edit(2, 1, [' Version 2.0 (the "License");'], "line 2: delete ','")
    assert not Verifier("bash").progress(before, after, lines, edit)


def test_an_element_that_began_beside_the_edit_before_it_is_no_token_the_edit_began():
    # '<>' made '<html>' on the line that also opens <head>: the head element, a few tags
    # and a hundred lines of style, began on that line before the edit as after it.
    metas = '<meta charset="utf-8">\n<title>notes</title>\n'
    style = "".join(f".c{i} {{\n    color: red;\n\n    margin: 0;\n}}\n\n" for i in range(20))
    broken = f"<!DOCTYPE html><><head>\n{metas}<style>\n{style}</style>\n</head>\n<body><p>x</p></body></html>\n"
    fixed = broken.replace("<><head>", "<html><head>")
    parser = get_parser("html")
    before, after = parser.parse(broken.encode()), parser.parse(fixed.encode())
    assert not Verifier("html").token_over_code(before, after, 0, 0, 0)
    # A comment's opener typed there does begin one, over the whole style.
    commented = parser.parse(broken.replace("<><head>", "<><head><!--").replace("</style>", "--></style>").encode())
    assert Verifier("html").token_over_code(before, commented, 0, 0, 0)


def test_a_judge_that_shows_one_error_at_a_time_reading_past_the_edit_shows_its_place_cleared():
    # sh -n reports one error: after a repair it reports the next mistake's, far below, as
    # many as before. Its first error gone past the edit's region is the place cleared;
    # one that stays near it is not.
    lines = [f"echo {n}" for n in range(60)]
    lines[2] = "c=false while [ $# -gt 0 ]; do"
    edited = list(lines)
    edited[2:3] = ["c=false", "while [ $# -gt 0 ]; do"]
    edit = Edit(3, 1, edited[2:4], "line 3: put back a line break")
    before = (Problem(3, 1, 3, 1, 'Syntax error: "do" unexpected', source="sh -n"),)
    verifier = Verifier("bash")
    far = (Problem(41, 1, 41, 1, 'Syntax error: "fi" unexpected', source="sh -n"),)
    assert verifier.clears_its_place(lines, before, (edit,), edited, far)
    close = (Problem(6, 1, 6, 1, 'Syntax error: "fi" unexpected', source="sh -n"),)
    assert not verifier.clears_its_place(lines, before, (edit,), edited, close)


def test_a_compilers_error_that_only_points_at_a_bracket_is_no_brackets_problem():
    # g++ points "expected ';' at end of member declaration" at the ')' before 'Const':
    # a word mistyped, not a bracket that may pair with a mistake anywhere.
    lines = ["struct S {"] + [f"  int f{n}();" for n in range(20)] + ["  bool g(int, int) Const;", "};"]
    edited = list(lines)
    edited[21] = "  bool g(int, int) const;"
    edit = Edit(22, 1, [edited[21]], "line 22: replace 'Const' with 'const'")
    later = Problem(60, 5, 60, 8, "expected ')' before 'b_l'", ")", source="g++ -fsyntax-only")
    before = (Problem(22, 19, 22, 20, "expected ';' at end of member declaration", ")", source="g++ -fsyntax-only"),
              Problem(22, 21, 22, 26, "'Const' does not name a type; did you mean 'const'?", "Const;",
                      source="g++ -fsyntax-only"), later)
    verifier = Verifier("cpp")
    assert verifier.clears_its_place(lines, before, (edit,), edited, (later,))
    unmatched_paren = (replace(before[0], message="expected ')' before ';' token"),) + before[1:]
    assert not verifier.clears_its_place(lines, unmatched_paren, (edit,), edited, (later,))
